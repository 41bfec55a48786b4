/**
 * Matrix endpoints as flattened entry lists. Endpoint i (a source or a target) may be reached
 * through several graph nodes — the phantom-node entries of a snapped location — each with its
 * own initial cost and aux: entries `start[i] .. start[i+1]-1` of `node` / `cost` / `aux`.
 * The matrix cell is the minimum over all (source entry, target entry) combinations of
 * sourceCost + path + targetCost.
 */
import { EngineError } from '../core/errors.js';

export interface EndpointEntries {
  /** Number of endpoints. */
  count: number;
  /** Entry offsets, length count + 1, non-decreasing, start[0] = 0. */
  start: Uint32Array;
  /** Input node id of each entry. */
  node: Uint32Array;
  /** Initial cost of each entry (same units as the CH weight). */
  cost: Uint32Array;
  /** Initial aux of each entry (optional: 0). */
  aux?: Uint32Array;
}

/** One entry per endpoint, cost 0. */
export function endpointsFromNodes(nodes: ArrayLike<number>): EndpointEntries {
  const count = nodes.length;
  const start = new Uint32Array(count + 1);
  for (let i = 0; i <= count; i++) start[i] = i;
  return { count, start, node: Uint32Array.from(nodes), cost: new Uint32Array(count) };
}

/** Throws `InvalidInput` (with a path) unless the lists are well formed for a graph of n nodes. */
export function validateEndpoints(e: EndpointEntries, numNodes: number, path: string): void {
  const c = e.count;
  if (!Number.isInteger(c) || c < 0) throw new EngineError('InvalidInput', `${path}.count must be a non-negative integer.`, { path: `${path}.count` });
  if (e.start.length !== c + 1 || e.start[0] !== 0) throw new EngineError('InvalidInput', `${path}.start must have count + 1 = ${c + 1} offsets starting at 0.`, { path: `${path}.start` });
  const m = e.start[c];
  if (e.node.length < m || e.cost.length < m || (e.aux !== undefined && e.aux.length < m)) {
    throw new EngineError('InvalidInput', `${path}: node/cost/aux must hold the ${m} entries start[] announces.`, { path });
  }
  for (let i = 0; i < c; i++) {
    if (e.start[i + 1] <= e.start[i]) throw new EngineError('InvalidInput', `${path}[${i}] has no entry (each endpoint needs at least one).`, { path: `${path}[${i}]` });
  }
  for (let k = 0; k < m; k++) {
    if (e.node[k] >= numNodes) throw new EngineError('InvalidInput', `${path}.node[${k}] = ${e.node[k]} is outside 0..${numNodes - 1}.`, { path: `${path}.node[${k}]` });
  }
}

/** Endpoints [from, to) of a list, as a self-contained list (copies; for tiles). */
export function sliceEndpoints(e: EndpointEntries, from: number, to: number): EndpointEntries {
  const a = e.start[from];
  const b = e.start[to];
  const start = new Uint32Array(to - from + 1);
  for (let i = from; i <= to; i++) start[i - from] = e.start[i] - a;
  const out: EndpointEntries = { count: to - from, start, node: e.node.slice(a, b), cost: e.cost.slice(a, b) };
  if (e.aux) out.aux = e.aux.slice(a, b);
  return out;
}
