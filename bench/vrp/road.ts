/**
 * Synthetic "road-like" dispatch instances for the scaling benchmark: stops uniform in a 50 km
 * square around the depot, distance = Euclidean × a deterministic detour factor in [1.25, 1.45)
 * that differs by direction (asymmetric), travel at 12 m/s, 5 min service, demands 1–10,
 * 30 % of the stops with a 2-hour window in an 8-hour day, 12-hour shifts, capacities with
 * 15 % slack. Matrices are built here (the real engine computes them on the road network; that
 * time is not part of these figures).
 */
import { Rng } from '../../src/core/rng.js';
import type { VrpInput, VrpStop } from '../../src/vrp/model.js';

export function roadInstance(nStops: number, nVehicles: number, seed = 1, windowShare = 0.3): VrpInput {
  const rng = new Rng(seed);
  const n = nStops + 1;
  const xs = new Float64Array(n), ys = new Float64Array(n);
  for (let i = 1; i < n; i++) { xs[i] = rng.next() * 50_000; ys[i] = rng.next() * 50_000; }
  xs[0] = 25_000; ys[0] = 25_000;
  const dist = new Int32Array(new SharedArrayBuffer(n * n * 4));
  const time = new Int32Array(new SharedArrayBuffer(n * n * 4));
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      if (a === b) continue;
      const detour = 1.25 + (0.2 * ((a * 7919 + b * 104_729) % 1000)) / 1000;
      const d = Math.hypot(xs[a] - xs[b], ys[a] - ys[b]) * detour;
      dist[a * n + b] = Math.round(d);
      time[a * n + b] = Math.round(d / 12);
    }
  }
  const stops: VrpStop[] = [];
  for (let i = 0; i < nStops; i++) {
    const s: VrpStop = { place: i + 1, service: 300, demand: [1 + rng.int(10)] };
    if (rng.chance(windowShare)) { const a = rng.int(8 * 3600); s.windows = [[a, a + 2 * 3600]]; }
    stops.push(s);
  }
  const cap = Math.ceil((nStops / nVehicles) * 5.5 * 1.15);
  const vehicles = Array.from({ length: nVehicles }, () => ({ start: 0, end: 0, capacity: [cap], shift: [0, 12 * 3600] as [number, number] }));
  return { places: n, time, distance: dist, objective: 'time', stops, vehicles };
}
