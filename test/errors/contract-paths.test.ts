/**
 * Every error an operation returns names the field by its contract path — `Vehicles[0].Tout`,
 * `Locations[3].TimeConstraintDeparture`, `Specifications[2].Locations[0].LatLong.Latitude` —
 * never by a name inside the engine (`places`, `vehicles[0].shift`, `stops[4].windows[0]`).
 *
 * - A path resolver walks the RecordDef fields (with `[i]` indexes, checked against the request's
 *   own lists) of the operation's specification record.
 * - A generator reaches the validation errors systematically: for every field of every
 *   specification record (nested records and list items included) wrong types, values at and
 *   past their bounds, valid values of every enumeration, missing fields; then the semantic
 *   cases (inverted windows and shifts, unknown references, empty and oversized lists, places
 *   that cannot be placed, shapes that are no polygons, sizes past the limits); then seeded
 *   fast-check mutations of valid specifications.
 * - Every message of every result (Failed or SuccessWithErrors) must start with a path that
 *   resolves in the schema — or be a whole-request error of a documented kind (docs/limits.md):
 *   the operation cancelled, the dataset without a geocoder. None may be Internal.
 * - A source-level check fails when src/ops or src/records write an error path that starts with
 *   a lowercase (internal) name, so new code keeps to the rule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Engine } from '../../src/engine.js';
import { InlineExecutor } from '../../src/workers/inline.js';
import { OPERATIONS } from '../../src/ops/table.js';
import type { OpsContext } from '../../src/ops/context.js';
import { describeType, type AnyField, type RecordDef } from '../../src/records/schema.js';
import {
  MAX_DISPATCH_PLACES, MAX_DISPATCH_VEHICLES, MAX_GEOCODE_ADDRESSES, MAX_ROUTE_LOCATIONS, MAX_ROUTES_LOCATIONS, MAX_ROUTES_SPECIFICATIONS,
  MAX_SHAPE_POINTS, MAX_SHAPES_PER_VEHICLE, MAX_ZONE_SETS,
} from '../../src/ops/limits.js';
import { fixtureDataset } from '../helpers/datasets.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyRecord = RecordDef<any>;
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any
type OpName = 'Dispatch' | 'CalculateRoute' | 'CalculateRoutes' | 'Geocode' | 'CalculateDistance';
const OPS: OpName[] = ['Dispatch', 'CalculateRoute', 'CalculateRoutes', 'Geocode', 'CalculateDistance'];

// ---------------------------------------------------------------------------------------------
// The path resolver
// ---------------------------------------------------------------------------------------------

/** A property of a raw record by name, case-insensitively (as the schema binds it). */
function rawField(o: unknown, name: string): unknown {
  if (!o || typeof o !== 'object' || Array.isArray(o)) return undefined;
  const k = Object.keys(o).find((x) => x.toLowerCase() === name.toLowerCase());
  return k === undefined ? undefined : (o as Record<string, unknown>)[k];
}

const SEGMENT = /^([A-Za-z][A-Za-z0-9]*)((?:\[\d+\])*)$/;

/**
 * Resolves `path` in the record `root`: every segment a field of the record reached so far (exact
 * contract spelling), every `[i]` on a list — and, where the request has that list, an index
 * inside it. '' and the record's own name stand for the whole request. Returns why not, or null.
 */
export function unresolved(root: AnyRecord, path: string, request?: unknown): string | null {
  if (path === '' || path === root.name) return null;
  let rec: AnyRecord | undefined = root;
  let raw: unknown = request;
  for (const seg of path.split('.')) {
    const m = SEGMENT.exec(seg);
    if (!m) return `'${seg}' is not a field name`;
    if (!rec) return `'${seg}' follows a field that is not a record`;
    const f: AnyField | undefined = (rec.fields as Record<string, AnyField>)[m[1]];
    if (!f) return `${rec.name} has no field '${m[1]}'`;
    raw = rawField(raw, m[1]);
    let ty: AnyField['ty'] = f.ty;
    for (const ix of m[2].match(/\d+/g) ?? []) {
      const d = describeType(ty);
      if (!d.list) return `'${m[1]}' is not a list`;
      ty = d.list;
      const i = Number(ix);
      if (Array.isArray(raw)) {
        if (i >= raw.length) return `'${m[1]}[${i}]' is past the ${raw.length} items of the request`;
        raw = raw[i];
      } else raw = undefined;
    }
    rec = describeType(ty).record;
  }
  return null;
}

/** The field path a message is about: `Path: …`, `Path was …`, or `'Name' (Path): …`; null when none. */
export function subjectOf(message: string): string | null {
  const named = /^'.*?' \(([A-Za-z][A-Za-z0-9[\].]*)\)(?=[: ])/s.exec(message);
  if (named) return named[1];
  const plain = /^([A-Za-z][A-Za-z0-9]*(?:\[\d+\])*(?:\.[A-Za-z][A-Za-z0-9]*(?:\[\d+\])*)*)(?=: | )/.exec(message);
  return plain ? plain[1] : null;
}

/**
 * Whole-request errors: the only messages without a path (docs/limits.md). Their codes: the call
 * was cancelled; the dataset has no geocoder index (Geocode, or an Address to geocode).
 */
