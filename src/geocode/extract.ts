/**
 * Reads what the geocoder needs from an OSM PBF in three passes (relations → ways → nodes):
 * address objects (nodes, building ways, multipolygon relations with addr:*), named highways,
 * `addr:interpolation` lines, place nodes/areas, administrative and postal-code boundaries and
 * associatedStreet relations. Way geometries are resolved to coordinates at the end.
 */
import type { OsmPbfFile, Tags } from '../osm/pbf.js';
import { MemberType } from '../osm/pbf.js';
import type { LongWorkOptions } from '../core/cancel.js';

export interface AddrTags {
  hn: string;
  street: string;
  place: string;
  postcode: string;
  city: string;
  state: string;
  country: string;
}

export interface RawAddress extends AddrTags {
  /** 0 node, 1 way, 2 relation. */
  ot: number;
  /** True when the street was not tagged but taken from the nearest named highway. */
  inferred?: boolean;
  id: number;
  lat: number;
  lon: number;
}

export interface RawLine {
  id: number;
  nodeIds: number[];
  lat: number[];
  lon: number[];
}

export interface RawStreetWay extends RawLine {
  name: string;
  altNames: string[];
  /** {@link WayClass} bits: what makes the way a poor answer for reverse geocoding. */
  cls: number;
}

/** Street-way classes (bits) that reverse geocoding avoids when a plain surface street is near. */
export const WayClass = {
  /** tunnel=* (not building_passage), layer < 0, location=underground */
  Underground: 1,
  /** covered=*, tunnel=building_passage */
  Covered: 2,
  /** highway=motorway/trunk */
  Motorway: 4,
  /** highway=*_link */
  Link: 8,
  /** highway=footway/path/steps/cycleway/bridleway */
  Path: 16,
} as const;

const PATH_HIGHWAYS = new Set(['footway', 'path', 'steps', 'cycleway', 'bridleway']);

/** The {@link WayClass} bits of a highway's tags. */
export function wayClass(t: Tags): number {
  let c = 0;
  const hw = t.highway ?? '';
  const tunnel = t.tunnel;
  const layer = Number.parseFloat(t.layer ?? '');
  if ((tunnel && tunnel !== 'no' && tunnel !== 'building_passage') || layer < 0 || t.location === 'underground') c |= WayClass.Underground;
  if ((t.covered && t.covered !== 'no') || tunnel === 'building_passage') c |= WayClass.Covered;
  if (hw === 'motorway' || hw === 'trunk') c |= WayClass.Motorway;
  if (hw.endsWith('_link')) c |= WayClass.Link;
  if (PATH_HIGHWAYS.has(hw)) c |= WayClass.Path;
  return c;
}

export interface RawInterpolation extends RawLine {
  step: number;
  street: string;
  postcode: string;
}

export interface RawPlace {
  names: string[];
  kind: string;
  lat: number;
  lon: number;
  /** Admin level for boundaries (0 for place nodes). */
  level: number;
  polygonRings?: RawLine[][]; // [outer ways, inner ways]
  postcode?: string;
  ot: number;
  id: number;
}

export interface RawOsm {
  addresses: RawAddress[];
  /** Every node with addr:housenumber (also excluded ones), for interpolation end points. */
  numberedNodes: Map<number, { hn: string; street: string; postcode: string }>;
  streets: RawStreetWay[];
  interpolations: RawInterpolation[];
  places: RawPlace[];
  /** Administrative (kind 'admin') and postal-code (kind 'postal') boundaries. */
  boundaries: RawPlace[];
}

const STREET_HIGHWAYS_EXCLUDED = new Set(['proposed', 'construction', 'platform', 'bus_stop', 'elevator', 'abandoned', 'razed', 'disused', 'corridor', 'emergency_access_point', 'street_lamp', 'traffic_signals', 'crossing', 'stop', 'give_way', 'turning_circle', 'milestone', 'speed_camera', 'motorway_junction', 'rest_area', 'services']);
const PLACE_KINDS = new Set(['city', 'town', 'village', 'suburb', 'borough', 'quarter', 'neighbourhood', 'hamlet', 'locality', 'isolated_dwelling', 'farm', 'municipality', 'county', 'state', 'province', 'region', 'country', 'city_block', 'plot', 'allotments']);

