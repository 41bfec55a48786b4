/**
 * Point-to-point CH query: bidirectional upward Dijkstra with stall-on-demand, several sources
 * and targets with initial costs (phantom-node entries), path unpacking to input arc ids.
 *
 * One ChQuery per thread and CH; it owns its scratch (O(n) once) and resets in O(touched).
 *
 * ```ts
 * const q = new ChQuery(ch);
 * q.reset().addSource(s).addTarget(t).run();
 * q.distance(); q.aux(); q.arcPath(); q.nodePath();
 * ```
 */
import { EngineError } from '../core/errors.js';
import { MinIdHeap } from '../graph/dijkstra.js';
import { ContractionHierarchy } from './hierarchy.js';

/**
 * Same value as hierarchy.ts ORIGINAL. A module-local constant on purpose: V8 does not fold
 * imported bindings (each read keeps a TDZ check); reading the import made unpacking 3× slower.
 */
const ORIGINAL = 0x80000000;

export class ChQuery {
  readonly ch: ContractionHierarchy;
  private readonly n: number;
  /** Tentative distances; Infinity = not reached (reset through the touched lists). */
  private readonly fDist: Float64Array;
  private readonly bDist: Float64Array;
  /** CH arc used to reach a node (index into fwd / bwd), -1 for a root (source / target entry). */
  private readonly fPredArc: Int32Array;
  private readonly bPredArc: Int32Array;
  /** Entry aux of roots. */
  private readonly fRootAux: Float64Array;
  private readonly bRootAux: Float64Array;
  private readonly fTouched: Int32Array;
  private readonly bTouched: Int32Array;
  private fCount = 0;
  private bCount = 0;
  private readonly fHeap: MinIdHeap;
  private readonly bHeap: MinIdHeap;
  private best = Infinity;
  private meet = -1;
  private state: 0 | 1 = 0; // 0: collecting entries, 1: ran
  private stack = new Int32Array(64);
  /** Nodes settled by the last run (both directions; a work measure). */
  settled = 0;

  constructor(ch: ContractionHierarchy) {
    this.ch = ch;
    const n = (this.n = ch.numNodes);
    this.fDist = new Float64Array(n).fill(Infinity);
    this.bDist = new Float64Array(n).fill(Infinity);
    this.fPredArc = new Int32Array(n);
    this.bPredArc = new Int32Array(n);
    this.fRootAux = new Float64Array(n);
    this.bRootAux = new Float64Array(n);
    this.fTouched = new Int32Array(n);
    this.bTouched = new Int32Array(n);
    this.fHeap = new MinIdHeap(n);
    this.bHeap = new MinIdHeap(n);
  }

  reset(): this {
    this.fHeap.clear();
    this.bHeap.clear();
    const fDist = this.fDist;
    const fT = this.fTouched;
    for (let i = 0, c = this.fCount; i < c; i++) fDist[fT[i]] = Infinity;
    const bDist = this.bDist;
    const bT = this.bTouched;
    for (let i = 0, c = this.bCount; i < c; i++) bDist[bT[i]] = Infinity;
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
    if (this.fDist[x] === Infinity) this.fTouched[this.fCount++] = x;
    this.fDist[x] = cost;
    this.fHeap.set(x, cost);
    this.fRootAux[x] = aux;
    this.fPredArc[x] = -1;
    return this;
  }

  /** Adds a target entry: the path may end at input node `node`, then costing `cost` (and `aux`) more. */
  addTarget(node: number, cost = 0, aux = 0): this {
    const x = this.check(node, cost);
    if (cost >= this.bDist[x]) return this;
    if (this.bDist[x] === Infinity) this.bTouched[this.bCount++] = x;
    this.bDist[x] = cost;
    this.bHeap.set(x, cost);
    this.bRootAux[x] = aux;
    this.bPredArc[x] = -1;
    return this;
  }

