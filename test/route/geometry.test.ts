import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildRoadGraph } from '../../src/graph/build.js';
import { Snapper, type Snap } from '../../src/graph/snap.js';
import type { RoadGraph } from '../../src/graph/road-graph.js';
import { OsmElements } from '../../src/osm/xml.js';
import { EngineError } from '../../src/core/errors.js';
import { haversine } from '../../src/core/geo.js';
import { Rng } from '../../src/core/rng.js';
import { pathSummary, routeGeometry } from '../../src/route/geometry.js';
import { arcPath, dijkstra, fixture, nodeOf } from '../graph/helpers.js';

/**
 *   A (1) ===== B (3) ---oneway---> C (4)       45.000
 *    \                              /
 *     `----------- D (5) ----------'            45.002   Ring: C → D → A, two-way, toll
 */
const osm = new OsmElements()
  .node(1, 45, 7).node(3, 45, 7.002).node(4, 45, 7.004).node(5, 45.002, 7.002)
  .way(1, [1, 3], { highway: 'residential', name: 'Two Way' })
  .way(2, [3, 4], { highway: 'residential', oneway: 'yes', name: 'One Way' })
  .way(3, [4, 5, 1], { highway: 'residential', name: 'Ring', toll: 'yes', surface: 'gravel' });
const { graph: g } = buildRoadGraph(osm);
const snapper = Snapper.build(g);
const A = nodeOf(g, 1), B = nodeOf(g, 3), C = nodeOf(g, 4);

/** Best path between two snaps with a plain Dijkstra over the entries: arcs and total time. */
function bestPath(gr: RoadGraph, from: Snap, to: Snap): { arcs: number[]; timeMs: number; node: number } | null {
  const { dist, pred } = dijkstra(gr, from.sourceEntries.map((e) => e.node), gr.timeMs, from.sourceEntries.map((e) => e.timeMs));
  let best = Infinity;
  let node = -1;
  for (const t of to.targetEntries) {
    if (dist[t.node] + t.timeMs < best) { best = dist[t.node] + t.timeMs; node = t.node; }
  }
  if (node < 0) return null;
  return { arcs: arcPath(gr, pred, node), timeMs: best, node };
}

function pairs(r: { lat: Float64Array; lon: Float64Array }): [number, number][] {
  return Array.from(r.lat, (la, i) => [la, r.lon[i]]);
}

