/**
 * The operation table: one row per operation the service answers — the contract's eleven, the
 * TrackPoints extension, the jobs operations and what the dispatcher's page reads — with its
 * contract name, the faces it appears on (REST path and method, SOAP parameters, the plain HTTP
 * binding, the page, jobs, the CLI command), its records, where it runs, its price unit and how a
 * call is counted from the validated record, its time limit and its handler. REST, SOAP, GET/POST,
 * jobs, the page, the CLI, the OpenAPI document and the WSDL are generated from this table;
 * handlers of the account, job and page operations are one file each in `handlers/`.
 */
import {
  CreditResultSchema, DispatchResultSchema, DispatchSpecificationSchema, DistanceResultSchema, DistanceSpecificationSchema,
  GeocodeResultSchema, GeocodeSpecificationSchema, GetRouteSpecificationSchema, LoginResultSchema, LoginSpecificationSchema,
  ResultSchema, RouteListResultSchema, RouteListSpecificationSchema, RouteResultSchema, RouteSpecificationSchema,
  RoutesResultSchema, RoutesSpecificationSchema, TrackPointsResultSchema, TrackPointsSpecificationSchema, TrackResultSchema,
  TrackSpecificationSchema, type DispatchResult, type DispatchSpecification, type GeocodeResult, type Issue, type RecordDef,
  type RouteResult, type RouteSpecification, type RoutesResult, safeParseSliced, joined, jsonSliced,
  LiveResultSchema, LiveSpecificationSchema, EvaluatePlanResultSchema, EvaluatePlanSpecificationSchema, RedispatchResultSchema, RedispatchSpecificationSchema, StopEventsResultSchema, StopEventsSpecificationSchema,
  type LiveResult, type LiveSpecification, type RedispatchResult, type RedispatchSpecification, type StopEventsResult, type StopEventsSpecification,
} from '../records/index.js';
import {
  DatasetInfoSchema, GeoJsonResultSchema, JobReferenceSchema, JobSubmissionSchema, JobSubmittedSchema, JobViewSchema,
  PlanSpecificationSchema, RoadsSpecificationSchema, CheckSpecificationSchema, CheckResultSchema,
} from '../records/service.js';
import type { OperationName } from '../ops/table.js';
import type { Call } from './call.js';
import type { Refusal } from './refusals.js';
import { engineHandler, storedRoute, routesFromRaw, type RoutesInput } from './handlers/engine.js';
import { creditRemaining } from './handlers/credit-remaining.js';
import { getRouteList } from './handlers/get-route-list.js';
import { getRoute } from './handlers/get-route.js';
import { getTrack } from './handlers/get-track.js';
import { parseTrackPoints, trackPoints, type TrackPointsInput } from './handlers/track-points.js';
import { login } from './handlers/login.js';
import { logout } from './handlers/logout.js';
import { submitJob } from './handlers/submit-job.js';
import { getJob, encodeJobView } from './handlers/get-job.js';
import { cancelJob } from './handlers/cancel-job.js';
import { watchJob } from './handlers/watch-job.js';
import { datasetInfo } from './handlers/dataset-info.js';
import { roads } from './handlers/roads.js';
import { planGeoJson } from './handlers/plan-geojson.js';
import { checkSpecification } from './handlers/check-specification.js';
import { live } from './handlers/live.js';
import { liveEvents } from './handlers/live-events.js';
import { stopEvents } from './handlers/stop-events.js';
import { redispatchHandler } from './handlers/redispatch.js';

/** What one unit of a priced operation is. */
export type PriceUnit = 'request' | 'stop' | 'address' | 'route' | 'point';

/** Which of the service's time limits bounds the operation (`ServiceOptions`). */
export type LimitKind = 'dispatch' | 'operation' | 'none';

export type ParseOutcome<S> = { ok: true; value: S } | { ok: false; issues: Issue[] };

