/**
 * The hand-written spatial indexes before issue #26, kept here as bench/spatial.ts's baselines
 * (the library indexes replaced them): the geocoder's grid (src/geocode/grid.ts, index format v1)
 * and, below, the renderer's edge grid (src/render/map.ts).
 *
 * A sparse uniform grid over (lat, lon) for nearest-item queries: only occupied cells are stored
 * (sorted cell keys + CSR item lists), so it costs O(items) whatever the extent of the data.
 * Items are points or boxes (a box is listed in every cell it overlaps). Persisted as typed arrays.
 */
import { metresPerDegree } from '../../src/core/geo.js';
import type { SectionReader, Sections } from '../../src/geocode/sections.js';

const ROW_SHIFT = 40000;
const COL_SHIFT = 80000;
const COLS = 200000;

function cellKey(row: number, col: number): number {
  return (row + ROW_SHIFT) * COLS + (col + COL_SHIFT);
}

export class GridBuilder {
  private readonly pairs: number[] = []; // key, item interleaved
  constructor(readonly cellDeg: number) {}

  addPoint(item: number, lat: number, lon: number): void {
    this.pairs.push(cellKey(Math.floor(lat / this.cellDeg), Math.floor(lon / this.cellDeg)), item);
  }

  addBox(item: number, minLat: number, minLon: number, maxLat: number, maxLon: number): void {
    const r0 = Math.floor(minLat / this.cellDeg);
    const r1 = Math.floor(maxLat / this.cellDeg);
    const c0 = Math.floor(minLon / this.cellDeg);
    const c1 = Math.floor(maxLon / this.cellDeg);
    for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) this.pairs.push(cellKey(r, c), item);
  }

  write(m: Sections, name: string): void {
    const n = this.pairs.length / 2;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    const p = this.pairs;
    order.sort((a, b) => p[2 * a] - p[2 * b] || p[2 * a + 1] - p[2 * b + 1]);
    const keys: number[] = [];
    const offs: number[] = [];
    const items = new Uint32Array(n);
    for (let k = 0; k < n; k++) {
      const key = p[2 * order[k]];
      if (k === 0 || key !== p[2 * order[k - 1]]) {
        keys.push(key);
        offs.push(k);
      }
      items[k] = p[2 * order[k] + 1];
    }
    offs.push(n);
    m.set(`${name}.k`, Float64Array.from(keys));
    m.set(`${name}.o`, Uint32Array.from(offs));
    m.set(`${name}.i`, items);
    m.set(`${name}.c`, Float64Array.of(this.cellDeg));
  }
}

export class Grid {
  private readonly keys: Float64Array;
  private readonly offs: Uint32Array;
  private readonly items: Uint32Array;
  readonly cellDeg: number;
  private stamp: Uint32Array = new Uint32Array(0);
  private epoch = 0;

  constructor(r: SectionReader, name: string) {
    this.keys = r.get(`${name}.k`, Float64Array);
    this.offs = r.get(`${name}.o`, Uint32Array);
    this.items = r.get(`${name}.i`, Uint32Array);
    this.cellDeg = r.get(`${name}.c`, Float64Array)[0];
  }

