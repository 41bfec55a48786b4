/**
 * Builds the car {@link RoadGraph} from OSM data. {@link buildRoadGraph} runs these stages:
 *
 * 1. {@link readWays}: pass over ways (+ restriction relations); the car profile keeps drivable
 *    ways; their node references are collected; names are interned.
 * 2. {@link indexRoadNodes}, {@link readNodes}: pass over nodes: coordinates of the referenced
 *    nodes only, and which of them are barriers.
 * 3. {@link markGraphNodes}, {@link cutWaysIntoEdges}: a node becomes a graph node when it ends a
 *    way, is shared by two ways (or twice by one), is a blocking barrier, or neighbours a node
 *    missing from the extract. Ways are cut at graph nodes into edges; the nodes between
 *    (degree 2) stay as geometry. A closed loop edge (u == v) is cut once more in its middle, so
 *    there are no self loops.
 * 4. {@link wayArcs}: arcs per drivable direction, with integer time (ms) and length (cm,
 *    haversine along the polyline); ferries with a `duration` tag share it out by length.
 * 5. {@link splitViaNodes}: turn restrictions with a via *node* (and blocking barriers) by
 *    splitting the via node: each group of incoming arcs with the same set of allowed outgoing
 *    arcs gets its own copy of the node, carrying copies of just those outgoing arcs. Plain
 *    node-based searches then obey them. Restrictions with a via *way* are counted and skipped
 *    (see docs/road-graph.md).
 * 6. {@link largestComponent}: the largest strongly connected component is kept.
 * 7. {@link assembleGraph}: nodes are renumbered along a Hilbert curve (locality), edges in order
 *    of first use, arcs sorted by tail (CSR).
 */
import { lowerBound } from '../core/sorted.js';
import { EngineError } from '../core/errors.js';
import { haversine } from '../core/geo.js';
import { throwIfAborted, type LongWorkOptions, type ProgressCallback } from '../core/cancel.js';
import { OsmPbfFile, MemberType, type Tags, type RelationMember } from '../osm/pbf.js';
import type { OsmSource } from '../osm/xml.js';
import { EdgeFlag, carNodeBlocks, carRestriction, carWayProfile } from '../osm/car-profile.js';
import { RoadGraph } from './road-graph.js';
import { stronglyConnectedComponents } from './scc.js';

export interface BuildRoadGraphOptions extends LongWorkOptions {
  /** Keep only the largest strongly connected component (default true). */
  largestSccOnly?: boolean;
}

export interface RoadGraphStats {
  ways: { total: number; car: number; ferries: number };
  osmNodes: number;
  /** Distinct nodes referenced by car ways. */
  roadNodes: number;
  /** Road nodes whose coordinates are not in the file (the way is cut there). */
  missingNodes: number;
  /** Graph nodes before restriction splitting and SCC. */
  junctions: number;
  edges: number;
  arcs: number;
  /** Nodes whose barrier blocks cars (they are turned into dead ends). */
  barriers: number;
  restrictions: {
    relations: number;
    /** Node-via restrictions in force in the graph. */
    applied: number;
    /** Applied restrictions that changed nothing (e.g. forbidding a turn onto a oneway's wrong end). */
    noEffect: number;
    skippedViaWay: number;
    skippedNotForCars: number;
    skippedExcept: number;
    skippedConditional: number;
    /** A member way or the via node is not in the car graph (filtered out or outside the extract). */
    skippedMissing: number;
    /** The from/to way does not touch the via node. */
    skippedNotAdjacent: number;
    /** The from/to way passes through the via node, so the direction is ambiguous. */
    skippedAmbiguous: number;
    skippedInvalid: number;
  };
  /** Node copies added by via-node splitting. */
  splitNodesAdded: number;
  scc: { components: number; largest: number; droppedNodes: number; droppedArcs: number };
  numNodes: number;
  numArcs: number;
  numEdges: number;
  geometryPoints: number;
  timingsMs: { ways: number; nodes: number; edges: number; restrictions: number; scc: number; finish: number; total: number };
}

// ---------------------------------------------------------------------------------------------
// Growable typed arrays

class GrowF64 {
  a: Float64Array;
  n = 0;
  constructor(cap = 1024) { this.a = new Float64Array(cap); }
  push(v: number): void {
    if (this.n === this.a.length) { const b = new Float64Array(this.a.length * 2); b.set(this.a); this.a = b; }
    this.a[this.n++] = v;
  }
  view(): Float64Array { return this.a.subarray(0, this.n); }
}

class GrowU32 {
  a: Uint32Array;
  n = 0;
  constructor(cap = 1024) { this.a = new Uint32Array(cap); }
  push(v: number): void {
    if (this.n === this.a.length) { const b = new Uint32Array(this.a.length * 2); b.set(this.a); this.a = b; }
    this.a[this.n++] = v;
  }
  view(): Uint32Array { return this.a.subarray(0, this.n); }
}


interface RawRestriction {
  id: number;
  kind: 'no' | 'only';
  uturn: boolean;
  from: number[];
  to: number[];
  viaNodes: number[];
  viaWays: number[];
}

interface Rule {
  kind: 'no' | 'only';
  uturn: boolean;
  from: Set<number>;
  to: Set<number>;
}

interface ViaSlot {
  vertex: number;
  ins: number[];
  outs: number[];
  rules: Rule[];
  barrier: boolean;
  processed: boolean;
}

/** A restriction whose via node is a graph vertex and whose from/to ways are car ways (way indices). */
interface PendingRule {
  v: number;
  raw: RawRestriction;
  from: number[];
  to: number[];
}

const NONE = 0xffffffff;

