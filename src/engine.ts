/**
 * The public engine: resource lifetime (the dataset, its travel provider, the worker pool) and
 * the operation table. Its methods keep the names and signatures callers use and delegate to
 * `ops/`; records in, records out; bad input never throws — it comes back as `Status: 'Failed'`
 * with `Errors` naming the field. Enum fields of returned records hold names (`'Success'`,
 * `'Exact'`); encode them for the wire with the record schemas (`DistanceResultSchema.encode(result)`
 * → integers, `{ enums: 'name' }` → names).
 */
import { readFileSync } from 'node:fs';
import { setMaxListeners } from 'node:events';
import { EngineError, isEngineError } from './core/errors.js';
import { closeBacking } from './core/binfile.js';
import { basename } from 'node:path';
import { cancelledBy, type ProgressEvent } from './core/cancel.js';
import type { Executor } from './core/executor.js';
import type { BuildDatasetOptions } from './dataset/build.js';
import { Dataset, SECTION } from './dataset/dataset.js';
import { DatasetTravel } from './dataset/travel.js';
import type { ReverseResult } from './geocode/search.js';
import type { DispatchResult, DistanceResult, GeocodeResult, RouteResult, RoutesResult, Location, MatchCodeName, LiveResult, EvaluatePlanResult } from './records/index.js';
import type { Placement, TravelMatrix } from './route/travel.js';
import type { Snap } from './graph/snap.js';
import { OFFLOAD_IN_THREAD_CELLS, type OpOptions, type OpsContext } from './ops/context.js';
import { rawField, rawLength } from './ops/limits.js';
import { calculateDistance } from './ops/distance.js';
import type { DispatchOpOptions } from './ops/dispatch/index.js';
import { placeLocation, profileFor } from './ops/locations.js';
import { OPERATIONS, type OperationName } from './ops/table.js';
import { dispatchResultToGeoJson, planGeoJsonOffThread, roadsOffThread } from './ops/plan-geojson.js';
import { liveOp, redispatchOp, type LivePlan, type RedispatchAnswer } from './ops/live/index.js';
import type { GeoJsonFeatureCollection } from './ops/geojson.js';
import { checkThreads, fullCollection, WorkerPool } from './workers/pool.js';

export { METRES_PER_MILE, metresToUnit } from './core/units.js';

/** How long the engine waits, idle after heavy work, before it collects ({@link Engine.collectWhenIdle}). */
const IDLE_GC_MS = 2000;
/**
 * Only after an operation over this many places (its matrices: 32 MB and more of shared memory)
 * does the engine collect when idle: a full collection holds the caller's loop for as long as its
 * heap takes to mark, which smaller work does not warrant (docs/no-stall.md).
 */
const COLLECT_FROM_PLACES = 2000;

/** The Locations of a raw specification (Dispatch's, or EvaluatePlan's Specification's). */
function placesIn(spec: unknown): number {
  return rawLength(spec, 'Locations') || rawLength(rawField(spec, 'Specification'), 'Locations');
}
export type { TravelMatrix } from './route/travel.js';

export interface EngineOptions {
  /** Worker threads for matrices, dispatch and geocoding batches (default: one per core). */
  threads?: number;
  /**
   * Tasks one worker thread runs at once, interleaved in slices (default 4, see workers/pool.ts):
   * a long dispatch then never holds short requests back. 1 = one task at a time per thread.
   */
  tasksPerThread?: number;
  /** Snapping radius in metres (default 1000). */
  snapRadiusM?: number;
  /** Memory bound for one distance matrix (default 2 GiB); past it operations fail with TooBig. */
  maxMatrixBytes?: number;
  /**
   * Keep the calling thread's event loop free (default true): small work runs in the calling
   * thread, every heavier stage on the worker pool, and answers are rebuilt in slices, so that no
   * operation holds the loop for more than about 20 ms (docs/no-stall.md; bench/no-stall.ts).
   * `false`: everything but the solver's searches runs in the calling thread — the lowest latency
   * for small work, with the loop held while it runs. Per-call options override.
   */
  offload?: boolean;
}

