/**
 * Geocode index build: OSM extract (+ optional TIGER ranges) → the typed-array sections of a
 * {@link GeocodeIndex}. Steps:
 *
 * 1. places: place nodes/areas, administrative boundaries (point-in-polygon), `addr:city`/
 *    `addr:state`/`addr:country` values (matched to a known place of that name within 30 km, or
 *    a synthetic place at the mean of its addresses);
 * 2. every address object gets a *locality set* (containing boundaries, nearest settlement,
 *    nearest suburb/hamlet, its tagged city/state/country) and a postcode (tagged, else postal
 *    boundary);
 * 3. streets: named highways grouped by normalised name and municipality, then clustered by
 *    proximity (ways ≤ 200 m apart); each address joins the nearest cluster of its street name
 *    (≤ 1 km), else a street made of addresses only; TIGER lines and interpolation ways likewise;
 * 4. per street: chains (ways joined at shared end nodes), a representative point, addresses
 *    sorted by number with their projection (measure, side offset) on the chains, ranges;
 * 5. keys, trigram and phonetic tables for names, places and postcodes; spatial grids.
 */
import type { OsmPbfFile } from '../osm/pbf.js';
import { throwIfAborted, type LongWorkOptions } from '../core/cancel.js';
import { haversine, metresPerDegree } from '../core/geo.js';
import { EngineError } from '../core/errors.js';
import { extractOsm, type RawAddress, type RawLine, type RawPlace } from './extract.js';
import { analyzeName, countryKey, placeKey, postcodeKey, phonetic, stateKey, type NameKey } from './normalize.js';
import { splitHouseNumbers, cleanStreetName } from './parse.js';
import { Polygon, assembleRings } from './polygon.js';
import { parseTigerCsv } from './tiger.js';
import { projectOnLine, lineLength, pointAtMeasure, type Line } from './interpolate.js';
import { StringPoolBuilder, type Sections } from './sections.js';
import { buildTrigramSections } from './fuzzy.js';
import { GridBuilder } from './grid.js';
import { COUNTRY_ALIAS } from './dict.js';
import { GeocodeIndex, FORMAT_VERSION, PlaceRank, DIR_CODES, RangeSource } from './geocode-index.js';

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

// ----------------------------------------------------------------------------- the build

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

export function buildGeocodeIndex(osm: OsmPbfFile, opts: GeocodeBuildOptions = {}): GeocodeIndex {
  return buildGeocodeIndexWithStats(osm, opts).index;
}

