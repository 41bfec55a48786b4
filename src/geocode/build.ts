/**
 * Geocode index build: OSM extract (+ optional TIGER ranges) → the typed-array sections of a
 * {@link GeocodeIndex}. {@link buildGeocodeIndexWithStats} runs these stages in order, each a
 * named function below:
 *
 * 1. `collectPlaces`: place nodes/areas and administrative boundaries (point-in-polygon) into a
 *    `PlaceTable`, which later also matches `addr:city`/`addr:state`/`addr:country` values to a
 *    known place of that name within 30 km, or a synthetic place at the mean of its addresses;
 * 2. `collectAddresses`: every address object gets a *locality set* (containing boundaries,
 *    nearest settlement, nearest suburb/hamlet, its tagged city/state/country) and a postcode
 *    (tagged, else postal boundary: `PostcodeTable`); no street tag → nearest named highway;
 * 3. `clusterStreetWays`: named highways (and TIGER lines) grouped by normalised name and
 *    municipality, then clustered by proximity (ways ≤ 200 m apart);
 * 4. `assignAddressStreets`: each address joins the nearest cluster of its street name (≤ 1 km),
 *    else a street made of addresses only;
 * 5. `collectRanges`: OSM interpolation ways and TIGER rows as ranges on their streets;
 * 6. `orderStreets`, 7. `buildStreetGeometry`: streets sorted by key; per street, chains (ways
 *    joined at shared end nodes) and a representative point;
 * 8.–13. typed tables: `buildAddressTable` (addresses sorted by number with their projection —
 *    measure, side offset — on the chains), `buildRangeTable`, `buildStreetAttributes`,
 *    `buildPostcodeTable`, `buildPlaceSections`, `buildNameSections` (keys, phonetic order);
 * 14. `assembleSections`: the section map, with trigram tables and spatial indexes.
 */
import type { OsmPbfFile } from '../osm/pbf.js';
import { throwIfAborted, type LongWorkOptions } from '../core/cancel.js';
import { haversine, metresPerDegree } from '../core/geo.js';
import { EngineError } from '../core/errors.js';
import { extractOsm, type RawAddress, type RawLine, type RawOsm, type RawPlace, type RawStreetWay } from './extract.js';
import { analyzeName, countryKey, placeKey, postcodeKey, phonetic, stateKey, type NameKey } from './normalize.js';
import { splitHouseNumbers, cleanStreetName } from './parse.js';
import { Polygon, assembleRings } from './polygon.js';
import { parseTigerCsv, type TigerRange } from './tiger.js';
import { projectOnLine, lineLength, pointAtMeasure, type Line } from './interpolate.js';
import { StringPoolBuilder, type Sections } from './sections.js';
import { buildTrigramSections } from './fuzzy.js';
import { PointIndexBuilder, SegmentIndexBuilder } from './spatial.js';
import { polylineBox } from '../core/spatial.js';
import { COUNTRY_ALIAS } from './dict.js';
import { GeocodeIndex, FORMAT_VERSION, PlaceRank, DIR_CODES, RangeSource, streetChunkEnd } from './geocode-index.js';

export interface GeocodeBuildOptions extends LongWorkOptions {
  /** Text of a TIGER-style address-range CSV (see tiger.ts). */
  tigerCsv?: string;
  /** Address objects to leave out of the index, as 'n<id>', 'w<id>', 'r<id>' (the benchmark's held-out set). */
  exclude?: ReadonlySet<string>;
}

export interface GeocodeBuildStats {
  addresses: number;
  streets: number;
  names: number;
  places: number;
  postcodes: number;
  ranges: number;
  tigerSkipped: number;
  ms: number;
}

// ----------------------------------------------------------------------------- small helpers

function streetKeyOf(k: NameKey): string {
  return `${k.core.join(' ')}|${k.typeCanon}|${k.predir}|${k.postdir}`;
}

function placeRankOf(p: RawPlace): number {
  if (p.kind === 'admin') {
    const l = p.level;
    return l <= 2 ? PlaceRank.Country : l <= 4 ? PlaceRank.State : l <= 6 ? PlaceRank.County : l <= 8 ? PlaceRank.City : PlaceRank.Suburb;
  }
  switch (p.kind) {
    case 'country': return PlaceRank.Country;
    case 'state': case 'province': case 'region': return PlaceRank.State;
    case 'county': return PlaceRank.County;
    case 'city': case 'town': case 'municipality': return PlaceRank.City;
    case 'village': case 'suburb': case 'borough': case 'quarter': return PlaceRank.Suburb;
    default: return PlaceRank.Hamlet;
  }
}

/** Settlement search radius by place kind (nearest-place assignment of addresses). */
function settlementRadius(kind: string): number {
  switch (kind) {
    case 'city': return 15000;
    case 'town': return 6000;
    case 'municipality': return 6000;
    case 'village': return 2500;
    case 'suburb': case 'borough': case 'quarter': return 1500;
    default: return 1000;
  }
}

/** Administrative-name variants users type: "Stadt Feldkirch" → "Feldkirch", "Buchs (SG)" → "Buchs", "A/B" → A, B. */
function nameVariants(names: string[]): string[] {
  const out: string[] = [];
  const push = (s: string) => { const t = s.trim(); if (t.length > 0 && !out.includes(t)) out.push(t); };
  for (const n of names) {
    push(n);
    push(n.replace(/\s*\([^)]*\)\s*/g, ' '));
    if (n.includes('/')) for (const p of n.split('/')) push(p);
    const m = /^(stadt|marktgemeinde|gemeinde|markt|landeshauptstadt|ville de|ville d'|commune de|comune di|municipio de|municipality of|city of|town of|village of|township of|bezirk|kanton|canton de|canton|region)\s+(.+)$/i.exec(n);
    if (m) push(m[2]);
  }
  return out;
}

class UnionFind {
  private readonly p: Int32Array;
  constructor(n: number) { this.p = new Int32Array(n); for (let i = 0; i < n; i++) this.p[i] = i; }
  find(x: number): number { while (this.p[x] !== x) { this.p[x] = this.p[this.p[x]]; x = this.p[x]; } return x; }
  union(a: number, b: number): void { const ra = this.find(a), rb = this.find(b); if (ra !== rb) this.p[Math.max(ra, rb)] = Math.min(ra, rb); }
}

interface BBox { minLat: number; maxLat: number; minLon: number; maxLon: number }

function bboxOf(lat: ArrayLike<number>, lon: ArrayLike<number>): BBox {
  let minLat = Infinity, maxLat = -Infinity, minLon = Infinity, maxLon = -Infinity;
  for (let i = 0; i < lat.length; i++) {
    if (lat[i] < minLat) minLat = lat[i];
    if (lat[i] > maxLat) maxLat = lat[i];
    if (lon[i] < minLon) minLon = lon[i];
    if (lon[i] > maxLon) maxLon = lon[i];
  }
  return { minLat, maxLat, minLon, maxLon };
}

/** Lower bound of the distance in metres between a point and a box. */
function pointBoxDist(lat: number, lon: number, b: BBox): number {
  const { kx, ky } = metresPerDegree(lat);
  const dy = lat < b.minLat ? b.minLat - lat : lat > b.maxLat ? lat - b.maxLat : 0;
  const dx = lon < b.minLon ? b.minLon - lon : lon > b.maxLon ? lon - b.maxLon : 0;
  return Math.sqrt((dx * kx) ** 2 + (dy * ky) ** 2);
}

function boxBoxDist(a: BBox, b: BBox): number {
  const lat = (a.minLat + a.maxLat) / 2;
  const { kx, ky } = metresPerDegree(lat);
  const dy = Math.max(0, a.minLat - b.maxLat, b.minLat - a.maxLat);
  const dx = Math.max(0, a.minLon - b.maxLon, b.minLon - a.maxLon);
  return Math.sqrt((dx * kx) ** 2 + (dy * ky) ** 2);
}

function lineOf(l: { lat: number[]; lon: number[] }): Line {
  return { lat: l.lat, lon: l.lon, start: 0, end: l.lat.length };
}

// ----------------------------------------------------------------------------- records of the build

interface PlaceRec {
  names: string[];
  display: string;
  rank: number;
  kind: string;
  lat: number;
  lon: number;
  poly: Polygon | null;
  synthetic: boolean;
  /** For synthetic places: sums for the mean position. */
  sx: number; sy: number; sn: number;
}

interface StreetWayRec {
  /** index into raw streets, or −1 − index into TIGER ranges */
  src: number;
  lat: number[];
  lon: number[];
  nodeIds: number[];
  box: BBox;
  name: string;
  /** WayClass bits (0 for TIGER lines) */
  cls: number;
}

interface Cluster {
  key: string;
  nameKey: NameKey;
  displayVotes: Map<string, number>;
  ways: StreetWayRec[];
  tigerLines: StreetWayRec[];
  box: BBox;
  locality: number;
  addrs: number[];
  ranges: number[];
}

