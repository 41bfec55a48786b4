/**
 * The metric-agnostic arc-list graph every routing kernel takes (Dijkstra, CH build, matrices).
 *
 * Arc `a` goes from `tail[a]` to `head[a]` with cost `weight[a]` (e.g. `timeMs` or `lengthCm`);
 * `aux[a]`, when given, is a second metric carried along the chosen path (the other of time and
 * length), so one query returns both. Arc ids are indices into these arrays, and every path a
 * kernel returns is a list of these ids. Loops are ignored and parallel arcs count as their
 * cheapest one (ties: the lower arc id), see {@link normalizeArcs}.
 */
import { EngineError } from '../../core/errors.js';

export interface ArcGraph {
  numNodes: number;
  tail: Uint32Array;
  head: Uint32Array;
  weight: Uint32Array;
  aux?: Uint32Array;
}

/** Largest cost a path may have: sums are kept below 2^32 - 1 so that they fit the Uint32 outputs. */
export const MAX_COST = 0xfffffffe;

/** Throws `InvalidInput` unless the arrays have equal lengths and every node id is in range. */
export function validateArcGraph(g: ArcGraph, path = 'graph'): void {
  const n = g.numNodes;
  if (!Number.isInteger(n) || n < 0 || n > 0x7fffffff) throw new EngineError('InvalidInput', `${path}.numNodes must be a non-negative integer below 2^31, got ${n}.`, { path: `${path}.numNodes` });
  const m = g.tail.length;
  if (g.head.length !== m || g.weight.length !== m || (g.aux !== undefined && g.aux.length !== m)) {
    throw new EngineError('InvalidInput', `${path}: tail, head, weight (and aux) must have the same length (${m}, ${g.head.length}, ${g.weight.length}${g.aux ? `, ${g.aux.length}` : ''}).`, { path });
  }
  const tail = g.tail;
  const head = g.head;
  for (let a = 0; a < m; a++) {
    if (tail[a] >= n || head[a] >= n) {
      throw new EngineError('InvalidInput', `${path}: arc ${a} (${tail[a]} -> ${head[a]}) has a node id outside 0..${n - 1}.`, { path: `${path}.tail[${a}]` });
    }
  }
}

/**
 * The arc ids that survive loop removal and parallel-arc reduction, sorted by (tail, head):
 * for each (tail, head) pair with tail != head, the arc of least weight, ties to the lower id.
 * O(n + m) (two counting-sort passes).
 */
export function normalizeArcs(g: ArcGraph): Uint32Array {
  const n = g.numNodes;
  const m = g.tail.length;
  const tail = g.tail;
  const head = g.head;
  const weight = g.weight;
  // Stable counting sort by head, then by tail: result is sorted by (tail, head, arc id).
  const count = new Uint32Array(n + 1);
  for (let a = 0; a < m; a++) count[head[a] + 1]++;
  for (let i = 0; i < n; i++) count[i + 1] += count[i];
  const byHead = new Uint32Array(m);
  for (let a = 0; a < m; a++) byHead[count[head[a]]++] = a;
  count.fill(0);
  for (let a = 0; a < m; a++) count[tail[a] + 1]++;
  for (let i = 0; i < n; i++) count[i + 1] += count[i];
  const sorted = new Uint32Array(m);
  for (let i = 0; i < m; i++) {
    const a = byHead[i];
    sorted[count[tail[a]]++] = a;
  }
  let out = 0;
  for (let i = 0; i < m; i++) {
    const a = sorted[i];
    const t = tail[a];
    const h = head[a];
    if (t === h) continue;
    if (out > 0) {
      const p = sorted[out - 1];
      if (tail[p] === t && head[p] === h) {
        if (weight[a] < weight[p]) sorted[out - 1] = a; // ids ascend within a pair: strict < keeps the lower id on ties
        continue;
      }
    }
    sorted[out++] = a;
  }
  return sorted.slice(0, out);
}

/** A compressed-sparse-row view of (a subset of) the arcs, by tail (or by head when `reverse`). */
export interface Csr {
  numNodes: number;
  firstOut: Uint32Array;
  /** The other endpoint: head (forward) or tail (reverse). */
  adj: Uint32Array;
  weight: Uint32Array;
  aux: Uint32Array | null;
  /** Input arc id of each CSR entry. */
  arcId: Uint32Array;
}

/** Builds a CSR over the given arc ids (default: {@link normalizeArcs}), grouped by tail (or head). */
export function buildCsr(g: ArcGraph, opts: { reverse?: boolean; arcs?: Uint32Array } = {}): Csr {
  const n = g.numNodes;
  const arcs = opts.arcs ?? normalizeArcs(g);
  const from = opts.reverse ? g.head : g.tail;
  const to = opts.reverse ? g.tail : g.head;
  const m = arcs.length;
  const firstOut = new Uint32Array(n + 1);
  for (let i = 0; i < m; i++) firstOut[from[arcs[i]] + 1]++;
  for (let i = 0; i < n; i++) firstOut[i + 1] += firstOut[i];
  const pos = firstOut.slice(0, n);
  const adj = new Uint32Array(m);
  const weight = new Uint32Array(m);
  const aux = g.aux ? new Uint32Array(m) : null;
  const arcId = new Uint32Array(m);
  for (let i = 0; i < m; i++) {
    const a = arcs[i];
    const k = pos[from[a]]++;
    adj[k] = to[a];
    weight[k] = g.weight[a];
    if (aux) aux[k] = g.aux![a];
    arcId[k] = a;
  }
  return { numNodes: n, firstOut, adj, weight, aux, arcId };
}