/** The car ways kept by the profile (pass 1), struct of arrays indexed by way; views of exactly `count` entries. */
interface WayTable {
  count: number;
  /** Node ids of every way, concatenated; way w owns `refs[refStart[w] .. refStart[w + 1] - 1]`. */
  refs: Float64Array;
  refStart: Uint32Array;
  osmId: Float64Array;
  cls: Uint32Array;
  flags: Uint32Array;
  /** Bit 0 forward, bit 1 backward. */
  dir: Uint32Array;
  speedF: Float64Array;
  speedB: Float64Array;
  /** Ferry `duration` in seconds, NaN = none. */
  duration: Float64Array;
  nameId: Uint32Array;
  refId: Uint32Array;
  destId: Uint32Array;
  indexById: Map<number, number>;
  /** Interned names and refs; id 0 is ''. */
  strings: string[];
  restrictions: RawRestriction[];
}

/** The distinct nodes referenced by car ways (pass 2): sorted ids, coordinates, barriers. */
interface RoadNodes {
  count: number;
  /** Sorted distinct node ids; a road node's index is its position here. */
  ids: Float64Array;
  /** Road-node index of every entry of {@link WayTable.refs}. */
  refIdx: Uint32Array;
  lat: Float64Array;
  lon: Float64Array;
  /** 1 when the node's coordinates are in the file. */
  have: Uint8Array;
  /** 1 when the node is a barrier that blocks cars. */
  blocked: Uint8Array;
}

/** Graph vertices (junctions, then restriction copies) and the edges the ways were cut into. */
interface EdgeTable {
  /** Road node → vertex, or NONE. */
  vertexId: Uint32Array;
  vLat: GrowF64;
  vLon: GrowF64;
  vOsm: GrowF64;
  /** First geometry point of each edge in gLat/gLon (an edge's points run to the next edge's start). */
  geom: GrowU32;
  gLat: GrowF64;
  gLon: GrowF64;
  u: GrowU32;
  v: GrowU32;
  way: GrowU32;
  lenM: GrowF64;
  /** Way w's edges are `wayEdgeStart[w] .. wayEdgeStart[w + 1] - 1`. */
  wayEdgeStart: Uint32Array;
}

/** Arcs in build order; `ref` is `edge << 1 | reversed`. */
interface ArcTable {
  tail: GrowU32;
  head: GrowU32;
  ref: GrowU32;
  time: GrowU32;
  len: GrowU32;
}

function emptyStats(): RoadGraphStats {
  return {
    ways: { total: 0, car: 0, ferries: 0 },
    osmNodes: 0, roadNodes: 0, missingNodes: 0, junctions: 0, edges: 0, arcs: 0, barriers: 0,
    restrictions: {
      relations: 0, applied: 0, noEffect: 0, skippedViaWay: 0, skippedNotForCars: 0, skippedExcept: 0,
      skippedConditional: 0, skippedMissing: 0, skippedNotAdjacent: 0, skippedAmbiguous: 0, skippedInvalid: 0,
    },
    splitNodesAdded: 0,
    scc: { components: 0, largest: 0, droppedNodes: 0, droppedArcs: 0 },
    numNodes: 0, numArcs: 0, numEdges: 0, geometryPoints: 0,
    timingsMs: { ways: 0, nodes: 0, edges: 0, restrictions: 0, scc: 0, finish: 0, total: 0 },
  };
}

/** Builds the car road graph from an OSM PBF file (bytes or opened) or any {@link OsmSource}. */
export function buildRoadGraph(input: OsmPbfFile | Uint8Array | OsmSource, opts: BuildRoadGraphOptions = {}): { graph: RoadGraph; stats: RoadGraphStats } {
  const t0 = performance.now();
  const src: OsmSource = input instanceof Uint8Array ? new OsmPbfFile(input) : input;
  const signal = opts.signal;
  const progress: ProgressCallback | undefined = opts.onProgress;
  const stats = emptyStats();
  const times = stats.timingsMs;

  const ways = readWays(src, stats, opts);
  const t1 = performance.now();
  times.ways = t1 - t0;
  throwIfAborted(signal);

  const nodes = indexRoadNodes(ways);
  stats.roadNodes = nodes.count;
  readNodes(src, nodes, stats, opts);
  const t2 = performance.now();
  times.nodes = t2 - t1;
  throwIfAborted(signal);

  const isVertex = markGraphNodes(ways, nodes, stats);
  const edges = cutWaysIntoEdges(ways, nodes, isVertex, signal);
  const arcs = wayArcs(ways, edges);
  stats.junctions = edges.vLat.n;
  stats.edges = edges.u.n;
  stats.arcs = arcs.tail.n;
  const t3 = performance.now();
  times.edges = t3 - t2;
  progress?.({ phase: 'graph-edges', done: 1, total: 1 });
  throwIfAborted(signal);

  splitViaNodes(ways, nodes, edges, arcs, stats);
  const t4 = performance.now();
  times.restrictions = t4 - t3;
  progress?.({ phase: 'graph-restrictions', done: 1, total: 1 });
  throwIfAborted(signal);

  const keepNode = largestComponent(edges.vLat.n, arcs, opts.largestSccOnly === false, stats);
  const t5 = performance.now();
  times.scc = t5 - t4;
  progress?.({ phase: 'graph-scc', done: 1, total: 1 });
  throwIfAborted(signal);

  const graph = assembleGraph(ways, edges, arcs, keepNode, stats);
  const t6 = performance.now();
  times.finish = t6 - t5;
  times.total = t6 - t0;
  progress?.({ phase: 'graph-finish', done: 1, total: 1 });
  if (graph.numNodes === 0) throw new EngineError('InvalidInput', 'The OSM data holds no drivable road network (no car ways with coordinates).');
  return { graph, stats };
}

