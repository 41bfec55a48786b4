/**
 * Plan evaluation (vrp/evaluate.ts) against the independent checker: on random instances with every
 * constraint kind and random hand-made plans, a plan evaluates without violations exactly when
 * validateSolution accepts the routes it timed; the solver's own plans evaluate to the solver's
 * own schedules; the closest fit of a left-out stop is a place that fits whenever one exists.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.js';
import { buildProblem } from '../../src/vrp/model.js';
import { closestFit, evaluatePlan, evaluateRoute, type PlannedRoute } from '../../src/vrp/evaluate.js';
import { solve } from '../../src/vrp/solve.js';
import { validateSolution } from '../../src/vrp/validate.js';
import type { Solution } from '../../src/vrp/solution.js';
import { randomInstance } from './gen.js';

const STATS = { seed: 0, workers: 0, iterations: 0, work: 0, improvements: 0, seconds: 0, stoppedBy: '', bestWorker: 0, perWorker: [] };

function asSolution(ev: ReturnType<typeof evaluatePlan>): Solution {
  return {
    routes: ev.routes, unassigned: ev.unplanned.map((s) => ({ stop: s, reason: 'notInserted' as const, message: 'left out' })),
    cost: ev.cost, distance: ev.distance, travelTime: ev.travelTime, duration: ev.duration, vehicles: ev.routes.length, stats: STATS,
  };
}

describe('plan evaluation', () => {
  it('finds no violation exactly when the independent checker accepts the plan (random instances, random plans)', () => {
    let feasible = 0, infeasible = 0;
    fc.assert(fc.property(fc.integer({ min: 1, max: 2 ** 31 - 1 }), (seed) => {
      const input = randomInstance(seed);
      const pb = buildProblem(input);
      const rng = new Rng(seed ^ 0x5eed);
      const byVehicle: number[][] = Array.from({ length: pb.V }, () => []);
      // a random plan: most stops on a random vehicle, in random order (often tight: few stops per route)
      const share = rng.next();
      for (let s = 0; s < pb.nStops; s++) {
        if (pb.jOptional[pb.stopJob[s]]) continue;
        if (rng.next() < 0.15 + 0.5 * share) byVehicle[rng.int(pb.V)].push(s);
      }
      for (const l of byVehicle) for (let i = l.length - 1; i > 0; i--) { const k = rng.int(i + 1); [l[i], l[k]] = [l[k], l[i]]; }
      const plan: PlannedRoute[] = byVehicle.map((stops, vehicle) => ({ vehicle, stops })).filter((r) => r.stops.length > 0);
      const ev = evaluatePlan(pb, plan);
      const report = validateSolution(input, asSolution(ev));
      if (ev.violations.length === 0) feasible++; else infeasible++;
      expect({ seed, ok: ev.violations.length === 0, violations: ev.violations.map((v) => v.kind) })
        .toEqual({ seed, ok: report.ok, violations: report.ok ? [] : expect.anything() });
      // every planned stop is in a route, in the order given
      const timed = new Map(ev.routes.map((r) => [r.vehicle, r.stops.map((x) => x.stop)]));
      for (const r of plan) expect(timed.get(r.vehicle)).toEqual(r.stops);
    }), { numRuns: 300 });
    expect(feasible).toBeGreaterThan(20);
    expect(infeasible).toBeGreaterThan(20);
  });

  it("times the solver's own plans exactly as the solver reports them, with no violation", async () => {
    for (const seed of [3, 17, 41, 99, 1234]) {
      const input = randomInstance(seed);
      const sol = await solve(input, { seed, iterations: 200 });
      const pb = buildProblem(input);
      const ev = evaluatePlan(pb, sol.routes.map((r) => ({ vehicle: r.vehicle, stops: r.stops.map((x) => x.stop) })));
      expect(ev.violations).toEqual([]);
      expect(ev.routes.map((r) => r.stops.map((x) => [x.stop, x.arrival, x.start]))).toEqual(sol.routes.map((r) => r.stops.map((x) => [x.stop, x.arrival, x.start])));
      expect(ev.cost).toBeCloseTo(sol.cost, 6);
    }
  });

  it('says by how much: a stop served after its window, a load over capacity, a shift overrun', () => {
    // three places in a line, 600 s apart; one vehicle from place 0, capacity 5, shift 0–1500
    const n = 3;
    const time = new Float64Array(n * n);
    for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) time[a * n + b] = Math.abs(a - b) * 600;
    const input = {
      places: n, time, objective: 'time' as const, dimensions: 1,
      stops: [
        { place: 1, service: 0, demand: [4], windows: [[0, 300]] as [number, number][] },
        { place: 2, service: 0, demand: [3] },
      ],
      vehicles: [{ start: 0, end: 0, capacity: [5], shift: [0, 1500] as [number, number] }],
    };
    const pb = buildProblem(input);
    const { violations } = evaluateRoute(pb, 0, [0, 1]);
    const by = Object.fromEntries(violations.map((v) => [v.kind, v.amount]));
    expect(by.window).toBe(300); // reached at 600, the window closed at 300
    expect(by.capacity).toBe(2); // 7 on board for 5
    expect(by.shift).toBe(2400 - 1500); // back at 2,400
  });

  it('finds a place that fits for a stop left out when there is one, and the least-bad one otherwise', () => {
    for (const seed of [5, 6, 7, 8, 9, 10, 11, 12]) {
      const input = randomInstance(seed, { pPre: 0, pSkill: 0 });
      const pb = buildProblem(input);
      const routes = [{ vehicle: 0, stops: [] as number[] }];
      for (let s = 0; s < pb.nStops; s++) {
        if (pb.jOptional[pb.stopJob[s]] || pb.jPairRole[pb.stopJob[s]] !== 0 || pb.jStop1[pb.stopJob[s]] >= 0) continue;
        const fit = closestFit(pb, routes, s);
        if (!fit) continue;
        // brute force over every vehicle and position: a feasible one exists iff `fits`
        let any = false;
        for (let v = 0; v < pb.V && !any; v++) {
          const seq = routes.find((r) => r.vehicle === v)?.stops ?? [];
          for (let p = 0; p <= seq.length && !any; p++) {
            const cand = [...seq.slice(0, p), s, ...seq.slice(p)];
            if (evaluateRoute(pb, v, cand, 0, false).violations.length === 0) any = true;
          }
        }
        const baseOk = evaluateRoute(pb, 0, routes[0].stops, 0, false).violations.length === 0;
        if (baseOk) expect({ seed, s, fits: fit.fits }).toEqual({ seed, s, fits: any });
        if (fit.fits && fit.vehicle === 0) routes[0].stops.splice(fit.position, 0, s);
      }
    }
  });
});