function addrOf(t: Tags): AddrTags {
  return {
    hn: t['addr:housenumber'] ?? t['addr:conscriptionnumber'] ?? '',
    street: t['addr:street'] ?? '',
    place: t['addr:place'] ?? '',
    postcode: t['addr:postcode'] ?? t['postal_code'] ?? '',
    city: t['addr:city'] ?? '',
    state: t['addr:state'] ?? t['addr:province'] ?? '',
    country: t['addr:country'] ?? '',
  };
}

function placeNames(t: Tags): string[] {
  const out: string[] = [];
  const push = (v: string | undefined) => {
    if (!v) return;
    for (const p of v.split(';')) {
      const s = p.trim();
      if (s.length > 0 && !out.includes(s)) out.push(s);
    }
  };
  push(t.name);
  push(t.official_name);
  push(t.short_name);
  push(t.alt_name);
  push(t['name:en']);
  push(t['name:de']);
  push(t['name:fr']);
  push(t['name:it']);
  push(t.old_name);
  return out;
}

/**
 * Extracts the raw geocoding material. `exclude` holds 'n123' / 'w45' / 'r6' address objects to
 * leave out. Three passes over the file — {@link readRelations}, {@link readWays},
 * {@link readNodes} — each learning which objects the next must keep; then way and relation
 * geometries are resolved to coordinates ({@link wayObjects}, {@link relationObjects}) and
 * associatedStreet relations name the streets of their untagged members.
 */
export function extractOsm(osm: OsmPbfFile, exclude: ReadonlySet<string> | undefined, opts: LongWorkOptions = {}): RawOsm {
  const rel = readRelations(osm, opts);
  const ways = readWays(osm, rel.needWays, exclude, opts);
  const nodes = readNodes(osm, nodesNeeded(rel.rels, ways), exclude, opts);
  const { addresses, places } = nodes;
  const { streets, interpolations } = wayObjects(ways, nodes.coords, addresses, places);
  const boundaries = relationObjects(rel.rels, ways.memberWays, nodes.coords, exclude, addresses, places);
  applyAssociatedStreets(addresses, rel.assocStreet);
  return { addresses, numberedNodes: nodes.numberedNodes, streets, interpolations, places, boundaries };
}

// ----------------------------------------------------------------------------- pass 1: relations

interface RelRec { id: number; tags: Tags; outer: number[]; inner: number[]; centre: number; kind: 'admin' | 'postal' | 'addr' | 'place' }

/**
 * Pass 1. Keeps administrative and postal-code boundaries, multipolygon/building relations with a
 * house number and multipolygon places (with their outer/inner member ways, which pass 2 must
 * keep, and their label or admin_centre node), and the street name that associatedStreet/street
 * relations give their house members ('n1' / 'w2' / 'r3' → name).
 */
function readRelations(osm: OsmPbfFile, opts: LongWorkOptions): { rels: RelRec[]; needWays: Set<number>; assocStreet: Map<string, string> } {
  const rels: RelRec[] = [];
  const needWays = new Set<number>();
  const assocStreet = new Map<string, string>();
  osm.read({
    relation(id, members, tags) {
      const type = tags.type;
      let kind: RelRec['kind'] | null = null;
      if (tags.boundary === 'administrative' && tags.admin_level && (tags.name || tags['name:en'])) kind = 'admin';
      else if (tags.boundary === 'postal_code' && (tags.postal_code || tags['addr:postcode'] || tags.name)) kind = 'postal';
      else if ((type === 'multipolygon' || type === 'building') && tags['addr:housenumber']) kind = 'addr';
      else if (tags.place && PLACE_KINDS.has(tags.place) && tags.name && type === 'multipolygon') kind = 'place';
      if ((type === 'associatedStreet' || type === 'street') && tags.name) {
        for (const m of members) {
          if (m.role === 'house' || m.role === 'addr:houselink' || m.role === 'address') {
            assocStreet.set(`${m.type === MemberType.Node ? 'n' : m.type === MemberType.Way ? 'w' : 'r'}${m.ref}`, tags.name);
          }
        }
      }
      if (!kind) return;
      const rec: RelRec = { id, tags, outer: [], inner: [], centre: 0, kind };
      for (const m of members) {
        if (m.type === MemberType.Way) {
          if (m.role === 'inner') rec.inner.push(m.ref);
          else if (m.role === 'outer' || m.role === '') rec.outer.push(m.ref);
          else continue;
          needWays.add(m.ref);
        } else if (m.type === MemberType.Node && (m.role === 'admin_centre' || m.role === 'label')) {
          if (rec.centre === 0 || m.role === 'label') rec.centre = m.ref;
        }
      }
      if (rec.outer.length > 0) rels.push(rec);
    },
  }, { ...opts, phase: 'geocode: relations' });
  return { rels, needWays, assocStreet };
}