/**
 * Pass 1 over ways and relations: the car profile keeps drivable ways (their node references
 * and attributes are collected, names and refs interned); `type=restriction` relations are
 * classified and kept when they apply to cars.
 */
function readWays(src: OsmSource, stats: RoadGraphStats, opts: LongWorkOptions): WayTable {
  const refs = new GrowF64(1 << 16);
  const wayRefStart = new GrowU32();
  const wayOsmId = new GrowF64();
  const wayCls = new GrowU32();
  const wayFlags = new GrowU32();
  const wayDir = new GrowU32();
  const waySpeedF = new GrowF64();
  const waySpeedB = new GrowF64();
  const wayDuration = new GrowF64();
  const wayNameId = new GrowU32();
  const wayRefId = new GrowU32();
  const wayDestId = new GrowU32();
  const indexById = new Map<number, number>();
  const strIds = new Map<string, number>([['', 0]]);
  const strings: string[] = [''];
  const intern = (s: string): number => {
    let id = strIds.get(s);
    if (id === undefined) {
      id = strings.length;
      strings.push(s);
      strIds.set(s, id);
    }
    return id;
  };
  const restrictions: RawRestriction[] = [];
  const r = stats.restrictions;

  src.read({
    way(id: number, wrefs: Float64Array, n: number, tags: Tags) {
      stats.ways.total++;
      if (n < 2) return;
      const p = carWayProfile(tags);
      if (p === null || !(p.forward || p.backward)) return;
      stats.ways.car++;
      if (p.flags & EdgeFlag.Ferry) stats.ways.ferries++;
      indexById.set(id, wayOsmId.n);
      wayRefStart.push(refs.n);
      for (let i = 0; i < n; i++) refs.push(wrefs[i]);
      wayOsmId.push(id);
      wayCls.push(p.cls);
      wayFlags.push(p.flags);
      wayDir.push((p.forward ? 1 : 0) | (p.backward ? 2 : 0));
      waySpeedF.push(p.speedForwardKmh);
      waySpeedB.push(p.speedBackwardKmh);
      wayDuration.push(p.durationS ?? NaN);
      wayNameId.push(intern(p.name));
      wayRefId.push(intern(p.ref));
      wayDestId.push(intern(p.destination));
    },
    relation(id: number, members: RelationMember[], tags: Tags) {
      if (tags.type !== 'restriction') return;
      r.relations++;
      const rr = parseRestriction(id, members, tags, r);
      if (rr !== null) restrictions.push(rr);
    },
  }, { signal: opts.signal, onProgress: opts.onProgress, phase: 'osm-ways' });
  wayRefStart.push(refs.n);
  return {
    count: wayOsmId.n, refs: refs.view(), refStart: wayRefStart.view(), osmId: wayOsmId.view(), cls: wayCls.view(),
    flags: wayFlags.view(), dir: wayDir.view(), speedF: waySpeedF.view(), speedB: waySpeedB.view(), duration: wayDuration.view(),
    nameId: wayNameId.view(), refId: wayRefId.view(), destId: wayDestId.view(), indexById, strings, restrictions,
  };
}

/**
 * One restriction relation read with the car profile's rules, or null when it is skipped (the
 * reason is counted in `r`): not for cars, excepted, conditional, or malformed members.
 */
function parseRestriction(id: number, members: RelationMember[], tags: Tags, r: RoadGraphStats['restrictions']): RawRestriction | null {
  const t = carRestriction(tags);
  if (!t.ok) {
    if (t.reason === 'except') r.skippedExcept++;
    else if (t.reason === 'conditional') r.skippedConditional++;
    else if (t.reason === 'other-vehicle') r.skippedNotForCars++;
    else r.skippedInvalid++;
    return null;
  }
  const rr: RawRestriction = { id, kind: t.kind, uturn: t.value.endsWith('u_turn'), from: [], to: [], viaNodes: [], viaWays: [] };
  let bad = false;
  for (const m of members) {
    if (m.role === 'from') { if (m.type === MemberType.Way) rr.from.push(m.ref); else bad = true; }
    else if (m.role === 'to') { if (m.type === MemberType.Way) rr.to.push(m.ref); else bad = true; }
    else if (m.role === 'via') {
      if (m.type === MemberType.Node) rr.viaNodes.push(m.ref);
      else if (m.type === MemberType.Way) rr.viaWays.push(m.ref);
      else bad = true;
    }
  }
  if (bad || rr.from.length === 0 || rr.to.length === 0 || rr.viaNodes.length + rr.viaWays.length === 0 || (rr.viaNodes.length > 0 && rr.viaWays.length > 0) || rr.viaNodes.length > 1) {
    r.skippedInvalid++;
    return null;
  }
  return rr;
}

/** The distinct node ids referenced by the car ways, sorted, and every reference's index among them (coordinates still empty). */
function indexRoadNodes(ways: WayTable): RoadNodes {
  const refArr = ways.refs;
  const ids = uniqueSorted(refArr);
  const U = ids.length;
  const refIdx = new Uint32Array(refArr.length);
  for (let i = 0; i < refArr.length; i++) refIdx[i] = lowerBound(ids, refArr[i]);
  return {
    count: U, ids, refIdx, lat: new Float64Array(U), lon: new Float64Array(U), have: new Uint8Array(U), blocked: new Uint8Array(U),
  };
}

/**
 * Pass 2 over nodes: coordinates of the road nodes only (a cursor over the sorted ids while the
 * file's ids ascend, else a binary search), and which of them are barriers that block cars.
 */
