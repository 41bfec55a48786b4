/**
 * Contraction hierarchy construction (Geisberger et al. 2008, with RoutingKit-style priorities).
 *
 * 1. The input arcs are normalised (loops dropped, parallel arcs reduced to the cheapest, ties to
 *    the lower arc id) and loaded into a dynamic overlay graph: per node an out-list and an
 *    in-list in flat typed-array pools (a list that outgrows its slot moves to the pool's end).
 * 2. Every node gets a priority from a simulated contraction:
 *       levelCoeff·level + edgeCoeff·added/removed + hopCoeff·addedHops/removedHops
 *       + deletedCoeff·deletedNeighbours
 *    where `added` is the number of shortcuts the contraction would add, `removed` = 1 + in-degree
 *    + out-degree, the hop terms count the original arcs the arcs stand for, `level` is the
 *    hierarchy depth (1 + the deepest contracted neighbour) and `deletedNeighbours` counts the
 *    neighbours contracted before.
 * 3. Nodes are contracted in priority order (indexed heap). For each in-neighbour u of the node v
 *    a one-to-many witness Dijkstra from u, skipping v, bounded by a settle limit and by the
 *    largest via-distance, decides which u→v→w need a shortcut. Lazy updates: a popped node is
 *    re-simulated and pushed back if it is no longer the minimum (its neighbours' level and
 *    deleted-neighbour counts are raised when a node is contracted; `neighbourUpdates` also
 *    re-simulates them eagerly, as RoutingKit does).
 * 4. Every overlay arc becomes a CH arc at its lower endpoint when that endpoint is contracted;
 *    shortcuts remember their two halves and middle node (and originals their input arc id), so
 *    queries unpack to input arc ids (layout in hierarchy.ts). Nodes are renumbered (contraction
 *    order, or a cache-friendly topological order of the upward DAG) and the two upward graphs are
 *    written as CSR arrays.
 */
import { EngineError } from '../core/errors.js';
import { throttleProgress, throwIfAborted, type LongWorkOptions } from '../core/cancel.js';
import { MinIdHeap } from '../graph/dijkstra.js';
import { MAX_COST, normalizeArcs, validateArcGraph, type ArcGraph } from '../graph/formats/arcs.js';
import { ContractionHierarchy, depthFirstEntries, ENTRY_WORDS, ORIGINAL, type ChSide } from './hierarchy.js';

export interface ChBuildOptions extends LongWorkOptions {
  /** Settle limit of the witness searches that decide on shortcuts (default 500). */
  witnessSettleLimit?: number;
  /** Settle limit of the witness searches of priority simulations (default 50). */
  simulateSettleLimit?: number;
  /**
   * Priority weights (defaults 500, 1000, 1000, 0; see the module comment). RoutingKit weighs the
   * level like the other two (1000); half of that gave, on four benchmark graphs (Bremen time,
   * South Seattle, Porto, Moscow), 8–18% less witness-search work, 1.5–3.7% fewer CH arcs and
   * 4–12% fewer arcs read per query.
   */
  levelCoeff?: number;
  edgeCoeff?: number;
  hopCoeff?: number;
  deletedCoeff?: number;
  /** Re-simulate a popped node and push it back if its priority rose (default true). */
  lazyUpdates?: boolean;
  /**
   * Also recompute the neighbours' priorities after each contraction (default false: with lazy
   * updates it gave the same search spaces within ±2% for 10–50% more build time).
   */
  neighbourUpdates?: boolean;
  /** Renumber nodes in a cache-friendly topological order of the upward graph (default true). */
  cacheOrder?: boolean;
}

/** Build statistics (for benchmarks and logs). */
export interface ChBuildStats {
  inputArcs: number;
  normalizedArcs: number;
  chArcs: number;
  shortcuts: number;
  witnessSearches: number;
  /** Nodes settled by all witness searches (a machine-independent work measure). */
  witnessSettled: number;
  ms: number;
}

/**
 * Growable flat adjacency lists: per node a slot [start, start+cap) in shared pools. An entry is
 * packed as two 32-bit words [neighbour, weight] (one cache line holds both for the witness
 * searches) plus its edge id in a parallel array. Weights are ≤ MAX_COST, so they fit in 32 bits.
 */
