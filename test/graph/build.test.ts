import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildRoadGraph, hilbert16 } from '../../src/graph/build.js';
import { EdgeFlag, HighwayClass, type RoadGraph } from '../../src/graph/road-graph.js';
import { OsmElements, readOsmXmlFile } from '../../src/osm/xml.js';
import { haversine } from '../../src/core/geo.js';
import { EngineError } from '../../src/core/errors.js';
import { arcPath, arcsOfEdge, dijkstra, edgesOfWay, fixture, nodeOf, nodesOf, osmDistance } from './helpers.js';

const U = 0.001; // grid unit in degrees

/** Time of the single edge of a way, in the given direction. */
function wayTime(g: RoadGraph, wayId: number, reversed = false): number {
  const [e] = edgesOfWay(g, wayId);
  const { fwd, bwd } = arcsOfEdge(g, e);
  return g.timeMs[(reversed ? bwd : fwd)[0]];
}

describe('turn restrictions (via node splitting)', () => {
  const osm = readOsmXmlFile(fixture('tiny/restrictions.osm'));
  const { graph: g, stats } = buildRoadGraph(osm);
  const plain = new OsmElements();
  plain.nodes.push(...osm.nodes);
  plain.ways.push(...osm.ways);
  const { graph: g0 } = buildRoadGraph(plain);

  it('reads and classifies the restrictions', () => {
    expect(stats.restrictions).toMatchObject({ relations: 4, applied: 2, skippedExcept: 1, skippedNotForCars: 1, skippedViaWay: 0 });
    expect(nodesOf(g, 5).length).toBeGreaterThanOrEqual(2); // the via node was split
    expect(nodesOf(g0, 5).length).toBe(1);
    expect(g.numNodes).toBe(g0.numNodes + stats.splitNodesAdded);
  });

  it('no_left_turn: a plain Dijkstra must detour', () => {
    const direct = wayTime(g, 101) + wayTime(g, 104);
    expect(osmDistance(g0, 2, 4)).toBe(direct);
    const restricted = osmDistance(g, 2, 4);
    expect(restricted).toBeGreaterThan(direct);
    expect(restricted).toBe(wayTime(g, 113)); // around the ring (2 → 1 → 4)
    // The path found never enters C from the south and leaves it to the west.
    const { pred } = dijkstra(g, [nodeOf(g, 2)]);
    const path = arcPath(g, pred, nodeOf(g, 4));
    for (let i = 1; i < path.length; i++) {
      expect(g.edgeWayId[g.arcEdgeId(path[i - 1])] === 101 && g.edgeWayId[g.arcEdgeId(path[i])] === 104).toBe(false);
    }
  });

  it('only_straight_on: from the east only west is allowed', () => {
    expect(osmDistance(g0, 6, 8)).toBe(wayTime(g, 103) + wayTime(g, 102));
    expect(osmDistance(g, 6, 8)).toBe(wayTime(g, 111, true)); // around the ring (6 → 9 → 8)
    expect(osmDistance(g, 6, 2)).toBe(wayTime(g, 112)); // no right turn either
    expect(osmDistance(g, 6, 4)).toBe(wayTime(g, 103) + wayTime(g, 104)); // straight on is fine
  });

  it('other turns stay allowed (except=motorcar and hgv-only restrictions do not apply)', () => {
    expect(osmDistance(g, 2, 8)).toBe(wayTime(g, 101) + wayTime(g, 102));
    expect(osmDistance(g, 2, 6)).toBe(wayTime(g, 101) + wayTime(g, 103, true));
    expect(osmDistance(g, 8, 4)).toBe(wayTime(g, 102, true) + wayTime(g, 104));
    // Every other pair has the same distance with and without restrictions.
    for (const a of [1, 2, 3, 4, 6, 7, 8, 9]) {
      for (const b of [1, 2, 3, 4, 6, 7, 8, 9]) {
        if ((a === 2 && b === 4) || (a === 6 && (b === 8 || b === 2))) continue;
        const d = osmDistance(g, a, b);
        const d0 = osmDistance(g0, a, b);
        if (d !== d0) {
          // Only paths that would use a forbidden turn get longer.
          expect(d, `${a}→${b}`).toBeGreaterThan(d0);
          const { pred } = dijkstra(g0, [nodeOf(g0, a)]);
          const ways = arcPath(g0, pred, nodeOf(g0, b)).map((x) => g0.edgeWayId[g0.arcEdgeId(x)]);
          const uses = ways.some((w, i) => i > 0 && ((ways[i - 1] === 101 && w === 104) || (ways[i - 1] === 103 && w !== 104 && w !== 103)));
          expect(uses, `${a}→${b} via ${ways.join(',')}`).toBe(true);
        }
      }
    }
  });

  it('degree-2 nodes are collapsed into edge geometry with their lengths', () => {
    const edges = edgesOfWay(g, 113); // 2 → 1 → 4, node 1 is degree 2
    expect(edges.length).toBe(1);
    const e = edges[0];
    const s = g.edgeGeomStart[e];
    expect(g.edgeGeomStart[e + 1] - s).toBe(3);
    expect([g.geomLat[s + 1], g.geomLon[s + 1]]).toEqual([44.999, 6.999]);
    const lenM = haversine(44.999, 7.0, 44.999, 6.999) + haversine(44.999, 6.999, 45.0, 6.999);
    const { fwd, bwd } = arcsOfEdge(g, e);
    expect(fwd.length).toBe(1);
    expect(bwd.length).toBe(1);
    expect(g.lengthCm[fwd[0]]).toBe(Math.round(lenM * 100));
    expect(g.timeMs[fwd[0]]).toBe(Math.round((lenM * 3600) / 40)); // tertiary 40 km/h
    expect(g.timeMs[wayTimeArc(g, 101)]).toBe(Math.round((haversine(44.999, 7, 45, 7) * 3600) / 65)); // primary
    expect(g.numEdges).toBe(8);
    expect(g.arcName(fwd[0])).toBe('Ring SW');
    expect(g.arcHighwayClass(fwd[0])).toBe(HighwayClass.tertiary);
  });
});

