/**
 * Cancellation of the work before a search has a plan (issue #25 item 7: seconds at 10,000 stops,
 * measured end to end in test/service/jobs-cancel-large.test.ts): the problem's build, the
 * neighbour lists, the construction and the placement read their signal and stop with Cancelled;
 * a search cancelled before its first plan has none and is not chosen; a solve with no plan at
 * all throws Cancelled; a cancelled solve's plan is assembled without the last insertion tries
 * (its open stops: `cancelled`); `discard` skips the assembly. Uncancelled, nothing changes (the
 * same answers: the determinism tests of property.test.ts and solve.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { buildProblem } from '../../src/vrp/model.js';
import { buildNeighbours } from '../../src/vrp/neighbours.js';
import { defaultParams } from '../../src/vrp/search.js';
import { assemble, runSearch, searchBest, solve, type SearchTaskSpec } from '../../src/vrp/solve.js';
import { Engine } from '../../src/engine.js';
import { EngineError } from '../../src/core/errors.js';
import { WorkerPool } from '../../src/workers/pool.js';
import type { PlaceQuery } from '../../src/route/travel.js';
import { fixtureDataset } from '../helpers/datasets.js';
import { randomInstance } from './gen.js';

const input = randomInstance(7, { stops: [300, 300], vehicles: [3, 3], rich: false, pWindow: 0.3 });
const aborted = (): AbortSignal => { const ac = new AbortController(); ac.abort(); return ac.signal; };
/** A `cancelled()` that says yes from its n-th call on. */
const after = (n: number): { calls: number; fn: () => boolean } => {
  const c = { calls: 0, fn: () => ++c.calls >= n };
  return c;
};
const codeOf = async (p: Promise<unknown>): Promise<string | undefined> => p.then(() => undefined, (e: { code?: string }) => e.code);

describe('cancelling before a plan exists', () => {
  it("the problem's build reads its signal", async () => {
    expect(() => buildProblem(input, { signal: aborted() })).toThrow(expect.objectContaining({ code: 'Cancelled' }));
    expect(buildProblem(input, { signal: new AbortController().signal }).J).toBe(buildProblem(input).J);
  });

  it('the neighbour lists read theirs (and are the same lists when not cancelled)', () => {
    const pb = buildProblem(input);
    expect(() => buildNeighbours(pb, 10, undefined, () => true)).toThrow(expect.objectContaining({ code: 'Cancelled' }));
    expect(buildNeighbours(pb, 10, undefined, () => false).list).toEqual(buildNeighbours(pb, 10).list);
  });

  it('a search cancelled in its set-up or construction has no plan; later, its plan so far', async () => {
    const pb = buildProblem(input);
    const spec: SearchTaskSpec = { seed: 3, params: defaultParams(pb), budget: { iterations: 200 } };
    for (const n of [1, 3, 20]) {
      const r = await runSearch(pb, spec, after(n).fn);
      expect(r.planless).toBe(true);
      expect(r.stoppedBy).toBe('cancelled');
      expect(r.routes).toEqual([]);
    }
    const whole = await runSearch(pb, spec, () => false);
    expect(whole.planless).toBeUndefined();
    // cancelled once the iterations run: the constructed plan stands
    let iterating = false;
    const late = await runSearch(pb, spec, () => iterating, () => { iterating = true; }, 1);
    expect(late.planless).toBeUndefined();
    expect(late.stoppedBy).toBe('cancelled');
    expect(late.routes.some((r) => r.length > 0)).toBe(true);
  });

  it('a solve with no plan at all throws Cancelled; a cancelled plan is assembled without the last tries', async () => {
    const pb = buildProblem(input);
    expect(await codeOf(searchBest(pb, { seed: 1, iterations: 10, signal: aborted() }))).toBe('Cancelled');
    const stats = { seed: 1, workers: 1, iterations: 0, work: 0, improvements: 0, seconds: 0, stoppedBy: 'cancelled', bestWorker: 0, perWorker: [{ iterations: 0, cost: 0, unassigned: 0, stoppedBy: 'cancelled' }] } as const;
    const sol = assemble(pb, Array.from({ length: pb.V }, () => new Int32Array(0)), stats as never);
    expect(sol.routes).toEqual([]);
    expect(sol.unassigned.length).toBeGreaterThan(0);
    expect(new Set(sol.unassigned.filter((u) => pb.jInfeasible[pb.stopJob[u.stop]] < 0).map((u) => u.reason))).toEqual(new Set(['cancelled']));
    // not cancelled: the same empty routes get the last tries
    const tried = assemble(pb, Array.from({ length: pb.V }, () => new Int32Array(0)), { ...stats, stoppedBy: 'iterations', perWorker: [] } as never);
    expect(tried.routes.length).toBeGreaterThan(0);
  });

  it("a solve stopped by its caller's signal reports the caller's reason (an engine closed mid-construction)", async () => {
    const closed = new EngineError('Cancelled', 'The engine was closed.');
    const messageOf = async (p: Promise<unknown>): Promise<string | undefined> => p.then(() => undefined, (e: { message?: string }) => e.message);
    const before = new AbortController();
    before.abort(closed);
    expect(await messageOf(searchBest(buildProblem(input), { seed: 1, iterations: 10, signal: before.signal }))).toBe('The engine was closed.');
    // aborted while the searches (on threads) build their first plan: none has one
    const big = buildProblem(randomInstance(8, { stops: [2000, 2000], vehicles: [20, 20], rich: false, pWindow: 0.3 }));
    const pool = new WorkerPool({ threads: 2 });
    try {
      const during = new AbortController();
      const started = searchBest(big, { seed: 1, iterations: 10, executor: pool, workers: 2, signal: during.signal });
      setTimeout(() => during.abort(closed), 200);
      expect(await messageOf(started)).toBe('The engine was closed.');
    } finally {
      await pool.close();
    }
  });

  it('discard: a cancelled solve nobody reads throws Cancelled instead of assembling', async () => {
    const ac = new AbortController();
    const done = solve(input, { seed: 1, iterations: 1_000_000, signal: ac.signal, discard: ac.signal, onProgress: () => ac.abort() });
    expect(await codeOf(done)).toBe('Cancelled');
    const kept = new AbortController();
    const best = await solve(input, { seed: 1, iterations: 1_000_000, signal: kept.signal, onProgress: () => kept.abort() });
    expect(best.stats.stoppedBy).toBe('cancelled');
    expect(best.routes.length).toBeGreaterThan(0);
  });

  it('placing many stops in one thread reads the signal between chunks, with the same outcomes', async () => {
    const engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 1 });
    try {
      const travel = engine.context().travel;
      const qs: PlaceQuery[] = Array.from({ length: 300 }, (_, i) => ({ lat: 43.727 + (i % 20) * 0.0012, lon: 7.412 + Math.floor(i / 20) * 0.0017 }));
      const events: number[] = [];
      const all = await travel.placeMany(qs, { onProgress: (e) => events.push(e.done) });
      expect(all).toHaveLength(300);
      expect(events.at(-1)).toBe(300);
      expect(events.length).toBeGreaterThan(1);
      const ac = new AbortController();
      expect(await codeOf(travel.placeMany(qs, { signal: ac.signal, onProgress: (e) => { if (e.done >= 64) ac.abort(); } }))).toBe('Cancelled');
      const one = (travel as unknown as { placeHere(q: PlaceQuery[]): unknown[] }).placeHere(qs);
      expect(JSON.parse(JSON.stringify(all))).toEqual(JSON.parse(JSON.stringify(one)));
    } finally {
      await engine.close();
    }
  });
});