class AdjLists {
  readonly start: Int32Array;
  readonly len: Int32Array;
  readonly cap: Int32Array;
  /** [neighbour, weight] per entry. */
  nw: Uint32Array;
  edge: Int32Array;
  top = 0;

  constructor(n: number, degree: Int32Array, slack: number) {
    this.start = new Int32Array(n);
    this.len = new Int32Array(n);
    this.cap = new Int32Array(n);
    let total = 0;
    for (let v = 0; v < n; v++) {
      const c = degree[v] + slack;
      this.start[v] = total;
      this.cap[v] = c;
      total += c;
    }
    this.top = total;
    const size = Math.max(16, Math.ceil(total * 1.25));
    this.nw = new Uint32Array(2 * size);
    this.edge = new Int32Array(size);
  }

  append(v: number, node: number, w: number, edge: number): void {
    const l = this.len[v];
    if (l === this.cap[v]) this.relocate(v, l < 4 ? 8 : l * 2);
    const i = this.start[v] + l;
    this.nw[2 * i] = node;
    this.nw[2 * i + 1] = w;
    this.edge[i] = edge;
    this.len[v] = l + 1;
  }

  private relocate(v: number, newCap: number): void {
    if (this.top + newCap > this.edge.length) {
      const size = Math.ceil((this.top + newCap) * 1.25);
      const nw = new Uint32Array(2 * size);
      nw.set(this.nw.subarray(0, 2 * this.top));
      const edge = new Int32Array(size);
      edge.set(this.edge.subarray(0, this.top));
      this.nw = nw;
      this.edge = edge;
    }
    const s = this.start[v];
    const l = this.len[v];
    const t = this.top;
    this.nw.copyWithin(2 * t, 2 * s, 2 * (s + l));
    this.edge.copyWithin(t, s, s + l);
    this.start[v] = t;
    this.cap[v] = newCap;
    this.top = t + newCap;
  }

  /** Index of the entry for `node` in v's list, or -1. */
  find(v: number, node: number): number {
    const s = this.start[v];
    const e = s + this.len[v];
    const nw = this.nw;
    for (let i = s; i < e; i++) if (nw[2 * i] === node) return i;
    return -1;
  }

  /** Removes the entry for `node` from v's list (swap with last). */
  remove(v: number, node: number): void {
    const i = this.find(v, node);
    if (i < 0) throw new EngineError('Internal', 'CH build: adjacency lists out of sync.');
    const last = this.start[v] + --this.len[v];
    this.nw[2 * i] = this.nw[2 * last];
    this.nw[2 * i + 1] = this.nw[2 * last + 1];
    this.edge[i] = this.edge[last];
  }

  /** Drops the pools (every node contracted: the lists are empty). */
  release(): void {
    this.nw = new Uint32Array(0);
    this.edge = new Int32Array(0);
  }
}

/** The contraction state. One instance per build. */
class Contractor {
  readonly n: number;
  readonly out: AdjLists;
  readonly inn: AdjLists;
  // Edge records (each overlay arc, original or shortcut; 1:1 with final CH arcs).
  /** Upper endpoint (input node id), set when the edge becomes a CH arc. */
  eHi: Int32Array;
  eW: Uint32Array;
  eAux: Uint32Array;
  eHops: Int32Array;
  /** Shortcut: first half (edge id); original: input arc id. */
  eA: Int32Array;
  /** Shortcut: second half (edge id); original: -1. */
  eB: Int32Array;
  /** Internal node id (contraction rank) where the edge became a CH arc. */
  eLow: Int32Array;
  /** 0: forward CH arc (stored at its tail), 1: backward CH arc (stored at its head). */
  eDir: Uint8Array;
  eCount = 0;
  shortcuts = 0;
  witnessSearches = 0;
  witnessSettled = 0;

  readonly level: Int32Array;
  readonly deleted: Int32Array;
  readonly contracted: Uint8Array;

  // Witness-search scratch.
  /** Tentative distances, Infinity when not reached (reset through `touched`). */
  readonly dist: Float64Array;
  readonly touched: Int32Array;
  /**
   * Per node: its via-distance w(u,v) + w(v,w) while it is an undecided target of the current
   * search, else -1 (so one comparison `d <= via[y]` both tests "target" and "witnessed").
   */
  readonly via: Float64Array;
  /** Target witnessed in the current search (reset by the caller per in-neighbour). */
  readonly wit: Uint8Array;
  remaining = 0;
  readonly heap: MinIdHeap;

