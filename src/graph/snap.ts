/**
 * Snapping a coordinate onto the road graph: the nearest point on the nearest road *segment*
 * (true point-to-segment distance in a local flat projection around the query point), with the
 * routing entries that respect the road's driving directions.
 *
 * The spatial index is a Flatbush R-tree over every edge's polyline in chunks of up to
 * {@link SNAP_CHUNK} consecutive segments (one item per chunk, each undirected edge once; most
 * edges are one chunk): about a third of the items of one per segment, for the same answers — the
 * leaves are measured segment by segment on the Float64 geometry. Its buffer persists as its own
 * section (`s.rtree`), so loading does not rebuild it. The nearest-segment search is a best-first
 * walk over the R-tree's own arrays with exact segment distances at the leaves, kept hand-written:
 * Flatbush's `neighbors` orders by box distance in degrees, and made exact (growing k until the
 * k-th box is past the best segment) it takes longer (bench/README.md, "Spatial indexes").
 */
import Flatbush from 'flatbush';
import { EngineError } from '../core/errors.js';
import { haversine, isValidLatLon, latLonProblems, metresPerDegree } from '../core/geo.js';
import { f32Down, f32Up, flatbushView, heapFill, heapPush, indexBytes, levelEnd, polylineBox } from '../core/spatial.js';
import type { BinFile, BinWriter } from '../core/binfile.js';
import type { RoadGraph } from './road-graph.js';
import { EdgeFlag } from '../osm/car-profile.js';

/** A graph node reachable from (or reaching) a snapped point, with the partial arc cost. */
export interface RouteEntry {
  node: number;
  timeMs: number;
  lengthCm: number;
  /**
   * The arc whose part is driven (source: from the point to `node`; target: from `node` to the
   * point). For a point on a graph node ({@link Snap.atNode}) nothing is driven: the arc is one
   * arriving at `node` (source) or leaving it (target), on any edge there, or -1 when there is
   * none.
   */
  arc: number;
}

export interface Snap {
  /** The query point. */
  queryLat: number;
  queryLon: number;
  /** The snapped point on the road. */
  lat: number;
  lon: number;
  /** Distance from the query point to the snapped point, metres. */
  distanceM: number;
  /** Undirected edge holding the point. */
  edge: number;
  /** Segment of the edge's polyline (points k, k+1) and the position t ∈ [0, 1] on it. */
  segment: number;
  segmentT: number;
  /** Position along the edge's polyline by length, ∈ [0, 1]. Along `bwdArc` it is 1 - fraction. */
  fraction: number;
  /** An arc driving along the polyline / against it, or -1 when that direction is not allowed. */
  fwdArc: number;
  bwdArc: number;
  /**
   * The point is the graph node at an end of the edge (within {@link NODE_TOLERANCE_M}; `fraction`
   * is then exactly 0 or 1 and `lat`/`lon` are the node's). Every entry is then that node or a
   * turn-restriction copy of it, at zero cost, and drives nothing of its `arc`: a filter on the
   * entries' arcs (blocked arcs) must not drop them.
   */
  atNode: boolean;
  /**
   * Nodes reachable by driving from the point along its edge in the allowed directions. When the
   * point is on a node ({@link atNode}), these are instead the node and its turn-restriction
   * copies that have a leaving arc, all at zero cost.
   */
  sourceEntries: RouteEntry[];
  /**
   * Nodes from which the point is reached by driving along its edge. On a node ({@link atNode}):
   * the node and every restriction copy of it that has an arriving arc, at zero cost.
   */
  targetEntries: RouteEntry[];
}

export interface SnapOptions {
  /** Search radius in metres (default {@link DEFAULT_SNAP_RADIUS_M}). */
  radiusM?: number;
  /** Field path named in errors (e.g. `Locations[2].LatLong`). */
  path?: string;
  /**
   * Open roads first (default true): when the nearest road is covered (a tunnel, a covered way,
   * below ground: EdgeFlag.Covered), the nearest open road is taken instead if it is at most
   * {@link SURFACE_MARGIN_M} farther. false: the nearest road, whatever it is.
   */
  surfaceFirst?: boolean;
  /** The margin of {@link surfaceFirst} (default {@link SURFACE_MARGIN_M}). */
  surfaceMarginM?: number;
}

