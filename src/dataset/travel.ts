/**
 * The {@link TravelProvider} over a dataset: snapping and geocoding for placement, the two
 * contraction hierarchies for routes and matrices, and a plain Dijkstra on the road graph for
 * profiles that block arcs (a hierarchy cannot leave arcs out). Heavy batches run on the
 * executor (task `dataset-place`, matrix tiles), each thread opening the dataset from the shared
 * buffer once.
 */
import { matchTrack, type Fix, type MatchOptions } from '../route/match.js';
import { EngineError, invalidInput, toErrorRecord, type ErrorRecord } from '../core/errors.js';
import { latLonProblems } from '../core/geo.js';
import type { TaskEnv, TaskTypes } from '../core/executor.js';
import { SLICE_MS, throwIfAborted, Ticker } from '../core/cancel.js';
import { cmToMetres, msToSeconds } from '../core/units.js';
import type { ContractionHierarchy } from '../ch/index.js';
import { CchMetric, CchQuery, type CchSeed } from '../ch/cch.js';
import { Dijkstra } from '../graph/dijkstra.js';
import { buildCsr, type Csr } from '../graph/formats/arcs.js';
import type { Snap } from '../graph/snap.js';
import { describeAddress } from '../geocode/search.js';
import { computeMatrix, UNREACHABLE, type EndpointEntries } from '../matrix/index.js';
import { routeGeometry } from '../route/geometry.js';
import { buildItinerary } from '../route/maneuvers.js';
import { blockedArcs as blockedArcsOf, type Zone } from '../route/zones.js';
import { Router, type PointToPoint } from '../route/router.js';
import {
  ROUNDED_UNREACHABLE,
  type DirectionsRequest, type MatrixRequestOptions, type PlaceOptions, type PlaceQuery, type Placement, type RoundedMatrix, type RoundedMatrixOptions, type RoutePath, type TravelMatrix, type TravelProfile, type TravelProvider,
} from '../route/travel.js';
import { Dataset, SECTION } from './dataset.js';

/** Queries per `dataset-place` task. */
const PLACE_CHUNK = 128;
/** Batches of coordinates up to this size are placed in the calling thread (about 1 ms). */
const PLACE_INLINE_MAX = 32;
/** Cells rounded between two looks at the signal ({@link DatasetTravel.matrixRounded}). */
const ROUND_PIECE = 1 << 22;
/** Queries between two looks at the signal when a large batch is placed in one thread (a few ms: reverse geocoding included). */
const PLACE_SLICE_CHUNK = 32;

export interface DatasetPlaceTask {
  datasetKey: string;
  snapRadiusM: number;
  queries: PlaceQuery[];
  paths: string[];
  reverseWithinM?: number;
}

type PlaceOutcome = Placement | { error: ErrorRecord };

export interface DatasetMatrixAvoidTask {
  datasetKey: string;
  snapRadiusM: number;
  places: Placement[];
  blocked: Uint8Array;
  metric: 'time' | 'distance';
  /** Rows [from, to). */
  from: number;
  to: number;
}

/** Restricted matrices with at least this many sources are split over the executor's threads. */
const AVOID_PARALLEL_MIN = 32;
/**
 * From this many places a restricted matrix uses the customizable hierarchy: one customization
 * (≈ 100 ms on Porto, once per blocked set) beats that many Dijkstras (≈ 6 ms each).
 */
const CCH_MIN = 16;

declare module '../core/executor.js' {
  interface TaskMap {
    'dataset-place': TaskTypes<DatasetPlaceTask, PlaceOutcome[]>;
    'dataset-matrix-avoid': TaskTypes<DatasetMatrixAvoidTask, { timeS: Float64Array; distanceM: Float64Array }>;
  }
}

export class DatasetTravel implements TravelProvider {
  private readonly router: Router;
  private readonly blockedCsr = new WeakMap<Uint8Array, { time: Csr; distance: Csr }>();

