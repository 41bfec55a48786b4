/**
 * Stage "stability" (re-dispatch, issue #24): the previous plan as hints. Each stop planned on a
 * vehicle gets that vehicle as its home (VrpStop.home; every trip of a vehicle shares its home),
 * and serving it on another vehicle costs `moveLegs` mean legs of this problem (VrpInput.moveCost,
 * in the objective's units). The previous order per vehicle becomes the solver's warm start (on
 * each vehicle's first trip). Nothing here changes what is feasible.
 */
import type { VrpInput } from '../../vrp/model.js';
import type { ModeContext } from './modes.js';

export interface StabilityHints {
  /** Locations planned on a vehicle: [spec.Locations index, spec.Vehicles index]. */
  home: ReadonlyArray<readonly [number, number]>;
  /** The cost of moving a stop to another vehicle, in mean legs of the problem (0 = none). */
  moveLegs: number;
  /** The previous order per vehicle (spec.Vehicles index → spec.Locations indices), the warm start. */
  initial?: ReadonlyArray<{ vehicle: number; locations: readonly number[] }>;
}

/** Model vehicle → spec.Vehicles index, model stop → spec.Locations index (the bookkeeping's maps). */
interface Maps {
  stopLoc: readonly number[];
  vehIdx: readonly number[];
  modelOf: readonly number[];
  tripOf: readonly number[];
}

/** Sets homes and the move cost on `input`; returns the warm start in model indices (or undefined). */
export function applyStability(input: VrpInput, m: Maps, mode: ModeContext, h: StabilityHints | undefined): { vehicle: number; stops: number[] }[] | undefined {
  if (!h) return undefined;
  const specOf = (v: number): number => m.vehIdx[m.modelOf[v]];
  input.vehicles.forEach((v, i) => { v.home = specOf(i); });
  const homeOf = new Map(h.home);
  const stopOfLoc = new Map<number, number>();
  m.stopLoc.forEach((loc, s) => {
    stopOfLoc.set(loc, s);
    const home = homeOf.get(loc);
    if (home !== undefined) input.stops[s].home = home;
  });
  if (h.moveLegs > 0) input.moveCost = h.moveLegs * mode.meanArc;
  if (!h.initial) return undefined;
  const out: { vehicle: number; stops: number[] }[] = [];
  for (const r of h.initial) {
    const v = input.vehicles.findIndex((_, i) => specOf(i) === r.vehicle && m.tripOf[i] === 1);
    if (v < 0) continue;
    const stops = r.locations.map((l) => stopOfLoc.get(l)).filter((s): s is number => s !== undefined);
    if (stops.length) out.push({ vehicle: v, stops });
  }
  return out.length ? out : undefined;
}