function readNodes(src: OsmSource, nodes: RoadNodes, stats: RoadGraphStats, opts: LongWorkOptions): void {
  const { ids, lat: nLat, lon: nLon, have, blocked, count: U } = nodes;
  let cursor = 0;
  let lastId = -Infinity;
  src.read({
    node(id: number, lat: number, lon: number, tags: Tags | null) {
      stats.osmNodes++;
      let p: number;
      if (id >= lastId) {
        while (cursor < U && ids[cursor] < id) cursor++;
        p = cursor;
      } else {
        p = lowerBound(ids, id);
      }
      lastId = id;
      if (p >= U || ids[p] !== id) return;
      nLat[p] = lat;
      nLon[p] = lon;
      have[p] = 1;
      if (tags !== null && carNodeBlocks(tags)) blocked[p] = 1;
    },
  }, { signal: opts.signal, onProgress: opts.onProgress, phase: 'osm-nodes' });
}

/**
 * Which road nodes become graph vertices: way ends, nodes used twice (by two ways, or twice by
 * one), blocking barriers, and neighbours of nodes missing from the extract. Counts missing nodes
 * and barriers.
 */
function markGraphNodes(ways: WayTable, nodes: RoadNodes, stats: RoadGraphStats): Uint8Array {
  const U = nodes.count;
  const { have, blocked, refIdx } = nodes;
  const wrs = ways.refStart;
  const use = new Uint8Array(U);
  const isVertex = new Uint8Array(U);
  for (let p = 0; p < U; p++) {
    if (!have[p]) stats.missingNodes++;
    else if (blocked[p]) { isVertex[p] = 1; stats.barriers++; }
  }
  for (let w = 0; w < ways.count; w++) {
    const s = wrs[w];
    const e = wrs[w + 1];
    isVertex[refIdx[s]] = 1;
    isVertex[refIdx[e - 1]] = 1;
    let prev = -1;
    for (let i = s; i < e; i++) {
      const p = refIdx[i];
      if (p === prev) continue;
      if (use[p] < 2 && ++use[p] === 2) isVertex[p] = 1;
      if (!have[p]) {
        if (i > s) isVertex[refIdx[i - 1]] = 1;
        if (i + 1 < e) isVertex[refIdx[i + 1]] = 1;
      }
      prev = p;
    }
  }
  return isVertex;
}

/**
 * Cuts every way at its graph vertices into edges (the nodes between stay as the edge's
 * polyline; haversine length in metres). Consecutive duplicate references are skipped, segments
 * touching a missing node dropped, and a closed loop edge is cut once more at its middle node
 * (which becomes a vertex), so there are no self loops. Vertices are numbered in order of first use.
 */
function cutWaysIntoEdges(ways: WayTable, nodes: RoadNodes, isVertex: Uint8Array, signal: AbortSignal | undefined): EdgeTable {
  const { ids, refIdx, have, lat: nLat, lon: nLon } = nodes;
  const wrs = ways.refStart;
  const vertexId = new Uint32Array(nodes.count).fill(NONE);
  const vLat = new GrowF64(1 << 12);
  const vLon = new GrowF64(1 << 12);
  const vOsm = new GrowF64(1 << 12);
  const getVertex = (p: number): number => {
    let v = vertexId[p];
    if (v === NONE) {
      v = vertexId[p] = vLat.n;
      vLat.push(nLat[p]);
      vLon.push(nLon[p]);
      vOsm.push(ids[p]);
    }
    return v;
  };
  const gLat = new GrowF64(1 << 16);
  const gLon = new GrowF64(1 << 16);
  const eGeom = new GrowU32(1 << 12);
  const eU = new GrowU32(1 << 12);
  const eV = new GrowU32(1 << 12);
  const eWay = new GrowU32(1 << 12);
  const eLenM = new GrowF64(1 << 12);
  const wayEdgeStart = new Uint32Array(ways.count + 1);

  let cur = new Uint32Array(256);
  const emit = (w: number, from: number, to: number): void => {
    // cur[from..to] are node indices (to inclusive), cur[from] and cur[to] are vertices.
    const u = getVertex(cur[from]);
    const v = getVertex(cur[to]);
    eGeom.push(gLat.n);
    eU.push(u);
    eV.push(v);
    eWay.push(w);
    let len = 0;
    let plat = nLat[cur[from]];
    let plon = nLon[cur[from]];
    gLat.push(plat);
    gLon.push(plon);
    for (let i = from + 1; i <= to; i++) {
      const la = nLat[cur[i]];
      const lo = nLon[cur[i]];
      len += haversine(plat, plon, la, lo);
      gLat.push(la);
      gLon.push(lo);
      plat = la;
      plon = lo;
    }
    eLenM.push(len);
  };
  const emitChain = (w: number, cnt: number): void => {
    if (cur[0] === cur[cnt - 1]) {
      if (cnt < 3) return;
      const mid = cnt >> 1;
      isVertex[cur[mid]] = 1;
      emit(w, 0, mid);
      emit(w, mid, cnt - 1);
    } else emit(w, 0, cnt - 1);
  };

  for (let w = 0; w < ways.count; w++) {
    if ((w & 4095) === 0) throwIfAborted(signal);
    const s = wrs[w];
    const e = wrs[w + 1];
    if (e - s > cur.length) cur = new Uint32Array((e - s) * 2);
    wayEdgeStart[w] = eU.n;
    let cnt = 0;
    for (let i = s; i < e; i++) {
      const p = refIdx[i];
      if (cnt > 0 && cur[cnt - 1] === p) continue;
      if (!have[p]) { cnt = 0; continue; }
      cur[cnt++] = p;
      if (cnt > 1 && isVertex[p]) {
        emitChain(w, cnt);
        cur[0] = p;
        cnt = 1;
      }
    }
  }
  wayEdgeStart[ways.count] = eU.n;
  return { vertexId, vLat, vLon, vOsm, geom: eGeom, gLat, gLon, u: eU, v: eV, way: eWay, lenM: eLenM, wayEdgeStart };
}

