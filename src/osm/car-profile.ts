/**
 * The car profile: which OSM ways a car may drive, in which directions, how fast, and which
 * facts about a road are kept for warnings. Also the node barriers and the turn-restriction tags
 * a car obeys. Pure functions over tag objects; the graph builder calls them once per way.
 *
 * The choices (documented in docs/road-graph.md) follow OSRM's car profile in spirit: the same
 * road classes and default speeds, maxspeed × 0.8, surface caps, implied oneways. The deviations
 * are deliberate: private / destination / delivery roads are kept (flagged, private ones slowed)
 * so that stops on them can still be reached, and `highway=road` is driven at a low speed.
 */
import type { Tags } from './pbf.js';

// ---------------------------------------------------------------------------------------------
// Highway classes (stored per edge as a Uint8)

export const HighwayClass = {
  motorway: 0,
  motorway_link: 1,
  trunk: 2,
  trunk_link: 3,
  primary: 4,
  primary_link: 5,
  secondary: 6,
  secondary_link: 7,
  tertiary: 8,
  tertiary_link: 9,
  unclassified: 10,
  residential: 11,
  living_street: 12,
  service: 13,
  road: 14,
  ferry: 15,
  shuttle_train: 16,
} as const;
export type HighwayClassName = keyof typeof HighwayClass;

/** Class names by class number. */
export const HIGHWAY_CLASS_NAMES: readonly HighwayClassName[] = Object.keys(HighwayClass) as HighwayClassName[];

/** Default speed per class in km/h (OSRM's car defaults; `road` = unknown kind of road). */
export const DEFAULT_SPEED_KMH: Readonly<Record<HighwayClassName, number>> = {
  motorway: 90,
  motorway_link: 45,
  trunk: 85,
  trunk_link: 40,
  primary: 65,
  primary_link: 30,
  secondary: 55,
  secondary_link: 25,
  tertiary: 40,
  tertiary_link: 20,
  unclassified: 25,
  residential: 25,
  living_street: 10,
  service: 15,
  road: 20,
  ferry: 5,
  shuttle_train: 10,
};

// ---------------------------------------------------------------------------------------------
// Edge flag bits (stored per edge as a Uint16)

export const EdgeFlag = {
  /** toll=yes (or toll:motorcar=yes). */
  Toll: 1 << 0,
  /** route=ferry or route=shuttle_train. */
  Ferry: 1 << 1,
  /** Unpaved surface or tracktype grade2..5. */
  Unpaved: 1 << 2,
  /** access=private / customers / delivery / permit for cars: kept, but slowed (× 0.5). */
  Private: 1 << 3,
  /** access=destination for cars: kept at normal speed. */
  Destination: 1 << 4,
  /** junction=roundabout / circular. */
  Roundabout: 1 << 5,
  Bridge: 1 << 6,
  Tunnel: 1 << 7,
  /** The way is drivable in one direction only (tagged, or implied by class / roundabout). */
  Oneway: 1 << 8,
  /** service=parking_aisle / driveway / alley / drive-through: kept, slowed (× 0.5). */
  MinorService: 1 << 9,
  /**
   * Not open to the sky: tunnel=* (building_passage included), covered=* (not no), layer < 0 or
   * location=underground. A point is snapped to such a road only when no open road is near
   * (graph/snap.ts, SURFACE_MARGIN_M).
   */
  Covered: 1 << 10,
} as const;

// ---------------------------------------------------------------------------------------------
// Speed tables

/** Factor applied to a signed maxspeed (drivers rarely sustain the limit), as OSRM. */
export const MAXSPEED_FACTOR = 0.8;
/** Speed assumed for `maxspeed=none` (before the factor). */
export const MAXSPEED_NONE_KMH = 140;
/** Speed assumed for `maxspeed=walk`. */
export const MAXSPEED_WALK_KMH = 6;
/** No arc is faster than this (km/h), whatever the tags say. */
export const MAX_CAR_SPEED_KMH = 130;
/** No arc is slower than this (km/h). */
export const MIN_CAR_SPEED_KMH = 2;
/** Speed factor for private-like access and minor service roads. */
export const RESTRICTED_SPEED_FACTOR = 0.5;

const KMH_PER_MPH = 1.609344;
const KMH_PER_KNOT = 1.852;

/** Implicit limits by road kind, used for `XX:urban` etc. when the country has no entry below. */
const IMPLICIT_DEFAULT_KMH: Record<string, number> = {
  urban: 50,
  rural: 90,
  trunk: 110,
  motorway: 130,
  living_street: 10,
  bicycle_road: 30,
  school: 30,
  zone30: 30,
  zone20: 20,
  zone10: 10,
  pedestrian_zone: 6,
  walk: MAXSPEED_WALK_KMH,
};

