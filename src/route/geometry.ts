/**
 * Path geometry on the road graph: from a source snap, an ordered list of arcs (what a CH query
 * returns after path unpacking) and a target snap, the polyline trimmed at the snapped points,
 * the cost of each piece, and a summary (names, flags) for warnings.
 *
 * Kernel-level: graph ids and typed arrays in, plain numbers out; no records.
 */
import { EngineError } from '../core/errors.js';
import type { RoadGraph } from '../graph/road-graph.js';
import { EdgeFlag } from '../osm/car-profile.js';
import type { RouteEntry, Snap } from '../graph/snap.js';

/** One driven piece of the path: a whole arc, or the part of an arc next to a snapped point. */
export interface RoutePiece {
  arc: number;
  /** Driven part of the arc, as fractions along the arc (0 = tail, 1 = head). */
  fromFraction: number;
  toFraction: number;
  timeMs: number;
  lengthCm: number;
  /** Index in `lat`/`lon` of the piece's first point. */
  firstPoint: number;
}

export interface RouteGeometry {
  /** The polyline, from the source's snapped point to the target's; no consecutive duplicates. */
  lat: Float64Array;
  lon: Float64Array;
  pieces: RoutePiece[];
  timeMs: number;
  lengthCm: number;
}

export interface RouteGeometryOptions {
  /**
   * For an empty arc list: the node where the source's and the target's entries meet. When
   * omitted, the cheapest (under `metric`) of a direct drive along a shared edge and a shared
   * entry node is used.
   */
  node?: number;
  /** Metric for that choice (default 'time'). */
  metric?: 'time' | 'distance';
}

class Polyline {
  lat: number[] = [];
  lon: number[] = [];
  push(la: number, lo: number): void {
    const n = this.lat.length;
    if (n > 0 && this.lat[n - 1] === la && this.lon[n - 1] === lo) return;
    this.lat.push(la);
    this.lon.push(lo);
  }
  get length(): number {
    return this.lat.length;
  }
}

/**
 * Builds the path polyline and per-piece costs.
 * Throws `InvalidInput` when the arcs are not a chain or do not start/end at an entry of the snaps.
 */