/** A location resolved to the road network. */
export interface PlacedLocation {
  snap: Snap;
  matchCode: MatchCodeName;
  /** The geocoded position, when the location was given by Address. */
  latLong?: { Latitude: number; Longitude: number };
}

/** Options of `Engine.geocode`. `onProgress` receives the common ProgressEvent; a two-argument callback gets `(done, total)` (the earlier form). */
export interface EngineGeocodeOptions {
  maxCandidates?: number;
  /** Batches of more addresses run on the worker pool (default 500). */
  poolThreshold?: number;
  signal?: AbortSignal;
  offload?: boolean;
  onProgress?: ((e: ProgressEvent) => void) | ((done: number, total: number) => void);
}

/** How long {@link Engine.close} waits for cancelled operations to settle before ending the threads. */
export const CLOSE_DRAIN_MS = 10_000;

/** The engine's options, checked once at open: a bad one is InvalidInput naming it (`threads`, `snapRadiusM`, …). */
function checkEngineOptions(options: unknown): EngineOptions {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object') throw new EngineError('InvalidInput', `The options must be an object; got ${typeof options}.`, { path: 'options' });
  const o = options as EngineOptions;
  if (o.threads !== undefined) checkThreads(o.threads);
  const positive = (name: 'tasksPerThread' | 'snapRadiusM' | 'maxMatrixBytes', whole: boolean): void => {
    const v: unknown = o[name];
    if (v === undefined) return;
    if (typeof v !== 'number' || !(v > 0) || v === Infinity || (whole && !Number.isInteger(v))) {
      throw new EngineError('InvalidInput', `${name} must be a ${whole ? 'whole' : 'positive'} number${whole ? ' from 1' : ''}; got ${typeof v === 'string' ? `"${v}"` : String(v)}.`, { path: name });
    }
  };
  positive('tasksPerThread', true);
  positive('snapRadiusM', false);
  positive('maxMatrixBytes', false);
  if (o.offload !== undefined && typeof o.offload !== 'boolean') throw new EngineError('InvalidInput', `offload must be true or false; got ${String(o.offload)}.`, { path: 'offload' });
  return o;
}

export class Engine {
  readonly dataset: Dataset;
  readonly options: EngineOptions;
  private readonly travel: DatasetTravel;
  private pool: WorkerPool | null = null;
  private sharedBuffer: SharedArrayBuffer | null = null;
  private ctx: OpsContext | null = null;
  private info: ReturnType<Engine['datasetInfo']> | null = null;

  private constructor(dataset: Dataset, options: EngineOptions) {
    this.dataset = dataset;
    this.options = options;
    this.travel = new DatasetTravel(dataset, { datasetKey: 'dataset' });
  }

  /**
   * Opens a dataset file (`*.dkds`) or a buffer holding one (an ArrayBuffer, a SharedArrayBuffer —
   * shared with the worker threads as it is — or a view of one such as a Node Buffer, copied).
   * Options are checked here: a bad one is InvalidInput naming it.
   */
  static async open(source: string | ArrayBufferLike | ArrayBufferView, options: EngineOptions = {}): Promise<Engine> {
    const opts = checkEngineOptions(options);
    let ds: Dataset;
    if (typeof source === 'string') ds = Dataset.open(source, { snapRadiusM: opts.snapRadiusM });
    else if (source instanceof ArrayBuffer || source instanceof SharedArrayBuffer) ds = Dataset.fromBuffer(source, { snapRadiusM: opts.snapRadiusM });
    else if (ArrayBuffer.isView(source)) {
      const copy = new Uint8Array(source.byteLength);
      copy.set(new Uint8Array(source.buffer, source.byteOffset, source.byteLength));
      ds = Dataset.fromBuffer(copy.buffer, { snapRadiusM: opts.snapRadiusM });
    } else {
      throw new EngineError('InvalidInput', `The dataset must be a file path, an ArrayBuffer, a SharedArrayBuffer or a view of one (a Buffer); got ${source === null ? 'null' : typeof source}.`, { path: 'source' });
    }
    return new Engine(ds, opts);
  }