// ----------------------------------------------------------------------------- pass 2: ways

/** The ways pass 2 keeps, as node references (coordinates come in pass 3). */
interface WayPass {
  /** member ways of the kept relations: id → node refs */
  memberWays: Map<number, number[]>;
  streetWays: { id: number; refs: number[]; name: string; alt: string[]; cls: number }[];
  addrWays: { id: number; refs: number[]; addr: AddrTags }[];
  interpWays: { id: number; refs: number[]; step: number; street: string; postcode: string }[];
  placeWays: { id: number; refs: number[]; tags: Tags }[];
}

/**
 * Pass 2. Keeps the relations' member ways, named highways (with alternative names and their
 * {@link WayClass}), ways with a house number (building addresses, unless excluded),
 * `addr:interpolation` ways with a usable step, and place areas.
 */
function readWays(osm: OsmPbfFile, needWays: Set<number>, exclude: ReadonlySet<string> | undefined, opts: LongWorkOptions): WayPass {
  const out: WayPass = { memberWays: new Map(), streetWays: [], addrWays: [], interpWays: [], placeWays: [] };
  const { memberWays, streetWays, addrWays, interpWays, placeWays } = out;
  osm.read({
    way(id, refs, n, tags) {
      let keep: number[] | null = null;
      const get = () => (keep ??= Array.from(refs.subarray(0, n)));
      if (needWays.has(id)) memberWays.set(id, get());
      const hw = tags.highway;
      if (hw && !STREET_HIGHWAYS_EXCLUDED.has(hw) && (tags.name || tags['addr:street'])) {
        const alt: string[] = [];
        for (const k of ['alt_name', 'official_name', 'old_name', 'short_name', 'name:de', 'name:fr', 'name:it', 'name:en']) {
          const v = tags[k];
          if (v) for (const p of v.split(';')) if (p.trim() && p.trim() !== tags.name) alt.push(p.trim());
        }
        streetWays.push({ id, refs: get(), name: tags.name ?? tags['addr:street'], alt, cls: wayClass(tags) });
      }
      if (tags['addr:housenumber'] || tags['addr:conscriptionnumber']) {
        if (!exclude?.has(`w${id}`)) addrWays.push({ id, refs: get(), addr: addrOf(tags) });
      }
      const ip = tags['addr:interpolation'];
      if (ip) {
        const step = ip === 'odd' || ip === 'even' ? 2 : ip === 'all' ? 1 : /^\d+$/.test(ip) ? Number(ip) : 0;
        if (step > 0) interpWays.push({ id, refs: get(), step, street: tags['addr:street'] ?? '', postcode: tags['addr:postcode'] ?? '' });
      }
      if (tags.place && PLACE_KINDS.has(tags.place) && tags.name && n >= 3) placeWays.push({ id, refs: get(), tags });
    },
  }, { ...opts, phase: 'geocode: ways' });
  return out;
}

// ----------------------------------------------------------------------------- pass 3: nodes

/** Node id → coordinate slot, for every node a kept way or relation references (first-reference order). */
function nodesNeeded(rels: RelRec[], ways: WayPass): Map<number, number> {
  const need = new Map<number, number>();
  const wantNode = (id: number) => { if (!need.has(id)) need.set(id, need.size); };
  for (const w of ways.memberWays.values()) for (const r of w) wantNode(r);
  for (const w of ways.streetWays) for (const r of w.refs) wantNode(r);
  for (const w of ways.addrWays) for (const r of w.refs) wantNode(r);
  for (const w of ways.interpWays) for (const r of w.refs) wantNode(r);
  for (const w of ways.placeWays) for (const r of w.refs) wantNode(r);
  for (const r of rels) if (r.centre) wantNode(r.centre);
  return need;
}

