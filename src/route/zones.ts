/**
 * No-go zones for vehicles (Vehicle.Shapes): polygon checks, point-in-polygon, which stops a
 * vehicle may serve, and which arcs of the road graph it may not drive.
 *
 * Geometry is planar in a local frame (longitude scaled by the cosine of the latitude), which is
 * exact enough at city scale; points on a polygon's boundary count as inside.
 *
 * Kernel-level: graph ids and typed arrays; no records.
 */
import type { RoadGraph } from '../graph/road-graph.js';
import { isValidLatLon } from '../core/geo.js';

export interface Zone {
  points: ReadonlyArray<{ lat: number; lon: number }>;
  restriction: 'DoNotEnter' | 'DoNotExit';
}

type Pt = { lat: number; lon: number };

/** The ring without a closing point equal to the first. */
function ring(points: ReadonlyArray<Pt>): Pt[] {
  const r = points.slice();
  while (r.length > 1 && r[0].lat === r[r.length - 1].lat && r[0].lon === r[r.length - 1].lon) r.pop();
  return r;
}

const cross = (ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number => (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);

/** Whether segments ab and cd intersect or touch (planar). */
function segmentsMeet(ax: number, ay: number, bx: number, by: number, cx: number, cy: number, dx: number, dy: number): boolean {
  const d1 = cross(cx, cy, dx, dy, ax, ay);
  const d2 = cross(cx, cy, dx, dy, bx, by);
  const d3 = cross(ax, ay, bx, by, cx, cy);
  const d4 = cross(ax, ay, bx, by, dx, dy);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  const on = (px: number, py: number, qx: number, qy: number, rx: number, ry: number) =>
    Math.min(px, qx) <= rx && rx <= Math.max(px, qx) && Math.min(py, qy) <= ry && ry <= Math.max(py, qy);
  return (d1 === 0 && on(cx, cy, dx, dy, ax, ay)) || (d2 === 0 && on(cx, cy, dx, dy, bx, by))
    || (d3 === 0 && on(ax, ay, bx, by, cx, cy)) || (d4 === 0 && on(ax, ay, bx, by, dx, dy));
}

/**
 * Null when the polygon is usable, else why not: fewer than 3 distinct points (a closing point
 * equal to the first is ignored), a coordinate off the globe, no area, or two non-adjacent edges
 * that cross or touch ("edges 1 and 3 cross", 1-based).
 */
export function checkPolygon(points: ReadonlyArray<Pt>): string | null {
  for (let i = 0; i < points.length; i++) {
    const p = points[i];
    if (!p || !isValidLatLon(p.lat, p.lon)) return `point ${i + 1} is not a valid latitude/longitude`;
  }
  const r = ring(points);
  const distinct = new Set(r.map((p) => `${p.lat},${p.lon}`)).size;
  if (distinct < 3) return `a polygon needs at least 3 distinct points (got ${distinct})`;
  if (distinct < r.length) return 'a point appears twice';
  const k = Math.cos((r[0].lat * Math.PI) / 180);
  const x = r.map((p) => p.lon * k);
  const y = r.map((p) => p.lat);
  const n = r.length;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      if (j === i + 1 || (i === 0 && j === n - 1)) continue; // adjacent edges share a point
      const i2 = (i + 1) % n, j2 = (j + 1) % n;
      if (segmentsMeet(x[i], y[i], x[i2], y[i2], x[j], y[j], x[j2], y[j2])) return `the polygon intersects itself (edges ${i + 1} and ${j + 1} cross)`;
    }
  }
  let area = 0;
  for (let i = 0; i < n; i++) { const j = (i + 1) % n; area += x[i] * y[j] - x[j] * y[i]; }
  if (Math.abs(area) < 1e-14) return 'the polygon has no area (its points are on one line)';
  return null;
}

