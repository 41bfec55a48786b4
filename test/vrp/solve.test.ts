/**
 * Small hand-checked instances (known optima), one test per constraint kind, reasons for
 * left-out stops, cancellation and progress. Every solution goes through the independent checker.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { assemble, solve, wallNow, WORK_PER_MS, WORK_SHARE, type SolveOptions } from '../../src/vrp/solve.js';
import { buildProblem } from '../../src/vrp/model.js';
import { validateSolution } from '../../src/vrp/validate.js';
import type { VrpInput } from '../../src/vrp/model.js';
import type { Solution } from '../../src/vrp/solution.js';
import { parseSolomon } from '../../src/vrp/io/solomon.js';
import { parseVrplib } from '../../src/vrp/io/vrplib.js';

const FIX = new URL('../../fixtures/vrp/', import.meta.url).pathname;

async function run(input: VrpInput, opts: SolveOptions = {}): Promise<Solution> {
  const sol = await solve(input, { seed: 7, iterations: 200, ...opts });
  const rep = validateSolution(input, sol);
  expect(rep.violations).toEqual([]);
  return sol;
}

/** Matrix from a function over places. */
function mat(n: number, f: (a: number, b: number) => number): Float64Array {
  const m = new Float64Array(n * n);
  for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) m[a * n + b] = a === b ? 0 : f(a, b);
  return m;
}
const line = (xs: number[]): Float64Array => mat(xs.length, (a, b) => Math.abs(xs[a] - xs[b]));
const routeStops = (sol: Solution): number[][] => sol.routes.map((r) => r.stops.map((s) => s.stop));
// Asymmetric triangle: 0→A→B→0 costs 1 each way round, the other direction 5 per leg.
const tri = mat(3, (a, b) => ((b - a + 3) % 3 === 1 ? 1 : 5));

describe('known optima', () => {
  it('line with capacity 2: two routes, cost 12', async () => {
    const m = line([0, 1, 2, 3, 4]);
    const sol = await run({
      places: 5, time: m, stops: [1, 2, 3, 4].map((p) => ({ place: p, demand: [1] })),
      vehicles: Array.from({ length: 4 }, () => ({ start: 0, end: 0, capacity: [2] })),
    });
    expect(sol.cost).toBe(12);
    expect(sol.vehicles).toBe(2);
  });

  it('square tour with one vehicle: the perimeter', async () => {
    const P = [[0, 0], [0, 10], [10, 10], [10, 0]];
    const m = mat(4, (a, b) => Math.round(Math.hypot(P[a][0] - P[b][0], P[a][1] - P[b][1])));
    const sol = await run({ places: 4, time: m, stops: [1, 2, 3].map((p) => ({ place: p })), vehicles: [{ start: 0, end: 0 }] });
    expect(sol.cost).toBe(40);
  });

  it('time windows force the expensive direction (one vehicle: 15, order B, A)', async () => {
    const input: VrpInput = {
      places: 3, time: tri,
      stops: [{ place: 1, windows: [[20, 30]], label: 'A' }, { place: 2, windows: [[0, 10]], label: 'B' }],
      vehicles: [{ start: 0, end: 0 }],
    };
    const sol = await run(input);
    expect(sol.cost).toBe(15);
    expect(routeStops(sol)).toEqual([[1, 0]]);
    expect(sol.routes[0].stops[1].start).toBe(20); // waits for A's window
    const two = await run({ ...input, vehicles: [{ start: 0, end: 0 }, { start: 0, end: 0 }] });
    expect(two.cost).toBe(12); // two direct round trips
  });

  it('C101 (Solomon) reaches its optimum 828.94', async () => {
    const inst = parseSolomon(readFileSync(FIX + 'C101.txt', 'utf8'));
    const sol = await solve(inst.input, { seed: 1, iterations: 300 });
    const rep = validateSolution(inst.input, sol, { exact: inst.exact });
    expect(rep.violations).toEqual([]);
    expect(rep.exactDistance! / inst.scale).toBeCloseTo(828.94, 2);
    expect(sol.vehicles).toBe(10);
  });

  it('A-n32-k5 (Augerat) reaches its proven optimum 784', async () => {
    const inst = parseVrplib(readFileSync(FIX + 'A-n32-k5.vrp', 'utf8'));
    const sol = await solve(inst.input, { seed: 3, iterations: 3000 });
    expect(validateSolution(inst.input, sol).ok).toBe(true);
    expect(sol.distance).toBe(784);
    expect(sol.vehicles).toBe(5);
  });
});