export function buildGeocodeIndexWithStats(osm: OsmPbfFile, opts: GeocodeBuildOptions = {}): { index: GeocodeIndex; stats: GeocodeBuildStats } {
  const t0 = performance.now();
  const raw = extractOsm(osm, opts.exclude, opts);
  throwIfAborted(opts.signal);
  const progress = (phase: string, done: number, total: number) => opts.onProgress?.({ phase, done, total });
  progress('geocode: assemble', 0, 5);

  // ---------------------------------------------------------------- places
  const places: PlaceRec[] = [];
  const placesByKey = new Map<string, number[]>();
  const addPlaceKey = (key: string, id: number) => {
    if (!key) return;
    const l = placesByKey.get(key);
    if (l) { if (!l.includes(id)) l.push(id); } else placesByKey.set(key, [id]);
  };
  const newPlace = (p: Omit<PlaceRec, 'sx' | 'sy' | 'sn'>): number => {
    const id = places.length;
    places.push({ ...p, sx: 0, sy: 0, sn: 0 });
    for (const n of p.names) addPlaceKey(p.rank === PlaceRank.State ? stateKey(n) : p.rank === PlaceRank.Country ? countryKey(n) : placeKey(n), id);
    if (p.rank === PlaceRank.State || p.rank === PlaceRank.Country) for (const n of p.names) addPlaceKey(placeKey(n), id);
    return id;
  };
  const adminIds: number[] = [];
  const postalPolys: { poly: Polygon; code: string }[] = [];
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
    const id = newPlace({ names, display: b.names[0] ?? '', rank: placeRankOf(b), kind: `admin${b.level}`, lat, lon, poly, synthetic: false });
    adminIds.push(id);
  }
  // Innermost first when several boundaries contain a point.
  adminIds.sort((a, b) => places[b].rank - places[a].rank || places[a].poly!.area - places[b].poly!.area || a - b);
  const settlementIds: number[] = [];
  const subIds: number[] = [];
  for (const p of raw.places) {
    const rank = placeRankOf(p);
    const id = newPlace({ names: nameVariants(p.names), display: p.names[0] ?? '', rank, kind: p.kind, lat: p.lat, lon: p.lon, poly: null, synthetic: false });
    if (p.kind === 'city' || p.kind === 'town' || p.kind === 'village' || p.kind === 'municipality') settlementIds.push(id);
    else if (rank >= PlaceRank.Suburb) subIds.push(id);
  }
  const settlementLookup = new Set(settlementIds);
  const placeGrid = new Map<string, number[]>();
  const gkey = (lat: number, lon: number) => `${Math.floor(lat / 0.1)},${Math.floor(lon / 0.1)}`;
  for (const id of [...settlementIds, ...subIds]) {
    const k = gkey(places[id].lat, places[id].lon);
    const l = placeGrid.get(k);
    if (l) l.push(id); else placeGrid.set(k, [id]);
  }
  const nearbyPlaces = (lat: number, lon: number): number[] => {
    const out: number[] = [];
    const r0 = Math.floor(lat / 0.1), c0 = Math.floor(lon / 0.1);
    for (let r = r0 - 2; r <= r0 + 2; r++) for (let c = c0 - 2; c <= c0 + 2; c++) { const l = placeGrid.get(`${r},${c}`); if (l) out.push(...l); }
    return out;
  };
  /** Containing admin boundaries (innermost first). */
  const adminAt = (lat: number, lon: number): number[] => adminIds.filter((id) => places[id].poly!.contains(lat, lon));
  const hasAdmin8 = adminIds.some((id) => places[id].rank >= PlaceRank.City);
  /** The municipality used to group streets: innermost admin ≥ City, else the nearest settlement node. */
  const municipalityAt = (lat: number, lon: number, admins: number[]): number => {
    for (const id of admins) if (places[id].rank === PlaceRank.City) return id;
    for (const id of admins) if (places[id].rank > PlaceRank.City) return id;
    let best = -1, bd = Infinity;
    for (const id of nearbyPlaces(lat, lon)) {
      if (!settlementLookup.has(id)) continue;
      const d = haversine(lat, lon, places[id].lat, places[id].lon) / settlementRadius(places[id].kind);
      if (d < bd || (d === bd && id < best)) { bd = d; best = id; }
    }
    return bd <= 1.5 ? best : -1;
  };
  const nearestOf = (lat: number, lon: number, set: Set<number>): number => {
    let best = -1, bd = Infinity;
    for (const id of nearbyPlaces(lat, lon)) {
      if (!set.has(id)) continue;
      const d = haversine(lat, lon, places[id].lat, places[id].lon) / settlementRadius(places[id].kind);
      if (d < bd || (d === bd && id < best)) { bd = d; best = id; }
    }
    return bd <= 1 ? best : -1;
  };
  const settlementSet = new Set(settlementIds);
  const subSet = new Set(subIds);
  /** A named place of rank range [r0, r1] with this key within `radius` m, or a new synthetic one. */
  const placeFor = (name: string, key: string, rank: number, lat: number, lon: number, radius: number): number => {
    if (!key) return -1;
    const cands = placesByKey.get(key) ?? [];
    let best = -1, bd = Infinity;
    for (const id of cands) {
      const p = places[id];
      const sameClass = rank === PlaceRank.Country ? p.rank === PlaceRank.Country : rank === PlaceRank.State ? p.rank === PlaceRank.State || p.rank === PlaceRank.County : p.rank >= PlaceRank.County;
      if (!sameClass) continue;
      const d = p.poly && p.poly.contains(lat, lon) ? 0 : p.synthetic && p.sn > 0 ? haversine(lat, lon, p.sy / p.sn, p.sx / p.sn) : haversine(lat, lon, p.lat, p.lon);
      if (d < bd || (d === bd && id < best)) { bd = d; best = id; }
    }
    if (best >= 0 && bd <= radius) return best;
    // a country tagged by its code is shown by its name ("LI" → "Liechtenstein")
    const display = rank === PlaceRank.Country && /^[a-z]{2,3}$/i.test(name.trim()) && COUNTRY_ALIAS.has(name.trim().toLowerCase())
      ? COUNTRY_ALIAS.get(name.trim().toLowerCase())!.replace(/\b\w/g, (c) => c.toUpperCase()) : name;
    return newPlace({ names: display === name ? [name] : [name, display], display, rank, kind: 'addr', lat, lon, poly: null, synthetic: true });
  };

  // ---------------------------------------------------------------- postcodes
  const pcIndex = new Map<string, number>();
  const pcDisplay: Map<string, number>[] = [];
  const pcSum: { sx: number; sy: number; n: number; pts: number[]; loc: Map<number, number> }[] = [];
  const postcodeId = (s: string): number => {
    const key = postcodeKey(s);
    if (!key || key.length > 12) return -1;
    let id = pcIndex.get(key);
    if (id === undefined) {
      id = pcSum.length;
      pcIndex.set(key, id);
      pcSum.push({ sx: 0, sy: 0, n: 0, pts: [], loc: new Map() });
      pcDisplay.push(new Map());
    }
    const d = pcDisplay[id];
    d.set(s.trim(), (d.get(s.trim()) ?? 0) + 1);
    return id;
  };
  const postalAt = (lat: number, lon: number): number => {
    for (const p of postalPolys) if (p.poly.contains(lat, lon)) return postcodeId(p.code);
    return -1;
  };

  // ---------------------------------------------------------------- locality sets of addresses
  // The municipality (admin boundary of city rank) each place node lies in: a nearest place node is
  // only credited to an address of the same municipality (no "neighbour village" leakage).
  const placeMuni = new Map<number, number>();
  const muniOfAdmins = (admins: number[]): number => { for (const a of admins) if (places[a].rank === PlaceRank.City) return a; return -1; };
  for (const id of [...settlementIds, ...subIds]) placeMuni.set(id, muniOfAdmins(adminAt(places[id].lat, places[id].lon)));
  const localitySet = (lat: number, lon: number, city: string, state: string, country: string, admins: number[]): number[] => {
    const set = new Set<number>(admins);
    const muni = muniOfAdmins(admins);
    const s = nearestOf(lat, lon, settlementSet);
    if (s >= 0 && (muni < 0 || placeMuni.get(s) === muni)) set.add(s);
    const sub = nearestOf(lat, lon, subSet);
    if (sub >= 0 && (muni < 0 || placeMuni.get(sub) === muni)) set.add(sub);
    if (city) for (const part of city.split(';')) { const id = placeFor(part.trim(), placeKey(part), PlaceRank.City, lat, lon, 30000); if (id >= 0) set.add(id); }
    if (state) { const id = placeFor(state, stateKey(state), PlaceRank.State, lat, lon, 500000); if (id >= 0) set.add(id); }
    if (country) { const id = placeFor(country, countryKey(country), PlaceRank.Country, lat, lon, 3000000); if (id >= 0) set.add(id); }
    return [...set].sort((a, b) => a - b);
  };

  // ---------------------------------------------------------------- nearest named street (for objects without addr:street)
  const segCell = 0.002;
  const segGrid = new Map<string, number[]>(); // cell → [way index, vertex index] pairs
  raw.streets.forEach((w, wi) => {
    for (let i = 0; i + 1 < w.lat.length; i++) {
      const r0 = Math.floor(Math.min(w.lat[i], w.lat[i + 1]) / segCell), r1 = Math.floor(Math.max(w.lat[i], w.lat[i + 1]) / segCell);
      const c0 = Math.floor(Math.min(w.lon[i], w.lon[i + 1]) / segCell), c1 = Math.floor(Math.max(w.lon[i], w.lon[i + 1]) / segCell);
      if ((r1 - r0 + 1) * (c1 - c0 + 1) > 400) continue;
      for (let r = r0; r <= r1; r++) for (let c = c0; c <= c1; c++) {
        const k = `${r},${c}`;
        const l = segGrid.get(k);
        if (l) l.push(wi, i); else segGrid.set(k, [wi, i]);
      }
    }
  });
  /** Name of the nearest named highway within `maxDist` metres (Nominatim-style parenting), or ''. */
  const nearestStreetName = (lat: number, lon: number, maxDist: number): string => {
    const r0 = Math.floor(lat / segCell), c0 = Math.floor(lon / segCell);
    let best = '', bd = maxDist;
    for (let r = r0 - 1; r <= r0 + 1; r++) for (let c = c0 - 1; c <= c0 + 1; c++) {
      const l = segGrid.get(`${r},${c}`);
      if (!l) continue;
      for (let k = 0; k < l.length; k += 2) {
        const w = raw.streets[l[k]];
        const p = projectOnLine({ lat: w.lat, lon: w.lon, start: l[k + 1], end: l[k + 1] + 2 }, lat, lon);
        if (p.dist < bd || (p.dist === bd && w.name < best)) { bd = p.dist; best = w.name; }
      }
    }
    return best;
  };

  // ---------------------------------------------------------------- address records
  const addrs: AddrRec[] = [];
  for (const a of raw.addresses) {
    if (!a.street && !a.place) { a.street = nearestStreetName(a.lat, a.lon, 100); a.inferred = true; }
    const streetName = a.street || a.place;
    if (!streetName) continue;
    const admins = adminAt(a.lat, a.lon);
    const loc = localitySet(a.lat, a.lon, a.city, a.state, a.country, admins);
    let pc = a.postcode ? postcodeId(a.postcode.split(';')[0]) : -1;
    if (pc < 0) pc = postalAt(a.lat, a.lon);
    for (const h of splitHouseNumbers(a.hn)) {
      const nums = h.to > h.num ? [h.num, h.to] : [h.num];
      for (const num of nums) addrs.push({ raw: a, hnText: h.display, num, suffix: h.to > h.num ? '' : h.suffix, postcode: pc, locSet: loc, street: -1 });
    }
  }
  // Synthetic places sit at the mean of their addresses.
  for (const r of addrs) for (const id of r.locSet) { const p = places[id]; if (p.synthetic) { p.sx += r.raw.lon; p.sy += r.raw.lat; p.sn++; } }
  throwIfAborted(opts.signal);
  progress('geocode: assemble', 1, 5);

  // ---------------------------------------------------------------- street clusters
  const tiger = opts.tigerCsv ? parseTigerCsv(opts.tigerCsv) : { ranges: [], skipped: 0 };
  const groups = new Map<string, StreetWayRec[]>();
  const nameKeys = new Map<string, NameKey>();
  const groupAdd = (key: string, loc: number, w: StreetWayRec) => {
    const g = `${key}@${loc}`;
    const l = groups.get(g);
    if (l) l.push(w); else groups.set(g, [w]);
  };
  const addStreetWay = (rawName: string, w: StreetWayRec) => {
    const name = cleanStreetName(rawName);
    w.name = name;
    const nk = analyzeName(name);
    if (nk.coreKey.length === 0 && nk.typeCanon.length === 0) return;
    const key = streetKeyOf(nk);
    if (!nameKeys.has(key)) nameKeys.set(key, nk);
    const mid = Math.floor(w.lat.length / 2);
    const admins = adminAt(w.lat[mid], w.lon[mid]);
    groupAdd(key, municipalityAt(w.lat[mid], w.lon[mid], admins), w);
  };
  raw.streets.forEach((s, i) => {
    const rec = { src: i, lat: s.lat, lon: s.lon, nodeIds: s.nodeIds, box: bboxOf(s.lat, s.lon), name: s.name, cls: s.cls };
    addStreetWay(s.name, rec);
    for (const alt of s.altNames) addStreetWay(alt, { ...rec, name: alt });
  });
  tiger.ranges.forEach((r, i) => {
    addStreetWay(r.street, { src: -1 - i, lat: r.lat, lon: r.lon, nodeIds: [], box: bboxOf(r.lat, r.lon), name: r.street, cls: 0 });
  });
  const clusters: Cluster[] = [];
  const clustersByKey = new Map<string, number[]>();
  const tigerCluster = new Int32Array(tiger.ranges.length).fill(-1);
  for (const g of [...groups.keys()].sort()) {
    const ways = groups.get(g)!;
    const key = g.slice(0, g.lastIndexOf('@'));
    const loc = Number(g.slice(g.lastIndexOf('@') + 1));
    const uf = new UnionFind(ways.length);
    if (ways.length <= 3000) {
      for (let a = 0; a < ways.length; a++) for (let b = a + 1; b < ways.length; b++) if (boxBoxDist(ways[a].box, ways[b].box) <= 200) uf.union(a, b);
    }
    const byRoot = new Map<number, StreetWayRec[]>();
    for (let a = 0; a < ways.length; a++) { const r = uf.find(a); const l = byRoot.get(r); if (l) l.push(ways[a]); else byRoot.set(r, [ways[a]]); }
    for (const ws of byRoot.values()) {
      const osmWays = ws.filter((w) => w.src >= 0);
      const tigerLines = ws.filter((w) => w.src < 0);
      const box: BBox = { minLat: Infinity, maxLat: -Infinity, minLon: Infinity, maxLon: -Infinity };
      for (const w of ws) { box.minLat = Math.min(box.minLat, w.box.minLat); box.maxLat = Math.max(box.maxLat, w.box.maxLat); box.minLon = Math.min(box.minLon, w.box.minLon); box.maxLon = Math.max(box.maxLon, w.box.maxLon); }
      const votes = new Map<string, number>();
      for (const w of osmWays.length > 0 ? osmWays : tigerLines) votes.set(w.name, (votes.get(w.name) ?? 0) + 1);
      const id = clusters.length;
      clusters.push({ key, nameKey: nameKeys.get(key)!, displayVotes: votes, ways: osmWays, tigerLines, box, locality: loc, addrs: [], ranges: [] });
      const l = clustersByKey.get(key);
      if (l) l.push(id); else clustersByKey.set(key, [id]);
      for (const t of tigerLines) tigerCluster[-1 - t.src] = id;
    }
  }
  const distToCluster = (c: Cluster, lat: number, lon: number): number => {
    const lines = c.ways.length > 0 ? c.ways : c.tigerLines;
    if (lines.length === 0) return pointBoxDist(lat, lon, c.box);
    let best = Infinity;
    for (const w of lines) {
      if (pointBoxDist(lat, lon, w.box) >= best) continue;
      const p = projectOnLine(lineOf(w), lat, lon);
      if (p.dist < best) best = p.dist;
    }
    return best;
  };
  /** The cluster an object named `name` at (lat, lon) belongs to (creating an address-only street if needed). */
  const clusterFor = (rawName: string, lat: number, lon: number, maxDist: number, muni = -2): number => {
    const name = cleanStreetName(rawName);
    const nk = analyzeName(name);
    if (nk.coreKey.length === 0 && nk.typeCanon.length === 0) return -1;
    const key = streetKeyOf(nk);
    const cands = clustersByKey.get(key) ?? [];
    let best = -1, bd = Infinity;
    for (const id of cands) {
      const c = clusters[id];
      // same-municipality clusters first: a cluster across the town line counts 400 m farther
      const extra = muni !== -2 && c.locality >= 0 && c.locality !== muni ? 400 : 0;
      if (pointBoxDist(lat, lon, c.box) + extra > Math.min(bd, maxDist)) continue;
      const d = distToCluster(c, lat, lon) + extra;
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
    if (!nameKeys.has(key)) nameKeys.set(key, nk);
    clusters.push({ key, nameKey: nameKeys.get(key)!, displayVotes: new Map([[name, 1]]), ways: [], tigerLines: [], box: { minLat: lat, maxLat: lat, minLon: lon, maxLon: lon }, locality: -1, addrs: [], ranges: [] });
    if (cands.length > 0) cands.push(id); else clustersByKey.set(key, [id]);
    return id;
  };
  for (let i = 0; i < addrs.length; i++) {
    const a = addrs[i];
    const c = clusterFor(a.raw.street || a.raw.place, a.raw.lat, a.raw.lon, 1000, municipalityAt(a.raw.lat, a.raw.lon, adminAt(a.raw.lat, a.raw.lon)));
    a.street = c;
    if (c >= 0) clusters[c].addrs.push(i);
  }
  throwIfAborted(opts.signal);
  progress('geocode: assemble', 2, 5);

  // ---------------------------------------------------------------- ranges (OSM interpolation lines, TIGER)
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
      const street = ip.street || a.street || b.street || nearestStreetName((lat[0] + lat[lat.length - 1]) / 2, (lon[0] + lon[lat.length - 1]) / 2, 150);
      if (!street) continue;
      const c = clusterFor(street, lat[mid], lon[mid], 500);
      if (c < 0) continue;
      const pcText = ip.postcode || a.postcode || b.postcode;
      const pc = pcText ? postcodeId(pcText) : postalAt(lat[mid], lon[mid]);
      const nk = analyzeName(street);
      ranges.push({ from: a.num, to: b.num, step: ip.step, lat, lon, postcode: pc, src: RangeSource.Osm, street: c, streetKey: streetKeyOf(nk), nameKey: nk, display: street, locSet: [] });
    }
  }
  tiger.ranges.forEach((r, i) => {
    const c = tigerCluster[i];
    if (c < 0) return;
    const mid = Math.floor(r.lat.length / 2);
    const pc = r.postcode ? postcodeId(r.postcode) : -1;
    const admins = adminAt(r.lat[mid], r.lon[mid]);
    const loc = localitySet(r.lat[mid], r.lon[mid], r.city, r.state, '', admins);
    ranges.push({ from: r.from, to: r.to, step: r.step, lat: r.lat, lon: r.lon, postcode: pc, src: RangeSource.Tiger, street: c, streetKey: clusters[c].key, nameKey: clusters[c].nameKey, display: r.street, locSet: loc });
  });
  for (let i = 0; i < ranges.length; i++) clusters[ranges[i].street].ranges.push(i);
  progress('geocode: assemble', 3, 5);

  // ---------------------------------------------------------------- finalise streets: order, chains, points
  // Drop clusters with neither addresses, ranges nor geometry (cannot happen) and order by key for determinism.
  const order = clusters.map((_, i) => i).sort((a, b) => (clusters[a].key < clusters[b].key ? -1 : clusters[a].key > clusters[b].key ? 1 : a - b));
  const newId = new Int32Array(clusters.length);
  order.forEach((old, i) => { newId[old] = i; });
  const S = order.map((i) => clusters[i]);
  for (const a of addrs) if (a.street >= 0) a.street = newId[a.street];
  for (const r of ranges) r.street = newId[r.street];

  const strings = new StringPoolBuilder();
  const keys = new StringPoolBuilder();
  const ptLat: number[] = [];
  const ptLon: number[] = [];
  const ptStreet: number[] = [];
  const ptNext: number[] = [];
  /** WayClass bits of segment i → i + 1 (the chain's last point: 0) */
  const ptCls: number[] = [];
  const chainOff: number[] = [0];
  const stChainOff: number[] = [0];
  const stLat = new Float64Array(S.length);
  const stLon = new Float64Array(S.length);
  const chainLines: Line[] = [];
  for (let s = 0; s < S.length; s++) {
    const c = S[s];
    const lines = c.ways.length > 0 ? c.ways : c.tigerLines;
    // Chains: join ways at shared end nodes (OSM); TIGER lines are chains of their own. `cls`:
    // the way class of each segment (a chain may run from a surface street into a tunnel).
    const chains: { lat: number[]; lon: number[]; cls: number[] }[] = [];
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
    for (const ch of chains) {
      const start = ptLat.length;
      for (let k = 0; k < ch.lat.length; k++) {
        ptLat.push(ch.lat[k]); ptLon.push(ch.lon[k]); ptStreet.push(s); ptNext.push(k + 1 < ch.lat.length ? 1 : 0); ptCls.push(k < ch.cls.length ? ch.cls[k] : 0);
      }
      chainOff.push(ptLat.length);
      chainLines.push({ lat: ptLat, lon: ptLon, start, end: ptLat.length });
    }
    stChainOff.push(chainOff.length - 1);
    // Representative point: on the geometry, nearest to the length-weighted middle; else mean of addresses/ranges.
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
      let cx = sx / sw, cy = sy / sw;
      let bd = Infinity;
      for (const ch of chains) {
        const p = projectOnLine(lineOf(ch), cy, cx);
        if (p.dist < bd) { bd = p.dist; best = { len: 0, lat: p.lat, lon: p.lon }; }
      }
      stLat[s] = best.lat; stLon[s] = best.lon;
      void cx; void cy;
    } else {
      let sx = 0, sy = 0, n = 0;
      for (const ai of c.addrs) { sx += addrs[ai].raw.lon; sy += addrs[ai].raw.lat; n++; }
      if (n === 0) for (const ri of c.ranges) { const r = ranges[ri]; sx += r.lon[0]; sy += r.lat[0]; n++; }
      stLat[s] = n > 0 ? sy / n : 0; stLon[s] = n > 0 ? sx / n : 0;
      // snap to the address nearest to the mean
      let bd = Infinity;
      for (const ai of c.addrs) { const d = haversine(stLat[s], stLon[s], addrs[ai].raw.lat, addrs[ai].raw.lon); if (d < bd) { bd = d; stLat[s] = addrs[ai].raw.lat; stLon[s] = addrs[ai].raw.lon; } }
    }
  }

  // ---------------------------------------------------------------- addresses in street order
  const addrOrder = addrs.map((_, i) => i).filter((i) => addrs[i].street >= 0);
  addrOrder.sort((x, y) => {
    const a = addrs[x], b = addrs[y];
    return a.street - b.street || a.num - b.num || (a.suffix < b.suffix ? -1 : a.suffix > b.suffix ? 1 : 0) || a.raw.ot - b.raw.ot || a.raw.id - b.raw.id;
  });
  const nA = addrOrder.length;
  const adLat = new Float64Array(nA), adLon = new Float64Array(nA), adNum = new Uint32Array(nA), adSfx = new Uint32Array(nA), adHn = new Uint32Array(nA);
  const adPc = new Int32Array(nA), adLoc = new Uint32Array(nA), adOt = new Uint8Array(nA), adOid = new Float64Array(nA);
  const adCh = new Int32Array(nA), adM = new Float64Array(nA), adOff = new Float32Array(nA), adDist = new Float32Array(nA), adFl = new Uint8Array(nA);
  const stAddrOff = new Uint32Array(S.length + 1);
  const locSets = new Map<string, number>();
  const locSetList: number[][] = [];
  const locSetId = (set: number[]): number => {
    const k = set.join(',');
    let id = locSets.get(k);
    if (id === undefined) { id = locSetList.length; locSets.set(k, id); locSetList.push(set); }
    return id;
  };
  locSetId([]);
  for (let k = 0; k < nA; k++) {
    const a = addrs[addrOrder[k]];
    stAddrOff[a.street + 1] = k + 1;
    adLat[k] = a.raw.lat; adLon[k] = a.raw.lon; adNum[k] = a.num;
    adSfx[k] = keys.add(a.suffix); adHn[k] = strings.add(a.hnText);
    adPc[k] = a.postcode; adLoc[k] = locSetId(a.locSet); adOt[k] = a.raw.ot; adOid[k] = a.raw.id; adFl[k] = a.raw.inferred ? 1 : 0;
    // projection on the street's chains
    let best = -1, bp = { measure: 0, dist: Infinity, offset: 0 };
    for (let ch = stChainOff[a.street]; ch < stChainOff[a.street + 1]; ch++) {
      const p = projectOnLine(chainLines[ch], a.raw.lat, a.raw.lon);
      if (p.dist < bp.dist) { bp = p; best = ch; }
    }
    adCh[k] = best; adM[k] = bp.measure; adOff[k] = best >= 0 ? bp.offset : 0; adDist[k] = best >= 0 ? bp.dist : 0;
  }
  for (let s = 0; s < S.length; s++) if (stAddrOff[s + 1] < stAddrOff[s]) stAddrOff[s + 1] = stAddrOff[s];

  // ---------------------------------------------------------------- ranges in street order
  const rOrder = ranges.map((_, i) => i).sort((x, y) => ranges[x].street - ranges[y].street || Math.min(ranges[x].from, ranges[x].to) - Math.min(ranges[y].from, ranges[y].to) || x - y);
  const nR = rOrder.length;
  const rgFrom = new Int32Array(nR), rgTo = new Int32Array(nR), rgStep = new Uint8Array(nR), rgSrc = new Uint8Array(nR), rgPc = new Int32Array(nR), rgLoc = new Uint32Array(nR);
  const rgPtOff = new Uint32Array(nR + 1);
  const stRangeOff = new Uint32Array(S.length + 1);
  const rgPtLat: number[] = [], rgPtLon: number[] = [];
  for (let k = 0; k < nR; k++) {
    const r = ranges[rOrder[k]];
    stRangeOff[r.street + 1] = k + 1;
    rgFrom[k] = r.from; rgTo[k] = r.to; rgStep[k] = r.step; rgSrc[k] = r.src; rgPc[k] = r.postcode; rgLoc[k] = locSetId(r.locSet);
    rgPtOff[k] = rgPtLat.length;
    for (let i = 0; i < r.lat.length; i++) { rgPtLat.push(r.lat[i]); rgPtLon.push(r.lon[i]); }
  }
  rgPtOff[nR] = rgPtLat.length;
  for (let s = 0; s < S.length; s++) if (stRangeOff[s + 1] < stRangeOff[s]) stRangeOff[s + 1] = stRangeOff[s];

  // ---------------------------------------------------------------- street attributes: postcodes, localities
  const stPcOff: number[] = [0];
  const stPcIds: number[] = [];
  const stLoc = new Uint32Array(S.length);
  const stMuni = new Int32Array(S.length);
  for (let s = 0; s < S.length; s++) {
    const pcs = new Map<number, number>();
    const loc = new Set<number>();
    for (let k = stAddrOff[s]; k < stAddrOff[s + 1]; k++) {
      if (adPc[k] >= 0) pcs.set(adPc[k], (pcs.get(adPc[k]) ?? 0) + 1);
      for (const p of locSetList[adLoc[k]]) loc.add(p);
    }
    for (let k = stRangeOff[s]; k < stRangeOff[s + 1]; k++) {
      if (rgPc[k] >= 0) pcs.set(rgPc[k], (pcs.get(rgPc[k]) ?? 0) + 1);
      for (const p of locSetList[rgLoc[k]]) loc.add(p);
    }
    const admins = adminAt(stLat[s], stLon[s]);
    for (const p of localitySet(stLat[s], stLon[s], '', '', '', admins)) loc.add(p);
    if (S[s].locality >= 0) loc.add(S[s].locality);
    if (pcs.size === 0) { const p = postalAt(stLat[s], stLon[s]); if (p >= 0) pcs.set(p, 1); }
    for (const [p] of [...pcs].sort((a, b) => b[1] - a[1] || a[0] - b[0])) stPcIds.push(p);
    stPcOff.push(stPcIds.length);
    stLoc[s] = locSetId([...loc].sort((a, b) => a - b));
    stMuni[s] = S[s].locality >= 0 ? S[s].locality : municipalityAt(stLat[s], stLon[s], admins);
  }

  // ---------------------------------------------------------------- postcode table (sorted by key)
  for (let k = 0; k < nA; k++) {
    const p = adPc[k];
    if (p < 0) continue;
    const t = pcSum[p];
    t.sx += adLon[k]; t.sy += adLat[k]; t.n++;
    for (const pl of locSetList[adLoc[k]]) t.loc.set(pl, (t.loc.get(pl) ?? 0) + 1);
  }
  for (let k = 0; k < nR; k++) {
    const p = rgPc[k];
    if (p < 0) continue;
    const t = pcSum[p];
    const mid = Math.floor((rgPtOff[k] + rgPtOff[k + 1] - 1) / 2);
    t.sx += rgPtLon[mid]; t.sy += rgPtLat[mid]; t.n++;
    for (const pl of locSetList[rgLoc[k]]) t.loc.set(pl, (t.loc.get(pl) ?? 0) + 1);
  }
  for (const pp of postalPolys) {
    const p = postcodeId(pp.code);
    const t = pcSum[p];
    if (t.n === 0) { t.sx = pp.poly.centroid.lon; t.sy = pp.poly.centroid.lat; t.n = 1; }
  }
  const pcKeys = [...pcIndex.keys()].filter((k) => pcSum[pcIndex.get(k)!].n > 0).sort();
  const pcNew = new Int32Array(pcSum.length).fill(-1);
  pcKeys.forEach((k, i) => { pcNew[pcIndex.get(k)!] = i; });
  const nP = pcKeys.length;
  const pcKey = new Uint32Array(nP), pcDisp = new Uint32Array(nP), pcLat = new Float64Array(nP), pcLon = new Float64Array(nP), pcRad = new Float32Array(nP), pcLoc = new Uint32Array(nP);
  const pcRadAcc = new Float64Array(nP);
  pcKeys.forEach((k, i) => {
    const old = pcIndex.get(k)!;
    const t = pcSum[old];
    pcKey[i] = keys.add(k);
    const disp = [...pcDisplay[old]].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? k;
    pcDisp[i] = strings.add(disp);
    pcLat[i] = t.sy / t.n; pcLon[i] = t.sx / t.n;
    // places that hold at least 10 % of the postcode's addresses (the postal town, not strays)
    const locs = [...t.loc].filter((x) => x[1] >= 0.1 * t.n).sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, 12).map((x) => x[0]);
    pcLoc[i] = locSetId(locs);
  });
  for (let k = 0; k < nA; k++) { if (adPc[k] >= 0) { const i = pcNew[adPc[k]]; adPc[k] = i; if (i >= 0) pcRadAcc[i] = Math.max(pcRadAcc[i], haversine(pcLat[i], pcLon[i], adLat[k], adLon[k])); } }
  for (let k = 0; k < nR; k++) if (rgPc[k] >= 0) rgPc[k] = pcNew[rgPc[k]];
  for (let i = 0; i < stPcIds.length; i++) stPcIds[i] = pcNew[stPcIds[i]];
  for (let i = 0; i < nP; i++) pcRad[i] = Math.max(500, pcRadAcc[i]);

  // ---------------------------------------------------------------- places: keys, positions
  for (const p of places) if (p.synthetic && p.sn > 0) { p.lat = p.sy / p.sn; p.lon = p.sx / p.sn; }
  const nPl = places.length;
  const plName = new Uint32Array(nPl), plLat = new Float64Array(nPl), plLon = new Float64Array(nPl), plRank = new Uint8Array(nPl);
  places.forEach((p, i) => { plName[i] = strings.add(p.display); plLat[i] = p.lat; plLon[i] = p.lon; plRank[i] = p.rank; });
  const pkList = [...placesByKey.keys()].sort();
  const pkKey = new Uint32Array(pkList.length);
  const pkOff = new Uint32Array(pkList.length + 1);
  const pkIds: number[] = [];
  pkList.forEach((k, i) => { pkKey[i] = keys.add(k); pkOff[i] = pkIds.length; for (const id of [...placesByKey.get(k)!].sort((a, b) => a - b)) pkIds.push(id); });
  pkOff[pkList.length] = pkIds.length;

  // ---------------------------------------------------------------- names
  const nameList = [...new Set(S.map((c) => c.key))].sort();
  const nameIdx = new Map(nameList.map((k, i) => [k, i]));
  const nN = nameList.length;
  const nmCore = new Uint32Array(nN), nmNs = new Uint32Array(nN), nmFull = new Uint32Array(nN), nmPh = new Uint32Array(nN), nmType = new Uint32Array(nN);
  const nmTat = new Uint8Array(nN), nmPre = new Uint8Array(nN), nmPost = new Uint8Array(nN), nmDig = new Uint32Array(nN), nmWords = new Uint32Array(nN), nmRaw = new Uint32Array(nN);
  const nsKeys: string[] = [];
  const fullKeys: string[] = [];
  nameList.forEach((k, i) => {
    const nk = nameKeys.get(k)!;
    nmCore[i] = keys.add(nk.coreKey); nmNs[i] = keys.add(nk.nsKey); nmFull[i] = keys.add(nk.fullKey);
    nmPh[i] = keys.add(phonetic(nk.nsKey)); nmType[i] = keys.add(nk.typeCanon); nmTat[i] = nk.typeAt;
    nmPre[i] = DIR_CODES.indexOf(nk.predir); nmPost[i] = DIR_CODES.indexOf(nk.postdir); nmDig[i] = keys.add(nk.digits);
    nmWords[i] = keys.add(nk.core.join(' '));
    nmRaw[i] = keys.add(nk.rawKey);
    nsKeys.push(nk.nsKey);
    fullKeys.push(nk.fullKey);
  });
  const stName = new Uint32Array(S.length), stDisp = new Uint32Array(S.length);
  const nmStreetsOff = new Uint32Array(nN + 1);
  S.forEach((c, s) => {
    stName[s] = nameIdx.get(c.key)!;
    const disp = [...c.displayVotes].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? c.key;
    stDisp[s] = strings.add(disp);
    nmStreetsOff[stName[s] + 1] = s + 1;
  });
  for (let i = 0; i < nN; i++) if (nmStreetsOff[i + 1] < nmStreetsOff[i]) nmStreetsOff[i + 1] = nmStreetsOff[i];
  // phonetic order
  const phOrder = Uint32Array.from(nameList.map((_, i) => i)).sort((a, b) => {
    const x = keys.list[nmPh[a]], y = keys.list[nmPh[b]];
    return x < y ? -1 : x > y ? 1 : a - b;
  });
  progress('geocode: assemble', 4, 5);

  // ---------------------------------------------------------------- sections
  const m: Sections = new Map();
  m.set('meta', Float64Array.of(FORMAT_VERSION, nA, S.length, nN, nPl, nP, nR));
  m.set('st.name', stName); m.set('st.disp', stDisp); m.set('st.lat', stLat); m.set('st.lon', stLon); m.set('st.loc', stLoc);
  m.set('st.muni', stMuni); m.set('st.ao', stAddrOff); m.set('st.ro', stRangeOff); m.set('st.co', Uint32Array.from(stChainOff));
  m.set('st.pco', Uint32Array.from(stPcOff)); m.set('st.pci', Int32Array.from(stPcIds));
  m.set('ch.po', Uint32Array.from(chainOff)); m.set('pt.lat', Float64Array.from(ptLat)); m.set('pt.lon', Float64Array.from(ptLon));
  m.set('pt.st', Uint32Array.from(ptStreet)); m.set('pt.nx', Uint8Array.from(ptNext)); m.set('pt.cls', Uint8Array.from(ptCls));
  m.set('ad.lat', adLat); m.set('ad.lon', adLon); m.set('ad.num', adNum); m.set('ad.sfx', adSfx); m.set('ad.hn', adHn);
  m.set('ad.pc', adPc); m.set('ad.loc', adLoc); m.set('ad.ot', adOt); m.set('ad.oid', adOid); m.set('ad.ch', adCh);
  m.set('ad.m', adM); m.set('ad.off', adOff); m.set('ad.dist', adDist); m.set('ad.fl', adFl);
  m.set('rg.from', rgFrom); m.set('rg.to', rgTo); m.set('rg.step', rgStep); m.set('rg.src', rgSrc); m.set('rg.pc', rgPc); m.set('rg.loc', rgLoc);
  m.set('rg.po', rgPtOff); m.set('rg.lat', Float64Array.from(rgPtLat)); m.set('rg.lon', Float64Array.from(rgPtLon));
  m.set('pl.name', plName); m.set('pl.lat', plLat); m.set('pl.lon', plLon); m.set('pl.rank', plRank);
  m.set('pk.key', pkKey); m.set('pk.po', pkOff); m.set('pk.pi', Uint32Array.from(pkIds));
  const lsOff = new Uint32Array(locSetList.length + 1);
  const lsIds: number[] = [];
  locSetList.forEach((set, i) => { lsOff[i] = lsIds.length; lsIds.push(...set); });
  lsOff[locSetList.length] = lsIds.length;
  m.set('ls.o', lsOff); m.set('ls.i', Uint32Array.from(lsIds));
  m.set('pc.key', pcKey); m.set('pc.disp', pcDisp); m.set('pc.lat', pcLat); m.set('pc.lon', pcLon); m.set('pc.rad', pcRad); m.set('pc.loc', pcLoc);
  m.set('nm.core', nmCore); m.set('nm.ns', nmNs); m.set('nm.full', nmFull); m.set('nm.ph', nmPh); m.set('nm.type', nmType);
  m.set('nm.tat', nmTat); m.set('nm.pre', nmPre); m.set('nm.post', nmPost); m.set('nm.dig', nmDig); m.set('nm.words', nmWords);
  m.set('nm.so', nmStreetsOff); m.set('nm.pho', phOrder); m.set('nm.raw', nmRaw);
  buildTrigramSections(m, 'tn', nsKeys);
  buildTrigramSections(m, 'tf', fullKeys);
  buildTrigramSections(m, 'tp', pkList);
  // spatial grids: address points; street segments
  const ga = new GridBuilder(0.005);
  for (let k = 0; k < nA; k++) ga.addPoint(k, adLat[k], adLon[k]);
  ga.write(m, 'ga');
  const gs = new GridBuilder(0.005);
  for (let i = 0; i < ptLat.length; i++) {
    if (!ptNext[i]) { if (i === 0 || !ptNext[i - 1]) gs.addPoint(i, ptLat[i], ptLon[i]); continue; }
    gs.addBox(i, Math.min(ptLat[i], ptLat[i + 1]), Math.min(ptLon[i], ptLon[i + 1]), Math.max(ptLat[i], ptLat[i + 1]), Math.max(ptLon[i], ptLon[i + 1]));
  }
  gs.write(m, 'gs');
  // range segments (OSM interpolation lines, TIGER) for reverse geocoding with house numbers
  const rgPtRange = new Uint32Array(rgPtLat.length);
  const gr = new GridBuilder(0.005);
  for (let k = 0; k < nR; k++) {
    for (let i = rgPtOff[k]; i < rgPtOff[k + 1]; i++) {
      rgPtRange[i] = k;
      if (i + 1 < rgPtOff[k + 1]) gr.addBox(i, Math.min(rgPtLat[i], rgPtLat[i + 1]), Math.min(rgPtLon[i], rgPtLon[i + 1]), Math.max(rgPtLat[i], rgPtLat[i + 1]), Math.max(rgPtLon[i], rgPtLon[i + 1]));
    }
  }
  gr.write(m, 'gr');
  m.set('rg.pk', rgPtRange);
  strings.write(m, 'str');
  keys.write(m, 'key');
  progress('geocode: assemble', 5, 5);
  if (nA === 0 && S.length === 0 && nPl === 0) {
    throw new EngineError('InvalidInput', 'The OSM extract holds no addresses, named streets or places to geocode.');
  }
  const index = new GeocodeIndex(m);
  const stats: GeocodeBuildStats = {
    addresses: nA, streets: S.length, names: nN, places: nPl, postcodes: nP, ranges: nR, tigerSkipped: tiger.skipped,
    ms: performance.now() - t0,
  };
  return { index, stats };
}

export type { RawLine };
