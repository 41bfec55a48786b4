/**
 * Builds the car {@link RoadGraph} from OSM data.
 *
 * 1. Pass over ways (+ restriction relations): the car profile keeps drivable ways; their node
 *    references are collected; names are interned.
 * 2. Pass over nodes: coordinates of the referenced nodes only, and which of them are barriers.
 * 3. Junction detection: a node becomes a graph node when it ends a way, is shared by two ways
 *    (or twice by one), is a blocking barrier, or neighbours a node missing from the extract.
 *    Ways are cut at graph nodes into edges; the nodes between (degree 2) stay as geometry.
 *    A closed loop edge (u == v) is cut once more in its middle, so there are no self loops.
 * 4. Arcs per drivable direction, with integer time (ms) and length (cm, haversine along the
 *    polyline); ferries with a `duration` tag share it out by length.
 * 5. Turn restrictions with a via *node* (and blocking barriers) by splitting the via node: each
 *    group of incoming arcs with the same set of allowed outgoing arcs gets its own copy of the
 *    node, carrying copies of just those outgoing arcs. Plain node-based searches then obey
 *    them. Restrictions with a via *way* are counted and skipped (see docs/road-graph.md).
 * 6. The largest strongly connected component is kept; nodes are renumbered along a Hilbert
 *    curve (locality), edges in order of first use, arcs sorted by tail (CSR).
 */
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