  constructor(readonly dataset: Dataset, readonly opts: { datasetKey?: string } = {}) {
    this.router = new Router(dataset.graph, dataset.snapper, dataset.chTime, () => dataset.chDist);
  }

  place(q: PlaceQuery, path: string): Placement {
    const ds = this.dataset;
    if ('address' in q) {
      const geocoder = ds.geocoder;
      if (!geocoder) throw new EngineError('Unsupported', `${path}: has only an Address and this dataset has no geocoder index; give LatLong.`, { path: `${path}.Address` });
      const [best] = geocoder.search(q.address, { limit: 1 });
      if (!best || best.matchCode === 'None') {
        throw new EngineError('InvalidInput', `${path}.Address: not found (${describeAddress(q.address)}).`, { path: `${path}.Address` });
      }
      const snap = ds.snapper.snap(best.lat, best.lon, { path: `${path}.Address` });
      return { snap, matchCode: best.matchCode, lat: best.lat, lon: best.lon, geocoded: true };
    }
    const { lat, lon } = q;
    const [bad] = latLonProblems(lat, lon);
    if (bad) throw invalidInput(`${path}.LatLong.${bad.field === 'lat' ? 'Latitude' : 'Longitude'}`, `must be between -${bad.field === 'lat' ? 90 : 180} and ${bad.field === 'lat' ? 90 : 180} (got ${bad.value})`);
    const snap = ds.snapper.snap(lat, lon, { path: `${path}.LatLong` });
    return { snap, matchCode: 'Exact', lat, lon, geocoded: false };
  }

  matchTrack(fixes: readonly Fix[], opts: MatchOptions = {}): (Placement | null)[] {
    return matchTrack(this.dataset.snapper, this.router, fixes, opts).map((m, i) => (m.snap === null ? null : { snap: m.snap, matchCode: 'Exact', lat: fixes[i].lat, lon: fixes[i].lon, geocoded: false }));
  }

  /** Places queries in this thread (what each `dataset-place` task runs). */
  placeHere(qs: readonly PlaceQuery[], paths: readonly string[] | undefined, reverseWithinM?: number): PlaceOutcome[] {
    const geocoder = this.dataset.geocoder;
    return qs.map((q, i) => {
      try {
        const p = this.place(q, paths?.[i] ?? `[${i}]`);
        if (reverseWithinM !== undefined && geocoder && !p.geocoded) {
          const r = geocoder.reverse(p.lat, p.lon, { maxDistance: reverseWithinM });
          if (r) p.address = r.address;
        }
        return p;
      } catch (e) {
        return { error: toErrorRecord(e) };
      }
    });
  }

  async placeMany(qs: readonly PlaceQuery[], opts: PlaceOptions = {}): Promise<PlaceOutcome[]> {
    const ex = opts.executor;
    const heavy = qs.length > PLACE_INLINE_MAX || qs.some((q) => 'address' in q);
    if (!heavy) return this.placeHere(qs, opts.paths, opts.reverseWithinM);
    if (!ex || !ex.offThread) return this.placeSliced(qs, opts);
    const parts: Promise<PlaceOutcome[]>[] = [];
    let done = 0;
    for (let i = 0; i < qs.length; i += PLACE_CHUNK) {
      const queries = qs.slice(i, i + PLACE_CHUNK);
      const paths = queries.map((_, k) => opts.paths?.[i + k] ?? `[${i + k}]`);
      parts.push(ex.run('dataset-place', {
        datasetKey: this.opts.datasetKey ?? 'dataset', snapRadiusM: this.dataset.snapper.radiusM,
        queries, paths, reverseWithinM: opts.reverseWithinM,
      }, { signal: opts.signal }).then((r) => {
        done += queries.length;
        opts.onProgress?.({ phase: 'place', done, total: qs.length });
        return r;
      }));
    }
    return (await Promise.all(parts)).flat();
  }

