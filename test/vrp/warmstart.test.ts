/** Warm starts (SolveOptions.initial): a solve from earlier routes keeps what is still valid and never does worse. */
import { describe, expect, it } from 'vitest';
import { solve } from '../../src/vrp/solve.js';
import { validateSolution } from '../../src/vrp/validate.js';
import { randomInstance } from './gen.js';

const routesOf = (sol: Awaited<ReturnType<typeof solve>>) => sol.routes.map((r) => ({ vehicle: r.vehicle, stops: r.stops.map((x) => x.stop) }));

describe('warm start', () => {
  it('from a solution of the same input: no worse, and with no iterations the same plan or a locally improved one', async () => {
    for (let seed = 1; seed <= 25; seed++) {
      const input = randomInstance(900 + seed);
      const a = await solve(input, { seed, iterations: 60 });
      const b = await solve(input, { seed, iterations: 0, initial: routesOf(a) });
      expect(validateSolution(input, b).violations).toEqual([]);
      expect(b.unassigned.length).toBeLessThanOrEqual(a.unassigned.length);
      if (b.unassigned.length === a.unassigned.length) expect(b.cost).toBeLessThanOrEqual(a.cost + 1e-9);
    }
  });

  it('routes that no longer hold are set free and their stops inserted again', async () => {
    for (let seed = 1; seed <= 25; seed++) {
      const loose = randomInstance(950 + seed);
      const a = await solve(loose, { seed, iterations: 40 });
      // the same stops, capacities halved and shifts shortened: many earlier routes break
      const tight = { ...loose, vehicles: loose.vehicles.map((v) => ({ ...v, capacity: Array.from(v.capacity ?? [], (c) => Math.ceil(c / 2)), maxDuration: 200 })) };
      const b = await solve(tight, { seed, iterations: 20, initial: routesOf(a) });
      expect(validateSolution(tight, b).violations).toEqual([]);
    }
  });

  it('names a bad initial route', async () => {
    const input = randomInstance(3);
    await expect(solve(input, { iterations: 1, initial: [{ vehicle: 99, stops: [] }] })).rejects.toThrow(/initial: vehicle 99/);
    await expect(solve(input, { iterations: 1, initial: [{ vehicle: 0, stops: [1e6] }] })).rejects.toThrow(/initial: stop 1000000/);
  });
});
