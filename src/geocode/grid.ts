/**
 * A sparse uniform grid over (lat, lon) for nearest-item queries: only occupied cells are stored
 * (sorted cell keys + CSR item lists), so it costs O(items) whatever the extent of the data.
 * Items are points or boxes (a box is listed in every cell it overlaps). Persisted as typed arrays.
 */
import { metresPerDegree } from '../core/geo.js';
import type { SectionReader, Sections } from './sections.js';

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
