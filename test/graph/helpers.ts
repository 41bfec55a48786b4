/** Test helpers for road-graph tests: a tiny typed-array Dijkstra and lookups by OSM id. */
import { fileURLToPath } from 'node:url';
import type { RoadGraph } from '../../src/graph/road-graph.js';

export const fixture = (rel: string): string => fileURLToPath(new URL(`../../fixtures/${rel}`, import.meta.url));

/** All graph nodes that come from the OSM node (several when it was split for restrictions). */
export function nodesOf(g: RoadGraph, osmId: number): number[] {
  const out: number[] = [];
  for (let v = 0; v < g.numNodes; v++) if (g.nodeOsmId[v] === osmId) out.push(v);
  return out;
}

/** The one graph node of an OSM node (throws when absent or split). */
export function nodeOf(g: RoadGraph, osmId: number): number {
  const n = nodesOf(g, osmId);
  if (n.length !== 1) throw new Error(`OSM node ${osmId} has ${n.length} graph nodes`);
  return n[0];
}

/** Edges that come from an OSM way. */
export function edgesOfWay(g: RoadGraph, wayId: number): number[] {
  const out: number[] = [];
  for (let e = 0; e < g.numEdges; e++) if (g.edgeWayId[e] === wayId) out.push(e);
  return out;
}

/** Arcs of an edge: [forward arcs, backward arcs]. */
export function arcsOfEdge(g: RoadGraph, e: number): { fwd: number[]; bwd: number[] } {
  const fwd: number[] = [];
  const bwd: number[] = [];
  for (let i = g.edgeArcStart[e]; i < g.edgeArcStart[e + 1]; i++) {
    const a = g.edgeArcs[i];
    (g.arcReversed(a) ? bwd : fwd).push(a);
  }
  return { fwd, bwd };
}

/** Plain Dijkstra (binary heap, lazy deletion) over the graph's CSR with the given arc weights. */
export function dijkstra(g: RoadGraph, sources: number[], weight: Uint32Array = g.timeMs, initial?: number[]): { dist: Float64Array; pred: Int32Array } {
  const n = g.numNodes;
  const dist = new Float64Array(n).fill(Infinity);
  const pred = new Int32Array(n).fill(-1);
  const hk: number[] = [];
  const hv: number[] = [];
  const push = (k: number, v: number) => {
    let i = hk.length;
    hk.push(k);
    hv.push(v);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (hk[p] <= k) break;
      hk[i] = hk[p]; hv[i] = hv[p];
      i = p;
    }
    hk[i] = k; hv[i] = v;
  };
  const pop = (): [number, number] => {
    const k = hk[0], v = hv[0];
    const lk = hk.pop()!, lv = hv.pop()!;
    if (hk.length > 0) {
      let i = 0;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= hk.length) break;
        if (c + 1 < hk.length && hk[c + 1] < hk[c]) c++;
        if (hk[c] >= lk) break;
        hk[i] = hk[c]; hv[i] = hv[c];
        i = c;
      }
      hk[i] = lk; hv[i] = lv;
    }
    return [k, v];
  };
  sources.forEach((s, i) => {
    const d0 = initial ? initial[i] : 0;
    if (d0 < dist[s]) { dist[s] = d0; push(d0, s); }
  });
  while (hk.length > 0) {
    const [d, v] = pop();
    if (d > dist[v]) continue;
    for (let a = g.firstOut[v]; a < g.firstOut[v + 1]; a++) {
      const w = g.head[a];
      const nd = d + weight[a];
      if (nd < dist[w]) { dist[w] = nd; pred[w] = a; push(nd, w); }
    }
  }
  return { dist, pred };
}

/** Shortest time from any graph copy of OSM node `from` to any copy of OSM node `to`. */
export function osmDistance(g: RoadGraph, from: number, to: number, weight: Uint32Array = g.timeMs): number {
  const { dist } = dijkstra(g, nodesOf(g, from), weight);
  return Math.min(...nodesOf(g, to).map((v) => dist[v]));
}

/** Arc path (from pred) to node t. */
export function arcPath(g: RoadGraph, pred: Int32Array, t: number): number[] {
  const out: number[] = [];
  for (let v = t; pred[v] >= 0; v = g.tail[pred[v]]) out.push(pred[v]);
  return out.reverse();
}
