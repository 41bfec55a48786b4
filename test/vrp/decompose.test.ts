/**
 * Decomposition (vrp/decompose.ts): the parts of a round cover the plan exactly once and keep
 * every job where it may be; solves with cooperative rounds on worker threads are valid,
 * deterministic, and no worse than their own first phase.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.js';
import { cutParts, mergeParts } from '../../src/vrp/decompose.js';
import { buildProblem } from '../../src/vrp/model.js';
import { solve } from '../../src/vrp/solve.js';
import { validateSolution } from '../../src/vrp/validate.js';
import { WorkerPool } from '../../src/workers/pool.js';
import { randomInstance } from './gen.js';

let pool: WorkerPool;
beforeAll(() => { pool = new WorkerPool({ threads: 2 }); });
afterAll(() => pool.close());

describe('decomposition', () => {
  it('cuts a plan into parts: each vehicle in one, every routed job allowed only on its own route or its part\'s vehicles, pairs together', async () => {
    for (let seed = 1; seed <= 15; seed++) {
      const input = randomInstance(1200 + seed, { stops: [30, 60], vehicles: [3, 6] });
      const pb = buildProblem(input);
      const sol = await solve(input, { seed, iterations: 30 });
      const routes = Array.from({ length: pb.V }, () => new Int32Array(0));
      for (const r of sol.routes) routes[r.vehicle] = Int32Array.from(new Set(r.stops.map((x) => pb.stopJob[x.stop])));
      const parts = cutParts(pb, routes, 2, new Rng(seed));
      for (let v = 0; v < pb.V; v++) expect(parts.focus[0][v] + parts.focus[1][v]).toBe(1);
      const routeOf = new Int32Array(pb.J).fill(-1);
      routes.forEach((r, v) => r.forEach((u) => { routeOf[u] = v; }));
      for (let u = 0; u < pb.J; u++) {
        for (let w = 0; w < 2; w++) {
          const on = Array.from({ length: pb.V }, (_, v) => v).filter((v) => parts.allowed[w][u * pb.V + v]);
          for (const v of on) expect(parts.focus[w][v] === 1 || v === routeOf[u]).toBe(true);
          if (routeOf[u] >= 0) expect(on).toContain(routeOf[u]);
          if (routeOf[u] >= 0) expect(parts.focus[parts.owner[u]][routeOf[u]]).toBe(1); // a routed job belongs to its route's part
          const m = pb.jMate[u];
          if (m >= 0 && routeOf[u] < 0) expect(on.length > 0).toBe(Array.from({ length: pb.V }, (_, v) => parts.allowed[w][m * pb.V + v]).some(Boolean));
        }
      }
      // merging the plan with itself changes nothing
      expect((await mergeParts(pb, routes, parts, [routes, routes])).map((r) => Array.from(r))).toEqual(routes.map((r) => Array.from(r)));
    }
  });

  it('solves with cooperative rounds on 2 threads: valid, deterministic, no worse than the independent phase alone', async () => {
    for (let seed = 1; seed <= 4; seed++) {
      const input = randomInstance(1300 + seed, { stops: [120, 160], vehicles: [6, 10] });
      const a = await solve(input, { seed, iterations: 150, executor: pool, decompose: true });
      expect(validateSolution(input, a).violations).toEqual([]);
      const b = await solve(input, { seed, iterations: 150, executor: pool, decompose: true });
      expect(b.routes.map((r) => r.stops.map((x) => x.stop))).toEqual(a.routes.map((r) => r.stops.map((x) => x.stop)));
      // the first phase alone: 40 % of the iterations, independent searches
      const first = await solve(input, { seed, iterations: 60, executor: pool, decompose: false });
      expect(a.unassigned.length).toBeLessThanOrEqual(first.unassigned.length);
      if (a.unassigned.length === first.unassigned.length) expect(a.cost).toBeLessThanOrEqual(first.cost + 1e-9);
    }
  }, 60_000);
});