export interface Faces {
  /** REST: `<method> /rest/<path>` (matched case-insensitively; `:id` binds `param`, default JobID). */
  rest?: { method: 'POST' | 'GET' | 'DELETE'; path: string; param?: string };
  /** SOAP: how the request element carries the input (`specification`, Login's `userName`/`password`, or nothing). */
  soap?: 'specification' | 'login' | 'none';
  /** SOAP and plain HTTP: the operation returns nothing (void), its response element is empty. */
  soapVoid?: boolean;
  /** The ASMX plain HTTP GET/POST binding (primitive parameters only). */
  http?: boolean;
  /** The dispatcher's page: the same method and path under `/ui/rest/`, with its session cookie. */
  page?: boolean;
  /** May run as a job (POST /rest/jobs). */
  job?: boolean;
  /** The CLI sub-command that runs it on a dataset, without an account. */
  cli?: string;
}

export interface ServiceOperation<S = any, R = any> {
  /** Contract name (SOAP action, the price list's key). */
  name: string;
  summary: string;
  /** Not in the original contract. */
  extension?: boolean;
  faces: Faces;
  /** The request record (null: no input; an empty body is fine). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  spec: RecordDef<any> | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  result: RecordDef<any>;
  /** Needs a key (all but Login and the page's map data; calls without a key are rate-limited per client address). */
  auth: boolean;
  /** Where its work runs: the engine's executor (worker threads), the calling thread (microseconds), or the database. */
  runsOn: 'executor' | 'caller' | 'store';
  limit: LimitKind;
  /** The engine operation behind it (ops/table.ts), if any. */
  engine?: OperationName;
  /** Priced operations: the unit and its default price in credits. */
  price?: { unit: PriceUnit; default: number };
  /** The most units the validated request can cost (what is reserved). */
  maxUnits?(spec: S): number;
  /** The units of work done, from the validated request and its result (what is charged; ≤ maxUnits). */
  units?(spec: S, result: R): number;
  /** Charged in one write after the work instead of a reservation (work of microseconds). */
  instant?(spec: S): boolean;
  /** Validation when the record's own is not what the operation means (default: the record's, in slices for long lists). */
  parse?(raw: unknown): ParseOutcome<S> | Promise<ParseOutcome<S>>;
  /** The fields a Failed result carries besides Status and Errors (e.g. `Items: []`). */
  failed?: Record<string, unknown>;
  /** The route to store with the settlement (Dispatch). */
  stored?(spec: S, result: R, call: Call): Promise<import('../store/types.js').NewRoute | undefined>;
  handler(spec: S, call: Call): Promise<R | Refusal>;
  /** Encodes the result for JSON (default: `result.encode(r, { enums })`). */
  encode?(result: R, enums: 'int' | 'name'): unknown;
  /** HTTP status and headers of a successful answer (default 200). */
  respond?(result: R): { status?: number; headers?: Record<string, string> };
  /** The handler returns a stream of results (server-sent events on HTTP faces). */
  stream?: boolean;
}

const op = <S, R>(o: ServiceOperation<S, R>): ServiceOperation<S, R> => o;

/** A dispatch's specification as its route stores it (JSON, enums by name; written in slices). */
async function storedSpec(s: DispatchSpecification): Promise<string> {
  return joined(await jsonSliced(DispatchSpecificationSchema, s, { enums: 'name' }));
}
const len = (x: readonly unknown[] | undefined | null): number => (Array.isArray(x) ? x.length : 0);
const failed = (r: { Status?: string }): boolean => r.Status === 'Failed';

/** A route of more legs than this counts as one more route per this many legs (a route's price follows its work). */
export const LEGS_PER_ROUTE_UNIT = 25;
/** Units of one route through `n` locations. */
export function routeUnits(n: number): number {
  return Math.max(1, Math.ceil(Math.max(1, n - 1) / LEGS_PER_ROUTE_UNIT));
}
/** Geocodes of at most this many addresses are instant (charged after the work, see Service). */
export const INSTANT_GEOCODE = 16;
/** Stops of a dispatch: its Locations other than Start and Finish entries. */
export function dispatchStops(s: DispatchSpecification): number {
  return (s.Locations ?? []).filter((l) => l && l.LocationType !== 'Start' && l.LocationType !== 'Finish').length;
}

