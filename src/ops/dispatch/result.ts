/**
 * The solver's solution back as records: one VehicleItem per used vehicle trip (trips named
 * `<Name>`, `<Name>_2`, …), its Start entry, stops, reload visits and breaks in order, its Finish
 * entry; each with TimeEstimatedArrival and the leg that reaches it; stops left out as Errors
 * naming them with the reason.
 */
import { secondsToDate, statusFor, type DispatchResult, type DispatchSpecification, type LatLong, type Location, type VehicleItem } from '../../records/index.js';
import { METRES_PER_KILOMETRE, roundDistance } from '../../core/units.js';
import type { Solution } from '../../vrp/solution.js';
import type { Bookkeeping } from './types.js';
import { nameOf } from './types.js';

export function toResult(spec: DispatchSpecification, b: Bookkeeping, sol: Solution): DispatchResult {
  const locs = spec.Locations ?? [];
  const items: VehicleItem[] = [];
  const when = (t: number): string => (b.hasClock ? secondsToDate(b.origin + t, b.utc) : '0001-01-01T00:00:00');
  const lengthUnit = b.unit === METRES_PER_KILOMETRE ? 'Kilometer' : 'Mile';
  const dist = (m: number): number => roundDistance(m / b.unit, lengthUnit);
  // A route of breaks only is no work: the vehicle stays at the depot (and takes no break).
  const isBreak = new Set(b.breaks);
  const working = sol.routes.filter((r) => r.stops.some((x) => !isBreak.has(x.stop)));
  // Trips are named <Name>, <Name>_2, <Name>_3, … in the order of the days they run (used trips only).
  const tripName = new Map<number, string>();
  const usedTrips = new Map<number, number[]>();
  for (const r of working) {
    const l = usedTrips.get(b.modelOf[r.vehicle]) ?? [];
    l.push(r.vehicle);
    usedTrips.set(b.modelOf[r.vehicle], l);
  }
  for (const [i, list] of usedTrips) {
    list.sort((x, y) => b.tripOf[x] - b.tripOf[y]);
    list.forEach((mv, k) => tripName.set(mv, k === 0 ? b.vehicles[i].Name ?? '' : `${b.vehicles[i].Name ?? 'Vehicle'}_${k + 1}`));
  }
  const routes = [...working].sort((x, y) => b.modelOf[x.vehicle] - b.modelOf[y.vehicle] || b.tripOf[x.vehicle] - b.tripOf[y.vehicle]);
  for (const r of routes) {
    const out: Location[] = [];
    const sl = b.startLoc[r.vehicle];
    // A vehicle's first and last entries are typed Start and Finish, whatever the request said.
    if (sl) out.push({ ...sl, LocationType: 'Start', TimeEstimatedArrival: when(r.startTime), Distance: 0, Time: 0 });
    // Breaks without a place appear where they were taken, with the LatLong of that place; one
    // taken on arrival at a stop carries the leg to it (and the stop a leg of 0). Returns when the
    // last of them ends (null: none there).
    const placedBreaks = (at: number, before: boolean, where: LatLong | undefined, leg: { d: number; t: number } | null): number | null => {
      let end: number | null = null;
      for (const x of r.breaks) {
        if (x.at !== at || x.beforeService !== before) continue;
        const li = b.breakLoc[r.vehicle][x.index];
        const first = leg !== null && end === null;
        out.push({ ...(locs[li] as Location), ...(where ? { LatLong: where } : {}), TimeEstimatedArrival: when(x.start), Distance: first ? dist(leg.d) : 0, Time: first ? Math.round(leg.t) : 0 });
        end = Math.max(end ?? -Infinity, x.end);
      }
      return end;
    };
    placedBreaks(-1, false, sl?.LatLong ?? (r.stops.length > 0 ? (locs[b.stopLoc[r.stops[0].stop]] as Location).LatLong : undefined), null);
    r.stops.forEach((s, i) => {
      const li = b.stopLoc[s.stop];
      const loc = locs[li] as Location;
      const breakEnd = placedBreaks(i, true, loc.LatLong, { d: s.legDistance, t: s.legTime });
      // CanArriveEarly (default true): the estimate is when the vehicle gets there (after a break
      // taken on arriving, when that ends), perhaps before its window opens: it waits at the door.
      // False: it leaves the previous place late enough to get there no earlier than the opening,
      // so the estimate is when service starts.
      const eta = loc.CanArriveEarly === false ? s.start : Math.max(s.arrival, breakEnd ?? -Infinity);
      out.push({ ...loc, TimeEstimatedArrival: when(eta), Distance: breakEnd !== null ? 0 : dist(s.legDistance), Time: breakEnd !== null ? 0 : Math.round(s.legTime) });
      placedBreaks(i, false, loc.LatLong, null);
    });
    const fl = b.finishLoc[r.vehicle];
    if (fl) out.push({ ...fl, LocationType: 'Finish', TimeEstimatedArrival: when(r.endTime), Distance: dist(r.endLegDistance), Time: Math.round(r.endLegTime) });
    const veh = b.vehicles[b.modelOf[r.vehicle]];
    items.push({ Vehicle: b.tripOf[r.vehicle] === 1 && tripName.get(r.vehicle) === veh.Name ? veh : { ...veh, Name: tripName.get(r.vehicle) }, Locations: out });
  }
  const messages = [...b.errors];
  for (const u of sol.unassigned) {
    const li = b.stopLoc[u.stop];
    if (isBreak.has(u.stop)) {
      // A break left out matters only for a vehicle that works.
      messages.push(`${nameOf(locs[li] as Location, li)}: the Break could not be scheduled: ${u.message}`);
      continue;
    }
    messages.push(`${nameOf(locs[li] as Location, li)} was not dispatched: ${u.message}`);
  }
  return { ...statusFor(messages), Items: items } as DispatchResult;
}
