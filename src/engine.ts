/**
 * The public engine: opens a dataset (or builds one from an extract) and answers the service's
 * operations with the contract's records. Records in, records out; bad input never throws — it
 * comes back as `Status: 'Failed'` with `Errors` naming the field. Enum fields of returned records
 * hold names (`'Success'`, `'Exact'`); encode them for the wire with the record schemas
 * (`DistanceResultSchema.encode(result)` → integers, `{ enums: 'name' }` → names).
 */
import { EngineError, invalidInput as invalid, isEngineError } from './core/errors.js';
import type { LongWorkOptions } from './core/cancel.js';
import { buildDataset, type BuildDatasetOptions } from './dataset/build.js';
import { Dataset } from './dataset/dataset.js';
import type { Snap } from './graph/snap.js';
import { computeMatrix, type EndpointEntries, UNREACHABLE } from './matrix/index.js';
import { Router, type Metric } from './route/router.js';
import { WorkerPool } from './workers/pool.js';
import {
  DispatchSpecificationSchema, DistanceSpecificationSchema, failedFromError, failedFromIssues,
  type Address, type DispatchResult, type DistanceResult, type GeocodeResult, type Location, type MatchCodeName,
  type DistanceUnitName, type Issue,
} from './records/index.js';
import { geocodeOperation, geocodeOperationOnPool } from './geocode/operation.js';
import type { ReverseResult } from './geocode/search.js';
import { dispatchOnMatrix, dispatchPlaces, type DispatchOptions } from './vrp/dispatch.js';
import type { ProgressEvent } from './core/cancel.js';
import { readFileSync } from 'node:fs';

export interface EngineOptions {
  /** Worker threads for matrices, dispatch and geocoding batches (default: one per core). */
  threads?: number;
  /** Snapping radius in metres (default 1000). */
  snapRadiusM?: number;
  /** Memory bound for one distance matrix (default 2 GiB); past it operations fail with TooBig. */
  maxMatrixBytes?: number;
}

export interface TravelMatrix {
  size: number;
  /** Row-major, seconds (fractional); Infinity where unreachable. */
  timeS: Float64Array;
  /** Row-major, metres; Infinity where unreachable. */
  distanceM: Float64Array;
}

export const METRES_PER_MILE = 1609.344;

export function metresToUnit(m: number, unit: DistanceUnitName): number {
  return unit === 'Kilometer' ? m / 1000 : m / METRES_PER_MILE;
}

/** A location resolved to the road network. */
export interface PlacedLocation {
  snap: Snap;
  matchCode: MatchCodeName;
  /** The geocoded position, when the location was given by Address. */
  latLong?: { Latitude: number; Longitude: number };
}

function describeAddress(a: Address): string {
  return [a.Street, a.City, a.State, a.PostalCode, a.Country].filter((x) => x && x.trim()).join(', ').slice(0, 200);
}

export class Engine {
  readonly dataset: Dataset;
  readonly options: EngineOptions;
  private readonly router: Router;
  private pool: WorkerPool | null = null;
  private sharedBuffer: SharedArrayBuffer | null = null;

  private constructor(dataset: Dataset, options: EngineOptions) {
    this.dataset = dataset;
    this.options = options;
    this.router = new Router(dataset.graph, dataset.snapper, dataset.chTime, dataset.chDist);
  }

  /** Opens a dataset file (`*.dkds`) or a buffer holding one. */
  static async open(source: string | ArrayBufferLike, options: EngineOptions = {}): Promise<Engine> {
    const ds = typeof source === 'string'
      ? Dataset.open(source, { snapRadiusM: options.snapRadiusM })
      : Dataset.fromBuffer(source, { snapRadiusM: options.snapRadiusM });
    return new Engine(ds, options);
  }

  /** Builds a dataset in memory from an `.osm.pbf` extract (path or bytes) and opens it. */
  static async fromExtract(extract: string | Uint8Array, options: EngineOptions & Omit<BuildDatasetOptions, 'pool'> = {}): Promise<Engine> {
    const bytes = typeof extract === 'string' ? readFileSync(extract) : extract;
    const pool = new WorkerPool({ threads: Math.min(2, options.threads ?? 2) });
    try {
      const { writer } = await buildDataset(bytes, { ...options, pool });
      return await Engine.open(writer.toBuffer(true), options);
    } finally {
      await pool.close();
    }
  }

