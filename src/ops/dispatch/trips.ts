/**
 * Stage "trips": a vehicle with MaxStops or MaxMinutes continues its work on further trips, one
 * per day (semantics: `<Name>_2`, `<Name>_3`, …). Each trip is a solver vehicle of its own; all
 * the trips of a vehicle share a skill, so that a stop pre-assigned to the vehicle may go on any.
 */
import type { VrpVehicle } from '../../vrp/model.js';
import { MAX_TRIPS } from '../limits.js';
import type { Draft } from './draft.js';
import { DAY_S, NOT_STOPS, reachable, TRIP_SKILL } from './types.js';

/**
 * Trips per vehicle: 1, or for a vehicle with MaxStops or MaxMinutes enough trips for the stops
 * shared among the vehicles with limits — ⌈stops / (limited vehicles × stops per trip)⌉ + 1, the
 * stops per trip being MaxStops, or MaxMinutes over an estimated 10 minutes per stop — at most
 * MAX_TRIPS. Unused trips cost nothing.
 */
export function tripPlan(model: ReadonlyArray<Pick<VrpVehicle, 'maxStops' | 'maxDuration'>>, stops: number): number[] {
  const limited = model.filter((v) => (v.maxStops ?? 0) > 0 || (v.maxDuration ?? 0) > 0).length;
  return model.map((v) => {
    if (stops === 0 || limited === 0) return 1;
    const byStops = (v.maxStops ?? 0) > 0 ? v.maxStops! : Infinity;
    const byTime = (v.maxDuration ?? 0) > 0 ? Math.max(1, Math.floor(v.maxDuration! / 600)) : Infinity;
    const perTrip = Math.min(byStops, byTime);
    if (!Number.isFinite(perTrip)) return 1;
    return Math.min(MAX_TRIPS, Math.ceil(stops / (limited * perTrip)) + 1);
  });
}

/**
 * Adds the further trips: trip k runs on day k − 1 of the vehicle's shift, from its start (or,
 * OnTheRoad, from where the last trip ended: its first stop), and costs a little more than the
 * one before, so that a plan uses them in order.
 */
export function addTrips(d: Draft): void {
  const stops = d.locs.filter((l) => l && !NOT_STOPS.has(l.LocationType ?? 'Midway')).length;
  const trips = tripPlan(d.model, stops);
  const { current, origin } = d.clock;
  trips.forEach((T, i) => {
    if (T < 2) return;
    const skill = `${TRIP_SKILL}${i}`;
    d.tripSkill.set(i, skill);
    const base = d.model[i];
    base.skills = [...(base.skills ?? []), skill];
    const v = d.vehicles[i];
    const onTheRoad = v.OnTheRoad === true;
    const day0 = base.shift ? (Number.isFinite(base.shift[0]) ? base.shift[0] : 0) : current !== null ? current - origin : 0;
    const startLeg = onTheRoad ? longestStartLeg(d, base) : 0;
    for (let k = 2; k <= T; k++) {
      const shiftBy = (k - 1) * DAY_S;
      d.model.push({
        ...base,
        // OnTheRoad: the trip starts where the vehicle is, i.e. at its first stop (docs/dispatch-modes.md, Trips).
        start: onTheRoad ? undefined : base.start,
        shift: [day0 + shiftBy, base.shift && Number.isFinite(base.shift[1]) ? base.shift[1] + shiftBy : Infinity],
        // Later trips cost a little more, so that a plan uses them in order.
        fixedCost: (base.fixedCost ?? 0) + k - 1 + startLeg,
        label: `${v.Name ?? 'Vehicle'}_${k}`,
      });
      d.modelOf.push(i);
      d.tripOf.push(k);
      d.startLoc.push(onTheRoad ? undefined : d.startLoc[i]);
      d.finishLoc.push(d.finishLoc[i]);
    }
  });
}

/**
 * An OnTheRoad trip has no start leg: it pays the longest one from the vehicle's start as a fixed
 * cost, so that no plan prefers a later trip to the first (which does start at the StartLocation).
 */
function longestStartLeg(d: Draft, base: VrpVehicle): number {
  if (base.start === undefined) return 0;
  const m = d.objective === 'distance' ? d.distProfiles[base.timeProfile ?? 0] : d.timeProfiles[base.timeProfile ?? 0];
  let leg = 0;
  for (let q = 0; q < d.n; q++) { const x = m[base.start * d.n + q]; if (reachable(x) && x > leg) leg = x; }
  return Math.round(leg * (base.costFactor ?? 1));
}
