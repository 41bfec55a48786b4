/**
 * Bucket-based many-to-many on a contraction hierarchy (Knopp et al. 2007; what OSRM's table uses).
 *
 *  1. For every target, an exhaustive upward search in the backward CH graph (with
 *     stall-on-demand) from its entries; each settled, unstalled node x gets a bucket entry
 *     (target, d(x→target), aux).
 *  2. For every source, an exhaustive upward search in the forward CH graph (stall-on-demand);
 *     at each settled, unstalled node x the bucket of x is scanned: cell = min(cell, d(s→x) + entry).
 *
 * A cell depends only on its source's search and its target's bucket entries (scanned in a fixed
 * order, strict improvements only), so the result is the same however the matrix is tiled.
 */
import { MinIdHeap } from '../graph/dijkstra.js';
import type { ChSide, ContractionHierarchy } from '../ch/hierarchy.js';
import type { EndpointEntries } from './endpoints.js';
import type { MatrixOutput } from './sweep.js';

/** Local copies of MAX_COST / UNREACHABLE (imported bindings are not folded by the JIT in hot loops). */
const MAX_COST = 0xfffffffe;
const UNREACHABLE = 0xffffffff;

/** Reusable many-to-many kernel for one CH (one per thread). */
export class BucketManyToMany {
  readonly ch: ContractionHierarchy;
  private readonly n: number;
  private readonly dist: Float64Array;
  private readonly auxL: Float64Array;
  private readonly seen: Uint32Array;
  private readonly heap: MinIdHeap;
  private epoch = 1;
  /** Settled, unstalled nodes of the last search. */
  private list: Int32Array;
  private listLen = 0;
  // Buckets: compact index per touched node.
  private readonly bucketOf: Int32Array;
  private readonly bucketSeen: Uint32Array;
  private bucketEpoch = 1;
  private bFirst = new Int32Array(1);
  private bTarget = new Int32Array(0);
  private bDist = new Float64Array(0);
  private bAux = new Float64Array(0);
  private rowCost = new Float64Array(0);
  private rowAux = new Float64Array(0);
  /** Total bucket entries of the last run (a work/memory measure). */
  bucketEntries = 0;

  constructor(ch: ContractionHierarchy) {
    this.ch = ch;
    const n = (this.n = ch.numNodes);
    this.dist = new Float64Array(n);
    this.auxL = new Float64Array(n);
    this.seen = new Uint32Array(n);
    this.heap = new MinIdHeap(n);
    this.list = new Int32Array(1024);
    this.bucketOf = new Int32Array(n);
    this.bucketSeen = new Uint32Array(n);
  }

  private nextEpoch(): number {
    if (++this.epoch === 0xffffffff) {
      this.seen.fill(0);
      this.epoch = 1;
    }
    return this.epoch;
  }

  /**
   * Exhaustive upward search on `up` from the entries [a, b) of `e`, stalling with `down`.
   * Fills `list` with the settled, unstalled internal ids; dist/auxL hold their labels.
   */
  private search(e: EndpointEntries, a: number, b: number, up: ChSide, down: ChSide, withAux: boolean): void {
    const ep = this.nextEpoch();
    const heap = this.heap;
    heap.clear();
    const dist = this.dist;
    const auxL = this.auxL;
    const seen = this.seen;
    const rank = this.ch.rank;
    for (let k = a; k < b; k++) {
      const x = rank[e.node[k]];
      const c = e.cost[k];
      if (seen[x] === ep) {
        if (c >= dist[x]) continue;
        heap.set(x, c);
      } else {
        seen[x] = ep;
        heap.push(x, c);
      }
      dist[x] = c;
      auxL[x] = e.aux ? e.aux[k] : 0;
    }
    const upFirst = up.firstOut;
    const upHead = up.head;
    const upW = up.weight;
    const upAux = up.aux;
    const dnFirst = down.firstOut;
    const dnHead = down.head;
    const dnW = down.weight;
    let list = this.list;
    let len = 0;
    while (heap.size > 0) {
      const x = heap.pop();
      const dx = dist[x];
      let stalled = false;
      for (let i = dnFirst[x], end = dnFirst[x + 1]; i < end; i++) {
        const y = dnHead[i];
        if (seen[y] === ep && dist[y] + dnW[i] <= dx) { stalled = true; break; }
      }
      if (stalled) continue;
      if (len === list.length) {
        const bigger = new Int32Array(len * 2);
        bigger.set(list);
        this.list = list = bigger;
      }
      list[len++] = x;
      const ax = auxL[x];
      for (let i = upFirst[x], end = upFirst[x + 1]; i < end; i++) {
        const y = upHead[i];
        const d = dx + upW[i];
        if (seen[y] !== ep) {
          seen[y] = ep;
          dist[y] = d;
          if (withAux) auxL[y] = ax + upAux[i];
          heap.push(y, d);
        } else if (d < dist[y]) {
          dist[y] = d;
          if (withAux) auxL[y] = ax + upAux[i];
          heap.decreaseKey(y, d);
        }
      }
    }
    this.listLen = len;
  }

