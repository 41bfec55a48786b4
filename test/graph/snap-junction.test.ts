/**
 * A coordinate lying exactly on a graph node (a junction, a way's end) is the node itself: the
 * snap enters and leaves there at zero cost, at the node and at every turn-restriction copy of it,
 * whichever of the edges meeting there the snap picked. Checked on tiny hand-made networks against
 * a plain Dijkstra between the exact nodes, at the router, the route geometry and the engine.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { buildRoadGraph } from '../../src/graph/build.js';
import { NODE_TOLERANCE_M, Snapper, type Snap } from '../../src/graph/snap.js';
import type { RoadGraph } from '../../src/graph/road-graph.js';
import { Dijkstra } from '../../src/graph/dijkstra.js';
import { buildContractionHierarchy } from '../../src/ch/index.js';
import { Router, type Metric } from '../../src/route/router.js';
import { pathSummary, routeGeometry } from '../../src/route/geometry.js';
import { BinWriter } from '../../src/core/binfile.js';
import { DATASET_TAG, DATASET_VERSION, SECTION, type DatasetMeta } from '../../src/dataset/dataset.js';
import { Engine } from '../../src/engine.js';
import { OsmElements, readOsmXmlFile, type OsmSource } from '../../src/osm/xml.js';
import { arcsOfEdge, edgesOfWay, fixture, nodeOf, nodesOf } from './helpers.js';

/**
 * Junction J (node 5) where only oneway arms meet: two arrive (from W and S), two leave (to E and
 * N). Whichever arm the snap of J's coordinate picks, one side was wrong before: an arriving arm
 * gave no zero-cost target (the route had to arrive along that arm), a leaving arm no zero-cost
 * source (the route had to drive that arm first). A slow two-way ring links the arm ends (its
 * corners 1, 3, 7, 9 are not graph nodes).
 *
 *     7 ----- N(8) ----- 9        N = 8:  J → N
 *     |        ↑         |
 *    W(4) →  J(5)  →   E(6)       W = 4:  W → J,   E = 6:  J → E
 *     |        ↑         |
 *     1 ----- S(2) ----- 3        S = 2:  S → J
 */
function onewayJunction(): OsmElements {
  const U = 0.001;
  const at = (r: number, c: number): [number, number] => [45 + r * U, 7 + c * U];
  const osm = new OsmElements();
  const grid: [number, number, number][] = [[1, 0, 0], [2, 0, 1], [3, 0, 2], [4, 1, 0], [5, 1, 1], [6, 1, 2], [7, 2, 0], [8, 2, 1], [9, 2, 2]];
  for (const [id, r, c] of grid) osm.node(id, ...at(r, c));
  const arm = { highway: 'primary', oneway: 'yes' };
  osm.way(101, [4, 5], { ...arm, name: 'From West' })
    .way(102, [2, 5], { ...arm, name: 'From South' })
    .way(103, [5, 6], { ...arm, name: 'To East' })
    .way(104, [5, 8], { ...arm, name: 'To North' })
    .way(111, [4, 1, 2, 3, 6, 9, 8, 7, 4], { highway: 'residential', name: 'Ring' });
  return osm;
}

interface Tiny {
  g: RoadGraph;
  snapper: Snapper;
  router: Router;
  buffer: ArrayBufferLike;
}

/** Graph, snapper, both hierarchies and a dataset buffer (no geocoder) of a tiny network. */
function tiny(osm: OsmSource): Tiny {
  const { graph: g } = buildRoadGraph(osm);
  const base = { numNodes: g.numNodes, tail: g.tail, head: g.head };
  const chTime = buildContractionHierarchy({ ...base, weight: g.timeMs, aux: g.lengthCm });
  const chDist = buildContractionHierarchy({ ...base, weight: g.lengthCm, aux: g.timeMs });
  const snapper = Snapper.build(g);
  const w = new BinWriter(DATASET_TAG, DATASET_VERSION);
  g.toSections(w, SECTION.graph);
  chTime.toSections(w, SECTION.chTime);
  chDist.toSections(w, SECTION.chDist);
  snapper.toSections(w, SECTION.snap);
  const meta: DatasetMeta = {
    name: 'tiny', source: { file: '(memory)', bytes: 0 }, createdAt: new Date(0).toISOString(), engineVersion: 'test', profile: 'car',
    attribution: '', counts: { nodes: g.numNodes, arcs: g.numArcs, edges: g.numEdges, chTimeArcs: chTime.numArcs, chDistArcs: chDist.numArcs },
    bbox: g.bbox(), timingsMs: {},
  };
  w.addJson(SECTION.meta, meta);
  return { g, snapper, router: new Router(g, snapper, chTime, chDist), buffer: w.toBuffer(true) };
}