/**
 * How much farther an open road may be than the nearest covered one and still be preferred
 * (metres). Decided from data (docs/road-graph.md, "Open roads first"): of points placed within
 * 60 m of a covered road whose nearest road is covered, 99 % in Monaco and Porto have an open
 * road at most 100 m farther; the page's depot on Monaco's Rock needs 76 m.
 */
export const SURFACE_MARGIN_M = 100;
/**
 * A point this close to a covered road (metres) is on it — coordinates taken from the road itself
 * (its OSM nodes, a junction): it stays there whatever is near.
 */
export const ON_ROAD_M = 1;

export const DEFAULT_SNAP_RADIUS_M = 1000;

const RAD = Math.PI / 180;
const M_PER_DEG = metresPerDegree(0).ky;

/** v2: items are chunks of up to {@link SNAP_CHUNK} segments (`s.chunkEdge`, `s.chunkPoint`), no longer single segments (`s.segEdge`). */
const SNAP_FORMAT = 2;

/**
 * Segments per item of the snapping R-tree, at most. One item per segment took 7.50 MiB on Porto
 * (292,836 segments), the largest part of the dataset a dispatch reads; chunks of 8 take 2.72 MiB
 * (92,558 items; issue #26 item 4; bench/README.md, "Spatial indexes").
 */
export const SNAP_CHUNK = 8;

/** Items of the snapping index over `E` edges with polylines `gs`, at most `K` segments each. */
function chunkCount(gs: Uint32Array, E: number, K: number): number {
  let c = 0;
  for (let e = 0; e < E; e++) c += Math.max(0, Math.ceil((gs[e + 1] - 1 - gs[e]) / K));
  return c;
}

/** A snapped point this close (metres along its edge) to an end of the edge's polyline is the graph node there. */
export const NODE_TOLERANCE_M = 1e-3;

export class Snapper {
  readonly index: Flatbush;
  /** Edge of each R-tree item (a chunk of consecutive segments of one edge's polyline). */
  readonly chunkEdge: Uint32Array;
  /** Geometry point where each item's first segment starts; its segments end at {@link chunkEnd}. */
  readonly chunkPoint: Uint32Array;
  private readonly boxes: Float32Array | Float64Array;
  private readonly indices: Uint16Array | Uint32Array;
  private readonly levelBounds: number[];
  private readonly nodeSize4: number;
  private readonly numItems4: number;
  private heapIds: Int32Array = new Int32Array(256);
  private heapKeys: Float64Array = new Float64Array(256);
  /** Default radius for {@link snap} when the call gives none. */
  radiusM: number;

  /** Segments per item at most ({@link SNAP_CHUNK} unless built otherwise). */
  readonly chunk: number;

  private constructor(readonly graph: RoadGraph, index: Flatbush, chunkEdge: Uint32Array, chunkPoint: Uint32Array, chunk: number, radiusM: number) {
    this.chunk = chunk;
    this.index = index;
    this.chunkEdge = chunkEdge;
    this.chunkPoint = chunkPoint;
    if (!(index._boxes instanceof Float32Array || index._boxes instanceof Float64Array)) throw new EngineError('DatasetFormat', 'Snap index must store Float32 or Float64 boxes.');
    this.boxes = index._boxes;
    this.indices = index._indices;
    this.levelBounds = index._levelBounds;
    this.nodeSize4 = index.nodeSize * 4;
    this.numItems4 = index.numItems * 4;
    this.radiusM = radiusM;
  }

