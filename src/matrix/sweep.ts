/**
 * Many-to-many by pinned targets and batched downward sweeps — a restricted PHAST (Delling et
 * al. 2011; RoutingKit's `pin_targets` + `run_to_pinned_targets` is the one-source-at-a-time,
 * unrestricted form).
 *
 *  1. Pin the targets: from every target, an exhaustive upward search in the backward CH graph
 *     with stall-on-demand. The *selection* is the union of these searches' shortest-path trees
 *     (settled, unstalled nodes and the tree arcs that reached them). It is renumbered compactly
 *     in decreasing internal id — every tree arc then goes from a smaller local id (higher node)
 *     to a larger one — and its arcs are copied into a small CSR.
 *  2. For a batch of K sources: an upward search in the forward CH graph (stall-on-demand) from
 *     each source writes the labels of its settled, unstalled nodes that are selected into column
 *     k of a (selection × K) table; one sweep over the selection in local order then relaxes
 *     every selected arc for all K sources at once (a contiguous inner loop).
 *
 * Why it is exact: the bucket algorithm (Knopp et al.) is exact when it meets only at nodes
 * unstalled in both searches, with the target side's distances taken along the target's search
 * tree; the sweep considers all those meeting nodes and tree paths (and possibly more valid
 * paths, which can only tie). Cost per source ≈ the selected tree arcs, which on road graphs is
 * about half the arcs of RoutingKit's unrestricted selection and fewer than the bucket entries
 * a source scans.
 *
 * A row depends only on its source and on the whole target list (ties between equal-cost paths
 * are broken by a fixed scan order, so the aux of tied paths can depend on which other targets
 * were pinned): tiles therefore always span all targets, and then tiling changes no value.
 */
import { EngineError } from '../core/errors.js';
import { MinIdHeap } from '../graph/dijkstra.js';
import type { ContractionHierarchy } from '../ch/hierarchy.js';
import type { EndpointEntries } from './endpoints.js';

export const UNREACHABLE = 0xffffffff;
/**
 * = MAX_COST of graph/formats/arcs.ts. Hot loops use module-local constants: V8 does not fold
 * imported bindings (each read keeps a TDZ check), which measurably slows tight loops.
 */
const MAX_COST = 0xfffffffe;
/** 'Infinity' of the int32 tables; values are only swept in int32 when they stay below it. */
const INT_INF = 0x3fffffff;

/**
 * Stall-on-demand test of node x settled at distance dx: true when a higher neighbour y (an arc
 * x → y of the opposite direction's CH graph, i.e. y → x in this search) has dist[y] + w ≤ dx, so
 * that x is not expanded.
 */
function stalls(x: number, dx: number, dnFirst: Uint32Array, dnHead: Uint32Array, dnW: Uint32Array, dist: Float64Array): boolean {
  for (let i = dnFirst[x], end = dnFirst[x + 1]; i < end; i++) {
    if (dist[dnHead[i]] + dnW[i] <= dx) return true;
  }
  return false;
}

/**
 * Relaxes the up-arcs of the settled node x (distance dx, aux ax) — the one relaxation of the
 * target searches (which record each node's tree arc in `pred`) and the source searches (which
 * carry aux in `auxL`, or nothing). An improved head gets its distance and heap key; a first
 * touch also enters `touched`, whose new length is returned. Pass null for what is not recorded.
 *
 * These are the hottest loops of the matrix: the function is small and module-level, so V8
 * inlines it into both searches, and the null tests of the arguments fold there.
 */
function relaxUp(
  x: number,
  dx: number,
  ax: number,
  upFirst: Uint32Array,
  upHead: Uint32Array,
  upW: Uint32Array,
  upAux: Uint32Array,
  dist: Float64Array,
  heap: MinIdHeap,
  touched: Int32Array,
  tl: number,
  pred: Int32Array | null,
  auxL: Float64Array | null,
): number {
  for (let i = upFirst[x], end = upFirst[x + 1]; i < end; i++) {
    const y = upHead[i];
    const d = dx + upW[i];
    const old = dist[y];
    if (d < old) {
      if (old === Infinity) {
        touched[tl++] = y;
        heap.push(y, d);
      } else heap.decreaseKey(y, d);
      dist[y] = d;
      if (pred !== null) pred[y] = i;
      if (auxL !== null) auxL[y] = ax + upAux[i];
    }
  }
  return tl;
}