interface AddrRec {
  raw: RawAddress;
  hnText: string;
  num: number;
  suffix: string;
  postcode: number; // postcode table index or −1
  locSet: number[];
  street: number; // cluster id
}

interface RangeRec {
  from: number;
  to: number;
  step: number;
  lat: number[];
  lon: number[];
  postcode: number;
  src: number;
  street: number;
  streetKey: string;
  nameKey: NameKey;
  display: string;
  locSet: number[];
}

interface PostalPolygon { poly: Polygon; code: string }

// ----------------------------------------------------------------------------- places

/**
 * Every place of the index (admin boundaries, place nodes/areas, synthetic `addr:city`-style
 * places) with the lookups the build asks of them: containing boundaries, the municipality, the
 * nearest settlement or suburb, a place by name near a point, and an object's locality set.
 * Synthetic places are appended by {@link placeFor} while addresses and ranges are read, so ids
 * depend on the order of those calls.
 */
class PlaceTable {
  readonly list: PlaceRec[] = [];
  /** Normalised name key → place ids (first-seen order). */
  readonly byKey = new Map<string, number[]>();
  /** Admin boundaries, innermost first (set by {@link index}). */
  private adminIds: number[] = [];
  private settlements = new Set<number>();
  private subs = new Set<number>();
  /** 0.1° cells → settlement and suburb ids. */
  private readonly grid = new Map<string, number[]>();
  /** Settlement/suburb id → the municipality (admin boundary of city rank) it lies in, −1 none. */
  private readonly placeMuni = new Map<number, number>();

  private addKey(key: string, id: number): void {
    if (!key) return;
    const l = this.byKey.get(key);
    if (l) { if (!l.includes(id)) l.push(id); } else this.byKey.set(key, [id]);
  }

  /** Appends a place and files its names under their keys; returns its id. */
  add(p: Omit<PlaceRec, 'sx' | 'sy' | 'sn'>): number {
    const id = this.list.length;
    this.list.push({ ...p, sx: 0, sy: 0, sn: 0 });
    for (const n of p.names) this.addKey(p.rank === PlaceRank.State ? stateKey(n) : p.rank === PlaceRank.Country ? countryKey(n) : placeKey(n), id);
    if (p.rank === PlaceRank.State || p.rank === PlaceRank.Country) for (const n of p.names) this.addKey(placeKey(n), id);
    return id;
  }

  /**
   * Freezes the spatial lookups once boundaries and place nodes are in: admin boundaries sorted
   * innermost first, the settlement/suburb grid, and each settlement's municipality (a nearest
   * place node is only credited to an address of the same municipality: no "neighbour village"
   * leakage).
   */
  index(adminIds: number[], settlementIds: number[], subIds: number[]): void {
    const places = this.list;
    // Innermost first when several boundaries contain a point.
    this.adminIds = adminIds.sort((a, b) => places[b].rank - places[a].rank || places[a].poly!.area - places[b].poly!.area || a - b);
    this.settlements = new Set(settlementIds);
    this.subs = new Set(subIds);
    for (const id of [...settlementIds, ...subIds]) {
      const k = `${Math.floor(places[id].lat / 0.1)},${Math.floor(places[id].lon / 0.1)}`;
      const l = this.grid.get(k);
      if (l) l.push(id); else this.grid.set(k, [id]);
    }
    for (const id of [...settlementIds, ...subIds]) this.placeMuni.set(id, this.muniOfAdmins(this.adminAt(places[id].lat, places[id].lon)));
  }

  private nearby(lat: number, lon: number): number[] {
    const out: number[] = [];
    const r0 = Math.floor(lat / 0.1), c0 = Math.floor(lon / 0.1);
    for (let r = r0 - 2; r <= r0 + 2; r++) for (let c = c0 - 2; c <= c0 + 2; c++) { const l = this.grid.get(`${r},${c}`); if (l) out.push(...l); }
    return out;
  }

  /** Containing admin boundaries (innermost first). */
  adminAt(lat: number, lon: number): number[] {
    return this.adminIds.filter((id) => this.list[id].poly!.contains(lat, lon));
  }

  private muniOfAdmins(admins: number[]): number {
    for (const a of admins) if (this.list[a].rank === PlaceRank.City) return a;
    return -1;
  }

  /** The place of `set` nearest to the point relative to its kind's radius, if within `maxRatio` radii; else −1. */
  private nearestOf(lat: number, lon: number, set: Set<number>, maxRatio: number): number {
    let best = -1, bd = Infinity;
    for (const id of this.nearby(lat, lon)) {
      if (!set.has(id)) continue;
      const p = this.list[id];
      const d = haversine(lat, lon, p.lat, p.lon) / settlementRadius(p.kind);
      if (d < bd || (d === bd && id < best)) { bd = d; best = id; }
    }
    return bd <= maxRatio ? best : -1;
  }

  /** The municipality used to group streets: innermost admin ≥ City, else the nearest settlement node. */
  municipalityAt(lat: number, lon: number, admins: number[]): number {
    for (const id of admins) if (this.list[id].rank === PlaceRank.City) return id;
    for (const id of admins) if (this.list[id].rank > PlaceRank.City) return id;
    return this.nearestOf(lat, lon, this.settlements, 1.5);
  }

  /** A named place of `rank`'s class with this key within `radius` m, or a new synthetic one. */
  placeFor(name: string, key: string, rank: number, lat: number, lon: number, radius: number): number {
    if (!key) return -1;
    const cands = this.byKey.get(key) ?? [];
    let best = -1, bd = Infinity;
    for (const id of cands) {
      const p = this.list[id];
      const sameClass = rank === PlaceRank.Country ? p.rank === PlaceRank.Country : rank === PlaceRank.State ? p.rank === PlaceRank.State || p.rank === PlaceRank.County : p.rank >= PlaceRank.County;
      if (!sameClass) continue;
      const d = p.poly && p.poly.contains(lat, lon) ? 0 : p.synthetic && p.sn > 0 ? haversine(lat, lon, p.sy / p.sn, p.sx / p.sn) : haversine(lat, lon, p.lat, p.lon);
      if (d < bd || (d === bd && id < best)) { bd = d; best = id; }
    }
    if (best >= 0 && bd <= radius) return best;
    // a country tagged by its code is shown by its name ("LI" → "Liechtenstein")
    const display = rank === PlaceRank.Country && /^[a-z]{2,3}$/i.test(name.trim()) && COUNTRY_ALIAS.has(name.trim().toLowerCase())
      ? COUNTRY_ALIAS.get(name.trim().toLowerCase())!.replace(/\b\w/g, (c) => c.toUpperCase()) : name;
    return this.add({ names: display === name ? [name] : [name, display], display, rank, kind: 'addr', lat, lon, poly: null, synthetic: true });
  }

  /**
   * The locality set of an object at (lat, lon): its containing boundaries `admins`, the nearest
   * settlement and suburb of the same municipality, and the places its tagged city/state/country
   * name (synthetic ones created here). Sorted ids.
   */
  localitySet(lat: number, lon: number, city: string, state: string, country: string, admins: number[]): number[] {
    const set = new Set<number>(admins);
    const muni = this.muniOfAdmins(admins);
    const s = this.nearestOf(lat, lon, this.settlements, 1);
    if (s >= 0 && (muni < 0 || this.placeMuni.get(s) === muni)) set.add(s);
    const sub = this.nearestOf(lat, lon, this.subs, 1);
    if (sub >= 0 && (muni < 0 || this.placeMuni.get(sub) === muni)) set.add(sub);
    if (city) for (const part of city.split(';')) { const id = this.placeFor(part.trim(), placeKey(part), PlaceRank.City, lat, lon, 30000); if (id >= 0) set.add(id); }
    if (state) { const id = this.placeFor(state, stateKey(state), PlaceRank.State, lat, lon, 500000); if (id >= 0) set.add(id); }
    if (country) { const id = this.placeFor(country, countryKey(country), PlaceRank.Country, lat, lon, 3000000); if (id >= 0) set.add(id); }
    return [...set].sort((a, b) => a - b);
  }
}

/**
 * Stage 1 — places. Takes the extract's boundaries and place nodes/areas; returns the place
 * table (admin boundaries first, in extract order, then place nodes) and the postal-code
 * boundaries, which are not places but give addresses without `addr:postcode` their code.
 */
