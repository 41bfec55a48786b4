/**
 * Junctions of the road graph as a driver sees them: every road (edge end) meeting at a place,
 * whatever turn-restriction copies the graph made of its node. Maneuver classification asks,
 * at a junction reached along one arc: which roads meet here, in which compass direction does
 * each leave, which of them can be driven from here, and which could be driven from here but for
 * a turn restriction.
 *
 * Built lazily once per graph (a CSR over canonical nodes, flat typed arrays) and cached.
 */
import type { RoadGraph } from '../graph/road-graph.js';

/** Metres along a road over which its direction at a junction is measured. */
export const BEARING_SPAN_M = 20;
const DEG = Math.PI / 180;
const R_EARTH = 6371008.8;

export class JunctionIndex {
  /** Canonical node of each node (the lowest id with the same OSM node). */
  readonly canon: Uint32Array;
  /** Roads at canonical node c: `roads[start[c] .. start[c + 1])`, each `edge * 2 + end` (end 0: the edge's polyline starts here, 1: ends here). */
  readonly start: Uint32Array;
  readonly roads: Uint32Array;

  private constructor(readonly graph: RoadGraph) {
    const g = graph;
    const n = g.numNodes;
    const canon = new Uint32Array(n);
    const first = new Map<number, number>();
    for (let v = 0; v < n; v++) {
      const id = g.nodeOsmId[v];
      const c = first.get(id);
      if (c === undefined) {
        first.set(id, v);
        canon[v] = v;
      } else canon[v] = c;
    }
    const E = g.numEdges;
    const endA = new Uint32Array(E);
    const endB = new Uint32Array(E);
    const count = new Uint32Array(n + 1);
    for (let e = 0; e < E; e++) {
      const s = g.edgeArcStart[e];
      if (s === g.edgeArcStart[e + 1]) {
        endA[e] = endB[e] = 0xffffffff;
        continue;
      }
      const a = g.edgeArcs[s];
      const rev = (g.arcEdge[a] & 1) === 1;
      const u = canon[rev ? g.head[a] : g.tail[a]];
      const w = canon[rev ? g.tail[a] : g.head[a]];
      endA[e] = u;
      endB[e] = w;
      count[u + 1]++;
      count[w + 1]++;
    }
    for (let v = 0; v < n; v++) count[v + 1] += count[v];
    const roads = new Uint32Array(count[n]);
    const fill = count.slice(0, n);
    for (let e = 0; e < E; e++) {
      if (endA[e] === 0xffffffff) continue;
      roads[fill[endA[e]]++] = e * 2;
      roads[fill[endB[e]]++] = e * 2 + 1;
    }
    this.canon = canon;
    this.start = count;
    this.roads = roads;
  }

  private static cache = new WeakMap<RoadGraph, JunctionIndex>();

  /** The index of a graph (built on first use). */
  static of(graph: RoadGraph): JunctionIndex {
    let j = JunctionIndex.cache.get(graph);
    if (!j) JunctionIndex.cache.set(graph, (j = new JunctionIndex(graph)));
    return j;
  }

  /** Number of roads (edge ends) meeting at node v's junction. */
  degree(v: number): number {
    const c = this.canon[v];
    return this.start[c + 1] - this.start[c];
  }

  /** The road entry (`edge * 2 + end`) of arc `a` at its head node (the end it arrives at). */
  arrivingEnd(a: number): number {
    const r = this.graph.arcEdge[a];
    // Along the polyline (not reversed) the arc arrives at the polyline's end.
    return (r >>> 1) * 2 + ((r & 1) === 0 ? 1 : 0);
  }

  /** The road entry of arc `a` at its tail node (the end it leaves from). */
  leavingEnd(a: number): number {
    const r = this.graph.arcEdge[a];
    return (r >>> 1) * 2 + (r & 1);
  }

  /** Compass bearing (degrees, 0 = north, clockwise) of road entry `r` leaving its junction, over {@link BEARING_SPAN_M}. */
  bearingAway(r: number): number {
    const g = this.graph;
    const e = r >>> 1;
    const s = g.edgeGeomStart[e];
    const t = g.edgeGeomStart[e + 1];
    const fromEnd = (r & 1) === 1;
    const p0 = fromEnd ? t - 1 : s;
    const step = fromEnd ? -1 : 1;
    const lat0 = g.geomLat[p0];
    const lon0 = g.geomLon[p0];
    const k = Math.cos(lat0 * DEG);
    let acc = 0;
    let pLat = lat0;
    let pLon = lon0;
    let p = p0 + step;
    for (; p >= s && p < t; p += step) {
      const la = g.geomLat[p];
      const lo = g.geomLon[p];
      acc += Math.hypot((la - pLat) * DEG * R_EARTH, (lo - pLon) * DEG * R_EARTH * k);
      pLat = la;
      pLon = lo;
      if (acc >= BEARING_SPAN_M) break;
    }
    return bearing(lat0, lon0, pLat, pLon);
  }

  /**
   * The arc leaving node `v` (the exact copy) along road entry `r`, or -1 when none: the road can't
   * be driven away from here (oneway towards us, or a turn restriction of this copy).
   */
  leaveArc(v: number, r: number): number {
    const g = this.graph;
    const e = r >>> 1;
    const rev = r & 1; // leaving from the polyline's end means driving against it
    for (let a = g.firstOut[v]; a < g.firstOut[v + 1]; a++) {
      const x = g.arcEdge[a];
      if (x >>> 1 === e && (x & 1) === rev) return a;
    }
    return -1;
  }

  /** True when some copy of the junction has an arc leaving along road entry `r` (the road can be driven away from the junction at all). */
  leavable(r: number): boolean {
    const g = this.graph;
    const e = r >>> 1;
    const rev = r & 1;
    for (let i = g.edgeArcStart[e]; i < g.edgeArcStart[e + 1]; i++) {
      if ((g.arcEdge[g.edgeArcs[i]] & 1) === rev) return true;
    }
    return false;
  }
}

/** Compass bearing from one point to another, degrees in [0, 360). */
export function bearing(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dx = (lon2 - lon1) * Math.cos(((lat1 + lat2) / 2) * DEG);
  const dy = lat2 - lat1;
  if (dx === 0 && dy === 0) return 0;
  const b = Math.atan2(dx, dy) / DEG;
  return b < 0 ? b + 360 : b;
}

/** The turn angle from travelling along `inBearing` to leaving along `outBearing`, in (-180, 180]: > 0 right, < 0 left. */
export function turnAngle(inBearing: number, outBearing: number): number {
  let d = (outBearing - inBearing) % 360;
  if (d > 180) d -= 360;
  if (d <= -180) d += 360;
  return d;
}