export interface MatrixOutput {
  cost: Uint32Array;
  /** Aux per cell, or null to skip aux (faster). */
  aux: Uint32Array | null;
  /** Index of cell (0, 0) in the arrays (default 0). */
  offset?: number;
  /** Distance between rows (default: number of targets). */
  stride?: number;
}

/** A pinned target selection in transferable form (see {@link SweepManyToMany.exportPin}). */
export interface PinnedSelection {
  withAux: boolean;
  selNodes: Int32Array;
  selFirst: Int32Array;
  selHead: Int32Array;
  selW: Float64Array;
  selAux: Float64Array;
  entryLocal: Int32Array;
  longest: number;
  longestAux: number;
}

export class SweepManyToMany {
  readonly ch: ContractionHierarchy;
  /** Sources per sweep. */
  readonly batch: number;
  private readonly n: number;
  // Search scratch.
  private readonly dist: Float64Array;
  private readonly auxL: Float64Array;
  /** Nodes whose dist is finite (reset to Infinity at the next search). */
  private readonly touched: Int32Array;
  private touchedLen = 0;
  private readonly pred: Int32Array;
  private readonly heap: MinIdHeap;
  // Selection.
  private readonly local: Int32Array;
  private readonly selSeen: Uint32Array;
  private readonly arcSeen: Uint32Array;
  private selEpoch = 1;
  private selCount = 0;
  private selFirst: Int32Array = new Int32Array(1);
  private selHead: Int32Array = new Int32Array(0);
  private selW: Float64Array = new Float64Array(0);
  private selAux: Float64Array = new Float64Array(0);
  private selWI = new Int32Array(0);
  private selAuxI = new Int32Array(0);
  // Pinned targets.
  private pinned: EndpointEntries | null = null;
  /** Selected internal ids in local order. */
  private selNodes: Int32Array = new Int32Array(0);
  private pinnedWithAux = false;
  /** Local id of each target entry, or -1 (stalled root). */
  private entryLocal: Int32Array = new Int32Array(0);
  /** Longest path (weight / aux) inside the selection DAG: bounds every swept value. */
  private selLongest = 0;
  private selLongestAux = 0;
  // Upward labels of the current batch, staged until the table type is chosen.
  private stCell = new Int32Array(1024);
  private stD = new Float64Array(1024);
  private stA = new Float64Array(1024);
  private stLen = 0;
  private stMaxD = 0;
  private stMaxA = 0;
  // Tables (selection × batch): int32 when every value provably stays below 2^30 (branch-free
  // min, about twice as fast), float64 otherwise.
  private DI = new Int32Array(0);
  private DF = new Float64Array(0);
  private AF = new Float64Array(0);
  private bestC = new Float64Array(0);
  private bestA = new Float64Array(0);
  /** Batches swept with int32 / float64 tables in the last run. */
  intBatches = 0;
  floatBatches = 0;
  /** Selected nodes / arcs of the last pin (work measures). */
  selectedNodes = 0;
  selectedArcs = 0;

  constructor(ch: ContractionHierarchy, opts: { batch?: number } = {}) {
    this.ch = ch;
    this.batch = Math.max(4, (Math.ceil((opts.batch ?? 32) / 4) * 4) | 0);
    const n = (this.n = ch.numNodes);
    this.dist = new Float64Array(n).fill(Infinity);
    this.auxL = new Float64Array(n);
    this.touched = new Int32Array(n);
    this.pred = new Int32Array(n);
    this.heap = new MinIdHeap(n);
    this.local = new Int32Array(n);
    this.selSeen = new Uint32Array(n);
    this.arcSeen = new Uint32Array(ch.bwd.head.length);
  }

