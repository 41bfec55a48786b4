/**
 * The customizable hierarchy: distances (and the aux of a best path) equal Dijkstra's on random
 * graphs with random blocked arcs, for several customizations of one topology; the elimination
 * tree bounds every search.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.js';
import { CchMetric, CchQuery, CchTopology } from '../../src/ch/cch.js';
import { Dijkstra } from '../../src/graph/dijkstra.js';

/** A random planar-ish road network: a jittered grid with random one-way streets and a few long arcs. */
function grid(rng: Rng, w: number, h: number) {
  const n = w * h;
  const lat = new Float64Array(n), lon = new Float64Array(n);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) { lat[y * w + x] = 41 + y * 0.001 + rng.next() * 0.0003; lon[y * w + x] = -8 + x * 0.001 + rng.next() * 0.0003; }
  const tail: number[] = [], head: number[] = [], wt: number[] = [], ax: number[] = [];
  const arc = (a: number, b: number) => { tail.push(a); head.push(b); wt.push(1 + rng.int(20)); ax.push(1 + rng.int(50)); };
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const v = y * w + x;
    for (const u of [x + 1 < w ? v + 1 : -1, y + 1 < h ? v + w : -1]) {
      if (u < 0 || rng.chance(0.1)) continue;
      const oneWay = rng.chance(0.25);
      if (!oneWay || rng.chance(0.5)) arc(v, u);
      if (!oneWay || !(tail.at(-1) === v && head.at(-1) === u)) arc(u, v);
    }
  }
  for (let k = 0; k < n / 20; k++) arc(rng.int(n), rng.int(n));
  return { numNodes: n, numArcs: tail.length, tail: Uint32Array.from(tail), head: Uint32Array.from(head), lat, lon, weight: Uint32Array.from(wt), aux: Uint32Array.from(ax) };
}

describe('customizable contraction hierarchy', () => {
  it('equals Dijkstra with random arcs blocked (40 graphs × 3 customizations, all pairs of 12 nodes)', () => {
    const rng = new Rng(3);
    let finite = 0, infinite = 0;
    for (let c = 0; c < 40; c++) {
      const g = grid(rng, 5 + rng.int(20), 5 + rng.int(20));
      const topo = CchTopology.build(g);
      // the ranks are a permutation, every upward arc goes up, parents are the lowest upward neighbour
      expect(Array.from(topo.order).sort((a, b) => a - b)).toEqual(Array.from({ length: g.numNodes }, (_, i) => i));
      for (let x = 0; x < g.numNodes; x++) {
        for (let i = topo.firstUp[x]; i < topo.firstUp[x + 1]; i++) expect(topo.upHead[i]).toBeGreaterThan(x);
        expect(topo.parent[x]).toBe(topo.firstUp[x + 1] > topo.firstUp[x] ? topo.upHead[topo.firstUp[x]] : -1);
      }
      const metric = new CchMetric(topo);
      for (let k = 0; k < 3; k++) {
        const blocked = new Uint8Array(g.numArcs);
        const share = [0, 0.05, 0.3][k];
        for (let a = 0; a < g.numArcs; a++) if (rng.chance(share)) blocked[a] = 1;
        metric.customize(g.weight, g.aux, blocked);
        const q = new CchQuery(metric);
        const pts = Array.from({ length: 12 }, () => rng.int(g.numNodes));
        const cost = new Float64Array(144), aux = new Float64Array(144);
        q.manyToMany(pts.map((v) => [{ node: v, cost: 0, aux: 0 }]), pts.map((v) => [{ node: v, cost: 0, aux: 0 }]), cost, aux);
        const weight = Uint32Array.from(g.weight, (w, a) => (blocked[a] ? 0 : w));
        const keep = Array.from({ length: g.numArcs }, (_, a) => a).filter((a) => !blocked[a]);
        const d = new Dijkstra({ numNodes: g.numNodes, tail: keep.map((a) => g.tail[a]), head: keep.map((a) => g.head[a]), weight: keep.map((a) => weight[a]), aux: keep.map((a) => g.aux[a]) } as never);
        for (let i = 0; i < 12; i++) {
          d.reset().addSource(pts[i]).run();
          for (let j = 0; j < 12; j++) {
            const want = d.distance(pts[j]);
            expect(cost[i * 12 + j]).toBe(want);
            if (Number.isFinite(want)) { finite++; expect(aux[i * 12 + j]).toBeLessThanOrEqual(d.aux(pts[j])); } else infinite++;
          }
        }
      }
    }
    expect(finite).toBeGreaterThan(5000);
    expect(infinite).toBeGreaterThan(100);
  });

  it('the aux is the smallest among best paths: exact on a graph where every path has a distinct cost', () => {
    const rng = new Rng(8);
    const g = grid(rng, 12, 12);
    const weight = Uint32Array.from(g.weight, (_, a) => 1000 + a * 7); // distinct sums are very likely
    const topo = CchTopology.build(g);
    const q = new CchQuery(new CchMetric(topo).customize(weight, g.aux));
    const pts = Array.from({ length: 20 }, () => rng.int(g.numNodes));
    const cost = new Float64Array(400), aux = new Float64Array(400);
    q.manyToMany(pts.map((v) => [{ node: v, cost: 0, aux: 0 }]), pts.map((v) => [{ node: v, cost: 0, aux: 0 }]), cost, aux);
    const d = new Dijkstra({ numNodes: g.numNodes, tail: g.tail, head: g.head, weight, aux: g.aux } as never);
    for (let i = 0; i < 20; i++) {
      d.reset().addSource(pts[i]).run();
      for (let j = 0; j < 20; j++) if (Number.isFinite(d.distance(pts[j]))) expect(aux[i * 20 + j]).toBe(d.aux(pts[j]));
    }
  });

  it('seeds with costs: several starts and ends per place, as snapped places have', () => {
    const rng = new Rng(11);
    const g = grid(rng, 15, 15);
    const q = new CchQuery(new CchMetric(CchTopology.build(g)).customize(g.weight, g.aux));
    const src = [{ node: 3, cost: 5, aux: 1 }, { node: 40, cost: 2, aux: 9 }];
    const dst = [{ node: 100, cost: 7, aux: 0 }, { node: 180, cost: 1, aux: 3 }];
    const cost = new Float64Array(1), aux = new Float64Array(1);
    q.manyToMany([src], [dst], cost, aux);
    const d = new Dijkstra({ numNodes: g.numNodes, tail: g.tail, head: g.head, weight: g.weight, aux: g.aux } as never);
    for (const s of src) d.addSource(s.node, s.cost, s.aux);
    d.run();
    expect(cost[0]).toBe(Math.min(...dst.map((t) => d.distance(t.node) + t.cost)));
  });
});
