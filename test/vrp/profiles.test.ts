/** Per-profile distance matrices: a vehicle's timeProfile picks its time and its distance (e.g. a detour around a no-go zone). */
import { describe, expect, it } from 'vitest';
import { solve } from '../../src/vrp/solve.js';
import { validateSolution } from '../../src/vrp/validate.js';
import type { VrpInput } from '../../src/vrp/model.js';

// Places 0 (depot), 1, 2 on a line; profile 1 is a vehicle that must detour (everything × 3).
const base = [0, 10, 20, 10, 0, 10, 20, 10, 0];
const detour = base.map((x) => x * 3);

describe('distance per profile', () => {
  it('reports and checks each vehicle with its own profile\'s distances', async () => {
    const input: VrpInput = {
      places: 3, time: [base, detour], distance: [base, detour], objective: 'distance',
      stops: [{ place: 1, vehicle: 0 }, { place: 2, vehicle: 1 }],
      vehicles: [{ start: 0, end: 0, timeProfile: 0 }, { start: 0, end: 0, timeProfile: 1 }],
    };
    const sol = await solve(input, { seed: 1, iterations: 10 });
    const byVeh = Object.fromEntries(sol.routes.map((r) => [r.vehicle, r.distance]));
    expect(byVeh).toEqual({ 0: 20, 1: 120 });
    expect(validateSolution(input, sol).ok).toBe(true);
  });
  it('the unrestricted vehicle takes the stops when the detour costs more', async () => {
    const input: VrpInput = {
      places: 3, time: [base, detour], distance: [base, detour], objective: 'distance',
      stops: [{ place: 1 }, { place: 2 }],
      vehicles: [{ start: 0, end: 0, timeProfile: 1 }, { start: 0, end: 0, timeProfile: 0 }],
    };
    const sol = await solve(input, { seed: 1, iterations: 20 });
    expect(sol.routes.map((r) => r.vehicle)).toEqual([1]);
    expect(sol.distance).toBe(40);
  });
  it('a distance list of the wrong length is refused', async () => {
    await expect(solve({ places: 3, time: [base, detour], distance: [base], stops: [], vehicles: [] })).rejects.toThrow(/one per time profile/);
  });
});