  /** Builds a dataset in memory from an `.osm.pbf` extract (path or bytes) and opens it. */
  static async fromExtract(extract: string | Uint8Array, options: EngineOptions & Omit<BuildDatasetOptions, 'executor'> = {}): Promise<Engine> {
    let bytes: Uint8Array;
    try {
      bytes = typeof extract === 'string' ? readFileSync(extract) : extract;
    } catch {
      throw new EngineError('InvalidInput', `Cannot read the extract "${String(extract)}".`, { path: 'extract' });
    }
    const sourceName = typeof extract === 'string' ? basename(extract) : options.sourceName;
    const opts = checkEngineOptions(options);
    const pool = new WorkerPool({ threads: Math.min(2, opts.threads ?? 2) });
    try {
      // the import pipeline (PBF decoding, graph, hierarchies, geocoder build) is loaded only by
      // those who build: an engine opened on a dataset holds none of its code (~8 MB of a process)
      const { buildDataset } = await import('./dataset/build.js');
      const { writer } = await buildDataset(bytes, { ...options, ...(sourceName ? { sourceName } : {}), executor: pool });
      return await Engine.open(writer.toBuffer(true), options);
    } finally {
      await pool.close();
    }
  }

  /** The worker pool, created on first use with the dataset buffer shared to every thread. */
  workers(): WorkerPool {
    if (!this.pool) {
      this.pool = new WorkerPool({ threads: this.options.threads, shared: { dataset: this.shared() }, ...(this.options.tasksPerThread ? { tasksPerThread: this.options.tasksPerThread } : {}) });
    }
    return this.pool;
  }

  /** The executor operations hand heavy work to (the worker pool). */
  executor(): Executor {
    return this.workers();
  }

  private shared(): SharedArrayBuffer {
    if (!this.sharedBuffer) {
      const b = this.dataset.buffer;
      if (b instanceof SharedArrayBuffer) this.sharedBuffer = b;
      else {
        const s = new SharedArrayBuffer(b.byteLength);
        new Uint8Array(s).set(new Uint8Array(b));
        this.sharedBuffer = s;
      }
    }
    return this.sharedBuffer;
  }

  /** What the operations run against. The pool behind the executor starts on first use. */
  context(): OpsContext {
    if (!this.ctx) {
      const engine = this;
      const lazy: Executor = {
        get threads() { return engine.workers().threads; },
        offThread: true,
        get shared() { return engine.workers().shared; },
        // work of an operation cut short by close() does not start a pool again
        run: (kind, payload, opts) => (opts?.signal?.aborted ? Promise.reject(cancelledBy(opts.signal)) : engine.workers().run(kind, payload, opts)),
      };
      this.ctx = {
        travel: this.travel,
        // opened on first use (the dataset reads the geocoder's sections then)
        get geocoder() { return engine.dataset.geocoder; },
        executor: lazy,
        datasetKey: 'dataset',
        geocodePrefix: SECTION.geocode,
        maxMatrixBytes: this.options.maxMatrixBytes,
        snapRadiusM: this.dataset.snapper.radiusM,
        roads: this.dataset.graph,
      };
    }
    return this.ctx;
  }