/**
 * Arcs for each drivable direction of every edge, way by way (forward before backward):
 * `timeMs = round(lengthM · 3600 / speedKmh)` (a ferry's `duration` shared out by length instead),
 * `lengthCm = round(lengthM · 100)`, both at least 1.
 */
function wayArcs(ways: WayTable, edges: EdgeTable): ArcTable {
  const aTail = new GrowU32(1 << 13);
  const aHead = new GrowU32(1 << 13);
  const aRef = new GrowU32(1 << 13);
  const aTime = new GrowU32(1 << 13);
  const aLen = new GrowU32(1 << 13);
  const eU = edges.u.a, eV = edges.v.a, eLenM = edges.lenM.a;
  const wes = edges.wayEdgeStart;
  for (let w = 0; w < ways.count; w++) {
    const firstEdge = wes[w];
    const endEdge = wes[w + 1];
    const dir = ways.dir[w];
    const dur = ways.duration[w];
    let wayLen = 0;
    if (!Number.isNaN(dur)) for (let k = firstEdge; k < endEdge; k++) wayLen += eLenM[k];
    for (let k = firstEdge; k < endEdge; k++) {
      const len = eLenM[k];
      const lenCm = Math.max(1, Math.round(len * 100));
      let tf: number;
      let tb: number;
      if (!Number.isNaN(dur) && wayLen > 0) tf = tb = dur * 1000 * (len / wayLen);
      else {
        tf = (len * 3600) / ways.speedF[w];
        tb = (len * 3600) / ways.speedB[w];
      }
      if (dir & 1) {
        aTail.push(eU[k]); aHead.push(eV[k]); aRef.push(k * 2); aTime.push(Math.max(1, Math.round(tf))); aLen.push(lenCm);
      }
      if (dir & 2) {
        aTail.push(eV[k]); aHead.push(eU[k]); aRef.push(k * 2 + 1); aTime.push(Math.max(1, Math.round(tb))); aLen.push(lenCm);
      }
    }
  }
  return { tail: aTail, head: aHead, ref: aRef, time: aTime, len: aLen };
}

/**
 * Turn restrictions and blocking barriers by via-node splitting (see docs/road-graph.md): the
 * restrictions are resolved to via vertices and checked against the arcs there, then every via
 * vertex is split. Adds vertices to `edges` and arcs to `arcs`; counts outcomes in `stats`.
 */
function splitViaNodes(ways: WayTable, nodes: RoadNodes, edges: EdgeTable, arcs: ArcTable, stats: RoadGraphStats): void {
  const { slotOf, pending } = viaSlots(ways, nodes, edges.vertexId, stats.restrictions);
  if (slotOf.size === 0) return;
  for (let a = 0; a < arcs.tail.n; a++) {
    const so = slotOf.get(arcs.tail.a[a]);
    if (so) so.outs.push(a);
    const si = slotOf.get(arcs.head.a[a]);
    if (si) si.ins.push(a);
  }
  for (const pr of pending) attachRule(slotOf.get(pr.v)!, pr, edges.way, arcs.ref, stats.restrictions);
  const order = [...slotOf.keys()].sort((x, y) => x - y);
  for (const v of order) splitSlot(slotOf.get(v)!, slotOf, edges, arcs, stats);
}

/**
 * A slot per via vertex: one for every restriction whose via node is a graph vertex and whose
 * from and to ways include car ways (via-way and unresolvable restrictions are counted and
 * dropped), and one for every blocking barrier that is a vertex.
 */
function viaSlots(ways: WayTable, nodes: RoadNodes, vertexId: Uint32Array, r: RoadGraphStats['restrictions']): { slotOf: Map<number, ViaSlot>; pending: PendingRule[] } {
  const { ids, count: U, blocked } = nodes;
  const slotOf = new Map<number, ViaSlot>();
  const slot = (v: number): ViaSlot => {
    let s = slotOf.get(v);
    if (!s) { s = { vertex: v, ins: [], outs: [], rules: [], barrier: false, processed: false }; slotOf.set(v, s); }
    return s;
  };
  const pending: PendingRule[] = [];
  for (const rr of ways.restrictions) {
    if (rr.viaWays.length > 0) { r.skippedViaWay++; continue; }
    const pi = lowerBound(ids, rr.viaNodes[0]);
    if (pi >= U || ids[pi] !== rr.viaNodes[0] || vertexId[pi] === NONE) { r.skippedMissing++; continue; }
    const from = rr.from.map((id) => ways.indexById.get(id)).filter((x): x is number => x !== undefined);
    const to = rr.to.map((id) => ways.indexById.get(id)).filter((x): x is number => x !== undefined);
    if (from.length === 0 || to.length === 0) { r.skippedMissing++; continue; }
    const v = vertexId[pi];
    slot(v);
    pending.push({ v, raw: rr, from, to });
  }
  for (let p = 0; p < U; p++) if (blocked[p] && vertexId[p] !== NONE) slot(vertexId[p]).barrier = true;
  return { slotOf, pending };
}

/**
 * Checks a restriction against the arcs at its via vertex and, when it is unambiguous, adds it to
 * the slot as a rule over edges: the from way's arriving edges, the to way's leaving edges (onto
 * the from way itself: the same edge back for a u-turn rule, the way's other edge otherwise).
 */
