/**
 * The records mapped onto the solver's input, stage by stage:
 *
 *   parse (parse.ts) → place (place.ts) → clock (clock.ts) → fleet (fleet.ts) → trips (trips.ts)
 *   → stops with their windows (stops.ts, windows.ts) → reloads (reloads.ts) → breaks (breaks.ts)
 *   → zones (zones.ts) → pairs (pairs.ts) → mode terms (terms.ts) → stability (stability.ts, re-dispatch)
 *   → solver input
 *
 * docs/dispatch-modes.md ("The model's tricks") lists what each contract feature becomes inside the
 * solver and what comes back out.
 */
import { metresPerUnit } from '../../core/units.js';
import type { DispatchSpecification, Issue } from '../../records/index.js';
import type { VrpInput } from '../../vrp/model.js';
import { dispatchClock } from './clock.js';
import { draftFleet } from './fleet.js';
import { chooseDispatchMode, MODE_TERMS } from './modes.js';
import { pairStops } from './pairs.js';
import { recordIssues, travelIssues } from './parse.js';
import { dispatchPlaces, placeIndex } from './place.js';
import { addStops } from './stops.js';
import { applyModeTerm } from './terms.js';
import { applyStability } from './stability.js';
import { addTrips } from './trips.js';
import type { Bookkeeping, DispatchOptions, DispatchTravel } from './types.js';
import { applyZoneSkills, vehicleZones } from './zones.js';
import { EngineError } from '../../core/errors.js';

/**
 * Whether nothing in the search reads a distance, so that a very large dispatch may run on the
 * time matrix alone and give its plan's legs their distances afterwards
 * ({@link DispatchTravel.legDistances}): RouteOptimize is not MinimizeDistance, no vehicle has a
 * FuelCost (a distance objective), a Speed (legs timed from distances) or no-go zones (matrices of
 * their own), and the mode measures time (not EqualDistance). Reference plans and regions are
 * measured in time too; their final plan's legs are measured like any other.
 */
export function legDistancesSuffice(spec: DispatchSpecification): boolean {
  if (spec.RouteOptimize === 'MinimizeDistance') return false;
  const term = MODE_TERMS[chooseDispatchMode(spec).mode];
  if (term.measure === 'distance') return false;
  return (spec.Vehicles ?? []).every((v) => !v || ((v.FuelCost ?? 0) <= 0 && (v.Speed ?? 0) <= 0 && vehicleZones(v).length === 0));
}

/** Maps the records onto the solver's model. Exposed for tests. */
export function buildDispatchInput(spec: DispatchSpecification, travel: DispatchTravel, opts: DispatchOptions = {}): { input: VrpInput; b: Bookkeeping } | { issues: Issue[] } {
  const places = dispatchPlaces(spec);
  let issues = travelIssues(places, travel);
  if (issues.length) return { issues };
  // Record fields the solver needs in range, checked here so that errors name the contract's fields.
  issues = recordIssues(spec);
  if (issues.length) return { issues };
  // (Dispatch and dispatchOnMatrix answer an empty plan before this; direct callers learn why.)
  if (places.length === 0) return { issues: [{ path: 'Locations', message: "at least one place is required (a Location, or a Vehicle's StartLocation or FinishLocation)" }] };
  if (travel.legDistances && !legDistancesSuffice(spec)) throw new EngineError('Internal', 'travel without distances for a dispatch whose search reads them');
  const { mode, reason } = chooseDispatchMode(spec);
  const clock = dispatchClock(spec);
  const unit = metresPerUnit(spec.DistanceUnit === 'Kilometer' ? 'Kilometer' : 'Mile');
  const d = draftFleet({ spec, travel, opts, n: places.length, at: placeIndex(places), clock, unit, mode, modeReason: reason });
  if (d.issues.length) return { issues: d.issues };
  addTrips(d);
  addStops(d);
  applyZoneSkills(d);
  const paired = pairStops(d);
  if (d.issues.length) return { issues: d.issues };
  const input: VrpInput = {
    places: d.n, time: d.timeProfiles, objective: d.objective, dimensions: 3,
    // without distances the solver reads the time matrix in their place (nothing in the search uses them)
    ...(travel.legDistances ? {} : { distance: d.anyZones ? d.distProfiles : travel.distance }),
    stops: paired.stops, vehicles: d.model, pairs: paired.pairs,
    startTime: clock.current !== null ? clock.current - clock.origin : 0,
  };
  const modeCtx = applyModeTerm(input, mode, places, travel);
  const initial = applyStability(input, { stopLoc: paired.stopLoc, vehIdx: d.vehIdx, modelOf: d.modelOf, tripOf: d.tripOf }, modeCtx, opts.stability);
  return {
    input,
    b: {
      stopLoc: paired.stopLoc, breakLoc: d.breakLoc, breaks: [...d.breakStops].map((i) => paired.remap.get(i)!).filter((i) => i !== undefined),
      vehIdx: d.vehIdx, vehicles: d.vehicles, modelOf: d.modelOf, tripOf: d.tripOf, startLoc: d.startLoc, finishLoc: d.finishLoc,
      origin: clock.origin, hasClock: clock.hasClock, utc: clock.utc, unit, errors: d.errors, mode, modeReason: reason, modeCtx,
      ...(initial ? { initial } : {}),
      ...(travel.legDistances ? { legDistances: true } : {}),
    },
  };
}