function wayTimeArc(g: RoadGraph, wayId: number): number {
  return arcsOfEdge(g, edgesOfWay(g, wayId)[0]).fwd[0];
}

describe('oneway handling', () => {
  const { graph: g } = buildRoadGraph(readOsmXmlFile(fixture('tiny/oneway.osm')), { largestSccOnly: false });
  const dirs = (wayId: number) => edgesOfWay(g, wayId).map((e) => {
    const { fwd, bwd } = arcsOfEdge(g, e);
    return `${fwd.length ? 'F' : ''}${bwd.length ? 'B' : ''}`;
  });

  it('oneway=yes/true, -1, implied motorway, oneway=no, roundabout, reversible', () => {
    expect(dirs(1)).toEqual(['F']);
    expect(dirs(2)).toEqual(['B']);
    expect(dirs(3)).toEqual(['F']);
    expect(dirs(4)).toEqual(['FB']);
    expect(dirs(5)).toEqual(['F']);
    expect(dirs(6)).toEqual(['F', 'F']); // closed roundabout: cut in two, both one way
    expect(dirs(7)).toEqual([]); // reversible: dropped
    expect(dirs(8)).toEqual(['FB']);
  });

  it('arcs run the right way', () => {
    const [e1] = edgesOfWay(g, 1);
    const a1 = arcsOfEdge(g, e1).fwd[0];
    expect(g.tail[a1]).toBe(nodeOf(g, 1));
    expect(g.head[a1]).toBe(nodeOf(g, 2));
    const [e2] = edgesOfWay(g, 2);
    const a2 = arcsOfEdge(g, e2).bwd[0];
    expect(g.tail[a2]).toBe(nodeOf(g, 4));
    expect(g.head[a2]).toBe(nodeOf(g, 3));
    const lat: number[] = [];
    const lon: number[] = [];
    g.arcGeometry(a2, lat, lon);
    expect(lat).toEqual([45.001, 45.001]);
    expect(lon).toEqual([7.001, 7.0]);
    for (const e of edgesOfWay(g, 6)) expect(g.edgeFlags[e] & EdgeFlag.Roundabout).toBeTruthy();
    // The roundabout is a cycle 11 → 12 → 13 → 11 (its middle node 13 became a graph node).
    expect(osmDistance(g, 11, 13)).toBeLessThan(Infinity);
    expect(osmDistance(g, 13, 11)).toBeLessThan(Infinity);
  });
});

