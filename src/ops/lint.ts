/**
 * The specification linter: warnings about a request that is valid (or not) but probably not
 * what its author meant — a misspelt property that binding silently ignores, time constraints on
 * a depot (the vehicle's hours apply), a window that closes before it opens, two stops with one
 * Name, a Delivery or pre-assigned Vehicle naming nothing, a stop too far from any road.
 *
 * Warnings never change an operation's answer: the operations ignore this file. Validation
 * errors (what makes a request Failed) are the schema's business (`RecordDef.safeParse`); the
 * linter only reads the raw JSON, binding property names case-insensitively exactly as the
 * schema does, and never throws — whatever the input. Codes are a small stable set
 * ({@link LintCode}); messages may change. See docs/semantics.md, "Spec linter".
 */
import { SLICE_MS, Ticker } from '../core/cancel.js';
import { isEngineError } from '../core/errors.js';
import { isValidLatLon } from '../core/geo.js';
import {
  DispatchSpecificationSchema, DistanceSpecificationSchema, GeocodeSpecificationSchema, LatLongSchema, LocationSchema, VehicleSchema,
  dateToSeconds, type RecordDef,
} from '../records/index.js';
import { describeType, type Issue } from '../records/schema.js';
import type { OpsContext } from './context.js';
import { tripPlan } from './dispatch/trips.js';
import { NOT_STOPS } from './dispatch/types.js';

export type LintCode =
  /** A property that binds to no field of its record (case-insensitively): it is ignored. */
  | 'UnknownProperty'
  /** The same field given twice under different spellings of its name: only the first is used. */
  | 'DuplicateProperty'
  /** A field that is set but has no effect (e.g. a time constraint on a vehicle's StartLocation). */
  | 'IgnoredField'
  /** A time window (or a vehicle's Tin/Tout shift) that closes before it opens, or is shorter than the stop's Wait. */
  | 'EmptyWindow'
  /** Two Locations (or two Vehicles) with the same Name. */
  | 'DuplicateName'
  /** A Location's Delivery names no Location. */
  | 'UnknownDelivery'
  /** A Location's Vehicle (pre-assignment) names no Vehicle. */
  | 'PreassignedUnknownVehicle'
  /** A LatLong farther than the snap radius from any road (only with a dataset). */
  | 'FarFromRoad'
  /** The stops' Weight, Volume or Skids in all exceed what the vehicles can carry in their trips, or the stops outnumber their MaxStops in all. */
  | 'FleetTooSmall';

export const LINT_CODES: readonly LintCode[] = [
  'UnknownProperty', 'DuplicateProperty', 'IgnoredField', 'EmptyWindow', 'DuplicateName', 'UnknownDelivery',
  'PreassignedUnknownVehicle', 'FarFromRoad', 'FleetTooSmall',
];

export interface LintWarning {
  /** Field path as in `Errors` (`Vehicles[0].MaxWeigth`, `Locations[3].TimeConstraintDeparture`). */
  path: string;
  code: LintCode;
  message: string;
}

/** The specifications the linter knows, by operation name. */
export type LintKind = 'Dispatch' | 'Geocode' | 'CalculateDistance';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyRecord = RecordDef<any>;
type Obj = Record<string, unknown>;

const SPEC_OF: Record<LintKind, AnyRecord> = {
  Dispatch: DispatchSpecificationSchema,
  Geocode: GeocodeSpecificationSchema,
  CalculateDistance: DistanceSpecificationSchema,
};

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const join = (path: string, k: string): string => (path ? `${path}.${k}` : k);

// ---------------------------------------------------------------------------------------------
// Names: edit distance and suggestions
// ---------------------------------------------------------------------------------------------

/** Edit distance with adjacent transpositions (MaxWeigth → MaxWeight is 1), case-insensitive; stops early past `max`. */
export function editDistance(a: string, b: string, max = Infinity): number {
  const s = a.toLowerCase(), t = b.toLowerCase();
  if (Math.abs(s.length - t.length) > max) return max + 1;
  const n = t.length;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let cur = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= s.length; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let d = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) d = Math.min(d, prev2[j - 2] + 1);
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[n];
}

