/**
 * Reload points (MidwayDrop): optional reload stops that empty the vehicle. The solver visits
 * them where a capacity would otherwise leave stops out, drops the visits it no longer needs,
 * and the independent checker accepts every plan.
 */
import { describe, expect, it } from 'vitest';
import { solve } from '../../src/vrp/solve.js';
import { validateSolution } from '../../src/vrp/validate.js';
import type { VrpInput, VrpStop } from '../../src/vrp/model.js';
import { randomInstance } from './gen.js';

/** Places on a line: 0 depot at x=0, 1 a reload point at x=5, 2.. stops at x=10, 11, …; time = distance. */
function line(nStops: number, demand: number, capacity: number, reloads: number): VrpInput {
  const xs = [0, 5, ...Array.from({ length: nStops }, (_, i) => 10 + i)];
  const n = xs.length;
  const m = new Float64Array(n * n);
  for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) m[a * n + b] = Math.abs(xs[a] - xs[b]);
  const stops: VrpStop[] = Array.from({ length: nStops }, (_, i) => ({ place: 2 + i, demand: [demand], label: `S${i}` }));
  for (let c = 0; c < reloads; c++) stops.push({ place: 1, reload: true, optional: true, label: 'Drop' });
  return { places: n, time: m, stops, vehicles: [{ start: 0, end: 0, capacity: [capacity] }] };
}

describe('reload points', () => {
  it('one vehicle of capacity 10 serves 6 stops of 4 by reloading twice', async () => {
    const input = line(6, 4, 10, 4);
    const sol = await solve(input, { seed: 1, iterations: 200 });
    expect(validateSolution(input, sol).violations).toEqual([]);
    expect(sol.unassigned).toEqual([]); // unused reload copies are not reported
    const seq = sol.routes[0].stops.map((x) => input.stops[x.stop].label);
    expect(seq.filter((l) => l === 'Drop').length).toBe(2);
    expect(seq.filter((l) => l !== 'Drop').length).toBe(6);
    // segments of at most 2 stops (2 × 4 ≤ 10 < 3 × 4)
    for (const seg of seq.join(',').split('Drop')) expect(seg.split(',').filter(Boolean).length).toBeLessThanOrEqual(2);
  });

  it('without reload points the same vehicle leaves 4 stops out; with room to spare no reload is visited', async () => {
    const none = line(6, 4, 10, 0);
    const sol = await solve(none, { seed: 1, iterations: 100 });
    expect(sol.unassigned.length).toBe(4);
    const roomy = line(6, 4, 100, 3);
    const s2 = await solve(roomy, { seed: 1, iterations: 100 });
    expect(validateSolution(roomy, s2).violations).toEqual([]);
    expect(s2.routes[0].stops.some((x) => roomy.stops[x.stop].reload)).toBe(false);
  });

  it('reported loads reset at a reload point', async () => {
    const input = line(4, 4, 8, 2);
    const sol = await solve(input, { seed: 3, iterations: 100 });
    const r = sol.routes[0];
    expect(r.startLoad).toEqual([8]);
    const i = r.stops.findIndex((x) => input.stops[x.stop].reload);
    expect(r.stops[i - 1].load).toEqual([0]);
    expect(r.stops[i].load).toEqual([8]); // loaded there for the next two
  });

  it('random instances with reload points: every plan checked, reloads used, never fewer stops served than without', async () => {
    let used = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const input = randomInstance(600 + seed, { reloads: 2, reloadCopies: 4, stops: [8, 24] });
      // tight capacities so that reloads matter
      input.vehicles = input.vehicles.map((v) => ({ ...v, capacity: [15 + (seed % 10), 0] }));
      const base: VrpInput = { ...input, stops: input.stops.filter((s) => !s.reload) };
      const sol = await solve(input, { seed, iterations: 80 });
      const rep = validateSolution(input, sol);
      expect(rep.violations, `seed ${seed}`).toEqual([]);
      const without = await solve(base, { seed, iterations: 80 });
      expect(sol.unassigned.length, `seed ${seed}`).toBeLessThanOrEqual(without.unassigned.length);
      used += sol.routes.filter((r) => r.stops.some((x) => input.stops[x.stop].reload)).length;
    }
    expect(used).toBeGreaterThan(10);
  }, 60_000);

  it('bad reload input is refused, naming the field', () => {
    const bad = line(2, 1, 5, 1);
    (bad.stops[2] as VrpStop).demand = [3];
    expect(() => validateSolution(bad, { routes: [], unassigned: [], cost: 0, distance: 0, travelTime: 0, duration: 0, vehicles: 0 } as never)).not.toThrow();
    return expect(solve(bad, { iterations: 1 })).rejects.toThrow(/stops\[2\]\.demand.*reload/);
  });
});