describe('access, classes and flags', () => {
  // Ways from A (1) to B (2), each through its own middle node so geometries differ.
  const osm = new OsmElements().node(1, 45, 7).node(2, 45, 7 + 2 * U);
  const ways: [number, Record<string, string>][] = [
    [10, { highway: 'residential', access: 'no' }],
    [11, { highway: 'residential', access: 'private' }],
    [12, { highway: 'service', area: 'yes' }],
    [13, { highway: 'footway' }],
    [14, { highway: 'residential', access: 'yes', motor_vehicle: 'no' }],
    [15, { highway: 'residential', access: 'no', motorcar: 'yes' }],
    [16, { highway: 'residential', access: 'destination' }],
    [17, { highway: 'construction' }],
    [18, { highway: 'service', service: 'parking_aisle' }],
    [19, { route: 'ferry', duration: '00:10', name: 'Ferry' }],
    [20, { highway: 'tertiary', toll: 'yes', surface: 'gravel', ref: 'N13' }],
    [21, { highway: 'primary', construction: 'yes' }],
  ];
  ways.forEach(([id, tags], i) => {
    osm.node(100 + id, 45 + (i + 1) * U, 7 + U);
    osm.way(id, [1, 100 + id, 2], tags);
  });
  const { graph: g, stats } = buildRoadGraph(osm);

  it('drops what cars may not use and keeps the rest', () => {
    const kept = ways.map(([id]) => id).filter((id) => edgesOfWay(g, id).length > 0);
    expect(kept).toEqual([11, 15, 16, 18, 19, 20]);
    expect(stats.ways).toEqual({ total: 12, car: 6, ferries: 1 });
  });

  it('flags private, destination, minor service, ferry, toll, unpaved', () => {
    const f = (id: number) => g.edgeFlags[edgesOfWay(g, id)[0]];
    expect(f(11) & EdgeFlag.Private).toBeTruthy();
    expect(f(16) & EdgeFlag.Destination).toBeTruthy();
    expect(f(18) & EdgeFlag.MinorService).toBeTruthy();
    expect(f(19) & EdgeFlag.Ferry).toBeTruthy();
    expect(f(20) & (EdgeFlag.Toll | EdgeFlag.Unpaved)).toBe(EdgeFlag.Toll | EdgeFlag.Unpaved);
    expect(f(15)).toBe(0);
    expect(g.edgeClass[edgesOfWay(g, 19)[0]]).toBe(HighwayClass.ferry);
    const a20 = arcsOfEdge(g, edgesOfWay(g, 20)[0]).fwd[0];
    expect(g.arcRef(a20)).toBe('N13');
    expect(g.arcName(a20)).toBe('');
  });

  it('a ferry with a duration takes that long', () => {
    const { fwd, bwd } = arcsOfEdge(g, edgesOfWay(g, 19)[0]);
    expect(g.timeMs[fwd[0]]).toBe(600_000);
    expect(g.timeMs[bwd[0]]).toBe(600_000);
  });
});

