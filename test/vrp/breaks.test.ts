/**
 * Breaks without a place (VrpVehicle.breaks): the schedule's dynamic programme against brute
 * force over every placement, and solves with breaks accepted by the independent checker.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.js';
import { buildProblem, scheduleStops, serviceStart, type Problem, type VrpInput } from '../../src/vrp/model.js';
import { solve } from '../../src/vrp/solve.js';
import { validateSolution } from '../../src/vrp/validate.js';
import { randomInstance } from './gen.js';

/** Earliest end over every placement of the breaks (in order) into the 2n+1 gaps; null when none works. */
function bruteForce(pb: Problem, v: number, seq: number[], depart: number): number | null {
  const b0 = pb.vBrOff[v];
  const k = pb.vBrOff[v + 1] - b0;
  const n = seq.length;
  const gaps = 2 * n + 1;
  const T = pb.time[pb.vProfile[v]];
  const N = pb.N;
  let best: number | null = null;
  // taken = how many breaks are taken (a prefix: breaks go in window order), and at which gaps (non-decreasing)
  const place = new Array<number>(k).fill(0);
  const run = (taken: number): void => {
    let t = Math.max(depart, pb.vTin[v]);
    let bi = 0;
    const at = (g: number): boolean => {
      for (; bi < taken && place[bi] === g; bi++) {
        const st = Math.max(t, pb.brA[b0 + bi]);
        if (st > pb.brB[b0 + bi]) return false;
        t = st + pb.brW[b0 + bi];
      }
      return true;
    };
    if (!at(0)) return;
    let prev = pb.vStartPl[v];
    for (let i = 0; i < n; i++) {
      const s = seq[i];
      t += T[prev * N + pb.sPlace[s]];
      if (!at(2 * i + 1)) return;
      const st = serviceStart(pb, s, t);
      if (st === null) return;
      t = st + pb.sService[s];
      if (!at(2 * i + 2)) return;
      prev = pb.sPlace[s];
    }
    const end = t + T[prev * N + pb.vEndPl[v]];
    if (end > pb.vTout[v]) return;
    if (taken < k && !(end < pb.brA[b0 + taken])) return;
    if (best === null || end < best) best = end;
  };
  for (let taken = 0; taken <= k; taken++) {
    const rec = (i: number, from: number): void => {
      if (i === taken) { run(taken); return; }
      for (let g = from; g < gaps; g++) { place[i] = g; rec(i + 1, g); }
    };
    rec(0, 0);
  }
  return best;
}

function withBreaks(input: VrpInput, rng: Rng): VrpInput {
  return {
    ...input,
    vehicles: input.vehicles.map((ve) => {
      const k = rng.int(3);
      const breaks = Array.from({ length: k }, () => {
        const a = rng.int(500);
        return rng.chance(0.2) ? { duration: 5 + rng.int(40) } : { window: [a, a + rng.int(150)] as [number, number], duration: 5 + rng.int(40) };
      });
      return { ...ve, breaks };
    }),
  };
}