  // Simulation results.
  added = 0;
  addedHops = 0;

  constructor(g: ArcGraph, arcs: Uint32Array) {
    const n = (this.n = g.numNodes);
    const m = arcs.length;
    const outDeg = new Int32Array(n);
    const inDeg = new Int32Array(n);
    for (let i = 0; i < m; i++) {
      outDeg[g.tail[arcs[i]]]++;
      inDeg[g.head[arcs[i]]]++;
    }
    this.out = new AdjLists(n, outDeg, 2);
    this.inn = new AdjLists(n, inDeg, 2);
    const cap = Math.max(16, Math.ceil(m * 2));
    this.eHi = new Int32Array(cap);
    this.eW = new Uint32Array(cap);
    this.eAux = new Uint32Array(cap);
    this.eHops = new Int32Array(cap);
    this.eA = new Int32Array(cap);
    this.eB = new Int32Array(cap);
    this.eLow = new Int32Array(cap);
    this.eDir = new Uint8Array(cap);
    const aux = g.aux;
    for (let i = 0; i < m; i++) {
      const a = arcs[i];
      const e = this.newEdge(g.weight[a], aux ? aux[a] : 0, 1, a, -1);
      this.out.append(g.tail[a], g.head[a], g.weight[a], e);
      this.inn.append(g.head[a], g.tail[a], g.weight[a], e);
    }
    this.level = new Int32Array(n);
    this.deleted = new Int32Array(n);
    this.contracted = new Uint8Array(n);
    this.dist = new Float64Array(n).fill(Infinity);
    this.touched = new Int32Array(n);
    this.via = new Float64Array(n).fill(-1);
    this.wit = new Uint8Array(n);
    this.heap = new MinIdHeap(n);
  }

  private newEdge(w: number, aux: number, hops: number, a: number, b: number): number {
    if (this.eCount === this.eW.length) this.growEdges();
    const e = this.eCount++;
    this.eW[e] = w;
    this.eAux[e] = aux;
    this.eHops[e] = hops;
    this.eA[e] = a;
    this.eB[e] = b;
    return e;
  }

  private growEdges(): void {
    const size = Math.ceil(this.eW.length * 1.5) + 16;
    const g32 = (a: Int32Array): Int32Array => { const b = new Int32Array(size); b.set(a); return b; };
    const gu32 = (a: Uint32Array): Uint32Array => { const b = new Uint32Array(size); b.set(a); return b; };
    this.eHi = g32(this.eHi);
    this.eW = gu32(this.eW);
    this.eAux = gu32(this.eAux);
    this.eHops = g32(this.eHops);
    this.eA = g32(this.eA);
    this.eB = g32(this.eB);
    this.eLow = g32(this.eLow);
    const d = new Uint8Array(size);
    d.set(this.eDir);
    this.eDir = d;
  }

  /**
   * Dijkstra from `s` on the overlay graph, never entering `skip`, deciding for each target w
   * (via[w] ≥ 0) whether a witness path of length ≤ via[w] exists: a target is witnessed as soon
   * as it is reached that cheaply, and refuted when it is settled dearer. Stops when every target
   * is decided, when the next key exceeds `maxDist`, or after `limit` settled nodes (undecided
   * targets then count as refuted: a shortcut too many, never one too few). Decided targets get
   * via = -1; witnessed ones wit = 1.
   */
  private witness(s: number, skip: number, maxDist: number, limit: number): void {
    this.witnessSearches++;
    const heap = this.heap;
    heap.clear();
    const dist = this.dist;
    const touched = this.touched;
    const via = this.via;
    const wit = this.wit;
    const O = this.out;
    const start = O.start;
    const len = O.len;
    const nw = O.nw;
    let tc = 0;
    touched[tc++] = s;
    dist[s] = 0;
    heap.push(s, 0);
    let settled = 0;
    let remaining = this.remaining;
    while (heap.size > 0) {
      if (heap.minKey() > maxDist) break;
      const x = heap.pop();
      if (via[x] >= 0) {
        via[x] = -1; // settled without a witness: refuted
        if (--remaining === 0) break;
      }
      if (++settled > limit) break;
      const dx = dist[x];
      const b = start[x];
      const end = b + len[x];
      for (let i = b; i < end; i++) {
        const y = nw[2 * i];
        if (y === skip) continue;
        const d = dx + nw[2 * i + 1];
        if (d > maxDist) continue;
        const old = dist[y];
        if (d >= old) continue;
        if (old === Infinity) {
          touched[tc++] = y;
          heap.push(y, d);
        } else heap.decreaseKey(y, d);
        dist[y] = d;
        if (d <= via[y]) {
          via[y] = -1;
          wit[y] = 1;
          if (--remaining === 0) break;
        }
      }
      if (remaining === 0) break;
    }
    for (let i = 0; i < tc; i++) dist[touched[i]] = Infinity;
    this.witnessSettled += settled;
  }