  /**
   * A large batch placed in this thread (no executor, or inside a task: a dispatch's prepare),
   * chunk by chunk: the signal is read before each chunk (a cancelled 10,000-stop placement stops
   * within one chunk, milliseconds, not after the whole batch's seconds), the thread is handed back
   * between slices (core/cancel.ts Ticker) and progress is reported. The same outcomes as one call.
   */
  private async placeSliced(qs: readonly PlaceQuery[], opts: PlaceOptions): Promise<PlaceOutcome[]> {
    const out: PlaceOutcome[] = [];
    const ticker = new Ticker(SLICE_MS, opts.signal);
    for (let i = 0; i < qs.length; i += PLACE_SLICE_CHUNK) {
      throwIfAborted(opts.signal);
      const part = qs.slice(i, i + PLACE_SLICE_CHUNK);
      const paths = part.map((_, k) => opts.paths?.[i + k] ?? `[${i + k}]`);
      for (const o of this.placeHere(part, paths, opts.reverseWithinM)) out.push(o);
      opts.onProgress?.({ phase: 'place', done: out.length, total: qs.length });
      await ticker.tick();
    }
    return out;
  }

  route(from: Placement, to: Placement, profile: TravelProfile, withPath = false): PointToPoint {
    const r = profile.blockedArcs
      ? this.routeAvoiding(from.snap, to.snap, profile, withPath)
      : this.router.route(from.snap, to.snap, profile.metric, withPath);
    if (r.found && profile.speedMps) r.timeMs = constantSpeedMs(r.lengthCm, profile.speedMps);
    return r;
  }

  routePath(from: Placement, to: Placement, profile: TravelProfile, directions?: DirectionsRequest): RoutePath {
    const r = this.route(from, to, profile, true);
    if (!r.found) return { found: false, timeMs: Infinity, lengthCm: Infinity, lat: new Float64Array(0), lon: new Float64Array(0) };
    const g = routeGeometry(this.dataset.graph, from.snap, r.arcs ?? [], to.snap, { metric: profile.metric });
    const out: RoutePath = { found: true, timeMs: r.timeMs, lengthCm: r.lengthCm, lat: g.lat, lon: g.lon };
    if (directions) {
      // The geometry's own costs are the path's; scale stretch times to a constant speed when the profile has one.
      if (profile.speedMps) {
        g.timeMs = r.timeMs;
        for (const p of g.pieces) p.timeMs = constantSpeedMs(p.lengthCm, profile.speedMps);
      }
      out.steps = buildItinerary(this.dataset.graph, g, from.snap, to.snap, { ...directions, landmarks: this.dataset.landmarks });
    }
    return out;
  }

  blockedArcs(zones: readonly Zone[]): Uint8Array {
    return blockedArcsOf(this.dataset.graph, zones);
  }

  async matrix(places: readonly Placement[], profile: TravelProfile, opts: MatrixRequestOptions = {}): Promise<TravelMatrix> {
    const m = profile.blockedArcs
      ? await this.matrixAvoiding(places, profile, opts)
      : await this.matrixOnHierarchy(places, profile, opts);
    addSameEdgeDrives(this.dataset, places, m, profile);
    const n = places.length;
    for (let i = 0; i < n; i++) {
      m.timeS[i * n + i] = 0;
      m.distanceM[i * n + i] = 0;
    }
    if (profile.speedMps) {
      for (let i = 0; i < n * n; i++) if (Number.isFinite(m.distanceM[i])) m.timeS[i] = m.distanceM[i] / profile.speedMps;
    }
    return m;
  }

