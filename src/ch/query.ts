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
import { ContractionHierarchy, ORIGINAL } from './hierarchy.js';

export class ChQuery {
  readonly ch: ContractionHierarchy;
  private readonly n: number;
  private readonly fDist: Float64Array;
  private readonly bDist: Float64Array;
  private readonly fSeen: Uint32Array;
  private readonly bSeen: Uint32Array;
  /** CH arc used to reach a node (index into fwd / bwd), -1 for a root (source / target entry). */
  private readonly fPredArc: Int32Array;
  private readonly bPredArc: Int32Array;
  private readonly fPredNode: Int32Array;
  private readonly bPredNode: Int32Array;
  /** Entry aux of roots. */
  private readonly fRootAux: Float64Array;
  private readonly bRootAux: Float64Array;
  private readonly fHeap: MinIdHeap;
  private readonly bHeap: MinIdHeap;
  private epoch = 1;
  private best = Infinity;
  private meet = -1;
  private state: 0 | 1 = 0; // 0: collecting entries, 1: ran
  private stack = new Int32Array(64);
  /** Nodes settled by the last run (both directions; a work measure). */
  settled = 0;

  constructor(ch: ContractionHierarchy) {
    this.ch = ch;
    const n = (this.n = ch.numNodes);
    this.fDist = new Float64Array(n);
    this.bDist = new Float64Array(n);
    this.fSeen = new Uint32Array(n);
    this.bSeen = new Uint32Array(n);
    this.fPredArc = new Int32Array(n);
    this.bPredArc = new Int32Array(n);
    this.fPredNode = new Int32Array(n);
    this.bPredNode = new Int32Array(n);
    this.fRootAux = new Float64Array(n);
    this.bRootAux = new Float64Array(n);
    this.fHeap = new MinIdHeap(n);
    this.bHeap = new MinIdHeap(n);
  }

  reset(): this {
    this.fHeap.clear();
    this.bHeap.clear();
    if (++this.epoch === 0xffffffff) {
      this.fSeen.fill(0);
      this.bSeen.fill(0);
      this.epoch = 1;
    }
    this.best = Infinity;
    this.meet = -1;
    this.state = 0;
    this.settled = 0;
    return this;
  }

  /** Adds a source entry: the path may start at input node `node` having already cost `cost` (and `aux`). */
  addSource(node: number, cost = 0, aux = 0): this {
    this.entry(node, cost, aux, true);
    return this;
  }

  /** Adds a target entry: the path may end at input node `node`, then costing `cost` (and `aux`) more. */
  addTarget(node: number, cost = 0, aux = 0): this {
    this.entry(node, cost, aux, false);
    return this;
  }

