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
import { sliced, Ticker } from '../core/cancel.js';
import { ENCODED, parseEach, RouteResultSchema } from '../records/index.js';
import {
  RouteOptionsSchema, failedFromError, failedFromIssues,
  type Issue, type RouteOptions, type RouteResult, type RoutesResult,
} from '../records/index.js';
import type { MapRoute } from '../render/index.js';
import { contextInTask, taskSource, type OpOptions, type OpsContext, type TaskSource } from './context.js';
import { calculateRoute, drawMap, mapRequest, routeColor, type MapRequest } from './route.js';
import { rawField, rawRoutesIssues } from './limits.js';

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

/**
 * A chunk's routes for a caller that wants records: each RouteResult as JSON text with its
 * `Route.Points` replaced by their count, and every route's points as one array of latitude,
 * longitude pairs (moved, not copied). Points are most of a route's weight (1,400 of them in a
 * 3-leg city route): parsed from text they cost the receiving thread four times as much as built
 * from numbers, and they are built there in slices ({@link unpackRoutes}).
 */
export interface RoutesChunkPacked {
  /** Each route as JSON text, its Route's RouteLegs, Points and Map replaced by 0 (the fields keep their places). */
  texts: string[];
  /** Every route's legs as JSON text, each leg's Map replaced by 0; route i's legs are [legStart[i], legStart[i + 1]). */
  legs: string[];
  legStart: Int32Array;
  /** Route i's points are pairs [start[i], start[i + 1]) of `coords`. */
  start: Int32Array;
  coords: Float64Array;
  /**
   * The maps (base64 images: most of the weight of a route with maps, 130 kB a leg at 800×600)
   * as bytes, moved, not copied — a long string crossing threads is copied in the receiving
   * thread at once — map m is bytes [mapStart[m], mapStart[m + 1]); per route and per leg the
   * index of its map, or -1.
   */
  mapBytes: Uint8Array;
  mapStart: Int32Array;
  routeMap: Int32Array;
  legMap: Int32Array;
}

