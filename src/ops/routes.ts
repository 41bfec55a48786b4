/**
 * CalculateRoutes: one CalculateRoute per Specification, Results in input order. Each
 * Specification's RouteOptions override RoutesOptions field by field: a field the caller set in
 * the Specification's RouteOptions wins, any other comes from RoutesOptions, then the defaults.
 * A Specification that fails does not fail the others: its RouteResult is Failed and the
 * top-level Errors name it (`Specifications[i]: …`), Status SuccessWithErrors (Failed when every
 * one failed). With `offload`, or past {@link ROUTES_INLINE_MAX} Specifications, chunks run on
 * the executor (task `routes-chunk`); the records are the same either way. With a MapSize in
 * RoutesOptions, the top-level Map shows every route in its own colour ({@link routesMap}).
 */
import type { TaskEnv, TaskTypes } from '../core/executor.js';
import { sliced } from '../core/cancel.js';
import { ENCODED, parseEach, parseJsonSliced, RouteResultSchema } from '../records/index.js';
import {
  RouteOptionsSchema, failedFromError, failedFromIssues,
  type Issue, type RouteOptions, type RouteResult, type RoutesResult,
} from '../records/index.js';
import type { MapRoute } from '../render/index.js';
import { contextInTask, taskSource, type OpOptions, type OpsContext, type TaskSource } from './context.js';
import { calculateRoute, drawMap, mapRequest, routeColor, type MapRequest } from './route.js';
import { rawRoutesIssues } from './limits.js';

/** Up to this many Specifications run in the calling thread (unless offloading). */
export const ROUTES_INLINE_MAX = 8;
/** Specifications per `routes-chunk` task. */
const ROUTES_CHUNK = 8;
/** …and at most about this many legs (a long route is a chunk of its own). */
const CHUNK_LEGS = 200;

export interface RoutesChunkTask {
  source: TaskSource;
  /** Raw RouteSpecifications with their effective RouteOptions already merged in. */
  specs: unknown[];
  /**
   * Also encode each RouteResult for an answer with this enum form, as UTF-8 bytes ({@link RoutesChunkEncoded}):
   * the caller then gets only each route's Status and Errors as text, and the bytes to write as they are.
   */
  encodeFor?: 'int' | 'name';
}

/** A chunk encoded for an answer: each route's `{Status, Errors}` as text, and all routes' encoded JSON in one buffer (moved, not copied). */
export interface RoutesChunkEncoded {
  summaries: string[];
  bytes: Uint8Array;
  /** Route i is bytes[offsets[i], offsets[i + 1]). */
  offsets: Int32Array;
}

declare module '../core/executor.js' {
  interface TaskMap {
    /** The chunk's RouteResults, each as JSON text: text crosses threads at once, where a large object graph holds the receiving event loop while it is rebuilt. */
    'routes-chunk': TaskTypes<RoutesChunkTask, string[] | RoutesChunkEncoded>;
  }
}

/** Options of CalculateRoutes beyond OpOptions. */
export interface RoutesOptions extends OpOptions {
  /**
   * The answer will be written as JSON with this enum form (a server's REST face): the routes are
   * encoded on the executor and come back as bytes attached to each RouteResult (records ENCODED),
   * which then holds only Status and Errors — the calling thread never rebuilds or re-encodes them.
   * Ignored without offloading, or when a map is asked for (it needs every route's points).
   */
  encodeFor?: 'int' | 'name';
}

type Raw = Record<string, unknown>;
const isObject = (x: unknown): x is Raw => !!x && typeof x === 'object' && !Array.isArray(x);

/** A field of a raw record, by name case-insensitively (as the record parser reads it). */
function rawField(o: Raw, name: string): unknown {
  const lower = name.toLowerCase();
  for (const k of Object.keys(o)) if (k.toLowerCase() === lower) return o[k];
  return undefined;
}

/** The raw record without the field `name` (case-insensitively). */
function withoutField(o: Raw, name: string): Raw {
  const lower = name.toLowerCase();
  return Object.fromEntries(Object.entries(o).filter(([k]) => k.toLowerCase() !== lower));
}

/** RoutesOptions overlaid field by field with a Specification's RouteOptions (keys matched case-insensitively). */
function mergeOptions(base: unknown, over: unknown): Raw | undefined {
  if (!isObject(base) && !isObject(over)) return over === undefined ? (base as Raw | undefined) : (over as Raw);
  const byLower = new Map<string, [string, unknown]>();
  for (const o of [base, over]) {
    if (!isObject(o)) continue;
    for (const [k, v] of Object.entries(o)) if (v !== undefined) byLower.set(k.toLowerCase(), [k, v]);
  }
  return Object.fromEntries(byLower.values());
}