/** Country-specific implicit limits that differ from the defaults (km/h; Infinity = no limit). */
const IMPLICIT_COUNTRY_KMH: Record<string, number> = {
  'at:rural': 100,
  'at:trunk': 100,
  'be:motorway': 120,
  'by:urban': 60,
  'by:motorway': 110,
  'ch:rural': 80,
  'ch:trunk': 100,
  'ch:motorway': 120,
  'cz:trunk': 110,
  'de:living_street': 7,
  'de:rural': 100,
  'de:trunk': Infinity,
  'de:motorway': Infinity,
  'dk:rural': 80,
  'es:rural': 90,
  'es:motorway': 120,
  'fr:rural': 80,
  'gb:nsl_single': 60 * KMH_PER_MPH,
  'gb:nsl_dual': 70 * KMH_PER_MPH,
  'gb:motorway': 70 * KMH_PER_MPH,
  'uk:nsl_single': 60 * KMH_PER_MPH,
  'uk:nsl_dual': 70 * KMH_PER_MPH,
  'uk:motorway': 70 * KMH_PER_MPH,
  'ie:rural': 80,
  'ie:motorway': 120,
  'it:rural': 90,
  'it:trunk': 110,
  'nl:rural': 80,
  'nl:trunk': 100,
  'no:rural': 80,
  'no:motorway': 110,
  'pl:rural': 90,
  'pl:trunk': 120,
  'pl:motorway': 140,
  'pt:rural': 90,
  'pt:trunk': 100,
  'pt:motorway': 120,
  'ro:trunk': 100,
  'ru:living_street': 20,
  'ru:urban': 60,
  'ru:motorway': 110,
  'se:rural': 70,
  'ua:urban': 50,
  'ua:motorway': 130,
  'us:urban': 25 * KMH_PER_MPH,
  'us:rural': 55 * KMH_PER_MPH,
  'za:urban': 60,
  'za:rural': 100,
};

/** Surface → speed cap in km/h (absent = no cap). */
const SURFACE_CAP_KMH: Record<string, number> = {
  compacted: 70,
  fine_gravel: 70,
  paving_stones: 50,
  sett: 40,
  bricks: 50,
  metal: 50,
  wood: 40,
  grass_paver: 40,
  cobblestone: 30,
  unhewn_cobblestone: 25,
  gravel: 40,
  unpaved: 40,
  pebblestone: 40,
  ground: 35,
  dirt: 35,
  grass: 30,
  rock: 25,
  rocky: 25,
  stone: 25,
  clay: 30,
  earth: 30,
  sand: 20,
  woodchips: 20,
  mud: 10,
};

const UNPAVED_SURFACES = new Set([
  'unpaved', 'compacted', 'fine_gravel', 'gravel', 'pebblestone', 'ground', 'dirt', 'earth', 'grass',
  'mud', 'sand', 'clay', 'rock', 'rocky', 'woodchips', 'salt', 'ice', 'snow',
]);

const TRACKTYPE_CAP_KMH: Record<string, number> = { grade2: 40, grade3: 30, grade4: 25, grade5: 20 };
const SMOOTHNESS_CAP_KMH: Record<string, number> = { intermediate: 80, bad: 40, very_bad: 20, horrible: 10, very_horrible: 5 };

// ---------------------------------------------------------------------------------------------
// Access

/** Access values that forbid cars (the way is dropped). */
const ACCESS_BLOCKED = new Set([
  'no', 'agricultural', 'forestry', 'emergency', 'psv', 'bus', 'taxi', 'military', 'hgv', 'disabled',
  'agricultural;forestry', 'official', 'use_sidepath', 'dismount',
]);
/** Access values that keep the way but mark it private (and slow it down). */
const ACCESS_PRIVATE = new Set(['private', 'customers', 'delivery', 'permit', 'residents']);
/** The access keys a car looks at, most specific first. */
const ACCESS_KEYS = ['motorcar', 'motor_vehicle', 'vehicle', 'access'] as const;

export type AccessKind = 'yes' | 'no' | 'private' | 'destination';

/** Classifies one access value (`a;b` lists: the most permissive part wins). */
export function classifyAccess(value: string): AccessKind {
  const v = value.trim().toLowerCase();
  if (v.includes(';')) {
    let best: AccessKind = 'no';
    const rank: Record<AccessKind, number> = { no: 0, private: 1, destination: 2, yes: 3 };
    for (const part of v.split(';')) {
      const k = classifyAccess(part);
      if (rank[k] > rank[best]) best = k;
    }
    return best;
  }
  if (ACCESS_BLOCKED.has(v)) return 'no';
  if (ACCESS_PRIVATE.has(v)) return 'private';
  if (v === 'destination') return 'destination';
  return 'yes'; // yes, permissive, designated, unknown values
}

