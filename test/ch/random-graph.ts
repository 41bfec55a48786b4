/** Shared helpers for the CH / matrix tests: random arc graphs (fast-check) and brute-force oracles. */
import fc from 'fast-check';
import type { ArcGraph } from '../../src/graph/formats/arcs.js';
import { Dijkstra } from '../../src/graph/dijkstra.js';

export interface RandomGraphOpts {
  maxNodes?: number;
  maxArcs?: number;
  /** Smallest arc weight (0 allows zero-weight arcs and ties). */
  minWeight?: number;
  maxWeight?: number;
}

/**
 * Random directed graphs: loops, parallel arcs, zero weights (if minWeight = 0), one-way arcs and
 * disconnected parts all occur. Aux values are independent of the weights.
 */
export function arbGraph(opts: RandomGraphOpts = {}): fc.Arbitrary<ArcGraph> {
  const maxNodes = opts.maxNodes ?? 14;
  const maxArcs = opts.maxArcs ?? 40;
  const minW = opts.minWeight ?? 0;
  const maxW = opts.maxWeight ?? 12;
  return fc.integer({ min: 1, max: maxNodes }).chain((n) =>
    fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1), fc.integer({ min: minW, max: maxW }), fc.nat(50)), { maxLength: maxArcs }).map((arcs) => ({
      numNodes: n,
      tail: Uint32Array.from(arcs, (a) => a[0]),
      head: Uint32Array.from(arcs, (a) => a[1]),
      weight: Uint32Array.from(arcs, (a) => a[2]),
      aux: Uint32Array.from(arcs, (a) => a[3]),
    })),
  );
}

/** All-pairs distances by Dijkstra (Infinity = unreachable), row-major n×n. */
export function allPairs(g: ArcGraph): Float64Array {
  const n = g.numNodes;
  const out = new Float64Array(n * n);
  const d = new Dijkstra(g);
  for (let s = 0; s < n; s++) out.set(d.oneToAll(s), s * n);
  return out;
}

/**
 * For graphs with weights ≥ 1: the least and greatest aux over all shortest s→t paths, for all t
 * (the tight arcs form a DAG; dynamic programming in distance order).
 */
export function auxRange(g: ArcGraph, s: number): { dist: Float64Array; minAux: Float64Array; maxAux: Float64Array } {
  const n = g.numNodes;
  const dist = new Dijkstra(g).oneToAll(s);
  const minAux = new Float64Array(n).fill(Infinity);
  const maxAux = new Float64Array(n).fill(-Infinity);
  minAux[s] = 0;
  maxAux[s] = 0;
  const order = Array.from({ length: n }, (_, i) => i).filter((v) => dist[v] < Infinity).sort((a, b) => dist[a] - dist[b]);
  for (const u of order) {
    for (let a = 0; a < g.tail.length; a++) {
      if (g.tail[a] !== u || g.tail[a] === g.head[a]) continue;
      const v = g.head[a];
      if (dist[u] + g.weight[a] !== dist[v]) continue;
      const x = g.aux ? g.aux[a] : 0;
      if (minAux[u] + x < minAux[v]) minAux[v] = minAux[u] + x;
      if (maxAux[u] + x > maxAux[v]) maxAux[v] = maxAux[u] + x;
    }
  }
  return { dist, minAux, maxAux };
}

/** Checks that `arcs` is a connected s→t walk of the graph; returns its weight and aux sums. */
export function walkSums(g: ArcGraph, s: number, t: number, arcs: number[]): { weight: number; aux: number } {
  let cur = s;
  let weight = 0;
  let aux = 0;
  for (const a of arcs) {
    if (a < 0 || a >= g.tail.length) throw new Error(`arc id ${a} out of range`);
    if (g.tail[a] !== cur) throw new Error(`path not connected at arc ${a}: tail ${g.tail[a]} != ${cur}`);
    cur = g.head[a];
    weight += g.weight[a];
    aux += g.aux ? g.aux[a] : 0;
  }
  if (cur !== t) throw new Error(`path ends at ${cur}, not at ${t}`);
  return { weight, aux };
}