  /** The worker pool, created on first use with the dataset buffer shared to every thread. */
  workers(): WorkerPool {
    if (!this.pool) {
      this.pool = new WorkerPool({ threads: this.options.threads, shared: { dataset: this.shared() } });
    }
    return this.pool;
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

  async close(): Promise<void> {
    await this.pool?.close();
    this.pool = null;
  }

  // ------------------------------------------------------------------------------------------
  // Locations
  // ------------------------------------------------------------------------------------------

  /**
   * Places a Location on the road network: its LatLong is snapped (MatchCode Exact — the caller's
   * coordinates are used as given). Throws EngineError (InvalidInput / NoSegment) naming `path`.
   */
  placeLocation(loc: Location, path: string): PlacedLocation {
    if (loc.LatLong) {
      const { Latitude, Longitude } = loc.LatLong;
      if (Latitude < -90 || Latitude > 90) throw invalid(`${path}.LatLong.Latitude`, `must be between -90 and 90 (got ${Latitude})`);
      if (Longitude < -180 || Longitude > 180) throw invalid(`${path}.LatLong.Longitude`, `must be between -180 and 180 (got ${Longitude})`);
      const snap = this.dataset.snapper.snap(Latitude, Longitude, { path: `${path}.LatLong` });
      return { snap, matchCode: 'Exact' };
    }
    if (loc.Address && Object.values(loc.Address).some((v) => typeof v === 'string' && v.trim() !== '')) {
      const geocoder = this.dataset.geocoder;
      if (!geocoder) throw new EngineError('Unsupported', `${path}: has only an Address and this dataset has no geocoder index; give LatLong.`, { path: `${path}.Address` });
      const [best] = geocoder.search(loc.Address, { limit: 1 });
      if (!best || best.matchCode === 'None') throw new EngineError('InvalidInput', `${path}.Address: not found (${describeAddress(loc.Address)}).`, { path: `${path}.Address` });
      const snap = this.dataset.snapper.snap(best.lat, best.lon, { path: `${path}.Address` });
      return { snap, matchCode: best.matchCode, latLong: { Latitude: best.lat, Longitude: best.lon } };
    }
    throw new EngineError('InvalidInput', `${path}: needs LatLong (or an Address to geocode).`, { path });
  }

  // ------------------------------------------------------------------------------------------
  // Geocode
  // ------------------------------------------------------------------------------------------

  /**
   * Geocode: one GeocodeItem per Address with candidate Locations best-first. Batches of more
   * than `poolThreshold` addresses (default 500) run on the worker pool.
   */
  async geocode(spec: unknown, opts: { maxCandidates?: number; poolThreshold?: number; signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {}): Promise<GeocodeResult> {
    if (!this.dataset.geocoder) {
      return failedFromError(new EngineError('Unsupported', 'This dataset was built without a geocoder index (rebuild it with `dispatchkit build`).'), { Items: [] }) as GeocodeResult;
    }
    const n = Array.isArray((spec as { Addresses?: unknown })?.Addresses) ? ((spec as { Addresses: unknown[] }).Addresses.length) : 0;
    if (n > (opts.poolThreshold ?? 500)) {
      return geocodeOperationOnPool(this.workers(), spec, { maxCandidates: opts.maxCandidates, signal: opts.signal, onProgress: opts.onProgress });
    }
    return geocodeOperation(this.dataset.geocoder, spec, { maxCandidates: opts.maxCandidates });
  }

  /** The nearest address (or street) to a coordinate, or null (no geocoder, or nothing near). */
  reverseGeocode(lat: number, lon: number, opts: { maxDistance?: number } = {}): ReverseResult | null {
    return this.dataset.geocoder?.reverse(lat, lon, opts) ?? null;
  }

  // ------------------------------------------------------------------------------------------
  // Dispatch
  // ------------------------------------------------------------------------------------------

  /**
   * Dispatch: assigns and sequences the Locations over the Vehicles. Locations are placed by
   * LatLong or geocoded from Address (a stop that cannot be placed is left out and reported);
   * travel data come from the road network under RouteOptimize; the solver runs on the worker
   * pool. Deterministic for a given seed and worker count when no time limit is given.
   */
  async dispatch(spec: unknown, opts: Omit<DispatchOptions, 'pool' | 'unplaced'> & { onProgress?: (e: ProgressEvent) => void } = {}): Promise<DispatchResult> {
    const parsed = DispatchSpecificationSchema.safeParse(spec);
    if (!parsed.ok) return failedFromIssues(parsed.issues, { Items: [] }) as DispatchResult;
    const s = structuredClone(parsed.value);
    const places = dispatchPlaces(s);
    const placed: (PlacedLocation | null)[] = [];
    const unplaced = new Map<number, string>();
    const issues: Issue[] = [];
    for (const p of places) {
      const path = p.kind === 'location' ? `Locations[${p.index}]` : `Vehicles[${p.index}].${p.kind === 'start' ? 'StartLocation' : 'FinishLocation'}`;
      try {
        const pl = this.placeLocation(p.location, path);
        placed.push(pl);
        if (pl.latLong && !p.location.LatLong) p.location.LatLong = pl.latLong;
        if (s.IsNeedMatchCode) p.location.MatchCode = pl.matchCode;
      } catch (e) {
        placed.push(null);
        const msg = isEngineError(e) ? e.message.replace(`${path}: `, '').replace(`${path}.`, '') : String(e);
        if (p.kind === 'location' && (p.location.LocationType === 'Midway' || p.location.LocationType === 'Delivery' || p.location.LocationType === 'MidwayDrop')) {
          unplaced.set(p.index, msg);
          if (s.IsNeedMatchCode) p.location.MatchCode = 'None';
        } else {
          issues.push({ path, message: msg });
        }
      }
    }
    if (issues.length) return failedFromIssues(issues, { Items: [] }) as DispatchResult;
    // Fill Address on stops given only as coordinates (reverse geocoding), for the output.
    if (this.dataset.geocoder) {
      for (const p of places) {
        if (!p.location.Address && p.location.LatLong) {
          const r = this.dataset.geocoder.reverse(p.location.LatLong.Latitude, p.location.LatLong.Longitude, { maxDistance: 200 });
          if (r) p.location.Address = { ...r.address } as Address;
        }
      }
    }
    // Travel data over the placed locations, expanded to the dispatch's place order.
    const idx: number[] = [];
    placed.forEach((p, i) => { if (p) idx.push(i); });
    let time: Float64Array;
    let distance: Float64Array;
    try {
      const m = await this.travelMatrix(idx.map((i) => placed[i]!), {
        metric: s.RouteOptimize === 'MinimizeDistance' ? 'distance' : 'time',
        signal: opts.signal,
        onProgress: opts.onProgress,
      });
      const N = places.length;
      time = new Float64Array(N * N).fill(Infinity);
      distance = new Float64Array(N * N).fill(Infinity);
      for (let a = 0; a < idx.length; a++) {
        for (let b = 0; b < idx.length; b++) {
          time[idx[a] * N + idx[b]] = m.timeS[a * idx.length + b];
          distance[idx[a] * N + idx[b]] = m.distanceM[a * idx.length + b];
        }
      }
      for (let i = 0; i < N; i++) { time[i * N + i] = 0; distance[i * N + i] = 0; }
    } catch (e) {
      return failedFromError(e, { Items: [] }) as DispatchResult;
    }
    return dispatchOnMatrix(s, { time, distance }, { ...opts, pool: this.workers(), unplaced });
  }

  // ------------------------------------------------------------------------------------------
  // CalculateDistance
  // ------------------------------------------------------------------------------------------

  /** Driving distance and time from StartLocation to FinishLocation (records in and out). */
  calculateDistance(spec: unknown): DistanceResult {
    const empty = { StartLocationMatchCode: 'None' as const, FinishLocationMatchCode: 'None' as const, Distance: 0, Time: 0 };
    const parsed = DistanceSpecificationSchema.safeParse(spec);
    if (!parsed.ok) return failedFromIssues(parsed.issues, empty);
    const s = parsed.value;
    const issues: Issue[] = [];
    if (!s.StartLocation) issues.push({ path: 'StartLocation', message: 'is required' });
    if (!s.FinishLocation) issues.push({ path: 'FinishLocation', message: 'is required' });
    if (issues.length) return failedFromIssues(issues, empty);
    let from: PlacedLocation;
    let to: PlacedLocation;
    try {
      from = this.placeLocation(s.StartLocation!, 'StartLocation');
    } catch (e) {
      return failedFromError(e, empty);
    }
    try {
      to = this.placeLocation(s.FinishLocation!, 'FinishLocation');
    } catch (e) {
      return failedFromError(e, { ...empty, StartLocationMatchCode: from.matchCode });
    }
    const codes = { StartLocationMatchCode: from.matchCode, FinishLocationMatchCode: to.matchCode };
    const metric: Metric = s.RouteOptimize === 'MinimizeDistance' ? 'distance' : 'time';
    const r = this.router.route(from.snap, to.snap, metric);
    if (!r.found) {
      return failedFromError(new EngineError('NoRoute', 'No drivable route connects StartLocation to FinishLocation.'), { ...empty, ...codes });
    }
    return {
      Status: 'Success',
      Errors: [],
      ...codes,
      Distance: metresToUnit(r.lengthCm / 100, s.DistanceUnit),
      Time: Math.round(r.timeMs / 1000),
    };
  }

  // ------------------------------------------------------------------------------------------
  // Matrices
  // ------------------------------------------------------------------------------------------

  /**
   * Travel times and distances between every pair of placed locations under `metric` (the path
   * chosen by the metric; both its time and its length are reported). Large matrices run on the
   * worker pool; past `maxMatrixBytes` this throws TooBig.
   */
  async travelMatrix(places: readonly PlacedLocation[], opts: LongWorkOptions & { metric?: Metric } = {}): Promise<TravelMatrix> {
    const metric = opts.metric ?? 'time';
    const time = metric === 'time';
    const n = places.length;
    const sources = entries(places, 'source', time);
    const targets = entries(places, 'target', time);
    const ch = time ? this.dataset.chTime : this.dataset.chDist;
    const big = n * n > 250_000;
    const m = await computeMatrix(ch, sources, targets, {
      withAux: true,
      signal: opts.signal,
      onProgress: opts.onProgress,
      maxMatrixBytes: this.options.maxMatrixBytes,
      ...(big ? { pool: this.workers(), prefix: time ? 'cht.' : 'chd.', datasetKey: 'dataset' } : {}),
    });
    const timeS = new Float64Array(n * n);
    const distanceM = new Float64Array(n * n);
    const aux = m.aux!;
    for (let i = 0; i < n * n; i++) {
      const c = m.cost[i];
      if (c === UNREACHABLE) {
        timeS[i] = Infinity;
        distanceM[i] = Infinity;
      } else {
        timeS[i] = (time ? c : aux[i]) / 1000;
        distanceM[i] = (time ? aux[i] : c) / 100;
      }
    }
    // A drive within one edge can beat the paths through its end nodes.
    const byEdge = new Map<number, number[]>();
    places.forEach((p, i) => {
      const list = byEdge.get(p.snap.edge);
      if (list) list.push(i);
      else byEdge.set(p.snap.edge, [i]);
    });
    for (const list of byEdge.values()) {
      if (list.length < 2) continue;
      for (const i of list) {
        for (const j of list) {
          if (i === j) continue;
          const d = this.dataset.snapper.sameArcDirect(places[i].snap, places[j].snap);
          if (!d) continue;
          const k = i * n + j;
          const cur = time ? timeS[k] * 1000 : distanceM[k] * 100;
          if ((time ? d.timeMs : d.lengthCm) <= cur) {
            timeS[k] = d.timeMs / 1000;
            distanceM[k] = d.lengthCm / 100;
          }
        }
      }
    }
    for (let i = 0; i < n; i++) {
      timeS[i * n + i] = 0;
      distanceM[i * n + i] = 0;
    }
    return { size: n, timeS, distanceM };
  }
}

function entries(places: readonly PlacedLocation[], side: 'source' | 'target', time: boolean): EndpointEntries {
  const count = places.length;
  const start = new Uint32Array(count + 1);
  let total = 0;
  for (let i = 0; i < count; i++) {
    start[i] = total;
    total += (side === 'source' ? places[i].snap.sourceEntries : places[i].snap.targetEntries).length;
  }
  start[count] = total;
  const node = new Uint32Array(total);
  const cost = new Uint32Array(total);
  const aux = new Uint32Array(total);
  let k = 0;
  for (const p of places) {
    for (const e of side === 'source' ? p.snap.sourceEntries : p.snap.targetEntries) {
      node[k] = e.node;
      cost[k] = time ? e.timeMs : e.lengthCm;
      aux[k] = time ? e.lengthCm : e.timeMs;
      k++;
    }
  }
  return { count, start, node, cost, aux };
}

export { isEngineError };