  /** The target list pinned last (or null). */
  get pinnedTargets(): EndpointEntries | null {
    return this.pinned;
  }

  /**
   * Starts a search: resets the previous one (distances back to Infinity through the touched
   * list) and pushes the entries [a, b) of `e` (internal ids).
   */
  private startSearch(e: EndpointEntries, a: number, b: number): void {
    const heap = this.heap;
    heap.clear();
    const dist = this.dist;
    const touched = this.touched;
    for (let i = 0, n = this.touchedLen; i < n; i++) dist[touched[i]] = Infinity;
    let tl = 0;
    const auxL = this.auxL;
    const pred = this.pred;
    const rank = this.ch.rank;
    for (let i = a; i < b; i++) {
      const x = rank[e.node[i]];
      const c = e.cost[i];
      const old = dist[x];
      if (c >= old) continue;
      if (old === Infinity) {
        touched[tl++] = x;
        heap.push(x, c);
      } else heap.set(x, c);
      dist[x] = c;
      auxL[x] = e.aux ? e.aux[i] : 0;
      pred[x] = -1;
    }
    this.touchedLen = tl;
  }

  /** A new selection epoch: marks of the previous selection no longer count. */
  private nextSelEpoch(): number {
    if (++this.selEpoch === 0xffffffff) {
      this.selSeen.fill(0);
      this.arcSeen.fill(0);
      this.selEpoch = 1;
    }
    return this.selEpoch;
  }

  /** Phase 1: pins the targets (selection = union of their backward search trees). */
  pinTargets(targets: EndpointEntries, withAux: boolean): void {
    const se = this.nextSelEpoch();
    const selSeen = this.selSeen;
    const arcSeen = this.arcSeen;
    const { fwd, bwd } = this.ch;
    const upFirst = bwd.firstOut;
    const upHead = bwd.head;
    const upW = bwd.weight;
    const upAux = bwd.aux;
    const dnFirst = fwd.firstOut;
    const dnHead = fwd.head;
    const dnW = fwd.weight;
    const dist = this.dist;
    const touched = this.touched;
    const pred = this.pred;
    const heap = this.heap;
    let sel = new Int32Array(1024);
    let count = 0;
    for (let j = 0; j < targets.count; j++) {
      this.startSearch(targets, targets.start[j], targets.start[j + 1]);
      let tl = this.touchedLen;
      while (heap.size > 0) {
        const x = heap.pop();
        const dx = dist[x];
        if (stalls(x, dx, dnFirst, dnHead, dnW, dist)) continue;
        if (selSeen[x] !== se) {
          selSeen[x] = se;
          if (count === sel.length) { const s2 = new Int32Array(count * 2); s2.set(sel); sel = s2; }
          sel[count++] = x;
        }
        const p = pred[x];
        if (p >= 0) arcSeen[p] = se;
        tl = relaxUp(x, dx, 0, upFirst, upHead, upW, upAux, dist, heap, touched, tl, pred, null);
      }
      this.touchedLen = tl;
    }
    // Compact renumbering: decreasing internal id.
    const order = sel.subarray(0, count).sort().reverse();
    const local = this.local;
    let arcs = 0;
    for (let i = 0; i < count; i++) {
      const x = order[i];
      local[x] = i;
      for (let a = upFirst[x], end = upFirst[x + 1]; a < end; a++) if (arcSeen[a] === se) arcs++;
    }
    if (this.selFirst.length < count + 1) this.selFirst = new Int32Array(count + 1);
    if (this.selHead.length < arcs) {
      this.selHead = new Int32Array(arcs);
      this.selW = new Float64Array(arcs);
    }
    if (withAux && this.selAux.length < arcs) this.selAux = new Float64Array(arcs);
    const sf = this.selFirst;
    const sh = this.selHead;
    const sw = this.selW;
    const sa = this.selAux;
    let p = 0;
    for (let i = 0; i < count; i++) {
      const x = order[i];
      sf[i] = p;
      for (let a = upFirst[x], end = upFirst[x + 1]; a < end; a++) {
        if (arcSeen[a] !== se) continue;
        sh[p] = local[upHead[a]];
        sw[p] = upW[a];
        if (withAux) sa[p] = upAux[a];
        p++;
      }
    }
    sf[count] = p;
    // Longest paths (max weight / max aux) inside the selection, for the int32 bound.
    const L = new Float64Array(count);
    const LA = new Float64Array(withAux ? count : 0);
    let longest = 0;
    let longestAux = 0;
    for (let x = 0; x < count; x++) {
      let l = 0;
      let la = 0;
      for (let a = sf[x], end = sf[x + 1]; a < end; a++) {
        const v = L[sh[a]] + sw[a];
        if (v > l) l = v;
        if (withAux) {
          const va = LA[sh[a]] + sa[a];
          if (va > la) la = va;
        }
      }
      L[x] = l;
      if (l > longest) longest = l;
      if (withAux) {
        LA[x] = la;
        if (la > longestAux) longestAux = la;
      }
    }
    this.selLongest = longest;
    this.selLongestAux = longestAux;
    this.deriveInt32Weights(arcs, withAux);
    // Target entries → local ids (-1: a root stalled in its own search, i.e. dominated by another entry).
    const m = targets.start[targets.count];
    if (this.entryLocal.length < m) this.entryLocal = new Int32Array(m);
    const rank = this.ch.rank;
    for (let e = 0; e < m; e++) {
      const x = rank[targets.node[e]];
      this.entryLocal[e] = selSeen[x] === se ? local[x] : -1;
    }
    this.selCount = count;
    this.selectedNodes = count;
    this.selectedArcs = arcs;
    this.selNodes = order.slice();
    this.pinned = targets;
    this.pinnedWithAux = withAux;
  }