  /** Builds the buckets of the targets (phase 1). */
  private fillBuckets(targets: EndpointEntries, withAux: boolean): void {
    const { fwd, bwd } = this.ch;
    const T = targets.count;
    // First pass: searches, collecting (node, target, dist, aux) in growable arrays.
    let cap = Math.max(1024, T * 64);
    let eNode = new Int32Array(cap);
    let eTgt = new Int32Array(cap);
    let eDist = new Float64Array(cap);
    let eAux = new Float64Array(withAux ? cap : 0);
    let m = 0;
    const be = ++this.bucketEpoch === 0xffffffff ? this.resetBucketEpoch() : this.bucketEpoch;
    const bucketSeen = this.bucketSeen;
    const bucketOf = this.bucketOf;
    let touched = 0;
    let counts = new Int32Array(1024);
    for (let j = 0; j < T; j++) {
      this.search(targets, targets.start[j], targets.start[j + 1], bwd, fwd, withAux);
      const list = this.list;
      const len = this.listLen;
      if (m + len > cap) {
        cap = Math.max(cap * 2, m + len);
        const n1 = new Int32Array(cap); n1.set(eNode); eNode = n1;
        const n2 = new Int32Array(cap); n2.set(eTgt); eTgt = n2;
        const n3 = new Float64Array(cap); n3.set(eDist); eDist = n3;
        if (withAux) { const n4 = new Float64Array(cap); n4.set(eAux); eAux = n4; }
      }
      const dist = this.dist;
      const auxL = this.auxL;
      for (let i = 0; i < len; i++) {
        const x = list[i];
        let b: number;
        if (bucketSeen[x] !== be) {
          bucketSeen[x] = be;
          b = touched++;
          bucketOf[x] = b;
          if (b === counts.length) {
            const c2 = new Int32Array(b * 2);
            c2.set(counts);
            counts = c2;
          }
          counts[b] = 0;
        } else b = bucketOf[x];
        counts[b]++;
        eNode[m] = b;
        eTgt[m] = j;
        eDist[m] = dist[x];
        if (withAux) eAux[m] = auxL[x];
        m++;
      }
    }
    // Counting sort by bucket (stable: targets stay in ascending order within a bucket).
    if (this.bFirst.length < touched + 1) this.bFirst = new Int32Array(touched + 1);
    const first = this.bFirst;
    first[0] = 0;
    for (let b = 0; b < touched; b++) first[b + 1] = first[b] + counts[b];
    if (this.bTarget.length < m) {
      this.bTarget = new Int32Array(m);
      this.bDist = new Float64Array(m);
    }
    if (withAux && this.bAux.length < m) this.bAux = new Float64Array(m);
    const pos = counts; // reuse as write cursors
    for (let b = 0; b < touched; b++) pos[b] = first[b];
    const bT = this.bTarget;
    const bD = this.bDist;
    const bA = this.bAux;
    for (let i = 0; i < m; i++) {
      const p = pos[eNode[i]]++;
      bT[p] = eTgt[i];
      bD[p] = eDist[i];
      if (withAux) bA[p] = eAux[i];
    }
    this.bucketEntries = m;
  }

  private resetBucketEpoch(): number {
    this.bucketSeen.fill(0);
    this.bucketEpoch = 1;
    return 1;
  }

  /**
   * Computes the |sources| × |targets| matrix into `out` (row-major). Unreachable cells get
   * {@link UNREACHABLE}; costs above 2^32 - 2 saturate there. `onRow(i)` may be given to observe
   * progress (called after each source row; return true to stop early).
   */
  run(sources: EndpointEntries, targets: EndpointEntries, out: MatrixOutput, onRow?: (i: number) => boolean | void): void {
    const withAux = out.aux !== null;
    const T = targets.count;
    const S = sources.count;
    const stride = out.stride ?? T;
    const offset = out.offset ?? 0;
    if (T === 0 || S === 0) return;
    this.fillBuckets(targets, withAux);
    if (this.rowCost.length < T) {
      this.rowCost = new Float64Array(T);
      this.rowAux = new Float64Array(T);
    }
    const rowCost = this.rowCost;
    const rowAux = this.rowAux;
    const { fwd, bwd } = this.ch;
    const bucketSeen = this.bucketSeen;
    const bucketOf = this.bucketOf;
    const be = this.bucketEpoch;
    const first = this.bFirst;
    const bT = this.bTarget;
    const bD = this.bDist;
    const bA = this.bAux;
    const cost = out.cost;
    const auxOut = out.aux;
    for (let i = 0; i < S; i++) {
      rowCost.fill(Infinity, 0, T);
      this.search(sources, sources.start[i], sources.start[i + 1], fwd, bwd, withAux);
      const list = this.list;
      const len = this.listLen;
      const dist = this.dist;
      const auxL = this.auxL;
      for (let k = 0; k < len; k++) {
        const x = list[k];
        if (bucketSeen[x] !== be) continue;
        const b = bucketOf[x];
        const d = dist[x];
        const end = first[b + 1];
        if (withAux) {
          const ax = auxL[x];
          for (let p = first[b]; p < end; p++) {
            const t = bT[p];
            const c = d + bD[p];
            if (c < rowCost[t]) {
              rowCost[t] = c;
              rowAux[t] = ax + bA[p];
            }
          }
        } else {
          for (let p = first[b]; p < end; p++) {
            const t = bT[p];
            const c = d + bD[p];
            if (c < rowCost[t]) rowCost[t] = c;
          }
        }
      }
      const base = offset + i * stride;
      for (let t = 0; t < T; t++) {
        const c = rowCost[t];
        cost[base + t] = c === Infinity ? UNREACHABLE : c > MAX_COST ? MAX_COST : c;
      }
      if (auxOut !== null) {
        for (let t = 0; t < T; t++) {
          const a = rowAux[t];
          auxOut[base + t] = rowCost[t] === Infinity ? UNREACHABLE : a > MAX_COST ? MAX_COST : a;
        }
      }
      if (onRow && onRow(i) === true) return;
    }
  }
}