declare module '../core/executor.js' {
  interface TaskMap {
    /** The chunk's RouteResults, as text and numbers: text and typed arrays cross threads at once, where a large object graph holds the receiving event loop while it is rebuilt. */
    'routes-chunk': TaskTypes<RoutesChunkTask, RoutesChunkPacked | RoutesChunkEncoded>;
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
        const r = 'texts' in out ? await unpackRoutes(out, opts.signal) : await encodedResults(out, encodeFor!);
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
export async function routesChunkTask(t: RoutesChunkTask, env: TaskEnv): Promise<RoutesChunkPacked | RoutesChunkEncoded> {
  const ctx = contextInTask(t.source, env);
  // in slices: the thread is shared with other requests' tasks (workers/pool.ts)
  if (!t.encodeFor) return packRoutes(await sliced(t.specs, (s) => calculateRoute(ctx, s), env.signal));
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

/** RouteResults as {@link RoutesChunkPacked}. */
function packRoutes(results: RouteResult[]): RoutesChunkPacked {
  const start = new Int32Array(results.length + 1);
  const legStart = new Int32Array(results.length + 1);
  results.forEach((r, i) => {
    start[i + 1] = start[i] + (r.Route?.Points?.length ?? 0);
    legStart[i + 1] = legStart[i] + (r.Route?.RouteLegs?.length ?? 0);
  });
  const coords = new Float64Array(2 * start[results.length]);
  const legs: string[] = [];
  const enc = new TextEncoder();
  const maps: Uint8Array[] = [];
  const mapIndex = (m: string | undefined): number => (m === undefined ? -1 : maps.push(enc.encode(m)) - 1);
  const routeMap = new Int32Array(results.length);
  const legMap = new Int32Array(legStart[results.length]);
  const texts = results.map((r, i) => {
    const route = r.Route;
    routeMap[i] = mapIndex(route?.Map);
    if (!route) return JSON.stringify(r);
    let k = 2 * start[i];
    for (const p of route.Points ?? []) { coords[k++] = p.Latitude ?? NaN; coords[k++] = p.Longitude ?? NaN; }
    for (const leg of route.RouteLegs ?? []) {
      legMap[legs.length] = mapIndex(leg.Map);
      legs.push(JSON.stringify(leg.Map === undefined ? leg : { ...leg, Map: 0 }));
    }
    const head: Record<string, unknown> = { ...route };
    for (const f of ['RouteLegs', 'Points', 'Map'] as const) if (head[f] !== undefined) head[f] = 0;
    return JSON.stringify({ ...r, Route: head });
  });
  const mapStart = new Int32Array(maps.length + 1);
  maps.forEach((m, i) => { mapStart[i + 1] = mapStart[i] + m.length; });
  const mapBytes = new Uint8Array(mapStart[maps.length]);
  maps.forEach((m, i) => mapBytes.set(m, mapStart[i]));
  return { texts, legs, legStart, start, coords, mapBytes, mapStart, routeMap, legMap };
}

/** A LatLong record (one shape for every point built here). */
function latLong(Latitude: number, Longitude: number): { Latitude: number; Longitude: number } {
  return { Latitude, Longitude };
}

/**
 * The RouteResults of a {@link RoutesChunkPacked}, rebuilt between turns of the event loop: a leg
 * or a thousand points at a time, never a whole long route's text in one parse.
 */
export async function unpackRoutes(out: RoutesChunkPacked, signal?: AbortSignal): Promise<RouteResult[]> {
  const ticker = new Ticker(UNPACK_SLICE_MS, signal);
  const results: RouteResult[] = new Array(out.texts.length);
  const c = out.coords;
  const dec = new TextDecoder();
  const mapAt = (m: number): string => dec.decode(out.mapBytes.subarray(out.mapStart[m], out.mapStart[m + 1]));
  for (let i = 0; i < out.texts.length; i++) {
    const r = JSON.parse(out.texts[i]) as RouteResult;
    const route = r.Route as Record<string, unknown> | undefined;
    if (route) {
      if (route.Map !== undefined) route.Map = mapAt(out.routeMap[i]);
      if (route.RouteLegs !== undefined) {
        const legs: unknown[] = [];
        for (let k = out.legStart[i]; k < out.legStart[i + 1]; k++) {
          const leg = JSON.parse(out.legs[k]) as Record<string, unknown>;
          if (leg.Map !== undefined) leg.Map = mapAt(out.legMap[k]);
          legs.push(leg);
          await ticker.tick();
        }
        route.RouteLegs = legs;
      }
      if (route.Points !== undefined) {
        const n = out.start[i + 1] - out.start[i];
        const pts = new Array<{ Latitude: number; Longitude: number }>(n);
        for (let j = 0, k = 2 * out.start[i]; j < n; j++, k += 2) {
          pts[j] = latLong(c[k], c[k + 1]);
          if ((j & 1023) === 1023) await ticker.tick();
        }
        route.Points = pts;
      }
    }
    results[i] = r;
    await ticker.tick();
  }
  return results;
}

/** How long rebuilding routes holds the caller's thread at a time (ms): short, as what it allocates lives on. */
const UNPACK_SLICE_MS = 4;

/** RouteResults that hold only Status and Errors, each carrying its encoded JSON (records ENCODED). */
async function encodedResults(out: RoutesChunkEncoded, enums: 'int' | 'name'): Promise<RouteResult[]> {
  const summaries = await parseEach<RouteResult>(out.summaries);
  return summaries.map((r, i) => Object.assign(r, { [ENCODED]: { enums, bytes: out.bytes.subarray(out.offsets[i], out.offsets[i + 1]) } }));
}

/** Locations from which a CalculateRoute runs on the executor (when the caller offloads): a route of a few legs takes under a millisecond here. */
export const ROUTE_INLINE_MAX_LOCATIONS = 25;

/** One CalculateRoute on the executor (its RouteResult back as text, parsed in slices). */
export async function routeOffThread(ctx: OpsContext, spec: unknown, opts: OpOptions): Promise<RouteResult> {
  const out = (await ctx.executor.run('routes-chunk', { source: taskSource(ctx), specs: [spec] }, { signal: opts.signal })) as RoutesChunkPacked;
  const [r] = await unpackRoutes(out, opts.signal);
  return r;
}