  private deriveInt32Weights(arcs: number, withAux: boolean): void {
    if (this.selLongest < INT_INF && (!withAux || this.selLongestAux < INT_INF)) {
      if (this.selWI.length < arcs) this.selWI = new Int32Array(arcs);
      if (withAux && this.selAuxI.length < arcs) this.selAuxI = new Int32Array(arcs);
      const sw = this.selW;
      const sa = this.selAux;
      for (let i = 0; i < arcs; i++) this.selWI[i] = sw[i];
      if (withAux) for (let i = 0; i < arcs; i++) this.selAuxI[i] = sa[i];
    }
  }

  /**
   * The pinned selection as plain typed arrays (copies), so that another thread can
   * {@link importPin} it instead of repeating the target searches.
   */
  exportPin(): PinnedSelection {
    if (this.pinned === null) throw new EngineError('Internal', 'SweepManyToMany: pinTargets() first.');
    const count = this.selCount;
    const arcs = this.selFirst[count];
    const m = this.pinned.start[this.pinned.count];
    return {
      withAux: this.pinnedWithAux,
      selNodes: this.selNodes.slice(0, count),
      selFirst: this.selFirst.slice(0, count + 1),
      selHead: this.selHead.slice(0, arcs),
      selW: this.selW.slice(0, arcs),
      selAux: this.pinnedWithAux ? this.selAux.slice(0, arcs) : new Float64Array(0),
      entryLocal: this.entryLocal.slice(0, m),
      longest: this.selLongest,
      longestAux: this.selLongestAux,
    };
  }

  /** Adopts a selection exported by a kernel over the same CH for the same `targets`. */
  importPin(targets: EndpointEntries, p: PinnedSelection): void {
    const se = this.nextSelEpoch();
    const count = p.selNodes.length;
    for (let i = 0; i < count; i++) {
      const x = p.selNodes[i];
      this.selSeen[x] = se;
      this.local[x] = i;
    }
    this.selNodes = p.selNodes;
    this.selFirst = p.selFirst;
    this.selHead = p.selHead;
    this.selW = p.selW;
    this.selAux = p.selAux;
    this.entryLocal = p.entryLocal;
    this.selLongest = p.longest;
    this.selLongestAux = p.longestAux;
    const arcs = p.selFirst[count];
    this.deriveInt32Weights(arcs, p.withAux);
    this.selCount = count;
    this.selectedNodes = count;
    this.selectedArcs = arcs;
    this.pinned = targets;
    this.pinnedWithAux = p.withAux;
  }

