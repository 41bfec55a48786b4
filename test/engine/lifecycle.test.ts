/**
 * The embedding API's lifecycle under a hostile caller (a helper's trial, 2026-11-27): closing at
 * any moment, closing twice, a progress callback that throws, bad options and sources. Each of
 * these used to end the process, hang, leak threads or descriptors, or answer with an error that
 * looked like a bug.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../../src/engine.js';
import { Rng } from '../../src/core/rng.js';
import { BinFile, backingOf } from '../../src/core/binfile.js';
import { WorkerPool } from '../../src/workers/pool.js';
import { fixtureDataset } from '../helpers/datasets.js';

let dir: string;
let file: string;
let bytes: Uint8Array;
beforeAll(async () => {
  const { buffer } = await fixtureDataset('monaco');
  bytes = new Uint8Array(buffer).slice();
  dir = mkdtempSync(join(tmpdir(), 'dk-lifecycle-'));
  file = join(dir, 'monaco.dkds');
  writeFileSync(file, bytes);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Threads of this process (Linux), to see that a closed engine left none behind. */
const threadCount = (): number => (existsSync('/proc/self/task') ? readdirSync('/proc/self/task').length : 0);
const fdCount = (): number => (existsSync('/proc/self/fd') ? readdirSync('/proc/self/fd').length : 0);
const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function dispatchSpec(engine: Engine, stops: number, seed = 7): Record<string, unknown> {
  const rng = new Rng(seed);
  const b = engine.dataset.graph.bbox();
  const point = (): { Latitude: number; Longitude: number } => {
    for (;;) {
      const Latitude = b.minLat + rng.next() * (b.maxLat - b.minLat);
      const Longitude = b.minLon + rng.next() * (b.maxLon - b.minLon);
      if (engine.dataset.snapper.trySnap(Latitude, Longitude, { radiusM: 300 })) return { Latitude, Longitude };
    }
  };
  const depot = { Name: 'Depot', LatLong: point() };
  return {
    CurrentTime: '2026-12-01T09:00:00',
    Vehicles: [0, 1, 2].map((i) => ({ Name: `V${i}`, StartLocation: depot, FinishLocation: depot })),
    Locations: Array.from({ length: stops }, (_, i) => ({ Name: `S${i}`, LatLong: point(), Wait: 60 })),
  };
}

describe('Engine.close', () => {
  it('cancels an operation at work, which settles as a cancelled one does (the best plan so far, or "The engine was closed."), never as an internal error', async () => {
    const engine = await Engine.open(file, { threads: 2 });
    const spec = dispatchSpec(engine, 60);
    const places = (spec.Locations as { LatLong: { Latitude: number; Longitude: number } }[]).map((l) => engine.placeLocation({ LatLong: l.LatLong } as never, 'x'));
    const dispatch = engine.dispatch(spec, { seed: 1, timeLimitMs: 20_000 });
    const matrix = engine.travelMatrix(places, { offload: true }).then(() => 'done', (e: { code: string; message: string }) => `${e.code}: ${e.message}`);
    await settle(400);
    const t = performance.now();
    await engine.close();
    const r = await dispatch;
    console.log(`closed during a dispatch: ${(performance.now() - t).toFixed(0)} ms; it answered ${r.Status} ${r.Errors?.[0]?.Message ?? ''}; the matrix: ${await matrix}`);
    expect(performance.now() - t).toBeLessThan(5_000); // its time limit was 20 s
    if (r.Status === 'Failed') expect(r.Errors?.[0]?.Message).toMatch(/The engine was closed/);
    else expect(r.Items?.length).toBeGreaterThan(0);
    expect(JSON.stringify(r)).not.toMatch(/Internal|Terminating/);
    expect(['done', 'Cancelled: The engine was closed.']).toContain(await matrix);
  });

  it('twice at once is one close: no pool is started again behind it', async () => {
    const before = threadCount();
    for (let round = 0; round < 3; round++) {
      const engine = await Engine.open(file, { threads: 2 });
      await engine.dispatch(dispatchSpec(engine, 8), { seed: 1 });
      await Promise.all([engine.close(), engine.close()]);
    }
    await settle(300);
    expect(threadCount()).toBeLessThanOrEqual(before);
  });

  it('cuts short a call made before it that had not reached the threads: no pool or file left behind', async () => {
    const threads = threadCount();
    const fds = fdCount();
    for (let round = 0; round < 3; round++) {
      const engine = await Engine.open(file, { threads: 2 });
      const p = engine.dispatch(dispatchSpec(engine, 12), { seed: 1 });
      await engine.close();
      const r = await p;
      expect(r.Status).toBe('Failed');
      expect(r.Errors?.[0]?.Message).toMatch(/The engine was closed/);
    }
    await settle(300);
    expect(threadCount()).toBeLessThanOrEqual(threads);
    expect(fdCount()).toBeLessThanOrEqual(fds);
  });

  it('marks a section a terminated thread was reading unread again, so the next reader does not wait for it', async () => {
    const engine = await Engine.open(file, { threads: 1 });
    const b = backingOf(engine.dataset.buffer)!;
    const f = BinFile.from(engine.dataset.buffer);
    // a lazily read section, caught "being read" (flag 2) by a thread that is then ended
    const index = f.names().findIndex((n) => n.startsWith('geo.')); // the table's order is the flags' order
    expect(Atomics.load(b.loaded, index)).toBe(0);
    Atomics.store(b.loaded, index, 2);
    const pool = new WorkerPool({ threads: 1, shared: { dataset: engine.dataset.buffer } });
    await pool.close();
    expect(Atomics.load(b.loaded, index)).toBe(0);
    const t = performance.now();
    const r = await engine.geocode({ Addresses: [{ Street: 'Boulevard des Moulins', City: 'Monaco' }] }, { offload: false });
    expect(r.Status).toBe('Success');
    expect(performance.now() - t).toBeLessThan(1_000); // it waited 30 s to take the section over
    await engine.close();
  });
});