  /**
   * Indexes every segment of every edge of the graph, in chunks of up to `chunk` ({@link SNAP_CHUNK})
   * consecutive segments of one edge.
   */
  static build(graph: RoadGraph, opts: { radiusM?: number; nodeSize?: number; float64?: boolean; chunk?: number } = {}): Snapper {
    const E = graph.numEdges;
    const gs = graph.edgeGeomStart;
    const K = opts.chunk ?? SNAP_CHUNK;
    if (!(Number.isInteger(K) && K >= 1)) throw new EngineError('InvalidInput', `The snap index's chunk must be a whole number of segments ≥ 1, got ${K}.`, { path: 'chunk' });
    const C = chunkCount(gs, E, K);
    if (C <= 0) throw new EngineError('InvalidInput', 'The road graph has no segments to snap to.');
    const chunkEdge = new Uint32Array(C);
    const chunkPoint = new Uint32Array(C);
    // Float32 boxes (half the bytes) rounded outwards, so box distances stay lower bounds and the
    // search stays exact: leaves are measured on the Float64 geometry.
    const f64 = opts.float64 === true;
    const fb = new Flatbush(C, opts.nodeSize ?? 8, f64 ? Float64Array : Float32Array);
    const la = graph.geomLat;
    const lo = graph.geomLon;
    const down = f64 ? (v: number) => v : f32Down;
    const up = f64 ? (v: number) => v : f32Up;
    let c = 0;
    for (let e = 0; e < E; e++) {
      const last = gs[e + 1] - 1;
      for (let p0 = gs[e]; p0 < last; p0 += K) {
        const [x0, y0, x1, y1] = polylineBox(la, lo, p0, Math.min(p0 + K, last));
        fb.add(down(x0), down(y0), up(x1), up(y1));
        chunkEdge[c] = e;
        chunkPoint[c++] = p0;
      }
    }
    fb.finish();
    return new Snapper(graph, fb, chunkEdge, chunkPoint, K, opts.radiusM ?? DEFAULT_SNAP_RADIUS_M);
  }

  /** The geometry point where item `c`'s last segment ends (its segments start at chunkPoint[c] … end - 1). */
  chunkEnd(c: number): number {
    const last = this.graph.edgeGeomStart[this.chunkEdge[c] + 1] - 1;
    const end = this.chunkPoint[c] + this.chunk;
    return end < last ? end : last;
  }

  toSections(w: BinWriter, prefix: string): void {
    w.add(`${prefix}meta`, new Float64Array([SNAP_FORMAT, this.radiusM, this.chunk]));
    w.add(`${prefix}chunkEdge`, this.chunkEdge);
    w.add(`${prefix}chunkPoint`, this.chunkPoint);
    w.add(`${prefix}rtree`, indexBytes(this.index)); // the R-tree's own bytes, wherever it lives
  }

  static fromSections(f: BinFile, prefix: string, graph: RoadGraph): Snapper {
    const meta = f.get(`${prefix}meta`, Float64Array);
    if (meta[0] !== SNAP_FORMAT) throw new EngineError('DatasetFormat', `Snap index format v${meta[0]}, expected v${SNAP_FORMAT}; rebuild the dataset.`);
    const K = meta[2];
    const chunkEdge = f.get(`${prefix}chunkEdge`, Uint32Array);
    const chunkPoint = f.get(`${prefix}chunkPoint`, Uint32Array);
    const index = flatbushView(f.get(`${prefix}rtree`, Uint8Array), 'Snap index R-tree');
    const bad = (): EngineError => new EngineError('DatasetFormat', 'Snap index does not match the road graph.');
    if (!(Number.isInteger(K) && K >= 1) || index.numItems !== chunkEdge.length || chunkPoint.length !== chunkEdge.length) throw bad();
    // each item a chunk of its edge's segments, in (edge, point) order, as many as build makes:
    // every segment is in exactly one item (a damaged array would send the search out of range)
    const gs = graph.edgeGeomStart;
    const E = graph.numEdges;
    if (chunkCount(gs, E, K) !== chunkEdge.length) throw bad();
    let prev = -1;
    for (let c = 0; c < chunkEdge.length; c++) {
      const e = chunkEdge[c], p = chunkPoint[c];
      if (e >= E || p < gs[e] || p >= gs[e + 1] - 1 || (p - gs[e]) % K !== 0 || p <= prev) throw bad();
      prev = p;
    }
    return new Snapper(graph, index, chunkEdge, chunkPoint, K, meta[1]);
  }

  /** Bounding box of the indexed roads (degrees). */
  bbox(): { minLat: number; minLon: number; maxLat: number; maxLon: number } {
    return { minLat: this.index.minY, minLon: this.index.minX, maxLat: this.index.maxY, maxLon: this.index.maxX };
  }

  /**
   * Snaps (lat, lon) to the nearest road within the radius. Throws `InvalidInput` for invalid
   * coordinates and `NoSegment` when no road is within the radius (the message names the
   * location and distance, and says when the coordinates look swapped).
   */
  snap(lat: number, lon: number, opts: SnapOptions = {}): Snap {
    const radiusM = opts.radiusM ?? this.radiusM;
    const s = this.trySnap(lat, lon, opts);
    if (s !== null) return s;
    throw this.noSegmentError(lat, lon, radiusM, opts.path);
  }