describe('constraints', () => {
  it('two windows: the second is used when the first cannot be met', async () => {
    const sol = await run({
      places: 2, time: line([0, 10]), stops: [{ place: 1, windows: [[0, 5], [50, 60]], service: 3 }], vehicles: [{ start: 0, end: 0 }],
    });
    const v = sol.routes[0].stops[0];
    expect(v.start).toBe(50);
    // the vehicle leaves as late as possible without finishing later: no waiting
    expect(v.arrival).toBe(50);
    expect(v.wait).toBe(0);
    expect(sol.routes[0].startTime).toBe(40);
    expect(sol.routes[0].duration).toBe(23);
  });

  it('open routes do not drive back', async () => {
    const m = line([0, 10, 20]);
    const sol = await run({ places: 3, time: m, stops: [{ place: 1 }, { place: 2 }], vehicles: [{ start: 0 }] });
    expect(sol.cost).toBe(20);
    expect(sol.routes[0].endLegDistance).toBe(0);
    const closed = await run({ places: 3, time: m, stops: [{ place: 1 }, { place: 2 }], vehicles: [{ start: 0, end: 0 }] });
    expect(closed.cost).toBe(40);
  });

  it('pickup before delivery, same vehicle, load carried in between', async () => {
    const sol = await run({
      places: 3, time: tri, stops: [{ place: 1, demand: [4] }, { place: 2, demand: [0] }],
      pairs: [{ pickup: 0, delivery: 1 }], vehicles: [{ start: 0, end: 0, capacity: [5] }, { start: 0, end: 0, capacity: [5] }],
      dimensions: 1,
    });
    // Unconstrained the cheap cycle would visit place 2 first; the pair forces 0 → P → D → 0 on one vehicle.
    expect(routeStops(sol)).toEqual([[0, 1]]);
    expect(sol.routes[0].startLoad).toEqual([0]);
    expect(sol.routes[0].stops.map((s) => s.load[0])).toEqual([4, 0]);
  });

  it('non-stop pairs: the delivery comes right after its pickup', async () => {
    // places on a line: 0 depot, P at 10, Q at 11, D at 12, open route: P, Q, D costs 12; P, D, Q 13.
    const m = line([0, 10, 11, 12]);
    const input: VrpInput = { places: 4, time: m, stops: [{ place: 1 }, { place: 2 }, { place: 3 }], vehicles: [{ start: 0 }] };
    const free = await run({ ...input, pairs: [{ pickup: 0, delivery: 2, nonStop: false }] });
    expect(routeStops(free)).toEqual([[0, 1, 2]]);
    expect(free.cost).toBe(12);
    const nonStop = await run({ ...input, pairs: [{ pickup: 0, delivery: 2, nonStop: true }] });
    expect(routeStops(nonStop)).toEqual([[0, 2, 1]]);
    expect(nonStop.cost).toBe(13);
  });

  it('skills and pre-assignment pick the vehicle', async () => {
    const m = line([0, 100, 1, 2]);
    const sol = await run({
      places: 4, time: m,
      stops: [{ place: 2, skills: ['Frozen'] }, { place: 3, vehicle: 0 }],
      vehicles: [{ start: 0, end: 0 }, { start: 1, end: 1, skills: ['frozen', 'lift'] }],
    });
    const byVeh = new Map(sol.routes.map((r) => [r.vehicle, r.stops.map((s) => s.stop)]));
    expect(byVeh.get(1)).toEqual([0]); // far vehicle, but the only one with the skill
    expect(byVeh.get(0)).toEqual([1]);
  });

  it('keep-order stops keep their input order within a route', async () => {
    const m = line([0, 10, 5]);
    const input: VrpInput = { places: 3, time: m, stops: [{ place: 1 }, { place: 2 }], vehicles: [{ start: 0 }] };
    expect(routeStops(await run(input))).toEqual([[1, 0]]); // nearer first
    const kept = await run({ ...input, stops: input.stops.map((s) => ({ ...s, keepOrder: true })) });
    expect(routeStops(kept)).toEqual([[0, 1]]);
  });

  it('when not everything fits, the lowest priority is left out first', async () => {
    const m = line([0, 1, 2, 3]);
    const sol = await run({
      places: 4, time: m, dimensions: 1,
      stops: [{ place: 1, demand: [6], priority: 0 }, { place: 2, demand: [6], priority: 5 }, { place: 3, demand: [6], priority: 1 }],
      vehicles: [{ start: 0, end: 0, capacity: [12] }],
    });
    expect(routeStops(sol)[0].sort()).toEqual([1, 2]);
    expect(sol.unassigned).toEqual([{ stop: 0, reason: 'capacity', message: expect.any(String) }]);
  });

  it('reports why stops are left out (in isolation and after the search)', async () => {
    const m = line([0, 10, 20, 30, 40, 2, 3, 4, 5, 6]);
    const sol = await run({
      places: 10, time: m, dimensions: 1,
      stops: [
        { place: 1, demand: [50] }, // capacity
        { place: 2, skills: ['crane'] }, // skills
        { place: 3, windows: [[0, 5]] }, // window closes before any vehicle can get there
        { place: 4 }, // 80 round trip > shift
        { place: 5, vehicle: 1, skills: ['crane'] }, // pre-assigned to a vehicle that cannot serve it
        { place: 5 }, { place: 6 }, { place: 7 }, { place: 8 }, { place: 9 }, // 5 stops, room for 4
      ],
      vehicles: [{ start: 0, end: 0, capacity: [10], shift: [0, 70], maxStops: 2 }, { start: 0, end: 0, capacity: [10], shift: [0, 70], maxStops: 2 }],
    });
    const reasons = Object.fromEntries(sol.unassigned.map((u) => [u.stop, u.reason]));
    expect(reasons[0]).toBe('capacity');
    expect(reasons[1]).toBe('skills');
    expect(reasons[2]).toBe('timeWindow');
    expect(reasons[3]).toBe('shift');
    expect(reasons[4]).toBe('preassigned');
    expect(sol.unassigned.filter((u) => u.stop >= 5).map((u) => u.reason)).toEqual(['maxStops']);
    for (const u of sol.unassigned) expect(u.message.length).toBeGreaterThan(10);
  });

  it('max duration counts waiting and service', async () => {
    const m = line([0, 10, 10]);
    const sol = await run({
      places: 3, time: m,
      stops: [{ place: 1, service: 5, windows: [[0, 100]] }, { place: 2, service: 5, windows: [[60, 100]] }],
      vehicles: [{ start: 0, end: 0, maxDuration: 40 }],
    });
    // both stops need 10 + 5 + 5 + 10 = 30 min, but the second window forces a long wait unless leaving late
    expect(sol.unassigned).toEqual([]);
    expect(sol.routes[0].duration).toBeLessThanOrEqual(40);
    const tight = await run({
      places: 3, time: m,
      stops: [{ place: 1, service: 5, windows: [[0, 15]] }, { place: 2, service: 5, windows: [[60, 100]] }],
      vehicles: [{ start: 0, end: 0, maxDuration: 40 }],
    });
    expect(tight.unassigned.map((u) => u.reason)).toEqual(['maxDuration']);
    expect(tight.routes[0].duration).toBeLessThanOrEqual(40);
  });

  it('cost factors weight the vehicles (FuelCost)', async () => {
    const m = line([0, 10]);
    const sol = await run({ places: 2, time: m, stops: [{ place: 1 }], vehicles: [{ start: 0, end: 0, costFactor: 3 }, { start: 0, end: 0, costFactor: 2 }] });
    expect(sol.routes[0].vehicle).toBe(1);
    expect(sol.cost).toBe(40);
  });

  it('per-vehicle travel-time profiles (speed overrides)', async () => {
    const t0 = line([0, 10]);
    const t1 = line([0, 40]);
    const sol = await run({
      places: 2, time: [t0, t1], distance: t0, objective: 'time', stops: [{ place: 1, windows: [[0, 30]] }],
      vehicles: [{ start: 0, end: 0, timeProfile: 1 }, { start: 0, end: 0, timeProfile: 0, costFactor: 10 }],
    });
    // the slow vehicle would be cheaper (factor 1) but arrives at 40 > 30
    expect(sol.routes.map((r) => r.vehicle)).toEqual([1]);
  });
});