/** The raw RouteSpecification CalculateRoute runs for Specification `spec` under `routesOptions`. */
function effectiveSpec(spec: unknown, routesOptions: unknown): unknown {
  if (!isObject(spec)) return spec;
  const merged = mergeOptions(routesOptions, rawField(spec, 'RouteOptions'));
  const rest = withoutField(spec, 'RouteOptions');
  return merged === undefined ? rest : { ...rest, RouteOptions: merged };
}

/** CalculateRoutes; never throws (a failure of the executor fails the whole call). */
export async function routesOp(ctx: OpsContext, spec: unknown, opts: RoutesOptions = {}): Promise<RoutesResult> {
  try {
    return await routes(ctx, spec, opts);
  } catch (e) {
    return failedFromError(e, { Results: [] }) as RoutesResult;
  }
}

async function routes(ctx: OpsContext, spec: unknown, opts: RoutesOptions): Promise<RoutesResult> {
  // the whole request, named by its record as the schema names it
  if (!isObject(spec)) return failedFromIssues([{ path: 'RoutesSpecification', message: 'must be a RoutesSpecification object' }], { Results: [] }) as RoutesResult;
  const big = rawRoutesIssues(spec); // before routing anything
  if (big.length) return failedFromIssues(big, { Results: [] }) as RoutesResult;
  const routesOptions = rawField(spec, 'RoutesOptions');
  let map: MapRequest | null = null;
  let options: RouteOptions | undefined;
  if (routesOptions !== undefined && routesOptions !== null) {
    const p = RouteOptionsSchema.safeParse(routesOptions, 'RoutesOptions');
    if (!p.ok) return failedFromIssues(p.issues, { Results: [] }) as RoutesResult;
    options = p.value;
    const issues: Issue[] = [];
    map = mapRequest(options, issues, 'RoutesOptions');
    if (issues.length) return failedFromIssues(issues, { Results: [] }) as RoutesResult;
  }
  const list = rawField(spec, 'Specifications') ?? [];
  if (!Array.isArray(list)) return failedFromIssues([{ path: 'Specifications', message: 'must be a list' }], { Results: [] }) as RoutesResult;
  const specs = list.map((s) => effectiveSpec(s, routesOptions ?? undefined));

  const ex = ctx.executor;
  let results: RouteResult[];
  if (ex.offThread && (opts.offload || specs.length > ROUTES_INLINE_MAX)) {
    const source = taskSource(ctx);
    const parts: Promise<RouteResult[]>[] = [];
    let done = 0;
    const encodeFor = map === null ? opts.encodeFor : undefined;
    for (const chunk of chunksOf(specs)) {
      parts.push(ex.run('routes-chunk', { source, specs: chunk, ...(encodeFor ? { encodeFor } : {}) }, { signal: opts.signal }).then(async (out) => {
        const r = Array.isArray(out) ? await parseEach<RouteResult>(out) : await encodedResults(out, encodeFor!);
        done += chunk.length;
        opts.onProgress?.({ phase: 'route', done, total: specs.length });
        return r;
      }));
    }
    results = (await Promise.all(parts)).flat();
  } else {
    results = specs.map((s) => calculateRoute(ctx, s));
  }

  const errors: { Message: string }[] = [];
  results.forEach((r, i) => {
    for (const e of r.Status === 'Failed' ? r.Errors ?? [] : []) errors.push({ Message: withinSpecification(i, e.Message ?? '') });
  });
  const failed = results.filter((r) => r.Status === 'Failed').length;
  const Status = failed === 0 ? 'Success' : failed === results.length ? 'Failed' : 'SuccessWithErrors';
  const out = { Status, Errors: errors, Results: results } as RoutesResult;
  if (map && failed < results.length) out.Map = routesMap(ctx, map, results, options);
  return out;
}

/** A field path at the start of a message (`Locations[2].LatLong: …`, `RouteSpecification: …`). */
const LEADING_PATH = /^([A-Z][A-Za-z0-9]*(?:\[\d+\])*(?:\.[A-Z][A-Za-z0-9]*(?:\[\d+\])*)*): /;

/**
 * A failed Specification's message in the request's terms: its path continued from
 * `Specifications[i]` (`Specifications[2].Locations[0].LatLong.Latitude: …`); the record's own
 * name (a whole Specification that is not a record) becomes `Specifications[i]`.
 */
function withinSpecification(i: number, message: string): string {
  const m = LEADING_PATH.exec(message);
  if (!m) return `Specifications[${i}]: ${message}`;
  const rest = message.slice(m[0].length);
  return m[1] === 'RouteSpecification' ? `Specifications[${i}]: ${rest}` : `Specifications[${i}].${m[1]}: ${rest}`;
}