export function routeGeometry(graph: RoadGraph, from: Snap, arcs: ArrayLike<number>, to: Snap, opts: RouteGeometryOptions = {}): RouteGeometry {
  const line = new Polyline();
  const pieces: RoutePiece[] = [];
  const g = graph;

  if (arcs.length === 0) {
    let meet = opts.node;
    if (meet === undefined) {
      const byTime = (opts.metric ?? 'time') === 'time';
      let bestCost = Infinity;
      const direct = sameEdgeDirect(g, from, to);
      if (direct) bestCost = byTime ? direct.timeMs : direct.lengthCm;
      let bestNode = -1;
      for (const s of from.sourceEntries) {
        for (const t of to.targetEntries) {
          const c = byTime ? s.timeMs + t.timeMs : s.lengthCm + t.lengthCm;
          if (s.node === t.node && c < bestCost) {
            bestCost = c;
            bestNode = s.node;
          }
        }
      }
      if (bestNode < 0) {
        if (!direct) throw new EngineError('InvalidInput', 'An empty path does not connect the two snapped points (different roads, or against a oneway).');
        // Direct drive along the shared edge.
        const e = from.edge;
        const reversed = direct.arc >= 0 && g.arcReversed(direct.arc);
        line.push(from.lat, from.lon);
        const gs = g.edgeGeomStart[e];
        if (!reversed) for (let k = from.segment + 1; k <= to.segment; k++) line.push(g.geomLat[gs + k], g.geomLon[gs + k]);
        else for (let k = from.segment; k > to.segment; k--) line.push(g.geomLat[gs + k], g.geomLon[gs + k]);
        line.push(to.lat, to.lon);
        const ff = reversed ? 1 - from.fraction : from.fraction;
        const tf = reversed ? 1 - to.fraction : to.fraction;
        pieces.push({ arc: direct.arc, fromFraction: ff, toFraction: tf, timeMs: direct.timeMs, lengthCm: direct.lengthCm, firstPoint: 0 });
        return finish(line, pieces);
      }
      meet = bestNode;
    }
    const se = findEntry(from.sourceEntries, meet, 'source');
    const te = findEntry(to.targetEntries, meet, 'target');
    sourcePiece(g, from, se, line, pieces);
    targetPiece(g, to, te, line, pieces);
    return finish(line, pieces);
  }

  const m = g.numArcs;
  for (let i = 0; i < arcs.length; i++) {
    const a = arcs[i];
    if (!(a >= 0 && a < m)) throw new EngineError('InvalidInput', `Arc id ${a} is outside 0..${m - 1}.`, { path: `arcs[${i}]` });
    if (i > 0 && g.head[arcs[i - 1]] !== g.tail[a]) throw new EngineError('InvalidInput', `Arcs ${arcs[i - 1]} and ${a} are not consecutive (head ${g.head[arcs[i - 1]]} ≠ tail ${g.tail[a]}).`, { path: `arcs[${i}]` });
  }
  const se = findEntry(from.sourceEntries, g.tail[arcs[0]], 'source');
  const te = findEntry(to.targetEntries, g.head[arcs[arcs.length - 1]], 'target');
  sourcePiece(g, from, se, line, pieces);
  const tmpLat: number[] = [];
  const tmpLon: number[] = [];
  for (let i = 0; i < arcs.length; i++) {
    const a = arcs[i];
    const first = Math.max(0, line.length - 1);
    tmpLat.length = 0;
    tmpLon.length = 0;
    g.arcGeometry(a, tmpLat, tmpLon);
    for (let k = 0; k < tmpLat.length; k++) line.push(tmpLat[k], tmpLon[k]);
    pieces.push({ arc: a, fromFraction: 0, toFraction: 1, timeMs: g.timeMs[a], lengthCm: g.lengthCm[a], firstPoint: first });
  }
  targetPiece(g, to, te, line, pieces);
  return finish(line, pieces);
}

function finish(line: Polyline, pieces: RoutePiece[]): RouteGeometry {
  let timeMs = 0;
  let lengthCm = 0;
  for (const p of pieces) {
    timeMs += p.timeMs;
    lengthCm += p.lengthCm;
  }
  return { lat: Float64Array.from(line.lat), lon: Float64Array.from(line.lon), pieces, timeMs, lengthCm };
}

function findEntry(entries: RouteEntry[], node: number, kind: 'source' | 'target'): RouteEntry {
  for (const e of entries) if (e.node === node) return e;
  throw new EngineError('InvalidInput', `The path ${kind === 'source' ? 'starts' : 'ends'} at node ${node}, which is not a ${kind} entry of the snapped point (nodes ${entries.map((e) => e.node).join(', ') || 'none'}).`);
}

/** From the snapped point to the entry's node along the entry's arc. */
function sourcePiece(g: RoadGraph, s: Snap, e: RouteEntry, line: Polyline, pieces: RoutePiece[]): void {
  if (s.atNode) {
    // The point is the entry's node (nothing of the entry's arc, which arrives there, is driven).
    line.push(s.lat, s.lon);
    if (e.arc >= 0) pieces.push({ arc: e.arc, fromFraction: 1, toFraction: 1, timeMs: e.timeMs, lengthCm: e.lengthCm, firstPoint: 0 });
    return;
  }
  const reversed = g.arcReversed(e.arc);
  const gs = g.edgeGeomStart[s.edge];
  const ge = g.edgeGeomStart[s.edge + 1];
  line.push(s.lat, s.lon);
  if (!reversed) for (let p = gs + s.segment + 1; p < ge; p++) line.push(g.geomLat[p], g.geomLon[p]);
  else for (let p = gs + s.segment; p >= gs; p--) line.push(g.geomLat[p], g.geomLon[p]);
  pieces.push({ arc: e.arc, fromFraction: reversed ? 1 - s.fraction : s.fraction, toFraction: 1, timeMs: e.timeMs, lengthCm: e.lengthCm, firstPoint: 0 });
}