  async matrixRounded(places: readonly Placement[], profile: TravelProfile, opts: RoundedMatrixOptions = {}): Promise<RoundedMatrix> {
    if (profile.blockedArcs || profile.speedMps) throw invalidInput('profile', 'matrixRounded takes neither blocked arcs nor a constant speed');
    const time = profile.metric === 'time';
    const withDistance = opts.distance ?? true;
    if (!withDistance && !time) throw invalidInput('opts.distance', 'a rounded matrix without distances is for the time metric only');
    const n = places.length;
    const ch: ContractionHierarchy = time ? this.dataset.chTime : this.dataset.chDist;
    // The hierarchy's output goes straight into shared buffers, then becomes seconds and metres in
    // place: no other n² array is allocated (first-touching fresh memory costs seconds per GB).
    const a = new Uint32Array(new SharedArrayBuffer(n * n * 4));
    const b = withDistance ? new Uint32Array(new SharedArrayBuffer(n * n * 4)) : null;
    await computeMatrix(ch, entries(places, 'source', time), entries(places, 'target', time), {
      withAux: withDistance, signal: opts.signal, onProgress: opts.onProgress, maxMatrixBytes: opts.maxMatrixBytes,
      executor: opts.executor, inThreadMaxCells: opts.inThreadMaxCells, prefix: time ? SECTION.chTime : SECTION.chDist, datasetKey: this.opts.datasetKey ?? 'dataset',
      out: b ? { cost: a, aux: b } : { cost: a },
    });
    throwIfAborted(opts.signal);
    const ms = time ? a : b!, cm = time ? b : a;
    sameEdgeDrives(this.dataset, places, profile, (k, d) => {
      if ((time ? d.timeMs : d.lengthCm) <= (time ? ms[k] : cm![k])) { ms[k] = d.timeMs; if (cm) cm[k] = d.lengthCm; }
    });
    for (let i = 0; i < n; i++) { ms[i * n + i] = 0; if (cm) cm[i * n + i] = 0; }
    const timeI = new Int32Array(ms.buffer), distI = cm ? new Int32Array(cm.buffer) : null;
    // in pieces (10⁸ cells at 10,000 places take a few hundred ms): the signal is read between them
    for (let from = 0; from < n * n; from += ROUND_PIECE) {
      if (from > 0) {
        await new Promise<void>((r) => setImmediate(r));
        throwIfAborted(opts.signal);
      }
      const to = Math.min(n * n, from + ROUND_PIECE);
      if (cm) roundInPlace(ms, cm, time ? ms : cm, timeI, distI!, from, to);
      else roundTimeInPlace(ms, timeI, from, to);
    }
    return { size: n, time: timeI, distance: distI };
  }

  /**
   * One leg as {@link matrixRounded} would give its cell: whole seconds and metres of the best
   * path under the profile (the same path search and same-edge drives; where two paths tie on the
   * metric, the length may be the other one's). {@link ROUNDED_UNREACHABLE} when there is none.
   */
  legRounded(from: Placement, to: Placement, profile: TravelProfile): { time: number; distance: number } {
    const r = this.route(from, to, profile);
    if (!r.found) return { time: ROUNDED_UNREACHABLE, distance: ROUNDED_UNREACHABLE };
    return { time: Math.min(ROUNDED_UNREACHABLE, Math.round(r.timeMs / 1000)), distance: Math.min(ROUNDED_UNREACHABLE, Math.round(r.lengthCm / 100)) };
  }

  /** CH many-to-many (tiles on the executor past a small size). */
  private async matrixOnHierarchy(places: readonly Placement[], profile: TravelProfile, opts: MatrixRequestOptions): Promise<TravelMatrix> {
    const time = profile.metric === 'time';
    const n = places.length;
    const ch: ContractionHierarchy = time ? this.dataset.chTime : this.dataset.chDist;
    const m = await computeMatrix(ch, entries(places, 'source', time), entries(places, 'target', time), {
      withAux: true,
      signal: opts.signal,
      onProgress: opts.onProgress,
      maxMatrixBytes: opts.maxMatrixBytes,
      executor: opts.executor,
      inThreadMaxCells: opts.inThreadMaxCells,
      prefix: time ? SECTION.chTime : SECTION.chDist,
      datasetKey: this.opts.datasetKey ?? 'dataset',
    });
    const timeS = new Float64Array(n * n);
    const distanceM = new Float64Array(n * n);
    if (time) unitsOf(m.cost, m.aux!, timeS, distanceM);
    else unitsOf(m.aux!, m.cost, timeS, distanceM, m.cost);
    return { size: n, timeS, distanceM };
  }