/** The car's access from the most specific access tag present (undefined when untagged). */
export function carAccess(tags: Tags): AccessKind | undefined {
  for (const k of ACCESS_KEYS) {
    const v = tags[k];
    if (v !== undefined && v !== '') return classifyAccess(v);
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Parsers

/**
 * Parses an OSM `maxspeed` value to km/h. Handles plain numbers (km/h), `mph`, `knots`,
 * `km/h`/`kmh`, `none`, `walk`, implicit `CC:kind` values (`DE:urban`, `RU:rural`, `DE:zone30`,
 * `GB:nsl_single`), lists (`50;30` → the lowest) and strips a conditional part (`50 @ (...)`).
 * Returns null for values that say nothing usable (`signals`, `variable`, garbage, ≤ 0).
 */
export function parseMaxspeed(value: string | undefined | null): number | null {
  if (value === undefined || value === null) return null;
  let s = value.trim().toLowerCase();
  if (s === '') return null;
  const at = s.indexOf('@');
  if (at >= 0) s = s.slice(0, at).trim();
  if (s.includes(';')) {
    let best: number | null = null;
    for (const part of s.split(';')) {
      const v = parseMaxspeed(part);
      if (v !== null && (best === null || v < best)) best = v;
    }
    return best;
  }
  if (s === 'none' || s === 'unlimited') return MAXSPEED_NONE_KMH;
  if (s === 'walk') return MAXSPEED_WALK_KMH;
  const m = /^([0-9]+(?:[.,][0-9]+)?)\s*(km\/h|kmh|kph|mph|mp\/h|knots|kn)?$/.exec(s);
  if (m) {
    const n = Number(m[1].replace(',', '.'));
    if (!(n > 0)) return null;
    const unit = m[2];
    if (unit === 'mph' || unit === 'mp/h') return n * KMH_PER_MPH;
    if (unit === 'knots' || unit === 'kn') return n * KMH_PER_KNOT;
    return n;
  }
  const c = /^([a-z]{2}(?:-[a-z0-9]+)?):([a-z_:]+?)(?::?([0-9]+))?$/.exec(s);
  if (c) {
    const [, country, kind, num] = c;
    if (num !== undefined && (kind === 'zone' || kind.startsWith('zone'))) return Number(num) > 0 ? Number(num) : null;
    const key = `${country}:${kind}`;
    let v = IMPLICIT_COUNTRY_KMH[key];
    if (v === undefined) v = IMPLICIT_DEFAULT_KMH[kind];
    if (v === undefined) return null;
    return v === Infinity ? MAXSPEED_NONE_KMH : v;
  }
  return null;
}

/**
 * Parses an OSM `duration` (ferries): `mm`, `hh:mm`, `hh:mm:ss`, or ISO 8601 `PT1H30M`.
 * Returns seconds, or null when unparseable.
 */
export function parseDuration(value: string | undefined | null): number | null {
  if (!value) return null;
  const s = value.trim();
  let m = /^(\d+(?:\.\d+)?)$/.exec(s);
  if (m) return Number(m[1]) * 60;
  m = /^(\d+):(\d{1,2})(?::(\d{1,2}))?$/.exec(s);
  if (m) return Number(m[1]) * 3600 + Number(m[2]) * 60 + (m[3] ? Number(m[3]) : 0);
  m = /^P(?:(\d+)D)?T?(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?$/i.exec(s);
  if (m && (m[1] || m[2] || m[3] || m[4])) {
    return (Number(m[1] ?? 0) * 24 + Number(m[2] ?? 0)) * 3600 + Number(m[3] ?? 0) * 60 + Number(m[4] ?? 0);
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Ways

export interface CarWay {
  /** HighwayClass number. */
  cls: number;
  forward: boolean;
  backward: boolean;
  /** Speeds in km/h (meaningful for the allowed directions). */
  speedForwardKmh: number;
  speedBackwardKmh: number;
  /** Ferry: total crossing time in seconds from the `duration` tag, else null (the speed applies). */
  durationS: number | null;
  /** EdgeFlag bits. */
  flags: number;
  name: string;
  ref: string;
  /** Signposted destination ({@link destinationLabel}), '' when not tagged. */
  destination: string;
}

/**
 * The signposted destination of a way, as signs show it: `destination:ref` and `destination`
 * (else their `:forward` variants), `;`-separated values joined with ", ", e.g. "A28: Porto, Braga".
 */
export function destinationLabel(tags: Tags): string {
  const list = (v: string | undefined) => (v ?? '').split(';').map((x) => x.trim()).filter(Boolean).join(', ');
  const ref = list(tags['destination:ref'] ?? tags['destination:ref:forward']);
  const dest = list(tags.destination ?? tags['destination:forward']);
  return ref && dest ? `${ref}: ${dest}` : ref || dest;
}

const CONSTRUCTION_OK = new Set(['no', 'widening', 'minor']);
const MINOR_SERVICE = new Set(['parking_aisle', 'driveway', 'alley', 'drive-through', 'drive-thru']);
const YES = new Set(['yes', 'true', '1']);

/** The car profile of one way, or null when cars don't use it. */
export function carWayProfile(tags: Tags): CarWay | null {
  const highway = tags.highway;
  const route = tags.route;
  let cls: number | undefined;
  let isFerry = false;
  if (route === 'ferry' || route === 'shuttle_train') {
    cls = route === 'ferry' ? HighwayClass.ferry : HighwayClass.shuttle_train;
    isFerry = true;
  } else if (highway !== undefined) {
    cls = (HighwayClass as Record<string, number>)[highway];
    if (cls === undefined || cls === HighwayClass.ferry || cls === HighwayClass.shuttle_train) return null;
  }
  if (cls === undefined) return null;

  if (tags.area === 'yes') return null;
  if (tags.impassable === 'yes' || tags.status === 'impassable') return null;
  const construction = tags.construction;
  if (construction !== undefined && !CONSTRUCTION_OK.has(construction)) return null;
  if (tags.proposed !== undefined && tags.proposed !== 'no') return null;
  if (tags.smoothness === 'impassable') return null;
  if (cls === HighwayClass.service && tags.service === 'emergency_access') return null;

  let flags = 0;
  const access = carAccess(tags);
  if (access === 'no') return null;
  if (access === 'private') flags |= EdgeFlag.Private;
  else if (access === 'destination') flags |= EdgeFlag.Destination;

  // Directions.
  const oneway = tags.oneway;
  const junction = tags.junction;
  const roundabout = junction === 'roundabout' || junction === 'circular';
  if (roundabout) flags |= EdgeFlag.Roundabout;
  let forward = true;
  let backward = true;
  if (oneway === 'reversible') return null;
  if (oneway !== undefined && YES.has(oneway)) backward = false;
  else if (oneway === '-1' || oneway === 'reverse') forward = false;
  else if (oneway === 'no' || oneway === 'false' || oneway === '0' || oneway === 'alternating') { /* both */ }
  else if (roundabout || cls === HighwayClass.motorway || cls === HighwayClass.motorway_link) backward = false;
  if (!forward || !backward) flags |= EdgeFlag.Oneway;

  // Speeds.
  const clsName = HIGHWAY_CLASS_NAMES[cls];
  const base = DEFAULT_SPEED_KMH[clsName];
  let durationS: number | null = null;
  let fwd = base;
  let bwd = base;
  if (isFerry) {
    flags |= EdgeFlag.Ferry;
    durationS = parseDuration(tags.duration);
    if (durationS !== null && durationS <= 0) durationS = null;
  } else {
    const common = parseMaxspeed(tags.maxspeed) ?? parseMaxspeed(tags['source:maxspeed']) ?? parseMaxspeed(tags['maxspeed:type']);
    const mf = parseMaxspeed(tags['maxspeed:forward']) ?? common;
    const mb = parseMaxspeed(tags['maxspeed:backward']) ?? common;
    if (mf !== null) fwd = mf * MAXSPEED_FACTOR;
    if (mb !== null) bwd = mb * MAXSPEED_FACTOR;
    let cap = Infinity;
    const surface = tags.surface;
    if (surface !== undefined) {
      const c = SURFACE_CAP_KMH[surface];
      if (c !== undefined) cap = Math.min(cap, c);
      if (UNPAVED_SURFACES.has(surface)) flags |= EdgeFlag.Unpaved;
    }
    const tracktype = tags.tracktype;
    if (tracktype !== undefined) {
      const c = TRACKTYPE_CAP_KMH[tracktype];
      if (c !== undefined) {
        cap = Math.min(cap, c);
        if (surface === undefined) flags |= EdgeFlag.Unpaved;
      }
    }
    const smooth = tags.smoothness;
    if (smooth !== undefined) {
      const c = SMOOTHNESS_CAP_KMH[smooth];
      if (c !== undefined) cap = Math.min(cap, c);
    }
    fwd = Math.min(fwd, cap);
    bwd = Math.min(bwd, cap);
    let factor = 1;
    if (cls === HighwayClass.service && tags.service !== undefined && MINOR_SERVICE.has(tags.service)) {
      flags |= EdgeFlag.MinorService;
      factor *= RESTRICTED_SPEED_FACTOR;
    }
    if (flags & EdgeFlag.Private) factor *= RESTRICTED_SPEED_FACTOR;
    fwd = clampSpeed(fwd * factor);
    bwd = clampSpeed(bwd * factor);
  }

  if (tags.toll === 'yes' || tags['toll:motorcar'] === 'yes') flags |= EdgeFlag.Toll;
  const bridge = tags.bridge;
  if (bridge !== undefined && bridge !== 'no') flags |= EdgeFlag.Bridge;
  const tunnel = tags.tunnel;
  if (tunnel !== undefined && tunnel !== 'no') flags |= EdgeFlag.Tunnel;
  const layer = Number.parseInt(tags.layer ?? '', 10);
  if ((flags & EdgeFlag.Tunnel) || (tags.covered !== undefined && tags.covered !== 'no') || layer < 0 || tags.location === 'underground') flags |= EdgeFlag.Covered;

  return {
    cls,
    forward,
    backward,
    speedForwardKmh: fwd,
    speedBackwardKmh: bwd,
    durationS,
    flags,
    name: tags.name ?? '',
    ref: tags.ref ?? '',
    // Signposts apply to the way's direction: kept for ways drivable forward only (links, one-way roads).
    destination: forward && !backward ? destinationLabel(tags) : '',
  };
}

function clampSpeed(v: number): number {
  return v > MAX_CAR_SPEED_KMH ? MAX_CAR_SPEED_KMH : v < MIN_CAR_SPEED_KMH ? MIN_CAR_SPEED_KMH : v;
}

// ---------------------------------------------------------------------------------------------
// Nodes

const BARRIER_PASSABLE = new Set([
  'cattle_grid', 'border_control', 'toll_booth', 'sally_port', 'gate', 'lift_gate', 'swing_gate',
  'sliding_gate', 'no', 'entrance', 'height_restrictor', 'checkpoint', 'barrier_board',
]);

/** True when a car cannot pass the node (a bollard, a block, `access=no`, ...). */
export function carNodeBlocks(tags: Tags | null): boolean {
  if (tags === null) return false;
  const access = carAccess(tags);
  if (access !== undefined) return access === 'no';
  const barrier = tags.barrier;
  if (barrier === undefined || barrier === '') return false;
  if (BARRIER_PASSABLE.has(barrier)) return false;
  if (barrier === 'bollard' && (tags.bollard === 'rising' || tags.bollard === 'removable')) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Turn restrictions

export type RestrictionTag =
  | { ok: true; kind: 'no' | 'only'; value: string }
  | { ok: false; reason: 'not-a-restriction' | 'other-vehicle' | 'except' | 'conditional' | 'unknown-value' };

const RESTRICTION_KEYS = ['restriction:motorcar', 'restriction:motor_vehicle', 'restriction:vehicle', 'restriction'] as const;
const EXCEPT_CAR = new Set(['motorcar', 'motor_vehicle', 'vehicle']);

/** Reads the tags of a relation as a car turn restriction. */
export function carRestriction(tags: Tags): RestrictionTag {
  if (tags.type !== 'restriction') return { ok: false, reason: 'not-a-restriction' };
  let value: string | undefined;
  for (const k of RESTRICTION_KEYS) {
    const v = tags[k];
    if (v !== undefined && v !== '') { value = v; break; }
  }
  if (value === undefined) {
    for (const k of Object.keys(tags)) {
      if (k.startsWith('restriction:')) return { ok: false, reason: k === 'restriction:conditional' ? 'conditional' : 'other-vehicle' };
    }
    return { ok: false, reason: 'unknown-value' };
  }
  const except = tags.except;
  if (except !== undefined && except.split(';').some((e) => EXCEPT_CAR.has(e.trim()))) return { ok: false, reason: 'except' };
  const v = value.trim();
  if (/^no_(left_turn|right_turn|straight_on|u_turn|entry|exit)$/.test(v)) return { ok: true, kind: 'no', value: v };
  if (/^only_(left_turn|right_turn|straight_on|u_turn)$/.test(v)) return { ok: true, kind: 'only', value: v };
  return { ok: false, reason: 'unknown-value' };
}
