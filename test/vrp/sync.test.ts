/**
 * Synchronised searches (vrp/solve.ts syncEpochs): on several threads without decomposition, the
 * searches meet every `syncEveryMs` of work and go on from the best plan. Valid, deterministic per
 * seed and thread count, each epoch no worse than the last, and off when asked or when the budget
 * is iterations alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solve, WORK_PER_MS } from '../../src/vrp/solve.js';
import { validateSolution } from '../../src/vrp/validate.js';
import { WorkerPool } from '../../src/workers/pool.js';
import { randomInstance } from './gen.js';

let pool: WorkerPool;
beforeAll(() => { pool = new WorkerPool({ threads: 2 }); });
afterAll(() => pool.close());

const plan = (s: Awaited<ReturnType<typeof solve>>): number[][] => s.routes.map((r) => r.stops.map((x) => x.stop));

describe('synchronised searches', () => {
  it('meet every epoch: W searches per epoch, each epoch no worse than the one before, valid and deterministic', async () => {
    for (let seed = 1; seed <= 3; seed++) {
      const input = randomInstance(1400 + seed, { stops: [60, 90], vehicles: [4, 7] });
      // one priority, so that the count of open stops orders plans as the search does
      for (const s of input.stops) delete s.priority;
      const opts = { seed, executor: pool, work: 240 * WORK_PER_MS, syncEveryMs: 60 };
      const a = await solve(input, opts);
      expect(validateSolution(input, a).violations).toEqual([]);
      const w = a.stats.perWorker;
      expect(w.length).toBe(8); // 4 epochs × 2 searches
      const bestOf = (e: number): [number, number] => {
        const ws = w.slice(2 * e, 2 * e + 2).sort((x, y) => x.unassigned - y.unassigned || x.cost - y.cost);
        return [ws[0].unassigned, ws[0].cost];
      };
      for (let e = 1; e < 4; e++) {
        const [u0, c0] = bestOf(e - 1), [u1, c1] = bestOf(e);
        expect(u1).toBeLessThanOrEqual(u0);
        if (u1 === u0) expect(c1).toBeLessThanOrEqual(c0 + 1e-9);
      }
      // the reported plan is the last epoch's best
      expect(a.cost).toBeCloseTo(bestOf(3)[1], 6);
      const b = await solve(input, opts);
      expect(plan(b)).toEqual(plan(a));
    }
  }, 120_000);

  it('meet at shares of the time with the wall clock alone (deterministic: false), and use the time', async () => {
    const input = randomInstance(1600, { stops: [60, 80], vehicles: [4, 6] });
    for (const s of input.stops) delete s.priority;
    const t0 = performance.now();
    const a = await solve(input, { seed: 3, executor: pool, timeLimitMs: 2000, deterministic: false, syncEveryMs: 400 });
    const ms = performance.now() - t0;
    expect(validateSolution(input, a).violations).toEqual([]);
    const w = a.stats.perWorker;
    // floor(time left / 400 ms) epochs (4 or 5 after the set-up) × 2 searches, each ended by its share of the clock
    expect(w.length % 2).toBe(0);
    expect(w.length).toBeGreaterThanOrEqual(8);
    expect(w.every((x) => x.stoppedBy === 'time')).toBe(true);
    expect(a.stats.stoppedBy).toBe('time');
    expect(ms).toBeGreaterThan(1800);
    expect(ms).toBeLessThan(3000); // the limit, plus the assembly of the answer (a loaded machine)
    for (let e = 1; e < w.length / 2; e++) {
      const best = (k: number): number => Math.min(...w.slice(2 * k, 2 * k + 2).filter((x) => x.unassigned === 0).map((x) => x.cost));
      if (Number.isFinite(best(e - 1))) expect(best(e)).toBeLessThanOrEqual(best(e - 1) + 1e-9);
    }
    // sync: false keeps the independent searches
    const off = await solve(input, { seed: 3, executor: pool, timeLimitMs: 600, deterministic: false, syncEveryMs: 100, sync: false });
    expect(off.stats.perWorker.length).toBe(2);
  }, 60_000);

  it('is off with sync: false, with a budget of iterations alone, and when an epoch would be the whole budget', async () => {
    const input = randomInstance(1500, { stops: [60, 60], vehicles: [5, 5] });
    const off = await solve(input, { seed: 2, executor: pool, work: 240 * WORK_PER_MS, syncEveryMs: 60, sync: false });
    expect(off.stats.perWorker.length).toBe(2);
    const its = await solve(input, { seed: 2, executor: pool, iterations: 100, syncEveryMs: 10 });
    expect(its.stats.perWorker.length).toBe(2);
    const one = await solve(input, { seed: 2, executor: pool, work: 50 * WORK_PER_MS, syncEveryMs: 60 });
    expect(one.stats.perWorker.length).toBe(2);
  }, 60_000);
});

describe('crossover of two plans', () => {
  it('keeps whole routes of the first parent, fills with the second\'s, never places a job twice', async () => {
    const { buildProblem } = await import('../../src/vrp/model.js');
    const { crossover } = await import('../../src/vrp/crossover.js');
    const { Rng } = await import('../../src/core/rng.js');
    for (let seed = 1; seed <= 8; seed++) {
      const input = randomInstance(1600 + seed, { stops: [40, 70], vehicles: [4, 8] });
      const pb = buildProblem(input);
      const plans = await Promise.all([seed, seed + 100].map((s) => solve(pb, { seed: s, iterations: 40 })));
      const byVehicle = plans.map((sol) => {
        const out = Array.from({ length: pb.V }, () => new Int32Array(0));
        for (const r of sol.routes) out[r.vehicle] = Int32Array.from(new Set(r.stops.map((x) => pb.stopJob[x.stop])));
        return out;
      });
      const [a, b] = byVehicle;
      const child = crossover(pb, a, b, new Rng(seed));
      expect(child.length).toBe(pb.V);
      const seen = new Set<number>();
      let whole = 0;
      for (let v = 0; v < pb.V; v++) {
        for (const u of child[v]) { expect(seen.has(u)).toBe(false); seen.add(u); }
        if (child[v].length > 0 && a[v].length === child[v].length && a[v].every((u, i) => child[v][i] === u)) whole++;
      }
      if (a.some((r) => r.length > 0)) expect(whole).toBeGreaterThan(0);
      // B's routes come in without A's kept jobs, in B's order
      for (let v = 0; v < pb.V; v++) {
        if (child[v].length === 0 || (a[v].length === child[v].length && a[v].every((u, i) => child[v][i] === u))) continue;
        const src = b.find((r) => r.length > 0 && Array.from(child[v]).every((u) => r.includes(u)));
        expect(src).toBeDefined();
        const order = Array.from(src!).filter((u) => child[v].includes(u));
        expect(Array.from(child[v])).toEqual(order);
      }
      // as a warm start the child gives a valid plan
      const sol = await solve(pb, { seed, iterations: 5, initial: child.map((r, v) => ({ vehicle: v, stops: Array.from(r).map((u) => pb.jStop0[u]) })) });
      expect(validateSolution(input, sol).violations).toEqual([]);
    }
  }, 60_000);

  it('epochs with crossover stay valid and deterministic', async () => {
    const input = randomInstance(1700, { stops: [80, 80], vehicles: [6, 6] });
    const opts = { seed: 3, executor: pool, work: 240 * WORK_PER_MS, syncEveryMs: 60 };
    const a = await solve(input, opts);
    expect(validateSolution(input, a).violations).toEqual([]);
    expect(a.stats.perWorker.length).toBe(8);
    const b = await solve(input, opts);
    expect(plan(b)).toEqual(plan(a));
  }, 60_000);
});
