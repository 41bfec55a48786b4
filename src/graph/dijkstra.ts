/**
 * Plain Dijkstra on a typed-array CSR with an indexed 4-ary heap (struct of arrays, decrease-key).
 * It is the test oracle for the contraction hierarchy and the benchmark baseline it is measured
 * against, so it is kept simple but not naive: flat arrays, timestamps instead of clearing, early
 * stop when the target is settled.
 */
import { EngineError } from '../core/errors.js';
import { buildCsr, validateArcGraph, type ArcGraph, type Csr } from './formats/arcs.js';

/**
 * An indexed min-heap over ids `0..capacity-1` with Float64 keys (4-ary, struct of arrays).
 * `clear()` costs O(entries still in the heap), so a search that reuses the heap resets in
 * O(touched).
 */
export class MinIdHeap {
  private readonly ids: Int32Array;
  private readonly keys: Float64Array;
  /** Position of an id in the heap, or -1. */
  private readonly pos: Int32Array;
  size = 0;

  constructor(capacity: number) {
    this.ids = new Int32Array(capacity);
    this.keys = new Float64Array(capacity);
    this.pos = new Int32Array(capacity).fill(-1);
  }

  isEmpty(): boolean {
    return this.size === 0;
  }

  contains(id: number): boolean {
    return this.pos[id] >= 0;
  }

  /** Smallest key (undefined behaviour on an empty heap). */
  minKey(): number {
    return this.keys[0];
  }

  minId(): number {
    return this.ids[0];
  }

  keyOf(id: number): number {
    return this.keys[this.pos[id]];
  }

  clear(): void {
    const ids = this.ids;
    const pos = this.pos;
    for (let i = 0; i < this.size; i++) pos[ids[i]] = -1;
    this.size = 0;
  }

  push(id: number, key: number): void {
    this.siftUp(this.size++, id, key);
  }

  /** Lowers the key of an id already in the heap. */
  decreaseKey(id: number, key: number): void {
    this.siftUp(this.pos[id], id, key);
  }

  /** Pushes, or moves an id already in the heap to its new key (up or down). */
  set(id: number, key: number): void {
    const p = this.pos[id];
    if (p < 0) this.siftUp(this.size++, id, key);
    else if (key < this.keys[p]) this.siftUp(p, id, key);
    else this.siftDown(p, id, key);
  }

  /** Removes and returns the id with the smallest key. */
  pop(): number {
    const ids = this.ids;
    const top = ids[0];
    this.pos[top] = -1;
    const last = --this.size;
    if (last > 0) this.siftDown(0, ids[last], this.keys[last]);
    return top;
  }

  private siftUp(i: number, id: number, key: number): void {
    const ids = this.ids;
    const keys = this.keys;
    const pos = this.pos;
    while (i > 0) {
      const p = (i - 1) >> 2;
      const pk = keys[p];
      if (pk <= key) break;
      const pid = ids[p];
      ids[i] = pid;
      keys[i] = pk;
      pos[pid] = i;
      i = p;
    }
    ids[i] = id;
    keys[i] = key;
    pos[id] = i;
  }

  private siftDown(i: number, id: number, key: number): void {
    const ids = this.ids;
    const keys = this.keys;
    const pos = this.pos;
    const n = this.size;
    for (;;) {
      const c0 = 4 * i + 1;
      if (c0 >= n) break;
      let best = c0;
      let bk = keys[c0];
      const end = c0 + 4 < n ? c0 + 4 : n;
      for (let c = c0 + 1; c < end; c++) {
        const ck = keys[c];
        if (ck < bk) {
          bk = ck;
          best = c;
        }
      }
      if (bk >= key) break;
      const bid = ids[best];
      ids[i] = bid;
      keys[i] = bk;
      pos[bid] = i;
      i = best;
    }
    ids[i] = id;
    keys[i] = key;
    pos[id] = i;
  }
}

/**
 * {@link MinIdHeap} with int32 keys (each below 2^31 − 1): for searches on integer costs, where V8
 * then compares and moves integers only (the CH point-to-point query: 0.92–1.00× its time on Float64
 * keys and distances, docs/ch.md). The same 4-ary layout and operations, written twice on purpose:
 * V8 compiles a class's methods once for every key array they meet, so one class serving both key
 * types would make each heap operation polymorphic in a process that uses both (the engine does;
 * a screen on Moscow: the query 1.04× slower on such a shared heap class).
 */