/** Coordinates of the needed nodes (NaN when the extract lacks the node). */
class NodeCoords {
  readonly lat: Float64Array;
  readonly lon: Float64Array;
  constructor(readonly slots: Map<number, number>) {
    this.lat = new Float64Array(slots.size).fill(NaN);
    this.lon = new Float64Array(slots.size).fill(NaN);
  }

  /** The coordinates of node `id`, or null when unknown. */
  at(id: number): { lat: number; lon: number } | null {
    const s = this.slots.get(id);
    return s !== undefined && !Number.isNaN(this.lat[s]) ? { lat: this.lat[s], lon: this.lon[s] } : null;
  }

  /** A way's polyline; nodes missing from the extract are skipped. */
  line(id: number, refs: number[]): RawLine {
    const lat: number[] = [], lon: number[] = [], ids: number[] = [];
    for (const r of refs) {
      const s = this.slots.get(r);
      if (s === undefined || Number.isNaN(this.lat[s])) continue;
      lat.push(this.lat[s]); lon.push(this.lon[s]); ids.push(r);
    }
    return { id, nodeIds: ids, lat, lon };
  }
}

/**
 * Pass 3. Records the coordinates of the needed nodes, and takes address nodes (every numbered
 * node for interpolation end points; as addresses unless excluded) and place nodes.
 */
function readNodes(osm: OsmPbfFile, need: Map<number, number>, exclude: ReadonlySet<string> | undefined, opts: LongWorkOptions): {
  coords: NodeCoords; addresses: RawAddress[]; numberedNodes: RawOsm['numberedNodes']; places: RawPlace[];
} {
  const coords = new NodeCoords(need);
  const nlat = coords.lat, nlon = coords.lon;
  const addresses: RawAddress[] = [];
  const numberedNodes = new Map<number, { hn: string; street: string; postcode: string }>();
  const places: RawPlace[] = [];
  osm.read({
    node(id, lat, lon, tags) {
      const slot = need.get(id);
      if (slot !== undefined) { nlat[slot] = lat; nlon[slot] = lon; }
      if (!tags) return;
      const hn = tags['addr:housenumber'];
      if (hn) {
        numberedNodes.set(id, { hn, street: tags['addr:street'] ?? '', postcode: tags['addr:postcode'] ?? '' });
        if (!exclude?.has(`n${id}`)) addresses.push({ ot: 0, id, lat, lon, ...addrOf(tags) });
      }
      if (tags.place && PLACE_KINDS.has(tags.place) && tags.name) {
        places.push({ names: placeNames(tags), kind: tags.place, lat, lon, level: 0, ot: 0, id });
      }
    },
  }, { ...opts, phase: 'geocode: nodes' });
  return { coords, addresses, numberedNodes, places };
}

// ----------------------------------------------------------------------------- geometry

/** Area centroid of a closed way (shoelace), else the mean of its vertices; null for an empty line. */
function centroidOf(l: RawLine): { lat: number; lon: number } | null {
  const n = l.lat.length;
  if (n === 0) return null;
  const closed = n >= 4 && l.nodeIds[0] === l.nodeIds[n - 1];
  if (closed) {
    let a = 0, cx = 0, cy = 0;
    const x0 = l.lon[0], y0 = l.lat[0];
    for (let i = 0; i + 1 < n; i++) {
      const xi = l.lon[i] - x0, yi = l.lat[i] - y0, xj = l.lon[i + 1] - x0, yj = l.lat[i + 1] - y0;
      const f = xi * yj - xj * yi;
      a += f; cx += (xi + xj) * f; cy += (yi + yj) * f;
    }
    if (Math.abs(a) > 1e-14) return { lat: y0 + cy / (3 * a), lon: x0 + cx / (3 * a) };
  }
  let sx = 0, sy = 0;
  const m = closed ? n - 1 : n;
  for (let i = 0; i < m; i++) { sx += l.lon[i]; sy += l.lat[i]; }
  return { lat: sy / m, lon: sx / m };
}

