/**
 * The landmark layer of a dataset: named points of interest a driver can see from the road
 * (fuel stations, churches, schools, hospitals, supermarkets, town halls, monuments, …), kept
 * compact — coordinates, a kind number and a name per point, sorted into a grid of
 * {@link CELL_DEG} cells — so that directions can say "Landmark: Igreja da Lapa" near a maneuver.
 *
 * Taken from OSM nodes with a `name` and one of the tags in {@link kindOf}; areas (buildings
 * tagged as a school, a church) are not read (they would need every node's coordinates kept
 * during the build), so a landmark mapped only as an area is missing.
 *
 * Persisted as `poi.*` sections (optional: datasets built before the layer have none).
 */
import { lowerBound } from '../core/sorted.js';
import type { BinFile, BinWriter } from '../core/binfile.js';
import type { OsmPbfFile, Tags } from '../osm/pbf.js';
import type { Landmark } from '../route/maneuver-types.js';
import type { LandmarkFinder } from '../route/maneuvers.js';

/** Landmark kinds, by kind number (the OSM tag value, as catalogs translate it). */
export const POI_KINDS = [
  'fuel', 'place_of_worship', 'church', 'school', 'hospital', 'pharmacy', 'supermarket', 'restaurant', 'cafe',
  'bank', 'post_office', 'police', 'fire_station', 'hotel', 'parking', 'bus_station', 'townhall', 'museum',
  'marketplace', 'fountain', 'monument', 'park', 'stadium', 'university', 'library', 'cinema', 'theatre',
  'shop', 'attraction', 'viewpoint', 'memorial',
] as const;
const KIND_ID = new Map<string, number>(POI_KINDS.map((k, i) => [k, i]));
/**
 * Everyday kinds (shops, cafés, banks, car parks, …) are everywhere in a city centre: they count
 * as landmarks only when {@link MINOR_FACTOR} times closer, so that a church 80 m away wins over a
 * shop 40 m away and a maneuver is not described by whichever shop is nearest.
 */
const MINOR_KINDS = new Set(['shop', 'restaurant', 'cafe', 'bank', 'pharmacy', 'parking', 'post_office', 'hotel']);
export const MINOR_FACTOR = 2.5;
const KIND_FACTOR = Float64Array.from(POI_KINDS, (k) => (MINOR_KINDS.has(k) ? MINOR_FACTOR : 1));

const AMENITY = new Set(['fuel', 'school', 'hospital', 'pharmacy', 'restaurant', 'cafe', 'bank', 'post_office', 'police', 'fire_station', 'parking', 'bus_station', 'townhall', 'marketplace', 'fountain', 'university', 'library', 'cinema', 'theatre']);
const TOURISM = new Set(['hotel', 'museum', 'attraction', 'viewpoint']);
const HISTORIC = new Set(['monument', 'memorial']);
const LEISURE = new Set(['park', 'stadium']);

/** The landmark kind of a tagged node, or null when it is not one. */
export function kindOf(tags: Tags): string | null {
  const a = tags.amenity;
  if (a === 'place_of_worship') return tags.religion === 'christian' ? 'church' : 'place_of_worship';
  if (a !== undefined && AMENITY.has(a)) return a;
  const s = tags.shop;
  if (s !== undefined) return s === 'supermarket' ? 'supermarket' : 'shop';
  if (tags.tourism !== undefined && TOURISM.has(tags.tourism)) return tags.tourism;
  if (tags.historic !== undefined && HISTORIC.has(tags.historic)) return tags.historic;
  if (tags.leisure !== undefined && LEISURE.has(tags.leisure)) return tags.leisure;
  return null;
}

/** Grid cell size in degrees (about 200 m of latitude). */
export const CELL_DEG = 0.002;
const cellOf = (lat: number, lon: number) => Math.floor((lat + 90) / CELL_DEG) * 200000 + Math.floor((lon + 180) / CELL_DEG);

const utf8d = new TextDecoder();
const utf8e = new TextEncoder();

export class PoiLayer implements LandmarkFinder {
  private names: (string | undefined)[];

  private constructor(
    /** Sorted cell keys of the points, point-aligned. */
    readonly cell: Float64Array,
    readonly lat: Float64Array,
    readonly lon: Float64Array,
    readonly kind: Uint8Array,
    readonly nameStart: Uint32Array,
    readonly nameBytes: Uint8Array,
  ) {
    this.names = new Array(lat.length);
  }