function lowerBound(arr: Float64Array, v: number): number {
  let lo = 0;
  let hi = arr.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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

const NONE = 0xffffffff;

/** Builds the car road graph from an OSM PBF file (bytes or opened) or any {@link OsmSource}. */
export function buildRoadGraph(input: OsmPbfFile | Uint8Array | OsmSource, opts: BuildRoadGraphOptions = {}): { graph: RoadGraph; stats: RoadGraphStats } {
  const t0 = performance.now();
  const src: OsmSource = input instanceof Uint8Array ? new OsmPbfFile(input) : input;
  const signal = opts.signal;
  const progress: ProgressCallback | undefined = opts.onProgress;
  const phaseDone = (phase: string) => progress?.({ phase, done: 1, total: 1 });

  const stats: RoadGraphStats = {
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

  // ---- pass 1: ways and restriction relations ------------------------------------------------
  const refs = new GrowF64(1 << 16);
  const wayRefStart = new GrowU32();
  const wayOsmId = new GrowF64();
  const wayCls = new GrowU32();
  const wayFlags = new GrowU32();
  const wayDir = new GrowU32(); // bit 0 forward, bit 1 backward
  const waySpeedF = new GrowF64();
  const waySpeedB = new GrowF64();
  const wayDuration = new GrowF64(); // seconds, NaN = none
  const wayNameId = new GrowU32();
  const wayRefId = new GrowU32();
  const wayIndexById = new Map<number, number>();
  const strIds = new Map<string, number>([['', 0]]);
  const strList: string[] = [''];
  const intern = (s: string): number => {
    let id = strIds.get(s);
    if (id === undefined) {
      id = strList.length;
      strList.push(s);
      strIds.set(s, id);
    }
    return id;
  };
  const rawRestrictions: RawRestriction[] = [];
  const r = stats.restrictions;

  src.read({
    way(id: number, wrefs: Float64Array, n: number, tags: Tags) {
      stats.ways.total++;
      if (n < 2) return;
      const p = carWayProfile(tags);
      if (p === null || !(p.forward || p.backward)) return;
      stats.ways.car++;
      if (p.flags & EdgeFlag.Ferry) stats.ways.ferries++;
      wayIndexById.set(id, wayOsmId.n);
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
    },
    relation(id: number, members: RelationMember[], tags: Tags) {
      if (tags.type !== 'restriction') return;
      r.relations++;
      const t = carRestriction(tags);
      if (!t.ok) {
        if (t.reason === 'except') r.skippedExcept++;
        else if (t.reason === 'conditional') r.skippedConditional++;
        else if (t.reason === 'other-vehicle') r.skippedNotForCars++;
        else r.skippedInvalid++;
        return;
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
        return;
      }
      rawRestrictions.push(rr);
    },
  }, { signal, onProgress: progress, phase: 'osm-ways' });
  wayRefStart.push(refs.n);
  const numWays = wayOsmId.n;
  const t1 = performance.now();
  stats.timingsMs.ways = t1 - t0;
  throwIfAborted(signal);

  // Distinct referenced node ids, sorted; every reference → index.
  const refArr = refs.view();
  const ids = uniqueSorted(refArr);
  const U = ids.length;
  stats.roadNodes = U;
  const refIdx = new Uint32Array(refArr.length);
  for (let i = 0; i < refArr.length; i++) refIdx[i] = lowerBound(ids, refArr[i]);

  // ---- pass 2: node coordinates -------------------------------------------------------------
  const nLat = new Float64Array(U);
  const nLon = new Float64Array(U);
  const have = new Uint8Array(U);
  const blocked = new Uint8Array(U);
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
  }, { signal, onProgress: progress, phase: 'osm-nodes' });
  const t2 = performance.now();
  stats.timingsMs.nodes = t2 - t1;
  throwIfAborted(signal);

  // ---- junctions ----------------------------------------------------------------------------
  const wrs = wayRefStart.view();
  const use = new Uint8Array(U);
  const isVertex = new Uint8Array(U);
  for (let p = 0; p < U; p++) {
    if (!have[p]) stats.missingNodes++;
    else if (blocked[p]) { isVertex[p] = 1; stats.barriers++; }
  }
  for (let w = 0; w < numWays; w++) {
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

  // ---- edges and arcs -----------------------------------------------------------------------
  const vertexId = new Uint32Array(U).fill(NONE);
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
  const aTail = new GrowU32(1 << 13);
  const aHead = new GrowU32(1 << 13);
  const aRef = new GrowU32(1 << 13);
  const aTime = new GrowU32(1 << 13);
  const aLen = new GrowU32(1 << 13);

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

  for (let w = 0; w < numWays; w++) {
    if ((w & 4095) === 0) throwIfAborted(signal);
    const s = wrs[w];
    const e = wrs[w + 1];
    if (e - s > cur.length) cur = new Uint32Array((e - s) * 2);
    const firstEdge = eU.n;
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
    // Arcs of this way's edges.
    const dir = wayDir.a[w];
    const dur = wayDuration.a[w];
    let wayLen = 0;
    if (!Number.isNaN(dur)) for (let k = firstEdge; k < eU.n; k++) wayLen += eLenM.a[k];
    for (let k = firstEdge; k < eU.n; k++) {
      const len = eLenM.a[k];
      const lenCm = Math.max(1, Math.round(len * 100));
      let tf: number;
      let tb: number;
      if (!Number.isNaN(dur) && wayLen > 0) tf = tb = dur * 1000 * (len / wayLen);
      else {
        tf = (len * 3600) / waySpeedF.a[w];
        tb = (len * 3600) / waySpeedB.a[w];
      }
      if (dir & 1) {
        aTail.push(eU.a[k]); aHead.push(eV.a[k]); aRef.push(k * 2); aTime.push(Math.max(1, Math.round(tf))); aLen.push(lenCm);
      }
      if (dir & 2) {
        aTail.push(eV.a[k]); aHead.push(eU.a[k]); aRef.push(k * 2 + 1); aTime.push(Math.max(1, Math.round(tb))); aLen.push(lenCm);
      }
    }
  }
  stats.junctions = vLat.n;
  stats.edges = eU.n;
  stats.arcs = aTail.n;
  const t3 = performance.now();
  stats.timingsMs.edges = t3 - t2;
  progress?.({ phase: 'graph-edges', done: 1, total: 1 });
  throwIfAborted(signal);

  // ---- turn restrictions and barriers: via-node splitting ----------------------------------
  const slotOf = new Map<number, ViaSlot>();
  const slot = (v: number): ViaSlot => {
    let s = slotOf.get(v);
    if (!s) { s = { vertex: v, ins: [], outs: [], rules: [], barrier: false, processed: false }; slotOf.set(v, s); }
    return s;
  };
  const pendingRules: { v: number; raw: RawRestriction; from: number[]; to: number[] }[] = [];
  for (const rr of rawRestrictions) {
    if (rr.viaWays.length > 0) { r.skippedViaWay++; continue; }
    const pi = lowerBound(ids, rr.viaNodes[0]);
    if (pi >= U || ids[pi] !== rr.viaNodes[0] || vertexId[pi] === NONE) { r.skippedMissing++; continue; }
    const from = rr.from.map((id) => wayIndexById.get(id)).filter((x): x is number => x !== undefined);
    const to = rr.to.map((id) => wayIndexById.get(id)).filter((x): x is number => x !== undefined);
    if (from.length === 0 || to.length === 0) { r.skippedMissing++; continue; }
    const v = vertexId[pi];
    slot(v);
    pendingRules.push({ v, raw: rr, from, to });
  }
  for (let p = 0; p < U; p++) if (blocked[p] && vertexId[p] !== NONE) slot(vertexId[p]).barrier = true;

  if (slotOf.size > 0) {
    for (let a = 0; a < aTail.n; a++) {
      const so = slotOf.get(aTail.a[a]);
      if (so) so.outs.push(a);
      const si = slotOf.get(aHead.a[a]);
      if (si) si.ins.push(a);
    }
    const wayOfArc = (a: number) => eWay.a[aRef.a[a] >>> 1];
    const edgeOfArc = (a: number) => aRef.a[a] >>> 1;
    // Validate rules against the arcs at their via node.
    for (const pr of pendingRules) {
      const s = slotOf.get(pr.v)!;
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
      if (fromEdges.size === 0 || toEdges.size === 0) { r.skippedNotAdjacent++; continue; }
      let ambiguous = false;
      for (const [w, m] of fromEdges) if (m.size > 1 && !(pr.raw.uturn && toSet.has(w))) ambiguous = true;
      for (const [w, m] of toEdges) if (m.size > 1 && !(pr.raw.uturn && fromSet.has(w))) ambiguous = true;
      if (ambiguous) { r.skippedAmbiguous++; continue; }
      s.rules.push({ kind: pr.raw.kind, uturn: pr.raw.uturn, from: new Set(fromEdges.keys()), to: new Set(toEdges.keys()) });
      r.applied++;
    }

    const order = [...slotOf.keys()].sort((x, y) => x - y);
    for (const v of order) {
      const s = slotOf.get(v)!;
      s.processed = true;
      if (!s.barrier && s.rules.length === 0) continue;
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
      if (!changed && s.rules.length > 0) r.noEffect += s.rules.length;
    }
  }
  const t4 = performance.now();
  stats.timingsMs.restrictions = t4 - t3;
  progress?.({ phase: 'graph-restrictions', done: 1, total: 1 });
  throwIfAborted(signal);

  // ---- largest strongly connected component -------------------------------------------------
  const N0 = vLat.n;
  const M0 = aTail.n;
  const tailA = aTail.view();
  const headA = aHead.view();
  const keepNode = new Uint8Array(N0);
  {
    const fo = new Uint32Array(N0 + 1);
    for (let a = 0; a < M0; a++) fo[tailA[a] + 1]++;
    for (let v = 0; v < N0; v++) fo[v + 1] += fo[v];
    const pos = fo.slice(0, N0);
    const adj = new Uint32Array(M0);
    for (let a = 0; a < M0; a++) adj[pos[tailA[a]]++] = headA[a];
    const scc = stronglyConnectedComponents(N0, fo, adj);
    stats.scc.components = scc.count;
    stats.scc.largest = scc.largest >= 0 ? scc.sizes[scc.largest] : 0;
    const keepAll = opts.largestSccOnly === false;
    for (let v = 0; v < N0; v++) keepNode[v] = keepAll || scc.comp[v] === scc.largest ? 1 : 0;
  }
  const t5 = performance.now();
  stats.timingsMs.scc = t5 - t4;
  progress?.({ phase: 'graph-scc', done: 1, total: 1 });
  throwIfAborted(signal);

  // ---- renumber and assemble ------------------------------------------------------------------
  // Nodes along a Hilbert curve.
  const kept: number[] = [];
  for (let v = 0; v < N0; v++) if (keepNode[v]) kept.push(v);
  const n = kept.length;
  const newId = new Uint32Array(N0).fill(NONE);
  {
    let minLat = Infinity, maxLat = -Infinity, minLon = Infinity, maxLon = -Infinity;
    for (const v of kept) {
      const la = vLat.a[v], lo = vLon.a[v];
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
        keys[i] = hilbert16(((vLon.a[v] - minLon) * sx) | 0, ((vLat.a[v] - minLat) * sy) | 0) * 2097152 + i;
      }
      keys.sort();
      for (let i = 0; i < n; i++) newId[kept[keys[i] % 2097152]] = i;
    } else {
      const h = kept.map((v) => hilbert16(((vLon.a[v] - minLon) * sx) | 0, ((vLat.a[v] - minLat) * sy) | 0));
      const idx = kept.map((_, i) => i).sort((x, y) => h[x] - h[y] || x - y);
      for (let i = 0; i < n; i++) newId[kept[idx[i]]] = i;
    }
  }
  const lat = new Float64Array(n);
  const lon = new Float64Array(n);
  const nodeOsmId = new Float64Array(n);
  for (const v of kept) {
    const i = newId[v];
    lat[i] = vLat.a[v];
    lon[i] = vLon.a[v];
    nodeOsmId[i] = vOsm.a[v];
  }
  // Arcs sorted by new tail (stable in old arc order).
  const firstOut = new Uint32Array(n + 1);
  let m = 0;
  for (let a = 0; a < M0; a++) {
    const t = newId[tailA[a]];
    const h = newId[headA[a]];
    if (t === NONE || h === NONE) continue;
    firstOut[t + 1]++;
    m++;
  }
  stats.scc.droppedNodes = N0 - n;
  stats.scc.droppedArcs = M0 - m;
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
  const E0 = eU.n;
  const newEdge = new Uint32Array(E0).fill(NONE);
  let numEdges = 0;
  const edgeOld: number[] = [];
  for (let i = 0; i < m; i++) {
    const a = order[i];
    tail[i] = newId[tailA[a]];
    head[i] = newId[headA[a]];
    timeMs[i] = aTime.a[a];
    lengthCm[i] = aLen.a[a];
    const oe = aRef.a[a] >>> 1;
    let ne = newEdge[oe];
    if (ne === NONE) { ne = newEdge[oe] = numEdges++; edgeOld.push(oe); }
    arcEdge[i] = (ne << 1) | (aRef.a[a] & 1);
  }
  // Edges: geometry and attributes.
  const edgeGeomStart = new Uint32Array(numEdges + 1);
  for (let e = 0; e < numEdges; e++) {
    const oe = edgeOld[e];
    const len = (oe + 1 < E0 ? eGeom.a[oe + 1] : gLat.n) - eGeom.a[oe];
    edgeGeomStart[e + 1] = edgeGeomStart[e] + len;
  }
  const P = edgeGeomStart[numEdges];
  const geomLat = new Float64Array(P);
  const geomLon = new Float64Array(P);
  const edgeNameId = new Uint32Array(numEdges);
  const edgeRefId = new Uint32Array(numEdges);
  const edgeFlags = new Uint16Array(numEdges);
  const edgeClass = new Uint8Array(numEdges);
  const edgeWayId = new Float64Array(numEdges);
  for (let e = 0; e < numEdges; e++) {
    const oe = edgeOld[e];
    const s = eGeom.a[oe];
    const len = edgeGeomStart[e + 1] - edgeGeomStart[e];
    geomLat.set(gLat.a.subarray(s, s + len), edgeGeomStart[e]);
    geomLon.set(gLon.a.subarray(s, s + len), edgeGeomStart[e]);
    const w = eWay.a[oe];
    edgeNameId[e] = wayNameId.a[w];
    edgeRefId[e] = wayRefId.a[w];
    edgeFlags[e] = wayFlags.a[w];
    edgeClass[e] = wayCls.a[w];
    edgeWayId[e] = wayOsmId.a[w];
  }
  // Edge → arcs index (forward arcs first).
  const bucket = new Uint32Array(2 * numEdges + 1);
  for (let i = 0; i < m; i++) bucket[arcEdge[i] + 1]++;
  for (let k = 0; k < 2 * numEdges; k++) bucket[k + 1] += bucket[k];
  const edgeArcStart = new Uint32Array(numEdges + 1);
  for (let e = 0; e <= numEdges; e++) edgeArcStart[e] = bucket[2 * e];
  const edgeArcs = new Uint32Array(m);
  for (let i = 0; i < m; i++) edgeArcs[bucket[arcEdge[i]]++] = i;
  // String table.
  const enc = new TextEncoder();
  const encoded = strList.map((s) => enc.encode(s));
  const strOffsets = new Uint32Array(strList.length + 1);
  for (let i = 0; i < encoded.length; i++) strOffsets[i + 1] = strOffsets[i] + encoded[i].length;
  const strBytes = new Uint8Array(strOffsets[strList.length]);
  for (let i = 0; i < encoded.length; i++) strBytes.set(encoded[i], strOffsets[i]);

  const graph = new RoadGraph({
    numNodes: n, numArcs: m, numEdges, firstOut, head, tail, timeMs, lengthCm, arcEdge, lat, lon, nodeOsmId,
    edgeGeomStart, geomLat, geomLon, edgeNameId, edgeRefId, edgeFlags, edgeClass, edgeWayId, edgeArcStart, edgeArcs,
    strOffsets, strBytes,
  });
  stats.numNodes = n;
  stats.numArcs = m;
  stats.numEdges = numEdges;
  stats.geometryPoints = P;
  const t6 = performance.now();
  stats.timingsMs.finish = t6 - t5;
  stats.timingsMs.total = t6 - t0;
  phaseDone('graph-finish');
  if (n === 0) throw new EngineError('InvalidInput', 'The OSM data holds no drivable road network (no car ways with coordinates).');
  return { graph, stats };
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