function collectPlaces(raw: RawOsm): { places: PlaceTable; postalPolys: PostalPolygon[] } {
  const places = new PlaceTable();
  const adminIds: number[] = [];
  const postalPolys: PostalPolygon[] = [];
  for (const b of raw.boundaries) {
    const rings = b.polygonRings!;
    const outer = assembleRings(rings[0].map((l) => ({ ids: l.nodeIds, lat: l.lat, lon: l.lon })));
    const inner = assembleRings(rings[1].map((l) => ({ ids: l.nodeIds, lat: l.lat, lon: l.lon })));
    if (outer.length === 0) continue;
    const poly = new Polygon([...outer, ...inner]);
    if (b.kind === 'postal') {
      if (b.postcode) postalPolys.push({ poly, code: b.postcode });
      continue;
    }
    if (b.level < 2 || b.level > 10) continue;
    let lat = b.lat, lon = b.lon;
    if (!Number.isFinite(lat) || !poly.contains(lat, lon)) { lat = poly.centroid.lat; lon = poly.centroid.lon; }
    const names = nameVariants(b.names);
    adminIds.push(places.add({ names, display: b.names[0] ?? '', rank: placeRankOf(b), kind: `admin${b.level}`, lat, lon, poly, synthetic: false }));
  }
  const settlementIds: number[] = [];
  const subIds: number[] = [];
  for (const p of raw.places) {
    const rank = placeRankOf(p);
    const id = places.add({ names: nameVariants(p.names), display: p.names[0] ?? '', rank, kind: p.kind, lat: p.lat, lon: p.lon, poly: null, synthetic: false });
    if (p.kind === 'city' || p.kind === 'town' || p.kind === 'village' || p.kind === 'municipality') settlementIds.push(id);
    else if (rank >= PlaceRank.Suburb) subIds.push(id);
  }
  places.index(adminIds, settlementIds, subIds);
  return { places, postalPolys };
}

// ----------------------------------------------------------------------------- postcodes

/**
 * Postcodes by normalised key, in first-seen order (renumbered by key at the end): display-form
 * votes, and sums for the centroid and the places holding them. {@link id} counts a display vote
 * on every call, so the order and number of calls shape the output.
 */
class PostcodeTable {
  readonly index = new Map<string, number>();
  readonly display: Map<string, number>[] = [];
  readonly sums: { sx: number; sy: number; n: number; pts: number[]; loc: Map<number, number> }[] = [];

  constructor(readonly postalPolys: PostalPolygon[]) {}

  /** The id of postcode text `s` (created on first use), −1 for an unusable code. */
  id(s: string): number {
    const key = postcodeKey(s);
    if (!key || key.length > 12) return -1;
    let id = this.index.get(key);
    if (id === undefined) {
      id = this.sums.length;
      this.index.set(key, id);
      this.sums.push({ sx: 0, sy: 0, n: 0, pts: [], loc: new Map() });
      this.display.push(new Map());
    }
    const d = this.display[id];
    d.set(s.trim(), (d.get(s.trim()) ?? 0) + 1);
    return id;
  }

  /** The postcode of the first postal boundary containing the point, −1 none. */
  at(lat: number, lon: number): number {
    for (const p of this.postalPolys) if (p.poly.contains(lat, lon)) return this.id(p.code);
    return -1;
  }
}

// ----------------------------------------------------------------------------- nearest named street

/** Named-highway segments on a 0.002° grid: the street of objects without `addr:street` (Nominatim-style parenting). */
class NearestStreetFinder {
  private static readonly CELL = 0.002;
  private readonly grid = new Map<string, number[]>(); // cell → [way index, vertex index] pairs

  constructor(private readonly streets: RawStreetWay[]) {
    const cell = NearestStreetFinder.CELL;
    streets.forEach((w, wi) => {
      for (let i = 0; i + 1 < w.lat.length; i++) {
        const r0 = Math.floor(Math.min(w.lat[i], w.lat[i + 1]) / cell), r1 = Math.floor(Math.max(w.lat[i], w.lat[i + 1]) / cell);
        const c0 = Math.floor(Math.min(w.lon[i], w.lon[i + 1]) / cell), c1 = Math.floor(Math.max(w.lon[i], w.lon[i + 1]) / cell);
        if ((r1 - r0 + 1) * (c1 - c0 + 1) > 400) continue;
        for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) {
          const k = `${r},${c}`;
          const l = this.grid.get(k);
          if (l) l.push(wi, i); else this.grid.set(k, [wi, i]);
        }
      }
    });
  }

  /** Name of the nearest named highway within `maxDist` metres, or ''. */
  nameNear(lat: number, lon: number, maxDist: number): string {
    const cell = NearestStreetFinder.CELL;
    const r0 = Math.floor(lat / cell), c0 = Math.floor(lon / cell);
    let best = '', bd = maxDist;
    for (let r = r0 - 1; r <= r0 + 1; r++) for (let c = c0 - 1; c <= c0 + 1; c++) {
      const l = this.grid.get(`${r},${c}`);
      if (!l) continue;
      for (let k = 0; k < l.length; k += 2) {
        const w = this.streets[l[k]];
        const p = projectOnLine({ lat: w.lat, lon: w.lon, start: l[k + 1], end: l[k + 1] + 2 }, lat, lon);
        if (p.dist < bd || (p.dist === bd && w.name < best)) { bd = p.dist; best = w.name; }
      }
    }
    return best;
  }
}

// ----------------------------------------------------------------------------- addresses

/**
 * Stage 2 — address records. Takes the extract's address objects; returns one record per house
 * number (`12;14` gives two, a range `3-7` one per end) with its locality set and postcode
 * (tagged, else postal boundary). Objects without `addr:street`/`addr:place` take the nearest
 * named highway within 100 m (the raw address is updated and flagged `inferred`). Synthetic
 * places accumulate the positions of their addresses here (their mean is their position).
 */
function collectAddresses(raw: RawOsm, places: PlaceTable, postcodes: PostcodeTable, nearest: NearestStreetFinder): AddrRec[] {
  const addrs: AddrRec[] = [];
  for (const a of raw.addresses) {
    if (!a.street && !a.place) { a.street = nearest.nameNear(a.lat, a.lon, 100); a.inferred = true; }
    const streetName = a.street || a.place;
    if (!streetName) continue;
    const admins = places.adminAt(a.lat, a.lon);
    const loc = places.localitySet(a.lat, a.lon, a.city, a.state, a.country, admins);
    let pc = a.postcode ? postcodes.id(a.postcode.split(';')[0]) : -1;
    if (pc < 0) pc = postcodes.at(a.lat, a.lon);
    for (const h of splitHouseNumbers(a.hn)) {
      const nums = h.to > h.num ? [h.num, h.to] : [h.num];
      for (const num of nums) addrs.push({ raw: a, hnText: h.display, num, suffix: h.to > h.num ? '' : h.suffix, postcode: pc, locSet: loc, street: -1 });
    }
  }
  // Synthetic places sit at the mean of their addresses.
  for (const r of addrs) for (const id of r.locSet) { const p = places.list[id]; if (p.synthetic) { p.sx += r.raw.lon; p.sy += r.raw.lat; p.sn++; } }
  return addrs;
}

// ----------------------------------------------------------------------------- street clusters

/**
 * The streets under construction: clusters of same-named ways of one municipality, plus
 * address-only streets created on demand by {@link clusterFor}.
 */
class StreetClusters {
  readonly list: Cluster[] = [];
  readonly byKey = new Map<string, number[]>();
  /** Street key → its analysed name (first seen). */
  readonly nameKeys = new Map<string, NameKey>();
  /** TIGER range index → its cluster, −1 none. */
  tigerCluster = new Int32Array(0);

  /** Distance from a point to a cluster's ways (else TIGER lines, else box). */
  private distTo(c: Cluster, lat: number, lon: number): number {
    const lines = c.ways.length > 0 ? c.ways : c.tigerLines;
    if (lines.length === 0) return pointBoxDist(lat, lon, c.box);
    let best = Infinity;
    for (const w of lines) {
      if (pointBoxDist(lat, lon, w.box) >= best) continue;
      const p = projectOnLine(lineOf(w), lat, lon);
      if (p.dist < best) best = p.dist;
    }
    return best;
  }

  /**
   * The cluster an object named `rawName` at (lat, lon) belongs to: the nearest cluster of that
   * street key within `maxDist` m (one of another municipality than `muni` counting 400 m
   * farther), else a new address-only street. −1 when the name has no usable key.
   */
  clusterFor(rawName: string, lat: number, lon: number, maxDist: number, muni = -2): number {
    const clusters = this.list;
    const name = cleanStreetName(rawName);
    const nk = analyzeName(name);
    if (nk.coreKey.length === 0 && nk.typeCanon.length === 0) return -1;
    const key = streetKeyOf(nk);
    const cands = this.byKey.get(key) ?? [];
    let best = -1, bd = Infinity;
    for (const id of cands) {
      const c = clusters[id];
      // same-municipality clusters first: a cluster across the town line counts 400 m farther
      const extra = muni !== -2 && c.locality >= 0 && c.locality !== muni ? 400 : 0;
      if (pointBoxDist(lat, lon, c.box) + extra > Math.min(bd, maxDist)) continue;
      const d = this.distTo(c, lat, lon) + extra;
      if (d < bd || (d === bd && id < best)) { bd = d; best = id; }
    }
    if (best >= 0 && bd <= maxDist) {
      const c = clusters[best];
      if (c.ways.length === 0 && c.tigerLines.length === 0) {
        c.box.minLat = Math.min(c.box.minLat, lat); c.box.maxLat = Math.max(c.box.maxLat, lat);
        c.box.minLon = Math.min(c.box.minLon, lon); c.box.maxLon = Math.max(c.box.maxLon, lon);
      }
      c.displayVotes.set(name, (c.displayVotes.get(name) ?? 0) + (c.ways.length === 0 ? 1 : 0));
      return best;
    }
    const id = clusters.length;
    if (!this.nameKeys.has(key)) this.nameKeys.set(key, nk);
    clusters.push({ key, nameKey: this.nameKeys.get(key)!, displayVotes: new Map([[name, 1]]), ways: [], tigerLines: [], box: { minLat: lat, maxLat: lat, minLon: lon, maxLon: lon }, locality: -1, addrs: [], ranges: [] });
    if (cands.length > 0) cands.push(id); else this.byKey.set(key, [id]);
    return id;
  }
}