/** The candidate nearest to `name` within edit distance 2 (the first of equals), or undefined. */
export function suggestName(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = 3;
  for (const c of candidates) {
    const d = editDistance(name, c, 2);
    if (d < bestD) { best = c; bestD = d; }
  }
  return best;
}

/** The record type of a field, or of its list items; undefined for scalars and enums. */
function recordOf(schema: AnyRecord, field: string): { record: AnyRecord; list: boolean } | undefined {
  const f = schema.fields[field];
  if (!f) return undefined;
  const d = describeType(f.ty);
  if (d.record) return { record: d.record, list: false };
  if (d.list) {
    const item = describeType(d.list);
    if (item.record) return { record: item.record, list: true };
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Binding (the schema's rule: case-insensitive, the first property of a field wins)
// ---------------------------------------------------------------------------------------------

/** The raw value bound to `field` of a record (case-insensitive, first wins, as the schema binds). */
function bound(v: Obj, field: string): unknown {
  const lower = field.toLowerCase();
  for (const k of Object.keys(v)) if (k.toLowerCase() === lower) return v[k];
  return undefined;
}

/**
 * A field's value as the operation sees it: parsed with the field's own type, the contract's
 * default when absent or null, undefined when absent without default or malformed (validation
 * reports that).
 */
function value(schema: AnyRecord, v: Obj, field: string): unknown {
  const f = schema.fields[field];
  if (!f) return undefined;
  const raw = bound(v, field);
  if (raw === undefined || raw === null) return f.presence === 'def' ? f.dflt : undefined;
  const issues: Issue[] = [];
  const out = f.ty.parse(raw, field, issues);
  return issues.length ? undefined : out;
}

function str(schema: AnyRecord, v: Obj, field: string): string | undefined {
  const s = value(schema, v, field);
  return typeof s === 'string' && s !== '' ? s : undefined;
}

/** The list bound to `field` (items that are not objects are kept as undefined, to keep indices). */
function objects(v: unknown, field: string): (Obj | undefined)[] {
  if (!isObj(v)) return [];
  const l = bound(v, field);
  return Array.isArray(l) ? l.map((x) => (isObj(x) ? x : undefined)) : [];
}

// ---------------------------------------------------------------------------------------------
// Generic: unknown and duplicate properties, recursively
// ---------------------------------------------------------------------------------------------

/**
 * Unknown properties (with a "did you mean" by edit distance ≤ 2 over the record's field names,
 * or a field of one of its nested records: `Latitude` on a Location → `LatLong.Latitude`) and
 * properties given twice under different spellings, in `value` and every nested record and list
 * item it holds. Anything that is not an object gives no warning (validation reports it).
 */
export function lintRecord(schema: AnyRecord, v: unknown, path = ''): LintWarning[] {
  const out: LintWarning[] = [];
  walk(schema, v, path, out);
  return out;
}

function walk(schema: AnyRecord, v: unknown, path: string, out: LintWarning[]): void {
  drain(walkSteps(schema, v, path, out));
}

/** {@link walk} in steps: it yields after each item of a list (a long list is walked between turns of the event loop). */
function* walkSteps(schema: AnyRecord, v: unknown, path: string, out: LintWarning[]): Generator<void> {
  if (!isObj(v)) return;
  const fields = Object.keys(schema.fields);
  const byLower = new Map(fields.map((f) => [f.toLowerCase(), f]));
  const seen = new Map<string, string>(); // field → the property that bound it
  for (const k of Object.keys(v)) {
    const canon = byLower.get(k.toLowerCase());
    if (canon === undefined) {
      out.push({ path: join(path, k), code: 'UnknownProperty', message: unknownMessage(schema, k, fields) });
      continue;
    }
    const first = seen.get(canon);
    if (first !== undefined) {
      out.push({ path: join(path, k), code: 'DuplicateProperty', message: `binds to ${canon} like "${first}" before it; only "${first}" is used` });
      continue;
    }
    seen.set(canon, k);
    const x = v[k];
    const nested = recordOf(schema, canon);
    if (!nested || x === null || x === undefined) continue;
    const p = join(path, canon);
    if (!nested.list) yield* walkSteps(nested.record, x, p, out);
    else if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) {
        yield* walkSteps(nested.record, x[i], `${p}[${i}]`, out);
        yield;
      }
    }
  }
}

/** Runs steps to their end at once. */
function drain(steps: Generator<void>): void {
  for (let r = steps.next(); !r.done; r = steps.next());
}

function unknownMessage(schema: AnyRecord, k: string, fields: string[]): string {
  const base = `is not a field of ${schema.name} and is ignored`;
  const near = suggestName(k, fields);
  if (near !== undefined) return `${base}; did you mean ${near}?`;
  // A field of a nested record written one level too high (Latitude on a Location).
  for (const f of fields) {
    const nested = recordOf(schema, f);
    if (!nested || nested.list) continue;
    const inner = suggestName(k, Object.keys(nested.record.fields));
    if (inner !== undefined) return `${base}; did you mean ${f}.${inner}?`;
  }
  return base;
}

// ---------------------------------------------------------------------------------------------
// Locations: time windows, road distance
// ---------------------------------------------------------------------------------------------

const WINDOWS = [['TimeConstraintArrival', 'TimeConstraintDeparture'], ['TimeConstraintArrival2', 'TimeConstraintDeparture2']] as const;
const TIME_FIELDS = ['TimeConstraintArrival', 'TimeConstraintDeparture', 'TimeConstraintArrival2', 'TimeConstraintDeparture2'] as const;

const seconds = (schema: AnyRecord, v: Obj, field: string): number | null => {
  const s = value(schema, v, field);
  return typeof s === 'string' ? dateToSeconds(s) : null;
};

/** Time windows of a stop (Locations[i] of a dispatch other than Start/Finish). */
function lintStopWindows(l: Obj, path: string, out: LintWarning[]): void {
  const wait = value(LocationSchema, l, 'Wait');
  const service = typeof wait === 'number' ? wait : 0;
  for (const [af, df] of WINDOWS) {
    const a = seconds(LocationSchema, l, af);
    const d = seconds(LocationSchema, l, df);
    if (d === null) continue;
    if (a !== null && d < a) out.push({ path: join(path, df), code: 'EmptyWindow', message: `closes before the window opens (${af}): the window is empty` });
    else if (a !== null && d - service < a) out.push({ path: join(path, df), code: 'EmptyWindow', message: `leaves less than the stop's Wait of ${service} s after ${af}: the window is too short to serve the stop` });
  }
}

/** A Break has one window (when it starts): its second pair is not read. */
function lintBreakTimes(l: Obj, path: string, out: LintWarning[]): void {
  for (const f of ['TimeConstraintArrival2', 'TimeConstraintDeparture2'] as const) {
    if (seconds(LocationSchema, l, f) !== null) out.push({ path: join(path, f), code: 'IgnoredField', message: "is ignored on a Break: a Break has one window, TimeConstraintArrival to TimeConstraintDeparture, when it must start" });
  }
}

/** Time constraints on a location that is a vehicle's start or finish: the vehicle's Tin/Tout are used instead. */
function lintDepotTimes(l: Obj, path: string, out: LintWarning[]): void {
  for (const f of TIME_FIELDS) {
    if (seconds(LocationSchema, l, f) !== null) {
      out.push({ path: join(path, f), code: 'IgnoredField', message: "is ignored on a vehicle's start or finish: the vehicle's Tin and Tout give its hours" });
    }
  }
}

/** A LatLong farther than the snap radius from any road (NoSegment from the travel provider). */
function lintRoad(ctx: OpsContext | undefined, l: Obj, path: string, out: LintWarning[]): void {
  if (!ctx) return;
  const ll = bound(l, 'LatLong');
  if (!isObj(ll)) return;
  const lat = value(LatLongSchema, ll, 'Latitude'), lon = value(LatLongSchema, ll, 'Longitude');
  if (typeof lat !== 'number' || typeof lon !== 'number' || !isValidLatLon(lat, lon)) return;
  try {
    ctx.travel.place({ lat, lon }, path);
  } catch (e) {
    if (isEngineError(e) && e.code === 'NoSegment') {
      out.push({ path: join(path, 'LatLong'), code: 'FarFromRoad', message: `${e.message} The stop cannot be placed.` });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The three specifications
// ---------------------------------------------------------------------------------------------

/**
 * Warnings about a DispatchSpecification (raw JSON): unknown and duplicate properties; for each
 * Location, empty windows (or shorter than the stop's Wait), time
 * constraints ignored on Start/Finish locations, a Delivery naming no Location, a Vehicle naming
 * no vehicle; vehicles whose Tout comes before Tin; duplicate Location or Vehicle Names; a fleet
 * too small for the stops (FleetTooSmall); and, with `ctx` (a dataset), LatLongs too far from
 * any road. Never throws; never changes the dispatch.
 */
export function lintDispatchSpecification(spec: unknown, ctx?: OpsContext): LintWarning[] {
  const out: LintWarning[] = [];
  drain(dispatchSteps(spec, ctx, out));
  return out;
}

/** {@link lintDispatchSpecification} in steps (one per list item), warnings pushed to `out`. */
function* dispatchSteps(spec: unknown, ctx: OpsContext | undefined, out: LintWarning[]): Generator<void> {
  try {
    yield* walkSteps(DispatchSpecificationSchema, spec, '', out);
    if (!isObj(spec)) return;
    const locs = objects(spec, 'Locations');
    const vehicles = objects(spec, 'Vehicles');

    // Vehicles: names, shifts, depots.
    const vehicleNames = new Map<string, number>(); // lower-case name → first index
    for (let i = 0; i < vehicles.length; i++) {
      const v = vehicles[i];
      if (!v) continue;
      const path = `Vehicles[${i}]`;
      const name = str(VehicleSchema, v, 'Name');
      if (name !== undefined) {
        const first = vehicleNames.get(name.toLowerCase());
        if (first !== undefined) out.push({ path: `${path}.Name`, code: 'DuplicateName', message: `'${name}' is also the Name of Vehicles[${first}]; pre-assigned stops and results cannot tell them apart` });
        else vehicleNames.set(name.toLowerCase(), i);
      }
      const tin = seconds(VehicleSchema, v, 'Tin'), tout = seconds(VehicleSchema, v, 'Tout');
      if (tin !== null && tout !== null && tout < tin) out.push({ path: `${path}.Tout`, code: 'EmptyWindow', message: 'comes before Tin: the vehicle has no working hours' });
      for (const f of ['StartLocation', 'FinishLocation'] as const) {
        const l = bound(v, f);
        if (!isObj(l)) continue;
        lintDepotTimes(l, `${path}.${f}`, out);
        lintRoad(ctx, l, `${path}.${f}`, out);
      }
      yield;
    }
    // With no vehicles, one is implied, named 'Vehicle'.
    const knownVehicles = vehicles.some((v) => v) ? [...vehicles.map((v) => (v ? str(VehicleSchema, v, 'Name') : undefined)).filter((n): n is string => n !== undefined)] : ['Vehicle'];
    const knownLower = new Set(knownVehicles.map((n) => n.toLowerCase()));

    // Locations: names first (a Delivery may name a later location).
    const locNames = new Map<string, number>();
    locs.forEach((l, i) => {
      const name = l ? str(LocationSchema, l, 'Name') : undefined;
      if (name === undefined) return;
      const first = locNames.get(name);
      if (first !== undefined) out.push({ path: `Locations[${i}].Name`, code: 'DuplicateName', message: `'${name}' is also the Name of Locations[${first}]; a Delivery naming it means Locations[${first}]` });
      else locNames.set(name, i);
    });
    yield;
    for (let i = 0; i < locs.length; i++) {
      const l = locs[i];
      if (!l) continue;
      const path = `Locations[${i}]`;
      const type = value(LocationSchema, l, 'LocationType');
      if (type === 'Start' || type === 'Finish') lintDepotTimes(l, path, out);
      else if (type !== 'Break') lintStopWindows(l, path, out); // a Break's window is when it starts (both ends used)
      else lintBreakTimes(l, path, out);
      const delivery = str(LocationSchema, l, 'Delivery');
      if (delivery !== undefined && !locNames.has(delivery)) {
        const near = suggestName(delivery, locNames.keys());
        out.push({ path: `${path}.Delivery`, code: 'UnknownDelivery', message: `names no Location ('${delivery}')${near !== undefined ? `; did you mean '${near}'?` : ''}` });
      }
      const vehicle = str(LocationSchema, l, 'Vehicle');
      // A Break names its vehicles as a comma-separated list.
      const named = vehicle === undefined ? [] : type === 'Break' ? vehicle.split(',').map((w) => w.trim()).filter(Boolean) : [vehicle];
      for (const v of named) {
        if (knownLower.has(v.toLowerCase())) continue;
        const near = suggestName(v, knownVehicles);
        out.push({
          path: `${path}.Vehicle`, code: 'PreassignedUnknownVehicle',
          message: `names no vehicle ('${v}'): ${type === 'Break' ? 'the break will not be scheduled for it' : 'the stop will not be dispatched'}${near !== undefined ? `; did you mean '${near}'?` : ''}`,
        });
      }
      lintRoad(ctx, l, path, out);
      yield;
    }
    lintFleet(vehicles, locs, out);
  } catch {
    // The linter never throws: what it found so far stands.
  }
}

// ---------------------------------------------------------------------------------------------
// The fleet against the stops
// ---------------------------------------------------------------------------------------------

const AMOUNTS = [['Weight', 'MaxWeight'], ['Volume', 'MaxVolume'], ['Skids', 'MaxSkids']] as const;

/** A figure as messages write it: at most three decimals. */
const fig = (x: number): string => String(Math.round(x * 1000) / 1000);

/**
 * FleetTooSmall: what the vehicles can carry in their trips (a vehicle with MaxStops or
 * MaxMinutes gets further trips, as many as the dispatch gives it: `dispatch/trips.ts`
 * `tripPlan`) against what the stops need in all —
 * - per amount (Weight, Volume, Skids), when every vehicle has its Max set (0 is no limit) and
 *   no reload point (MidwayDrop) or pickup → delivery pair lets a vehicle carry more than its
 *   capacity over a route: the stops' total above Σ Max × trips;
 * - stops (Locations other than Start, Finish, MidwayDrop and Break), when every vehicle has a
 *   MaxStops: more stops than Σ MaxStops × trips.
 * The dispatch leaves the rest unserved; the warning says how much at least.
 */
function lintFleet(vehicles: (Obj | undefined)[], locs: (Obj | undefined)[], out: LintWarning[]): void {
  const fleet = vehicles.filter((v): v is Obj => v !== undefined);
  if (fleet.length === 0) return; // the implied vehicle has no limits
  const stops = locs.filter((l): l is Obj => l !== undefined && !NOT_STOPS.has(String(value(LocationSchema, l, 'LocationType') ?? 'Midway')));
  if (stops.length === 0) return;
  const num = (schema: AnyRecord, o: Obj, f: string): number => {
    const x = value(schema, o, f);
    return typeof x === 'number' && Number.isFinite(x) ? x : 0;
  };
  const trips = tripPlan(fleet.map((v) => ({ maxStops: num(VehicleSchema, v, 'MaxStops'), maxDuration: num(VehicleSchema, v, 'MaxMinutes') * 60 })), stops.length);
  const totalTrips = trips.reduce((a, t) => a + t, 0);
  const tripsText = `${fleet.length} vehicle${fleet.length === 1 ? '' : 's'}${totalTrips > fleet.length ? `, ${totalTrips} trips` : ''}`;
  const carries = locs.some((l) => l !== undefined && (value(LocationSchema, l, 'LocationType') === 'MidwayDrop' || str(LocationSchema, l, 'Delivery') !== undefined));
  if (!carries) {
    for (const [amount, max] of AMOUNTS) {
      const caps = fleet.map((v) => num(VehicleSchema, v, max));
      if (caps.some((c) => c <= 0)) continue; // a vehicle without this limit carries any amount
      const capacity = caps.reduce((a, c, i) => a + c * trips[i], 0);
      const need = stops.reduce((a, l) => a + num(LocationSchema, l, amount), 0);
      if (need > capacity + 1e-9) {
        out.push({
          path: 'Vehicles', code: 'FleetTooSmall',
          message: `can carry ${fig(capacity)} of ${amount} in all (${max} × trips, ${tripsText}), but the ${stops.length} stops' ${amount} adds up to ${fig(need)}: at least ${fig(need - capacity)} of it will not be served`,
        });
      }
    }
  }
  const perTrip = fleet.map((v) => num(VehicleSchema, v, 'MaxStops'));
  if (perTrip.every((m) => m > 0)) {
    const most = perTrip.reduce((a, m, i) => a + m * trips[i], 0);
    if (stops.length > most) {
      out.push({
        path: 'Vehicles', code: 'FleetTooSmall',
        message: `can make at most ${most} stops in all (MaxStops × trips, ${tripsText}), but there are ${stops.length} stops: at least ${stops.length - most} will not be served`,
      });
    }
  }
}

/** Warnings about a GeocodeSpecification: unknown and duplicate properties. Never throws. */
export function lintGeocodeSpecification(spec: unknown): LintWarning[] {
  const out: LintWarning[] = [];
  try { walk(GeocodeSpecificationSchema, spec, '', out); } catch { /* never throws */ }
  return out;
}

/** Warnings about a DistanceSpecification: unknown and duplicate properties; with `ctx`, a LatLong too far from any road. Never throws. */
export function lintDistanceSpecification(spec: unknown, ctx?: OpsContext): LintWarning[] {
  const out: LintWarning[] = [];
  try {
    walk(DistanceSpecificationSchema, spec, '', out);
    if (isObj(spec)) {
      for (const f of ['StartLocation', 'FinishLocation'] as const) {
        const l = bound(spec, f);
        if (isObj(l)) lintRoad(ctx, l, f, out);
      }
    }
  } catch { /* never throws */ }
  return out;
}

/** Lints the specification of operation `kind`. */
export function lintSpecification(kind: LintKind, spec: unknown, ctx?: OpsContext): LintWarning[] {
  if (kind === 'Dispatch') return lintDispatchSpecification(spec, ctx);
  if (kind === 'CalculateDistance') return lintDistanceSpecification(spec, ctx);
  return lintGeocodeSpecification(spec);
}

/**
 * {@link lintSpecification} in slices: the same warnings, a long specification (10,000 stops)
 * linted a list item at a time with the event loop's turns between slices of {@link SLICE_MS}
 * (a server calls it on its own thread). Throws only `Cancelled` when `signal` aborts.
 */
export async function lintSpecificationSliced(kind: LintKind, spec: unknown, ctx?: OpsContext, signal?: AbortSignal): Promise<LintWarning[]> {
  if (kind !== 'Dispatch') return lintSpecification(kind, spec, ctx);
  const out: LintWarning[] = [];
  const ticker = new Ticker(SLICE_MS, signal);
  const steps = dispatchSteps(spec, ctx, out);
  for (let r = steps.next(); !r.done; r = steps.next()) await ticker.tick();
  return out;
}

/** The schema of a lint kind's specification. */
export function specificationSchema(kind: LintKind): AnyRecord {
  return SPEC_OF[kind];
}

/**
 * Which specification a JSON object is, by its property names: each property that binds to a
 * field of only one of the three counts 2 for it, one shared with another counts 1; the highest
 * score wins (Dispatch, then CalculateDistance, then Geocode on a tie). Undefined when nothing binds.
 */
export function detectSpecificationKind(spec: unknown): LintKind | undefined {
  if (!isObj(spec)) return undefined;
  const kinds: LintKind[] = ['Dispatch', 'CalculateDistance', 'Geocode'];
  const lowerFields = kinds.map((k) => new Set(Object.keys(SPEC_OF[k].fields).map((f) => f.toLowerCase())));
  const score = kinds.map(() => 0);
  for (const key of Object.keys(spec)) {
    const k = key.toLowerCase();
    const holders = lowerFields.map((s, i) => (s.has(k) ? i : -1)).filter((i) => i >= 0);
    for (const i of holders) score[i] += holders.length === 1 ? 2 : 1;
  }
  let best = -1;
  score.forEach((s, i) => { if (s > 0 && (best < 0 || s > score[best])) best = i; });
  return best < 0 ? undefined : kinds[best];
}