  /** The road graph without the blocked arcs, per metric (cached per blocked set); arc ids stay the road graph's. */
  private csrAvoiding(blocked: Uint8Array): { time: Csr; distance: Csr } {
    let c = this.blockedCsr.get(blocked);
    if (c) return c;
    const g = this.dataset.graph;
    if (blocked.length !== g.numArcs) throw invalidInput('profile.blockedArcs', `must have one entry per arc (${g.numArcs}, got ${blocked.length})`);
    let m = 0;
    for (let a = 0; a < g.numArcs; a++) if (blocked[a] === 0) m++;
    const arcs = new Uint32Array(m);
    for (let a = 0, k = 0; a < g.numArcs; a++) if (blocked[a] === 0) arcs[k++] = a;
    const base = { numNodes: g.numNodes, tail: g.tail, head: g.head };
    c = {
      time: buildCsr({ ...base, weight: g.timeMs, aux: g.lengthCm }, { arcs }),
      distance: buildCsr({ ...base, weight: g.lengthCm, aux: g.timeMs }, { arcs }),
    };
    this.blockedCsr.set(blocked, c);
    return c;
  }

  private routeAvoiding(from: Snap, to: Snap, profile: TravelProfile, withPath: boolean): PointToPoint {
    const blocked = profile.blockedArcs!;
    const time = profile.metric === 'time';
    const d = this.avoidingDijkstra(blocked, time);
    const best = bestThrough(d.reset(), from, to, blocked, time);
    const direct = this.dataset.snapper.sameArcDirect(from, to);
    if (direct && !blocked[direct.arc]) {
      const cost = time ? direct.timeMs : direct.lengthCm;
      if (cost <= best.cost) return { found: true, timeMs: direct.timeMs, lengthCm: direct.lengthCm, ...(withPath ? { arcs: [] } : {}) };
    }
    if (!Number.isFinite(best.cost)) return { found: false, timeMs: Infinity, lengthCm: Infinity };
    const r: PointToPoint = { found: true, timeMs: time ? best.cost : best.aux, lengthCm: time ? best.aux : best.cost };
    if (withPath) r.arcs = d.arcPath(best.node);
    return r;
  }

  /**
   * One Dijkstra per source on the graph without the blocked arcs. Past {@link AVOID_PARALLEL_MIN}
   * sources and with an executor that works off this thread, the rows are split over its threads
   * (task `dataset-matrix-avoid`); otherwise they run here, yielding between rows.
   */
  private async matrixAvoiding(places: readonly Placement[], profile: TravelProfile, opts: MatrixRequestOptions): Promise<TravelMatrix> {
    const blocked = profile.blockedArcs!;
    const n = places.length;
    if (this.dataset.cch && n >= CCH_MIN && opts.restricted !== 'dijkstra') return this.matrixAvoidingCch(places, blocked, profile.metric === 'time');
    const ex = opts.executor;
    const timeS = new Float64Array(n * n).fill(Infinity);
    const distanceM = new Float64Array(n * n).fill(Infinity);
    if (ex && ex.offThread && n >= AVOID_PARALLEL_MIN) {
      const parts = Math.max(1, Math.min(ex.threads, Math.ceil(n / 16)));
      const step = Math.ceil(n / parts);
      let done = 0;
      await Promise.all(Array.from({ length: parts }, (_, k) => {
        const from = k * step, to = Math.min(n, from + step);
        return ex.run('dataset-matrix-avoid', {
          datasetKey: this.opts.datasetKey ?? 'dataset', snapRadiusM: this.dataset.snapper.radiusM,
          places: places as Placement[], blocked, metric: profile.metric, from, to,
        }, { signal: opts.signal }).then((r) => {
          timeS.set(r.timeS, from * n);
          distanceM.set(r.distanceM, from * n);
          done += to - from;
          opts.onProgress?.({ phase: 'matrix', done, total: n });
        });
      }));
      return { size: n, timeS, distanceM };
    }
    for (let i = 0; i < n; i++) {
      this.avoidingRow(places, blocked, profile.metric === 'time', i, timeS, distanceM, i * n);
      opts.onProgress?.({ phase: 'matrix', done: i + 1, total: n });
      if ((i & 7) === 7) {
        await new Promise<void>((r) => setImmediate(r));
        throwIfAborted(opts.signal);
      }
    }
    return { size: n, timeS, distanceM };
  }

