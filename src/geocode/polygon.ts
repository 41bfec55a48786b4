/**
 * Build-time polygons (administrative and postal-code boundaries): rings assembled from the
 * relation's member ways by joining shared end nodes, and point-in-polygon tests accelerated by
 * horizontal strips (each strip lists the edges that cross it), so a test costs O(edges in one
 * strip) rather than O(all edges).
 */

export interface Ring {
  lat: Float64Array;
  lon: Float64Array;
}

/** Joins way node-id sequences into closed rings; chains that do not close are dropped. */
export function assembleRings(ways: { ids: number[]; lat: number[]; lon: number[] }[]): Ring[] {
  const pending = ways.filter((w) => w.ids.length >= 2).map((w) => ({ ids: w.ids.slice(), lat: w.lat.slice(), lon: w.lon.slice() }));
  const rings: Ring[] = [];
  while (pending.length > 0) {
    const cur = pending.shift()!;
    let progress = true;
    while (cur.ids[0] !== cur.ids[cur.ids.length - 1] && progress) {
      progress = false;
      const end = cur.ids[cur.ids.length - 1];
      for (let k = 0; k < pending.length; k++) {
        const w = pending[k];
        let add: typeof w | null = null;
        if (w.ids[0] === end) add = w;
        else if (w.ids[w.ids.length - 1] === end) add = { ids: w.ids.slice().reverse(), lat: w.lat.slice().reverse(), lon: w.lon.slice().reverse() };
        if (add) {
          for (let i = 1; i < add.ids.length; i++) {
            cur.ids.push(add.ids[i]);
            cur.lat.push(add.lat[i]);
            cur.lon.push(add.lon[i]);
          }
          pending.splice(k, 1);
          progress = true;
          break;
        }
      }
    }
    // Only closed rings count: a boundary cut by the extract's edge would otherwise be closed by a
    // straight line and swallow its neighbours.
    const closed = cur.ids[0] === cur.ids[cur.ids.length - 1];
    if (closed && cur.lat.length >= 4) rings.push({ lat: Float64Array.from(cur.lat), lon: Float64Array.from(cur.lon) });
  }
  return rings;
}

/** Signed area (degrees², lon as x) and centroid of a ring. */
export function ringAreaCentroid(r: Ring): { area: number; lat: number; lon: number } {
  let a = 0;
  let cx = 0;
  let cy = 0;
  const n = r.lat.length;
  const x0 = r.lon[0];
  const y0 = r.lat[0];
  for (let i = 0; i < n; i++) {
    const j = (i + 1) % n;
    const xi = r.lon[i] - x0, yi = r.lat[i] - y0, xj = r.lon[j] - x0, yj = r.lat[j] - y0;
    const f = xi * yj - xj * yi;
    a += f;
    cx += (xi + xj) * f;
    cy += (yi + yj) * f;
  }
  a /= 2;
  if (Math.abs(a) < 1e-14) {
    let sx = 0, sy = 0;
    for (let i = 0; i < n; i++) { sx += r.lon[i]; sy += r.lat[i]; }
    return { area: 0, lat: sy / n, lon: sx / n };
  }
  return { area: a, lat: y0 + cy / (6 * a), lon: x0 + cx / (6 * a) };
}

const STRIPS = 64;

/** A polygon (outer rings minus inner rings, even-odd rule over all rings) with a strip index. */
export class Polygon {
  readonly minLat: number;
  readonly maxLat: number;
  readonly minLon: number;
  readonly maxLon: number;
  /** Edges as flat [lat1, lon1, lat2, lon2] per edge. */
  private readonly edges: Float64Array;
  private readonly stripOff: Uint32Array;
  private readonly stripEdges: Uint32Array;
  readonly area: number;
  readonly centroid: { lat: number; lon: number };

  constructor(rings: Ring[]) {
    let minLat = Infinity, maxLat = -Infinity, minLon = Infinity, maxLon = -Infinity;
    let ne = 0;
    for (const r of rings) {
      ne += r.lat.length;
      for (let i = 0; i < r.lat.length; i++) {
        if (r.lat[i] < minLat) minLat = r.lat[i];
        if (r.lat[i] > maxLat) maxLat = r.lat[i];
        if (r.lon[i] < minLon) minLon = r.lon[i];
        if (r.lon[i] > maxLon) maxLon = r.lon[i];
      }
    }
    this.minLat = minLat; this.maxLat = maxLat; this.minLon = minLon; this.maxLon = maxLon;
    const edges = new Float64Array(ne * 4);
    let k = 0;
    let area = 0, cx = 0, cy = 0;
    for (const r of rings) {
      const n = r.lat.length;
      for (let i = 0; i < n; i++) {
        const j = (i + 1) % n;
        edges[k++] = r.lat[i]; edges[k++] = r.lon[i]; edges[k++] = r.lat[j]; edges[k++] = r.lon[j];
      }
      const ac = ringAreaCentroid(r);
      const w = Math.abs(ac.area);
      area += w; cx += ac.lon * w; cy += ac.lat * w;
    }
    this.edges = edges;
    this.area = area;
    this.centroid = area > 0 ? { lat: cy / area, lon: cx / area } : { lat: (minLat + maxLat) / 2, lon: (minLon + maxLon) / 2 };
    // Strip index.
    const h = (maxLat - minLat) / STRIPS || 1;
    const counts = new Uint32Array(STRIPS + 1);
    const range = (e: number): [number, number] => {
      const a = Math.min(edges[e * 4], edges[e * 4 + 2]);
      const b = Math.max(edges[e * 4], edges[e * 4 + 2]);
      return [Math.max(0, Math.min(STRIPS - 1, Math.floor((a - minLat) / h))), Math.max(0, Math.min(STRIPS - 1, Math.floor((b - minLat) / h)))];
    };
    for (let e = 0; e < ne; e++) { const [s0, s1] = range(e); for (let s = s0; s <= s1; s++) counts[s + 1]++; }
    for (let s = 0; s < STRIPS; s++) counts[s + 1] += counts[s];
    const fill = counts.slice(0, STRIPS);
    const se = new Uint32Array(counts[STRIPS]);
    for (let e = 0; e < ne; e++) { const [s0, s1] = range(e); for (let s = s0; s <= s1; s++) se[fill[s]++] = e; }
    this.stripOff = counts;
    this.stripEdges = se;
  }

  contains(lat: number, lon: number): boolean {
    if (lat < this.minLat || lat > this.maxLat || lon < this.minLon || lon > this.maxLon) return false;
    const h = (this.maxLat - this.minLat) / STRIPS || 1;
    const s = Math.max(0, Math.min(STRIPS - 1, Math.floor((lat - this.minLat) / h)));
    let inside = false;
    const E = this.edges;
    for (let k = this.stripOff[s], end = this.stripOff[s + 1]; k < end; k++) {
      const e = this.stripEdges[k] * 4;
      const y1 = E[e], x1 = E[e + 1], y2 = E[e + 2], x2 = E[e + 3];
      if ((y1 > lat) !== (y2 > lat)) {
        const x = x1 + ((lat - y1) / (y2 - y1)) * (x2 - x1);
        if (lon < x) inside = !inside;
      }
    }
    return inside;
  }
}