  private entry(node: number, cost: number, aux: number, forward: boolean): void {
    if (this.state !== 0) throw new EngineError('Internal', 'ChQuery: call reset() before adding entries to a query that has run.');
    if (!(node >= 0 && node < this.n) || !Number.isInteger(node)) throw new EngineError('InvalidInput', `Node ${node} is outside 0..${this.n - 1}.`, { path: 'node' });
    if (!(cost >= 0)) throw new EngineError('InvalidInput', `Entry cost must be a non-negative number, got ${cost}.`, { path: 'cost' });
    const x = this.ch.rank[node];
    const seen = forward ? this.fSeen : this.bSeen;
    const dist = forward ? this.fDist : this.bDist;
    const heap = forward ? this.fHeap : this.bHeap;
    if (seen[x] === this.epoch) {
      if (cost >= dist[x]) return;
      heap.set(x, cost);
    } else {
      seen[x] = this.epoch;
      heap.push(x, cost);
    }
    dist[x] = cost;
    (forward ? this.fRootAux : this.bRootAux)[x] = aux;
    (forward ? this.fPredArc : this.bPredArc)[x] = -1;
    (forward ? this.fPredNode : this.bPredNode)[x] = -1;
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
    const fSeen = this.fSeen;
    const bSeen = this.bSeen;
    const fPredArc = this.fPredArc;
    const bPredArc = this.bPredArc;
    const fPredNode = this.fPredNode;
    const bPredNode = this.bPredNode;
    const fh = this.fHeap;
    const bh = this.bHeap;
    const ep = this.epoch;
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
        if (bSeen[x] === ep) {
          const c = dx + bDist[x];
          if (c < best) { best = c; meet = x; }
        }
        // Stall on demand: a higher node y reached forward with d(y) + w(y→x) ≤ d(x) proves d(x) is not exact.
        let stalled = false;
        for (let a = bFirst[x], end = bFirst[x + 1]; a < end; a++) {
          const y = bHead[a];
          if (fSeen[y] === ep && fDist[y] + bW[a] <= dx) { stalled = true; break; }
        }
        if (!stalled) {
          for (let a = fFirst[x], end = fFirst[x + 1]; a < end; a++) {
            const y = fHead[a];
            const d = dx + fW[a];
            if (fSeen[y] !== ep) {
              fSeen[y] = ep;
              fDist[y] = d;
              fPredArc[y] = a;
              fPredNode[y] = x;
              fh.push(y, d);
            } else if (d < fDist[y]) {
              fDist[y] = d;
              fPredArc[y] = a;
              fPredNode[y] = x;
              fh.decreaseKey(y, d);
            }
          }
        }
        forwardNext = false;
      } else {
        const x = bh.pop();
        const dx = bDist[x];
        if (fSeen[x] === ep) {
          const c = dx + fDist[x];
          if (c < best) { best = c; meet = x; }
        }
        let stalled = false;
        for (let a = fFirst[x], end = fFirst[x + 1]; a < end; a++) {
          const y = fHead[a];
          if (bSeen[y] === ep && bDist[y] + fW[a] <= dx) { stalled = true; break; }
        }
        if (!stalled) {
          for (let a = bFirst[x], end = bFirst[x + 1]; a < end; a++) {
            const y = bHead[a];
            const d = dx + bW[a];
            if (bSeen[y] !== ep) {
              bSeen[y] = ep;
              bDist[y] = d;
              bPredArc[y] = a;
              bPredNode[y] = x;
              bh.push(y, d);
            } else if (d < bDist[y]) {
              bDist[y] = d;
              bPredArc[y] = a;
              bPredNode[y] = x;
              bh.decreaseKey(y, d);
            }
          }
        }
        forwardNext = true;
      }
    }
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

  /** Aux sum of the chosen path (entry aux values included); NaN if none. */
  aux(): number {
    const m = this.meet;
    if (m < 0) return NaN;
    const { fwd, bwd, hasAux } = this.ch;
    let s = 0;
    let x = m;
    for (; this.fPredArc[x] >= 0; x = this.fPredNode[x]) if (hasAux) s += fwd.aux[this.fPredArc[x]];
    s += this.fRootAux[x];
    x = m;
    for (; this.bPredArc[x] >= 0; x = this.bPredNode[x]) if (hasAux) s += bwd.aux[this.bPredArc[x]];
    s += this.bRootAux[x];
    return s;
  }

  /** The source entry node (input id) the chosen path starts from, or -1. */
  usedSource(): number {
    let x = this.meet;
    if (x < 0) return -1;
    while (this.fPredArc[x] >= 0) x = this.fPredNode[x];
    return this.ch.order[x];
  }

  /** The target entry node (input id) the chosen path ends at, or -1. */
  usedTarget(): number {
    let x = this.meet;
    if (x < 0) return -1;
    while (this.bPredArc[x] >= 0) x = this.bPredNode[x];
    return this.ch.order[x];
  }

  /** Input arc ids of the chosen path, source to target ([] if none, or if source = target). */
  arcPath(): number[] {
    const out: number[] = [];
    const m = this.meet;
    if (m < 0) return out;
    const up: number[] = [];
    for (let x = m; this.fPredArc[x] >= 0; x = this.fPredNode[x]) up.push(this.fPredArc[x]);
    for (let i = up.length - 1; i >= 0; i--) this.unpack(up[i], 0, out);
    for (let x = m; this.bPredArc[x] >= 0; x = this.bPredNode[x]) this.unpack(this.bPredArc[x], 1, out);
    return out;
  }

  /** Input node ids of the chosen path, source to target ([] if none). */
  nodePath(): number[] {
    if (this.meet < 0) return [];
    const arcs = this.arcPath();
    const head = this.ch.inputHead;
    const out = new Array<number>(arcs.length + 1);
    out[0] = this.usedSource();
    for (let i = 0; i < arcs.length; i++) out[i + 1] = head[arcs[i]];
    return out;
  }

  /** Appends the input arcs of CH arc `arc` (side 0 = fwd, 1 = bwd), in travel order. */
  private unpack(arc: number, side: number, out: number[]): void {
    const { fwd, bwd } = this.ch;
    let stack = this.stack;
    let sp = 0;
    stack[sp++] = arc * 2 + side;
    while (sp > 0) {
      const code = stack[--sp];
      const a = code >>> 1;
      const s = (code & 1) === 0 ? fwd : bwd;
      const second = s.unpackSecond[a];
      if (second === ORIGINAL) {
        out.push(s.unpackFirst[a]);
        continue;
      }
      if (sp + 2 > stack.length) {
        const bigger = new Int32Array(stack.length * 2);
        bigger.set(stack);
        this.stack = stack = bigger;
      }
      stack[sp++] = second * 2; // fwd half (v→w), done second
      stack[sp++] = s.unpackFirst[a] * 2 + 1; // bwd half (u→v), done first
    }
  }
}
