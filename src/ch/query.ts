/**
 * Point-to-point CH query: bidirectional upward Dijkstra with stall-on-demand, several sources
 * and targets with initial costs (phantom-node entries), path unpacking to input arc ids.
 *
 * One ChQuery per thread and CH; it owns its scratch (O(n) once) and resets in O(touched). Costs
 * are integers, as the hierarchy's weights: tentative distances and heap keys are int32 (V8 then
 * adds, compares and moves integers only: 0.92–1.00× the time on doubles, docs/ch.md), so an
 * entry cost must be an integer below 2^31 − 1 and a path costing that much or more is refused
 * (TooBig: use coarser units — 2^31 − 1 ms is 24.8 days, cm 21,475 km). A run allocates nothing:
 * the searches record predecessor *nodes* (as RoutingKit does), so the paths are walked without
 * searching for the node an arc hangs at, and unpacking writes into an owned buffer; only the
 * arrays handed back by {@link ChQuery.arcPath} / {@link ChQuery.nodePath} are new.
 *
 * ```ts
 * const q = new ChQuery(ch);
 * q.reset().addSource(s).addTarget(t).run();
 * q.distance(); q.aux(); q.arcPath(); q.nodePath();
 * ```
 */
import { EngineError } from '../core/errors.js';
import { MinIdHeapInt } from '../graph/dijkstra.js';
import { ContractionHierarchy, type ChSide } from './hierarchy.js';

/** Tentative distance of a node not reached; no path may cost this much (int32's largest). */
const UNREACHED = 0x7fffffff;

export class ChQuery {
  readonly ch: ContractionHierarchy;
  private readonly n: number;
  /** Tentative distances; UNREACHED = not reached (reset through the touched lists). */
  private readonly fDist: Int32Array;
  private readonly bDist: Int32Array;
  /** Node (internal id) a node was reached from, -1 for a root (source / target entry). */
  private readonly fPred: Int32Array;
  private readonly bPred: Int32Array;
  /** Entry aux of roots. */
  private readonly fRootAux: Float64Array;
  private readonly bRootAux: Float64Array;
  private readonly fTouched: Int32Array;
  private readonly bTouched: Int32Array;
  private fCount = 0;
  private bCount = 0;
  private readonly fHeap: MinIdHeapInt;
  private readonly bHeap: MinIdHeapInt;
  private best = Infinity;
  private meet = -1;
  private state: 0 | 1 = 0; // 0: collecting entries, 1: ran
  /**
   * The unpack words and shortcut entries read as int32 (views, no copy): ORIGINAL (2^31) + an
   * input arc id is negative, so one sign test tells an input arc (id = word & 0x7fffffff) from an
   * entry index, with no constant to compare against.
   */
  private fRef: Int32Array | null = null;
  private bRef: Int32Array | null = null;
  private sc: Int32Array | null = null;
  /**
   * Unpacking stack, grown on demand and kept: per item a code (an int32 unpack word, above) and
   * the input node the item's part of the path ends at.
   */
  private stack = new Int32Array(256);
  private ends = new Int32Array(256);
  /** Output buffer of the unpacking (input arc or node ids), grown on demand, kept. */
  private out = new Int32Array(256);
  /** Nodes settled by the last run (both directions; a work measure). */
  settled = 0;

  constructor(ch: ContractionHierarchy) {
    this.ch = ch;
    const n = (this.n = ch.numNodes);
    this.fDist = new Int32Array(n).fill(UNREACHED);
    this.bDist = new Int32Array(n).fill(UNREACHED);
    this.fPred = new Int32Array(n);
    this.bPred = new Int32Array(n);
    this.fRootAux = new Float64Array(n);
    this.bRootAux = new Float64Array(n);
    this.fTouched = new Int32Array(n);
    this.bTouched = new Int32Array(n);
    this.fHeap = new MinIdHeapInt(n);
    this.bHeap = new MinIdHeapInt(n);
  }

  /**
   * Takes the unpack words and shortcut entries on the first unpacking (a dataset read on demand
   * reads them only then: a query that never unpacks a path never holds them).
   */
  private unpackData(): void {
    const i32 = (u: Uint32Array): Int32Array => new Int32Array(u.buffer, u.byteOffset, u.length);
    // all three or none: a section that fails to read (DatasetFormat) is read again at the next unpacking
    const f = i32(this.ch.fwd.unpack), b = i32(this.ch.bwd.unpack), sc = i32(this.ch.shortcuts);
    this.fRef = f;
    this.bRef = b;
    this.sc = sc;
  }

