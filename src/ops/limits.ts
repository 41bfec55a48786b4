/**
 * The limits of the operations, in one place (docs/limits.md is the table; the service can show
 * them): how much one request may ask for, and the bounds of the specifications' numeric fields.
 *
 * - Size limits (how many Locations, Vehicles, Specifications, Addresses; how much memory a
 *   Dispatch's travel data may take) are refused with `TooBig`, decided from the request's
 *   counts before anything is placed, geocoded or allocated — the message says what the limit
 *   is and how to split the request.
 * - Field bounds (MinimumOptimization 1–10, Speed, Wait, …) live in the record schema
 *   (`records/contract.ts`, `Field.range`), so validation, JSON Schema and OpenAPI carry them;
 *   {@link fieldLimits} lists them from there.
 */
import { DEFAULT_MAX_MATRIX_BYTES } from '../matrix/compute.js';
import {
  DispatchSpecificationSchema, GeocodeSpecificationSchema, LocationSchema, RouteOptionsSchema, RouteSpecificationSchema,
  RoutesSpecificationSchema, VehicleSchema, DistanceSpecificationSchema, ShapeSchema, type Issue, type RecordDef,
} from '../records/index.js';
import { describeType, type AnyField } from '../records/schema.js';

export {
  MAX_AMOUNT, MAX_COUNT, MAX_FUEL_COST, MAX_MINIMUM_OPTIMIZATION, MAX_PRIORITY, MAX_SPEED, MAX_TRIP_MINUTES, MAX_WAIT_SECONDS,
} from '../records/index.js';
export { DEFAULT_MAX_MATRIX_BYTES };

// ---- size limits (TooBig) --------------------------------------------------------------------

/**
 * Places of one Dispatch: its Locations (all but Breaks without a place) and the Vehicles'
 * StartLocation/FinishLocation. 2^15, so that the square travel matrix stays within 2^30 cells
 * (one typed array of at most 4 GiB, the matrix kernel's hard bound). Memory usually binds first:
 * see {@link dispatchMemoryBytes}.
 */
export const MAX_DISPATCH_PLACES = 32_768;
/** Vehicles of one Dispatch (each may become up to 14 trips inside the solver). */
export const MAX_DISPATCH_VEHICLES = 2_000;
/** Shapes (no-go zones) of one Vehicle. */
export const MAX_SHAPES_PER_VEHICLE = 20;
/** Points of one Shape (its validity check and the roads it blocks cost points × roads). */
export const MAX_SHAPE_POINTS = 500;
/** Distinct sets of Shapes among a Dispatch's Vehicles: each is a travel matrix of its own. */
export const MAX_ZONE_SETS = 16;
/** Locations of one CalculateRoute (legs are routed in the calling thread, one after another). */
export const MAX_ROUTE_LOCATIONS = 1_000;
/** Specifications of one CalculateRoutes (each a RouteResult with its directions: bench/stall.ts). */
export const MAX_ROUTES_SPECIFICATIONS = 250;
/**
 * Locations of all the Specifications of one CalculateRoutes together: its answer (turn-by-turn
 * directions of every leg, ~7 KB a leg) stays within ~8 MB, as one CalculateRoute's, which a
 * server handles without holding its event loop over 50 ms (bench/stall.ts; 10,000 made a 70 MB
 * answer, 2,000 over 500 routes still held it 35-85 ms).
 */
export const MAX_ROUTES_LOCATIONS = 1_000;
/** Addresses of one Geocode (records, candidates and result live in memory at once). */
export const MAX_GEOCODE_ADDRESSES = 100_000;
/** At most this many trips per vehicle (two weeks of days; see ops/dispatch/trips.ts). */
export const MAX_TRIPS = 14;
/**
 * From this many places a dispatch's travel matrix is computed in whole seconds and metres on
 * shared memory (OpsContext.roundedMatrixFrom overrides it): 8 bytes a cell instead of 32 (4 with
 * times alone). The plans are the same (the solver rounds a fractional matrix the same way): at
 * 1,000 stops this takes ~26 MB off the process's peak (issue #26 item 4, bench/dispatch-memory.ts).
 */