export const OPERATIONS = {
  // ---------------------------------------------------------------- the engine's operations
  Dispatch: op<DispatchSpecification, DispatchResult>({
    name: 'Dispatch', summary: 'Assign and sequence stops over vehicles; the result is stored (GetRouteList/GetRoute).',
    faces: { rest: { method: 'POST', path: 'dispatch' }, soap: 'specification', page: true, job: true, cli: 'dispatch' },
    spec: DispatchSpecificationSchema, result: DispatchResultSchema, auth: true, runsOn: 'executor', limit: 'dispatch', engine: 'Dispatch',
    price: { unit: 'stop', default: 1 },
    maxUnits: dispatchStops,
    // stops dispatched: the stops less those reported as not dispatched (each has one Error)
    units: (s, r) => (failed(r) ? 0 : Math.max(0, dispatchStops(s) - len(r.Errors))),
    failed: { Items: [] },
    // stored with its specification: what a re-dispatch starts from
    stored: async (s, r, call) => (failed(r) ? undefined : { ...(await storedRoute(r, call)), spec: await storedSpec(s) }),
    handler: engineHandler('Dispatch'),
  }),
  CalculateRoute: op<RouteSpecification, RouteResult>({
    name: 'CalculateRoute', summary: 'Turn-by-turn directions (and maps) through locations in the given order.',
    faces: { rest: { method: 'POST', path: 'route' }, soap: 'specification', page: true, cli: 'route' },
    spec: RouteSpecificationSchema, result: RouteResultSchema, auth: true, runsOn: 'executor', limit: 'operation', engine: 'CalculateRoute',
    price: { unit: 'route', default: 1 },
    maxUnits: (s) => routeUnits(len(s.Locations)),
    units: (s, r) => (failed(r) ? 0 : routeUnits(len(s.Locations))),
    handler: engineHandler('CalculateRoute'),
  }),
  CalculateRoutes: op<RoutesInput, RoutesResult>({
    name: 'CalculateRoutes', summary: 'Many routes at once, with one overall map.',
    faces: { rest: { method: 'POST', path: 'routes' }, soap: 'specification', page: true, job: true, cli: 'routes' },
    spec: RoutesSpecificationSchema, result: RoutesResultSchema, auth: true, runsOn: 'executor', limit: 'operation', engine: 'CalculateRoutes',
    price: { unit: 'route', default: 1 },
    // each Specification is its own route (one may fail while the others succeed): counted one by one
    parse: routesFromRaw,
    maxUnits: (s) => s.locations.reduce((a, n) => a + routeUnits(n), 0),
    units: (s, r) => (r.Results ?? []).reduce((a, x, i) => a + (x && !failed(x) ? routeUnits(s.locations[i] ?? 0) : 0), 0),
    failed: { Results: [] },
    handler: engineHandler('CalculateRoutes', (s) => s.raw),
  }),
  Geocode: op<import('../records/index.js').GeocodeSpecification, GeocodeResult>({
    name: 'Geocode', summary: 'Candidate locations (latitude, longitude) for addresses.',
    faces: { rest: { method: 'POST', path: 'geocode' }, soap: 'specification', page: true, job: true, cli: 'geocode' },
    spec: GeocodeSpecificationSchema, result: GeocodeResultSchema, auth: true, runsOn: 'executor', limit: 'operation', engine: 'Geocode',
    price: { unit: 'address', default: 1 },
    maxUnits: (s) => len(s.Addresses),
    units: (s, r) => (failed(r) ? 0 : len(s.Addresses)),
    instant: (s) => len(s.Addresses) <= INSTANT_GEOCODE,
    failed: { Items: [] },
    handler: engineHandler('Geocode'),
  }),
  CalculateDistance: op({
    name: 'CalculateDistance', summary: 'Driving distance and time from a start to a finish location.',
    faces: { rest: { method: 'POST', path: 'distance' }, soap: 'specification', page: true, cli: 'distance' },
    spec: DistanceSpecificationSchema, result: DistanceResultSchema, auth: true, runsOn: 'caller', limit: 'operation', engine: 'CalculateDistance',
    price: { unit: 'request', default: 1 },
    maxUnits: () => 1,
    units: (_s, r: { Status?: string }) => (failed(r) ? 0 : 1),
    instant: () => true,
    failed: { Distance: 0, Time: 0 },
    handler: engineHandler('CalculateDistance'),
  }),

  // ---------------------------------------------------------------- the account's operations
  CreditRemaining: op({
    name: 'CreditRemaining', summary: "The account's credit balance (an empty body is fine).",
    faces: { rest: { method: 'POST', path: 'credit' }, soap: 'none', http: true, page: true },
    spec: null, result: CreditResultSchema, auth: true, runsOn: 'store', limit: 'none', handler: creditRemaining,
  }),
  GetRouteList: op({
    name: 'GetRouteList', summary: "The account's stored dispatches, newest first (filters: FromDate, ToDate, Owner, RouteName).",
    faces: { rest: { method: 'POST', path: 'routelist' }, soap: 'specification', page: true },
    spec: RouteListSpecificationSchema, result: RouteListResultSchema, auth: true, runsOn: 'store', limit: 'none', handler: getRouteList,
  }),
  GetRoute: op({
    name: 'GetRoute', summary: 'A stored dispatch by RouteID: its DispatchResult.',
    faces: { rest: { method: 'POST', path: 'getroute' }, soap: 'specification', page: true },
    spec: GetRouteSpecificationSchema, result: DispatchResultSchema, auth: true, runsOn: 'store', limit: 'none', handler: getRoute,
  }),
  GetTrack: op({
    name: 'GetTrack', summary: 'GPS points of a track in a UTC range, ordered by time.',
    faces: { rest: { method: 'POST', path: 'track' }, soap: 'specification', page: true },
    spec: TrackSpecificationSchema, result: TrackResultSchema, auth: true, runsOn: 'store', limit: 'none', handler: getTrack,
  }),
  TrackPoints: op<TrackPointsInput, { Status: string; Count: number }>({
    name: 'TrackPoints', summary: 'Extension: record GPS points (a JSON array of TrackPoints, or a TrackPointsSpecification).', extension: true,
    faces: { rest: { method: 'POST', path: 'trackpoints' }, soap: 'specification', page: true },
    spec: TrackPointsSpecificationSchema, result: TrackPointsResultSchema, auth: true, runsOn: 'store', limit: 'none',
    price: { unit: 'point', default: 0 },
    parse: parseTrackPoints,
    maxUnits: (s) => s.points.length,
    units: (s, r) => (failed(r) ? 0 : s.points.length),
    failed: { Count: 0 },
    handler: trackPoints,
  }),
  StopEvents: op<StopEventsSpecification, StopEventsResult>({
    name: 'StopEvents', summary: 'Extension: what happened at stops of a stored route (Arrived, Done, Failed, Skipped); overrides what the tracks show.', extension: true,
    faces: { rest: { method: 'POST', path: 'stopevents' }, page: true },
    spec: StopEventsSpecificationSchema, result: StopEventsResultSchema, auth: true, runsOn: 'store', limit: 'none',
    failed: { Count: 0 },
    handler: stopEvents,
  }),
  Live: op<LiveSpecification, LiveResult>({
    name: 'Live', summary: "Extension: a stored route's live state — each vehicle's position, stops done, the stop in progress, remaining stops with renewed estimates.", extension: true,
    faces: { rest: { method: 'GET', path: 'routes/:id/live', param: 'RouteID' }, page: true },
    spec: LiveSpecificationSchema, result: LiveResultSchema, auth: true, runsOn: 'store', limit: 'operation',
    failed: { Vehicles: [] },
    handler: live,
  }),
  LiveEvents: op<LiveSpecification, LiveResult>({
    name: 'LiveEvents', summary: "Extension: a stored route's live state as server-sent events (`event: update`), each time it changes (a track point, a stop event, a new version), until the caller goes away.", extension: true,
    faces: { rest: { method: 'GET', path: 'routes/:id/live/events', param: 'RouteID' }, page: true },
    spec: LiveSpecificationSchema, result: LiveResultSchema, auth: true, runsOn: 'store', limit: 'none', handler: liveEvents as never, stream: true,
  }),
  Redispatch: op<RedispatchSpecification, RedispatchResult>({
    name: 'Redispatch', summary: 'Extension: re-plan a stored route from now (done stops leave, frozen ones stay, vehicles start where they are, few stops move); stored as its next version.', extension: true,
    faces: { rest: { method: 'POST', path: 'redispatch' }, page: true, job: true },
    spec: RedispatchSpecificationSchema, result: RedispatchResultSchema, auth: true, runsOn: 'executor', limit: 'dispatch',
    // one re-plan (the route's stops are the stored route's, not the request's: the record prices it)
    price: { unit: 'request', default: 1 },
    maxUnits: () => 1,
    units: (_s, r) => (failed(r) ? 0 : 1),
    failed: { Items: [], Changes: [] },
    handler: redispatchHandler,
    respond: (r) => (r.RouteID ? { headers: { 'X-Route-ID': String(r.RouteID) } } : {}),
  }),
  EvaluatePlan: op<import('../records/index.js').EvaluatePlanSpecification, import('../records/index.js').EvaluatePlanResult>({
    name: 'EvaluatePlan', summary: 'Extension: a plan given by hand (per vehicle, its stops in order) checked and timed on the roads without optimising — ETAs, the rules it breaks and by how much, and what would make each stop left out fit.', extension: true,
    faces: { rest: { method: 'POST', path: 'evaluate' }, page: true, cli: 'evaluate' },
    spec: EvaluatePlanSpecificationSchema, result: EvaluatePlanResultSchema, auth: true, runsOn: 'caller', limit: 'operation', engine: 'EvaluatePlan',
    // a check of a plan already paid for (its dispatch): free unless the price list says otherwise
    price: { unit: 'request', default: 0 },
    maxUnits: () => 1,
    units: (_s, r) => (failed(r) ? 0 : 1),
    instant: () => true,
    failed: { Items: [], Violations: [], Unserved: [], Feasible: false },
    handler: engineHandler('EvaluatePlan'),
  }),
  Login: op({
    name: 'Login', summary: 'A session key for a user name and password, valid 4 hours after its last use (legacy; the API key needs no Login).',
    faces: { rest: { method: 'POST', path: 'login' }, soap: 'login', http: true },
    spec: LoginSpecificationSchema, result: LoginResultSchema, auth: false, runsOn: 'store', limit: 'none', handler: login,
  }),
  Logout: op({
    name: 'Logout', summary: 'Ends the session of the key sent (legacy).',
    faces: { rest: { method: 'POST', path: 'logout' }, soap: 'none', soapVoid: true, http: true },
    spec: null, result: ResultSchema, auth: true, runsOn: 'store', limit: 'none', handler: logout,
  }),

  // ---------------------------------------------------------------- jobs
  SubmitJob: op({
    name: 'SubmitJob', summary: 'Extension: run Dispatch, Geocode or CalculateRoutes asynchronously; answers 202 with the JobID.', extension: true,
    faces: { rest: { method: 'POST', path: 'jobs' }, page: true },
    spec: JobSubmissionSchema, result: JobSubmittedSchema, auth: true, runsOn: 'store', limit: 'none', handler: submitJob,
    // no JobID: nothing was submitted (no or a bad Specification) — 400, never 202 to /rest/jobs/undefined
    respond: (r: { JobID?: string }) => (r.JobID ? { status: 202, headers: { Location: `/rest/jobs/${r.JobID}` } } : { status: 400 }),
  }),
  GetJob: op({
    name: 'GetJob', summary: "Extension: a job's state, progress and (once completed) result.", extension: true,
    faces: { rest: { method: 'GET', path: 'jobs/:id' }, page: true },
    spec: JobReferenceSchema, result: JobViewSchema, auth: true, runsOn: 'store', limit: 'none', handler: getJob, encode: encodeJobView,
  }),
  CancelJob: op({
    name: 'CancelJob', summary: 'Extension: cancels a job (its credit refunded); a finished job stays as it ended.', extension: true,
    faces: { rest: { method: 'DELETE', path: 'jobs/:id' }, page: true },
    spec: JobReferenceSchema, result: JobViewSchema, auth: true, runsOn: 'store', limit: 'none', handler: cancelJob, encode: encodeJobView,
  }),
  WatchJob: op({
    name: 'WatchJob', summary: "Extension: the job's changes as server-sent events (`event: update`, data as GetJob answers) until it ends.", extension: true,
    faces: { rest: { method: 'GET', path: 'jobs/:id/events' }, page: true },
    spec: JobReferenceSchema, result: JobViewSchema, auth: true, runsOn: 'store', limit: 'none', handler: watchJob, encode: encodeJobView as never, stream: true,
  }),

  // ---------------------------------------------------------------- what the page draws
  DatasetInfo: op({
    name: 'DatasetInfo', summary: 'Extension: the dataset the service answers on (name, attribution, extent).', extension: true,
    faces: { rest: { method: 'GET', path: 'dataset' }, page: true },
    // the page draws its map before anyone signs in: no key (rate-limited per address)
    spec: null, result: DatasetInfoSchema, auth: false, runsOn: 'caller', limit: 'none', handler: datasetInfo,
  }),
  Roads: op({
    name: 'Roads', summary: "Extension: the dataset's roads in a box, styled for a map at a zoom level (GeoJSON).", extension: true,
    faces: { rest: { method: 'GET', path: 'roads' }, page: true },
    spec: RoadsSpecificationSchema, result: GeoJsonResultSchema, auth: false, runsOn: 'executor', limit: 'operation', handler: roads,
  }),
  PlanGeoJson: op({
    name: 'PlanGeoJson', summary: 'Extension: a dispatch plan drawn on the roads (each vehicle\'s path and its stops, GeoJSON).', extension: true,
    faces: { rest: { method: 'POST', path: 'plan' }, page: true },
    spec: PlanSpecificationSchema, result: GeoJsonResultSchema, auth: true, runsOn: 'executor', limit: 'operation', handler: planGeoJson,
  }),
  CheckSpecification: op({
    name: 'CheckSpecification', summary: 'Extension: check a Dispatch, Geocode or Distance specification without running it: the validation Errors its operation would answer, the linter\'s Warnings, and the record as the operation reads it.', extension: true,
    faces: { rest: { method: 'POST', path: 'check' }, page: true },
    // free; validated, linted and written in slices on the calling thread
    spec: CheckSpecificationSchema, result: CheckResultSchema, auth: true, runsOn: 'caller', limit: 'operation', handler: checkSpecification,
    failed: { Warnings: [] },
  }),
} as const satisfies Record<string, ServiceOperation>;

