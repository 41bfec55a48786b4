/** Stops on the Monaco fixture for the route tests. */
import type { Engine } from '../../src/engine.js';

export type LL = { Latitude: number; Longitude: number };

/** Casino, Stade Louis II, and a point between them. */
export const A: LL = { Latitude: 43.7395, Longitude: 7.428 };
export const B: LL = { Latitude: 43.7276, Longitude: 7.4155 };
export const C: LL = { Latitude: 43.7335, Longitude: 7.4205 };
export const loc = (p: LL) => ({ LatLong: p });

/** Points of an 8×8 grid over Monaco that snap and reach each other both ways under both metrics. */
export function reachablePool(engine: Engine): LL[] {
  const grid: LL[] = [];
  for (let i = 0; i < 8; i++) {
    for (let j = 0; j < 8; j++) grid.push({ Latitude: 43.7265 + i * 0.003, Longitude: 7.411 + j * 0.003 });
  }
  const ok = (a: LL, b: LL): boolean => ['MinimizeTime', 'MinimizeDistance'].every(
    (o) => engine.calculateDistance({ StartLocation: { LatLong: a }, FinishLocation: { LatLong: b }, RouteOptimize: o, DistanceUnit: 'Mile' }).Status === 'Success',
  );
  const pool: LL[] = [];
  for (const p of grid.filter((g) => ok(g, A) && ok(A, g))) {
    if (pool.every((q) => ok(p, q) && ok(q, p))) pool.push(p);
  }
  return pool;
}
