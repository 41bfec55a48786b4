import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Dijkstra, MinIdHeap } from '../../src/graph/dijkstra.js';
import type { ArcGraph } from '../../src/graph/formats/arcs.js';
import { arbGraph, walkSums } from '../ch/random-graph.js';

/** Bellman-Ford oracle (no early stop, no heap). */
function bellmanFord(g: ArcGraph, sources: [number, number][]): Float64Array {
  const d = new Float64Array(g.numNodes).fill(Infinity);
  for (const [s, c] of sources) d[s] = Math.min(d[s], c);
  for (let it = 0; it < g.numNodes; it++) {
    let changed = false;
    for (let a = 0; a < g.tail.length; a++) {
      const v = d[g.tail[a]] + g.weight[a];
      if (v < d[g.head[a]]) { d[g.head[a]] = v; changed = true; }
    }
    if (!changed) break;
  }
  return d;
}

describe('MinIdHeap', () => {
  it('pops in key order under pushes, decrease-key and set (both directions)', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.nat(49), fc.integer({ min: 0, max: 1000 })), { maxLength: 200 }), (ops) => {
      const h = new MinIdHeap(50);
      const key = new Map<number, number>();
      for (const [id, k] of ops) {
        h.set(id, k);
        key.set(id, k);
      }
      const out: number[] = [];
      while (!h.isEmpty()) {
        const k = h.minKey();
        const id = h.pop();
        expect(key.get(id)).toBe(k);
        out.push(k);
      }
      expect(out.length).toBe(key.size);
      expect(out).toEqual([...key.values()].sort((a, b) => a - b));
    }), { seed: 11, numRuns: 200 });
  });

  it('clear() empties it for reuse', () => {
    const h = new MinIdHeap(4);
    h.push(1, 5);
    h.push(2, 3);
    h.clear();
    expect(h.isEmpty()).toBe(true);
    expect(h.contains(1)).toBe(false);
    h.push(1, 1);
    expect(h.pop()).toBe(1);
  });
});

describe('Dijkstra', () => {
  it('matches Bellman-Ford on random graphs (one-to-all and early-stopped one-to-one), paths are valid', () => {
    fc.assert(fc.property(arbGraph(), fc.nat(), fc.nat(), (g, a, b) => {
      const s = a % g.numNodes;
      const t = b % g.numNodes;
      const d = new Dijkstra(g);
      const bf = bellmanFord(g, [[s, 0]]);
      const all = d.oneToAll(s);
      expect(Array.from(all)).toEqual(Array.from(bf));
      const dt = d.oneToOne(s, t);
      expect(dt).toBe(bf[t]);
      if (dt < Infinity) {
        const path = d.arcPath(t);
        const sums = walkSums(g, s, t, path);
        expect(sums.weight).toBe(dt);
        expect(sums.aux).toBe(d.aux(t));
        const nodes = d.nodePath(t);
        expect(nodes[0]).toBe(s);
        expect(nodes[nodes.length - 1]).toBe(t);
        expect(nodes.length).toBe(path.length + 1);
      }
    }), { seed: 42, numRuns: 300 });
  });

  it('handles several sources with initial costs and reverse searches', () => {
    fc.assert(fc.property(arbGraph(), fc.array(fc.tuple(fc.nat(), fc.nat(30)), { minLength: 1, maxLength: 4 }), (g, srcs) => {
      const entries = srcs.map(([v, c]) => [v % g.numNodes, c] as [number, number]);
      const d = new Dijkstra(g).reset();
      for (const [v, c] of entries) d.addSource(v, c);
      d.run();
      const bf = bellmanFord(g, entries);
      for (let v = 0; v < g.numNodes; v++) expect(d.distance(v)).toBe(bf[v]);
      // Reverse search = forward search on the reversed graph.
      const rev: ArcGraph = { numNodes: g.numNodes, tail: g.head, head: g.tail, weight: g.weight };
      const r = new Dijkstra(g, { reverse: true }).reset();
      for (const [v, c] of entries) r.addSource(v, c);
      r.run();
      const bfr = bellmanFord(rev, entries);
      for (let v = 0; v < g.numNodes; v++) expect(r.distance(v)).toBe(bfr[v]);
    }), { seed: 7, numRuns: 200 });
  });

  it('reports unreachable targets as Infinity and rejects bad sources', () => {
    const g: ArcGraph = { numNodes: 3, tail: Uint32Array.from([0]), head: Uint32Array.from([1]), weight: Uint32Array.from([4]) };
    const d = new Dijkstra(g);
    expect(d.oneToOne(0, 2)).toBe(Infinity);
    expect(d.arcPath(2)).toEqual([]);
    expect(d.oneToOne(1, 0)).toBe(Infinity);
    expect(d.oneToOne(0, 1)).toBe(4);
    expect(() => d.reset().addSource(3)).toThrow(/outside/);
  });
});