  /**
   * The restricted matrix on the customizable hierarchy: one customization per blocked set and
   * metric (cached), then elimination-tree searches with buckets. Equal to the per-source
   * Dijkstra (tested); ties in the metric are broken by the smaller aux.
   */
  private matrixAvoidingCch(places: readonly Placement[], blocked: Uint8Array, time: boolean): TravelMatrix {
    const n = places.length;
    if (blocked.length !== this.dataset.graph.numArcs) throw invalidInput('profile.blockedArcs', `must have one entry per arc (${this.dataset.graph.numArcs}, got ${blocked.length})`);
    const q = this.cchQuery(blocked, time);
    const seeds = (i: number, target: boolean): CchSeed[] => {
      const snap = places[i].snap;
      const out: CchSeed[] = [];
      for (const e of target ? snap.targetEntries : snap.sourceEntries) {
        if (drivesBlocked(snap, e.arc, blocked)) continue;
        out.push({ node: e.node, cost: time ? e.timeMs : e.lengthCm, aux: time ? e.lengthCm : e.timeMs });
      }
      return out;
    };
    const src = places.map((_, i) => seeds(i, false));
    const dst = places.map((_, i) => seeds(i, true));
    // milliseconds and centimetres (Infinity where unreachable) straight into the result, then scaled in place
    const timeS = new Float64Array(n * n), distanceM = new Float64Array(n * n);
    q.manyToMany(src, dst, time ? timeS : distanceM, time ? distanceM : timeS);
    for (let i = 0; i < n * n; i++) { timeS[i] = msToSeconds(timeS[i]); distanceM[i] = cmToMetres(distanceM[i]); }
    return { size: n, timeS, distanceM };
  }

  private readonly cchQueries = new WeakMap<Uint8Array, { time?: CchQuery; distance?: CchQuery }>();
  /** A query over the hierarchy customized for `blocked` and the metric (one per blocked set and metric). */
  private cchQuery(blocked: Uint8Array, time: boolean): CchQuery {
    let e = this.cchQueries.get(blocked);
    if (!e) this.cchQueries.set(blocked, (e = {}));
    const key = time ? 'time' : 'distance';
    const g = this.dataset.graph;
    return (e[key] ??= new CchQuery(new CchMetric(this.dataset.cch!).customize(time ? g.timeMs : g.lengthCm, time ? g.lengthCm : g.timeMs, blocked)));
  }