  /**
   * Simulates (add = false) or performs (add = true) the contraction of v: for each in-neighbour u
   * and out-neighbour w != u without a witness of length ≤ w(u,v) + w(v,w), counts (or adds) the
   * shortcut u→w. Sets `added` / `addedHops`.
   */
  contract(v: number, add: boolean, limit: number): void {
    const I = this.inn;
    const O = this.out;
    let added = 0;
    let addedHops = 0;
    const inLen = I.len[v];
    const outLen = O.len[v];
    if (inLen > 0 && outLen > 0) {
      const oS = O.start[v];
      const oE = oS + outLen;
      const via = this.via;
      const wit = this.wit;
      for (let k = 0; k < inLen; k++) {
        // Re-read the pools each time: adding shortcuts may reallocate them (v's own lists never move).
        const iIdx = I.start[v] + k;
        const u = I.nw[2 * iIdx];
        const wu = I.nw[2 * iIdx + 1];
        const eu = I.edge[iIdx];
        let onw = O.nw;
        let remaining = 0;
        for (let j = oS; j < oE; j++) {
          const w = onw[2 * j];
          if (w === u) continue;
          via[w] = wu + onw[2 * j + 1];
          wit[w] = 0;
          remaining++;
        }
        if (remaining === 0) continue;
        // One-hop witnesses: a direct arc u→w no dearer than the way through v.
        for (let j = O.start[u], end = j + O.len[u]; j < end; j++) {
          const y = onw[2 * j];
          if (onw[2 * j + 1] <= via[y]) {
            via[y] = -1;
            wit[y] = 1;
            remaining--;
          }
        }
        if (remaining > 0) {
          let maxDist = 0;
          for (let j = oS; j < oE; j++) {
            const w = onw[2 * j];
            if (w !== u && via[w] > maxDist) maxDist = via[w];
          }
          this.remaining = remaining;
          this.witness(u, v, maxDist, limit);
        }
        for (let j = oS; j < oE; j++) {
          onw = O.nw;
          const w = onw[2 * j];
          if (w === u) continue;
          via[w] = -1;
          if (wit[w]) continue;
          const ew = O.edge[j];
          added++;
          addedHops += this.eHops[eu] + this.eHops[ew];
          if (add) this.addOrReduce(u, w, wu + onw[2 * j + 1], this.eAux[eu] + this.eAux[ew], this.eHops[eu] + this.eHops[ew], eu, ew);
        }
      }
    }
    this.added = added;
    this.addedHops = addedHops;
  }

  private addOrReduce(x: number, y: number, w: number, aux: number, hops: number, a: number, b: number): void {
    if (w > MAX_COST) throw new EngineError('TooBig', `CH build: a path cost exceeds ${MAX_COST} (2^32 - 2); use coarser units.`);
    if (aux > MAX_COST) throw new EngineError('TooBig', `CH build: a path's aux sum exceeds ${MAX_COST} (2^32 - 2); use coarser units.`);
    const O = this.out;
    const I = this.inn;
    const i = O.len[x] <= I.len[y] ? O.find(x, y) : -2;
    const j = i === -2 ? I.find(y, x) : -2;
    if (i >= 0 || j >= 0) {
      const oi = i >= 0 ? i : O.find(x, y);
      if (O.nw[2 * oi + 1] <= w) return;
      const ij = j >= 0 ? j : I.find(y, x);
      const e = O.edge[oi];
      O.nw[2 * oi + 1] = w;
      I.nw[2 * ij + 1] = w;
      this.eW[e] = w;
      this.eAux[e] = aux;
      this.eHops[e] = hops;
      this.eA[e] = a;
      this.eB[e] = b;
      return;
    }
    const e = this.newEdge(w, aux, hops, a, b);
    this.shortcuts++;
    O.append(x, y, w, e);
    I.append(y, x, w, e);
  }

