/** route/zones.ts: polygon checks, point in polygon, stop eligibility, blocked arcs on a tiny network. */
import { describe, expect, it } from 'vitest';
import { buildRoadGraph } from '../../src/graph/build.js';
import { OsmElements } from '../../src/osm/xml.js';
import { allowedAt, blockedArcs, checkPolygon, pointInPolygon, type Zone } from '../../src/route/zones.js';

const sq = (a: number, b: number, c: number, d: number) => [{ lat: a, lon: b }, { lat: a, lon: d }, { lat: c, lon: d }, { lat: c, lon: b }];

describe('polygons', () => {
  it('checkPolygon', () => {
    expect(checkPolygon(sq(0, 0, 1, 1))).toBeNull();
    expect(checkPolygon([...sq(0, 0, 1, 1), { lat: 0, lon: 0 }])).toBeNull(); // closed ring
    expect(checkPolygon(sq(0, 0, 1, 1).slice(0, 2))).toMatch(/at least 3 distinct points \(got 2\)/);
    expect(checkPolygon([{ lat: 0, lon: 0 }, { lat: 1, lon: 1 }, { lat: 2, lon: 2 }])).toMatch(/no area/);
    const [a, b, c, d] = sq(0, 0, 1, 1);
    expect(checkPolygon([a, c, b, d])).toMatch(/edges 1 and 3 cross/);
    expect(checkPolygon([{ lat: 95, lon: 0 }, b, c])).toMatch(/point 1 is not a valid/);
  });
  it('pointInPolygon, concave, boundary', () => {
    const L = [{ lat: 0, lon: 0 }, { lat: 0, lon: 2 }, { lat: 1, lon: 2 }, { lat: 1, lon: 1 }, { lat: 2, lon: 1 }, { lat: 2, lon: 0 }];
    expect(pointInPolygon(0.5, 0.5, L)).toBe(true);
    expect(pointInPolygon(1.5, 1.5, L)).toBe(false); // the notch
    expect(pointInPolygon(0, 1, L)).toBe(true); // on an edge
    expect(pointInPolygon(3, 3, L)).toBe(false);
  });
  it('allowedAt', () => {
    const zones: Zone[] = [{ points: sq(0, 0, 1, 1), restriction: 'DoNotEnter' }, { points: sq(-5, -5, 5, 5), restriction: 'DoNotExit' }];
    expect(allowedAt(0.5, 0.5, zones)).toBe(false);
    expect(allowedAt(2, 2, zones)).toBe(true);
    expect(allowedAt(6, 6, zones)).toBe(false);
  });
});

describe('blockedArcs', () => {
  // A road west → east at lat 45 from lon 7.000 to 7.010 in one straight segment, and another road 0.01° north.
  const U = 0.001;
  const osm = new OsmElements()
    .node(1, 45, 7).node(2, 45, 7 + 10 * U).node(3, 45 + 10 * U, 7).node(4, 45 + 10 * U, 7 + 10 * U)
    .way(10, [1, 2], { highway: 'residential' }).way(11, [3, 4], { highway: 'residential' }).way(12, [1, 3], { highway: 'residential' });
  const { graph: g } = buildRoadGraph(osm, { largestSccOnly: false });
  const edgeBlocked = (b: Uint8Array, wayId: number) => {
    for (let a = 0; a < g.numArcs; a++) if (g.edgeWayId[g.arcEdge[a] >>> 1] === wayId) return b[a] === 1;
    throw new Error('no arc');
  };
  it('DoNotEnter blocks a road crossing the zone even with no vertex inside; others are free', () => {
    const z: Zone = { points: sq(45 - 2 * U, 7 + 4 * U, 45 + 2 * U, 7 + 6 * U), restriction: 'DoNotEnter' };
    const b = blockedArcs(g, [z]);
    expect(edgeBlocked(b, 10)).toBe(true);
    expect(edgeBlocked(b, 11)).toBe(false);
    expect(edgeBlocked(b, 12)).toBe(false);
  });
  it('DoNotExit blocks roads leaving the zone or outside it', () => {
    const z: Zone = { points: sq(45 - U, 7 - U, 45 + U, 7 + 11 * U), restriction: 'DoNotExit' };
    const b = blockedArcs(g, [z]);
    expect(edgeBlocked(b, 10)).toBe(false);
    expect(edgeBlocked(b, 11)).toBe(true);
    expect(edgeBlocked(b, 12)).toBe(true);
  });
});
