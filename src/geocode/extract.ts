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

/** Extracts the raw geocoding material. `exclude` holds 'n123' / 'w45' / 'r6' address objects to leave out. */
export function extractOsm(osm: OsmPbfFile, exclude: ReadonlySet<string> | undefined, opts: LongWorkOptions = {}): RawOsm {
  // ---- pass 1: relations
  interface RelRec { id: number; tags: Tags; outer: number[]; inner: number[]; centre: number; kind: 'admin' | 'postal' | 'addr' | 'place' }
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

  // ---- pass 2: ways
  const memberWays = new Map<number, number[]>();
  const streetWays: { id: number; refs: number[]; name: string; alt: string[]; cls: number }[] = [];
  const addrWays: { id: number; refs: number[]; addr: AddrTags }[] = [];
  const interpWays: { id: number; refs: number[]; step: number; street: string; postcode: string }[] = [];
  const placeWays: { id: number; refs: number[]; tags: Tags }[] = [];
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

  // ---- pass 3: nodes
  const need = new Map<number, number>();
  const wantNode = (id: number) => { if (!need.has(id)) need.set(id, need.size); };
  for (const w of memberWays.values()) for (const r of w) wantNode(r);
  for (const w of streetWays) for (const r of w.refs) wantNode(r);
  for (const w of addrWays) for (const r of w.refs) wantNode(r);
  for (const w of interpWays) for (const r of w.refs) wantNode(r);
  for (const w of placeWays) for (const r of w.refs) wantNode(r);
  for (const r of rels) if (r.centre) wantNode(r.centre);
  const nlat = new Float64Array(need.size).fill(NaN);
  const nlon = new Float64Array(need.size).fill(NaN);
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

  const line = (id: number, refs: number[]): RawLine => {
    const lat: number[] = [], lon: number[] = [], ids: number[] = [];
    for (const r of refs) {
      const s = need.get(r);
      if (s === undefined || Number.isNaN(nlat[s])) continue;
      lat.push(nlat[s]); lon.push(nlon[s]); ids.push(r);
    }
    return { id, nodeIds: ids, lat, lon };
  };
  const centroidOf = (l: RawLine): { lat: number; lon: number } | null => {
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
  };

  for (const w of addrWays) {
    const c = centroidOf(line(w.id, w.refs));
    if (c) addresses.push({ ot: 1, id: w.id, lat: c.lat, lon: c.lon, ...w.addr });
  }
  const streets: RawStreetWay[] = [];
  for (const w of streetWays) {
    const l = line(w.id, w.refs);
    if (l.lat.length > 0) streets.push({ ...l, name: w.name, altNames: w.alt, cls: w.cls });
  }
  const interpolations: RawInterpolation[] = [];
  for (const w of interpWays) {
    const l = line(w.id, w.refs);
    if (l.lat.length >= 2) interpolations.push({ ...l, step: w.step, street: w.street, postcode: w.postcode });
  }
  for (const w of placeWays) {
    const c = centroidOf(line(w.id, w.refs));
    if (c) places.push({ names: placeNames(w.tags), kind: w.tags.place, lat: c.lat, lon: c.lon, level: 0, ot: 1, id: w.id });
  }
  const boundaries: RawPlace[] = [];
  for (const r of rels) {
    const outer = r.outer.filter((id) => memberWays.has(id)).map((id) => line(id, memberWays.get(id)!));
    const inner = r.inner.filter((id) => memberWays.has(id)).map((id) => line(id, memberWays.get(id)!));
    if (outer.length === 0) continue;
    let centre: { lat: number; lon: number } | null = null;
    if (r.centre) {
      const s = need.get(r.centre);
      if (s !== undefined && !Number.isNaN(nlat[s])) centre = { lat: nlat[s], lon: nlon[s] };
    }
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
  // associatedStreet members without addr:street
  if (assocStreet.size > 0) {
    for (const a of addresses) {
      if (!a.street) {
        const s = assocStreet.get(`${a.ot === 0 ? 'n' : a.ot === 1 ? 'w' : 'r'}${a.id}`);
        if (s) a.street = s;
      }
    }
  }
  return { addresses, numberedNodes, streets, interpolations, places, boundaries };
}