  reset(): this {
    this.fHeap.clear();
    this.bHeap.clear();
    const fDist = this.fDist;
    const fT = this.fTouched;
    for (let i = 0, c = this.fCount; i < c; i++) fDist[fT[i]] = UNREACHED;
    const bDist = this.bDist;
    const bT = this.bTouched;
    for (let i = 0, c = this.bCount; i < c; i++) bDist[bT[i]] = UNREACHED;
    this.fCount = 0;
    this.bCount = 0;
    this.best = Infinity;
    this.meet = -1;
    this.state = 0;
    this.settled = 0;
    return this;
  }

  /** Adds a source entry: the path may start at input node `node` having already cost `cost` (and `aux`). */
  addSource(node: number, cost = 0, aux = 0): this {
    const x = this.check(node, cost);
    if (cost >= this.fDist[x]) return this;
    if (this.fDist[x] === UNREACHED) this.fTouched[this.fCount++] = x;
    this.fDist[x] = cost;
    this.fHeap.set(x, cost);
    this.fRootAux[x] = aux;
    this.fPred[x] = -1;
    return this;
  }

  /** Adds a target entry: the path may end at input node `node`, then costing `cost` (and `aux`) more. */
  addTarget(node: number, cost = 0, aux = 0): this {
    const x = this.check(node, cost);
    if (cost >= this.bDist[x]) return this;
    if (this.bDist[x] === UNREACHED) this.bTouched[this.bCount++] = x;
    this.bDist[x] = cost;
    this.bHeap.set(x, cost);
    this.bRootAux[x] = aux;
    this.bPred[x] = -1;
    return this;
  }

  private check(node: number, cost: number): number {
    if (this.state !== 0) throw new EngineError('Internal', 'ChQuery: call reset() before adding entries to a query that has run.');
    if (!(node >= 0 && node < this.n) || !Number.isInteger(node)) throw new EngineError('InvalidInput', `Node ${node} is outside 0..${this.n - 1}.`, { path: 'node' });
    if (!(Number.isInteger(cost) && cost >= 0 && cost < UNREACHED)) throw new EngineError('InvalidInput', `Entry cost must be a non-negative integer below ${UNREACHED} (the hierarchy's units), got ${cost}.`, { path: 'cost' });
    return this.ch.rank[node];
  }

  /**
   * Bidirectional upward search, alternating sides, each stopping when its smallest key reaches
   * the best meeting cost. A settled node is stalled (not expanded) when a higher node already
   * reached proves its distance is not exact; a relaxation that cannot beat the best meeting
   * cost is not pushed. Sums are exact (JavaScript numbers); one that reaches UNREACHED is not
   * kept, and when no path was found after dropping one, the query is refused (TooBig) rather
   * than answering "no path" wrongly.
   */
  run(): this {
    const { fwd, bwd } = this.ch;
    const fFirst = fwd.firstOut;
    const fHead = fwd.head;
    const fW = fwd.weight;
    const bFirst = bwd.firstOut;
    const bHead = bwd.head;
    const bW = bwd.weight;
    const fDist = this.fDist;
    const bDist = this.bDist;
    const fPred = this.fPred;
    const bPred = this.bPred;
    const fTouched = this.fTouched;
    const bTouched = this.bTouched;
    let fCount = this.fCount;
    let bCount = this.bCount;
    const fh = this.fHeap;
    const bh = this.bHeap;
    let best = UNREACHED;
    let meet = -1;
    let settled = 0;
    let forwardNext = true;
    let dropped = false; // a sum reached UNREACHED
    for (;;) {
      const fDone = fh.size === 0 || fh.minKey() >= best;
      const bDone = bh.size === 0 || bh.minKey() >= best;
      if (fDone) {
        if (bDone) break;
        forwardNext = false;
      } else if (bDone) forwardNext = true;
      settled++;
      if (forwardNext) {
        const x = fh.pop();
        const dx = fDist[x];
        const bx = bDist[x];
        const c = dx + bx;
        if (c < best) { best = c; meet = x; } else if (c >= UNREACHED && bx !== UNREACHED) dropped = true;
        // Stall on demand: a higher node y with d(y) + w(y→x) ≤ d(x) proves d(x) is not exact.
        let stalled = false;
        for (let a = bFirst[x], end = bFirst[x + 1]; a < end; a++) {
          if (fDist[bHead[a]] + bW[a] <= dx) { stalled = true; break; }
        }
        if (!stalled) {
          for (let a = fFirst[x], end = fFirst[x + 1]; a < end; a++) {
            const d = dx + fW[a];
            if (d >= best) { if (d >= UNREACHED) dropped = true; continue; }
            const y = fHead[a];
            const old = fDist[y];
            if (d < old) {
              if (old === UNREACHED) {
                fTouched[fCount++] = y;
                fh.push(y, d);
              } else fh.decreaseKey(y, d);
              fDist[y] = d;
              fPred[y] = x;
            }
          }
        }
        forwardNext = false;
      } else {
        const x = bh.pop();
        const dx = bDist[x];
        const fx = fDist[x];
        const c = dx + fx;
        if (c < best) { best = c; meet = x; } else if (c >= UNREACHED && fx !== UNREACHED) dropped = true;
        let stalled = false;
        for (let a = fFirst[x], end = fFirst[x + 1]; a < end; a++) {
          if (bDist[fHead[a]] + fW[a] <= dx) { stalled = true; break; }
        }
        if (!stalled) {
          for (let a = bFirst[x], end = bFirst[x + 1]; a < end; a++) {
            const d = dx + bW[a];
            if (d >= best) { if (d >= UNREACHED) dropped = true; continue; }
            const y = bHead[a];
            const old = bDist[y];
            if (d < old) {
              if (old === UNREACHED) {
                bTouched[bCount++] = y;
                bh.push(y, d);
              } else bh.decreaseKey(y, d);
              bDist[y] = d;
              bPred[y] = x;
            }
          }
        }
        forwardNext = true;
      }
    }
    this.fCount = fCount;
    this.bCount = bCount;
    this.best = meet < 0 ? Infinity : best;
    this.meet = meet;
    this.settled = settled;
    this.state = 1;
    // A dropped sum matters only when nothing cheaper was found: it was ≥ UNREACHED > best otherwise.
    if (meet < 0 && dropped) throw new EngineError('TooBig', `CH query: a path costs ${UNREACHED} or more in the hierarchy's units; use coarser units.`);
    return this;
  }