  /**
   * Lets the engine's threads and file go. Operations still running are cancelled first
   * (`Cancelled`, "The engine was closed.") and settle as cancelled ones do — a dispatch with the
   * best plan found so far, or Failed — before the threads end (waiting at most
   * {@link CLOSE_DRAIN_MS}). Calls made before close() and not yet at work are cut short the same
   * way. Closing again, or while closing, is the same close. An engine used after close() starts its
   * threads again and reads what it still needs from the same file (docs/ARCHITECTURE.md).
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.idleGc) clearTimeout(this.idleGc);
      const life = this.life;
      this.life = new AbortController();
      life.abort(new EngineError('Cancelled', 'The engine was closed.'));
      if (this.inFlight.size > 0) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([Promise.allSettled(this.inFlight), new Promise((r) => { timer = setTimeout(r, CLOSE_DRAIN_MS); })]);
        clearTimeout(timer);
      }
      const pool = this.pool;
      this.pool = null;
      await pool?.close();
      // a dataset read on demand lets its file go once no thread reads it; a later use reopens the path
      if (!this.pool) closeBacking(this.dataset.buffer);
    })().finally(() => { this.closing = null; });
    return this.closing;
  }

  private closing: Promise<void> | null = null;
  /** Operations under {@link withLife} not settled yet. */
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Aborted by close(): every operation's signal includes it. */
  private life = new AbortController();

  /**
   * Runs `work` with the caller's signal joined to the engine's own (aborted by close()); the
   * joining listeners go when the work settles (not AbortSignal.any: the engine's signal lives as
   * long as the engine, and every operation would hang a dependant on it).
   */
  private withLife<T>(signal: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const life = this.life.signal;
    if (signal?.aborted) return work(signal);
    const joined = new AbortController();
    const onCaller = (): void => joined.abort(signal!.reason);
    const onLife = (): void => joined.abort(life.reason);
    signal?.addEventListener('abort', onCaller, { once: true });
    setMaxListeners(0, life);
    life.addEventListener('abort', onLife, { once: true });
    let p: Promise<T>;
    try {
      p = work(joined.signal);
    } catch (e) {
      p = Promise.reject(e);
    }
    const settled = p.finally(() => {
      this.inFlight.delete(settled);
      signal?.removeEventListener('abort', onCaller);
      life.removeEventListener('abort', onLife);
    });
    this.inFlight.add(settled);
    return settled;
  }

  /** Runs an operation of the table by its contract name (records in, records out). */
  run<N extends OperationName>(name: N, spec: unknown, opts: OpOptions & Record<string, unknown> = {}): ReturnType<(typeof OPERATIONS)[N]['run']> {
    const op = OPERATIONS[name];
    if (op.runsOn !== 'executor') return op.run(this.context(), spec, { offload: this.offload, ...opts } as never) as ReturnType<(typeof OPERATIONS)[N]['run']>;
    this.heavy++;
    if (placesIn(spec) >= COLLECT_FROM_PLACES) this.large = true;
    return this.withLife(opts.signal, (signal) => op.run(this.context(), spec, { offload: this.offload, ...opts, signal } as never) as Promise<unknown>).finally(() => {
      if (--this.heavy === 0 && this.large) this.collectWhenIdle();
    }) as ReturnType<(typeof OPERATIONS)[N]['run']>;
  }

  /** Whether an operation over {@link COLLECT_FROM_PLACES} places ran since the last collection. */
  private large = false;

  /** EngineOptions.offload with its default. */
  private get offload(): boolean {
    return this.options.offload ?? true;
  }

  /** Heavy operations running now ({@link collectWhenIdle}). */
  private heavy = 0;
  private idleGc: ReturnType<typeof setTimeout> | null = null;

  /**
   * Memory given back after heavy work: a dispatch's matrices live on shared memory (hundreds of
   * megabytes at 10,000 stops), freed only once every thread has collected its last reference —
   * and this thread, whose own heap stays small, would see no reason to collect for a long time
   * (the server held 1.1 GB idle after a 10,000-stop dispatch). So when no heavy operation has run
   * for {@link IDLE_GC_MS}, one full collection runs here (tens of milliseconds on a small heap,
   * only when idle); the worker threads do the same on their own (workers/worker.ts).
   */
  private collectWhenIdle(): void {
    if (this.idleGc) clearTimeout(this.idleGc);
    this.idleGc = setTimeout(() => {
      this.idleGc = null;
      if (this.heavy === 0) {
        this.large = false;
        fullCollection();
      }
    }, IDLE_GC_MS);
    this.idleGc.unref();
  }