describe('a progress callback that throws', () => {
  it('fails the operation on the pool as in the calling thread, and the process goes on', async () => {
    const engine = await Engine.open(file, { threads: 2 });
    const spec = dispatchSpec(engine, 20);
    const bad = (): void => { throw new Error('bug in my progress handler'); };
    for (const offload of [true, false]) {
      const r = await engine.dispatch(spec, { seed: 1, offload, onProgress: bad });
      expect(r.Status).toBe('Failed');
      expect(r.Errors?.[0]?.Message).toMatch(/bug in my progress handler/);
    }
    // the engine still answers
    expect((await engine.dispatch(spec, { seed: 1 })).Status).toBe('Success');
    await engine.close();
  });
});

describe('Engine.open', () => {
  it('refuses a thread count that is not a whole number from 1 to 4 × cores, naming `threads` (NaN hung every pooled call; Infinity aborted the process)', async () => {
    for (const threads of [NaN, Infinity, 0, -3, 1.5, 1e6, 'two' as unknown as number]) {
      const e = await Engine.open(file, { threads }).then(() => null, (err: { code: string; path: string }) => err);
      expect(e, String(threads)).toMatchObject({ code: 'InvalidInput', path: 'threads' });
    }
    const e = await Engine.fromExtract(new Uint8Array(0), { threads: NaN }).then(() => null, (err: { code: string; path: string }) => err);
    expect(e).toMatchObject({ code: 'InvalidInput', path: 'threads' });
  });

  it('refuses bad options by name, and takes null for none', async () => {
    for (const [options, path] of [[{ snapRadiusM: -5 }, 'snapRadiusM'], [{ snapRadiusM: NaN }, 'snapRadiusM'], [{ tasksPerThread: 0 }, 'tasksPerThread'], [{ maxMatrixBytes: 'lots' }, 'maxMatrixBytes'], [{ offload: 'yes' }, 'offload'], [42, 'options']] as const) {
      const e = await Engine.open(file, options as never).then(() => null, (err: { code: string; path: string }) => err);
      expect(e, JSON.stringify(options)).toMatchObject({ code: 'InvalidInput', path });
    }
    const engine = await Engine.open(file, null as never);
    await engine.close();
  });

  it('takes a Node Buffer or any view of the bytes, and names the source when it is none of the accepted kinds', async () => {
    const at = new Uint8Array(bytes.byteLength + 16);
    at.set(bytes, 16);
    for (const source of [Buffer.from(bytes), bytes, at.subarray(16)]) {
      const engine = await Engine.open(source, { threads: 1 });
      expect(engine.calculateDistance({ StartLocation: { LatLong: { Latitude: 43.7396, Longitude: 7.4277 } }, FinishLocation: { LatLong: { Latitude: 43.7285, Longitude: 7.415 } }, DistanceUnit: 'Kilometer' }).Status).toBe('Success');
      await engine.close();
    }
    for (const source of [null, 42, {}]) {
      const e = await Engine.open(source as never).then(() => null, (err: { code: string; path: string }) => err);
      expect(e).toMatchObject({ code: 'InvalidInput', path: 'source' });
    }
  });
});

describe('Geocode in the calling thread', () => {
  it('honours a signal already aborted, as on the pool', async () => {
    const engine = await Engine.open(file, { threads: 1 });
    const spec = { Addresses: Array.from({ length: 50 }, () => ({ Street: 'Rue Grimaldi', City: 'Monaco' })) };
    for (const offload of [false, true]) {
      const r = await engine.geocode(spec, { offload, poolThreshold: offload ? 1 : 1e9, signal: AbortSignal.abort() });
      expect(r.Status, String(offload)).toBe('Failed');
      expect(r.Errors?.[0]?.Message).toMatch(/cancelled/i);
    }
    await engine.close();
  });
});