  private check(node: number, cost: number): number {
    if (this.state !== 0) throw new EngineError('Internal', 'ChQuery: call reset() before adding entries to a query that has run.');
    if (!(node >= 0 && node < this.n) || !Number.isInteger(node)) throw new EngineError('InvalidInput', `Node ${node} is outside 0..${this.n - 1}.`, { path: 'node' });
    if (!(cost >= 0 && cost < Infinity)) throw new EngineError('InvalidInput', `Entry cost must be a non-negative finite number, got ${cost}.`, { path: 'cost' });
    return this.ch.rank[node];
  }

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
    const fPredArc = this.fPredArc;
    const bPredArc = this.bPredArc;
    const fTouched = this.fTouched;
    const bTouched = this.bTouched;
    let fCount = this.fCount;
    let bCount = this.bCount;
    const fh = this.fHeap;
    const bh = this.bHeap;
    let best = Infinity;
    let meet = -1;
    let settled = 0;
    let forwardNext = true;
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
        const c = dx + bDist[x];
        if (c < best) { best = c; meet = x; }
        // Stall on demand: a higher node y with d(y) + w(y→x) ≤ d(x) proves d(x) is not exact.
        let stalled = false;
        for (let a = bFirst[x], end = bFirst[x + 1]; a < end; a++) {
          if (fDist[bHead[a]] + bW[a] <= dx) { stalled = true; break; }
        }
        if (!stalled) {
          for (let a = fFirst[x], end = fFirst[x + 1]; a < end; a++) {
            const y = fHead[a];
            const d = dx + fW[a];
            const old = fDist[y];
            if (d < old) {
              if (old === Infinity) {
                fTouched[fCount++] = y;
                fh.push(y, d);
              } else fh.decreaseKey(y, d);
              fDist[y] = d;
              fPredArc[y] = a;
            }
          }
        }
        forwardNext = false;
      } else {
        const x = bh.pop();
        const dx = bDist[x];
        const c = dx + fDist[x];
        if (c < best) { best = c; meet = x; }
        let stalled = false;
        for (let a = fFirst[x], end = fFirst[x + 1]; a < end; a++) {
          if (bDist[fHead[a]] + fW[a] <= dx) { stalled = true; break; }
        }
        if (!stalled) {
          for (let a = bFirst[x], end = bFirst[x + 1]; a < end; a++) {
            const y = bHead[a];
            const d = dx + bW[a];
            const old = bDist[y];
            if (d < old) {
              if (old === Infinity) {
                bTouched[bCount++] = y;
                bh.push(y, d);
              } else bh.decreaseKey(y, d);
              bDist[y] = d;
              bPredArc[y] = a;
            }
          }
        }
        forwardNext = true;
      }
    }
    this.fCount = fCount;
    this.bCount = bCount;
    this.best = best;
    this.meet = meet;
    this.settled = settled;
    this.state = 1;
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

  /** The node storing CH arc `a` of a side (its lower endpoint), by binary search on firstOut. */
  private static lowerEnd(firstOut: Uint32Array, a: number): number {
    let lo = 0;
    let hi = firstOut.length - 2;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (firstOut[mid] <= a) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** CH arcs from the source root up to the meeting node (in travel order). */
  private upArcs(): number[] {
    const out: number[] = [];
    const first = this.ch.fwd.firstOut;
    for (let x = this.meet; this.fPredArc[x] >= 0; ) {
      const a = this.fPredArc[x];
      out.push(a);
      x = ChQuery.lowerEnd(first, a);
    }
    return out.reverse();
  }

  /** CH arcs from the meeting node down to the target root (in travel order). */
  private downArcs(): number[] {
    const out: number[] = [];
    const first = this.ch.bwd.firstOut;
    for (let x = this.meet; this.bPredArc[x] >= 0; ) {
      const a = this.bPredArc[x];
      out.push(a);
      x = ChQuery.lowerEnd(first, a);
    }
    return out;
  }

  /** Aux sum of the chosen path (entry aux values included); NaN if none. */
  aux(): number {
    if (this.meet < 0) return NaN;
    const { fwd, bwd, hasAux } = this.ch;
    let s = this.fRootAux[this.sourceRoot()] + this.bRootAux[this.targetRoot()];
    if (hasAux) {
      for (const a of this.upArcs()) s += fwd.aux[a];
      for (const a of this.downArcs()) s += bwd.aux[a];
    }
    return s;
  }

  private sourceRoot(): number {
    const first = this.ch.fwd.firstOut;
    let x = this.meet;
    while (this.fPredArc[x] >= 0) x = ChQuery.lowerEnd(first, this.fPredArc[x]);
    return x;
  }

  private targetRoot(): number {
    const first = this.ch.bwd.firstOut;
    let x = this.meet;
    while (this.bPredArc[x] >= 0) x = ChQuery.lowerEnd(first, this.bPredArc[x]);
    return x;
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
    const out: number[] = [];
    if (this.meet < 0) return out;
    for (const a of this.upArcs()) this.unpack(a, 0, out, false);
    for (const a of this.downArcs()) this.unpack(a, 1, out, false);
    return out;
  }

  /** Input node ids of the chosen path, source to target ([] if none). */
  nodePath(): number[] {
    if (this.meet < 0) return [];
    const out: number[] = [this.usedSource()];
    for (const a of this.upArcs()) this.unpack(a, 0, out, true);
    for (const a of this.downArcs()) this.unpack(a, 1, out, true);
    return out;
  }

  /** Appends the input arcs (or, with `heads`, their head nodes) of CH arc `arc` (side 0 = fwd, 1 = bwd), in travel order. */
  private unpack(arc: number, side: number, out: number[], heads: boolean): void {
    const fU = this.ch.fwd.unpack;
    const bU = this.ch.bwd.unpack;
    let stack = this.stack;
    let sp = 0;
    stack[sp++] = arc * 2 + side;
    while (sp > 0) {
      const code = stack[--sp];
      const i = (code >>> 1) * 2;
      const u = (code & 1) === 0 ? fU : bU;
      const first = u[i];
      const second = u[i + 1];
      if (second >= ORIGINAL) {
        out.push(heads ? second - ORIGINAL : first);
        continue;
      }
      if (sp + 2 > stack.length) {
        const bigger = new Int32Array(stack.length * 2);
        bigger.set(stack);
        this.stack = stack = bigger;
      }
      stack[sp++] = second * 2; // fwd half (v→w), done second
      stack[sp++] = first * 2 + 1; // bwd half (u→v), done first
    }
  }
}