  /** Upward forward search (stall-on-demand) from entries [a, b); stages the labels of selected nodes for column k. */
  private upward(e: EndpointEntries, a: number, b: number, k: number, withAux: boolean): void {
    this.startSearch(e, a, b);
    const { fwd, bwd } = this.ch;
    const upFirst = fwd.firstOut;
    const upHead = fwd.head;
    const upW = fwd.weight;
    const upAux = fwd.aux;
    const dnFirst = bwd.firstOut;
    const dnHead = bwd.head;
    const dnW = bwd.weight;
    const dist = this.dist;
    const auxL = this.auxL;
    const auxTo = withAux ? auxL : null;
    const touched = this.touched;
    let tl = this.touchedLen;
    const heap = this.heap;
    const selSeen = this.selSeen;
    const se = this.selEpoch;
    const local = this.local;
    const K = this.batch;
    let stLen = this.stLen;
    let stMaxD = this.stMaxD;
    let stMaxA = this.stMaxA;
    while (heap.size > 0) {
      const x = heap.pop();
      const dx = dist[x];
      if (stalls(x, dx, dnFirst, dnHead, dnW, dist)) continue;
      const ax = auxL[x];
      if (selSeen[x] === se) {
        if (stLen === this.stCell.length) this.growStage();
        this.stCell[stLen] = local[x] * K + k;
        this.stD[stLen] = dx;
        this.stA[stLen] = ax;
        stLen++;
        if (dx > stMaxD) stMaxD = dx;
        if (ax > stMaxA) stMaxA = ax;
      }
      tl = relaxUp(x, dx, ax, upFirst, upHead, upW, upAux, dist, heap, touched, tl, null, auxTo);
    }
    this.touchedLen = tl;
    this.stLen = stLen;
    this.stMaxD = stMaxD;
    this.stMaxA = stMaxA;
  }

  private growStage(): void {
    const size = this.stCell.length * 2;
    const c = new Int32Array(size); c.set(this.stCell); this.stCell = c;
    const d = new Float64Array(size); d.set(this.stD); this.stD = d;
    const a = new Float64Array(size); a.set(this.stA); this.stA = a;
  }

  /**
   * Int32 sweep, branch-free: with c = D[x], d = D[y] + w - c, the new value is c + (d & (d >> 31))
   * (= min, keeping c on ties). Valid because every value stays below INT_INF + max weight < 2^31.
   * With aux, the same mask selects the aux of the improving path, and each node's row interleaves
   * its K distances and K aux values (one stream, adjacent cache lines). `withAux` holds for the
   * whole sweep, so its test per arc is always predicted.
   */
  private sweepI(withAux: boolean): void {
    const K = this.batch;
    /** Row width. */
    const W = withAux ? 2 * K : K;
    const D = this.DI;
    const sf = this.selFirst;
    const sh = this.selHead;
    const sw = this.selWI;
    const sa = this.selAuxI;
    const count = this.selCount;
    for (let x = 0; x < count; x++) {
      const xb = x * W;
      for (let a = sf[x], end = sf[x + 1]; a < end; a++) {
        const yb = sh[a] * W;
        const wa = sw[a];
        if (withAux) {
          const aa = sa[a];
          for (let k = 0; k < K; k += 2) {
            let c = D[xb + k];
            let d = D[yb + k] + wa - c;
            let mask = d >> 31;
            D[xb + k] = c + (d & mask);
            let ca = D[xb + K + k];
            D[xb + K + k] = ca + ((D[yb + K + k] + aa - ca) & mask);
            c = D[xb + k + 1];
            d = D[yb + k + 1] + wa - c;
            mask = d >> 31;
            D[xb + k + 1] = c + (d & mask);
            ca = D[xb + K + k + 1];
            D[xb + K + k + 1] = ca + ((D[yb + K + k + 1] + aa - ca) & mask);
          }
        } else {
          for (let k = 0; k < K; k += 4) {
            let c = D[xb + k];
            let d = D[yb + k] + wa - c;
            D[xb + k] = c + (d & (d >> 31));
            c = D[xb + k + 1];
            d = D[yb + k + 1] + wa - c;
            D[xb + k + 1] = c + (d & (d >> 31));
            c = D[xb + k + 2];
            d = D[yb + k + 2] + wa - c;
            D[xb + k + 2] = c + (d & (d >> 31));
            c = D[xb + k + 3];
            d = D[yb + k + 3] + wa - c;
            D[xb + k + 3] = c + (d & (d >> 31));
          }
        }
      }
    }
  }