  /** Cost of the best path (entry costs included), Infinity if no target is reachable. */
  distance(): number {
    return this.best;
  }

  /** Whether a path was found. */
  found(): boolean {
    return this.meet >= 0;
  }

  /**
   * The CH arc p→x of a side's search tree (stored at p, head x): the arc with head x whose
   * weight explains x's distance (exact: the distance was computed as that sum).
   */
  private static treeArc(first: Uint32Array, head: Uint32Array, weight: Uint32Array, p: number, x: number, dp: number, dx: number): number {
    let any = -1;
    for (let a = first[p], end = first[p + 1]; a < end; a++) {
      if (head[a] !== x) continue;
      if (dp + weight[a] === dx) return a;
      any = a;
    }
    if (any < 0) throw new EngineError('Internal', 'ChQuery: search tree arc missing.');
    return any;
  }

  private sourceRoot(): number {
    const pred = this.fPred;
    let x = this.meet;
    while (pred[x] >= 0) x = pred[x];
    return x;
  }

  private targetRoot(): number {
    const pred = this.bPred;
    let x = this.meet;
    while (pred[x] >= 0) x = pred[x];
    return x;
  }

  /** Aux sum of the chosen path (entry aux values included); NaN if none. */
  aux(): number {
    if (this.meet < 0) return NaN;
    const { fwd, bwd } = this.ch;
    return this.sideAux(fwd, this.fDist, this.fPred, this.fRootAux) + this.sideAux(bwd, this.bDist, this.bPred, this.bRootAux);
  }

  /** Aux of one side's tree path from the meeting node to its root, plus the root's entry aux. */
  private sideAux(side: ChSide, dist: Int32Array, pred: Int32Array, rootAux: Float64Array): number {
    const hasAux = this.ch.hasAux;
    let s = 0;
    let x = this.meet;
    for (let p = pred[x]; p >= 0; x = p, p = pred[x]) {
      if (hasAux) s += side.aux[ChQuery.treeArc(side.firstOut, side.head, side.weight, p, x, dist[p], dist[x])];
    }
    return s + rootAux[x];
  }

  /** The source entry node (input id) the chosen path starts from, or -1. */
  usedSource(): number {
    return this.meet < 0 ? -1 : this.ch.order[this.sourceRoot()];
  }

  /** The target entry node (input id) the chosen path ends at, or -1. */
  usedTarget(): number {
    return this.meet < 0 ? -1 : this.ch.order[this.targetRoot()];
  }

  /** Input arc ids of the chosen path, source to target ([] if none, or if source = target). */
  arcPath(): number[] {
    if (this.meet < 0) return [];
    return this.copyOut(0, this.unpackPath(false, 0));
  }