/**
 * Stage 3 — street clusters. Takes the named highways (each name and alternative name counts as
 * a way of that name) and TIGER lines; groups them by normalised street key and municipality and
 * splits each group into clusters of ways ≤ 200 m apart (groups of > 3000 ways are not joined).
 * Returns the clusters in sorted group order, with each TIGER line's cluster.
 */
function clusterStreetWays(streets: RawStreetWay[], tigerRanges: TigerRange[], places: PlaceTable): StreetClusters {
  const out = new StreetClusters();
  const groups = new Map<string, StreetWayRec[]>();
  const addStreetWay = (rawName: string, w: StreetWayRec) => {
    const name = cleanStreetName(rawName);
    w.name = name;
    const nk = analyzeName(name);
    if (nk.coreKey.length === 0 && nk.typeCanon.length === 0) return;
    const key = streetKeyOf(nk);
    if (!out.nameKeys.has(key)) out.nameKeys.set(key, nk);
    const mid = Math.floor(w.lat.length / 2);
    const admins = places.adminAt(w.lat[mid], w.lon[mid]);
    const g = `${key}@${places.municipalityAt(w.lat[mid], w.lon[mid], admins)}`;
    const l = groups.get(g);
    if (l) l.push(w); else groups.set(g, [w]);
  };
  streets.forEach((s, i) => {
    const rec = { src: i, lat: s.lat, lon: s.lon, nodeIds: s.nodeIds, box: bboxOf(s.lat, s.lon), name: s.name, cls: s.cls };
    addStreetWay(s.name, rec);
    for (const alt of s.altNames) addStreetWay(alt, { ...rec, name: alt });
  });
  tigerRanges.forEach((r, i) => {
    addStreetWay(r.street, { src: -1 - i, lat: r.lat, lon: r.lon, nodeIds: [], box: bboxOf(r.lat, r.lon), name: r.street, cls: 0 });
  });
  out.tigerCluster = new Int32Array(tigerRanges.length).fill(-1);
  for (const g of [...groups.keys()].sort()) {
    const key = g.slice(0, g.lastIndexOf('@'));
    const loc = Number(g.slice(g.lastIndexOf('@') + 1));
    for (const ws of proximityClusters(groups.get(g)!)) {
      const osmWays = ws.filter((w) => w.src >= 0);
      const tigerLines = ws.filter((w) => w.src < 0);
      const box: BBox = { minLat: Infinity, maxLat: -Infinity, minLon: Infinity, maxLon: -Infinity };
      for (const w of ws) { box.minLat = Math.min(box.minLat, w.box.minLat); box.maxLat = Math.max(box.maxLat, w.box.maxLat); box.minLon = Math.min(box.minLon, w.box.minLon); box.maxLon = Math.max(box.maxLon, w.box.maxLon); }
      const votes = new Map<string, number>();
      for (const w of osmWays.length > 0 ? osmWays : tigerLines) votes.set(w.name, (votes.get(w.name) ?? 0) + 1);
      const id = out.list.length;
      out.list.push({ key, nameKey: out.nameKeys.get(key)!, displayVotes: votes, ways: osmWays, tigerLines, box, locality: loc, addrs: [], ranges: [] });
      const l = out.byKey.get(key);
      if (l) l.push(id); else out.byKey.set(key, [id]);
      for (const t of tigerLines) out.tigerCluster[-1 - t.src] = id;
    }
  }
  return out;
}

/** The ways of one name group split into sets whose boxes chain within 200 m (union-find), in order of their first way. */
function proximityClusters(ways: StreetWayRec[]): StreetWayRec[][] {
  const uf = new UnionFind(ways.length);
  if (ways.length <= 3000) {
    for (let a = 0; a < ways.length; a++) for (let b = a + 1; b < ways.length; b++) if (boxBoxDist(ways[a].box, ways[b].box) <= 200) uf.union(a, b);
  }
  const byRoot = new Map<number, StreetWayRec[]>();
  for (let a = 0; a < ways.length; a++) { const r = uf.find(a); const l = byRoot.get(r); if (l) l.push(ways[a]); else byRoot.set(r, [ways[a]]); }
  return [...byRoot.values()];
}

/**
 * Stage 4 — addresses join streets. Each address takes the nearest cluster of its street name
 * within 1 km (clusters of another municipality 400 m farther), else a new address-only street;
 * sets `AddrRec.street` and fills the clusters' address lists.
 */
function assignAddressStreets(addrs: AddrRec[], streets: StreetClusters, places: PlaceTable): void {
  for (let i = 0; i < addrs.length; i++) {
    const a = addrs[i];
    const c = streets.clusterFor(a.raw.street || a.raw.place, a.raw.lat, a.raw.lon, 1000, places.municipalityAt(a.raw.lat, a.raw.lon, places.adminAt(a.raw.lat, a.raw.lon)));
    a.street = c;
    if (c >= 0) streets.list[c].addrs.push(i);
  }
}

// ----------------------------------------------------------------------------- ranges

/**
 * Stage 5 — interpolation ranges. OSM `addr:interpolation` ways give one range between every two
 * consecutive numbered nodes (street from the way, its end nodes, else the nearest highway within
 * 150 m; joined to the nearest cluster of that name within 500 m); TIGER rows give one range on
 * the cluster their line joined, with a locality set from their city/state. Returns the ranges
 * (OSM first) and fills the clusters' range lists.
 */
function collectRanges(raw: RawOsm, tigerRanges: TigerRange[], streets: StreetClusters, places: PlaceTable, postcodes: PostcodeTable, nearest: NearestStreetFinder): RangeRec[] {
  const ranges: RangeRec[] = [];
  for (const ip of raw.interpolations) {
    const numbered: { k: number; num: number; street: string; postcode: string }[] = [];
    ip.nodeIds.forEach((nid, k) => {
      const nn = raw.numberedNodes.get(nid);
      if (!nn) return;
      const h = splitHouseNumbers(nn.hn)[0];
      if (h && h.suffix === '') numbered.push({ k, num: h.num, street: nn.street, postcode: nn.postcode });
    });
    for (let q = 0; q + 1 < numbered.length; q++) {
      const a = numbered[q], b = numbered[q + 1];
      if (a.num === b.num || Math.abs(a.num - b.num) % ip.step !== 0 || Math.abs(a.num - b.num) > 2000) continue;
      const lat = ip.lat.slice(a.k, b.k + 1), lon = ip.lon.slice(a.k, b.k + 1);
      const mid = Math.floor(lat.length / 2);
      const street = ip.street || a.street || b.street || nearest.nameNear((lat[0] + lat[lat.length - 1]) / 2, (lon[0] + lon[lat.length - 1]) / 2, 150);
      if (!street) continue;
      const c = streets.clusterFor(street, lat[mid], lon[mid], 500);
      if (c < 0) continue;
      const pcText = ip.postcode || a.postcode || b.postcode;
      const pc = pcText ? postcodes.id(pcText) : postcodes.at(lat[mid], lon[mid]);
      const nk = analyzeName(street);
      ranges.push({ from: a.num, to: b.num, step: ip.step, lat, lon, postcode: pc, src: RangeSource.Osm, street: c, streetKey: streetKeyOf(nk), nameKey: nk, display: street, locSet: [] });
    }
  }
  tigerRanges.forEach((r, i) => {
    const c = streets.tigerCluster[i];
    if (c < 0) return;
    const mid = Math.floor(r.lat.length / 2);
    const pc = r.postcode ? postcodes.id(r.postcode) : -1;
    const admins = places.adminAt(r.lat[mid], r.lon[mid]);
    const loc = places.localitySet(r.lat[mid], r.lon[mid], r.city, r.state, '', admins);
    ranges.push({ from: r.from, to: r.to, step: r.step, lat: r.lat, lon: r.lon, postcode: pc, src: RangeSource.Tiger, street: c, streetKey: streets.list[c].key, nameKey: streets.list[c].nameKey, display: r.street, locSet: loc });
  });
  for (let i = 0; i < ranges.length; i++) streets.list[ranges[i].street].ranges.push(i);
  return ranges;
}