  /** Moves v's remaining arcs into the CH (stored at internal id `low`) and out of the overlay. */
  retire(v: number, low: number): void {
    const O = this.out;
    const I = this.inn;
    for (let j = O.start[v], end = j + O.len[v]; j < end; j++) {
      const e = O.edge[j];
      const y = O.nw[2 * j];
      this.eLow[e] = low;
      this.eHi[e] = y;
      this.eDir[e] = 0;
      I.remove(y, v);
    }
    for (let j = I.start[v], end = j + I.len[v]; j < end; j++) {
      const e = I.edge[j];
      const y = I.nw[2 * j];
      this.eLow[e] = low;
      this.eHi[e] = y;
      this.eDir[e] = 1;
      O.remove(y, v);
    }
    O.len[v] = 0;
    I.len[v] = 0;
    this.contracted[v] = 1;
  }
}

/**
 * Builds a contraction hierarchy over any arc graph (see {@link ArcGraph}). Synchronous; checks
 * `signal` every 256 contractions and reports progress (`phase: 'ch'`, at most every 100 ms).
 */
export function buildContractionHierarchy(g: ArcGraph, opts: ChBuildOptions = {}): ContractionHierarchy {
  return buildContractionHierarchyWithStats(g, opts).ch;
}

export function buildContractionHierarchyWithStats(g: ArcGraph, opts: ChBuildOptions = {}): { ch: ContractionHierarchy; stats: ChBuildStats } {
  const t0 = performance.now();
  validateArcGraph(g);
  const witnessLimit = opts.witnessSettleLimit ?? 500;
  const simLimit = opts.simulateSettleLimit ?? 50;
  const levelC = opts.levelCoeff ?? 500;
  const edgeC = opts.edgeCoeff ?? 1000;
  const hopC = opts.hopCoeff ?? 1000;
  const delC = opts.deletedCoeff ?? 0;
  const lazy = opts.lazyUpdates ?? true;
  const neighbourUpdates = opts.neighbourUpdates ?? false;
  const n = g.numNodes;
  const arcs = normalizeArcs(g);
  for (let i = 0; i < arcs.length; i++) {
    if (g.weight[arcs[i]] > MAX_COST) throw new EngineError('InvalidInput', `Arc ${arcs[i]} has weight ${g.weight[arcs[i]]} above ${MAX_COST}.`, { path: `weight[${arcs[i]}]` });
  }
  const c = new Contractor(g, arcs);
  const progress = throttleProgress(opts.onProgress, 100);
  const signal = opts.signal;

  const priority = (v: number): number => {
    c.contract(v, false, simLimit);
    const removed = 1 + c.inn.len[v] + c.out.len[v];
    let removedHops = 1;
    const I = c.inn;
    const O = c.out;
    for (let j = I.start[v], e = j + I.len[v]; j < e; j++) removedHops += c.eHops[I.edge[j]];
    for (let j = O.start[v], e = j + O.len[v]; j < e; j++) removedHops += c.eHops[O.edge[j]];
    return levelC * c.level[v] + (edgeC * c.added) / removed + (hopC * c.addedHops) / removedHops + delC * c.deleted[v];
  };

  const queue = new MinIdHeap(n);
  for (let v = 0; v < n; v++) {
    queue.push(v, priority(v));
    if ((v & 1023) === 1023) {
      throwIfAborted(signal);
      progress({ phase: 'ch', done: 0, total: n, info: { step: 'priorities', nodes: v + 1 } });
    }
  }

  const order = new Uint32Array(n);
  const neighbours = new Int32Array(n);
  const isNeighbour = new Uint8Array(n);
  let k = 0;
  while (queue.size > 0) {
    const v = queue.pop();
    if (lazy && queue.size > 0) {
      const p = priority(v);
      if (p > queue.minKey()) {
        queue.push(v, p);
        continue;
      }
    }
    const rank = k++;
    order[rank] = v;
    // Neighbours (before the arcs go).
    let nn = 0;
    const I = c.inn;
    const O = c.out;
    for (let j = I.start[v], e = j + I.len[v]; j < e; j++) {
      const x = I.nw[2 * j];
      if (!isNeighbour[x]) { isNeighbour[x] = 1; neighbours[nn++] = x; }
    }
    for (let j = O.start[v], e = j + O.len[v]; j < e; j++) {
      const x = O.nw[2 * j];
      if (!isNeighbour[x]) { isNeighbour[x] = 1; neighbours[nn++] = x; }
    }
    c.contract(v, true, witnessLimit);
    c.retire(v, rank);
    const lv = c.level[v] + 1;
    for (let i = 0; i < nn; i++) {
      const x = neighbours[i];
      isNeighbour[x] = 0;
      if (c.level[x] < lv) c.level[x] = lv;
      c.deleted[x]++;
      if (neighbourUpdates) queue.set(x, priority(x));
    }
    if ((k & 255) === 0) {
      throwIfAborted(signal);
      progress({ phase: 'ch', done: k, total: n, info: { step: 'contract', shortcuts: c.shortcuts } });
    }
  }
  throwIfAborted(signal);
  // Every node is contracted: the overlay lists are empty; let their pools go before assembling.
  c.out.release();
  c.inn.release();
  queue.clear();

  const ch = assemble(g, c, order, opts.cacheOrder ?? true);
  progress({ phase: 'ch', done: n, total: n, info: { step: 'done', shortcuts: c.shortcuts } }, true);
  return {
    ch,
    stats: {
      inputArcs: g.tail.length,
      normalizedArcs: arcs.length,
      chArcs: c.eCount,
      shortcuts: c.shortcuts,
      witnessSearches: c.witnessSearches,
      witnessSettled: c.witnessSettled,
      ms: performance.now() - t0,
    },
  };
}