describe('routeGeometry on a tiny network', () => {
  it('meets at a shared node when no arcs are needed', () => {
    const from = snapper.snap(45.0001, 7.0005);
    const to = snapper.snap(45.0001, 7.003);
    const r = routeGeometry(g, from, [], to);
    expect(pairs(r)).toEqual([[45, 7.0005], [45, 7.002], [45, 7.003]].map(([a, b]) => [expect.closeTo(a, 9), expect.closeTo(b, 9)]));
    expect(r.pieces.map((p) => p.arc)).toEqual([from.fwdArc, to.fwdArc]);
    const se = from.sourceEntries.find((e) => e.node === B)!;
    const te = to.targetEntries.find((e) => e.node === B)!;
    expect(r.timeMs).toBe(se.timeMs + te.timeMs);
    expect(r.lengthCm).toBe(se.lengthCm + te.lengthCm);
    expect(r.pieces[0]).toMatchObject({ fromFraction: expect.closeTo(0.25, 6), toFraction: 1, firstPoint: 0 });
    expect(r.pieces[1]).toMatchObject({ fromFraction: 0, toFraction: expect.closeTo(0.5, 6), firstPoint: 1 });
    const s = pathSummary(g, r);
    expect(s.names).toEqual(['Two Way', 'One Way']);
    expect(s).toMatchObject({ toll: false, ferry: false, unpaved: false, private: false });
  });

  it('drives around against a oneway, trimming the polyline at both snapped points', () => {
    const from = snapper.snap(45.0001, 7.003); // on B → C
    const to = snapper.snap(44.9999, 7.0005); // on A – B
    const p = bestPath(g, from, to)!;
    expect(p.arcs.length).toBe(1); // the ring C → D → A
    expect(g.tail[p.arcs[0]]).toBe(C);
    expect(g.head[p.arcs[0]]).toBe(A);
    const r = routeGeometry(g, from, p.arcs, to);
    expect(pairs(r).map(([a, b]) => [Math.round(a * 1e9) / 1e9, Math.round(b * 1e9) / 1e9])).toEqual([
      [45, 7.003], [45, 7.004], [45.002, 7.002], [45, 7], [45, 7.0005],
    ]);
    expect(r.timeMs).toBe(p.timeMs);
    expect(r.pieces.map((x) => x.firstPoint)).toEqual([0, 1, 3]);
    const s = pathSummary(g, r);
    expect(s.names).toEqual(['One Way', 'Ring', 'Two Way']);
    expect(s).toMatchObject({ toll: true, unpaved: true, ferry: false, private: false });
    expect(s.timeMs).toBe(r.timeMs);
  });

  it('drives directly along one edge when both points are on it in the right order', () => {
    const from = snapper.snap(45.0001, 7.0015);
    const to = snapper.snap(45.0001, 7.0005);
    const r = routeGeometry(g, from, [], to);
    expect(r.lat.length).toBe(2);
    expect(r.lon[0]).toBeCloseTo(7.0015, 9);
    expect(r.lon[1]).toBeCloseTo(7.0005, 9);
    expect(r.pieces).toHaveLength(1);
    expect(r.pieces[0].arc).toBe(from.bwdArc);
    expect(r.timeMs).toBe(snapper.sameArcDirect(from, to)!.timeMs);
  });

  it('against a oneway on one edge it needs a loop of arcs', () => {
    const from = snapper.snap(45.0001, 7.0035);
    const to = snapper.snap(45.0001, 7.0025);
    expect(snapper.sameArcDirect(from, to)).toBeNull();
    expect(() => routeGeometry(g, from, [], to)).toThrow(EngineError);
    const p = bestPath(g, from, to)!;
    expect(p.arcs.map((a) => [g.tail[a], g.head[a]])).toEqual([[C, A], [A, B]]);
    const r = routeGeometry(g, from, p.arcs, to);
    expect(r.timeMs).toBe(p.timeMs);
    expect(pathSummary(g, r).names).toEqual(['One Way', 'Ring', 'Two Way', 'One Way']);
  });

  it('no duplicate points when a snap falls on a node', () => {
    const from = snapper.snap(45.0001, 7.002); // right at B
    expect(from.lat).toBe(45);
    expect(from.lon).toBe(7.002);
    const to = snapper.snap(45.0001, 7.0035);
    const r = routeGeometry(g, from, [], to);
    for (let i = 1; i < r.lat.length; i++) expect(r.lat[i] === r.lat[i - 1] && r.lon[i] === r.lon[i - 1]).toBe(false);
    // The zero-length piece on the first road does not count in the summary.
    expect(pathSummary(g, r).names).toEqual(['One Way']);
  });

  it('rejects arcs that do not chain or do not fit the snaps', () => {
    const from = snapper.snap(45.0001, 7.0005);
    const to = snapper.snap(45.0001, 7.003);
    const ab = from.fwdArc;
    expect(() => routeGeometry(g, from, [ab, ab], to)).toThrow(/not consecutive/);
    expect(() => routeGeometry(g, to, [ab], from)).toThrow(/not a source entry/);
    expect(() => routeGeometry(g, from, [g.numArcs], to)).toThrow(/outside/);
  });
});

describe('routeGeometry on Monaco (random pairs)', () => {
  const { graph: mg } = buildRoadGraph(readFileSync(fixture('monaco-latest.osm.pbf')));
  const ms = Snapper.build(mg);
  const bb = ms.bbox();

  it('totals equal the Dijkstra cost; the polyline joins the snapped points and matches the lengths', () => {
    const rng = new Rng(42);
    const snaps: Snap[] = [];
    while (snaps.length < 40) {
      const s = ms.trySnap(bb.minLat + rng.next() * (bb.maxLat - bb.minLat), bb.minLon + rng.next() * (bb.maxLon - bb.minLon), { radiusM: 200 });
      if (s) snaps.push(s);
    }
    let routes = 0;
    for (let i = 0; i + 1 < snaps.length; i++) {
      const from = snaps[i];
      const to = snaps[i + 1];
      const p = bestPath(mg, from, to);
      if (!p) continue;
      const direct = ms.sameArcDirect(from, to);
      if (direct && direct.timeMs <= p.timeMs) continue;
      const r = routeGeometry(mg, from, p.arcs, to, { node: p.arcs.length === 0 ? p.node : undefined });
      routes++;
      expect(r.timeMs).toBe(p.timeMs);
      expect(r.lat[0]).toBe(from.lat);
      expect(r.lon[0]).toBe(from.lon);
      expect(r.lat[r.lat.length - 1]).toBe(to.lat);
      expect(r.lon[r.lon.length - 1]).toBe(to.lon);
      let lenM = 0;
      for (let k = 1; k < r.lat.length; k++) {
        expect(r.lat[k] === r.lat[k - 1] && r.lon[k] === r.lon[k - 1]).toBe(false);
        lenM += haversine(r.lat[k - 1], r.lon[k - 1], r.lat[k], r.lon[k]);
      }
      expect(Math.abs(lenM * 100 - r.lengthCm)).toBeLessThanOrEqual(2 * r.pieces.length + 1e-6 * r.lengthCm);
      const s = pathSummary(mg, r);
      expect(s.lengthCm).toBe(r.lengthCm);
    }
    expect(routes).toBeGreaterThan(30);
  });
});
