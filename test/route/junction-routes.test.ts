/**
 * Routes between points lying exactly on junctions (depots and stops taken from OSM nodes): the
 * CH route between the snapped coordinates must equal a plain Dijkstra between the junction nodes
 * themselves — from every graph copy of the start node (a vehicle standing at a junction has no
 * incoming arc, so no turn restriction applies) to the nearest copy of the end node.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildRoadGraph } from '../../src/graph/build.js';
import { Snapper } from '../../src/graph/snap.js';
import { Dijkstra } from '../../src/graph/dijkstra.js';
import { buildContractionHierarchy } from '../../src/ch/index.js';
import { Router, type Metric } from '../../src/route/router.js';
import { routeGeometry } from '../../src/route/geometry.js';
import { Rng } from '../../src/core/rng.js';
import type { RoadGraph } from '../../src/graph/road-graph.js';
import { fixture } from '../graph/helpers.js';

/** Graph nodes of each OSM node (restriction copies share the OSM id), for junctions of degree ≥ 3. */
function junctions(g: RoadGraph): { copies: Map<number, number[]>; junctionIds: number[] } {
  const copies = new Map<number, number[]>();
  for (let v = 0; v < g.numNodes; v++) {
    const id = g.nodeOsmId[v];
    const l = copies.get(id);
    if (l) l.push(v);
    else copies.set(id, [v]);
  }
  const edgesAt = new Map<number, Set<number>>();
  const add = (v: number, e: number) => {
    const id = g.nodeOsmId[v];
    let s = edgesAt.get(id);
    if (!s) edgesAt.set(id, (s = new Set()));
    s.add(e);
  };
  for (let a = 0; a < g.numArcs; a++) {
    add(g.tail[a], g.arcEdgeId(a));
    add(g.head[a], g.arcEdgeId(a));
  }
  const junctionIds = [...edgesAt].filter(([, s]) => s.size >= 3).map(([id]) => id).sort((x, y) => x - y);
  return { copies, junctionIds };
}

describe.each([
  ['monaco', 'monaco-latest.osm.pbf', 20260401],
  ['andorra', 'andorra.osm.pbf', 20260402],
] as const)('routes between junction coordinates on %s', (_name, file, seed) => {
  const { graph: g } = buildRoadGraph(readFileSync(fixture(file)));
  const base = { numNodes: g.numNodes, tail: g.tail, head: g.head };
  const chTime = buildContractionHierarchy({ ...base, weight: g.timeMs, aux: g.lengthCm });
  const chDist = buildContractionHierarchy({ ...base, weight: g.lengthCm, aux: g.timeMs });
  const snapper = Snapper.build(g);
  const router = new Router(g, snapper, chTime, chDist);
  const { copies, junctionIds } = junctions(g);

  // A deterministic sample of junctions (partial Fisher-Yates with a seeded Rng).
  const rng = new Rng(seed);
  const ids = junctionIds.slice();
  const K = Math.min(300, ids.length);
  for (let i = 0; i < K; i++) {
    const j = i + rng.int(ids.length - i);
    [ids[i], ids[j]] = [ids[j], ids[i]];
  }
  const sample = ids.slice(0, K);

  it('has enough junctions, some of them split by turn restrictions', () => {
    expect(sample.length).toBe(300);
    if (_name === 'monaco') expect(junctionIds.filter((id) => copies.get(id)!.length > 1).length).toBeGreaterThan(10);
  });

  it('snapping a junction coordinate enters and leaves at every copy of the node at zero cost', () => {
    for (const id of sample) {
      const nodes = copies.get(id)!;
      const s = snapper.snap(g.lat[nodes[0]], g.lon[nodes[0]]);
      expect(s.distanceM).toBe(0);
      expect(s.atNode).toBe(true);
      for (const v of nodes) {
        expect(s.sourceEntries.find((e) => e.node === v && e.timeMs === 0 && e.lengthCm === 0)).toBeDefined();
        expect(s.targetEntries.find((e) => e.node === v && e.timeMs === 0 && e.lengthCm === 0)).toBeDefined();
      }
    }
  });

  for (const metric of ['time', 'distance'] as Metric[]) {
    it(`CH route between junction coordinates = Dijkstra between the nodes (${metric})`, () => {
      const weight = metric === 'time' ? g.timeMs : g.lengthCm;
      const dij = new Dijkstra({ numNodes: g.numNodes, tail: g.tail, head: g.head, weight });
      const snaps = sample.map((id) => {
        const v = copies.get(id)![0];
        return snapper.snap(g.lat[v], g.lon[v]);
      });
      const pick = new Rng(seed + (metric === 'time' ? 1 : 2));
      let pairs = 0;
      let geometries = 0;
      const mismatches: string[] = [];
      for (let i = 0; i < sample.length; i++) {
        dij.reset();
        for (const v of copies.get(sample[i])!) dij.addSource(v);
        dij.run();
        for (let k = 0; k < 3; k++) {
          const j = pick.int(sample.length);
          if (j === i) continue;
          let want = Infinity;
          for (const v of copies.get(sample[j])!) want = Math.min(want, dij.distance(v));
          const r = router.route(snaps[i], snaps[j], metric);
          const got = r.found ? (metric === 'time' ? r.timeMs : r.lengthCm) : Infinity;
          pairs++;
          if (got !== want) mismatches.push(`${sample[i]} → ${sample[j]}: ${got} ≠ ${want}`);
          if (k === 0 && i % 5 === 0 && r.found) {
            // The path's geometry runs from junction to junction with the route's totals.
            const p = router.route(snaps[i], snaps[j], metric, true);
            const geo = routeGeometry(g, snaps[i], p.arcs!, snaps[j], { metric });
            expect([geo.timeMs, geo.lengthCm]).toEqual([p.timeMs, p.lengthCm]);
            expect([geo.lat[0], geo.lon[0]]).toEqual([snaps[i].lat, snaps[i].lon]);
            expect([geo.lat.at(-1), geo.lon.at(-1)]).toEqual([snaps[j].lat, snaps[j].lon]);
            geometries++;
          }
        }
      }
      expect(pairs).toBeGreaterThan(800);
      expect(geometries).toBeGreaterThan(50);
      expect(mismatches.length, `${mismatches.length} of ${pairs} pairs differ: ${mismatches.slice(0, 5).join('; ')}`).toBe(0);
    });
  }
});