  /**
   * Places a Location on the road network: its LatLong is snapped (MatchCode Exact — the caller's
   * coordinates are used as given), or its Address geocoded. Throws EngineError (InvalidInput /
   * NoSegment / Unsupported) naming `path`.
   */
  placeLocation(loc: Location, path: string): PlacedLocation {
    const p = placeLocation(this.context(), loc, path);
    return { snap: p.snap, matchCode: p.matchCode, ...(p.geocoded ? { latLong: { Latitude: p.lat, Longitude: p.lon } } : {}) };
  }

  /**
   * Geocode: one GeocodeItem per Address with candidate Locations best-first. Batches of more
   * than `poolThreshold` addresses (default 500) run on the worker pool.
   */
  async geocode(spec: unknown, opts: EngineGeocodeOptions = {}): Promise<GeocodeResult> {
    const cb = opts.onProgress;
    const onProgress = cb === undefined ? undefined
      : cb.length >= 2 ? (e: ProgressEvent) => (cb as (d: number, t: number) => void)(e.done, e.total)
        : (cb as (e: ProgressEvent) => void);
    return this.run('Geocode', spec, {
      maxCandidates: opts.maxCandidates, batchThreshold: opts.poolThreshold, signal: opts.signal, onProgress,
      ...(opts.offload !== undefined ? { offload: opts.offload } : {}),
    });
  }

  /** The nearest address (or street) to a coordinate, or null (no geocoder, or nothing near). */
  reverseGeocode(lat: number, lon: number, opts: { maxDistance?: number } = {}): ReverseResult | null {
    return this.dataset.geocoder?.reverse(lat, lon, opts) ?? null;
  }

  /**
   * Dispatch: assigns and sequences the Locations over the Vehicles. Locations are placed by
   * LatLong or geocoded from Address (a stop that cannot be placed is left out and reported);
   * travel data come from the road network under RouteOptimize; the solver runs on the worker
   * pool. Deterministic for a given seed and worker count when no time limit is given.
   */
  async dispatch(spec: unknown, opts: DispatchOpOptions = {}): Promise<DispatchResult> {
    return this.run('Dispatch', spec, opts as OpOptions & Record<string, unknown>);
  }

  /**
   * EvaluatePlan (extension): a plan given by hand (per vehicle, its stops by Name in order)
   * checked and timed on the road network without optimising — ETAs, the rules it breaks and by
   * how much, and for each stop left out the vehicle and place that come closest (docs/evaluate.md).
   */
  async evaluatePlan(spec: unknown, opts: OpOptions = {}): Promise<EvaluatePlanResult> {
    return this.run('EvaluatePlan', spec, opts as OpOptions & Record<string, unknown>);
  }

  /**
   * A dispatch plan as GeoJSON: each VehicleItem's path through its Locations (routed as the
   * dispatch routed it: RouteOptimize, Speed, no-go zones) and its Locations as points.
   */
  dispatchGeoJson(spec: unknown, result: DispatchResult): GeoJsonFeatureCollection {
    return dispatchResultToGeoJson(this.context(), spec, result);
  }

  /** A dispatch plan as GeoJSON text ({@link dispatchGeoJson}), computed on the worker pool; `signal` cancels. */
  planGeoJson(spec: unknown, result: DispatchResult, opts: { signal?: AbortSignal } = {}): Promise<string> {
    return this.withLife(opts.signal, (signal) => planGeoJsonOffThread(this.context(), spec, result, { ...opts, signal }));
  }

  /** The dataset's roads in a box as a web map draws them at `zoom` (GeoJSON text, one feature per style), computed on the worker pool. */
  roadsGeoJson(bbox: { west: number; south: number; east: number; north: number }, zoom: number, opts: { signal?: AbortSignal } = {}): Promise<string> {
    return this.withLife(opts.signal, (signal) => roadsOffThread(this.context(), bbox, zoom, { ...opts, signal }));
  }