// ----------------------------------------------------------------------------- final street order and geometry

/**
 * Stage 6 — street order. Returns the clusters sorted by street key (ties: creation order), whose
 * positions are the final street ids, and renumbers the addresses' and ranges' `street` to them.
 */
function orderStreets(clusters: Cluster[], addrs: AddrRec[], ranges: RangeRec[]): Cluster[] {
  const order = clusters.map((_, i) => i).sort((a, b) => (clusters[a].key < clusters[b].key ? -1 : clusters[a].key > clusters[b].key ? 1 : a - b));
  const newId = new Int32Array(clusters.length);
  order.forEach((old, i) => { newId[old] = i; });
  for (const a of addrs) if (a.street >= 0) a.street = newId[a.street];
  for (const r of ranges) r.street = newId[r.street];
  return order.map((i) => clusters[i]);
}

/** A street's polyline with the way class of each segment (`cls[k]`: segment k → k + 1). */
interface Chain { lat: number[]; lon: number[]; cls: number[] }

/**
 * A cluster's chains: OSM ways joined at shared end nodes (greedy, in way order, growing at both
 * ends); TIGER lines are chains of their own. A chain may run from a surface street into a tunnel,
 * so the way class is kept per segment.
 */
function streetChains(c: Cluster): Chain[] {
  const lines = c.ways.length > 0 ? c.ways : c.tigerLines;
  const chains: Chain[] = [];
  const segs = (w: StreetWayRec, n: number) => new Array<number>(n).fill(w.cls);
  if (c.ways.length > 0) {
    const used = new Uint8Array(lines.length);
    for (let i = 0; i < lines.length; i++) {
      if (used[i]) continue;
      used[i] = 1;
      let ids = lines[i].nodeIds.slice(), lat = lines[i].lat.slice(), lon = lines[i].lon.slice();
      let cls = segs(lines[i], Math.max(0, lat.length - 1));
      let grew = true;
      while (grew) {
        grew = false;
        for (let j = 0; j < lines.length; j++) {
          if (used[j]) continue;
          const w = lines[j];
          const first = w.nodeIds[0], last = w.nodeIds[w.nodeIds.length - 1];
          const end = ids[ids.length - 1], start = ids[0];
          const wc = segs(w, Math.max(0, w.lat.length - 1));
          if (first === end) { ids = ids.concat(w.nodeIds.slice(1)); lat = lat.concat(w.lat.slice(1)); lon = lon.concat(w.lon.slice(1)); cls = cls.concat(wc); }
          else if (last === end) { ids = ids.concat(w.nodeIds.slice(0, -1).reverse()); lat = lat.concat(w.lat.slice(0, -1).reverse()); lon = lon.concat(w.lon.slice(0, -1).reverse()); cls = cls.concat(wc); }
          else if (last === start) { ids = w.nodeIds.slice(0, -1).concat(ids); lat = w.lat.slice(0, -1).concat(lat); lon = w.lon.slice(0, -1).concat(lon); cls = wc.concat(cls); }
          else if (first === start) { ids = w.nodeIds.slice(1).reverse().concat(ids); lat = w.lat.slice(1).reverse().concat(lat); lon = w.lon.slice(1).reverse().concat(lon); cls = wc.concat(cls); }
          else continue;
          used[j] = 1;
          grew = true;
        }
      }
      chains.push({ lat, lon, cls });
    }
  } else for (const t of lines) chains.push({ lat: t.lat, lon: t.lon, cls: segs(t, Math.max(0, t.lat.length - 1)) });
  return chains;
}

/**
 * A street's representative point: with geometry, the point on its chains nearest to the
 * length-weighted mean of the chains' middles; without, the mean of its addresses (else of its
 * ranges' first points) snapped to an address.
 */
function representativePoint(chains: Chain[], c: Cluster, addrs: AddrRec[], ranges: RangeRec[]): { lat: number; lon: number } {
  if (chains.length > 0) {
    let best = { len: -1, lat: 0, lon: 0 };
    let sx = 0, sy = 0, sw = 0;
    for (const ch of chains) {
      const l = lineOf(ch);
      const len = lineLength(l);
      const mid = pointAtMeasure(l, len / 2);
      sx += mid.lon * (len + 1e-3); sy += mid.lat * (len + 1e-3); sw += len + 1e-3;
      if (len > best.len) best = { len, lat: mid.lat, lon: mid.lon };
    }
    const cx = sx / sw, cy = sy / sw;
    let bd = Infinity;
    for (const ch of chains) {
      const p = projectOnLine(lineOf(ch), cy, cx);
      if (p.dist < bd) { bd = p.dist; best = { len: 0, lat: p.lat, lon: p.lon }; }
    }
    return { lat: best.lat, lon: best.lon };
  }
  let sx = 0, sy = 0, n = 0;
  for (const ai of c.addrs) { sx += addrs[ai].raw.lon; sy += addrs[ai].raw.lat; n++; }
  if (n === 0) for (const ri of c.ranges) { const r = ranges[ri]; sx += r.lon[0]; sy += r.lat[0]; n++; }
  let lat = n > 0 ? sy / n : 0, lon = n > 0 ? sx / n : 0;
  // snap to an address (as built since format v1: after the first snap, distances are measured
  // from the point snapped to, not from the mean; kept so that the index bytes do not change)
  let bd = Infinity;
  for (const ai of c.addrs) { const d = haversine(lat, lon, addrs[ai].raw.lat, addrs[ai].raw.lon); if (d < bd) { bd = d; lat = addrs[ai].raw.lat; lon = addrs[ai].raw.lon; } }
  return { lat, lon };
}

/** Street polylines as flat point arrays (the `pt.*`, `ch.po`, `st.co` sections) and representative points. */
interface StreetGeometry {
  ptLat: number[];
  ptLon: number[];
  ptStreet: number[];
  /** 1 when point i continues to i + 1 on its chain */
  ptNext: number[];
  /** WayClass bits of segment i → i + 1 (the chain's last point: 0) */
  ptCls: number[];
  /** chain → first point (+ end) */
  chainOff: number[];
  /** street → first chain (+ end) */
  stChainOff: number[];
  stLat: Float64Array;
  stLon: Float64Array;
  /** Each chain as a Line view onto ptLat/ptLon (for projections). */
  chainLines: Line[];
}

/** Stage 7 — street geometry. Takes the ordered streets; returns their chains flattened into point arrays and their representative points. */
function buildStreetGeometry(S: Cluster[], addrs: AddrRec[], ranges: RangeRec[]): StreetGeometry {
  const g: StreetGeometry = {
    ptLat: [], ptLon: [], ptStreet: [], ptNext: [], ptCls: [], chainOff: [0], stChainOff: [0],
    stLat: new Float64Array(S.length), stLon: new Float64Array(S.length), chainLines: [],
  };
  for (let s = 0; s < S.length; s++) {
    const chains = streetChains(S[s]);
    for (const ch of chains) {
      const start = g.ptLat.length;
      for (let k = 0; k < ch.lat.length; k++) {
        g.ptLat.push(ch.lat[k]); g.ptLon.push(ch.lon[k]); g.ptStreet.push(s); g.ptNext.push(k + 1 < ch.lat.length ? 1 : 0); g.ptCls.push(k < ch.cls.length ? ch.cls[k] : 0);
      }
      g.chainOff.push(g.ptLat.length);
      g.chainLines.push({ lat: g.ptLat, lon: g.ptLon, start, end: g.ptLat.length });
    }
    g.stChainOff.push(g.chainOff.length - 1);
    const p = representativePoint(chains, S[s], addrs, ranges);
    g.stLat[s] = p.lat; g.stLon[s] = p.lon;
  }
  return g;
}

// ----------------------------------------------------------------------------- typed tables

/** Interned locality sets (the `ls.*` sections); id 0 is the empty set. */
class LocalitySets {
  private readonly ids = new Map<string, number>();
  readonly list: number[][] = [];
  constructor() { this.id([]); }
  id(set: number[]): number {
    const k = set.join(',');
    let id = this.ids.get(k);
    if (id === undefined) { id = this.list.length; this.ids.set(k, id); this.list.push(set); }
    return id;
  }
}

/** The `ad.*` sections: address points in street order (street, number, suffix, object), and `st.ao`. */
interface AddressTable {
  n: number;
  lat: Float64Array; lon: Float64Array; num: Uint32Array; sfx: Uint32Array; hn: Uint32Array;
  /** postcode id (first-seen ids until {@link buildPostcodeTable} renumbers them), −1 none */
  pc: Int32Array;
  loc: Uint32Array; ot: Uint8Array; oid: Float64Array;
  /** projection on the street's chains: chain (−1 none), measure, side offset, distance */
  ch: Int32Array; m: Float64Array; off: Float32Array; dist: Float32Array;
  /** bit 0: street inferred from proximity */
  fl: Uint8Array;
  /** street → first address (+ end) */
  stOff: Uint32Array;
}