/** From the entry's node to the snapped point along the entry's arc. */
function targetPiece(g: RoadGraph, t: Snap, e: RouteEntry, line: Polyline, pieces: RoutePiece[]): void {
  const first = Math.max(0, line.length - 1);
  if (t.atNode) {
    // The point is the entry's node (nothing of the entry's arc, which leaves it, is driven).
    line.push(t.lat, t.lon);
    if (e.arc >= 0) pieces.push({ arc: e.arc, fromFraction: 0, toFraction: 0, timeMs: e.timeMs, lengthCm: e.lengthCm, firstPoint: first });
    return;
  }
  const reversed = g.arcReversed(e.arc);
  const gs = g.edgeGeomStart[t.edge];
  const ge = g.edgeGeomStart[t.edge + 1];
  if (!reversed) for (let p = gs; p <= gs + t.segment; p++) line.push(g.geomLat[p], g.geomLon[p]);
  else for (let p = ge - 1; p > gs + t.segment; p--) line.push(g.geomLat[p], g.geomLon[p]);
  line.push(t.lat, t.lon);
  pieces.push({ arc: e.arc, fromFraction: 0, toFraction: reversed ? 1 - t.fraction : t.fraction, timeMs: e.timeMs, lengthCm: e.lengthCm, firstPoint: first });
}

/** Direct drive along one edge between two snaps (as Snapper.sameArcDirect). */
function sameEdgeDirect(g: RoadGraph, from: Snap, to: Snap): { timeMs: number; lengthCm: number; arc: number } | null {
  if (from.edge !== to.edge) return null;
  const df = to.fraction - from.fraction;
  if (from.fwdArc >= 0 && df >= 0) return { timeMs: Math.round(g.timeMs[from.fwdArc] * df), lengthCm: Math.round(g.lengthCm[from.fwdArc] * df), arc: from.fwdArc };
  if (from.bwdArc >= 0 && df <= 0) return { timeMs: Math.round(g.timeMs[from.bwdArc] * -df), lengthCm: Math.round(g.lengthCm[from.bwdArc] * -df), arc: from.bwdArc };
  return null;
}

// ---------------------------------------------------------------------------------------------

export interface PathSummary {
  timeMs: number;
  lengthCm: number;
  /** Road names in driving order (name, else ref), consecutive repeats and unnamed roads left out. */
  names: string[];
  /** OR of the {@link EdgeFlag} bits of the roads driven. */
  flags: number;
  toll: boolean;
  ferry: boolean;
  unpaved: boolean;
  /** Private (or customers/delivery) access roads, or destination-only ones. */
  private: boolean;
}

/** Totals, names and flags of a route; pieces of zero length (a snap right on a node) don't count. */
export function pathSummary(graph: RoadGraph, route: RouteGeometry): PathSummary {
  const names: string[] = [];
  let flags = 0;
  for (const p of route.pieces) {
    if (p.lengthCm === 0 && p.timeMs === 0) continue;
    flags |= graph.arcFlags(p.arc);
    const name = graph.arcName(p.arc) || graph.arcRef(p.arc);
    if (name !== '' && names[names.length - 1] !== name) names.push(name);
  }
  return {
    timeMs: route.timeMs,
    lengthCm: route.lengthCm,
    names,
    flags,
    toll: (flags & EdgeFlag.Toll) !== 0,
    ferry: (flags & EdgeFlag.Ferry) !== 0,
    unpaved: (flags & EdgeFlag.Unpaved) !== 0,
    private: (flags & (EdgeFlag.Private | EdgeFlag.Destination)) !== 0,
  };
}