  /** As {@link snap}, but null when nothing is within the radius (invalid input still throws). */
  trySnap(lat: number, lon: number, opts: SnapOptions = {}): Snap | null {
    checkLatLon(lat, lon, opts.path);
    const radiusM = opts.radiusM ?? this.radiusM;
    if (!(radiusM > 0)) throw new EngineError('InvalidInput', `The snap radius must be a positive number of metres, got ${radiusM}.`, { path: 'radiusM' });
    const margin = opts.surfaceFirst === false ? -1 : opts.surfaceMarginM ?? SURFACE_MARGIN_M;
    const at = this.nearest(lat, lon, radiusM, margin);
    if (at < 0) return null;
    return this.makeSnap(lat, lon, this.lastEdge, at, this.lastT, Math.sqrt(this.lastD2));
  }

  /**
   * Every road within `radiusM` of (lat, lon), one snap per edge (its nearest point), nearest
   * first, at most `max` of them — the candidate positions of a GPS fix (route/match.ts). Covered
   * roads are candidates like any other: a vehicle in a tunnel is in the tunnel.
   */
  candidates(lat: number, lon: number, radiusM: number, max = 8): Snap[] {
    checkLatLon(lat, lon);
    const { kx, ky } = metresPerDegree(lat);
    const dLat = radiusM / ky, dLon = radiusM / kx;
    const hits = this.index.search(lon - dLon, lat - dLat, lon + dLon, lat + dLat);
    const la = this.graph.geomLat, lo = this.graph.geomLon;
    // per edge its nearest segment (by the point where it starts: the segments' order)
    const bestOf = new Map<number, { p: number; t: number; d2: number }>();
    const r2 = radiusM * radiusM;
    for (const c of hits) {
      const e = this.chunkEdge[c];
      for (let g = this.chunkPoint[c], end = this.chunkEnd(c); g < end; g++) {
        const ax = (lo[g] - lon) * kx, ay = (la[g] - lat) * ky;
        const ddx = (lo[g + 1] - lon) * kx - ax, ddy = (la[g + 1] - lat) * ky - ay;
        const len2 = ddx * ddx + ddy * ddy;
        let t = len2 > 0 ? -(ax * ddx + ay * ddy) / len2 : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        const x = ax + t * ddx, y = ay + t * ddy;
        const d2 = x * x + y * y;
        if (d2 > r2) continue;
        const had = bestOf.get(e);
        if (!had || d2 < had.d2 || (d2 === had.d2 && g < had.p)) bestOf.set(e, { p: g, t, d2 });
      }
    }
    const list = [...bestOf.entries()].sort((a, b) => a[1].d2 - b[1].d2 || a[1].p - b[1].p).slice(0, Math.max(0, max));
    return list.map(([e, c]) => this.makeSnap(lat, lon, e, c.p, c.t, Math.sqrt(c.d2)));
  }

  /** Distance in metres from (lat, lon) to the nearest segment (no radius), as the snap measures it. */
  nearestDistanceM(lat: number, lon: number): number {
    checkLatLon(lat, lon);
    return this.nearest(lat, lon, Infinity) < 0 ? Infinity : Math.sqrt(this.lastD2);
  }

  /**
   * Direct drive between two snaps on the same edge without leaving it, when the allowed
   * direction permits going from `from` to `to`; else null.
   */
  sameArcDirect(from: Snap, to: Snap): { timeMs: number; lengthCm: number; arc: number } | null {
    if (from.edge !== to.edge) return null;
    const g = this.graph;
    const df = to.fraction - from.fraction;
    if (from.fwdArc >= 0 && df >= 0) return { timeMs: Math.round(g.timeMs[from.fwdArc] * df), lengthCm: Math.round(g.lengthCm[from.fwdArc] * df), arc: from.fwdArc };
    if (from.bwdArc >= 0 && df <= 0) return { timeMs: Math.round(g.timeMs[from.bwdArc] * -df), lengthCm: Math.round(g.lengthCm[from.bwdArc] * -df), arc: from.bwdArc };
    return null;
  }

  // ---- internals ------------------------------------------------------------------------------

  private lastT = 0;
  private lastD2 = Infinity;
  private lastEdge = -1;

