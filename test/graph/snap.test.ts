import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildRoadGraph } from '../../src/graph/build.js';
import { ON_ROAD_M, SNAP_CHUNK, Snapper, SURFACE_MARGIN_M, fmtDistance } from '../../src/graph/snap.js';
import { Rng } from '../../src/core/rng.js';
import { EdgeFlag } from '../../src/osm/car-profile.js';
import { RoadGraph } from '../../src/graph/road-graph.js';
import { OsmElements } from '../../src/osm/xml.js';
import { BinFile, BinWriter } from '../../src/core/binfile.js';
import { EngineError } from '../../src/core/errors.js';
import { haversine, projectOnSegment } from '../../src/core/geo.js';
import { fixture, nodeOf } from './helpers.js';

const M_PER_DEG_LAT = 111195.08; // EARTH_RADIUS_M · π / 180

/**
 *   A (1) ===== B (3) ---oneway---> C (4)       45.000
 *    \                              /
 *     `----------- D (5) ----------'            45.002 (ring back, two-way)
 */
function network() {
  const osm = new OsmElements()
    .node(1, 45, 7).node(3, 45, 7.002).node(4, 45, 7.004).node(5, 45.002, 7.002)
    .way(1, [1, 3], { highway: 'residential', name: 'Two Way' })
    .way(2, [3, 4], { highway: 'residential', oneway: 'yes', name: 'One Way' })
    .way(3, [4, 5, 1], { highway: 'residential', name: 'Ring' });
  const { graph } = buildRoadGraph(osm);
  return { g: graph, snapper: Snapper.build(graph) };
}

function expectEngineError(f: () => unknown, code: string, ...fragments: string[]): EngineError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(EngineError);
    const err = e as EngineError;
    expect(err.code).toBe(code);
    for (const s of fragments) expect(err.message).toContain(s);
    return err;
  }
  throw new Error('expected an EngineError');
}

