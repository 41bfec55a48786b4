/**
 * Properties over random instances with every constraint kind switched on (two windows,
 * deadlines, shifts, max duration, max stops, two capacity dimensions, skills, pre-assignment,
 * pairs and non-stop pairs, keep-order, priorities, open starts/ends, cost factors, two
 * travel-time profiles): every returned solution passes the independent checker; same seed →
 * same solution; a served stop never has a higher-priority stop left out that it blocked
 * alone (checked through the reason codes: left-out stops always carry one).
 */
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { solve, WORK_PER_MS } from '../../src/vrp/solve.js';
import { validateSolution } from '../../src/vrp/validate.js';
import { REASON_CODES } from '../../src/vrp/model.js';
import { WorkerPool } from '../../src/workers/pool.js';
import { InlineExecutor } from '../../src/workers/inline.js';
import { parseSolomon } from '../../src/vrp/io/solomon.js';
import { randomInstance } from './gen.js';

const FIX = new URL('../../fixtures/vrp/', import.meta.url).pathname;
const strip = (s: { stats: unknown }): unknown => ({ ...s, stats: undefined });

describe('random instances', () => {
  it('every solution passes the independent checker', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 0, max: 60 }), async (seed, iterations) => {
        const input = randomInstance(seed);
        const sol = await solve(input, { seed, iterations });
        const rep = validateSolution(input, sol);
        if (!rep.ok) throw new Error(`seed ${seed}: ${rep.violations.join('; ')}`);
        for (const u of sol.unassigned) expect(REASON_CODES).toContain(u.reason);
      }),
      { numRuns: 120, seed: 20261122 },
    );
  });

  it('larger random instances (40–80 stops) pass the checker too', async () => {
    for (let seed = 1; seed <= 6; seed++) {
      const input = randomInstance(1000 + seed, { stops: [40, 80], vehicles: [3, 8] });
      const sol = await solve(input, { seed, iterations: 150 });
      const rep = validateSolution(input, sol);
      expect(rep.violations).toEqual([]);
    }
  });

  it('SWAP* in every local search (long and short routes) keeps solutions valid', async () => {
    const inst = parseSolomon(readFileSync(FIX + 'R101.txt', 'utf8'));
    const sol = await solve(inst.input, { seed: 2, iterations: 150, params: { swapStarRate: 1 } });
    expect(validateSolution(inst.input, sol, { exact: inst.exact }).violations).toEqual([]);
    // two long routes: granular SWAP* (routes longer than 25)
    const input = randomInstance(77, { stops: [70, 70], vehicles: [2, 2], pWindow: 0, rich: false });
    input.vehicles = input.vehicles.map((v) => ({ ...v, capacity: [] }));
    const long = await solve(input, { seed: 2, iterations: 60, params: { swapStarRate: 1 } });
    expect(validateSolution(input, long).violations).toEqual([]);
    expect(Math.max(...long.routes.map((r) => r.stops.length))).toBeGreaterThan(25);
  });

  it('same seed, same answer; another seed may differ', async () => {
    for (let seed = 1; seed <= 10; seed++) {
      const input = randomInstance(500 + seed);
      const a = await solve(input, { seed, iterations: 40 });
      const b = await solve(input, { seed, iterations: 40 });
      expect(JSON.stringify(strip(a))).toBe(JSON.stringify(strip(b)));
      expect(validateSolution(input, a).violations).toEqual([]);
    }
  });
});

describe('determinism with parallel searches', () => {
  const pool = new WorkerPool({ threads: 2 });
  afterAll(() => pool.close());

  it('same input + seed + worker count = same answer, byte for byte (iterations and time-limit modes)', async () => {
    const inst = parseSolomon(readFileSync(FIX + 'RC105.txt', 'utf8'));
    const a = await solve(inst.input, { seed: 11, workers: 2, executor: pool, iterations: 150 });
    const b = await solve(inst.input, { seed: 11, workers: 2, executor: pool, iterations: 150 });
    expect(JSON.stringify(strip(a))).toBe(JSON.stringify(strip(b)));
    expect(a.stats.perWorker).toHaveLength(2);
    expect(validateSolution(inst.input, a, { exact: inst.exact }).ok).toBe(true);
    // benchmark mode: a time limit converted to work in full, the clock only a net (hardLimitFactor)
    const c = await solve(inst.input, { seed: 11, workers: 2, executor: pool, timeLimitMs: 150, hardLimitFactor: 50 });
    const d = await solve(inst.input, { seed: 11, workers: 2, executor: pool, timeLimitMs: 150, hardLimitFactor: 50 });
    expect(c.stats.stoppedBy).toBe('work');
    expect(validateSolution(inst.input, c, { exact: inst.exact }).ok).toBe(true);
    expect(JSON.stringify(strip(c))).toBe(JSON.stringify(strip(d)));
    // an explicit work budget: the same work as that limit, so the same answer
    const e = await solve(inst.input, { seed: 11, workers: 2, executor: pool, work: 150 * WORK_PER_MS });
    expect(e.stats.stoppedBy).toBe('work');
    expect(JSON.stringify(strip(e))).toBe(JSON.stringify(strip(c)));
    // a time limit alone (a promise: the clock at the limit) is deterministic whenever the work budget ends first
    const f = await solve(inst.input, { seed: 11, workers: 2, executor: pool, timeLimitMs: 600 });
    const g = await solve(inst.input, { seed: 11, workers: 2, executor: pool, timeLimitMs: 600 });
    if (f.stats.stoppedBy === 'work' && g.stats.stoppedBy === 'work') expect(JSON.stringify(strip(f))).toBe(JSON.stringify(strip(g)));
  });

  it('offload (build and assembly on the pool too) and the in-thread executor give the same answer', async () => {
    const inst = parseSolomon(readFileSync(FIX + 'RC105.txt', 'utf8'));
    const base = await solve(inst.input, { seed: 4, workers: 2, executor: pool, iterations: 80 });
    const off = await solve(inst.input, { seed: 4, workers: 2, executor: pool, iterations: 80, offload: true });
    expect(JSON.stringify(strip(off))).toBe(JSON.stringify(strip(base)));
    // Two searches one after the other in this thread: the same seeds, so the same answer.
    const inline = await solve(inst.input, { seed: 4, workers: 2, executor: new InlineExecutor(), iterations: 80 });
    expect(JSON.stringify(strip(inline))).toBe(JSON.stringify(strip(base)));
  });

  it('one worker in this thread gives the same answer as search 0 on the pool', async () => {
    const inst = parseSolomon(readFileSync(FIX + 'C101.txt', 'utf8'));
    const here = await solve(inst.input, { seed: 5, workers: 1, iterations: 60 });
    const there = await solve(inst.input, { seed: 5, workers: 2, executor: pool, iterations: 60 });
    expect(there.stats.perWorker[0].cost).toBe(here.cost);
    expect(validateSolution(inst.input, here, { exact: inst.exact }).ok).toBe(true);
    expect(validateSolution(inst.input, there, { exact: inst.exact }).ok).toBe(true);
  });

  it('cancelling stops every search and returns the best so far', async () => {
    const inst = parseSolomon(readFileSync(FIX + 'R101.txt', 'utf8'));
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 1500);
    const sol = await solve(inst.input, { seed: 3, workers: 2, executor: pool, iterations: 10_000_000, signal: ac.signal });
    expect(sol.stats.perWorker.every((w) => w.stoppedBy === 'cancelled')).toBe(true);
    expect(sol.unassigned).toEqual([]);
    expect(validateSolution(inst.input, sol, { exact: inst.exact }).ok).toBe(true);
  });
});
