/**
 * Stage "parse": what the records must satisfy before anything is placed, each issue named by the
 * contract's field path (the parsing itself is the record schema's: DispatchSpecificationSchema).
 */
import { dateToSeconds, LocationSchema, VehicleSchema, type DispatchSpecification, type Issue, type Vehicle } from '../../records/index.js';
import { describeType } from '../../records/schema.js';
import { checkPolygon } from '../../route/zones.js';
import { MAX_DISPATCH_PLACES, MAX_DISPATCH_VEHICLES, MAX_SHAPE_POINTS, MAX_SHAPES_PER_VEHICLE, MAX_ZONE_SETS, tooBig } from '../limits.js';
import { dispatchPlaces } from './place.js';
import { vehicleZones, zoneKey } from './zones.js';
import type { DispatchPlace, DispatchTravel } from './types.js';

// The numeric fields the solver reads, in the schema's field order.
const VEHICLE_AMOUNTS = ['Speed', 'MaxStops', 'MaxWeight', 'MaxSkids', 'MaxVolume', 'MaxMinutes', 'FuelCost'] as const;
const LOCATION_AMOUNTS = ['Priority', 'Wait', 'Volume', 'Weight', 'Skids'] as const;

/** A numeric field's bounds in the record schema (Field.range): the one place they are written. */
function boundsOf(fields: Record<string, { ty: unknown }>, name: string): [number, number] {
  const d = describeType(fields[name].ty as Parameters<typeof describeType>[0]);
  return [d.min ?? -Infinity, d.max ?? Infinity];
}
const VEHICLE_BOUNDS = VEHICLE_AMOUNTS.map((f) => [f, boundsOf(VehicleSchema.fields, f)] as const);
const LOCATION_BOUNDS = LOCATION_AMOUNTS.map((f) => [f, boundsOf(LocationSchema.fields, f)] as const);

/**
 * What the records must satisfy before anything is placed, each issue named by the contract's
 * field path, so that the solver's own input checks never reach the caller in its words:
 * - a request with neither Locations nor Vehicles has nothing to plan (`{}`: usually a misnamed
 *   property, since unknown ones are ignored);
 * - the numeric fields the solver reads lie within the schema's bounds (already true of a parsed
 *   specification; checked again for callers of {@link dispatchOnMatrix} that build records);
 * - no Vehicle's Tout comes before its Tin (or, without Tin, before CurrentTime, when it would start);
 * - Shapes are valid polygons, and their numbers stay within ops/limits.ts (TooBig past them);
 * - the counts of Vehicles and places stay within ops/limits.ts (TooBig).
 */