  /**
   * Best-first search; returns the nearest segment within radiusM, as the geometry point where it
   * starts (or -1); sets lastEdge/lastT/lastD2. Of segments at the same distance, the first in the
   * geometry's order. With `margin` ≥ 0, open roads first in the same pass: it
   * also keeps the nearest open segment and, when the nearest is covered (and more than
   * {@link ON_ROAD_M} away), returns the open one if it is at most `margin` farther — searching
   * only as far as that needs (the nearest open road when it is the nearest: a plain search).
   */
  private nearest(qlat: number, qlon: number, radiusM: number, margin = -1): number {
    const edgeFlags = this.graph.edgeFlags;
    const ky = M_PER_DEG;
    const kx = M_PER_DEG * Math.cos(qlat * RAD); // = core/geo metresPerDegree(qlat)
    const boxes = this.boxes;
    const indices = this.indices;
    const chunkEdge = this.chunkEdge;
    const chunkPoint = this.chunkPoint;
    const K = this.chunk;
    const gs = this.graph.edgeGeomStart;
    const la = this.graph.geomLat;
    const lo = this.graph.geomLon;
    const numItems4 = this.numItems4;
    const nodeSize4 = this.nodeSize4;
    const levelBounds = this.levelBounds;
    const cap2 = radiusM === Infinity ? Infinity : radiusM * radiusM;
    let bestD2 = cap2;
    let best = -1;
    let bestT = 0;
    let bestEdge = -1;
    // open roads first: the nearest open segment too, and the pruning bound the rule needs
    const dual = margin >= 0;
    const ON2 = ON_ROAD_M * ON_ROAD_M;
    let openD2 = cap2;
    let open = -1;
    let openT = 0;
    let openEdge = -1;
    let thr2 = cap2;
    let hn = 0;
    let ids = this.heapIds;
    let keys = this.heapKeys;
    // push root
    ids[0] = boxes.length - 4;
    keys[0] = 0;
    hn = 1;
    while (hn > 0) {
      // pop min
      const pos = ids[0];
      const d2top = keys[0];
      hn--;
      if (hn > 0) heapFill(ids, keys, hn);
      if (d2top > thr2) break;
      const isLeafLevel = pos < numItems4;
      const end = Math.min(pos + nodeSize4, levelEnd(levelBounds, pos));
      for (let p = pos; p < end; p += 4) {
        const minX = boxes[p], minY = boxes[p + 1], maxX = boxes[p + 2], maxY = boxes[p + 3];
        let dx = minX - qlon > qlon - maxX ? minX - qlon : qlon - maxX;
        if (dx < 0) dx = 0;
        let dy = minY - qlat > qlat - maxY ? minY - qlat : qlat - maxY;
        if (dy < 0) dy = 0;
        dx *= kx;
        dy *= ky;
        const bd2 = dx * dx + dy * dy;
        if (bd2 > thr2) continue;
        const child = indices[p >> 2];
        if (isLeafLevel) {
          // Exact distance to each segment of the chunk (same formula as core/geo projectOnSegment).
          const e = chunkEdge[child];
          const openRoad = (edgeFlags[e] & EdgeFlag.Covered) === 0;
          const g0 = chunkPoint[child];
          const last = gs[e + 1] - 1;
          const gEnd = g0 + K < last ? g0 + K : last;
          for (let g = g0; g < gEnd; g++) {
            const ax = (lo[g] - qlon) * kx;
            const ay = (la[g] - qlat) * ky;
            const ddx = (lo[g + 1] - qlon) * kx - ax;
            const ddy = (la[g + 1] - qlat) * ky - ay;
            const len2 = ddx * ddx + ddy * ddy;
            let t = len2 > 0 ? -(ax * ddx + ay * ddy) / len2 : 0;
            if (t < 0) t = 0;
            else if (t > 1) t = 1;
            const x = ax + t * ddx;
            const y = ay + t * ddy;
            const d2 = x * x + y * y;
            if (d2 < bestD2 || (d2 === bestD2 && g < best)) {
              bestD2 = d2;
              best = g;
              bestT = t;
              bestEdge = e;
            }
            if (!dual) thr2 = bestD2;
            else {
              if (openRoad && (d2 < openD2 || (d2 === openD2 && g < open))) {
                openD2 = d2;
                open = g;
                openT = t;
                openEdge = e;
              }
              // the nearest is open, or on its covered road: a plain search; else open ones up to margin farther
              if (best === open || bestD2 <= ON2 || (edgeFlags[bestEdge] & EdgeFlag.Covered) === 0) thr2 = bestD2;
              else { const r = Math.sqrt(bestD2) + margin; thr2 = Math.min(cap2, openD2, r * r); }
            }
          }
        } else {
          if (hn === ids.length) {
            const ni = new Int32Array(hn * 2); ni.set(ids); ids = this.heapIds = ni;
            const nk = new Float64Array(hn * 2); nk.set(keys); keys = this.heapKeys = nk;
          }
          heapPush(ids, keys, hn++, child, bd2);
        }
      }
    }
    if (dual && best >= 0 && open >= 0 && open !== best && bestD2 > ON2 && (edgeFlags[bestEdge] & EdgeFlag.Covered) !== 0
      && Math.sqrt(openD2) <= Math.sqrt(bestD2) + margin) {
      this.lastT = openT;
      this.lastD2 = openD2;
      this.lastEdge = openEdge;
      return open;
    }
    this.lastT = bestT;
    this.lastD2 = bestD2;
    this.lastEdge = bestEdge;
    return best;
  }

