/** Stability (VrpInput.moveCost, VrpStop.home, VrpVehicle.home): the re-dispatch term that keeps stops on the vehicle they were planned on. */
import { describe, expect, it } from 'vitest';
import { solve } from '../../src/vrp/solve.js';
import { buildProblem, type VrpInput } from '../../src/vrp/model.js';
import { validateSolution } from '../../src/vrp/validate.js';
import { randomInstance } from './gen.js';

const routesOf = (sol: Awaited<ReturnType<typeof solve>>) => sol.routes.map((r) => ({ vehicle: r.vehicle, stops: r.stops.map((x) => x.stop) }));
const vehicleOf = (sol: Awaited<ReturnType<typeof solve>>): Map<number, number> => {
  const m = new Map<number, number>();
  for (const r of sol.routes) for (const s of r.stops) m.set(s.stop, r.vehicle);
  return m;
};

describe('stability term (moveCost)', () => {
  // places on a line: depot A at 0 (vehicle 0), depot B at 100 (vehicle 1); the stop at 90 is B's by distance
  const xs = [0, 100, 10, 90];
  const n = xs.length;
  const d = Float64Array.from({ length: n * n }, (_, k) => Math.abs(xs[Math.floor(k / n)] - xs[k % n]));
  const base: VrpInput = {
    places: n, time: d,
    stops: [{ place: 2 }, { place: 3, home: 0 }],
    vehicles: [{ start: 0, end: 0, home: 0 }, { start: 1, end: 1, home: 1 }],
  };

  it('keeps a stop on its home vehicle when moving it costs more than it saves, and moves it when it does not', async () => {
    const free = await solve(base, { seed: 1, iterations: 200 });
    expect(vehicleOf(free).get(1)).toBe(1); // no move cost: the nearer vehicle
    const stay = await solve({ ...base, moveCost: 500 }, { seed: 1, iterations: 200 });
    expect(vehicleOf(stay).get(1)).toBe(0); // 140 more, but a move costs 500
    const move = await solve({ ...base, moveCost: 100 }, { seed: 1, iterations: 200 });
    expect(vehicleOf(move).get(1)).toBe(1); // the move saves 160 − 20 = 140 > 100
    // the reported cost is the travel alone
    expect(stay.cost).toBe(10 + 80 + 90);
    expect(validateSolution({ ...base, moveCost: 500 }, stay).violations).toEqual([]);
  });

  it('splits profiles by home only when there is a move cost, sharing the matrices', () => {
    expect(buildProblem(base).P).toBe(1);
    const pb = buildProblem({ ...base, moveCost: 10 });
    expect(pb.P).toBe(2);
    expect(pb.time[0]).toBe(pb.time[1]);
    expect(Array.from(pb.profHome)).toEqual([0, 1]);
  });

  it('random instances: from the previous plan, a large move cost moves fewer stops than re-solving from scratch, and every plan is feasible', async () => {
    let movedStable = 0, movedFree = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const input = randomInstance(700 + seed);
      const first = await solve(input, { seed, iterations: 80 });
      const home = vehicleOf(first);
      // the day changes: every vehicle may start 20 % later (the plan must adapt)
      const next: VrpInput = {
        ...input,
        stops: input.stops.map((s, i) => ({ ...s, ...(home.has(i) ? { home: home.get(i)! } : {}) })),
        vehicles: input.vehicles.map((v, i) => ({ ...v, home: i })),
      };
      const scale = Math.max(1, first.distance / Math.max(1, input.stops.length));
      const stable = await solve({ ...next, moveCost: 10 * scale }, { seed: seed + 1, iterations: 80, initial: routesOf(first) });
      const free = await solve(next, { seed: seed + 1, iterations: 80 });
      expect(validateSolution(next, stable).violations).toEqual([]);
      const moved = (sol: typeof free) => [...vehicleOf(sol)].filter(([s, v]) => home.has(s) && home.get(s) !== v).length;
      movedStable += moved(stable);
      movedFree += moved(free);
    }
    expect(movedStable).toBeLessThan(movedFree / 3);
  });

  it('names a bad move cost or home', () => {
    expect(() => buildProblem({ ...base, moveCost: -1 })).toThrow(/moveCost/);
    expect(() => buildProblem({ ...base, stops: [{ place: 2, home: 0.5 }] })).toThrow(/stops\[0\]\.home/);
  });
});