  /**
   * Live state of a plan (issue #24, docs/live.md): per vehicle its matched position, the stops that
   * are over (stop events first, then dwells seen on its track), the one in progress, and its
   * remaining stops with estimates renewed from where it is and the day's observed lateness.
   * `asOf` in ms (default now).
   */
  liveState(plan: LivePlan, asOf = Date.now()): LiveResult {
    return liveOp(this.context(), plan, asOf);
  }

  /**
   * Re-dispatch a plan from "now" (a RedispatchSpecification: CurrentTime, new Locations, Cancelled,
   * Unavailable, Frozen, Stability): done stops leave, frozen ones stay in place, each vehicle starts
   * where it is, goods on board stay on their vehicle, the rest is re-planned from the current plan
   * with a cost for moving a stop to another vehicle. Returns the plan with its change list, and the
   * specification its next re-dispatch starts from.
   */
  async redispatch(plan: LivePlan, spec: unknown, opts: DispatchOpOptions = {}): Promise<RedispatchAnswer> {
    return this.withLife(opts.signal, (signal) => redispatchOp(this.context(), plan, spec, { offload: this.offload, ...opts, signal }));
  }

  /** The dataset's name, attribution and extent (degrees), computed once. */
  datasetInfo(): { name: string; attribution: string; west: number; south: number; east: number; north: number } {
    if (!this.info) {
      const m = this.dataset.meta;
      const b = this.dataset.graph.bbox();
      this.info = { name: m.name, attribution: m.attribution, west: b.minLon, south: b.minLat, east: b.maxLon, north: b.maxLat };
    }
    return this.info;
  }

  /** CalculateRoute: the driving route through the Locations in order, one RouteLeg per consecutive pair. */
  async calculateRoute(spec: unknown, opts: OpOptions = {}): Promise<RouteResult> {
    return this.run('CalculateRoute', spec, opts as OpOptions & Record<string, unknown>);
  }

  /** CalculateRoutes: one RouteResult per Specification, in order (on the worker pool when offloading or past 8). */
  async calculateRoutes(spec: unknown, opts: OpOptions = {}): Promise<RoutesResult> {
    return this.run('CalculateRoutes', spec, opts as OpOptions & Record<string, unknown>);
  }

  /** Driving distance and time from StartLocation to FinishLocation (records in and out; synchronous: microseconds). */
  calculateDistance(spec: unknown): DistanceResult {
    return calculateDistance(this.context(), spec);
  }

  /**
   * Travel times and distances between every pair of placed locations under `metric` (the path
   * chosen by the metric; both its time and its length are reported). Large matrices run on the
   * worker pool; past `maxMatrixBytes` this throws TooBig.
   */
  async travelMatrix(places: readonly PlacedLocation[], opts: OpOptions & { metric?: 'time' | 'distance' } = {}): Promise<TravelMatrix> {
    const placements: Placement[] = places.map((p) => ({
      snap: p.snap, matchCode: p.matchCode, lat: p.latLong?.Latitude ?? p.snap.queryLat, lon: p.latLong?.Longitude ?? p.snap.queryLon, geocoded: !!p.latLong,
    }));
    return this.withLife(opts.signal, (signal) => this.travel.matrix(placements, profileFor(opts.metric === 'distance' ? 'MinimizeDistance' : 'MinimizeTime'), {
      // Small matrices stay in this thread (under offload, only tiny ones); the pool starts only when a larger one needs it.
      executor: this.context().executor,
      ...((opts.offload ?? this.offload) ? { inThreadMaxCells: OFFLOAD_IN_THREAD_CELLS } : {}),
      signal, onProgress: opts.onProgress, maxMatrixBytes: this.options.maxMatrixBytes,
    }));
  }
}

export { isEngineError };