describe('barriers, missing nodes, SCC', () => {
  it('a bollard blocks passage; routes go around', () => {
    const osm = new OsmElements()
      .node(1, 45, 7).node(2, 45, 7 + U, { barrier: 'bollard' }).node(3, 45, 7 + 2 * U)
      .node(4, 45 + 2 * U, 7 + U).node(5, 45, 7 + 3 * U, { barrier: 'gate' }).node(6, 45, 7 + 4 * U)
      .way(1, [1, 2, 3], { highway: 'residential' })
      .way(2, [1, 4, 3], { highway: 'residential' })
      .way(3, [3, 5, 6], { highway: 'residential' });
    const { graph: g, stats } = buildRoadGraph(osm);
    expect(stats.barriers).toBe(1);
    expect(edgesOfWay(g, 1).length).toBe(2); // cut at the bollard; both halves stay (dead ends)
    expect(osmDistance(g, 1, 3)).toBe(wayTime(g, 2));
    expect(osmDistance(g, 3, 1)).toBe(wayTime(g, 2, true));
    expect(osmDistance(g, 3, 6)).toBe(wayTime(g, 3)); // a gate lets cars through
  });

  it('a way is cut where a node is missing from the extract', () => {
    const osm = new OsmElements()
      .node(1, 45, 7).node(3, 45, 7 + 2 * U).node(4, 45, 7 + 3 * U).node(5, 45 + U, 7 + 3 * U)
      .way(1, [1, 2, 3, 4, 5], { highway: 'residential' });
    const { graph: g, stats } = buildRoadGraph(osm);
    expect(stats.missingNodes).toBe(1);
    expect(g.numNodes).toBe(2); // 3 and 5 (4 is degree 2); 1 is isolated and dropped
    expect(nodesOf(g, 3).length).toBe(1);
    expect(g.numEdges).toBe(1);
    expect(g.edgeGeomStart[1]).toBe(3);
  });

  it('keeps the largest strongly connected component', () => {
    const osm = new OsmElements()
      .node(1, 45, 7).node(2, 45, 7 + U).node(3, 45 + U, 7).node(4, 45 + 5 * U, 7).node(5, 45 + 5 * U, 7 + U).node(6, 45 + 2 * U, 7 + 2 * U)
      .way(1, [1, 2, 3, 1], { highway: 'residential' })
      .way(2, [4, 5], { highway: 'residential' })
      .way(3, [2, 6], { highway: 'residential', oneway: 'yes' });
    const { graph: g, stats } = buildRoadGraph(osm);
    // The loop 1-2-3-1 has graph nodes 1 (way end) and 2 (shared with way 3); 3 is geometry.
    expect(stats.scc.largest).toBe(2);
    expect(stats.scc.components).toBe(3); // {1, 2}, {4, 5}, {6}
    expect(g.numNodes).toBe(2);
    expect(g.numEdges).toBe(2); // 1-2 and 2-3-1 (parallel, different geometry)
    expect([...g.nodeOsmId].sort()).toEqual([1, 2]);
    const all = buildRoadGraph(osm, { largestSccOnly: false }).graph;
    expect(all.numNodes).toBe(5);
    expect(all.numEdges).toBe(4);
  });

  it('honours an aborted signal', () => {
    const ac = new AbortController();
    ac.abort();
    const osm = readOsmXmlFile(fixture('tiny/restrictions.osm'));
    expect(() => buildRoadGraph(osm, { signal: ac.signal })).toThrow(EngineError);
    try { buildRoadGraph(osm, { signal: ac.signal }); } catch (e) { expect((e as EngineError).code).toBe('Cancelled'); }
  });

  it('hilbert16 is a bijection on a small grid', () => {
    const seen = new Set<number>();
    for (let x = 0; x < 64; x++) for (let y = 0; y < 64; y++) seen.add(hilbert16(x << 10, y << 10));
    expect(seen.size).toBe(4096);
  });
});