export class MinIdHeapInt {
  private readonly ids: Int32Array;
  private readonly keys: Int32Array;
  private readonly pos: Int32Array;
  size = 0;

  constructor(capacity: number) {
    this.ids = new Int32Array(capacity);
    this.keys = new Int32Array(capacity);
    this.pos = new Int32Array(capacity).fill(-1);
  }

  minKey(): number {
    return this.keys[0];
  }

  clear(): void {
    const ids = this.ids;
    const pos = this.pos;
    for (let i = 0; i < this.size; i++) pos[ids[i]] = -1;
    this.size = 0;
  }

  push(id: number, key: number): void {
    this.siftUp(this.size++, id, key);
  }

  decreaseKey(id: number, key: number): void {
    this.siftUp(this.pos[id], id, key);
  }

  /** Pushes, or moves an id already in the heap to its new key (up or down). */
  set(id: number, key: number): void {
    const p = this.pos[id];
    if (p < 0) this.siftUp(this.size++, id, key);
    else if (key < this.keys[p]) this.siftUp(p, id, key);
    else this.siftDown(p, id, key);
  }

  pop(): number {
    const ids = this.ids;
    const top = ids[0];
    this.pos[top] = -1;
    const last = --this.size;
    if (last > 0) this.siftDown(0, ids[last], this.keys[last]);
    return top;
  }

  private siftUp(i: number, id: number, key: number): void {
    const ids = this.ids;
    const keys = this.keys;
    const pos = this.pos;
    while (i > 0) {
      const p = (i - 1) >> 2;
      const pk = keys[p];
      if (pk <= key) break;
      const pid = ids[p];
      ids[i] = pid;
      keys[i] = pk;
      pos[pid] = i;
      i = p;
    }
    ids[i] = id;
    keys[i] = key;
    pos[id] = i;
  }

  private siftDown(i: number, id: number, key: number): void {
    const ids = this.ids;
    const keys = this.keys;
    const pos = this.pos;
    const n = this.size;
    for (;;) {
      const c0 = 4 * i + 1;
      if (c0 >= n) break;
      let best = c0;
      let bk = keys[c0];
      const end = c0 + 4 < n ? c0 + 4 : n;
      for (let c = c0 + 1; c < end; c++) {
        const ck = keys[c];
        if (ck < bk) {
          bk = ck;
          best = c;
        }
      }
      if (bk >= key) break;
      const bid = ids[best];
      ids[i] = bid;
      keys[i] = bk;
      pos[bid] = i;
      i = best;
    }
    ids[i] = id;
    keys[i] = key;
    pos[id] = i;
  }
}

/**
 * Reusable one-to-one / one-to-all Dijkstra. Several sources with initial costs (phantom-node
 * entries) may be added. Distances are exact doubles (no overflow); `Infinity` = not reached.
 *
 * ```ts
 * const d = new Dijkstra(graph);
 * d.reset().addSource(s).run(t);          // stops when t is settled
 * d.distance(t); d.aux(t); d.arcPath(t);
 * ```
 */
export class Dijkstra {
  readonly csr: Csr;
  readonly numNodes: number;
  readonly reverse: boolean;
  private readonly dist: Float64Array;
  private readonly auxLabel: Float64Array;
  /** CSR index of the arc into each node, or -1 for a source. */
  private readonly predArc: Int32Array;
  private readonly predNode: Int32Array;
  private readonly reached: Uint32Array;
  private readonly settled: Uint32Array;
  private epoch = 1;
  private readonly heap: MinIdHeap;
  /** Nodes settled by the last run (work measure). */
  settledCount = 0;

  /** `reverse`: search backwards (distances *to* the sources). */
  constructor(graph: ArcGraph | Csr, opts: { reverse?: boolean } = {}) {
    this.reverse = opts.reverse ?? false;
    if ('firstOut' in graph) this.csr = graph;
    else {
      validateArcGraph(graph);
      this.csr = buildCsr(graph, { reverse: opts.reverse });
    }
    const n = (this.numNodes = this.csr.numNodes);
    this.dist = new Float64Array(n);
    this.auxLabel = new Float64Array(n);
    this.predArc = new Int32Array(n);
    this.predNode = new Int32Array(n);
    this.reached = new Uint32Array(n);
    this.settled = new Uint32Array(n);
    this.heap = new MinIdHeap(n);
  }