function attachRule(s: ViaSlot, pr: PendingRule, eWay: GrowU32, aRef: GrowU32, r: RoadGraphStats['restrictions']): void {
  const wayOfArc = (a: number) => eWay.a[aRef.a[a] >>> 1];
  const edgeOfArc = (a: number) => aRef.a[a] >>> 1;
  const fromSet = new Set(pr.from);
  const toSet = new Set(pr.to);
  const fromEdges = new Map<number, Set<number>>();
  for (const a of s.ins) {
    const w = wayOfArc(a);
    if (fromSet.has(w)) { let m = fromEdges.get(w); if (!m) fromEdges.set(w, (m = new Set())); m.add(edgeOfArc(a)); }
  }
  const allFromEdges = new Set<number>();
  for (const m of fromEdges.values()) for (const e of m) allFromEdges.add(e);
  const toEdges = new Map<number, Set<number>>();
  for (const a of s.outs) {
    const w = wayOfArc(a);
    const e = edgeOfArc(a);
    if (!toSet.has(w)) continue;
    // Onto the from way itself: a u-turn rule means the same edge back, any other rule the way's other edge.
    if (fromSet.has(w) && (pr.raw.uturn ? !allFromEdges.has(e) : allFromEdges.has(e))) continue;
    let m = toEdges.get(w); if (!m) toEdges.set(w, (m = new Set())); m.add(e);
  }
  if (fromEdges.size === 0 || toEdges.size === 0) { r.skippedNotAdjacent++; return; }
  let ambiguous = false;
  for (const [w, m] of fromEdges) if (m.size > 1 && !(pr.raw.uturn && toSet.has(w))) ambiguous = true;
  for (const [w, m] of toEdges) if (m.size > 1 && !(pr.raw.uturn && fromSet.has(w))) ambiguous = true;
  if (ambiguous) { r.skippedAmbiguous++; return; }
  s.rules.push({ kind: pr.raw.kind, uturn: pr.raw.uturn, from: new Set(fromEdges.keys()), to: new Set(toEdges.keys()) });
  r.applied++;
}

/**
 * Splits one via vertex: its arriving arcs are grouped by the set of leaving arcs they may take
 * (a barrier: only back along the same edge); the group that may take all stays, every other
 * group is redirected to its own copy of the vertex, which gets copies of just the allowed
 * leaving arcs. A copied arc whose head is a via vertex not yet split joins that vertex's
 * arriving arcs, so neighbouring via vertices compose in any order.
 */
function splitSlot(s: ViaSlot, slotOf: Map<number, ViaSlot>, edges: EdgeTable, arcs: ArcTable, stats: RoadGraphStats): void {
  s.processed = true;
  if (!s.barrier && s.rules.length === 0) return;
  const { tail: aTail, head: aHead, ref: aRef, time: aTime, len: aLen } = arcs;
  const { vLat, vLon, vOsm } = edges;
  const eWay = edges.way;
  const wayOfArc = (a: number) => eWay.a[aRef.a[a] >>> 1];
  const edgeOfArc = (a: number) => aRef.a[a] >>> 1;
  const v = s.vertex;
  const O = s.outs;
  const groups = new Map<string, number[]>();
  const allowed = new Uint8Array(O.length);
  let full = '';
  for (let j = 0; j < O.length; j++) full += '1';
  for (const a of s.ins) {
    const wa = wayOfArc(a);
    const ea = edgeOfArc(a);
    allowed.fill(1);
    if (s.barrier) {
      for (let j = 0; j < O.length; j++) allowed[j] = edgeOfArc(O[j]) === ea ? 1 : 0;
    } else {
      for (const rule of s.rules) {
        if (!rule.from.has(wa)) continue;
        for (let j = 0; j < O.length; j++) {
          const b = O[j];
          const eb = edgeOfArc(b);
          const wb = wayOfArc(b);
          // Back onto the way we came from: a u-turn rule is about the same edge, others about the way's other edge.
          const match = rule.to.has(wb) && (wb !== wa || (rule.uturn ? eb === ea : eb !== ea));
          if (rule.kind === 'no' ? match : !match) allowed[j] = 0;
        }
      }
    }
    let key = '';
    for (let j = 0; j < O.length; j++) key += allowed[j] ? '1' : '0';
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(a);
  }
  let changed = false;
  for (const [key, ins] of groups) {
    if (key === full) continue;
    changed = true;
    const c = vLat.n;
    vLat.push(vLat.a[v]);
    vLon.push(vLon.a[v]);
    vOsm.push(vOsm.a[v]);
    stats.splitNodesAdded++;
    for (const a of ins) aHead.a[a] = c;
    for (let j = 0; j < O.length; j++) {
      if (key.charCodeAt(j) !== 49) continue; // '1'
      const b = O[j];
      const na = aTail.n;
      const h = aHead.a[b];
      aTail.push(c); aHead.push(h); aRef.push(aRef.a[b]); aTime.push(aTime.a[b]); aLen.push(aLen.a[b]);
      const hs = slotOf.get(h);
      if (hs && !hs.processed) hs.ins.push(na);
    }
  }
  if (!changed && s.rules.length > 0) stats.restrictions.noEffect += s.rules.length;
}

/**
 * Which of the N0 vertices to keep: those of the largest strongly connected component (iterative
 * Tarjan over a CSR of the arcs), or all of them with `keepAll`. Fills `stats.scc` components and largest.
 */