export const ROUNDED_MIN_PLACES = 500;

/** An issue that refuses the request as too big: `[TooBig]` ends its message (the error code, as EngineErrors show theirs). */
export function tooBig(path: string, message: string): Issue {
  return { path, message: `${message} [TooBig]` };
}

/** Whether an issue (or a Failed result's message) is a size refusal. */
export function isTooBig(message: string): boolean {
  return message.endsWith('[TooBig]');
}

/** Numbers in messages: plain digits, as the schema's own messages write them. */
const fmt = (n: number): string => String(n);

/**
 * A property of a raw (unparsed) record, by name case-insensitively as the schema binds it (the
 * first spelling wins), so that sizes can be refused before parsing a large request.
 */
export function rawField(o: unknown, name: string): unknown {
  if (!o || typeof o !== 'object' || Array.isArray(o)) return undefined;
  const lower = name.toLowerCase();
  for (const k of Object.keys(o)) if (k.toLowerCase() === lower) return (o as Record<string, unknown>)[k];
  return undefined;
}

/** The length of a raw list property (0 when absent or not a list: the schema reports that). */
export function rawLength(o: unknown, name: string): number {
  const v = rawField(o, name);
  return Array.isArray(v) ? v.length : 0;
}

// ---- Dispatch ----------------------------------------------------------------------------------

/** What a Dispatch's memory estimate depends on (counts known before placing anything). */
export interface DispatchSize {
  /** Places of the travel matrix. */
  places: number;
  /** Whether the matrix comes in whole seconds and metres on shared memory (≥ roundedMatrixFrom places, all placed). */
  rounded: boolean;
  /** With `rounded`: the time matrix alone, the plan's legs measured afterwards (DispatchTravel.legDistances). */
  legDistances?: boolean;
  /** Distinct non-empty sets of Shapes among the Vehicles. */
  zoneSets: number;
  /** Distinct (Speed > 0, set of Shapes) pairs: each a time matrix of its own. */
  speedProfiles: number;
  /** Stops the solver gets (an upper bound: Locations other than Start/Finish). */
  stops: number;
  /** Vehicles inside the solver: trips included. */
  modelVehicles: number;
  /** The matrix search's scratch (matrix/compute.ts, searchScratchBytes; 0 when unknown). */
  scratchBytes?: number;
}

/**
 * Bytes a Dispatch needs for its travel data and the solver's tables, estimated from counts
 * (docs/limits.md): per matrix cell, 8 bytes for a rounded road matrix (shared with the solver;
 * 4 when it holds times alone: `legDistances`) or 32 for a fractional one (the hierarchy's 32-bit output, seconds and metres as doubles, the
 * solver's 32-bit copies); 24 more per set of Shapes (its own matrices and the solver's copies),
 * 12 per constant-Speed profile; plus the solver's stop × vehicle table and the matrix search's
 * scratch (as the matrix kernel counts it before it allocates: estimateMatrixMemory).
 */
export function dispatchMemoryBytes(d: DispatchSize): number {
  const cells = d.places * d.places;
  const perCell = (d.rounded ? (d.legDistances ? 4 : 8) : 32) + 24 * d.zoneSets + 12 * d.speedProfiles;
  return cells * perCell + d.stops * d.modelVehicles + (d.scratchBytes ?? 0);
}

/** Bytes as the matrix kernel writes them (GiB with a decimal, MiB, KiB). */
function fmtBytes(b: number): string {
  if (b >= 2 ** 30) return `${(b / 2 ** 30).toFixed(1)} GiB`;
  if (b >= 2 ** 20) return `${(b / 2 ** 20).toFixed(1)} MiB`;
  return `${Math.ceil(b / 1024)} KiB`;
}