/** Colours of the routes after the first (which takes RouteColor): distinct hues, RouteColor's alpha. */
const PALETTE: readonly [number, number, number][] = [
  [230, 25, 75], [60, 180, 75], [245, 130, 48], [145, 30, 180], [0, 128, 128], [240, 50, 230], [128, 0, 0], [0, 0, 128], [170, 110, 40], [128, 128, 0],
];

/**
 * The top-level map of CalculateRoutes: every route that succeeded in its own colour (the first in
 * RouteColor, the others from {@link PALETTE}, cycling), each route's first stop marked with the
 * route's number (1-based, its index in Specifications) unless HideStops.
 */
function routesMap(ctx: OpsContext, map: MapRequest, results: RouteResult[], o: RouteOptions | undefined): string {
  const base = routeColor(o?.RouteColor);
  const routes: MapRoute[] = [];
  const markers: { lat: number; lon: number; label: string }[] = [];
  results.forEach((r, i) => {
    const pts = r.Route?.Points;
    if (!pts || pts.length === 0) return;
    const [cr, cg, cb] = i === 0 ? [base.r, base.g, base.b] : PALETTE[(i - 1) % PALETTE.length];
    routes.push({ lat: pts.map((p) => p.Latitude), lon: pts.map((p) => p.Longitude), color: { a: base.a, r: cr, g: cg, b: cb } });
    markers.push({ lat: pts[0].Latitude, lon: pts[0].Longitude, label: String(i + 1) });
  });
  return drawMap(ctx, map, routes, o?.HideStops ? [] : markers, o?.DistanceUnit ?? 'Mile');
}

/** Specifications in chunks of at most {@link ROUTES_CHUNK} and about {@link CHUNK_LEGS} legs, in order. */
function chunksOf(specs: unknown[]): unknown[][] {
  const out: unknown[][] = [];
  let cur: unknown[] = [];
  let legs = 0;
  for (const s of specs) {
    const l = isObject(s) ? rawField(s, 'Locations') : undefined;
    const n = Array.isArray(l) ? Math.max(1, l.length - 1) : 1;
    if (cur.length > 0 && (cur.length >= ROUTES_CHUNK || legs + n > CHUNK_LEGS)) { out.push(cur); cur = []; legs = 0; }
    cur.push(s);
    legs += n;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/** What each `routes-chunk` task runs: the chunk's routes, in order, each as JSON text (or encoded for an answer). */
export async function routesChunkTask(t: RoutesChunkTask, env: TaskEnv): Promise<string[] | RoutesChunkEncoded> {
  const ctx = contextInTask(t.source, env);
  // in slices: the thread is shared with other requests' tasks (workers/pool.ts)
  if (!t.encodeFor) return sliced(t.specs, (s) => JSON.stringify(calculateRoute(ctx, s)), env.signal);
  const o = { enums: t.encodeFor };
  const enc = new TextEncoder();
  const parts = await sliced(t.specs, (s) => {
    const r = calculateRoute(ctx, s);
    return { summary: JSON.stringify({ Status: r.Status, Errors: r.Errors ?? [] }), bytes: enc.encode(JSON.stringify(RouteResultSchema.encode(r, o))) };
  }, env.signal);
  const offsets = new Int32Array(parts.length + 1);
  parts.forEach((p, i) => { offsets[i + 1] = offsets[i] + p.bytes.length; });
  const bytes = new Uint8Array(offsets[parts.length]);
  parts.forEach((p, i) => bytes.set(p.bytes, offsets[i]));
  return { summaries: parts.map((p) => p.summary), bytes, offsets };
}

/** RouteResults that hold only Status and Errors, each carrying its encoded JSON (records ENCODED). */
async function encodedResults(out: RoutesChunkEncoded, enums: 'int' | 'name'): Promise<RouteResult[]> {
  const summaries = await parseEach<RouteResult>(out.summaries);
  return summaries.map((r, i) => Object.assign(r, { [ENCODED]: { enums, bytes: out.bytes.subarray(out.offsets[i], out.offsets[i + 1]) } }));
}

/** Locations from which a CalculateRoute runs on the executor (when the caller offloads): a route of a few legs takes under a millisecond here. */
export const ROUTE_INLINE_MAX_LOCATIONS = 25;

/** One CalculateRoute on the executor (its RouteResult back as text, parsed in slices). */
export async function routeOffThread(ctx: OpsContext, spec: unknown, opts: OpOptions): Promise<RouteResult> {
  const [text] = (await ctx.executor.run('routes-chunk', { source: taskSource(ctx), specs: [spec] }, { signal: opts.signal })) as string[];
  return (await parseJsonSliced(text)) as RouteResult;
}