function largestComponent(N0: number, arcs: ArcTable, keepAll: boolean, stats: RoadGraphStats): Uint8Array {
  const M0 = arcs.tail.n;
  const tailA = arcs.tail.view();
  const headA = arcs.head.view();
  const keepNode = new Uint8Array(N0);
  const fo = new Uint32Array(N0 + 1);
  for (let a = 0; a < M0; a++) fo[tailA[a] + 1]++;
  for (let v = 0; v < N0; v++) fo[v + 1] += fo[v];
  const pos = fo.slice(0, N0);
  const adj = new Uint32Array(M0);
  for (let a = 0; a < M0; a++) adj[pos[tailA[a]]++] = headA[a];
  const scc = stronglyConnectedComponents(N0, fo, adj);
  stats.scc.components = scc.count;
  stats.scc.largest = scc.largest >= 0 ? scc.sizes[scc.largest] : 0;
  for (let v = 0; v < N0; v++) keepNode[v] = keepAll || scc.comp[v] === scc.largest ? 1 : 0;
  return keepNode;
}

/**
 * The final {@link RoadGraph} from the kept vertices: nodes renumbered along a Hilbert curve,
 * arcs between kept nodes sorted by tail (CSR, stable in build order), edges numbered in order of
 * first use with their geometry and way attributes, the edge → arcs index and the string table.
 */
function assembleGraph(ways: WayTable, edges: EdgeTable, arcs: ArcTable, keepNode: Uint8Array, stats: RoadGraphStats): RoadGraph {
  const N0 = keepNode.length;
  const kept: number[] = [];
  for (let v = 0; v < N0; v++) if (keepNode[v]) kept.push(v);
  const n = kept.length;
  const newId = hilbertOrder(kept, edges.vLat.a, edges.vLon.a, N0);
  const lat = new Float64Array(n);
  const lon = new Float64Array(n);
  const nodeOsmId = new Float64Array(n);
  for (const v of kept) {
    const i = newId[v];
    lat[i] = edges.vLat.a[v];
    lon[i] = edges.vLon.a[v];
    nodeOsmId[i] = edges.vOsm.a[v];
  }
  const csr = csrArcs(arcs, newId, n, edges.u.n);
  stats.scc.droppedNodes = N0 - n;
  stats.scc.droppedArcs = arcs.tail.n - csr.m;
  const edgeData = edgeArrays(ways, edges, csr.edgeOld);
  const { edgeArcStart, edgeArcs } = edgeArcIndex(csr.arcEdge, csr.numEdges);
  const { strOffsets, strBytes } = stringTable(ways.strings);
  stats.numNodes = n;
  stats.numArcs = csr.m;
  stats.numEdges = csr.numEdges;
  stats.geometryPoints = edgeData.edgeGeomStart[csr.numEdges];
  return new RoadGraph({
    numNodes: n, numArcs: csr.m, numEdges: csr.numEdges, firstOut: csr.firstOut, head: csr.head, tail: csr.tail,
    timeMs: csr.timeMs, lengthCm: csr.lengthCm, arcEdge: csr.arcEdge, lat, lon, nodeOsmId, ...edgeData, edgeArcStart, edgeArcs,
    strOffsets, strBytes,
  });
}

/** New id of each kept vertex (NONE for the others): rank along a Hilbert curve over the kept vertices' bounding box, ties by old id. */
function hilbertOrder(kept: number[], vLat: Float64Array, vLon: Float64Array, N0: number): Uint32Array {
  const n = kept.length;
  const newId = new Uint32Array(N0).fill(NONE);
  let minLat = Infinity, maxLat = -Infinity, minLon = Infinity, maxLon = -Infinity;
  for (const v of kept) {
    const la = vLat[v], lo = vLon[v];
    if (la < minLat) minLat = la;
    if (la > maxLat) maxLat = la;
    if (lo < minLon) minLon = lo;
    if (lo > maxLon) maxLon = lo;
  }
  const sx = 65535 / ((maxLon - minLon) || 1);
  const sy = 65535 / ((maxLat - minLat) || 1);
  const keys = new Float64Array(n);
  if (n < 1 << 21) {
    for (let i = 0; i < n; i++) {
      const v = kept[i];
      keys[i] = hilbert16(((vLon[v] - minLon) * sx) | 0, ((vLat[v] - minLat) * sy) | 0) * 2097152 + i;
    }
    keys.sort();
    for (let i = 0; i < n; i++) newId[kept[keys[i] % 2097152]] = i;
  } else {
    const h = kept.map((v) => hilbert16(((vLon[v] - minLon) * sx) | 0, ((vLat[v] - minLat) * sy) | 0));
    const idx = kept.map((_, i) => i).sort((x, y) => h[x] - h[y] || x - y);
    for (let i = 0; i < n; i++) newId[kept[idx[i]]] = i;
  }
  return newId;
}

/**
 * The arcs whose both ends are kept, renumbered and sorted by new tail (stable in build order);
 * edges get new ids in order of first use by these arcs (`edgeOld` maps back).
 */
function csrArcs(arcs: ArcTable, newId: Uint32Array, n: number, E0: number) {
  const M0 = arcs.tail.n;
  const tailA = arcs.tail.a, headA = arcs.head.a, aRef = arcs.ref.a, aTime = arcs.time.a, aLen = arcs.len.a;
  const firstOut = new Uint32Array(n + 1);
  let m = 0;
  for (let a = 0; a < M0; a++) {
    const t = newId[tailA[a]];
    const h = newId[headA[a]];
    if (t === NONE || h === NONE) continue;
    firstOut[t + 1]++;
    m++;
  }
  for (let v = 0; v < n; v++) firstOut[v + 1] += firstOut[v];
  const fill = firstOut.slice(0, n);
  const order = new Uint32Array(m);
  for (let a = 0; a < M0; a++) {
    const t = newId[tailA[a]];
    if (t === NONE || newId[headA[a]] === NONE) continue;
    order[fill[t]++] = a;
  }
  const head = new Uint32Array(m);
  const tail = new Uint32Array(m);
  const timeMs = new Uint32Array(m);
  const lengthCm = new Uint32Array(m);
  const arcEdge = new Uint32Array(m);
  const newEdge = new Uint32Array(E0).fill(NONE);
  let numEdges = 0;
  const edgeOld: number[] = [];
  for (let i = 0; i < m; i++) {
    const a = order[i];
    tail[i] = newId[tailA[a]];
    head[i] = newId[headA[a]];
    timeMs[i] = aTime[a];
    lengthCm[i] = aLen[a];
    const oe = aRef[a] >>> 1;
    let ne = newEdge[oe];
    if (ne === NONE) { ne = newEdge[oe] = numEdges++; edgeOld.push(oe); }
    arcEdge[i] = (ne << 1) | (aRef[a] & 1);
  }
  return { m, firstOut, head, tail, timeMs, lengthCm, arcEdge, numEdges, edgeOld };
}