describe('breaks without a place', () => {
  it('the schedule equals brute force over every placement (400 random routes)', () => {
    const rng = new Rng(7);
    let feasible = 0, infeasible = 0, compared = 0;
    for (let c = 0; c < 400; c++) {
      const input = withBreaks(randomInstance(3000 + c, { stops: [2, 6], vehicles: [1, 2], pTwo: 0.3 }), rng);
      const pb = buildProblem(input);
      for (let v = 0; v < pb.V; v++) {
        if (pb.vBrOff[v + 1] === pb.vBrOff[v]) continue;
        const seq = Array.from({ length: pb.nStops }, (_, s) => s).filter(() => rng.chance(0.7));
        for (let i = seq.length - 1; i > 0; i--) { const j = rng.int(i + 1); [seq[i], seq[j]] = [seq[j], seq[i]]; }
        if (seq.length === 0) continue; // an unused vehicle owes no break
        const depart = pb.vTin[v] + rng.int(60);
        const got = scheduleStops(pb, v, seq, pb.vTin[v], pb.vTout[v], depart);
        expect(got, `case ${c} vehicle ${v}`).toBe(bruteForce(pb, v, seq, depart));
        compared++;
        if (got === null) infeasible++; else feasible++;
      }
    }
    expect(compared).toBeGreaterThan(200);
    expect(feasible).toBeGreaterThan(50);
    expect(infeasible).toBeGreaterThan(20);
  });

  it('the plan it reports is the schedule: breaks in their windows, at their gaps', () => {
    // depot 0; stops at places 1, 2 (10 apart); a 30-long break in [25, 40] — taken at stop 1 after service
    const n = 3;
    const time = new Float64Array(n * n);
    for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) time[a * n + b] = 10 * Math.abs(a - b);
    const pb = buildProblem({
      places: n, time, stops: [{ place: 1, service: 15 }, { place: 2, service: 5 }],
      vehicles: [{ start: 0, end: 0, breaks: [{ window: [25, 40], duration: 30 }] }],
    });
    const plan: { br: number; gap: number; start: number }[] = [];
    // depart 0: arrive 10, serve to 25, break 25–55, arrive 65, serve to 70, home 90
    expect(scheduleStops(pb, 0, [0, 1], 0, Infinity, 0, plan)).toBe(90);
    expect(plan).toEqual([{ br: 0, gap: 2, start: 25 }]);
    // the route is over before the window opens: no break owed
    const early = buildProblem({ places: n, time, stops: [{ place: 1 }], vehicles: [{ start: 0, end: 0, breaks: [{ window: [100, 200], duration: 30 }] }] });
    expect(scheduleStops(early, 0, [0], 0, Infinity, 0, plan)).toBe(20);
    expect(plan).toEqual([]);
    // a shift too short for the break: infeasible
    const tight = buildProblem({ places: n, time, stops: [{ place: 2 }], vehicles: [{ start: 0, end: 0, shift: [0, 60], breaks: [{ window: [0, 50], duration: 30 }] }] });
    expect(scheduleStops(tight, 0, [0], 0, 60, 0)).toBe(null);
    // a break window closing before the shift starts does not apply
    const before = buildProblem({ places: n, time, stops: [{ place: 2 }], vehicles: [{ start: 0, end: 0, shift: [100, 1000], breaks: [{ window: [0, 50], duration: 30 }] }] });
    expect(before.vBrOff[1]).toBe(0);
  });

  it('a break fills a wait: the route ends no later than without it', () => {
    const n = 3;
    const time = new Float64Array(n * n);
    for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) time[a * n + b] = 10 * Math.abs(a - b);
    const input = (breaks: { window: [number, number]; duration: number }[]): VrpInput => ({
      places: n, time, stops: [{ place: 1, service: 5 }, { place: 2, service: 5, windows: [[100, 200]] }],
      vehicles: [{ start: 0, end: 0, shift: [0, 1000], breaks }],
    });
    const a = buildProblem(input([]));
    const b = buildProblem(input([{ window: [20, 60], duration: 45 }]));
    expect(scheduleStops(b, 0, [0, 1], 0, 1000, 0)).toBe(scheduleStops(a, 0, [0, 1], 0, 1000, 0));
  });

  it('solves with breaks pass the independent checker (60 random instances, every constraint kind on)', async () => {
    const rng = new Rng(11);
    let withTaken = 0;
    let checkedMutations = 0;
    for (let c = 0; c < 60; c++) {
      const input = withBreaks(randomInstance(4000 + c), rng);
      let pb: Problem;
      try { pb = buildProblem(input); } catch { continue; }
      void pb;
      const sol = await solve(input, { seed: c, iterations: 60 });
      const rep = validateSolution(input, sol);
      expect(rep.violations, `instance ${c}`).toEqual([]);
      withTaken += sol.routes.filter((r) => r.breaks.length > 0).length;
      // the checker notices a break left out, or moved out of its window
      const r = sol.routes.find((x) => x.breaks.some((b) => input.vehicles[x.vehicle].breaks![b.index].window));
      if (r) {
        const saved = r.breaks;
        const b = r.breaks.find((x) => input.vehicles[r.vehicle].breaks![x.index].window)!;
        r.breaks = saved.filter((x) => x !== b);
        expect(validateSolution(input, sol).violations.join('\n')).toMatch(/not taken/);
        const late = input.vehicles[r.vehicle].breaks![b.index].window![1] + 1000;
        r.breaks = saved.map((x) => (x === b ? { ...b, start: late, end: late + b.end - b.start } : x));
        expect(validateSolution(input, sol).violations.join('\n')).toMatch(/outside its window/);
        r.breaks = saved;
        checkedMutations++;
      }
    }
    expect(withTaken).toBeGreaterThan(20);
    expect(checkedMutations).toBeGreaterThan(10);
  }, 60_000);
});