  reset(): this {
    this.heap.clear();
    this.settledCount = 0;
    if (++this.epoch === 0xffffffff) {
      this.reached.fill(0);
      this.settled.fill(0);
      this.epoch = 1;
    }
    return this;
  }

  addSource(node: number, cost = 0, aux = 0): this {
    if (!(node >= 0 && node < this.numNodes)) throw new EngineError('InvalidInput', `Source node ${node} is outside 0..${this.numNodes - 1}.`, { path: 'node' });
    const e = this.epoch;
    if (this.reached[node] === e) {
      if (cost >= this.dist[node]) return this;
      this.heap.set(node, cost);
    } else {
      this.reached[node] = e;
      this.heap.push(node, cost);
    }
    this.dist[node] = cost;
    this.auxLabel[node] = aux;
    this.predArc[node] = -1;
    this.predNode[node] = -1;
    return this;
  }

  /** Runs until `target` is settled (or everything reachable is, when target < 0). */
  run(target = -1): this {
    const { firstOut, adj, weight } = this.csr;
    const aux = this.csr.aux;
    const dist = this.dist;
    const auxLabel = this.auxLabel;
    const reached = this.reached;
    const settled = this.settled;
    const predArc = this.predArc;
    const predNode = this.predNode;
    const heap = this.heap;
    const e = this.epoch;
    let count = this.settledCount;
    while (heap.size > 0) {
      const x = heap.pop();
      settled[x] = e;
      count++;
      if (x === target) break;
      const dx = dist[x];
      const ax = auxLabel[x];
      const end = firstOut[x + 1];
      for (let a = firstOut[x]; a < end; a++) {
        const y = adj[a];
        const d = dx + weight[a];
        if (reached[y] !== e) {
          reached[y] = e;
          dist[y] = d;
          auxLabel[y] = aux === null ? 0 : ax + aux[a];
          predArc[y] = a;
          predNode[y] = x;
          heap.push(y, d);
        } else if (d < dist[y]) {
          dist[y] = d;
          auxLabel[y] = aux === null ? 0 : ax + aux[a];
          predArc[y] = a;
          predNode[y] = x;
          heap.decreaseKey(y, d);
        }
      }
    }
    this.settledCount = count;
    return this;
  }

  /** Final distance of a settled node, else Infinity. */
  distance(node: number): number {
    return this.settled[node] === this.epoch ? this.dist[node] : Infinity;
  }

  /** Aux sum along the path found to a settled node (NaN if not settled). */
  aux(node: number): number {
    return this.settled[node] === this.epoch ? this.auxLabel[node] : NaN;
  }

  isSettled(node: number): boolean {
    return this.settled[node] === this.epoch;
  }

  /**
   * Input arc ids of the path found, in travel order: source → `node` for a forward search,
   * `node` → source for a reverse one. [] if `node` is not settled (or is a source).
   */
  arcPath(node: number): number[] {
    if (this.settled[node] !== this.epoch) return [];
    const out: number[] = [];
    for (let x = node; this.predArc[x] >= 0; x = this.predNode[x]) out.push(this.csr.arcId[this.predArc[x]]);
    return this.reverse ? out : out.reverse();
  }

  /** Node ids of the path found, in travel order (as {@link arcPath}). */
  nodePath(node: number): number[] {
    if (this.settled[node] !== this.epoch) return [];
    const out: number[] = [];
    let x = node;
    for (; this.predArc[x] >= 0; x = this.predNode[x]) out.push(x);
    out.push(x);
    return this.reverse ? out : out.reverse();
  }

  /** Convenience: distance from s to t (Infinity if unreachable). */
  oneToOne(s: number, t: number): number {
    return this.reset().addSource(s).run(t).distance(t);
  }

  /** Convenience: distances from s to every node (Infinity where unreachable). */
  oneToAll(s: number): Float64Array {
    this.reset().addSource(s).run(-1);
    const out = new Float64Array(this.numNodes);
    for (let v = 0; v < this.numNodes; v++) out[v] = this.distance(v);
    return out;
  }
}