/** Geometry (both ends included, once per edge) and way attributes of the new edges, `edgeOld[e]` being new edge e's build index. */
function edgeArrays(ways: WayTable, edges: EdgeTable, edgeOld: number[]) {
  const numEdges = edgeOld.length;
  const E0 = edges.u.n;
  const eGeom = edges.geom.a, gLat = edges.gLat, gLon = edges.gLon, eWay = edges.way.a;
  const edgeGeomStart = new Uint32Array(numEdges + 1);
  for (let e = 0; e < numEdges; e++) {
    const oe = edgeOld[e];
    const len = (oe + 1 < E0 ? eGeom[oe + 1] : gLat.n) - eGeom[oe];
    edgeGeomStart[e + 1] = edgeGeomStart[e] + len;
  }
  const P = edgeGeomStart[numEdges];
  const geomLat = new Float64Array(P);
  const geomLon = new Float64Array(P);
  const edgeNameId = new Uint32Array(numEdges);
  const edgeRefId = new Uint32Array(numEdges);
  const edgeDestId = new Uint32Array(numEdges);
  const edgeFlags = new Uint16Array(numEdges);
  const edgeClass = new Uint8Array(numEdges);
  const edgeWayId = new Float64Array(numEdges);
  for (let e = 0; e < numEdges; e++) {
    const oe = edgeOld[e];
    const s = eGeom[oe];
    const len = edgeGeomStart[e + 1] - edgeGeomStart[e];
    geomLat.set(gLat.a.subarray(s, s + len), edgeGeomStart[e]);
    geomLon.set(gLon.a.subarray(s, s + len), edgeGeomStart[e]);
    const w = eWay[oe];
    edgeNameId[e] = ways.nameId[w];
    edgeRefId[e] = ways.refId[w];
    edgeDestId[e] = ways.destId[w];
    edgeFlags[e] = ways.flags[w];
    edgeClass[e] = ways.cls[w];
    edgeWayId[e] = ways.osmId[w];
  }
  return { edgeGeomStart, geomLat, geomLon, edgeNameId, edgeRefId, edgeDestId, edgeFlags, edgeClass, edgeWayId };
}

/** Edge → arcs index: edge e's arcs are `edgeArcs[edgeArcStart[e] .. edgeArcStart[e + 1] - 1]`, forward ones first. */
function edgeArcIndex(arcEdge: Uint32Array, numEdges: number): { edgeArcStart: Uint32Array; edgeArcs: Uint32Array } {
  const m = arcEdge.length;
  const bucket = new Uint32Array(2 * numEdges + 1);
  for (let i = 0; i < m; i++) bucket[arcEdge[i] + 1]++;
  for (let k = 0; k < 2 * numEdges; k++) bucket[k + 1] += bucket[k];
  const edgeArcStart = new Uint32Array(numEdges + 1);
  for (let e = 0; e <= numEdges; e++) edgeArcStart[e] = bucket[2 * e];
  const edgeArcs = new Uint32Array(m);
  for (let i = 0; i < m; i++) edgeArcs[bucket[arcEdge[i]]++] = i;
  return { edgeArcStart, edgeArcs };
}

/** UTF-8 string table: string i is `strBytes[strOffsets[i] .. strOffsets[i + 1] - 1]`. */
function stringTable(strings: string[]): { strOffsets: Uint32Array; strBytes: Uint8Array } {
  const enc = new TextEncoder();
  const encoded = strings.map((s) => enc.encode(s));
  const strOffsets = new Uint32Array(strings.length + 1);
  for (let i = 0; i < encoded.length; i++) strOffsets[i + 1] = strOffsets[i] + encoded[i].length;
  const strBytes = new Uint8Array(strOffsets[strings.length]);
  for (let i = 0; i < encoded.length; i++) strBytes.set(encoded[i], strOffsets[i]);
  return { strOffsets, strBytes };
}

function uniqueSorted(a: Float64Array): Float64Array {
  const s = Float64Array.from(a).sort();
  let k = 0;
  for (let i = 0; i < s.length; i++) if (i === 0 || s[i] !== s[k - 1]) s[k++] = s[i];
  return s.slice(0, k);
}

/** Hilbert curve index of (x, y) on a 65536 × 65536 grid (32-bit result as a non-negative number). */
export function hilbert16(x: number, y: number): number {
  let d = 0;
  for (let s = 1 << 15; s > 0; s >>>= 1) {
    const rx = (x & s) > 0 ? 1 : 0;
    const ry = (y & s) > 0 ? 1 : 0;
    d += s * s * ((3 * rx) ^ ry);
    if (ry === 0) {
      if (rx === 1) {
        x = 65535 - x;
        y = 65535 - y;
      }
      const t = x;
      x = y;
      y = t;
    }
  }
  return d;
}