  /** Row i of the restricted matrix into `timeS`/`distanceM` at `offset` (unreached cells stay as they are). */
  avoidingRow(places: readonly Placement[], blocked: Uint8Array, time: boolean, i: number, timeS: Float64Array, distanceM: Float64Array, offset: number): void {
    const n = places.length;
    const d = this.avoidingDijkstra(blocked, time);
    d.reset();
    let any = false;
    for (const e of places[i].snap.sourceEntries) {
      if (drivesBlocked(places[i].snap, e.arc, blocked)) continue;
      d.addSource(e.node, time ? e.timeMs : e.lengthCm, time ? e.lengthCm : e.timeMs);
      any = true;
    }
    if (!any) return;
    d.run();
    for (let j = 0; j < n; j++) {
      let best = Infinity, bestAux = Infinity;
      for (const e of places[j].snap.targetEntries) {
        if (drivesBlocked(places[j].snap, e.arc, blocked)) continue;
        const c = d.distance(e.node) + (time ? e.timeMs : e.lengthCm);
        if (c < best) { best = c; bestAux = d.aux(e.node) + (time ? e.lengthCm : e.timeMs); }
      }
      if (!Number.isFinite(best)) continue;
      timeS[offset + j] = msToSeconds(time ? best : bestAux);
      distanceM[offset + j] = cmToMetres(time ? bestAux : best);
    }
  }

  private readonly dijkstras = new WeakMap<Uint8Array, { time?: Dijkstra; distance?: Dijkstra }>();
  /** A reusable Dijkstra over the graph without `blocked` (one per blocked set and metric). */
  private avoidingDijkstra(blocked: Uint8Array, time: boolean): Dijkstra {
    let e = this.dijkstras.get(blocked);
    if (!e) this.dijkstras.set(blocked, (e = {}));
    const key = time ? 'time' : 'distance';
    return (e[key] ??= new Dijkstra(this.csrAvoiding(blocked)[key]));
  }
}

/**
 * Milliseconds and centimetres of a hierarchy's matrix into seconds and metres (Infinity where
 * `cost`, the metric's own array, is unreachable). A plain function over typed arrays, so that the
 * loop is optimised on its own (inside the async caller it ran ~40× slower on 10⁸ cells).
 */
function unitsOf(ms: Uint32Array, cm: Uint32Array, timeS: Float64Array, distanceM: Float64Array, cost: Uint32Array = ms): void {
  for (let i = 0; i < cost.length; i++) {
    if (cost[i] === UNREACHABLE) { timeS[i] = Infinity; distanceM[i] = Infinity; continue; }
    timeS[i] = ms[i] / 1000;
    distanceM[i] = cm[i] / 100;
  }
}

/** Whether an entry drives part of a blocked arc (an entry at a node drives nothing). */
function drivesBlocked(snap: Snap, arc: number, blocked: Uint8Array): boolean {
  return !snap.atNode && arc >= 0 && blocked[arc] !== 0;
}

/** Cost and aux of the best path from `from`'s source entries to `to`'s target entries. */
function bestThrough(d: Dijkstra, from: Snap, to: Snap, blocked: Uint8Array, time: boolean): { cost: number; aux: number; node: number } {
  for (const e of from.sourceEntries) {
    if (drivesBlocked(from, e.arc, blocked)) continue;
    d.addSource(e.node, time ? e.timeMs : e.lengthCm, time ? e.lengthCm : e.timeMs);
  }
  d.run();
  let cost = Infinity, aux = Infinity, node = -1;
  for (const e of to.targetEntries) {
    if (drivesBlocked(to, e.arc, blocked)) continue;
    const c = d.distance(e.node) + (time ? e.timeMs : e.lengthCm);
    if (c < cost) { cost = c; aux = d.aux(e.node) + (time ? e.lengthCm : e.timeMs); node = e.node; }
  }
  return { cost, aux, node };
}

/** A drive within one edge can beat the paths through its end nodes: `visit(cell, drive)` for each such pair. */
function sameEdgeDrives(ds: Dataset, places: readonly Placement[], profile: TravelProfile, visit: (cell: number, d: { timeMs: number; lengthCm: number }) => void): void {
  const n = places.length;
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
        const d = ds.snapper.sameArcDirect(places[i].snap, places[j].snap);
        if (!d || (profile.blockedArcs && profile.blockedArcs[d.arc])) continue;
        visit(i * n + j, d);
      }
    }
  }
}