describe('Snapper on a tiny network', () => {
  const { g, snapper } = network();
  const A = nodeOf(g, 1), B = nodeOf(g, 3), C = nodeOf(g, 4);

  it('snaps to the middle of a segment with proportional offsets', () => {
    const s = snapper.snap(45.0001, 7.001);
    expect(s.lat).toBeCloseTo(45, 9);
    expect(s.lon).toBeCloseTo(7.001, 9);
    expect(s.distanceM).toBeCloseTo(0.0001 * M_PER_DEG_LAT, 3);
    expect(s.fraction).toBeCloseTo(0.5, 9);
    expect(s.segmentT).toBeCloseTo(0.5, 9);
    expect(s.fwdArc).toBeGreaterThanOrEqual(0);
    expect(s.bwdArc).toBeGreaterThanOrEqual(0);
    const T = g.timeMs[s.fwdArc];
    const L = g.lengthCm[s.fwdArc];
    // Leaving the point: toward B along the way, toward A against it; each half the arc (±1 for rounding).
    for (const es of [s.sourceEntries, s.targetEntries]) {
      expect(es.map((e) => e.node).sort()).toEqual([A, B].sort());
      for (const e of es) {
        expect(Math.abs(e.timeMs - T / 2)).toBeLessThanOrEqual(1);
        expect(Math.abs(e.lengthCm - L / 2)).toBeLessThanOrEqual(1);
      }
    }
    expect(s.sourceEntries.find((e) => e.node === B)!.arc).toBe(s.fwdArc);
    expect(s.sourceEntries.find((e) => e.node === A)!.arc).toBe(s.bwdArc);
    expect(g.arcName(s.fwdArc)).toBe('Two Way');
  });

  it('offsets follow the position (a quarter of the way)', () => {
    const s = snapper.snap(44.9999, 7.0005);
    expect(s.fraction).toBeCloseTo(0.25, 6);
    const T = g.timeMs[s.fwdArc];
    const toB = s.sourceEntries.find((e) => e.node === B)!;
    const toA = s.sourceEntries.find((e) => e.node === A)!;
    expect(toB.timeMs).toBe(Math.round(T * (1 - s.fraction)));
    expect(toA.timeMs).toBe(Math.round(T * s.fraction));
  });

  it('respects a oneway: only forward sources, only the tail as target', () => {
    const s = snapper.snap(45.00005, 7.003);
    expect(s.fwdArc).toBeGreaterThanOrEqual(0);
    expect(s.bwdArc).toBe(-1);
    expect(s.sourceEntries.map((e) => e.node)).toEqual([C]);
    expect(s.targetEntries.map((e) => e.node)).toEqual([B]);
    expect(g.arcName(s.fwdArc)).toBe('One Way');
  });

  it('sameArcDirect follows the allowed direction', () => {
    const a = snapper.snap(45.0001, 7.0025);
    const b = snapper.snap(45.0001, 7.0035);
    const d = snapper.sameArcDirect(a, b)!;
    expect(d).not.toBeNull();
    expect(d.timeMs).toBe(Math.round(g.timeMs[a.fwdArc] * (b.fraction - a.fraction)));
    expect(Math.abs(d.lengthCm - g.lengthCm[a.fwdArc] * 0.5)).toBeLessThanOrEqual(1);
    expect(snapper.sameArcDirect(b, a)).toBeNull(); // against the oneway
    const p = snapper.snap(45.0001, 7.0015);
    const q = snapper.snap(45.0001, 7.0005);
    const back = snapper.sameArcDirect(p, q)!;
    expect(back.arc).toBe(p.bwdArc);
    expect(Math.abs(back.timeMs - g.timeMs[p.bwdArc] * 0.5)).toBeLessThanOrEqual(1);
    expect(snapper.sameArcDirect(a, q)).toBeNull(); // different edges
  });

  it('open roads first: a tunnel under the point loses to an open road within the margin, keeps it beyond; covered/layer/underground count too', () => {
    // an open street 50 m north of a tunnel (and of the point above it), another 150 m south of a second tunnel
    const dy = (m: number) => m / M_PER_DEG_LAT;
    for (const tags of [{ tunnel: 'yes' }, { covered: 'yes' }, { layer: '-1' }, { location: 'underground' }, { tunnel: 'building_passage' }] as Record<string, string>[]) {
      const osm = new OsmElements()
        .node(1, 45, 7).node(2, 45, 7.004).node(3, 45 + dy(50), 7).node(4, 45 + dy(50), 7.004)
        .node(5, 45.01, 7).node(6, 45.01, 7.004).node(7, 45.01 - dy(150), 7).node(8, 45.01 - dy(150), 7.004)
        .way(1, [1, 2], { highway: 'primary', name: 'Under', ...tags })
        .way(2, [3, 4], { highway: 'residential', name: 'Open' })
        .way(3, [1, 3], { highway: 'residential', name: 'Link' })
        .way(4, [5, 6], { highway: 'primary', name: 'Deep', ...tags })
        .way(5, [7, 8], { highway: 'residential', name: 'Far' })
        .way(6, [5, 7], { highway: 'residential', name: 'Link2' })
        .way(7, [3, 7], { highway: 'residential', name: 'Link3' });
      const { graph } = buildRoadGraph(osm);
      const sn = Snapper.build(graph);
      const name = (s: { edge: number }) => graph.string(graph.edgeNameId[s.edge]);
      const above = sn.snap(45 + dy(2), 7.002);
      expect(name(above), JSON.stringify(tags)).toBe('Open');
      expect(above.distanceM).toBeCloseTo(48, 0);
      expect(name(sn.snap(45 + dy(2), 7.002, { surfaceFirst: false }))).toBe('Under');
      expect(name(sn.snap(45 + dy(2), 7.002, { surfaceMarginM: 40 }))).toBe('Under');
      expect(name(sn.snap(45.01 - dy(2), 7.002))).toBe('Deep'); // the open road is 148 m farther
      expect(name(sn.snap(45, 7.002))).toBe('Under'); // on the covered road itself: it stays
    }
  });

  it('nothing within the radius → NoSegment naming the place and distances', () => {
    const lat = 45 - 1800 / M_PER_DEG_LAT;
    const err = expectEngineError(() => snapper.snap(lat, 7, { path: 'Locations[2].LatLong' }), 'NoSegment', 'is 1.8 km from the nearest road; the limit is 1 km', `(${Math.round(lat * 1e6) / 1e6}, 7)`);
    expect(err.path).toBe('Locations[2].LatLong');
    expect(err.message).not.toContain('swapped');
    expect(snapper.trySnap(lat, 7)).toBeNull();
    expect(snapper.snap(lat, 7, { radiusM: 2000 }).distanceM).toBeCloseTo(1800, 0);
    const wide = Snapper.build(g, { radiusM: 2500 });
    expect(wide.snap(lat, 7).edge).toBeGreaterThanOrEqual(0);
    expectEngineError(() => snapper.snap(45.0001, 7.001, { radiusM: 5 }), 'NoSegment', 'is 11 m from the nearest road; the limit is 5 m');
  });

  it('says when the coordinates look swapped', () => {
    const err = expectEngineError(() => snapper.snap(7.001, 45.0001), 'NoSegment', 'look swapped', '(45.0001, 7.001)');
    expect(err.details).toMatchObject({ swapped: true });
  });

  it('invalid coordinates → InvalidInput naming the value', () => {
    expectEngineError(() => snapper.snap(NaN, 7), 'InvalidInput', 'Latitude NaN');
    expectEngineError(() => snapper.snap(91, 7), 'InvalidInput', 'Latitude 91 is outside -90..90');
    expectEngineError(() => snapper.snap(45, -181), 'InvalidInput', 'Longitude -181 is outside -180..180');
    expectEngineError(() => snapper.snap(45, Infinity), 'InvalidInput', 'Longitude Infinity');
    expectEngineError(() => snapper.trySnap(45, 7, { radiusM: -1 }), 'InvalidInput', 'radius');
  });

  it('formats distances', () => {
    expect(fmtDistance(350.4)).toBe('350 m');
    expect(fmtDistance(1000)).toBe('1 km');
    expect(fmtDistance(1840)).toBe('1.8 km');
    expect(fmtDistance(1_234_567)).toBe('1,235 km');
  });
});