export type ServiceOperationName = keyof typeof OPERATIONS;

export const OPERATION_NAMES = Object.keys(OPERATIONS) as ServiceOperationName[];

/** Every row, as the faces iterate them. */
export function operations(): ServiceOperation[] {
  return OPERATION_NAMES.map((n) => OPERATIONS[n] as ServiceOperation);
}

const BY_NAME = new Map<string, ServiceOperation>(OPERATION_NAMES.map((n) => [n, OPERATIONS[n] as ServiceOperation]));
const BY_LOWER = new Map<string, ServiceOperation>(OPERATION_NAMES.map((n) => [n.toLowerCase(), OPERATIONS[n] as ServiceOperation]));

/** The row of a contract name (case-insensitive), or undefined. */
export function operationNamed(name: string): ServiceOperation | undefined {
  return BY_NAME.get(name) ?? BY_LOWER.get(String(name).toLowerCase());
}

/** The operations a job may run. */
export function jobOperations(): ServiceOperation[] {
  return operations().filter((o) => o.faces.job);
}

/**
 * Validates a request for `row`: its own parse, or its record's (an absent body is an empty one),
 * long lists item by item between turns of the event loop (records/json-sliced.ts).
 */
export async function parseRequest<S>(row: ServiceOperation<S>, raw: unknown, signal?: AbortSignal): Promise<ParseOutcome<S>> {
  if (row.parse) return row.parse(raw);
  if (row.spec === null) return { ok: true, value: undefined as S };
  return (await safeParseSliced(row.spec, raw ?? {}, '', signal)) as ParseOutcome<S>;
}