  /** The snap onto the segment of edge `e` starting at geometry point `p`, at position `t` along it. */
  private makeSnap(qlat: number, qlon: number, e: number, p: number, t: number, distanceM: number): Snap {
    const g = this.graph;
    const first = g.edgeGeomStart[e];
    const last = g.edgeGeomStart[e + 1] - 1;
    const la = g.geomLat;
    const lo = g.geomLon;
    let lat = la[p] + t * (la[p + 1] - la[p]);
    let lon = lo[p] + t * (lo[p + 1] - lo[p]);
    // Fraction by length along the polyline (haversine, as the arc lengths).
    let before = 0;
    for (let i = first; i < p; i++) before += haversine(la[i], lo[i], la[i + 1], lo[i + 1]);
    const segLen = haversine(la[p], lo[p], la[p + 1], lo[p + 1]);
    let total = before + segLen;
    for (let i = p + 1; i < last; i++) total += haversine(la[i], lo[i], la[i + 1], lo[i + 1]);
    const along = before + t * segLen;
    let fraction = total > 0 ? Math.min(1, Math.max(0, along / total)) : 0;
    let segment = p - first;
    let segmentT = t;
    // At an end of the polyline the point is the graph node there (a junction, a way's end).
    let atNode = -1;
    if (along <= NODE_TOLERANCE_M && along <= total - along) {
      atNode = first;
      fraction = 0;
      segment = 0;
      segmentT = 0;
    } else if (total - along <= NODE_TOLERANCE_M) {
      atNode = last;
      fraction = 1;
      segment = last - 1 - first;
      segmentT = 1;
    }
    if (atNode >= 0) {
      lat = la[atNode];
      lon = lo[atNode];
    }

    let fwdArc = -1;
    let bwdArc = -1;
    const sourceEntries: RouteEntry[] = [];
    const targetEntries: RouteEntry[] = [];
    const s0 = g.edgeArcStart[e];
    const s1 = g.edgeArcStart[e + 1];
    for (let i = s0; i < s1; i++) {
      const a = g.edgeArcs[i];
      if ((g.arcEdge[a] & 1) === 0) {
        if (fwdArc < 0) fwdArc = a;
      } else if (bwdArc < 0) bwdArc = a;
      if (atNode >= 0) continue;
      const T = g.timeMs[a];
      const L = g.lengthCm[a];
      if ((g.arcEdge[a] & 1) === 0) {
        if (fwdArc === a) sourceEntries.push({ node: g.head[a], timeMs: Math.round(T * (1 - fraction)), lengthCm: Math.round(L * (1 - fraction)), arc: a });
        targetEntries.push({ node: g.tail[a], timeMs: Math.round(T * fraction), lengthCm: Math.round(L * fraction), arc: a });
      } else {
        if (bwdArc === a) sourceEntries.push({ node: g.head[a], timeMs: Math.round(T * fraction), lengthCm: Math.round(L * fraction), arc: a });
        targetEntries.push({ node: g.tail[a], timeMs: Math.round(T * (1 - fraction)), lengthCm: Math.round(L * (1 - fraction)), arc: a });
      }
    }
    if (atNode >= 0) this.nodeEntries(e, atNode === last, sourceEntries, targetEntries);
    return {
      queryLat: qlat, queryLon: qlon, lat, lon, distanceM, edge: e, segment, segmentT, fraction,
      fwdArc, bwdArc, atNode: atNode >= 0, sourceEntries, targetEntries,
    };
  }