/**
 * Stage 8 — address table. Takes the address records with final street ids; returns them sorted
 * by street, number, suffix, object, each projected on its street's nearest chain (measure and
 * signed side offset, for house-number interpolation). Interns suffixes/house-number texts and
 * locality sets.
 */
function buildAddressTable(streetCount: number, addrs: AddrRec[], geom: StreetGeometry, strings: StringPoolBuilder, keys: StringPoolBuilder, locSets: LocalitySets): AddressTable {
  const addrOrder = addrs.map((_, i) => i).filter((i) => addrs[i].street >= 0);
  addrOrder.sort((x, y) => {
    const a = addrs[x], b = addrs[y];
    return a.street - b.street || a.num - b.num || (a.suffix < b.suffix ? -1 : a.suffix > b.suffix ? 1 : 0) || a.raw.ot - b.raw.ot || a.raw.id - b.raw.id;
  });
  const nA = addrOrder.length;
  const t: AddressTable = {
    n: nA, lat: new Float64Array(nA), lon: new Float64Array(nA), num: new Uint32Array(nA), sfx: new Uint32Array(nA), hn: new Uint32Array(nA),
    pc: new Int32Array(nA), loc: new Uint32Array(nA), ot: new Uint8Array(nA), oid: new Float64Array(nA),
    ch: new Int32Array(nA), m: new Float64Array(nA), off: new Float32Array(nA), dist: new Float32Array(nA), fl: new Uint8Array(nA),
    stOff: new Uint32Array(streetCount + 1),
  };
  const { stChainOff, chainLines } = geom;
  for (let k = 0; k < nA; k++) {
    const a = addrs[addrOrder[k]];
    t.stOff[a.street + 1] = k + 1;
    t.lat[k] = a.raw.lat; t.lon[k] = a.raw.lon; t.num[k] = a.num;
    t.sfx[k] = keys.add(a.suffix); t.hn[k] = strings.add(a.hnText);
    t.pc[k] = a.postcode; t.loc[k] = locSets.id(a.locSet); t.ot[k] = a.raw.ot; t.oid[k] = a.raw.id; t.fl[k] = a.raw.inferred ? 1 : 0;
    // projection on the street's chains
    let best = -1, bp = { measure: 0, dist: Infinity, offset: 0 };
    for (let ch = stChainOff[a.street]; ch < stChainOff[a.street + 1]; ch++) {
      const p = projectOnLine(chainLines[ch], a.raw.lat, a.raw.lon);
      if (p.dist < bp.dist) { bp = p; best = ch; }
    }
    t.ch[k] = best; t.m[k] = bp.measure; t.off[k] = best >= 0 ? bp.offset : 0; t.dist[k] = best >= 0 ? bp.dist : 0;
  }
  fillEmptyOffsets(t.stOff);
  return t;
}

/** Offsets written only at the end of non-empty runs: carry them forward over empty runs. */
function fillEmptyOffsets(off: Uint32Array): void {
  for (let s = 0; s + 1 < off.length; s++) if (off[s + 1] < off[s]) off[s + 1] = off[s];
}

/** The `rg.*` sections: ranges in street order with their polylines flattened, and `st.ro`. */
interface RangeTable {
  n: number;
  from: Int32Array; to: Int32Array; step: Uint8Array; src: Uint8Array;
  /** postcode id (renumbered like {@link AddressTable.pc}), −1 none */
  pc: Int32Array;
  loc: Uint32Array;
  /** range → first point (+ end) */
  ptOff: Uint32Array;
  ptLat: number[]; ptLon: number[];
  /** street → first range (+ end) */
  stOff: Uint32Array;
}

/** Stage 9 — range table. Takes the ranges with final street ids; returns them sorted by street, lower number, input order. */
function buildRangeTable(streetCount: number, ranges: RangeRec[], locSets: LocalitySets): RangeTable {
  const rOrder = ranges.map((_, i) => i).sort((x, y) => ranges[x].street - ranges[y].street || Math.min(ranges[x].from, ranges[x].to) - Math.min(ranges[y].from, ranges[y].to) || x - y);
  const nR = rOrder.length;
  const t: RangeTable = {
    n: nR, from: new Int32Array(nR), to: new Int32Array(nR), step: new Uint8Array(nR), src: new Uint8Array(nR), pc: new Int32Array(nR), loc: new Uint32Array(nR),
    ptOff: new Uint32Array(nR + 1), ptLat: [], ptLon: [], stOff: new Uint32Array(streetCount + 1),
  };
  for (let k = 0; k < nR; k++) {
    const r = ranges[rOrder[k]];
    t.stOff[r.street + 1] = k + 1;
    t.from[k] = r.from; t.to[k] = r.to; t.step[k] = r.step; t.src[k] = r.src; t.pc[k] = r.postcode; t.loc[k] = locSets.id(r.locSet);
    t.ptOff[k] = t.ptLat.length;
    for (let i = 0; i < r.lat.length; i++) { t.ptLat.push(r.lat[i]); t.ptLon.push(r.lon[i]); }
  }
  t.ptOff[nR] = t.ptLat.length;
  fillEmptyOffsets(t.stOff);
  return t;
}

/** Per-street postcodes (most frequent first: `st.pco`, `st.pci`), locality set and municipality. */
interface StreetAttributes {
  pcOff: number[];
  pcIds: number[];
  loc: Uint32Array;
  muni: Int32Array;
}

/**
 * Stage 10 — street attributes. Takes the address and range tables; returns each street's
 * postcodes (from its addresses and ranges by count, else the postal boundary at its
 * representative point), its locality set (the union of its addresses', ranges' and its own
 * point's) and its municipality.
 */
function buildStreetAttributes(S: Cluster[], geom: StreetGeometry, ad: AddressTable, rg: RangeTable, places: PlaceTable, postcodes: PostcodeTable, locSets: LocalitySets): StreetAttributes {
  const out: StreetAttributes = { pcOff: [0], pcIds: [], loc: new Uint32Array(S.length), muni: new Int32Array(S.length) };
  const { stLat, stLon } = geom;
  for (let s = 0; s < S.length; s++) {
    const pcs = new Map<number, number>();
    const loc = new Set<number>();
    for (let k = ad.stOff[s]; k < ad.stOff[s + 1]; k++) {
      if (ad.pc[k] >= 0) pcs.set(ad.pc[k], (pcs.get(ad.pc[k]) ?? 0) + 1);
      for (const p of locSets.list[ad.loc[k]]) loc.add(p);
    }
    for (let k = rg.stOff[s]; k < rg.stOff[s + 1]; k++) {
      if (rg.pc[k] >= 0) pcs.set(rg.pc[k], (pcs.get(rg.pc[k]) ?? 0) + 1);
      for (const p of locSets.list[rg.loc[k]]) loc.add(p);
    }
    const admins = places.adminAt(stLat[s], stLon[s]);
    for (const p of places.localitySet(stLat[s], stLon[s], '', '', '', admins)) loc.add(p);
    if (S[s].locality >= 0) loc.add(S[s].locality);
    if (pcs.size === 0) { const p = postcodes.at(stLat[s], stLon[s]); if (p >= 0) pcs.set(p, 1); }
    for (const [p] of [...pcs].sort((a, b) => b[1] - a[1] || a[0] - b[0])) out.pcIds.push(p);
    out.pcOff.push(out.pcIds.length);
    out.loc[s] = locSets.id([...loc].sort((a, b) => a - b));
    out.muni[s] = S[s].locality >= 0 ? S[s].locality : places.municipalityAt(stLat[s], stLon[s], admins);
  }
  return out;
}

/** The `pc.*` sections: postcodes sorted by key. */
interface PostcodeSections {
  n: number;
  key: Uint32Array; disp: Uint32Array; lat: Float64Array; lon: Float64Array; rad: Float32Array; loc: Uint32Array;
}

/**
 * Stage 11 — postcode table. Takes the address and range tables and street postcodes (in
 * first-seen postcode ids); returns the postcodes that have a position (addresses, ranges, else a
 * postal boundary's centroid) sorted by key, each with its most-voted display form, centroid,
 * radius (≥ 500 m) and the places holding ≥ 10 % of its objects. Renumbers the postcode ids of
 * `ad`, `rg` and `street` in place to the sorted ones (−1 for postcodes dropped).
 */