  get size(): number {
    return this.lat.length;
  }

  name(i: number): string {
    let s = this.names[i];
    if (s === undefined) s = this.names[i] = utf8d.decode(this.nameBytes.subarray(this.nameStart[i], this.nameStart[i + 1]));
    return s;
  }

  /**
   * The best landmark near a point: the least distance × kind factor ({@link MINOR_FACTOR} for
   * everyday kinds, else 1) within `radiusM` (ties: the lower index), or null.
   */
  nearest(lat: number, lon: number, radiusM: number): Landmark | null {
    const n = this.lat.length;
    if (n === 0) return null;
    const kx = Math.cos((lat * Math.PI) / 180) * 111320;
    const ky = 110540;
    const span = Math.ceil(radiusM / (CELL_DEG * Math.min(kx, ky))) ;
    const ci = Math.floor((lat + 90) / CELL_DEG);
    const cj = Math.floor((lon + 180) / CELL_DEG);
    let best = -1;
    let bestD = radiusM;
    for (let di = -span; di <= span; di++) {
      const lo = (ci + di) * 200000 + cj - span;
      const hi = (ci + di) * 200000 + cj + span;
      for (let k = lowerBound(this.cell, lo); k < n && this.cell[k] <= hi; k++) {
        const d = Math.hypot((this.lat[k] - lat) * ky, (this.lon[k] - lon) * kx) * KIND_FACTOR[this.kind[k]];
        if (d <= bestD && (d < bestD || best < 0 || k < best)) {
          best = k;
          bestD = d;
        }
      }
    }
    if (best < 0) return null;
    const distanceM = Math.round(Math.hypot((this.lat[best] - lat) * ky, (this.lon[best] - lon) * kx));
    return { name: this.name(best), kind: POI_KINDS[this.kind[best]] ?? '', distanceM };
  }

  /** Reads the named landmark nodes of an extract. */
  static fromOsm(osm: OsmPbfFile): PoiLayer {
    const pts: { c: number; lat: number; lon: number; k: number; name: string }[] = [];
    osm.read({
      node(_id, lat, lon, tags) {
        if (!tags || !tags.name) return;
        const kind = kindOf(tags);
        if (kind === null) return;
        pts.push({ c: cellOf(lat, lon), lat, lon, k: KIND_ID.get(kind)!, name: tags.name });
      },
    }, { phase: 'landmarks' });
    pts.sort((x, y) => x.c - y.c || x.lat - y.lat || x.lon - y.lon);
    const n = pts.length;
    const enc = pts.map((p) => utf8e.encode(p.name));
    const nameStart = new Uint32Array(n + 1);
    for (let i = 0; i < n; i++) nameStart[i + 1] = nameStart[i] + enc[i].length;
    const nameBytes = new Uint8Array(nameStart[n]);
    enc.forEach((b, i) => nameBytes.set(b, nameStart[i]));
    return new PoiLayer(
      Float64Array.from(pts, (p) => p.c), Float64Array.from(pts, (p) => p.lat), Float64Array.from(pts, (p) => p.lon),
      Uint8Array.from(pts, (p) => p.k), nameStart, nameBytes,
    );
  }

  toSections(w: BinWriter, prefix: string): void {
    w.add(`${prefix}cell`, this.cell).add(`${prefix}lat`, this.lat).add(`${prefix}lon`, this.lon)
      .add(`${prefix}kind`, this.kind).add(`${prefix}nameStart`, this.nameStart).add(`${prefix}nameBytes`, this.nameBytes);
  }

  static has(f: BinFile, prefix: string): boolean {
    return f.has(`${prefix}cell`);
  }

  static fromSections(f: BinFile, prefix: string): PoiLayer {
    const l = new PoiLayer(
      f.get(`${prefix}cell`, Float64Array), f.get(`${prefix}lat`, Float64Array), f.get(`${prefix}lon`, Float64Array),
      f.get(`${prefix}kind`, Uint8Array), f.get(`${prefix}nameStart`, Uint32Array), f.get(`${prefix}nameBytes`, Uint8Array),
    );
    const n = l.lat.length;
    if (l.cell.length !== n || l.lon.length !== n || l.kind.length !== n || l.nameStart.length !== n + 1 || l.nameStart[n] !== l.nameBytes.length) {
      throw f.error('the landmark layer is inconsistent (array lengths disagree)', { section: `${prefix}cell` });
    }
    return l;
  }
}