export function recordIssues(spec: DispatchSpecification): Issue[] {
  const out: Issue[] = [];
  const vehicles = spec.Vehicles ?? [];
  const locs = spec.Locations ?? [];
  if (vehicles.length === 0 && locs.length === 0) {
    return [{ path: 'Locations', message: 'at least one stop is required (the specification has neither Locations nor Vehicles)' }];
  }
  if (vehicles.length > MAX_DISPATCH_VEHICLES) out.push(tooBig('Vehicles', `holds ${vehicles.length} Vehicles; one Dispatch takes at most ${MAX_DISPATCH_VEHICLES}: split the fleet into several Dispatches, each with its own stops`));
  const places = dispatchPlaces(spec).length;
  if (places > MAX_DISPATCH_PLACES) out.push(tooBig('Locations', `the Dispatch has ${places} places (Locations and the Vehicles' StartLocation/FinishLocation); one Dispatch takes at most ${MAX_DISPATCH_PLACES}: split the stops into several Dispatches (by area or by group of vehicles)`));
  if (out.length) return out;
  const check = (path: string, x: unknown, [min, max]: readonly [number, number]): void => {
    if (x === undefined || x === null) return;
    if (typeof x !== 'number' || !Number.isFinite(x)) out.push({ path, message: `must be a finite number (got ${String(x)})` });
    else if (x < min || x > max) out.push({ path, message: `must be between ${min} and ${max} (got ${x})` });
  };
  vehicles.forEach((v, i) => { if (v) for (const [f, b] of VEHICLE_BOUNDS) check(`Vehicles[${i}].${f}`, v[f], b); });
  locs.forEach((l, i) => { if (l) for (const [f, b] of LOCATION_BOUNDS) check(`Locations[${i}].${f}`, l[f], b); });
  // Shifts. buildDispatchInput checks them again in whole seconds, as the solver takes them (a Tin
  // and a Tout within one second of each other).
  const cur = dateToSeconds(spec.CurrentTime);
  vehicles.forEach((v, i) => {
    const tout = dateToSeconds(v?.Tout);
    const tin = dateToSeconds(v?.Tin) ?? cur;
    if (v && tout !== null && tin !== null && tout < tin) out.push(emptyShift(spec, v, i));
  });
  const zoneSets = new Set<string>();
  vehicles.forEach((v, i) => {
    const shapes = v?.Shapes ?? [];
    if (shapes.length > MAX_SHAPES_PER_VEHICLE) {
      out.push(tooBig(`Vehicles[${i}].Shapes`, `holds ${shapes.length} Shapes; a Vehicle takes at most ${MAX_SHAPES_PER_VEHICLE}: merge neighbouring zones into one polygon`));
      return;
    }
    let ok = true;
    shapes.forEach((sh, k) => {
      const pts = sh?.Points ?? [];
      if (pts.length > MAX_SHAPE_POINTS) {
        out.push(tooBig(`Vehicles[${i}].Shapes[${k}].Points`, `holds ${pts.length} points; a Shape takes at most ${MAX_SHAPE_POINTS}: simplify the polygon`));
        ok = false;
        return;
      }
      const bad = checkPolygon(pts.map((p) => ({ lat: p.Latitude, lon: p.Longitude })));
      if (bad) { out.push({ path: `Vehicles[${i}].Shapes[${k}].Points`, message: bad }); ok = false; }
    });
    if (!ok) return;
    const key = zoneKey(vehicleZones(v ?? undefined));
    if (key !== '' && !zoneSets.has(key)) {
      zoneSets.add(key);
      if (zoneSets.size === MAX_ZONE_SETS + 1) {
        out.push(tooBig(`Vehicles[${i}].Shapes`, `is the ${MAX_ZONE_SETS + 1}th distinct set of Shapes among the Vehicles; one Dispatch takes at most ${MAX_ZONE_SETS} (each is a travel matrix of its own): give vehicles that share zones the same Shapes, or split the fleet over several Dispatches`));
      }
    }
  });
  return out;
}

/** The issue of a vehicle whose shift is empty: Tout before its Tin, or — without Tin — before CurrentTime, when it starts. */
export function emptyShift(spec: DispatchSpecification, v: Vehicle, i: number): Issue {
  return dateToSeconds(v.Tin) !== null
    ? { path: `Vehicles[${i}].Tout`, message: `is before Tin (${v.Tout} < ${v.Tin}): the vehicle would have no working hours` }
    : { path: `Vehicles[${i}].Tout`, message: `is before CurrentTime (${v.Tout} < ${spec.CurrentTime}): a vehicle without Tin starts at CurrentTime, so it would have no working hours` };
}

/** The travel data must cover the dispatch's places (a caller of dispatchOnMatrix computes it). */
export function travelIssues(places: readonly DispatchPlace[], travel: DispatchTravel): Issue[] {
  const n = places.length;
  const issues: Issue[] = [];
  if (travel.time.length !== n * n) issues.push({ path: 'travel.time', message: `must have ${n}×${n} entries for the dispatch's ${n} places (got ${travel.time.length})` });
  if (travel.distance.length !== n * n) issues.push({ path: 'travel.distance', message: `must have ${n}×${n} entries (got ${travel.distance.length})` });
  return issues;
}