  /**
   * Entries of a point lying on the graph node at one end of edge `e` (`atEnd`: the polyline's
   * last point, else its first): every graph node of that OSM node — the node and its turn
   * restriction copies, which share its coordinates — at zero cost. The copies are found through
   * the edges meeting at the point: the R-tree gives every segment touching it, and the arcs of
   * the edges that start or end there have the copies as tails (arcs leaving) or heads (arcs
   * arriving).
   *
   * - Sources: every copy with an arc leaving it. A vehicle standing at the junction has arrived
   *   by no arc, so no restriction applies to it; the uncopied node carries every leaving arc, and
   *   a copy carries a subset of them (same edge, head and cost), so starting at the copies too
   *   adds nothing forbidden — and still works when the SCC step has removed the uncopied node
   *   (every arriving arc restricted, or a blocking barrier).
   * - Targets: every copy with an arc arriving at it: arriving at any copy is arriving at the point.
   *
   * Each entry's `arc` touches its node (source: an arc arriving at it, target: an arc leaving
   * it), on any of the edges there; nothing of it is driven. The lowest such arc id is taken.
   */
  private nodeEntries(e: number, atEnd: boolean, sourceEntries: RouteEntry[], targetEntries: RouteEntry[]): void {
    const g = this.graph;
    const la = g.geomLat;
    const lo = g.geomLon;
    const pt = atEnd ? g.edgeGeomStart[e + 1] - 1 : g.edgeGeomStart[e];
    const lat = la[pt];
    const lon = lo[pt];
    const a0 = g.edgeArcs[g.edgeArcStart[e]];
    const osmId = g.nodeOsmId[atEnd === ((g.arcEdge[a0] & 1) === 0) ? g.head[a0] : g.tail[a0]];
    this.atCount = 0;
    // Depth-first walk of the R-tree down every box holding the point (the heap arrays as stack).
    const boxes = this.boxes;
    const indices = this.indices;
    const levelBounds = this.levelBounds;
    const numItems4 = this.numItems4;
    let stack = this.heapIds;
    stack[0] = boxes.length - 4;
    let sn = 1;
    while (sn > 0) {
      const pos = stack[--sn];
      let levelEnd = 0;
      for (let k = 0; k < levelBounds.length; k++) if (levelBounds[k] > pos) { levelEnd = levelBounds[k]; break; }
      const end = Math.min(pos + this.nodeSize4, levelEnd);
      const leaf = pos < numItems4;
      for (let b = pos; b < end; b += 4) {
        if (lon < boxes[b] || lat < boxes[b + 1] || lon > boxes[b + 2] || lat > boxes[b + 3]) continue;
        const child = indices[b >> 2];
        if (!leaf) {
          if (sn === stack.length) {
            const ni = new Int32Array(sn * 2); ni.set(stack); stack = this.heapIds = ni;
            this.heapKeys = new Float64Array(sn * 2);
          }
          stack[sn++] = child;
          continue;
        }
        // the chunk's first segment may start at the point, its last end there
        const ed = this.chunkEdge[child];
        const p0 = this.chunkPoint[child];
        if (p0 === g.edgeGeomStart[ed]) this.touchNode(ed, p0, lat, lon, osmId);
        const pEnd = this.chunkEnd(child);
        if (pEnd === g.edgeGeomStart[ed + 1] - 1) this.touchNode(ed, pEnd - 1, lat, lon, osmId);
      }
    }
    // In node order (the walk's order depends on the index layout); a junction has few copies.
    const nodes = this.atNodes;
    const inArc = this.atIn;
    const outArc = this.atOut;
    const n = this.atCount;
    for (let r = 0; r < n; r++) {
      let k = -1;
      for (let i = 0; i < n; i++) if (nodes[i] >= 0 && (k < 0 || nodes[i] < nodes[k])) k = i;
      if (outArc[k] >= 0) sourceEntries.push({ node: nodes[k], timeMs: 0, lengthCm: 0, arc: inArc[k] });
      if (inArc[k] >= 0) targetEntries.push({ node: nodes[k], timeMs: 0, lengthCm: 0, arc: outArc[k] });
      nodes[k] = -1;
    }
  }

