/**
 * The geocoder's spatial indexes (reverse geocoding): address points in a kdbush k-d tree
 * (float32 coordinates, exact distances from the index's own float64 coordinates), street and
 * range segments in a flatbush R-tree (float32 boxes rounded outwards, with the item of each box).
 * Each index is one section of bytes, reopened in place (core/spatial.ts). They replaced the
 * sparse 0.005° grids of index format v1: same answers, several times faster (bench/README.md,
 * "Spatial indexes").
 */
import Flatbush from 'flatbush';
import KDBush from 'kdbush';
import { EngineError } from '../core/errors.js';
import { f32Down, f32Up, F32_SLACK_DEG, flatbushView, indexBytes, kdbushView, NearestWalk, nearestPoint } from '../core/spatial.js';
import type { SectionReader, Sections } from './sections.js';

/** Result of a nearest query: the item (-1 when none) and its distance (Infinity when none). */
export interface Nearest {
  item: number;
  dist: number;
}

const NONE: Nearest = Object.freeze({ item: -1, dist: Infinity }) as Nearest;

/** Points 0, 1, 2, … added in item order; written as `<name>.kd` (a kdbush index). */
export class PointIndexBuilder {
  private readonly xy: number[] = [];

  add(item: number, lat: number, lon: number): void {
    if (item !== this.xy.length / 2) throw new EngineError('Internal', `Point index items must be added in order (got ${item}, expected ${this.xy.length / 2}).`);
    this.xy.push(lon, lat);
  }

  write(m: Sections, name: string): void {
    const n = this.xy.length / 2;
    const kd = new KDBush(n, 64, Float32Array);
    for (let i = 0; i < n; i++) kd.add(this.xy[2 * i], this.xy[2 * i + 1]);
    kd.finish();
    m.set(`${name}.kd`, indexBytes(kd));
  }
}

/** Reads a {@link PointIndexBuilder}'s index. */
export class PointIndex {
  private readonly kd: KDBush;

  constructor(r: SectionReader, name: string) {
    this.kd = kdbushView(r.get(`${name}.kd`, Uint8Array), `Geocode point index "${name}"`);
  }

  get size(): number {
    return this.kd.numItems;
  }

  /**
   * The item minimising `dist` (metres; at least the flat distance to the point) among those
   * nearer than `maxDist` (strictly), ties to the lower item.
   */
  nearest(lat: number, lon: number, maxDist: number, dist: (item: number) => number): Nearest {
    return nearestPoint(this.kd, lat, lon, maxDist, dist, F32_SLACK_DEG);
  }
}

/**
 * Points and segments (boxes) under item numbers of the caller's (any order, each once); written
 * as `<name>.fb` (a flatbush index; empty when there are no items) and `<name>.id` (the item of
 * each box).
 */
export class SegmentIndexBuilder {
  private readonly boxes: number[] = [];
  private readonly items: number[] = [];

  addPoint(item: number, lat: number, lon: number): void {
    this.addBox(item, lat, lon, lat, lon);
  }

  addBox(item: number, minLat: number, minLon: number, maxLat: number, maxLon: number): void {
    this.boxes.push(f32Down(minLon), f32Down(minLat), f32Up(maxLon), f32Up(maxLat));
    this.items.push(item);
  }

  write(m: Sections, name: string): void {
    const n = this.items.length;
    let bytes: Uint8Array = new Uint8Array(0);
    if (n > 0) {
      const fb = new Flatbush(n, 16, Float32Array);
      const b = this.boxes;
      for (let i = 0; i < n; i++) fb.add(b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]);
      fb.finish();
      bytes = indexBytes(fb);
    }
    m.set(`${name}.fb`, bytes);
    m.set(`${name}.id`, Uint32Array.from(this.items));
  }
}

/** Reads a {@link SegmentIndexBuilder}'s index. A reusable query: it owns its search heap (one per thread). */
export class SegmentIndex {
  private readonly walk: NearestWalk | null;
  private readonly ids: Uint32Array;

  constructor(r: SectionReader, name: string) {
    const bytes = r.get(`${name}.fb`, Uint8Array);
    this.ids = r.get(`${name}.id`, Uint32Array);
    let fb: Flatbush | null = null;
    if (bytes.byteLength > 0) fb = flatbushView(bytes, `Geocode segment index "${name}"`);
    if ((fb?.numItems ?? 0) !== this.ids.length) throw new EngineError('DatasetFormat', `Geocode segment index "${name}" holds ${fb?.numItems ?? 0} boxes for ${this.ids.length} items.`);
    this.walk = fb === null ? null : new NearestWalk(fb);
  }

  get size(): number {
    return this.ids.length;
  }

  /**
   * The item minimising `dist` (metres; at least the flat distance to the item's box) among those
   * nearer than `maxDist` (strictly), ties to the lower box (boxes are numbered in the order they
   * were added).
   */
  nearest(lat: number, lon: number, maxDist: number, dist: (item: number) => number): Nearest {
    if (this.walk === null) return NONE;
    const ids = this.ids;
    const r = this.walk.nearest(lat, lon, maxDist, (k) => dist(ids[k]));
    return r.item < 0 ? NONE : { item: ids[r.item], dist: r.dist };
  }
}