/** Structural invariants every built graph must satisfy. */
function checkInvariants(g: RoadGraph): void {
  for (let v = 0; v < g.numNodes; v++) {
    expect(g.firstOut[v] <= g.firstOut[v + 1]).toBe(true);
    for (let a = g.firstOut[v]; a < g.firstOut[v + 1]; a++) if (g.tail[a] !== v) throw new Error(`tail of ${a}`);
  }
  const lat: number[] = [];
  const lon: number[] = [];
  for (let a = 0; a < g.numArcs; a++) {
    lat.length = 0;
    lon.length = 0;
    const n = g.arcGeometry(a, lat, lon);
    if (n < 2) throw new Error(`arc ${a} has ${n} points`);
    if (lat[0] !== g.lat[g.tail[a]] || lon[0] !== g.lon[g.tail[a]]) throw new Error(`arc ${a} does not start at its tail`);
    if (lat[n - 1] !== g.lat[g.head[a]] || lon[n - 1] !== g.lon[g.head[a]]) throw new Error(`arc ${a} does not end at its head`);
    let len = 0;
    for (let i = 1; i < n; i++) len += haversine(lat[i - 1], lon[i - 1], lat[i], lon[i]);
    if (g.lengthCm[a] !== Math.max(1, Math.round(len * 100))) throw new Error(`arc ${a} length ${g.lengthCm[a]} vs ${len * 100}`);
    if (g.timeMs[a] < 1 || g.tail[a] === g.head[a]) throw new Error(`arc ${a} cost/loop`);
    const e = g.arcEdgeId(a);
    let found = false;
    for (let i = g.edgeArcStart[e]; i < g.edgeArcStart[e + 1]; i++) if (g.edgeArcs[i] === a) found = true;
    if (!found) throw new Error(`arc ${a} missing from its edge's list`);
  }
  // All arcs of one edge and direction share head, time and length (restriction copies).
  for (let e = 0; e < g.numEdges; e++) {
    for (const dir of [0, 1]) {
      const arcs = [];
      for (let i = g.edgeArcStart[e]; i < g.edgeArcStart[e + 1]; i++) if ((g.arcEdge[g.edgeArcs[i]] & 1) === dir) arcs.push(g.edgeArcs[i]);
      for (const a of arcs) {
        if (g.head[a] !== g.head[arcs[0]] || g.timeMs[a] !== g.timeMs[arcs[0]]) throw new Error(`edge ${e} copies differ`);
      }
    }
  }
}

describe('real extracts', () => {
  it('Monaco (-latest) builds with plausible counts', () => {
    const { graph: g, stats } = buildRoadGraph(readFileSync(fixture('monaco-latest.osm.pbf')));
    // SOURCES.md: 1,344 junctions / 2,330 arcs, largest SCC 1,257 (without access filtering or splits).
    expect(stats.junctions).toBeGreaterThan(1250);
    expect(stats.junctions).toBeLessThan(1400);
    expect(g.numNodes).toBeGreaterThan(1150);
    expect(g.numNodes).toBeLessThan(1450);
    expect(g.numArcs).toBeGreaterThan(2000);
    expect(g.numArcs).toBeLessThan(2500);
    expect(stats.restrictions.relations).toBe(45);
    expect(stats.restrictions.applied).toBeGreaterThan(35);
    expect(stats.geometryPoints).toBeGreaterThan(g.numNodes * 3);
    checkInvariants(g);
    console.log(`monaco-latest: ${g.numNodes} nodes, ${g.numArcs} arcs, ${g.numEdges} edges, ${stats.restrictions.applied} restrictions, ${stats.splitNodesAdded} split copies, ${stats.timingsMs.total.toFixed(0)} ms`);
  });

  it('Andorra builds with plausible counts', () => {
    const { graph: g, stats } = buildRoadGraph(readFileSync(fixture('andorra.osm.pbf')));
    expect(stats.roadNodes).toBeGreaterThan(16000);
    expect(g.numNodes).toBeGreaterThan(1500);
    expect(g.numNodes).toBeLessThan(2000);
    expect(g.numArcs).toBeGreaterThan(3000);
    checkInvariants(g);
    console.log(`andorra: ${g.numNodes} nodes, ${g.numArcs} arcs, ${g.numEdges} edges, ${stats.timingsMs.total.toFixed(0)} ms`);
  });
});

describe('arcGraph view', () => {
  it('matches the CH engineer\'s Dijkstra on the restrictions fixture', async () => {
    const { graph: g } = buildRoadGraph(readOsmXmlFile(fixture('tiny/restrictions.osm')));
    const ag = g.arcGraph('time');
    expect(ag.weight).toBe(g.timeMs);
    expect(g.arcGraph('distance').weight).toBe(g.lengthCm);
    const { Dijkstra } = await import('../../src/graph/dijkstra.js');
    const d = new Dijkstra(ag);
    const mine = dijkstra(g, [nodeOf(g, 2)]).dist;
    const theirs = d.oneToAll(nodeOf(g, 2));
    expect(Array.from(theirs)).toEqual(Array.from(mine));
  });
});