const weightOf = (g: RoadGraph, m: Metric) => (m === 'time' ? g.timeMs : g.lengthCm);

/** Plain Dijkstra from every graph node of OSM node `from` to the nearest graph node of OSM node `to`. */
function exact(g: RoadGraph, from: number, to: number, metric: Metric): number {
  const d = new Dijkstra({ numNodes: g.numNodes, tail: g.tail, head: g.head, weight: weightOf(g, metric) });
  for (const v of nodesOf(g, from)) d.addSource(v);
  d.run();
  return Math.min(...nodesOf(g, to).map((v) => d.distance(v)));
}

const snapAt = (t: Tiny, osmId: number): Snap => {
  const v = nodesOf(t.g, osmId)[0];
  return t.snapper.snap(t.g.lat[v], t.g.lon[v]);
};

/** Every ordered pair of distinct OSM nodes: router cost between their exact coordinates vs Dijkstra. */
function mismatches(t: Tiny, ids: number[]): string[] {
  const out: string[] = [];
  for (const metric of ['time', 'distance'] as Metric[]) {
    for (const a of ids) {
      for (const b of ids) {
        if (a === b) continue;
        const r = t.router.route(snapAt(t, a), snapAt(t, b), metric);
        const got = metric === 'time' ? r.timeMs : r.lengthCm;
        const want = exact(t.g, a, b, metric);
        if (got !== want) out.push(`${a} → ${b} (${metric}): ${got} ≠ ${want}`);
      }
    }
  }
  return out;
}

/** The route geometry of the router's path: same totals, from one snapped point to the other. */
function checkGeometry(t: Tiny, from: Snap, to: Snap, metric: Metric): void {
  const r = t.router.route(from, to, metric, true);
  expect(r.found).toBe(true);
  const geo = routeGeometry(t.g, from, r.arcs!, to, { metric });
  expect(geo.timeMs).toBe(r.timeMs);
  expect(geo.lengthCm).toBe(r.lengthCm);
  expect([geo.lat[0], geo.lon[0]]).toEqual([from.lat, from.lon]);
  expect([geo.lat[geo.lat.length - 1], geo.lon[geo.lon.length - 1]]).toEqual([to.lat, to.lon]);
  for (let i = 1; i < geo.lat.length; i++) expect(geo.lat[i] === geo.lat[i - 1] && geo.lon[i] === geo.lon[i - 1]).toBe(false);
  expect(pathSummary(t.g, geo).timeMs).toBe(r.timeMs);
}