  private cell(row: number, col: number): number {
    const key = cellKey(row, col);
    let lo = 0;
    let hi = this.keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.keys[mid];
      if (v < key) lo = mid + 1;
      else if (v > key) hi = mid - 1;
      else return mid;
    }
    return -1;
  }

  /**
   * Visits items in rings of cells around (lat, lon) and returns the item minimising `dist`
   * (metres), or -1 when none is within `maxDist`. `itemCount` sizes the dedupe stamps.
   */
  nearest(lat: number, lon: number, maxDist: number, itemCount: number, dist: (item: number) => number): { item: number; dist: number } {
    if (this.stamp.length < itemCount) this.stamp = new Uint32Array(itemCount);
    this.epoch = (this.epoch + 1) >>> 0;
    if (this.epoch === 0) { this.stamp.fill(0); this.epoch = 1; }
    const { kx, ky } = metresPerDegree(lat);
    const cellM = this.cellDeg * Math.min(kx, ky);
    const row0 = Math.floor(lat / this.cellDeg);
    const col0 = Math.floor(lon / this.cellDeg);
    let best = -1;
    let bestD = maxDist;
    const maxRing = Math.min(2000, Math.ceil(maxDist / Math.max(1, cellM)) + 1);
    for (let r = 0; r <= maxRing; r++) {
      if (r >= 1 && (r - 1) * cellM > bestD) break;
      for (let dr = -r; dr <= r; dr++) {
        const edge = dr === -r || dr === r;
        for (let dc = -r; dc <= r; dc += edge ? 1 : 2 * r) {
          const c = this.cell(row0 + dr, col0 + dc);
          if (c >= 0) {
            for (let k = this.offs[c], e = this.offs[c + 1]; k < e; k++) {
              const it = this.items[k];
              if (this.stamp[it] === this.epoch) continue;
              this.stamp[it] = this.epoch;
              const d = dist(it);
              if (d < bestD || (d === bestD && best >= 0 && it < best)) {
                bestD = d;
                best = it;
              }
            }
          }
          if (r === 0) break;
        }
      }
    }
    return { item: best, dist: best >= 0 ? bestD : Infinity };
  }

  /** Calls `fn` once for every item in the cells within `radius` metres of (lat, lon). */
  within(lat: number, lon: number, radius: number, itemCount: number, fn: (item: number) => void): void {
    if (this.stamp.length < itemCount) this.stamp = new Uint32Array(itemCount);
    this.epoch = (this.epoch + 1) >>> 0;
    if (this.epoch === 0) { this.stamp.fill(0); this.epoch = 1; }
    const { kx, ky } = metresPerDegree(lat);
    const dLat = radius / ky;
    const dLon = radius / Math.max(1, kx);
    const r0 = Math.floor((lat - dLat) / this.cellDeg);
    const r1 = Math.floor((lat + dLat) / this.cellDeg);
    const c0 = Math.floor((lon - dLon) / this.cellDeg);
    const c1 = Math.floor((lon + dLon) / this.cellDeg);
    if ((r1 - r0 + 1) * (c1 - c0 + 1) > 1e6) return;
    for (let r = r0; r <= r1; r++) {
      for (let c = c0; c <= c1; c++) {
        const cell = this.cell(r, c);
        if (cell < 0) continue;
        for (let k = this.offs[cell], e = this.offs[cell + 1]; k < e; k++) {
          const it = this.items[k];
          if (this.stamp[it] === this.epoch) continue;
          this.stamp[it] = this.epoch;
          fn(it);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The renderer's lazy grid over the road graph's edges (src/render/map.ts before issue #26): a
// uniform grid of about two edges per cell over the edges' padded float32 web-mercator boxes.

export interface EdgeGridBaseline {
  box: Float32Array;
  gx0: number;
  gy0: number;
  cell: number;
  nx: number;
  ny: number;
  cellStart: Uint32Array;
  cellEdges: Uint32Array;
  mark: Uint8Array;
  byteLength: number;
}

interface EdgeGraph {
  numEdges: number;
  edgeGeomStart: Uint32Array;
  geomLat: Float64Array;
  geomLon: Float64Array;
}

export function buildEdgeGridBaseline(g: EdgeGraph, mercY: (lat: number) => number, pad: number): EdgeGridBaseline {
  const E = g.numEdges;
  const gs = g.edgeGeomStart;
  const la = g.geomLat;
  const lo = g.geomLon;
  const box = new Float32Array(4 * E);
  let gx0 = Infinity, gy0 = Infinity, gx1 = -Infinity, gy1 = -Infinity;
  for (let e = 0; e < E; e++) {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (let i = gs[e], t = gs[e + 1]; i < t; i++) {
      const x = (lo[i] + 180) / 360;
      const y = mercY(la[i]);
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
    box[4 * e] = x0 - pad;
    box[4 * e + 1] = y0 - pad;
    box[4 * e + 2] = x1 + pad;
    box[4 * e + 3] = y1 + pad;
    if (x0 < gx0) gx0 = x0;
    if (y0 < gy0) gy0 = y0;
    if (x1 > gx1) gx1 = x1;
    if (y1 > gy1) gy1 = y1;
  }
  if (E === 0) gx0 = gy0 = gx1 = gy1 = 0;
  const w = Math.max(gx1 - gx0, 1e-9);
  const h = Math.max(gy1 - gy0, 1e-9);
  let cell = Math.sqrt((w * h) / Math.max(1, E / 2));
  cell = Math.max(cell, w / 2048, h / 2048);
  const nx = Math.max(1, Math.min(2048, Math.ceil(w / cell)));
  const ny = Math.max(1, Math.min(2048, Math.ceil(h / cell)));
  const cellOf = (v: number, v0: number, n: number) => {
    const c = Math.floor((v - v0) / cell);
    return c < 0 ? 0 : c >= n ? n - 1 : c;
  };
  const cellStart = new Uint32Array(nx * ny + 1);
  const eachCell = (visit: (c: number, e: number) => void) => {
    for (let e = 0; e < E; e++) {
      const cx0 = cellOf(box[4 * e], gx0, nx), cx1 = cellOf(box[4 * e + 2], gx0, nx);
      const cy0 = cellOf(box[4 * e + 1], gy0, ny), cy1 = cellOf(box[4 * e + 3], gy0, ny);
      for (let cy = cy0; cy <= cy1; cy++) for (let cx = cx0; cx <= cx1; cx++) visit(cy * nx + cx, e);
    }
  };
  eachCell((c) => cellStart[c + 1]++);
  for (let c = 0; c < nx * ny; c++) cellStart[c + 1] += cellStart[c];
  const cellEdges = new Uint32Array(cellStart[nx * ny]);
  const fill = cellStart.slice(0, nx * ny);
  eachCell((c, e) => (cellEdges[fill[c]++] = e));
  return { box, gx0, gy0, cell, nx, ny, cellStart, cellEdges, mark: new Uint8Array(E), byteLength: box.byteLength + cellStart.byteLength + cellEdges.byteLength };
}

/** The edges whose box meets the view, into `out` (returns how many), as the renderer's selection visited them. */
export function selectBaseline(grid: EdgeGridBaseline, qx0: number, qy0: number, qx1: number, qy1: number, keep: (e: number) => boolean, out: Uint32Array): number {
  const { box, mark, cellStart, cellEdges, nx, ny, cell, gx0, gy0 } = grid;
  const cx0 = Math.max(0, Math.floor((qx0 - gx0) / cell)), cx1 = Math.min(nx - 1, Math.floor((qx1 - gx0) / cell));
  const cy0 = Math.max(0, Math.floor((qy0 - gy0) / cell)), cy1 = Math.min(ny - 1, Math.floor((qy1 - gy0) / cell));
  let ns = 0;
  for (let cy = cy0; cy <= cy1; cy++) {
    for (let cx = cx0; cx <= cx1; cx++) {
      const c = cy * nx + cx;
      for (let k = cellStart[c], kt = cellStart[c + 1]; k < kt; k++) {
        const e = cellEdges[k];
        if (mark[e] !== 0) continue;
        if (!keep(e)) continue;
        const b = 4 * e;
        if (box[b] > qx1 || box[b + 2] < qx0 || box[b + 1] > qy1 || box[b + 3] < qy0) continue;
        mark[e] = 1;
        out[ns++] = e;
      }
    }
  }
  for (let i = 0; i < ns; i++) mark[out[i]] = 0;
  return ns;
}