function buildPostcodeTable(postcodes: PostcodeTable, ad: AddressTable, rg: RangeTable, street: StreetAttributes, strings: StringPoolBuilder, keys: StringPoolBuilder, locSets: LocalitySets): PostcodeSections {
  const { index: pcIndex, display: pcDisplay, sums: pcSum } = postcodes;
  for (let k = 0; k < ad.n; k++) {
    const p = ad.pc[k];
    if (p < 0) continue;
    const t = pcSum[p];
    t.sx += ad.lon[k]; t.sy += ad.lat[k]; t.n++;
    for (const pl of locSets.list[ad.loc[k]]) t.loc.set(pl, (t.loc.get(pl) ?? 0) + 1);
  }
  for (let k = 0; k < rg.n; k++) {
    const p = rg.pc[k];
    if (p < 0) continue;
    const t = pcSum[p];
    const mid = Math.floor((rg.ptOff[k] + rg.ptOff[k + 1] - 1) / 2);
    t.sx += rg.ptLon[mid]; t.sy += rg.ptLat[mid]; t.n++;
    for (const pl of locSets.list[rg.loc[k]]) t.loc.set(pl, (t.loc.get(pl) ?? 0) + 1);
  }
  for (const pp of postcodes.postalPolys) {
    const p = postcodes.id(pp.code);
    const t = pcSum[p];
    if (t.n === 0) { t.sx = pp.poly.centroid.lon; t.sy = pp.poly.centroid.lat; t.n = 1; }
  }
  const pcKeys = [...pcIndex.keys()].filter((k) => pcSum[pcIndex.get(k)!].n > 0).sort();
  const pcNew = new Int32Array(pcSum.length).fill(-1);
  pcKeys.forEach((k, i) => { pcNew[pcIndex.get(k)!] = i; });
  const nP = pcKeys.length;
  const out: PostcodeSections = {
    n: nP, key: new Uint32Array(nP), disp: new Uint32Array(nP), lat: new Float64Array(nP), lon: new Float64Array(nP), rad: new Float32Array(nP), loc: new Uint32Array(nP),
  };
  const pcRadAcc = new Float64Array(nP);
  pcKeys.forEach((k, i) => {
    const old = pcIndex.get(k)!;
    const t = pcSum[old];
    out.key[i] = keys.add(k);
    const disp = [...pcDisplay[old]].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? k;
    out.disp[i] = strings.add(disp);
    out.lat[i] = t.sy / t.n; out.lon[i] = t.sx / t.n;
    // places that hold at least 10 % of the postcode's addresses (the postal town, not strays)
    const locs = [...t.loc].filter((x) => x[1] >= 0.1 * t.n).sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 12).map((x) => x[0]);
    out.loc[i] = locSets.id(locs);
  });
  for (let k = 0; k < ad.n; k++) { if (ad.pc[k] >= 0) { const i = pcNew[ad.pc[k]]; ad.pc[k] = i; if (i >= 0) pcRadAcc[i] = Math.max(pcRadAcc[i], haversine(out.lat[i], out.lon[i], ad.lat[k], ad.lon[k])); } }
  for (let k = 0; k < rg.n; k++) if (rg.pc[k] >= 0) rg.pc[k] = pcNew[rg.pc[k]];
  for (let i = 0; i < street.pcIds.length; i++) street.pcIds[i] = pcNew[street.pcIds[i]];
  for (let i = 0; i < nP; i++) out.rad[i] = Math.max(500, pcRadAcc[i]);
  return out;
}

/** The `pl.*` and `pk.*` sections. */
interface PlaceSections {
  n: number;
  name: Uint32Array; lat: Float64Array; lon: Float64Array; rank: Uint8Array;
  /** sorted place keys (also the place-name trigram input) */
  keyList: string[];
  key: Uint32Array; off: Uint32Array; ids: number[];
}

/** Stage 12 — place table. Synthetic places move to the mean of their addresses; returns names, positions, ranks and the sorted key → places table. */
function buildPlaceSections(places: PlaceTable, strings: StringPoolBuilder, keys: StringPoolBuilder): PlaceSections {
  for (const p of places.list) if (p.synthetic && p.sn > 0) { p.lat = p.sy / p.sn; p.lon = p.sx / p.sn; }
  const nPl = places.list.length;
  const out: PlaceSections = {
    n: nPl, name: new Uint32Array(nPl), lat: new Float64Array(nPl), lon: new Float64Array(nPl), rank: new Uint8Array(nPl),
    keyList: [...places.byKey.keys()].sort(), key: new Uint32Array(0), off: new Uint32Array(0), ids: [],
  };
  places.list.forEach((p, i) => { out.name[i] = strings.add(p.display); out.lat[i] = p.lat; out.lon[i] = p.lon; out.rank[i] = p.rank; });
  const pkList = out.keyList;
  out.key = new Uint32Array(pkList.length);
  out.off = new Uint32Array(pkList.length + 1);
  pkList.forEach((k, i) => { out.key[i] = keys.add(k); out.off[i] = out.ids.length; for (const id of [...places.byKey.get(k)!].sort((a, b) => a - b)) out.ids.push(id); });
  out.off[pkList.length] = out.ids.length;
  return out;
}

/** The `nm.*` sections (one row per distinct street key), and the streets' `st.name` / `st.disp`. */
interface NameSections {
  n: number;
  core: Uint32Array; ns: Uint32Array; full: Uint32Array; ph: Uint32Array; type: Uint32Array;
  tat: Uint8Array; pre: Uint8Array; post: Uint8Array; dig: Uint32Array; words: Uint32Array; raw: Uint32Array;
  /** name → first street (+ end) */
  streetsOff: Uint32Array;
  /** names sorted by phonetic key */
  phOrder: Uint32Array;
  /** trigram inputs */
  nsKeys: string[]; fullKeys: string[];
  stName: Uint32Array; stDisp: Uint32Array;
}

/**
 * Stage 13 — street names. Takes the ordered streets and their analysed names; returns one row
 * of keys per distinct street key (sorted), each street's name row and most-voted display name,
 * and the names in phonetic-key order.
 */
function buildNameSections(S: Cluster[], nameKeys: Map<string, NameKey>, strings: StringPoolBuilder, keys: StringPoolBuilder): NameSections {
  const nameList = [...new Set(S.map((c) => c.key))].sort();
  const nameIdx = new Map(nameList.map((k, i) => [k, i]));
  const nN = nameList.length;
  const o: NameSections = {
    n: nN, core: new Uint32Array(nN), ns: new Uint32Array(nN), full: new Uint32Array(nN), ph: new Uint32Array(nN), type: new Uint32Array(nN),
    tat: new Uint8Array(nN), pre: new Uint8Array(nN), post: new Uint8Array(nN), dig: new Uint32Array(nN), words: new Uint32Array(nN), raw: new Uint32Array(nN),
    streetsOff: new Uint32Array(nN + 1), phOrder: new Uint32Array(0), nsKeys: [], fullKeys: [],
    stName: new Uint32Array(S.length), stDisp: new Uint32Array(S.length),
  };
  nameList.forEach((k, i) => {
    const nk = nameKeys.get(k)!;
    o.core[i] = keys.add(nk.coreKey); o.ns[i] = keys.add(nk.nsKey); o.full[i] = keys.add(nk.fullKey);
    o.ph[i] = keys.add(phonetic(nk.nsKey)); o.type[i] = keys.add(nk.typeCanon); o.tat[i] = nk.typeAt;
    o.pre[i] = DIR_CODES.indexOf(nk.predir); o.post[i] = DIR_CODES.indexOf(nk.postdir); o.dig[i] = keys.add(nk.digits);
    o.words[i] = keys.add(nk.core.join(' '));
    o.raw[i] = keys.add(nk.rawKey);
    o.nsKeys.push(nk.nsKey);
    o.fullKeys.push(nk.fullKey);
  });
  S.forEach((c, s) => {
    o.stName[s] = nameIdx.get(c.key)!;
    const disp = [...c.displayVotes].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? c.key;
    o.stDisp[s] = strings.add(disp);
    o.streetsOff[o.stName[s] + 1] = s + 1;
  });
  fillEmptyOffsets(o.streetsOff);
  o.phOrder = Uint32Array.from(nameList.map((_, i) => i)).sort((a, b) => {
    const x = keys.list[o.ph[a]], y = keys.list[o.ph[b]];
    return x < y ? -1 : x > y ? 1 : a - b;
  });
  return o;
}

// ----------------------------------------------------------------------------- sections

interface BuiltTables {
  streetCount: number;
  geom: StreetGeometry;
  ad: AddressTable;
  rg: RangeTable;
  street: StreetAttributes;
  pc: PostcodeSections;
  pl: PlaceSections;
  nm: NameSections;
  locSets: LocalitySets;
  strings: StringPoolBuilder;
  keys: StringPoolBuilder;
}