describe('a junction where only oneways meet', () => {
  const t = tiny(onewayJunction());
  const { g } = t;
  const J = nodeOf(g, 5);
  const wayTime = (way: number) => g.timeMs[arcsOfEdge(g, edgesOfWay(g, way)[0]).fwd[0]];
  const wayLength = (way: number) => g.lengthCm[arcsOfEdge(g, edgesOfWay(g, way)[0]).fwd[0]];
  let engine: Engine | undefined;
  afterAll(async () => engine?.close());

  it('the snap of the junction coordinate is the node: zero-cost source and target at J, nothing else', () => {
    const s = snapAt(t, 5);
    expect(s.distanceM).toBe(0);
    expect(s.atNode).toBe(true);
    expect(s.fraction === 0 || s.fraction === 1).toBe(true);
    expect([s.lat, s.lon]).toEqual([g.lat[J], g.lon[J]]);
    expect(s.sourceEntries.map((e) => [e.node, e.timeMs, e.lengthCm])).toEqual([[J, 0, 0]]);
    expect(s.targetEntries.map((e) => [e.node, e.timeMs, e.lengthCm])).toEqual([[J, 0, 0]]);
    // The entry arcs touch the node: one arriving for the source, one leaving for the target.
    expect(g.head[s.sourceEntries[0].arc]).toBe(J);
    expect(g.tail[s.targetEntries[0].arc]).toBe(J);
  });

  it('router: from and to the junction coordinate = Dijkstra from and to the node (every pair, both metrics)', () => {
    expect(mismatches(t, [2, 4, 5, 6, 8])).toEqual([]);
    // The arms themselves: arriving from the south and leaving to the north take just that arm.
    expect(t.router.route(snapAt(t, 2), snapAt(t, 5), 'time').timeMs).toBe(wayTime(102));
    expect(t.router.route(snapAt(t, 4), snapAt(t, 5), 'time').timeMs).toBe(wayTime(101));
    expect(t.router.route(snapAt(t, 5), snapAt(t, 8), 'distance').lengthCm).toBe(wayLength(104));
    expect(t.router.route(snapAt(t, 5), snapAt(t, 6), 'distance').lengthCm).toBe(wayLength(103));
  });

  it('a point within the tolerance of the node also snaps to the node; one just beyond it is on an arm', () => {
    const near = t.snapper.snap(g.lat[J] + (0.2 * NODE_TOLERANCE_M) / 111195, g.lon[J]);
    expect(near.distanceM).toBeLessThan(NODE_TOLERANCE_M);
    expect(near.atNode).toBe(true);
    expect([near.lat, near.lon]).toEqual([g.lat[J], g.lon[J]]);
    expect(near.sourceEntries.map((e) => [e.node, e.timeMs])).toEqual([[J, 0]]);
    // Just off the node along an arm it is an ordinary point on that arm.
    const onArm = t.snapper.snap(g.lat[J], g.lon[J] - 0.00001);
    expect(onArm.atNode).toBe(false);
    expect(onArm.fraction).toBeGreaterThan(0.98);
    expect(onArm.fraction).toBeLessThan(1);
    expect(onArm.targetEntries.map((e) => e.node)).toEqual([nodeOf(g, 4)]);
  });

  it('route geometry from and to the junction starts and ends at it, with the router totals', () => {
    for (const metric of ['time', 'distance'] as Metric[]) {
      for (const other of [2, 4, 6, 8]) {
        checkGeometry(t, snapAt(t, 5), snapAt(t, other), metric);
        checkGeometry(t, snapAt(t, other), snapAt(t, 5), metric);
      }
      // A point on an arm to the junction and back (the arm is oneway: around the ring).
      const mid = t.snapper.snap(g.lat[J] + 0.0005, g.lon[J]);
      checkGeometry(t, snapAt(t, 5), mid, metric);
      checkGeometry(t, mid, snapAt(t, 5), metric);
    }
  });

  it('engine: CalculateDistance and the travel matrix between junction coordinates = Dijkstra', async () => {
    engine = await Engine.open(t.buffer, { threads: 1 });
    const ll = (id: number) => ({ LatLong: { Latitude: g.lat[nodesOf(g, id)[0]], Longitude: g.lon[nodesOf(g, id)[0]] } });
    const ids = [2, 4, 5, 6, 8];
    for (const [a, b] of [[2, 5], [4, 5], [5, 6], [5, 8], [6, 5], [5, 2]]) {
      const byDistance = engine.calculateDistance({ StartLocation: ll(a), FinishLocation: ll(b), DistanceUnit: 'Kilometer', RouteOptimize: 'MinimizeDistance' });
      expect(byDistance.Status).toBe('Success');
      expect(byDistance.Distance).toBeCloseTo(exact(g, a, b, 'distance') / 100_000, 9);
      const byTime = engine.calculateDistance({ StartLocation: ll(a), FinishLocation: ll(b), DistanceUnit: 'Kilometer', RouteOptimize: 'MinimizeTime' });
      expect(byTime.Time).toBe(Math.round(exact(g, a, b, 'time') / 1000));
    }
    const places = ids.map((id, i) => engine!.placeLocation(ll(id) as Parameters<Engine['placeLocation']>[0], `Locations[${i}]`));
    for (const metric of ['time', 'distance'] as Metric[]) {
      const m = await engine.travelMatrix(places, { metric });
      for (let i = 0; i < ids.length; i++) {
        for (let j = 0; j < ids.length; j++) {
          if (i === j) continue;
          const want = exact(g, ids[i], ids[j], metric);
          if (metric === 'time') expect(m.timeS[i * ids.length + j] * 1000).toBeCloseTo(want, 6);
          else expect(m.distanceM[i * ids.length + j] * 100).toBeCloseTo(want, 6);
        }
      }
    }
  });
});