  /** Scratch of {@link nodeEntries}: the graph nodes found at the point, with an arc arriving / leaving (or -1). */
  private atNodes = new Int32Array(8);
  private atIn = new Int32Array(8);
  private atOut = new Int32Array(8);
  private atCount = 0;

  /**
   * For the segment of edge `ed` starting at geometry point `gp`: when the edge starts or ends
   * there at (lat, lon), notes the graph nodes of OSM node `osmId` at that end in the scratch
   * arrays, with the lowest arc arriving at / leaving each.
   */
  private touchNode(ed: number, gp: number, lat: number, lon: number, osmId: number): void {
    const g = this.graph;
    const la = g.geomLat;
    const lo = g.geomLon;
    const gl = g.edgeGeomStart[ed + 1] - 1;
    const startsHere = gp === g.edgeGeomStart[ed] && la[gp] === lat && lo[gp] === lon;
    const endsHere = gp + 1 === gl && la[gl] === lat && lo[gl] === lon;
    if (!startsHere && !endsHere) return;
    for (let j = g.edgeArcStart[ed]; j < g.edgeArcStart[ed + 1]; j++) {
      const a = g.edgeArcs[j];
      const reversed = (g.arcEdge[a] & 1) === 1;
      for (let side = 0; side < 2; side++) {
        // side 0: the arc leaves the point (its tail is here); side 1: it arrives (its head is here).
        const here = (side === 0) === reversed ? endsHere : startsHere;
        if (!here) continue;
        const v = side === 0 ? g.tail[a] : g.head[a];
        if (g.nodeOsmId[v] !== osmId) continue;
        const n = this.atCount;
        let k = 0;
        while (k < n && this.atNodes[k] !== v) k++;
        if (k === n) {
          if (n === this.atNodes.length) {
            const grow = (x: Int32Array) => { const y = new Int32Array(2 * n); y.set(x); return y; };
            this.atNodes = grow(this.atNodes);
            this.atIn = grow(this.atIn);
            this.atOut = grow(this.atOut);
          }
          this.atNodes[k] = v;
          this.atIn[k] = -1;
          this.atOut[k] = -1;
          this.atCount = n + 1;
        }
        const arr = side === 0 ? this.atOut : this.atIn;
        if (arr[k] < 0 || a < arr[k]) arr[k] = a;
      }
    }
  }

  private noSegmentError(lat: number, lon: number, radiusM: number, path?: string): EngineError {
    const nearest = this.nearestDistanceM(lat, lon);
    const where = `(${fmtCoord(lat)}, ${fmtCoord(lon)})`;
    let msg = `The location ${where} is ${fmtDistance(nearest)} from the nearest road; the limit is ${fmtDistance(radiusM)}.`;
    let swapped = false;
    if (isValidLatLon(lon, lat) && lat !== lon) {
      const bb = this.bbox();
      const inside = lon >= bb.minLat && lon <= bb.maxLat && lat >= bb.minLon && lat <= bb.maxLon;
      swapped = inside || this.nearest(lon, lat, radiusM) >= 0;
      if (swapped) msg += ` The coordinates look swapped: (${fmtCoord(lon)}, ${fmtCoord(lat)}) is on the road network; give the latitude first.`;
    }
    return new EngineError('NoSegment', msg, { path, details: { lat, lon, nearestRoadM: Math.round(nearest), radiusM, swapped } });
  }
}

function checkLatLon(lat: number, lon: number, path?: string): void {
  const bad = latLonProblems(lat, lon);
  if (bad.length === 0) return;
  // A value that is not a number is named before one out of range (either half).
  const first = bad.find((b) => b.reason === 'nan') ?? bad[0];
  throw new EngineError('InvalidInput', first.message, { path: `${path ? `${path}.` : ''}${first.field}` });
}

function fmtCoord(v: number): string {
  return String(Math.round(v * 1e6) / 1e6);
}

/** "350 m", "1.8 km", "1 km", "1,234 km". */
export function fmtDistance(m: number): string {
  if (!Number.isFinite(m)) return 'an unknown distance';
  if (m < 1000) return `${Math.round(m)} m`;
  const km = m / 1000;
  if (km < 100) return `${Math.round(km * 10) / 10} km`;
  return `${Math.round(km).toLocaleString('en-US')} km`;
}