describe('Snapper on Monaco', () => {
  const { graph: g } = buildRoadGraph(readFileSync(fixture('monaco-latest.osm.pbf')));
  const snapper = Snapper.build(g);
  const bb = snapper.bbox();

  function bruteForce(lat: number, lon: number): number {
    let best = Infinity;
    for (let p = 0; p < g.geomLat.length - 1; p++) {
      // Segments never cross from one edge to the next.
      if (isEdgeEnd(p)) continue;
      const r = projectOnSegment(lat, lon, g.geomLat[p], g.geomLon[p], g.geomLat[p + 1], g.geomLon[p + 1]);
      if (r.dist < best) best = r.dist;
    }
    return best;
  }
  const edgeEnd = new Uint8Array(g.geomLat.length);
  for (let e = 0; e < g.numEdges; e++) edgeEnd[g.edgeGeomStart[e + 1] - 1] = 1;
  const isEdgeEnd = (p: number) => edgeEnd[p] === 1;

  it('property: candidates() are every edge within the radius (brute force), one each at its nearest point, nearest first', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(20, 60, 150), (u, v, radius) => {
        const lat = bb.minLat + u * (bb.maxLat - bb.minLat);
        const lon = bb.minLon + v * (bb.maxLon - bb.minLon);
        const want = new Map<number, number>();
        for (let e = 0; e < g.numEdges; e++) {
          for (let p = g.edgeGeomStart[e]; p < g.edgeGeomStart[e + 1] - 1; p++) {
            const d = projectOnSegment(lat, lon, g.geomLat[p], g.geomLon[p], g.geomLat[p + 1], g.geomLon[p + 1]).dist;
            if (d <= radius - 1e-6 && d < (want.get(e) ?? Infinity)) want.set(e, d);
          }
        }
        const got = snapper.candidates(lat, lon, radius, 1000);
        for (let i = 1; i < got.length; i++) expect(got[i].distanceM).toBeGreaterThanOrEqual(got[i - 1].distanceM);
        expect(new Set(got.map((c) => c.edge)).size).toBe(got.length);
        for (const [e, d] of want) {
          const c = got.find((x) => x.edge === e);
          expect(c, `edge ${e} at ${d} m`).toBeDefined();
          expect(Math.abs(c!.distanceM - d)).toBeLessThanOrEqual(1e-6 * Math.max(1, d));
        }
        const first = snapper.trySnap(lat, lon, { radiusM: radius, surfaceFirst: false });
        if (first) expect(got[0].distanceM).toBeCloseTo(first.distanceM, 6);
        expect(snapper.candidates(lat, lon, radius, 2).length).toBe(Math.min(2, got.length));
      }),
      { seed: 20261126, numRuns: 60 },
    );
  });

  it('property: the snap distance is the brute-force minimum over all segments', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (u, v) => {
        const lat = bb.minLat + u * (bb.maxLat - bb.minLat);
        const lon = bb.minLon + v * (bb.maxLon - bb.minLon);
        const want = bruteForce(lat, lon);
        const got = snapper.nearestDistanceM(lat, lon);
        expect(Math.abs(got - want)).toBeLessThanOrEqual(1e-6 * Math.max(1, want));
        const s = snapper.trySnap(lat, lon, { radiusM: Infinity, surfaceFirst: false })!;
        expect(Math.abs(s.distanceM - want)).toBeLessThanOrEqual(1e-6 * Math.max(1, want));
        // The snapped point is on its edge, and the reported distance is to it.
        expect(haversine(lat, lon, s.lat, s.lon)).toBeCloseTo(s.distanceM, 0);
      }),
      { seed: 20260322, numRuns: 150 },
    );
  });

  it('property: open roads first — the nearest road unless it is covered and an open one is at most SURFACE_MARGIN_M farther (brute force)', () => {
    const openBrute = (lat: number, lon: number): number => {
      let best = Infinity;
      for (let e = 0; e < g.numEdges; e++) {
        if (g.edgeFlags[e] & EdgeFlag.Covered) continue;
        for (let p = g.edgeGeomStart[e]; p < g.edgeGeomStart[e + 1] - 1; p++) {
          const r = projectOnSegment(lat, lon, g.geomLat[p], g.geomLon[p], g.geomLat[p + 1], g.geomLon[p + 1]);
          if (r.dist < best) best = r.dist;
        }
      }
      return best;
    };
    // points near covered roads, where the rule matters
    const covered: number[] = [];
    for (let e = 0; e < g.numEdges; e++) if (g.edgeFlags[e] & EdgeFlag.Covered) covered.push(e);
    expect(covered.length).toBeGreaterThan(50);
    let moved = 0;
    fc.assert(
      fc.property(fc.nat(covered.length - 1), fc.double({ min: -8e-4, max: 8e-4, noNaN: true }), fc.double({ min: -8e-4, max: 8e-4, noNaN: true }), (k, dy, dx) => {
        const p = g.edgeGeomStart[covered[k]];
        const lat = g.geomLat[p] + dy, lon = g.geomLon[p] + dx;
        const nearest = bruteForce(lat, lon);
        const open = openBrute(lat, lon);
        const s = snapper.trySnap(lat, lon, { radiusM: Infinity })!;
        const isCovered = (g.edgeFlags[s.edge] & EdgeFlag.Covered) !== 0;
        if (nearest > ON_ROAD_M && open <= nearest + SURFACE_MARGIN_M) {
          expect(isCovered).toBe(false);
          expect(Math.abs(s.distanceM - open)).toBeLessThanOrEqual(1e-6 * Math.max(1, open));
          if (open > nearest + 1e-6) moved++;
        } else {
          // the nearest road (a covered one, unless an open one is as near: a portal, a junction)
          expect(Math.abs(s.distanceM - nearest)).toBeLessThanOrEqual(1e-6 * Math.max(1, nearest));
          if (open > nearest + 1e-6) expect(isCovered).toBe(true);
        }
      }),
      { seed: 20261126, numRuns: 200 },
    );
    expect(moved).toBeGreaterThan(5); // the rule did change snaps
  });

  it("the page's default depot on Monaco's Rock snaps to a road in the open, not into the tunnel under it", () => {
    const plain = snapper.trySnap(43.7314, 7.42, { surfaceFirst: false })!;
    expect(g.string(g.edgeNameId[plain.edge])).toBe('Tunnel Rocher Palais');
    const s = snapper.trySnap(43.7314, 7.42)!;
    expect(g.edgeFlags[s.edge] & EdgeFlag.Covered).toBe(0);
    expect(g.string(g.edgeNameId[s.edge])).toBe('Avenue de la Porte Neuve');
    expect(s.distanceM).toBeLessThan(100);
  });

  it('entries match the arcs: sources are heads, targets are tails, offsets add up to the arc cost', () => {
    let checked = 0;
    for (let i = 0; i < 300; i++) {
      const lat = bb.minLat + ((i * 7919) % 1000) / 1000 * (bb.maxLat - bb.minLat);
      const lon = bb.minLon + ((i * 104729) % 997) / 997 * (bb.maxLon - bb.minLon);
      const s = snapper.trySnap(lat, lon);
      if (!s) continue;
      checked++;
      for (const e of s.sourceEntries) expect(g.head[e.arc]).toBe(e.node);
      for (const e of s.targetEntries) expect(g.tail[e.arc]).toBe(e.node);
      for (const se of s.sourceEntries) {
        const te = s.targetEntries.find((t) => t.arc === se.arc);
        if (te) expect(Math.abs(se.timeMs + te.timeMs - g.timeMs[se.arc])).toBeLessThanOrEqual(1);
      }
      expect(s.sourceEntries.length + s.targetEntries.length).toBeGreaterThan(0);
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('items of any number of segments give the very snaps of one item per segment (points anywhere, on nodes, on vertices)', () => {
    expect(snapper.chunk).toBe(SNAP_CHUNK);
    const single = Snapper.build(g, { chunk: 1 });
    expect(single.chunkEdge.length).toBe(g.edgeGeomStart[g.numEdges] - g.numEdges);
    expect(snapper.chunkEdge.length).toBeLessThan(single.chunkEdge.length / 2);
    const others = [snapper, Snapper.build(g, { chunk: 3 }), Snapper.build(g, { chunk: 64 })];
    const rng = new Rng(26);
    const pts: [number, number][] = [];
    for (let i = 0; i < 300; i++) pts.push([bb.minLat + rng.next() * (bb.maxLat - bb.minLat), bb.minLon + rng.next() * (bb.maxLon - bb.minLon)]);
    for (let i = 0; i < 150; i++) { const v = rng.int(g.numNodes); pts.push([g.lat[v], g.lon[v]]); }
    for (let i = 0; i < 150; i++) { const p = rng.int(g.geomLat.length); pts.push([g.geomLat[p], g.geomLon[p]]); }
    for (const [lat, lon] of pts) {
      const want = single.trySnap(lat, lon);
      const wantAny = single.trySnap(lat, lon, { surfaceFirst: false });
      const wantCands = single.candidates(lat, lon, 150, 6);
      for (const o of others) {
        expect(o.trySnap(lat, lon)).toEqual(want);
        expect(o.trySnap(lat, lon, { surfaceFirst: false })).toEqual(wantAny);
        expect(o.candidates(lat, lon, 150, 6)).toEqual(wantCands);
      }
    }
    expect(() => Snapper.build(g, { chunk: 0 })).toThrow(/chunk/);
  });

  it('a snap index whose items do not cover the road graph is refused (DatasetFormat)', () => {
    const w = new BinWriter(0x4b44, 1);
    g.toSections(w, 'graph.');
    snapper.toSections(w, 'snap.');
    const f = BinFile.from(w.toBuffer(true));
    const points = f.get('snap.chunkPoint', Uint32Array);
    const c = points.findIndex((p, i) => i > 0 && snapper.chunkEdge[i] === snapper.chunkEdge[i - 1]);
    expect(c).toBeGreaterThan(0);
    const damaged = (mutate: (a: Uint32Array) => void) => {
      const w2 = new BinWriter(0x4b44, 1);
      g.toSections(w2, 'graph.');
      const copy = new Uint32Array(points);
      mutate(copy);
      w2.add('snap.meta', f.get('snap.meta', Float64Array)).add('snap.chunkEdge', f.get('snap.chunkEdge', Uint32Array)).add('snap.chunkPoint', copy).add('snap.rtree', f.get('snap.rtree', Uint8Array));
      const f2 = BinFile.from(w2.toBuffer(true));
      return () => Snapper.fromSections(f2, 'snap.', RoadGraph.fromSections(f2, 'graph.'));
    };
    expect(damaged(() => {})().chunkEdge.length).toBe(snapper.chunkEdge.length);
    expect(damaged((a) => { a[c] += 1; })).toThrow(/Snap index does not match the road graph/);
    expect(damaged((a) => { a[c] = a[c - 1]; })).toThrow(/Snap index does not match the road graph/);
    expect(damaged((a) => { a[a.length - 1] = g.geomLat.length + 5; })).toThrow(/Snap index does not match the road graph/);
  });

  it('persists: sections round trip gives identical arrays and snaps', () => {
    const w = new BinWriter(0x4b44, 1);
    g.toSections(w, 'graph.');
    snapper.toSections(w, 'snap.');
    const f = BinFile.from(w.toBuffer(true));
    const g2 = RoadGraph.fromSections(f, 'graph.');
    const s2 = Snapper.fromSections(f, 'snap.', g2);
    for (const k of ['firstOut', 'head', 'tail', 'timeMs', 'lengthCm', 'arcEdge', 'lat', 'lon', 'nodeOsmId', 'edgeGeomStart', 'geomLat', 'geomLon',
      'edgeNameId', 'edgeRefId', 'edgeFlags', 'edgeClass', 'edgeWayId', 'edgeArcStart', 'edgeArcs', 'strOffsets', 'strBytes'] as const) {
      expect(Array.from(g2[k] as ArrayLike<number>), k).toEqual(Array.from(g[k] as ArrayLike<number>));
    }
    expect(g2.numNodes).toBe(g.numNodes);
    expect(g2.arcName(0)).toBe(g.arcName(0));
    expect(s2.bbox()).toEqual(snapper.bbox());
    for (let i = 0; i < 50; i++) {
      const lat = bb.minLat + (i / 50) * (bb.maxLat - bb.minLat);
      const lon = bb.minLon + (((i * 37) % 50) / 50) * (bb.maxLon - bb.minLon);
      expect(s2.trySnap(lat, lon)).toEqual(snapper.trySnap(lat, lon));
    }
  });
});