/** The most places a Dispatch of this shape may have within `limit` bytes. */
export function maxDispatchPlaces(d: DispatchSize, limit: number, roundedFrom = ROUNDED_MIN_PLACES): number {
  let lo = 0, hi = MAX_DISPATCH_PLACES;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const ratio = d.places > 0 ? mid / d.places : 1;
    const est = dispatchMemoryBytes({ ...d, places: mid, rounded: d.rounded && mid >= roundedFrom, stops: Math.ceil(d.stops * ratio) });
    if (est <= limit) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The size refusal of a Dispatch, if any: too many places for the matrix kernel, or more memory
 * than `maxBytes` (OpsContext.maxMatrixBytes, default 2 GiB) by {@link dispatchMemoryBytes}.
 */
export function dispatchSizeIssue(d: DispatchSize, maxBytes = DEFAULT_MAX_MATRIX_BYTES, roundedFrom = ROUNDED_MIN_PLACES): Issue | null {
  const split = 'split the stops into several Dispatches (by area or by group of vehicles)';
  if (d.places > MAX_DISPATCH_PLACES) {
    return tooBig('Locations', `the Dispatch has ${fmt(d.places)} places (Locations and the Vehicles' StartLocation/FinishLocation); one Dispatch takes at most ${fmt(MAX_DISPATCH_PLACES)}: ${split}`);
  }
  const bytes = dispatchMemoryBytes(d);
  if (bytes > maxBytes) {
    const most = maxDispatchPlaces(d, maxBytes, roundedFrom);
    const need = `the Dispatch's ${fmt(d.places)} places would need about ${fmtBytes(bytes)} for travel matrices and the solver's tables${d.zoneSets > 0 ? ` (${d.zoneSets} distinct set${d.zoneSets > 1 ? 's' : ''} of Shapes)` : ''}`;
    return tooBig('Locations', most < 2
      ? `${need}; the limit is ${fmtBytes(maxBytes)} (maxMatrixBytes), too small for any Dispatch on this road network: raise it`
      : `${need}; the limit is ${fmtBytes(maxBytes)} (maxMatrixBytes), about ${fmt(most)} places of this kind: ${split}`);
  }
  return null;
}

/** Whether a raw Location is a driver's Break (LocationType by name, any case, or its integer 5). */
function rawBreak(l: unknown): boolean {
  const t = rawField(l, 'LocationType');
  return typeof t === 'string' ? t.trim().toLowerCase() === 'break' || t.trim() === '5' : t === 5;
}

/**
 * Sizes of a raw Dispatch specification, checked before it is parsed, so that a request far past
 * the limits is refused in milliseconds rather than after parsing (a 100,000-stop request): the
 * counts of Locations and Vehicles, and the least memory its travel matrix could take — 8 bytes a
 * cell over the Locations that are surely places (all but Breaks), past `maxBytes`.
 */
export function rawDispatchIssues(spec: unknown, maxBytes = DEFAULT_MAX_MATRIX_BYTES): Issue[] {
  const out: Issue[] = [];
  const list = rawField(spec, 'Locations');
  const locs = Array.isArray(list) ? list.length : 0;
  const vehs = rawLength(spec, 'Vehicles');
  const split = 'split the stops into several Dispatches (by area or by group of vehicles)';
  if (locs > MAX_DISPATCH_PLACES) out.push(tooBig('Locations', `holds ${fmt(locs)} Locations; one Dispatch takes at most ${fmt(MAX_DISPATCH_PLACES)} places (Locations and the Vehicles' StartLocation/FinishLocation): ${split}`));
  if (vehs > MAX_DISPATCH_VEHICLES) out.push(tooBig('Vehicles', `holds ${fmt(vehs)} Vehicles; one Dispatch takes at most ${fmt(MAX_DISPATCH_VEHICLES)}: split the fleet into several Dispatches, each with its own stops`));
  if (out.length || !Array.isArray(list)) return out;
  let places = 0;
  for (const l of list) if (!rawBreak(l)) places++;
  const least: DispatchSize = { places, rounded: true, legDistances: true, zoneSets: 0, speedProfiles: 0, stops: 0, modelVehicles: 0 };
  const bytes = dispatchMemoryBytes(least);
  if (bytes > maxBytes) {
    out.push(tooBig('Locations', `holds ${fmt(places)} places; their travel matrix alone would need at least ${fmtBytes(bytes)}; the limit is ${fmtBytes(maxBytes)} (maxMatrixBytes), about ${fmt(maxDispatchPlaces(least, maxBytes))} places: ${split}`));
  }
  return out;
}

// ---- routes ------------------------------------------------------------------------------------

/** Sizes of a raw RouteSpecification (`path` prefixes the field, e.g. `Specifications[3].`). */
export function rawRouteIssues(spec: unknown, path = ''): Issue[] {
  const n = rawLength(spec, 'Locations');
  return n > MAX_ROUTE_LOCATIONS
    ? [tooBig(`${path}Locations`, `holds ${fmt(n)} Locations; one CalculateRoute takes at most ${fmt(MAX_ROUTE_LOCATIONS)}: split the route into consecutive parts (the last stop of one is the first of the next)`)]
    : [];
}

/** Sizes of a raw RoutesSpecification: Specifications, and Locations over all of them. */
export function rawRoutesIssues(spec: unknown): Issue[] {
  const list = rawField(spec, 'Specifications');
  if (!Array.isArray(list)) return [];
  if (list.length > MAX_ROUTES_SPECIFICATIONS) {
    return [tooBig('Specifications', `holds ${fmt(list.length)} RouteSpecifications; one CalculateRoutes takes at most ${fmt(MAX_ROUTES_SPECIFICATIONS)}: split them over several calls`)];
  }
  const total = list.reduce((a: number, s) => a + rawLength(s, 'Locations'), 0);
  if (total > MAX_ROUTES_LOCATIONS) {
    return [tooBig('Specifications', `hold ${fmt(total)} Locations together; one CalculateRoutes takes at most ${fmt(MAX_ROUTES_LOCATIONS)}: split the Specifications over several calls`)];
  }
  return [];
}

// ---- Geocode -----------------------------------------------------------------------------------

/** Sizes of a raw GeocodeSpecification. */
export function rawGeocodeIssues(spec: unknown, maxAddresses = MAX_GEOCODE_ADDRESSES): Issue[] {
  const n = rawLength(spec, 'Addresses');
  return n > maxAddresses
    ? [tooBig('Addresses', `holds ${fmt(n)} Addresses; one Geocode call takes at most ${fmt(maxAddresses)} (split the batch)`)]
    : [];
}

// ---- field bounds (from the schema) ------------------------------------------------------------

export interface FieldLimit {
  /** `Record.Field`, e.g. `Vehicle.Speed`, `DispatchSpecification.MinimumOptimization`. */
  path: string;
  record: string;
  field: string;
  min: number;
  max: number;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyRecord = RecordDef<any>;

/** The numeric fields the schema bounds (Field.range), per specification record, read from the schema itself. */
export function fieldLimits(): FieldLimit[] {
  const out: FieldLimit[] = [];
  const records: AnyRecord[] = [
    DispatchSpecificationSchema, VehicleSchema, LocationSchema, ShapeSchema, RouteSpecificationSchema, RoutesSpecificationSchema,
    RouteOptionsSchema, GeocodeSpecificationSchema, DistanceSpecificationSchema,
  ];
  for (const r of records) {
    for (const [field, f] of Object.entries(r.fields as Record<string, AnyField>)) {
      const d = describeType(f.ty);
      if (d.min === undefined && d.max === undefined) continue;
      out.push({ path: `${r.name}.${field}`, record: r.name, field, min: d.min ?? -Infinity, max: d.max ?? Infinity });
    }
  }
  return out;
}