function addSameEdgeDrives(ds: Dataset, places: readonly Placement[], m: TravelMatrix, profile: TravelProfile): void {
  const time = profile.metric === 'time';
  sameEdgeDrives(ds, places, profile, (k, d) => {
    const cur = time ? m.timeS[k] * 1000 : m.distanceM[k] * 100;
    if ((time ? d.timeMs : d.lengthCm) <= cur) {
      m.timeS[k] = msToSeconds(d.timeMs);
      m.distanceM[k] = cmToMetres(d.lengthCm);
    }
  });
}

/** Milliseconds / centimetres → whole seconds / metres in the same buffers, cells [from, to) (`cost` = the metric's own array decides unreachability). */
function roundInPlace(ms: Uint32Array, cm: Uint32Array, cost: Uint32Array, timeI: Int32Array, distI: Int32Array, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    if (cost[i] === UNREACHABLE) { timeI[i] = ROUNDED_UNREACHABLE; distI[i] = ROUNDED_UNREACHABLE; continue; }
    const t = Math.round(ms[i] / 1000), d = Math.round(cm[i] / 100);
    timeI[i] = t < ROUNDED_UNREACHABLE ? t : ROUNDED_UNREACHABLE;
    distI[i] = d < ROUNDED_UNREACHABLE ? d : ROUNDED_UNREACHABLE;
  }
}

/** Milliseconds → whole seconds in the same buffer, cells [from, to). */
function roundTimeInPlace(ms: Uint32Array, timeI: Int32Array, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    if (ms[i] === UNREACHABLE) { timeI[i] = ROUNDED_UNREACHABLE; continue; }
    const t = Math.round(ms[i] / 1000);
    timeI[i] = t < ROUNDED_UNREACHABLE ? t : ROUNDED_UNREACHABLE;
  }
}

/** The snaps' entries as matrix endpoints under a metric. */
function entries(places: readonly Placement[], side: 'source' | 'target', time: boolean): EndpointEntries {
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

function constantSpeedMs(lengthCm: number, speedMps: number): number {
  return (cmToMetres(lengthCm) / speedMps) * 1000;
}


// ---- the executor task -------------------------------------------------------------------------

let cached: { buffer: unknown; radius: number; travel: DatasetTravel } | null = null;

/**
 * The travel provider over the dataset an executor shares (`env.shared[datasetKey]`), opened
 * once per thread and snapping radius (zero-copy; the buffer is verified once per thread).
 */
export function travelInThread(env: TaskEnv, datasetKey: string, snapRadiusM: number): DatasetTravel {
  const buffer = env.shared[datasetKey] as ArrayBufferLike | undefined;
  if (!buffer) throw new EngineError('Internal', `The executor shares no "${datasetKey}" buffer.`);
  if (!cached || cached.buffer !== buffer || cached.radius !== snapRadiusM) {
    cached = { buffer, radius: snapRadiusM, travel: new DatasetTravel(Dataset.fromBuffer(buffer, { snapRadiusM }), { datasetKey }) };
  }
  return cached.travel;
}

/** Rows [from, to) of a restricted matrix, in a worker thread. */
export function datasetMatrixAvoidTask(t: DatasetMatrixAvoidTask, env: TaskEnv): { timeS: Float64Array; distanceM: Float64Array } {
  const travel = travelInThread(env, t.datasetKey, t.snapRadiusM);
  const n = t.places.length;
  const rows = t.to - t.from;
  const timeS = new Float64Array(rows * n).fill(Infinity);
  const distanceM = new Float64Array(rows * n).fill(Infinity);
  for (let i = t.from; i < t.to; i++) travel.avoidingRow(t.places, t.blocked, t.metric === 'time', i, timeS, distanceM, (i - t.from) * n);
  return { timeS, distanceM };
}

export function datasetPlaceTask(t: DatasetPlaceTask, env: TaskEnv): PlaceOutcome[] {
  return travelInThread(env, t.datasetKey, t.snapRadiusM).placeHere(t.queries, t.paths, t.reverseWithinM);
}