  /** Input node ids of the chosen path, source to target ([] if none). */
  nodePath(): number[] {
    if (this.meet < 0) return [];
    this.ensureOut(1);
    this.out[0] = this.ch.order[this.sourceRoot()];
    return this.copyOut(0, this.unpackPath(true, 1));
  }

  /**
   * Writes the input node ids of the chosen path into `into` (from index 0) and returns their
   * count, or -1 when `into` is too short (nothing allocated; 0 when no path was found).
   */
  nodePathInto(into: Uint32Array | Int32Array): number {
    if (this.meet < 0) return 0;
    this.ensureOut(1);
    this.out[0] = this.ch.order[this.sourceRoot()];
    const len = this.unpackPath(true, 1);
    if (len > into.length) return -1;
    const out = this.out;
    for (let i = 0; i < len; i++) into[i] = out[i];
    return len;
  }

  private copyOut(from: number, to: number): number[] {
    const buf = this.out;
    const res = new Array<number>(to - from);
    for (let i = from; i < to; i++) res[i - from] = buf[i];
    return res;
  }

  private ensureOut(len: number): void {
    if (len > this.out.length) {
      const bigger = new Int32Array(Math.max(len, this.out.length * 2));
      bigger.set(this.out);
      this.out = bigger;
    }
  }

  /**
   * Unpacks the chosen path into `this.out` from index `at` (input arc ids, or with `heads` their
   * head nodes) and returns the end index. The stack gets the CH arcs of the path so that the
   * first one is on top: the downward arcs (the one reaching the target root at the bottom), then
   * the upward arcs walked from the meeting node down to the source root.
   */
  private unpackPath(heads: boolean, at: number): number {
    const { fwd, bwd, order } = this.ch;
    if (this.fRef === null) this.unpackData();
    const fRef = this.fRef!;
    const bRef = this.bRef!;
    // A tree path has at most as many arcs as its side touched nodes.
    const need = this.fCount + this.bCount + 2;
    if (this.stack.length < need) this.growStack(need);
    const stack = this.stack;
    const ends = this.ends;
    let sp = 0;
    // Downward part, collected in travel order (a bwd arc at p with head x is the input-direction
    // arc x→p: it ends at p), then reversed in place.
    const bDist = this.bDist;
    const bPred = this.bPred;
    let x = this.meet;
    for (let p = bPred[x]; p >= 0; x = p, p = bPred[x]) {
      stack[sp] = bRef[ChQuery.treeArc(bwd.firstOut, bwd.head, bwd.weight, p, x, bDist[p], bDist[x])];
      ends[sp++] = order[p];
    }
    for (let i = 0, j = sp - 1; i < j; i++, j--) {
      const c = stack[i];
      stack[i] = stack[j];
      stack[j] = c;
      const e = ends[i];
      ends[i] = ends[j];
      ends[j] = e;
    }
    const fDist = this.fDist;
    const fPred = this.fPred;
    x = this.meet;
    for (let p = fPred[x]; p >= 0; x = p, p = fPred[x]) {
      stack[sp] = fRef[ChQuery.treeArc(fwd.firstOut, fwd.head, fwd.weight, p, x, fDist[p], fDist[x])];
      ends[sp++] = order[x];
    }
    return this.unpackStack(sp, heads, at);
  }

  private growStack(len: number): void {
    const size = Math.max(len, this.stack.length * 2);
    const s = new Int32Array(size);
    s.set(this.stack);
    const e = new Int32Array(size);
    e.set(this.ends);
    this.stack = s;
    this.ends = e;
  }

  /**
   * Pops the stack to empty, writing input arcs (or their heads) into `this.out` from `at`. A
   * shortcut u→w via v ending at w becomes its second half (ending at w) under its first half
   * (ending at v); halves that are input arcs are written in its entry, so they cost no read.
   */
  private unpackStack(sp: number, heads: boolean, at: number): number {
    const sc = this.sc!; // taken by unpackPath, its only caller
    let stack = this.stack;
    let ends = this.ends;
    let out = this.out;
    let k = at;
    while (sp > 0) {
      let code = stack[--sp];
      let end = ends[sp];
      // Down the chain of first halves (u→v, ending at v); second halves (v→w) wait on the stack.
      while (code >= 0) {
        const i = 3 * code;
        if (sp === stack.length) {
          this.growStack(sp + 1);
          stack = this.stack;
          ends = this.ends;
        }
        stack[sp] = sc[i + 1];
        ends[sp++] = end;
        code = sc[i];
        end = sc[i + 2];
      }
      if (k === out.length) {
        this.ensureOut(k + 1);
        out = this.out;
      }
      out[k++] = heads ? end : code & 0x7fffffff;
    }
    return k;
  }
}