/**
 * A renumbering that keeps every CH arc upward but puts each node's upward search space close
 * together: walking the bottom nodes in contraction order, each one's not-yet-placed upward
 * closure (in rank order) is placed just below the blocks placed before it.
 */
function cacheFriendlyOrder(n: number, fwdFirst: Uint32Array, fwdHead: Uint32Array, bwdFirst: Uint32Array, bwdHead: Uint32Array): Uint32Array {
  const isBottom = new Uint8Array(n).fill(1);
  for (let a = 0; a < fwdHead.length; a++) isBottom[fwdHead[a]] = 0;
  for (let a = 0; a < bwdHead.length; a++) isBottom[bwdHead[a]] = 0;
  const newOrder = new Uint32Array(n); // position → old id
  const placed = new Uint8Array(n);
  const q = new MinIdHeap(n);
  let end = n;
  for (let r = 0; r < n; r++) {
    if (!isBottom[r]) continue;
    const blockEnd = end;
    q.push(r, r);
    placed[r] = 1;
    while (q.size > 0) {
      const x = q.pop();
      newOrder[--end] = x;
      for (let a = fwdFirst[x]; a < fwdFirst[x + 1]; a++) {
        const y = fwdHead[a];
        if (!placed[y]) { placed[y] = 1; q.push(y, y); }
      }
      for (let a = bwdFirst[x]; a < bwdFirst[x + 1]; a++) {
        const y = bwdHead[a];
        if (!placed[y]) { placed[y] = 1; q.push(y, y); }
      }
    }
    newOrder.subarray(end, blockEnd).reverse();
  }
  if (end !== 0) throw new EngineError('Internal', 'CH build: cache order is not a permutation.');
  const newId = new Uint32Array(n);
  for (let p = 0; p < n; p++) newId[newOrder[p]] = p;
  return newId;
}