  /** Float64 sweep (exact for any values): distances in DF, aux in AF, rows of K. */
  private sweepF(withAux: boolean): void {
    const K = this.batch;
    const D = this.DF;
    const A = this.AF;
    const sf = this.selFirst;
    const sh = this.selHead;
    const sw = this.selW;
    const sa = this.selAux;
    const count = this.selCount;
    for (let x = 0; x < count; x++) {
      const xb = x * K;
      for (let a = sf[x], end = sf[x + 1]; a < end; a++) {
        const yb = sh[a] * K;
        const wa = sw[a];
        if (withAux) {
          const aa = sa[a];
          for (let k = 0; k < K; k++) {
            const v = D[yb + k] + wa;
            if (v < D[xb + k]) {
              D[xb + k] = v;
              A[xb + k] = A[yb + k] + aa;
            }
          }
        } else {
          for (let k = 0; k < K; k += 4) {
            const v0 = D[yb + k] + wa;
            const v1 = D[yb + k + 1] + wa;
            const v2 = D[yb + k + 2] + wa;
            const v3 = D[yb + k + 3] + wa;
            if (v0 < D[xb + k]) D[xb + k] = v0;
            if (v1 < D[xb + k + 1]) D[xb + k + 1] = v1;
            if (v2 < D[xb + k + 2]) D[xb + k + 2] = v2;
            if (v3 < D[xb + k + 3]) D[xb + k + 3] = v3;
          }
        }
      }
    }
  }

  /**
   * Phase 2 for the pinned targets: rows for `sources` into `out` (row-major; unreachable cells
   * get {@link UNREACHABLE}, costs above 2^32 - 2 saturate there). `onRow(i)` is called after
   * each row; returning true stops early.
   */
  runPinned(sources: EndpointEntries, out: MatrixOutput, onRow?: (i: number) => boolean | void): void {
    const targets = this.pinned;
    if (targets === null) throw new EngineError('Internal', 'SweepManyToMany: pinTargets() first.');
    const withAux = out.aux !== null;
    if (withAux && !this.pinnedWithAux) this.pinTargets(targets, true);
    const T = targets.count;
    const S = sources.count;
    const stride = out.stride ?? T;
    const offset = out.offset ?? 0;
    this.intBatches = 0;
    this.floatBatches = 0;
    if (T === 0 || S === 0) return;
    const K = this.batch;
    const cells = this.selCount * K;
    for (let s0 = 0; s0 < S; s0 += K) {
      const kb = Math.min(K, S - s0);
      this.stLen = 0;
      this.stMaxD = 0;
      this.stMaxA = 0;
      for (let k = 0; k < kb; k++) this.upward(sources, sources.start[s0 + k], sources.start[s0 + k + 1], k, withAux);
      const intMode = this.stMaxD + this.selLongest < INT_INF && (!withAux || this.stMaxA + this.selLongestAux < INT_INF);
      const stCell = this.stCell;
      const stD = this.stD;
      const stA = this.stA;
      const stLen = this.stLen;
      if (intMode) {
        this.intBatches++;
        // With aux, each node's row is [K distances, K aux values].
        const size = withAux ? 2 * cells : cells;
        if (this.DI.length < size) this.DI = new Int32Array(size);
        const D = this.DI;
        D.fill(INT_INF, 0, size);
        if (withAux) {
          for (let i = 0; i < stLen; i++) {
            const cell = stCell[i];
            const l = (cell / K) | 0;
            const idx = cell + l * K;
            D[idx] = stD[i];
            D[idx + K] = stA[i];
          }
          this.sweepI(true);
        } else {
          for (let i = 0; i < stLen; i++) D[stCell[i]] = stD[i];
          this.sweepI(false);
        }
        this.extract(true, targets, kb, s0, out, offset, stride);
      } else {
        this.floatBatches++;
        if (this.DF.length < cells) this.DF = new Float64Array(cells);
        if (withAux && this.AF.length < cells) this.AF = new Float64Array(cells);
        const D = this.DF;
        const A = this.AF;
        D.fill(Infinity, 0, cells);
        for (let i = 0; i < stLen; i++) {
          D[stCell[i]] = stD[i];
          if (withAux) A[stCell[i]] = stA[i];
        }
        this.sweepF(withAux);
        this.extract(false, targets, kb, s0, out, offset, stride);
      }
      if (onRow) for (let k = 0; k < kb; k++) if (onRow(s0 + k) === true) return;
    }
  }