/** Stage 14 — sections. Takes every table; returns the index's section map (typed arrays, trigram tables, spatial indexes, string pools). */
function assembleSections(t: BuiltTables): Sections {
  const { geom, ad, rg, street, pc, pl, nm, locSets } = t;
  const m: Sections = new Map();
  m.set('meta', Float64Array.of(FORMAT_VERSION, ad.n, t.streetCount, nm.n, pl.n, pc.n, rg.n));
  m.set('st.name', nm.stName); m.set('st.disp', nm.stDisp); m.set('st.lat', geom.stLat); m.set('st.lon', geom.stLon); m.set('st.loc', street.loc);
  m.set('st.muni', street.muni); m.set('st.ao', ad.stOff); m.set('st.ro', rg.stOff); m.set('st.co', Uint32Array.from(geom.stChainOff));
  m.set('st.pco', Uint32Array.from(street.pcOff)); m.set('st.pci', Int32Array.from(street.pcIds));
  m.set('ch.po', Uint32Array.from(geom.chainOff)); m.set('pt.lat', Float64Array.from(geom.ptLat)); m.set('pt.lon', Float64Array.from(geom.ptLon));
  m.set('pt.st', Uint32Array.from(geom.ptStreet)); m.set('pt.nx', Uint8Array.from(geom.ptNext)); m.set('pt.cls', Uint8Array.from(geom.ptCls));
  m.set('ad.lat', ad.lat); m.set('ad.lon', ad.lon); m.set('ad.num', ad.num); m.set('ad.sfx', ad.sfx); m.set('ad.hn', ad.hn);
  m.set('ad.pc', ad.pc); m.set('ad.loc', ad.loc); m.set('ad.ot', ad.ot); m.set('ad.oid', ad.oid); m.set('ad.ch', ad.ch);
  m.set('ad.m', ad.m); m.set('ad.off', ad.off); m.set('ad.dist', ad.dist); m.set('ad.fl', ad.fl);
  m.set('rg.from', rg.from); m.set('rg.to', rg.to); m.set('rg.step', rg.step); m.set('rg.src', rg.src); m.set('rg.pc', rg.pc); m.set('rg.loc', rg.loc);
  m.set('rg.po', rg.ptOff); m.set('rg.lat', Float64Array.from(rg.ptLat)); m.set('rg.lon', Float64Array.from(rg.ptLon));
  m.set('pl.name', pl.name); m.set('pl.lat', pl.lat); m.set('pl.lon', pl.lon); m.set('pl.rank', pl.rank);
  m.set('pk.key', pl.key); m.set('pk.po', pl.off); m.set('pk.pi', Uint32Array.from(pl.ids));
  const lsOff = new Uint32Array(locSets.list.length + 1);
  const lsIds: number[] = [];
  locSets.list.forEach((set, i) => { lsOff[i] = lsIds.length; lsIds.push(...set); });
  lsOff[locSets.list.length] = lsIds.length;
  m.set('ls.o', lsOff); m.set('ls.i', Uint32Array.from(lsIds));
  m.set('pc.key', pc.key); m.set('pc.disp', pc.disp); m.set('pc.lat', pc.lat); m.set('pc.lon', pc.lon); m.set('pc.rad', pc.rad); m.set('pc.loc', pc.loc);
  m.set('nm.core', nm.core); m.set('nm.ns', nm.ns); m.set('nm.full', nm.full); m.set('nm.ph', nm.ph); m.set('nm.type', nm.type);
  m.set('nm.tat', nm.tat); m.set('nm.pre', nm.pre); m.set('nm.post', nm.post); m.set('nm.dig', nm.dig); m.set('nm.words', nm.words);
  m.set('nm.so', nm.streetsOff); m.set('nm.pho', nm.phOrder); m.set('nm.raw', nm.raw);
  buildTrigramSections(m, 'tn', nm.nsKeys);
  buildTrigramSections(m, 'tf', nm.fullKeys);
  buildTrigramSections(m, 'tp', pl.keyList);
  writeSpatialIndexes(m, geom, ad, rg);
  t.strings.write(m, 'str');
  t.keys.write(m, 'key');
  return m;
}

/**
 * Spatial indexes (spatial.ts) over address points (`ga`: kdbush), street segments and lone
 * street points (`gs`: flatbush) and range segments (`gr`: flatbush, with `rg.pk`: point → range).
 */
function writeSpatialIndexes(m: Sections, geom: StreetGeometry, ad: AddressTable, rg: RangeTable): void {
  const ga = new PointIndexBuilder();
  for (let k = 0; k < ad.n; k++) ga.add(k, ad.lat[k], ad.lon[k]);
  ga.write(m, 'ga');
  const { ptLat, ptLon, ptNext } = geom;
  // lone points, and chains in runs of up to STREET_CHUNK segments (streetChunkEnd)
  const gs = new SegmentIndexBuilder();
  for (let i = 0; i < ptLat.length;) {
    if (!ptNext[i]) {
      if (i === 0 || !ptNext[i - 1]) gs.addPoint(i, ptLat[i], ptLon[i]);
      i++;
      continue;
    }
    const end = streetChunkEnd(ptNext, i);
    const [x0, y0, x1, y1] = polylineBox(ptLat, ptLon, i, end);
    gs.addBox(i, y0, x0, y1, x1);
    i = end;
  }
  gs.write(m, 'gs');
  // range segments (OSM interpolation lines, TIGER) for reverse geocoding with house numbers
  const { ptOff: rgPtOff, ptLat: rgPtLat, ptLon: rgPtLon } = rg;
  const rgPtRange = new Uint32Array(rgPtLat.length);
  const gr = new SegmentIndexBuilder();
  for (let k = 0; k < rg.n; k++) {
    for (let i = rgPtOff[k]; i < rgPtOff[k + 1]; i++) {
      rgPtRange[i] = k;
      if (i + 1 < rgPtOff[k + 1]) gr.addBox(i, Math.min(rgPtLat[i], rgPtLat[i + 1]), Math.min(rgPtLon[i], rgPtLon[i + 1]), Math.max(rgPtLat[i], rgPtLat[i + 1]), Math.max(rgPtLon[i], rgPtLon[i + 1]));
    }
  }
  gr.write(m, 'gr');
  m.set('rg.pk', rgPtRange);
}

// ----------------------------------------------------------------------------- the build

export function buildGeocodeIndex(osm: OsmPbfFile, opts: GeocodeBuildOptions = {}): GeocodeIndex {
  return buildGeocodeIndexWithStats(osm, opts).index;
}

/**
 * The build as a sequence of stages (see the module comment). Order matters beyond data flow:
 * synthetic places, postcode ids and display votes, string-pool ids and locality-set ids are
 * assigned in call order, and the index must stay byte-identical for the same input.
 */
export function buildGeocodeIndexWithStats(osm: OsmPbfFile, opts: GeocodeBuildOptions = {}): { index: GeocodeIndex; stats: GeocodeBuildStats } {
  const t0 = performance.now();
  const raw = extractOsm(osm, opts.exclude, opts);
  throwIfAborted(opts.signal);
  const progress = (done: number) => opts.onProgress?.({ phase: 'geocode: assemble', done, total: 5 });
  progress(0);

  const { places, postalPolys } = collectPlaces(raw);
  const postcodes = new PostcodeTable(postalPolys);
  const nearest = new NearestStreetFinder(raw.streets);
  const addrs = collectAddresses(raw, places, postcodes, nearest);
  throwIfAborted(opts.signal);
  progress(1);

  const tiger = opts.tigerCsv ? parseTigerCsv(opts.tigerCsv) : { ranges: [], skipped: 0 };
  const clusters = clusterStreetWays(raw.streets, tiger.ranges, places);
  assignAddressStreets(addrs, clusters, places);
  throwIfAborted(opts.signal);
  progress(2);

  const ranges = collectRanges(raw, tiger.ranges, clusters, places, postcodes, nearest);
  progress(3);

  const S = orderStreets(clusters.list, addrs, ranges);
  const geom = buildStreetGeometry(S, addrs, ranges);
  // string pools and locality sets are filled in this order (their ids are persisted)
  const strings = new StringPoolBuilder();
  const keys = new StringPoolBuilder();
  const locSets = new LocalitySets();
  const ad = buildAddressTable(S.length, addrs, geom, strings, keys, locSets);
  const rg = buildRangeTable(S.length, ranges, locSets);
  const street = buildStreetAttributes(S, geom, ad, rg, places, postcodes, locSets);
  const pc = buildPostcodeTable(postcodes, ad, rg, street, strings, keys, locSets);
  const pl = buildPlaceSections(places, strings, keys);
  const nm = buildNameSections(S, clusters.nameKeys, strings, keys);
  progress(4);

  const m = assembleSections({ streetCount: S.length, geom, ad, rg, street, pc, pl, nm, locSets, strings, keys });
  progress(5);
  if (ad.n === 0 && S.length === 0 && pl.n === 0) {
    throw new EngineError('InvalidInput', 'The OSM extract holds no addresses, named streets or places to geocode.');
  }
  const index = new GeocodeIndex(m);
  const stats: GeocodeBuildStats = {
    addresses: ad.n, streets: S.length, names: nm.n, places: pl.n, postcodes: pc.n, ranges: rg.n, tigerSkipped: tiger.skipped,
    ms: performance.now() - t0,
  };
  return { index, stats };
}

export type { RawLine };
