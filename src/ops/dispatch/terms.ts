/**
 * Stage "mode terms": the DispatchMode's term on the solver's objective (modes.ts `MODE_TERMS`):
 * balance targets and weights scaled by the mean arc between stops, regions for the region modes.
 */
import type { VrpInput } from '../../vrp/model.js';
import type { DispatchPlace } from './types.js';
import { reachable } from './types.js';
import { MODE_TERMS, type ModeContext } from './modes.js';
import type { DispatchModeName } from '../../records/index.js';

/**
 * Mean of the matrix between the stops' places (objective units): a deterministic sample of at
 * most 4,096 ordered pairs, unreachable ones skipped. Scales the balancing weights.
 */
export function meanArc(m: ArrayLike<number>, places: readonly number[]): number {
  const k = places.length;
  const n = Math.round(Math.sqrt(m.length));
  if (k < 2) return 1;
  let sum = 0;
  let cnt = 0;
  const total = k * k;
  const step = Math.max(1, Math.floor(total / 4096));
  for (let x = 0; x < total; x += step) {
    const i = Math.floor(x / k), j = x % k;
    if (i === j) continue;
    const v = m[places[i] * n + places[j]];
    if (reachable(v)) { sum += v; cnt++; }
  }
  return cnt > 0 ? Math.max(1, sum / cnt) : 1;
}

/** Applies the mode's term to the input; returns what a later phase of the mode reads (its reference plan's target). */
export function applyModeTerm(input: VrpInput, mode: DispatchModeName, places: readonly DispatchPlace[], base: { time: ArrayLike<number>; distance: ArrayLike<number> }): ModeContext {
  const stops = input.stops;
  const ctx: ModeContext = {
    meanArc: meanArc(input.objective === 'distance' ? base.distance : base.time, stops.map((x) => x.place)),
    jobs: stops.filter((x) => !x.reload).length - (input.pairs ?? []).filter((p) => p.nonStop !== false).length,
    vehicles: input.vehicles.length,
  };
  const term = MODE_TERMS[mode];
  if (term.regions) ctx.coords = places.map((p) => (p.location.LatLong ? { lat: p.location.LatLong.Latitude, lon: p.location.LatLong.Longitude } : undefined));
  term.apply(input, ctx);
  delete ctx.coords; // used once; the bookkeeping stays small
  return ctx;
}