  /**
   * Writes rows s0 .. s0+kb-1 of the output from the swept table: per target, the minimum over
   * its entries. Target-major, so the kb columns of an entry's table row are read contiguously.
   */
  private extract(intMode: boolean, targets: EndpointEntries, kb: number, s0: number, out: MatrixOutput, offset: number, stride: number): void {
    const K = this.batch;
    const DI = this.DI;
    const DF = this.DF;
    const AF = this.AF;
    const withAux = out.aux !== null;
    const cost = out.cost;
    const auxOut = out.aux;
    const tStart = targets.start;
    const tCost = targets.cost;
    const tAux = targets.aux;
    const entryLocal = this.entryLocal;
    if (this.bestC.length < K) {
      this.bestC = new Float64Array(K);
      this.bestA = new Float64Array(K);
    }
    const bestC = this.bestC;
    const bestA = this.bestA;
    const T = targets.count;
    for (let j = 0; j < T; j++) {
      for (let k = 0; k < kb; k++) bestC[k] = Infinity;
      for (let e = tStart[j], end = tStart[j + 1]; e < end; e++) {
        const l = entryLocal[e];
        if (l < 0) continue;
        const c0 = tCost[e];
        const a0 = tAux ? tAux[e] : 0;
        if (intMode) {
          const off = withAux ? 2 * l * K : l * K;
          for (let k = 0; k < kb; k++) {
            const v = DI[off + k];
            if (v === INT_INF) continue;
            const c = v + c0;
            if (c < bestC[k]) {
              bestC[k] = c;
              if (withAux) bestA[k] = DI[off + K + k] + a0;
            }
          }
        } else {
          const off = l * K;
          for (let k = 0; k < kb; k++) {
            const c = DF[off + k] + c0;
            if (c < bestC[k]) {
              bestC[k] = c;
              if (withAux) bestA[k] = AF[off + k] + a0;
            }
          }
        }
      }
      let idx = offset + s0 * stride + j;
      for (let k = 0; k < kb; k++, idx += stride) {
        const c = bestC[k];
        cost[idx] = c === Infinity ? UNREACHABLE : c > MAX_COST ? MAX_COST : c;
        if (auxOut !== null) {
          const x = bestA[k];
          auxOut[idx] = c === Infinity ? UNREACHABLE : x > MAX_COST ? MAX_COST : x;
        }
      }
    }
  }

  /** Pins `targets` and computes all rows (see {@link runPinned}). */
  run(sources: EndpointEntries, targets: EndpointEntries, out: MatrixOutput, onRow?: (i: number) => boolean | void): void {
    this.pinTargets(targets, out.aux !== null);
    this.runPinned(sources, out, onRow);
  }
}