describe('search control', () => {
  it('an aborted solve returns its best solution so far', async () => {
    const inst = parseSolomon(readFileSync(FIX + 'R101.txt', 'utf8'));
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const events: number[] = [];
    const sol = await solve(inst.input, { seed: 1, iterations: 1_000_000, signal: ac.signal, onProgress: (e) => events.push(e.done) });
    expect(sol.stats.stoppedBy).toBe('cancelled');
    expect(sol.unassigned).toEqual([]);
    expect(validateSolution(inst.input, sol, { exact: inst.exact }).ok).toBe(true);
    expect(events.length).toBeGreaterThan(0);
  });

  it('a time limit is a hard wall-clock bound; an explicit work budget or deadline stays available', async () => {
    const inst = parseSolomon(readFileSync(FIX + 'RC105.txt', 'utf8'));
    // A work budget far beyond the limit: the clock ends the search at the limit and says so.
    let t0 = performance.now();
    const cut = await solve(inst.input, { seed: 1, work: 1e12, timeLimitMs: 300 });
    let wall = performance.now() - t0;
    expect(cut.stats.stoppedBy).toBe('time');
    expect(wall).toBeLessThan(300 * 1.05 + 150); // + the final assembly; slack for a loaded CI machine
    expect(validateSolution(inst.input, cut, { exact: inst.exact }).ok).toBe(true);
    // The default: the work budget is WORK_SHARE of the limit, so an idle machine ends by work first.
    t0 = performance.now();
    const lim = await solve(inst.input, { seed: 1, timeLimitMs: 300 });
    wall = performance.now() - t0;
    expect(wall).toBeLessThan(300 * 1.05 + 150);
    expect(['work', 'time']).toContain(lim.stats.stoppedBy);
    expect(lim.stats.work).toBeLessThanOrEqual(300 * WORK_SHARE * WORK_PER_MS * 1.02);
    // An absolute deadline (an operation's) bounds an iteration budget too.
    t0 = performance.now();
    const dl = await solve(inst.input, { seed: 1, iterations: 1e9, deadlineAt: wallNow() + 250 });
    expect(performance.now() - t0).toBeLessThan(250 * 1.05 + 150);
    expect(dl.stats.stoppedBy).toBe('time');
  });

  it('the final report keeps to its deadline: stops it had no time to try are reported as timeLimit', async () => {
    const inst = parseSolomon(readFileSync(FIX + 'RC105.txt', 'utf8'));
    const pb = buildProblem(inst.input);
    const sol = await solve(pb, { seed: 1, iterations: 0 });
    const empty = Array.from({ length: pb.V }, () => new Int32Array(0));
    const late = assemble(pb, empty, sol.stats, wallNow() - 1);
    expect(late.unassigned).toHaveLength(pb.nStops);
    expect(late.unassigned.every((u) => u.reason === 'timeLimit')).toBe(true);
    const onTime = assemble(pb, empty, sol.stats); // no deadline: the last insertion try serves them
    expect(onTime.unassigned.length).toBeLessThan(pb.nStops);
  });

  it('effort levels: 1 = construction and local search only', async () => {
    const inst = parseSolomon(readFileSync(FIX + 'RC105.txt', 'utf8'));
    const quick = await solve(inst.input, { seed: 1, effort: 1 });
    expect(quick.stats.iterations).toBe(0);
    expect(validateSolution(inst.input, quick, { exact: inst.exact }).ok).toBe(true);
  });
});

describe('insertion costs', () => {
  it('an unused vehicle with different start and end costs its whole route when used', async () => {
    // vehicle 0: start 0, end 3 (far apart); vehicle 1: start = end = 1. The stop at place 2 is
    // next to vehicle 0's start: cheap only if vehicle 0's start→end leg were "already paid".
    const m = line([0, 40, 1, 100]);
    const sol = await run({ places: 4, time: m, stops: [{ place: 2 }], vehicles: [{ start: 0, end: 3 }, { start: 1, end: 1 }] }, { iterations: 0 });
    expect(sol.routes.map((r) => r.vehicle)).toEqual([1]);
    expect(sol.cost).toBe(78);
  });
});
