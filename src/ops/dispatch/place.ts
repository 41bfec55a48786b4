/**
 * Stage "place": which places a dispatch needs travel data for, in matrix order, and where each
 * Location and depot sits among them.
 */
import type { DispatchSpecification } from '../../records/index.js';
import { hasPlace } from '../locations.js';
import type { DispatchPlace } from './types.js';

/** The places a dispatch needs travel data for: every Location, then each vehicle's Start/FinishLocation when given. */
export function dispatchPlaces(spec: DispatchSpecification): DispatchPlace[] {
  const out: DispatchPlace[] = [];
  // A Break without a place is taken where the driver is: it has no place of its own.
  (spec.Locations ?? []).forEach((l, i) => { if (l && !(l.LocationType === 'Break' && !hasPlace(l))) out.push({ kind: 'location', index: i, location: l }); });
  (spec.Vehicles ?? []).forEach((v, i) => {
    if (v?.StartLocation) out.push({ kind: 'start', index: i, location: v.StartLocation });
    if (v?.FinishLocation) out.push({ kind: 'finish', index: i, location: v.FinishLocation });
  });
  return out;
}

/** Matrix place of each Location (by its index in spec.Locations) and of each vehicle's depots (by vehicle index). */
export interface PlaceIndex {
  ofLoc: Map<number, number>;
  ofStart: Map<number, number>;
  ofFinish: Map<number, number>;
}

export function placeIndex(places: readonly DispatchPlace[]): PlaceIndex {
  const at: PlaceIndex = { ofLoc: new Map(), ofStart: new Map(), ofFinish: new Map() };
  places.forEach((p, i) => (p.kind === 'location' ? at.ofLoc : p.kind === 'start' ? at.ofStart : at.ofFinish).set(p.index, i));
  return at;
}