const WHOLE_REQUEST = /\[(Cancelled|Unsupported)\]$/;
/** A name inside the engine: lowercase, indexed (`stops[3]`, `vehicles[0]`, `windows[1]`). */
const INTERNAL_TOKEN = /(^|[^A-Za-z0-9_'])([a-z][A-Za-z]*\[\d+\])/;
/** A message that starts with a lowercase name and a colon (`places: …`, `travel.time: …`). */
const INTERNAL_START = /^[a-z][A-Za-z]*(?:\.[a-z][A-Za-z]*)*: /;

function problemsOf(op: OpName, spec: unknown, result: Json): string[] {
  const out: string[] = [];
  const check = (root: AnyRecord, request: unknown, status: string, messages: unknown[], where: string): void => {
    for (const e of messages) {
      const m = String((e as { Message?: string })?.Message ?? '');
      if (/\[Internal\]$/.test(m)) { out.push(`${where}: Internal: ${m}`); continue; }
      const internal = INTERNAL_TOKEN.exec(m);
      if (internal) { out.push(`${where}: internal name '${internal[2]}': ${m}`); continue; }
      if (INTERNAL_START.test(m)) { out.push(`${where}: starts with an internal name: ${m}`); continue; }
      if (status === 'Failed' && WHOLE_REQUEST.test(m)) continue;
      const subject = subjectOf(m);
      if (subject === null) { out.push(`${where}: no field path: ${m}`); continue; }
      const why = unresolved(root, subject, request);
      if (why) out.push(`${where}: '${subject}' does not resolve (${why}): ${m}`);
    }
  };
  const root = OPERATIONS[op].spec as AnyRecord;
  if (!result || typeof result !== 'object' || !['Success', 'Failed', 'SuccessWithErrors'].includes(result.Status)) return [`not a result: ${JSON.stringify(result)?.slice(0, 200)}`];
  if (result.Status === 'Failed' && (result.Errors ?? []).length === 0) out.push('Failed without Errors');
  check(root, spec, result.Status, result.Errors ?? [], op);
  if (op === 'CalculateRoutes') {
    const list = rawField(spec, 'Specifications');
    (result.Results ?? []).forEach((r: Json, i: number) => {
      check(OPERATIONS.CalculateRoute.spec as AnyRecord, Array.isArray(list) ? list[i] : undefined, r?.Status, r?.Errors ?? [], `Results[${i}]`);
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Valid specifications on the Monaco fixture (tiny: each dispatch is a few milliseconds)
// ---------------------------------------------------------------------------------------------

const ll = (Latitude: number, Longitude: number) => ({ Latitude, Longitude });
const CASINO = ll(43.7395, 7.428), PALAIS = ll(43.7314, 7.42), PORT = ll(43.735, 7.4225), STADE = ll(43.7276, 7.4155);
const JARDIN = ll(43.7311, 7.4135), LARVOTTO = ll(43.745, 7.4365), GARE = ll(43.739, 7.42);
const DAY = '2026-12-01';

function dispatchBase(): Json {
  const depot = { Name: 'Depot', LatLong: PALAIS };
  return {
    CurrentTime: `${DAY}T08:00:00`, DistanceUnit: 'Kilometer', MinimumOptimization: 1, DispatchMode: 'Optima', IsNeedMatchCode: true,
    Vehicles: [
      {
        Name: 'V1', StartLocation: depot, FinishLocation: depot, MaxWeight: 20, MaxStops: 5, Tin: `${DAY}T08:00:00`, Tout: `${DAY}T18:00:00`,
        Roles: 'cold', Shapes: [{ Points: [ll(43.7405, 7.4295), ll(43.7405, 7.4305), ll(43.7415, 7.4305), ll(43.7415, 7.4295)], Restriction: 'DoNotEnter' }],
      },
      { Name: 'V2', StartLocation: depot, MaxMinutes: 600, Speed: 30, FuelCost: 0.2 },
    ],
    Locations: [
      { Name: 'Casino', LatLong: CASINO, Weight: 2, Wait: 120, Priority: 1 },
      { Name: 'Port', LatLong: PORT, Weight: 1, Wait: 60, Delivery: 'Stade', DeliveryNonStop: false },
      { Name: 'Stade', LatLong: STADE, Weight: 1, Wait: 60 },
      { Name: 'Jardin', LatLong: JARDIN, CanArriveEarly: false, TimeConstraintArrival: `${DAY}T09:00:00`, TimeConstraintDeparture: `${DAY}T12:00:00`, Conditions: 'cold' },
      { Name: 'Larvotto', Address: { Street: 'Avenue Princesse Grace', City: 'Monaco' }, Vehicle: 'V2', TimeConstraintArrival: `${DAY}T15:00:00` },
      { Name: 'Lunch', LocationType: 'Break', Wait: 1800, Vehicle: 'V1', TimeConstraintArrival: `${DAY}T12:00:00`, TimeConstraintDeparture: `${DAY}T13:00:00` },
      { Name: 'Dock', LocationType: 'MidwayDrop', LatLong: GARE, Wait: 300 },
    ],
  };
}

const routeBase = (): Json => ({ Locations: [{ LatLong: CASINO }, { LatLong: PORT, Name: 'Port' }, { LatLong: STADE }], RouteOptions: { DistanceUnit: 'Kilometer', Culture: 'fr-FR' } });
const routesBase = (): Json => ({
  Specifications: [routeBase(), { Locations: [{ LatLong: GARE }, { LatLong: LARVOTTO }], RouteOptions: { RouteOptimize: 'MinimizeDistance' } }],
  RoutesOptions: { DistanceUnit: 'Mile', HideStops: true },
});
const geocodeBase = (): Json => ({ IsNeedMatchCode: true, Addresses: [{ Street: 'Boulevard des Moulins', City: 'Monaco' }, { PostalCode: '98000', Country: 'MC' }] });
const distanceBase = (): Json => ({ StartLocation: { LatLong: CASINO }, FinishLocation: { Address: { Street: 'Avenue de la Costa', City: 'Monaco' } }, DistanceUnit: 'Mile', RouteOptimize: 'MinimizeDistance' });
const BASE: Record<OpName, () => Json> = { Dispatch: dispatchBase, CalculateRoute: routeBase, CalculateRoutes: routesBase, Geocode: geocodeBase, CalculateDistance: distanceBase };

// ---------------------------------------------------------------------------------------------
// Field sites and values
// ---------------------------------------------------------------------------------------------

/** A field of a record inside a specification: its path (names and list indexes) and its definition. */
interface Site {
  path: (string | number)[];
  field: AnyField;
}

/** Every field of `rec` in `value`, recursing into the records and list items present. */
function sitesOf(rec: AnyRecord, value: Json, prefix: (string | number)[] = []): Site[] {
  const out: Site[] = [];
  for (const [name, field] of Object.entries(rec.fields as Record<string, AnyField>)) {
    const path = [...prefix, name];
    out.push({ path, field });
    const d = describeType(field.ty);
    const v = value?.[name];
    if (d.record && v && typeof v === 'object') out.push(...sitesOf(d.record, v, path));
    if (d.list && Array.isArray(v)) {
      const item = describeType(d.list);
      v.forEach((x, i) => { if (item.record && x && typeof x === 'object') out.push(...sitesOf(item.record, x, [...path, i])); });
    }
  }
  return out;
}

/**
 * The sites the field-by-field pass mutates. A Dispatch's Locations and Vehicles repeat the same
 * records: every field is taken on the kinds of item that the operation treats differently (an
 * ordinary stop, a pickup, a Break, a MidwayDrop; the first Vehicle and its StartLocation; the
 * second Vehicle's own fields), not on every copy — the fast-check pass reaches the others.
 */
function fieldCases(op: OpName): { base: Json; site: Site }[] {
  const base = BASE[op]();
  const all = sitesOf(OPERATIONS[op].spec as AnyRecord, base);
  if (op !== 'Dispatch') return all.map((site) => ({ base, site }));
  // Shapes cost a matrix of their own: the other fields are mutated on the base without them.
  const plain = clone(base);
  delete plain.Vehicles[0].Shapes;
  return all.filter(({ path }) => {
    if (path[0] === 'Locations' && typeof path[1] === 'number') return [0, 1, 5, 6].includes(path[1]);
    if (path[0] === 'Vehicles' && path[1] === 1) return path.length === 3;
    if (path[0] === 'Vehicles' && path[2] === 'FinishLocation') return path.length === 3;
    return true;
  }).map((site) => ({ base: site.path[2] === 'Shapes' ? base : plain, site }));
}

const DELETE = Symbol('delete');
const big = (n: number, f: (i: number) => unknown): unknown[] => Array.from({ length: n }, (_, i) => f(i));

/**
 * Wrong and borderline values for a field of this definition (the bounds from the schema itself):
 * every kind of wrong value, and the valid values that change what the operation does (bounds,
 * every enum name, dates around the plan's day) — few of those, since each runs the operation.
 */
function valuesFor(field: AnyField): unknown[] {
  const d = describeType(field.ty);
  const common: unknown[] = [DELETE, null, {}, [], 'nonsense', true];
  if (d.record) return [...common, 5, { Unknown: 1 }];
  if (d.list) return [...common, [null], [{}], [5], ['x']];
  if (d.enumDef) return [...common, 99, -1, 1.5, ...d.enumDef.acceptedNames];
  const b = (field.ty as unknown as { bounds?: { min?: number; max?: number } }).bounds;
  const edges = b ? [b.min, b.max, b.min !== undefined ? b.min - 1 : undefined, b.max !== undefined ? b.max + 1 : undefined].filter((x) => x !== undefined && Number.isFinite(x)) : [];
  switch (d.xsd) {
    case 'string': return [...common, 42, 'a\u0000b', '', 'x'.repeat(1500)];
    case 'int': case 'long': case 'unsignedByte':
      return [...common, 1.5, '12x', 2 ** 31, -(2 ** 31) - 1, Infinity, Number.NaN, -1, 0, ...edges];
    case 'double': return [...common, '1.5.2', Infinity, Number.NaN, 1e300, -1e300, -1, 0, 0.001, ...edges];
    case 'boolean': return [...common, 'yes', 2, 'False'];
    case 'dateTime': return [
      ...common, 12, 'tomorrow', '2026-13-01T00:00:00', '2026-02-30T09:00:00', '9999-01-01T00:00:00', '2000-01-01T00:00:00',
      `${DAY}T09:00:00.5`, `${DAY}T23:59:59Z`, `${DAY}T09:00:00+14:00`, `${DAY}T07:00:00`, '/Date(1764576000000)/',
    ];
    default: return common;
  }
}

function clone<T>(x: T): T {
  return structuredClone(x);
}

/** `spec` with the value at `path` set (or deleted); the containers on the way must exist. */
function withValue(spec: Json, path: (string | number)[], value: unknown): Json {
  const out = clone(spec);
  let o = out;
  for (const k of path.slice(0, -1)) {
    if (o === null || typeof o !== 'object') return out;
    o = o[k];
  }
  if (o === null || typeof o !== 'object') return out;
  const last = path[path.length - 1];
  if (value === DELETE) {
    if (Array.isArray(o) && typeof last === 'number') o.splice(last, 1);
    else delete o[last];
  } else o[last] = value;
  return out;
}

const set = (spec: Json, path: (string | number)[], value: unknown): Json => withValue(spec, path, value);

/** The semantic cases: what the field-by-field values cannot reach. */
function semanticCases(): [OpName, string, Json][] {
  const d = dispatchBase();
  const loc = (i: number, patch: Json): Json => set(d, ['Locations', i], { ...d.Locations[i], ...patch });
  const veh = (i: number, patch: Json): Json => set(d, ['Vehicles', i], { ...d.Vehicles[i], ...patch });
  const square = (lat: number, lon: number, s = 0.0005) => [ll(lat, lon), ll(lat, lon + s), ll(lat + s, lon + s), ll(lat + s, lon)];
  const cases: [OpName, string, Json][] = [
    ['Dispatch', 'empty {}', {}],
    ['Dispatch', 'no Vehicles, no Locations', { Vehicles: [], Locations: [] }],
    ['Dispatch', 'Vehicles only, no depots', { Vehicles: [{ Name: 'V' }] }],
    ['Dispatch', 'Vehicles with depots, no stops', { Vehicles: d.Vehicles }],
    ['Dispatch', 'only a Break without place', { Locations: [{ LocationType: 'Break', Wait: 600 }] }],
    ['Dispatch', 'only Start/Finish locations', { Locations: [{ LocationType: 'Start', LatLong: CASINO }, { LocationType: 'Finish', LatLong: STADE }] }],
    ['Dispatch', 'no vehicles: implied from Start/Finish', { Locations: [{ LocationType: 'Start', LatLong: CASINO }, { Name: 'x', LatLong: PORT }] }],
    ['Dispatch', 'Tout before Tin', veh(0, { Tin: `${DAY}T10:00:00`, Tout: `${DAY}T09:00:00` })],
    ['Dispatch', 'Tout before CurrentTime, no Tin', veh(1, { Tout: `${DAY}T07:00:00` })],
    ['Dispatch', 'Tin = Tout', veh(0, { Tin: `${DAY}T10:00:00`, Tout: `${DAY}T10:00:00` })],
    ['Dispatch', 'Tin and Tout within one second', veh(0, { Tin: `${DAY}T10:00:00.2`, Tout: `${DAY}T10:00:00.7` })],
    ['Dispatch', 'Tin 0.6 s before Tout across a second', veh(0, { Tin: `${DAY}T10:00:00.7`, Tout: `${DAY}T10:00:01.3` })],
    ['Dispatch', 'CurrentTime fractional', set(d, ['CurrentTime'], `${DAY}T08:00:00.5`)],
    ...(['TimeConstraintArrival', 'TimeConstraintArrival2'] as const).flatMap((a, k) => {
      const dep = k === 0 ? 'TimeConstraintDeparture' : 'TimeConstraintDeparture2';
      return [true, false].flatMap((early) => [
        ['Dispatch', `${a} after ${dep}, CanArriveEarly ${early}`, loc(0, { CanArriveEarly: early, [a]: `${DAY}T12:00:00`, [dep]: `${DAY}T11:00:00` })],
        ['Dispatch', `${a}/${dep} within a second, CanArriveEarly ${early}`, loc(0, { CanArriveEarly: early, [a]: `${DAY}T12:00:00.7`, [dep]: `${DAY}T12:00:00.9` })],
        ['Dispatch', `${a} alone, fractional, CanArriveEarly ${early}`, loc(0, { CanArriveEarly: early, [a]: `${DAY}T12:00:00.7` })],
        ['Dispatch', `${dep} alone, CanArriveEarly ${early}`, loc(0, { CanArriveEarly: early, [dep]: `${DAY}T12:00:00` })],
        ['Dispatch', `window shorter than the Wait, CanArriveEarly ${early}`, loc(0, { CanArriveEarly: early, Wait: 3600, [a]: `${DAY}T12:00:00`, [dep]: `${DAY}T12:10:00` })],
      ] as [OpName, string, Json][]);
    }),
    ['Dispatch', 'Break window inverted', loc(5, { TimeConstraintArrival: `${DAY}T13:00:00`, TimeConstraintDeparture: `${DAY}T12:00:00` })],
    ['Dispatch', 'Break window within a second', loc(5, { TimeConstraintArrival: `${DAY}T13:00:00.2`, TimeConstraintDeparture: `${DAY}T13:00:00.8` })],
    ['Dispatch', 'Break with a place', loc(5, { LatLong: GARE })],
    ['Dispatch', 'Break for every vehicle', loc(5, { Vehicle: undefined })],
    ['Dispatch', 'Break for an unknown vehicle', loc(5, { Vehicle: 'Nobody' })],
    ['Dispatch', 'Break for a known and an unknown vehicle', loc(5, { Vehicle: 'V1, Nobody' })],
    ['Dispatch', 'MidwayDrop window inverted', loc(6, { TimeConstraintArrival: `${DAY}T13:00:00`, TimeConstraintDeparture: `${DAY}T12:00:00` })],
    ['Dispatch', 'MidwayDrop window shorter than its Wait', loc(6, { TimeConstraintArrival: `${DAY}T13:00:00`, TimeConstraintDeparture: `${DAY}T13:01:00.5` })],
    ['Dispatch', 'MidwayDrop without capacities', set(set(set(d, ['Vehicles', 0, 'MaxWeight'], 0), ['Vehicles', 1, 'MaxWeight'], 0), ['Locations', 0, 'Weight'], 0)],
    ['Dispatch', 'MidwayDrop unplaceable', loc(6, { LatLong: undefined })],
    ['Dispatch', 'Delivery naming no location', loc(1, { Delivery: 'Nowhere' })],
    ['Dispatch', 'Delivery naming itself', loc(1, { Delivery: 'Port' })],
    ['Dispatch', 'Delivery naming a Break', loc(1, { Delivery: 'Lunch' })],
    ['Dispatch', 'Delivery naming a MidwayDrop', loc(1, { Delivery: 'Dock' })],
    ['Dispatch', 'two pickups for one delivery', loc(0, { Delivery: 'Stade' })],
    ['Dispatch', 'pickup and delivery pre-assigned to different vehicles', set(loc(2, { Vehicle: 'V2' }), ['Locations', 1, 'Vehicle'], 'V1')],
    ['Dispatch', 'pickup pre-assigned to a vehicle with trips', loc(1, { Vehicle: 'V1' })],
    ['Dispatch', 'delivery unplaceable', loc(2, { LatLong: undefined })],
    ['Dispatch', 'pre-assigned to an unknown vehicle', loc(0, { Vehicle: 'Nobody' })],
    ['Dispatch', 'pre-assigned case-insensitively', loc(0, { Vehicle: 'v2' })],
    ['Dispatch', 'Conditions no vehicle has', loc(0, { Conditions: 'frozen, hazmat' })],
    ['Dispatch', 'stop without LatLong or Address', loc(0, { LatLong: undefined })],
    ['Dispatch', 'stop with an Address not found', loc(0, { LatLong: undefined, Address: { Street: 'Xyzzy Strasse 999', City: 'Atlantis' } })],
    ['Dispatch', 'stop far from any road', loc(0, { LatLong: ll(0, 0) })],
    ['Dispatch', 'stop latitude out of range', loc(0, { LatLong: ll(95, 7.4) })],
    ['Dispatch', 'stop latitude and longitude swapped', loc(0, { LatLong: ll(7.428, 43.7395) })],
    ['Dispatch', 'start without LatLong or Address', veh(0, { StartLocation: { Name: 'Depot' } })],
    ['Dispatch', 'finish far from any road', veh(0, { FinishLocation: { LatLong: ll(0, 0) } })],
    ['Dispatch', 'start longitude out of range', veh(0, { StartLocation: { LatLong: ll(43.7, 190) } })],
    ['Dispatch', 'Start location unplaceable, no vehicles', { Locations: [{ LocationType: 'Start' }, { Name: 'x', LatLong: PORT }] }],
    ['Dispatch', 'Shape of two points', veh(0, { Shapes: [{ Points: [CASINO, PORT] }] })],
    ['Dispatch', 'Shape with a repeated point', veh(0, { Shapes: [{ Points: [CASINO, PORT, STADE, PORT] }] })],
    ['Dispatch', 'Shape crossing itself', veh(0, { Shapes: [{ Points: [ll(43.73, 7.41), ll(43.74, 7.43), ll(43.73, 7.43), ll(43.74, 7.41)] }] })],
    ['Dispatch', 'Shape on one line', veh(0, { Shapes: [{ Points: [ll(43.73, 7.41), ll(43.735, 7.415), ll(43.74, 7.42)] }] })],
    ['Dispatch', 'Shape point out of range', veh(0, { Shapes: [{ Points: [ll(95, 7.41), ll(43.735, 7.415), ll(43.74, 7.42)] }] })],
    ['Dispatch', 'Shape with no Points', veh(0, { Shapes: [{}] })],
    ['Dispatch', 'DoNotExit with no stop inside', veh(0, { Shapes: [{ Points: square(43.7405, 7.4295), Restriction: 'DoNotExit' }] })],
    ['Dispatch', 'DoNotEnter over every stop for every vehicle', set(veh(0, { Shapes: [{ Points: [ll(43.72, 7.40), ll(43.72, 7.45), ll(43.75, 7.45), ll(43.75, 7.40)] }] }), ['Vehicles', 1, 'Shapes'], [{ Points: [ll(43.72, 7.40), ll(43.72, 7.45), ll(43.75, 7.45), ll(43.75, 7.40)] }])],
    ['Dispatch', `more than ${MAX_SHAPE_POINTS} points in a Shape`, veh(0, { Shapes: [{ Points: big(MAX_SHAPE_POINTS + 1, (i) => ll(43.73 + 0.001 * Math.sin(i / 100), 7.42 + 0.001 * Math.cos(i / 100))) }] })],
    ['Dispatch', `more than ${MAX_SHAPES_PER_VEHICLE} Shapes`, veh(0, { Shapes: big(MAX_SHAPES_PER_VEHICLE + 1, (i) => ({ Points: square(43.70 + 0.001 * i, 7.40) })) })],
    ['Dispatch', `more than ${MAX_ZONE_SETS} sets of Shapes`, set(d, ['Vehicles'], big(MAX_ZONE_SETS + 1, (i) => ({ Name: `Z${i}`, StartLocation: { LatLong: PALAIS }, Shapes: [{ Points: square(43.70 + 0.001 * i, 7.40) }] })))],
    ['Dispatch', `more than ${MAX_DISPATCH_VEHICLES} Vehicles`, set(d, ['Vehicles'], big(MAX_DISPATCH_VEHICLES + 1, (i) => ({ Name: `V${i}` })))],
    ['Dispatch', `more than ${MAX_DISPATCH_PLACES} Locations`, set(d, ['Locations'], big(MAX_DISPATCH_PLACES + 1, () => ({ LatLong: CASINO })))],
    ['Dispatch', `${MAX_DISPATCH_PLACES} Locations and depots past the places limit`, set(d, ['Locations'], big(MAX_DISPATCH_PLACES, () => ({ LatLong: CASINO })))],
    ['Dispatch', 'duplicate names', loc(1, { Name: 'Casino' })],
    ['Dispatch', 'duplicate vehicle names', veh(1, { Name: 'V1' })],
    ['Dispatch', 'vehicle with trips and OnTheRoad', veh(0, { MaxStops: 1, OnTheRoad: true })],
    ['Dispatch', 'every mode', { ...d, DispatchMode: 'EqualStop' }],
    ['Dispatch', 'TimeWindowDepot without a finish', { ...d, DispatchMode: 'TimeWindowDepot' }],
    ['Dispatch', 'FuelCost ratio past 10,000:1', set(veh(0, { FuelCost: 1e6 }), ['Vehicles', 1, 'FuelCost'], 1e-9)],
    ['Dispatch', 'largest amounts', set(loc(0, { Weight: 1e12, Volume: 1e12, Skids: 1e9, Wait: 86400, Priority: 1e6 }), ['Vehicles', 0, 'MaxWeight'], 1e12)],
    ['Dispatch', 'null item in Locations', set(d, ['Locations', 2], null)],
    ['Dispatch', 'null specification', null],
    ['Dispatch', 'array specification', [d]],
    ['CalculateRoute', 'no Locations', {}],
    ['CalculateRoute', 'null specification', null],
    ['CalculateRoute', 'one Location', { Locations: [{ LatLong: CASINO }] }],
    ['CalculateRoute', 'unplaceable Location', { Locations: [{ LatLong: CASINO }, { Name: 'x' }] }],
    ['CalculateRoute', 'Address not found', { Locations: [{ LatLong: CASINO }, { Address: { City: 'Atlantis' } }] }],
    ['CalculateRoute', 'far from any road', { Locations: [{ LatLong: CASINO }, { LatLong: ll(0, 0) }] }],
    ['CalculateRoute', `more than ${MAX_ROUTE_LOCATIONS} Locations`, { Locations: big(MAX_ROUTE_LOCATIONS + 1, () => ({ LatLong: CASINO })) }],
    ['CalculateRoute', 'negative MapSize', { ...routeBase(), RouteOptions: { MapSize: { Width: -1, Height: 10 } } }],
    ['CalculateRoute', 'huge MapSize', { ...routeBase(), RouteOptions: { MapSize: { Width: 100000, Height: 100000 } } }],
    ['CalculateRoute', 'ZoomLevel 21', { ...routeBase(), RouteOptions: { ZoomLevel: 21 } }],
    ['CalculateRoute', 'MapCenter at the pole', { ...routeBase(), RouteOptions: { MapCenter: ll(90, 0) } }],
    ['CalculateRoute', 'unknown Culture', { ...routeBase(), RouteOptions: { Culture: 'xx-XX' } }],
    ['CalculateRoute', 'a small map', { ...routeBase(), RouteOptions: { MapSize: { Width: 64, Height: 64 }, MapCenter: PORT } }],
    ['CalculateRoutes', 'no Specifications', {}],
    ['CalculateRoutes', 'empty Specifications', { Specifications: [] }],
    ['CalculateRoutes', 'Specifications not a list', { Specifications: 3 }],
    ['CalculateRoutes', 'a null Specification', { Specifications: [routeBase(), null] }],
    ['CalculateRoutes', 'a Specification that is a number', { Specifications: [5, routeBase()] }],
    ['CalculateRoutes', 'a failing Specification', { Specifications: [routeBase(), { Locations: [{ LatLong: CASINO }, { LatLong: ll(95, 7) }] }] }],
    ['CalculateRoutes', 'bad RoutesOptions', { ...routesBase(), RoutesOptions: { ZoomLevel: 30 } }],
    ['CalculateRoutes', 'bad RouteOptions in a Specification', { Specifications: [{ ...routeBase(), RouteOptions: { MapSize: { Width: -5 } } }] }],
    ['CalculateRoutes', 'RoutesOptions not a record', { ...routesBase(), RoutesOptions: 7 }],
    ['CalculateRoutes', `more than ${MAX_ROUTES_SPECIFICATIONS} Specifications`, { Specifications: big(MAX_ROUTES_SPECIFICATIONS + 1, () => ({ Locations: [] })) }],
    ['CalculateRoutes', `more than ${MAX_ROUTES_LOCATIONS} Locations in all`, { Specifications: big(11, () => ({ Locations: big(MAX_ROUTES_LOCATIONS, () => ({ LatLong: CASINO })) })) }],
    ['CalculateRoutes', 'a Specification past the route limit', { Specifications: [routeBase(), { Locations: big(MAX_ROUTE_LOCATIONS + 1, () => ({ LatLong: CASINO })) }] }],
    ['CalculateRoutes', 'null specification', null],
    ['Geocode', 'no Addresses', {}],
    ['Geocode', 'a string specification', 'Monaco'],
    ['Geocode', 'empty Addresses', { Addresses: [] }],
    ['Geocode', 'an empty Address', { Addresses: [{}] }],
    ['Geocode', 'a blank Address', { Addresses: [{ Street: '  ' }] }],
    ['Geocode', 'a field too long', { Addresses: [{ City: 'x'.repeat(1001) }] }],
    ['Geocode', 'control characters', { Addresses: [{ City: 'Mon\u0007aco' }] }],
    ['Geocode', 'not found', { Addresses: [{ Street: 'Xyzzy 1', City: 'Atlantis' }] }],
    ['Geocode', `more than ${MAX_GEOCODE_ADDRESSES} Addresses`, { Addresses: big(MAX_GEOCODE_ADDRESSES + 1, () => ({ City: 'Monaco' })) }],
    ['CalculateDistance', 'no StartLocation', { FinishLocation: { LatLong: CASINO }, DistanceUnit: 'Mile' }],
    ['CalculateDistance', 'no FinishLocation', { StartLocation: { LatLong: CASINO }, DistanceUnit: 'Mile' }],
    ['CalculateDistance', 'no DistanceUnit', { StartLocation: { LatLong: CASINO }, FinishLocation: { LatLong: PORT } }],
    ['CalculateDistance', 'start far from any road', { ...distanceBase(), StartLocation: { LatLong: ll(0, 0) } }],
    ['CalculateDistance', 'finish without place', { ...distanceBase(), FinishLocation: { Name: 'x' } }],
    ['CalculateDistance', 'finish Address not found', { ...distanceBase(), FinishLocation: { Address: { City: 'Atlantis' } } }],
    ['CalculateDistance', 'same place twice', { ...distanceBase(), FinishLocation: { LatLong: CASINO } }],
  ];
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Running
// ---------------------------------------------------------------------------------------------

let engine: Engine;
let ctx: OpsContext;
beforeAll(async () => {
  const { buffer } = await fixtureDataset('monaco');
  engine = await Engine.open(buffer, { threads: 1 });
  const shared = buffer instanceof SharedArrayBuffer ? buffer : (() => { const s = new SharedArrayBuffer(buffer.byteLength); new Uint8Array(s).set(new Uint8Array(buffer)); return s; })();
  // Everything in this thread: tiny requests, no worker round trips.
  ctx = { ...engine.context(), executor: new InlineExecutor({ shared: { dataset: shared } }) };
});
afterAll(() => engine?.close());

/** Paths (indexes as []) of the Failed answers seen, to show which validation errors were reached. */
const reached = new Map<string, number>();
const statuses = new Map<string, number>();

async function run(op: OpName, spec: unknown, label: string): Promise<string[]> {
  let result: Json;
  try {
    result = await OPERATIONS[op].run(ctx, spec, { seed: 1 } as never);
  } catch (e) {
    return [`${op} ${label}: threw ${String((e as Error)?.stack ?? e)}`];
  }
  statuses.set(`${op} ${result?.Status}`, (statuses.get(`${op} ${result?.Status}`) ?? 0) + 1);
  for (const e of result?.Errors ?? []) {
    const s = subjectOf(String(e?.Message ?? ''));
    if (result.Status === 'Failed' && s !== null) {
      const k = `${op} ${s.replace(/\[\d+\]/g, '[]')}`;
      reached.set(k, (reached.get(k) ?? 0) + 1);
    }
  }
  return problemsOf(op, spec, result).map((p) => `${op} ${label}: ${p}`);
}

describe('the path resolver', () => {
  const D = OPERATIONS.Dispatch.spec as AnyRecord;
  const R = OPERATIONS.CalculateRoutes.spec as AnyRecord;
  it('resolves contract paths with indexes, and whole-request names', () => {
    for (const p of ['Vehicles[0].Tout', 'Locations[3].TimeConstraintDeparture', 'Vehicles[1].Shapes[0].Points[2].Latitude', 'MinimumOptimization', 'Locations', '', 'DispatchSpecification']) {
      expect(unresolved(D, p), p).toBeNull();
    }
    expect(unresolved(R, 'Specifications[2].Locations[0].LatLong.Latitude')).toBeNull();
    expect(unresolved(R, 'RoutesOptions.MapSize.Width')).toBeNull();
  });

  it('refuses internal names, wrong case, indexes on records, fields of scalars, and indexes past the request', () => {
    for (const p of ['places', 'vehicles[0].shift', 'stops[4].windows[0]', 'Vehicles[0].shift', 'vehicles[0].Tout', 'Vehicles.Tout', 'Vehicles[0].Tout.Hour', 'MinimumOptimization[0]', 'Locations[0].LatLong[0]', 'travel.time', 'RouteLegs[1]']) {
      expect(unresolved(D, p), p).not.toBeNull();
    }
    expect(unresolved(D, 'Locations[2]', { Locations: [{}, {}] })).toMatch(/past the 2 items/);
    expect(unresolved(D, 'locations[1]', { Locations: [{}, {}] })).not.toBeNull();
    expect(unresolved(D, 'Locations[1]', { locations: [{}, {}] })).toBeNull();
  });

  it('finds the subject of the messages the operations write', () => {
    expect(subjectOf("'Nowhere' (Locations[7]) was not dispatched: Address: not found")).toBe('Locations[7]');
    expect(subjectOf('Locations[3] was not dispatched: its time window cannot be met')).toBe('Locations[3]');
    expect(subjectOf('Vehicles[0].Tout: is before Tin')).toBe('Vehicles[0].Tout');
    expect(subjectOf('places: must be a positive integer [InvalidInput]')).toBe('places');
    expect(subjectOf('No drivable route connects StartLocation to FinishLocation. [NoRoute]')).toBe('No');
    expect(problemsOf('CalculateDistance', {}, { Status: 'Failed', Errors: [{ Message: 'No drivable route connects StartLocation to FinishLocation. [NoRoute]' }] })).not.toEqual([]);
    expect(problemsOf('Dispatch', {}, { Status: 'Failed', Errors: [{ Message: 'The operation was cancelled. [Cancelled]' }] })).toEqual([]);
    expect(problemsOf('Dispatch', {}, { Status: 'Failed', Errors: [{ Message: 'places: must be a positive integer [InvalidInput]' }] })).not.toEqual([]);
    expect(problemsOf('Dispatch', { Vehicles: [{}] }, { Status: 'Failed', Errors: [{ Message: 'vehicles[0].shift: starts after it ends [InvalidInput]' }] })).not.toEqual([]);
    expect(problemsOf('Dispatch', { Vehicles: [{}] }, { Status: 'Failed', Errors: [{ Message: 'Vehicles[0].Tout: is before Tin' }] })).toEqual([]);
    expect(problemsOf('Geocode', {}, { Status: 'Failed', Errors: [{ Message: 'This dataset was built without a geocoder index. [Unsupported]' }] })).toEqual([]);
    expect(problemsOf('Geocode', {}, { Status: 'Failed', Errors: [{ Message: 'Internal error: boom [Internal]' }] })).not.toEqual([]);
  });
});

describe('every validation error names a contract path', () => {
  const MIN_CASES: Record<OpName, number> = { Dispatch: 2000, CalculateRoute: 1000, CalculateRoutes: 800, Geocode: 100, CalculateDistance: 700 };
  for (const op of OPS) {
    it(`field by field (${op}): wrong types, bounds, every enum value, missing fields, in every record of the specification`, async () => {
      const problems: string[] = [];
      let cases = 0;
      for (const { base, site } of fieldCases(op)) {
        for (const v of valuesFor(site.field)) {
          // the top effort level is a valid value that searches for seconds (the bound is tested in test/records)
          if (site.path.join('.') === 'MinimumOptimization' && v === 10) continue;
          cases++;
          problems.push(...await run(op, withValue(base, site.path, v), `${site.path.join('.')} = ${v === DELETE ? '(deleted)' : String(JSON.stringify(v))?.slice(0, 40)}`));
        }
      }
      expect(problems.slice(0, 20)).toEqual([]);
      expect(cases).toBeGreaterThan(MIN_CASES[op]);
    });
  }

  it('semantic cases: inverted windows and shifts, unknown references, empty and oversized lists, unplaceable places, bad shapes', async () => {
    const problems: string[] = [];
    for (const [op, label, spec] of semanticCases()) problems.push(...await run(op, spec, label));
    expect(problems).toEqual([]);
  });

  it('memory refusals name Locations (a context with a small maxMatrixBytes)', async () => {
    const small = { ...ctx, maxMatrixBytes: 20_000 };
    const r = await OPERATIONS.Dispatch.run(small, dispatchBase(), { seed: 1 } as never) as Json;
    expect(r.Status).toBe('Failed');
    expect(r.Errors[0].Message).toMatch(/^Locations: the Dispatch's 9 places would need about .*maxMatrixBytes.*\[TooBig\]$/);
    expect(problemsOf('Dispatch', dispatchBase(), r)).toEqual([]);
  });

  it('fast-check: random mutations of valid specifications (seeded)', async () => {
    const problems: string[] = [];
    const RUNS: Record<OpName, number> = { Dispatch: 600, CalculateRoute: 400, CalculateRoutes: 300, Geocode: 400, CalculateDistance: 400 };
    for (const op of OPS) {
      const base = BASE[op]();
      const sites = sitesOf(OPERATIONS[op].spec as AnyRecord, base);
      const mutation = fc.tuple(fc.nat(), fc.nat(), fc.jsonValue({ maxDepth: 2 }), fc.nat(9));
      await fc.assert(fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (muts) => {
        let spec = base;
        const what: string[] = [];
        for (const [si, vi, any, kind] of muts) {
          const site = sites[si % sites.length];
          const pool = valuesFor(site.field);
          // mostly the field's own bad values; sometimes any JSON; sometimes a list item duplicated or dropped
          if (kind === 9 && typeof site.path[site.path.length - 1] === 'number') {
            const listPath = site.path.slice(0, -1);
            spec = withValue(spec, [...listPath, 0], DELETE);
            what.push(`${listPath.join('.')}[0] dropped`);
            continue;
          }
          const v = kind < 7 ? pool[vi % pool.length] : any;
          spec = withValue(spec, site.path, v);
          what.push(`${site.path.join('.')} = ${v === DELETE ? '(deleted)' : String(JSON.stringify(v))?.slice(0, 30)}`);
        }
        const p = await run(op, spec, what.join('; '));
        problems.push(...p);
        return p.length === 0;
      }), { seed: 20261201, numRuns: RUNS[op], endOnFailure: true });
    }
    expect(problems).toEqual([]);
  });

  it('reached the validation errors of every operation (Failed answers, by path)', () => {
    const expected = [
      'Dispatch Locations', 'Dispatch Vehicles', 'Dispatch MinimumOptimization', 'Dispatch Vehicles[].Tout', 'Dispatch Vehicles[].Tin',
      'Dispatch Locations[].Delivery', 'Dispatch Vehicles[].Shapes[].Points', 'Dispatch Vehicles[].Shapes', 'Dispatch Vehicles[].StartLocation',
      'Dispatch Vehicles[].FinishLocation', 'Dispatch Locations[].Wait', 'Dispatch Locations[].Priority', 'Dispatch Vehicles[].Speed',
      'Dispatch Vehicles[].MaxMinutes', 'Dispatch Vehicles[].FuelCost', 'Dispatch Locations[].LatLong.Latitude', 'Dispatch Locations[]',
      'Dispatch DispatchSpecification', 'Dispatch CurrentTime', 'Dispatch Locations[].LocationType',
      'CalculateRoute Locations', 'CalculateRoute Locations[]', 'CalculateRoute RouteOptions.MapSize', 'CalculateRoute RouteOptions.ZoomLevel',
      'CalculateRoute RouteOptions.MapCenter', 'CalculateRoute RouteSpecification',
      'CalculateRoutes Specifications', 'CalculateRoutes Specifications[]', 'CalculateRoutes Specifications[].Locations', 'CalculateRoutes RoutesOptions',
      'CalculateRoutes RoutesOptions.ZoomLevel', 'CalculateRoutes RoutesSpecification',
      'Geocode Addresses', 'Geocode Addresses[]', 'Geocode Addresses[].City', 'Geocode GeocodeSpecification',
      'CalculateDistance StartLocation', 'CalculateDistance FinishLocation', 'CalculateDistance DistanceUnit', 'CalculateDistance StartLocation.LatLong.Latitude',
    ];
    const missing = expected.filter((e) => !reached.has(e));
    expect(missing).toEqual([]);
    expect(statuses.get('Dispatch Success') ?? 0).toBeGreaterThan(100);
    expect(statuses.get('Dispatch SuccessWithErrors') ?? 0).toBeGreaterThan(20);
  });
});

// ---------------------------------------------------------------------------------------------
// Source-level check
// ---------------------------------------------------------------------------------------------

const SRC = new URL('../../src/', import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = join(dir, d.name);
    return d.isDirectory() ? sourceFiles(p) : /\.ts$/.test(d.name) ? [p] : [];
  });
}

/**
 * Paths an operation may write although they start with a lowercase name, with the reason. Only
 * arguments of programming interfaces, never a request's field.
 */
const ALLOWED_LOWERCASE: Record<string, string> = {
  'ops/dispatch/parse.ts travel.time': "dispatchOnMatrix's `travel` argument (a caller's matrices), not a record field",
  'ops/dispatch/parse.ts travel.distance': "dispatchOnMatrix's `travel` argument (a caller's matrices), not a record field",
};

/** The error paths written as literals in a source file: `path: '…'`, `invalidInput('…'`, `tooBig('…'`, `issue('…'`. */
export function literalPaths(text: string): string[] {
  const out: string[] = [];
  const re = /\b(?:path\s*:\s*|invalidInput\(\s*|tooBig\(\s*)(['`])((?:\\.|(?!\1)[^\\])*)\1/g;
  for (const m of text.matchAll(re)) out.push(m[2]);
  return out;
}

/** Whether a literal path starts with a lowercase name (`${…}` parts are the caller's prefix and count as fine). */
export function lowercasePath(p: string): boolean {
  const s = p.replace(/\$\{[^}]*\}/g, 'X');
  return s.split('.').some((seg) => /^[a-z]/.test(seg.replace(/\[[^\]]*\]/g, '')));
}

describe('error paths in src/ops and src/records (source check)', () => {
  it('the check finds internal names', () => {
    expect(literalPaths("issues.push({ path: 'places', message: 'x' }); throw invalidInput(`vehicles[${v}].shift`, 'y'); tooBig('Locations', 'z')"))
      .toEqual(['places', 'vehicles[${v}].shift', 'Locations']);
    expect(lowercasePath('places')).toBe(true);
    expect(lowercasePath('vehicles[${v}].shift')).toBe(true);
    expect(lowercasePath('${path}.MapSize')).toBe(false);
    expect(lowercasePath('Vehicles[${i}].Shapes[${k}].Points')).toBe(false);
    expect(lowercasePath('Locations[${i}].travel')).toBe(true);
  });

  it('no error path written from a lowercase (internal) name', () => {
    const hits: string[] = [];
    for (const dir of ['ops', 'records']) {
      for (const file of sourceFiles(join(SRC, dir))) {
        const rel = relative(SRC, file);
        for (const p of literalPaths(readFileSync(file, 'utf8'))) {
          if (lowercasePath(p) && !ALLOWED_LOWERCASE[`${rel} ${p}`]) hits.push(`src/${rel}: '${p}'`);
        }
      }
    }
    expect(hits).toEqual([]);
  });
});