describe('a junction split by turn restrictions (fixtures/tiny/restrictions.osm)', () => {
  const t = tiny(readOsmXmlFile(fixture('tiny/restrictions.osm')));
  const { g } = t;
  const copies = nodesOf(g, 5);

  it('the via node has copies; the snap of its coordinate enters and leaves at every one at zero cost', () => {
    expect(copies.length).toBeGreaterThanOrEqual(3); // the node, the south group, the east group
    const s = snapAt(t, 5);
    expect(s.sourceEntries.map((e) => [e.node, e.timeMs, e.lengthCm])).toEqual(copies.map((v) => [v, 0, 0]));
    expect(s.targetEntries.map((e) => [e.node, e.timeMs, e.lengthCm])).toEqual(copies.map((v) => [v, 0, 0]));
    for (const e of s.sourceEntries) expect(g.head[e.arc]).toBe(e.node);
    for (const e of s.targetEntries) expect(g.tail[e.arc]).toBe(e.node);
  });

  it('starting at the junction: every direction is open (no arc arrived, no restriction applies)', () => {
    // The uncopied node leaves in every direction; a copy leaves in a subset of them, so starting
    // from all of them is the same as starting from the node.
    const node = copies.find((v) => g.firstOut[v + 1] - g.firstOut[v] === Math.max(...copies.map((c) => g.firstOut[c + 1] - g.firstOut[c])))!;
    for (const metric of ['time', 'distance'] as Metric[]) {
      const d = new Dijkstra({ numNodes: g.numNodes, tail: g.tail, head: g.head, weight: weightOf(g, metric) });
      const fromNode = d.oneToAll(node);
      for (const to of [2, 4, 6, 8]) expect(exact(g, 5, to, metric)).toBe(Math.min(...nodesOf(g, to).map((v) => fromNode[v])));
    }
    // South Arm → West Arm is forbidden for through traffic, but a vehicle standing at C may go west.
    const west = t.router.route(snapAt(t, 5), snapAt(t, 4), 'time');
    expect(west.timeMs).toBe(g.timeMs[arcsOfEdge(g, edgesOfWay(g, 104)[0]).fwd[0]]);
  });

  it('arriving at any copy is arriving at the junction', () => {
    // From the east (only straight on, i.e. west) and from the south (no left turn) C is reached by the arm alone.
    expect(t.router.route(snapAt(t, 6), snapAt(t, 5), 'time').timeMs).toBe(g.timeMs[arcsOfEdge(g, edgesOfWay(g, 103)[0]).fwd[0]]);
    expect(t.router.route(snapAt(t, 2), snapAt(t, 5), 'time').timeMs).toBe(g.timeMs[arcsOfEdge(g, edgesOfWay(g, 101)[0]).fwd[0]]);
  });

  it('router = Dijkstra between the exact nodes for every pair; the restrictions still hold for through traffic', () => {
    expect(mismatches(t, [2, 4, 5, 6, 8])).toEqual([]);
    // Through C, South Arm → West Arm is still forbidden: from a point on the South Arm to one on the West Arm.
    const south = t.snapper.snap(44.9995, 7.0);
    const west = t.snapper.snap(45.0, 6.9995);
    const r = t.router.route(south, west, 'time');
    const straight = south.sourceEntries.find((e) => nodesOf(g, 5).includes(e.node))!.timeMs + west.targetEntries.find((e) => nodesOf(g, 5).includes(e.node))!.timeMs;
    expect(r.timeMs).toBeGreaterThan(straight);
  });

  it('route geometry through the copies', () => {
    for (const metric of ['time', 'distance'] as Metric[]) {
      for (const other of [2, 4, 6, 8]) {
        checkGeometry(t, snapAt(t, 5), snapAt(t, other), metric);
        checkGeometry(t, snapAt(t, other), snapAt(t, 5), metric);
      }
    }
  });
});
