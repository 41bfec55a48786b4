/**
 * Granular insertion widened (Insertion.widen): when the routes of a job's nearest neighbours
 * offer nothing better than opening an empty vehicle, every other used route is scanned too —
 * a capacity-bound plan then fills a farther route's slack instead of opening a route.
 */
import { describe, expect, it } from 'vitest';
import { buildProblem, type VrpInput } from '../../src/vrp/model.js';
import { State } from '../../src/vrp/state.js';
import { Insertion } from '../../src/vrp/insertion.js';
import { buildNeighbours } from '../../src/vrp/neighbours.js';
import { defaultParams } from '../../src/vrp/search.js';
import { packingInstance } from './gen.js';

/** Depot at 0 on a line; a (x 100, demand 20: fills a vehicle), f (x 60, demand 5), u (x 101, demand 5); 3 vehicles of 20. */
function line(): VrpInput {
  const xs = [0, 100, 60, 101];
  const n = xs.length;
  const dist = new Float64Array(n * n);
  for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) dist[a * n + b] = Math.abs(xs[a] - xs[b]);
  return {
    places: n, time: dist, distance: dist, objective: 'distance', dimensions: 1,
    stops: [{ place: 1, demand: [20] }, { place: 2, demand: [5] }, { place: 3, demand: [5] }],
    vehicles: Array.from({ length: 3 }, () => ({ start: 0, end: 0, capacity: [20] })),
  };
}

/** Plans a (stop 0) and f (stop 1) on two vehicles, then looks for u's (stop 2) position with one neighbour. */
function placeU(widen: boolean): { v: number; cost: number; routeOfF: number } {
  const pb = buildProblem(line());
  const st = new State(pb);
  const ins = new Insertion(st, buildNeighbours(pb, 1, st.excluded), 1);
  for (const u of [0, 1]) {
    expect(ins.find(u, true)).toBe(true);
    ins.apply(u);
  }
  ins.widen = widen;
  expect(ins.find(2, false)).toBe(true);
  return { v: ins.bestV, cost: ins.bestCost, routeOfF: st.routeOf[1] };
}

describe('granular insertion, widened', () => {
  it('u\'s neighbour a fills its vehicle: without widening u opens a vehicle (2 × 101), widened it joins f\'s route (60 + 41 + 101 − 120)', () => {
    const narrow = placeU(false);
    expect(narrow.cost).toBe(202);
    expect(narrow.v).not.toBe(narrow.routeOfF);
    const wide = placeU(true);
    expect(wide.v).toBe(wide.routeOfF);
    expect(wide.cost).toBe(82);
  });

  it('is on by default without time constraints, and with them where fewer vehicles pay', () => {
    const plain = packingInstance(1, 300);
    expect(defaultParams(buildProblem(plain)).widenInsert).toBe(1);
    const timed = { ...plain, stops: plain.stops.map((s, i) => (i === 0 ? { ...s, windows: [[0, 5000]] as [number, number][] } : s)) };
    expect(defaultParams(buildProblem(timed)).widenInsert).toBe(0);
    const costly = { ...timed, vehicles: timed.vehicles.map((v) => ({ ...v, fixedCost: 100_000 })) };
    expect(defaultParams(buildProblem(costly)).widenInsert).toBe(1);
  });
});
