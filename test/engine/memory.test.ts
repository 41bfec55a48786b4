/**
 * Memory given back after heavy work: a dispatch large enough for its travel matrix to live on
 * shared memory (from 2,000 places) leaves the process near where it started within seconds —
 * each thread collects once it has been idle a moment (Engine, workers/worker.ts), and the
 * shared matrix is freed once every thread has.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { fixtureDataset } from '../helpers/datasets.js';
import { reachablePool } from '../helpers/monaco-stops.js';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 2, offload: true });
});
afterAll(() => engine.close());

describe('memory after big work', () => {
  it('a 7,000-stop dispatch (its matrix on shared memory) gives its memory back within seconds', async () => {
    const pool = reachablePool(engine);
    const specOf = (stops: number): Record<string, unknown> => ({
      MinimumOptimization: 1,
      Vehicles: Array.from({ length: 30 }, (_, v) => ({ Name: `V${v}`, StartLocation: { LatLong: pool[0] } })),
      Locations: Array.from({ length: stops }, (_, i) => ({ Name: `S${i}`, LatLong: { Latitude: pool[i % pool.length].Latitude + ((i * 7) % 13) * 2e-5, Longitude: pool[i % pool.length].Longitude + ((i * 3) % 11) * 2e-5 } })),
    });
    // A smaller large dispatch first (the same code paths: from 2,000 places the matrix is on shared
    // memory): the threads' code and compiled functions stay (~90 MB over two threads running the
    // built code), its data must not — and a thread that kept only its last problem would now hold
    // this one's larger matrix, which the measure sees.
    await engine.dispatch(specOf(2000));
    for (let i = 0; i < 40; i++) await new Promise((res) => setTimeout(res, 250));
    const base = process.memoryUsage().rss;
    const stops = 7000;
    const matrixBytes = (stops + 1) ** 2 * 4; // times alone (MinimizeTime, Optima): one Int32 per cell
    // What stays after the work without any data kept — the threads' allocator arenas and V8 pages —
    // grows with the problem but slower than its matrix (2026-11-27: -10..27 MB after 3,500 stops,
    // a 49 MB matrix, which made a bound of 40 % of the matrix flaky; 27..47 MB after 5,000; 52–65 MB
    // after 7,000, a 196 MB matrix), while a thread holding its last task's payload (tried by hand in
    // the built worker) keeps the whole matrix (198 MB stayed). The bound sits between the two.
    const KEPT = 0.55;
    let r: unknown = await engine.dispatch(specOf(stops));
    const peak = process.memoryUsage().rss;
    expect((r as { Status: string }).Status).not.toBe('Failed');
    r = null;
    let now = peak;
    // idle collections come a moment after the work, later on a loaded machine: wait up to 30 s
    for (let i = 0; i < 120 && now - base > KEPT * matrixBytes; i++) {
      await new Promise((res) => setTimeout(res, 250));
      now = process.memoryUsage().rss;
    }
    console.log(`engine memory: ${(base / 1e6).toFixed(0)} MB before, ${(peak / 1e6).toFixed(0)} MB right after a ${stops}-stop dispatch (matrix ${(matrixBytes / 1e6).toFixed(0)} MB), ${(now / 1e6).toFixed(0)} MB soon after`);
    // the measure sees the dispatch's data while it is held, and then not
    expect(peak - base).toBeGreaterThan(0.6 * matrixBytes);
    expect(now - base).toBeLessThan(KEPT * matrixBytes);
  }, 120_000);
});