function assemble(g: ArcGraph, c: Contractor, order: Uint32Array, cacheOrder: boolean): ContractionHierarchy {
  const n = c.n;
  const m = c.eCount;
  const rankOfNode = new Uint32Array(n);
  for (let r = 0; r < n; r++) rankOfNode[order[r]] = r;
  // High endpoint (in rank ids) of each edge.
  const hi = new Uint32Array(m);
  for (let e = 0; e < m; e++) hi[e] = rankOfNode[c.eHi[e]];

  let id: Uint32Array = new Uint32Array(n);
  for (let r = 0; r < n; r++) id[r] = r;
  if (cacheOrder) {
    const f = upwardCsr(n, m, c.eDir, c.eLow, hi, 0);
    const b = upwardCsr(n, m, c.eDir, c.eLow, hi, 1);
    id = cacheFriendlyOrder(n, f.firstOut, f.head, b.firstOut, b.head);
  }
  const slot = new Uint32Array(m);
  const sides: ChSide[] = [];
  const sideEdges: Uint32Array[] = [];
  const hasAux = g.aux !== undefined;
  for (const dir of [0, 1]) {
    // Sort edges of this direction by (id[low], id[hi]) with two counting passes.
    const cnt = new Uint32Array(n + 1);
    let total = 0;
    for (let e = 0; e < m; e++) if (c.eDir[e] === dir) { cnt[id[hi[e]] + 1]++; total++; }
    for (let i = 0; i < n; i++) cnt[i + 1] += cnt[i];
    const byHi = new Uint32Array(total);
    for (let e = 0; e < m; e++) if (c.eDir[e] === dir) byHi[cnt[id[hi[e]]]++] = e;
    const firstOut = new Uint32Array(n + 1);
    for (let i = 0; i < total; i++) firstOut[id[c.eLow[byHi[i]]] + 1]++;
    for (let i = 0; i < n; i++) firstOut[i + 1] += firstOut[i];
    const pos = firstOut.slice(0, n);
    const head = new Uint32Array(total);
    const weight = new Uint32Array(total);
    const aux = new Uint32Array(hasAux ? total : 0);
    const edges = new Uint32Array(total);
    for (let i = 0; i < total; i++) {
      const e = byHi[i];
      const p = pos[id[c.eLow[e]]]++;
      edges[p] = e;
      slot[e] = p;
      head[p] = id[hi[e]];
      weight[p] = c.eW[e];
      if (hasAux) aux[p] = c.eAux[e];
    }
    sides.push({ firstOut, head, weight, aux, unpack: new Uint32Array(total) });
    sideEdges.push(edges);
  }
  // Unpack words and shortcut entries (layout in hierarchy.ts): indices node by node first (its
  // fwd shortcuts, then its bwd ones), then laid out depth first (depthFirstEntries). `hi` is
  // reused for the indices.
  const entry = hi;
  let count = 0;
  for (let x = 0; x < n; x++) {
    for (let k = 0; k < 2; k++) {
      const { firstOut } = sides[k];
      const edges = sideEdges[k];
      for (let p = firstOut[x]; p < firstOut[x + 1]; p++) {
        const e = edges[p];
        entry[e] = c.eB[e] < 0 ? ORIGINAL + c.eA[e] : count++;
      }
    }
  }
  const shortcuts = new Uint32Array(ENTRY_WORDS * count);
  for (let k = 0; k < 2; k++) {
    const edges = sideEdges[k];
    const u = sides[k].unpack;
    for (let p = 0; p < edges.length; p++) {
      const e = edges[p];
      const r = entry[e];
      u[p] = r;
      if (r >= ORIGINAL) continue;
      shortcuts[3 * r] = entry[c.eA[e]];
      shortcuts[3 * r + 1] = entry[c.eB[e]];
      shortcuts[3 * r + 2] = order[c.eLow[c.eA[e]]]; // the middle node: the lower end of both halves
    }
  }
  const rank = new Uint32Array(n);
  const ord = new Uint32Array(n);
  for (let v = 0; v < n; v++) {
    const r = id[rankOfNode[v]];
    rank[v] = r;
    ord[r] = v;
  }
  return new ContractionHierarchy(n, g.tail.length, hasAux, rank, ord, sides[0], sides[1], depthFirstEntries(rank, sides, shortcuts));
}

function upwardCsr(n: number, m: number, dirOf: Uint8Array, low: Int32Array, hi: Uint32Array, dir: number): { firstOut: Uint32Array; head: Uint32Array } {
  const firstOut = new Uint32Array(n + 1);
  let total = 0;
  for (let e = 0; e < m; e++) if (dirOf[e] === dir) { firstOut[low[e] + 1]++; total++; }
  for (let i = 0; i < n; i++) firstOut[i + 1] += firstOut[i];
  const pos = firstOut.slice(0, n);
  const head = new Uint32Array(total);
  for (let e = 0; e < m; e++) if (dirOf[e] === dir) head[pos[low[e]]++] = hi[e];
  return { firstOut, head };
}