/**
 * The kept ways with coordinates: building addresses (at their centroid) and place areas are
 * appended to `addresses` / `places`; returns the named highways (non-empty) and interpolation
 * lines (≥ 2 points).
 */
function wayObjects(ways: WayPass, coords: NodeCoords, addresses: RawAddress[], places: RawPlace[]): { streets: RawStreetWay[]; interpolations: RawInterpolation[] } {
  for (const w of ways.addrWays) {
    const c = centroidOf(coords.line(w.id, w.refs));
    if (c) addresses.push({ ot: 1, id: w.id, lat: c.lat, lon: c.lon, ...w.addr });
  }
  const streets: RawStreetWay[] = [];
  for (const w of ways.streetWays) {
    const l = coords.line(w.id, w.refs);
    if (l.lat.length > 0) streets.push({ ...l, name: w.name, altNames: w.alt, cls: w.cls });
  }
  const interpolations: RawInterpolation[] = [];
  for (const w of ways.interpWays) {
    const l = coords.line(w.id, w.refs);
    if (l.lat.length >= 2) interpolations.push({ ...l, step: w.step, street: w.street, postcode: w.postcode });
  }
  for (const w of ways.placeWays) {
    const c = centroidOf(coords.line(w.id, w.refs));
    if (c) places.push({ names: placeNames(w.tags), kind: w.tags.place, lat: c.lat, lon: c.lon, level: 0, ot: 1, id: w.id });
  }
  return { streets, interpolations };
}

/**
 * The kept relations with their member ways' coordinates: address relations (unless excluded)
 * are appended to `addresses` at the mean of their outer ways' centroids, multipolygon places to
 * `places`; returns the administrative and postal-code boundaries (rings as member ways, label
 * or admin_centre position).
 */
function relationObjects(rels: RelRec[], memberWays: Map<number, number[]>, coords: NodeCoords, exclude: ReadonlySet<string> | undefined, addresses: RawAddress[], places: RawPlace[]): RawPlace[] {
  const boundaries: RawPlace[] = [];
  for (const r of rels) {
    const outer = r.outer.filter((id) => memberWays.has(id)).map((id) => coords.line(id, memberWays.get(id)!));
    const inner = r.inner.filter((id) => memberWays.has(id)).map((id) => coords.line(id, memberWays.get(id)!));
    if (outer.length === 0) continue;
    const centre = r.centre ? coords.at(r.centre) : null;
    if (r.kind === 'addr') {
      if (exclude?.has(`r${r.id}`)) continue;
      // centroid of the outer ways' vertices (ways of a building are small)
      let sx = 0, sy = 0, n = 0;
      for (const o of outer) {
        const c = centroidOf(o);
        if (c) { sx += c.lon; sy += c.lat; n++; }
      }
      if (n > 0) addresses.push({ ot: 2, id: r.id, lat: sy / n, lon: sx / n, ...addrOf(r.tags) });
      continue;
    }
    const names = placeNames(r.tags);
    const rec: RawPlace = {
      names, kind: r.kind === 'admin' ? 'admin' : r.kind === 'postal' ? 'postal' : r.tags.place,
      lat: centre?.lat ?? NaN, lon: centre?.lon ?? NaN,
      level: r.kind === 'admin' ? Number(r.tags.admin_level) || 0 : 0,
      polygonRings: [outer, inner], ot: 2, id: r.id,
    };
    if (r.kind === 'postal') rec.postcode = r.tags.postal_code ?? r.tags['addr:postcode'] ?? r.tags.name;
    if (r.kind === 'place') {
      rec.level = 0;
      places.push(rec);
    } else boundaries.push(rec);
  }
  return boundaries;
}

/** associatedStreet members without addr:street take the relation's name. */
function applyAssociatedStreets(addresses: RawAddress[], assocStreet: Map<string, string>): void {
  if (assocStreet.size === 0) return;
  for (const a of addresses) {
    if (!a.street) {
      const s = assocStreet.get(`${a.ot === 0 ? 'n' : a.ot === 1 ? 'w' : 'r'}${a.id}`);
      if (s) a.street = s;
    }
  }
}