/** Point in polygon (even-odd rule); points on the boundary count as inside. */
export function pointInPolygon(lat: number, lon: number, points: ReadonlyArray<Pt>): boolean {
  const r = ring(points);
  const n = r.length;
  if (n < 3) return false;
  let inside = false;
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const a = r[i], b = r[j];
    // on the edge?
    if (Math.min(a.lat, b.lat) <= lat && lat <= Math.max(a.lat, b.lat) && Math.min(a.lon, b.lon) <= lon && lon <= Math.max(a.lon, b.lon)
      && Math.abs((b.lon - a.lon) * (lat - a.lat) - (b.lat - a.lat) * (lon - a.lon)) <= 1e-12) return true;
    if ((a.lat > lat) !== (b.lat > lat) && lon < ((b.lon - a.lon) * (lat - a.lat)) / (b.lat - a.lat) + a.lon) inside = !inside;
  }
  return inside;
}

/** Whether a stop at (lat, lon) may be served: inside no DoNotEnter zone and inside every DoNotExit zone. */
export function allowedAt(lat: number, lon: number, zones: readonly Zone[]): boolean {
  for (const z of zones) {
    const inside = pointInPolygon(lat, lon, z.points);
    if (z.restriction === 'DoNotEnter' ? inside : !inside) return false;
  }
  return true;
}

/**
 * The arcs a vehicle with these zones may not drive (1 = blocked), one byte per arc. An edge is
 * blocked by a DoNotEnter zone when a point of its polyline lies inside or one of its segments
 * crosses the zone's boundary, and by a DoNotExit zone when a point lies outside or a segment
 * crosses the boundary; both arcs of a blocked edge are blocked. Edges whose bounding box misses
 * a DoNotEnter zone's box are skipped without further tests.
 */
export function blockedArcs(graph: RoadGraph, zones: readonly Zone[]): Uint8Array {
  const g = graph;
  const out = new Uint8Array(g.numArcs);
  const E = g.numEdges;
  const blockedEdge = new Uint8Array(E);
  for (const z of zones) {
    const r = ring(z.points);
    const n = r.length;
    if (n < 3) continue;
    let minLa = Infinity, maxLa = -Infinity, minLo = Infinity, maxLo = -Infinity;
    for (const p of r) { minLa = Math.min(minLa, p.lat); maxLa = Math.max(maxLa, p.lat); minLo = Math.min(minLo, p.lon); maxLo = Math.max(maxLo, p.lon); }
    const k = Math.cos((((minLa + maxLa) / 2) * Math.PI) / 180);
    const zx = Float64Array.from(r, (p) => p.lon * k);
    const zy = Float64Array.from(r, (p) => p.lat);
    const enter = z.restriction === 'DoNotEnter';
    for (let e = 0; e < E; e++) {
      if (blockedEdge[e]) continue;
      const s = g.edgeGeomStart[e], t = g.edgeGeomStart[e + 1];
      let eMinLa = Infinity, eMaxLa = -Infinity, eMinLo = Infinity, eMaxLo = -Infinity;
      for (let q = s; q < t; q++) {
        const la = g.geomLat[q], lo = g.geomLon[q];
        if (la < eMinLa) eMinLa = la; if (la > eMaxLa) eMaxLa = la;
        if (lo < eMinLo) eMinLo = lo; if (lo > eMaxLo) eMaxLo = lo;
      }
      const boxesMeet = !(eMaxLa < minLa || eMinLa > maxLa || eMaxLo < minLo || eMinLo > maxLo);
      if (!boxesMeet) {
        if (!enter) blockedEdge[e] = 1; // wholly outside a DoNotExit zone
        continue;
      }
      let hit = false;
      for (let q = s; q < t && !hit; q++) {
        const inside = pointInPolygon(g.geomLat[q], g.geomLon[q], r);
        if (enter ? inside : !inside) hit = true;
      }
      for (let q = s; q + 1 < t && !hit; q++) {
        const ax = g.geomLon[q] * k, ay = g.geomLat[q], bx = g.geomLon[q + 1] * k, by = g.geomLat[q + 1];
        for (let i = 0; i < n && !hit; i++) {
          const j = (i + 1) % n;
          if (segmentsMeet(ax, ay, bx, by, zx[i], zy[i], zx[j], zy[j])) hit = true;
        }
      }
      if (hit) blockedEdge[e] = 1;
    }
  }
  for (let e = 0; e < E; e++) {
    if (!blockedEdge[e]) continue;
    for (let i = g.edgeArcStart[e]; i < g.edgeArcStart[e + 1]; i++) out[g.edgeArcs[i]] = 1;
  }
  return out;
}
