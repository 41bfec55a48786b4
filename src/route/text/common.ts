/**
 * What the five message catalogs share: the Catalog shape, the lists their tables are keyed by,
 * and the language-neutral preparation of a maneuver (which road to name, how, which side).
 * Each culture file (en.ts, de.ts, …) is one plain `Catalog` object with the same keys.
 */
import type { HintKind, Maneuver, ManeuverModifier, ManeuverType, RoadLabel, WarningKind } from '../maneuver-types.js';

/** The OSM highway class names (src/osm/car-profile.ts HIGHWAY_CLASS_NAMES; repeated here, the tests check they agree). */
export const ROAD_CLASSES = [
  'motorway', 'motorway_link', 'trunk', 'trunk_link', 'primary', 'primary_link', 'secondary', 'secondary_link',
  'tertiary', 'tertiary_link', 'unclassified', 'residential', 'living_street', 'service', 'road', 'ferry', 'shuttle_train',
] as const;
export type RoadClass = (typeof ROAD_CLASSES)[number];

/** Landmark kinds (OSM tag values) that get a translated word; other kinds are shown without one. */
export const LANDMARK_KINDS = [
  'fuel', 'church', 'school', 'hospital', 'pharmacy', 'supermarket', 'restaurant', 'cafe', 'bank', 'post_office', 'police',
  'fire_station', 'hotel', 'parking', 'bus_station', 'townhall', 'museum', 'place_of_worship', 'marketplace', 'fountain',
  'monument', 'park', 'stadium', 'university', 'library', 'cinema', 'theatre', 'shop', 'attraction', 'viewpoint', 'memorial',
] as const;
export type LandmarkKind = (typeof LANDMARK_KINDS)[number];

export const COMPASS = ['north', 'northeast', 'east', 'southeast', 'south', 'southwest', 'west', 'northwest'] as const;
export type Compass = (typeof COMPASS)[number];

/** The road named in a sentence: its sign text ("Main Street (A1)", "A1"), or its class phrase with article ("the service road"). */
export interface RoadRef {
  text: string;
  /** true: a name/ref (no article); false: a class phrase from `roadClasses` (with the language's article). */
  named: boolean;
}

/** Left/right for sentences that only say a side; 'straight' and 'uturn' as they are. */
export type Side = 'left' | 'right' | 'straight' | 'uturn';

/** A maneuver prepared for a catalog: everything language-neutral already decided. */
export interface Parts {
  /** The modifier, 'straight' when the maneuver has none (arrive: see `side`). */
  mod: ManeuverModifier;
  /** The modifier reduced to a side (arrive: 'straight' when the stop is ahead or the side is unknown). */
  side: Side;
  /** The road to name after the maneuver ("onto …"), or null when the sentence should not name it. */
  road: RoadRef | null;
  /** Signposted destination ("towards …"), '' when none. */
  dest: string;
  /** Roundabout exit number, undefined when unknown. */
  exit: number | undefined;
  /** Compass heading after the maneuver (depart). */
  heading: Compass;
  /** Arrive: the stop number, and whether it is the last stop (then "your destination"). */
  stop: number;
  last: boolean;
}

export type DistanceUnit = 'ft' | 'mi' | 'm' | 'km';

export interface Catalog {
  /** Decimal separator and the thousands separator (used from 10,000 up). */
  decimal: string;
  group: string;
  /** A roundabout exit's ordinal, agreeing with the language's word for "exit" ("2nd", "2.", "2e", "2.ª", "2ª"). */
  ordinal(n: number): string;
  compass: Record<Compass, string>;
  /** A road with no name nor ref, by its class; with the article ("the service road", "die Zufahrtsstraße" in the nominative). */
  roadClasses: Record<RoadClass, string>;
  /** Name and ref together: "Main Street (A1)". */
  nameAndRef(name: string, ref: string): string;
  maneuver: Record<ManeuverType, (p: Parts) => string>;
  /** `value` is the formatted number, `n` its numeric value (for plural rules). */
  units: Record<DistanceUnit, (value: string, n: number) => string>;
  /** `speed` is e.g. "30 km/h" or "20 mph", undefined when not known. */
  warning: Record<WarningKind, (speed: string | undefined) => string>;
  /** `subject`: a street name, or for landmark an already formatted "Café Z (café), 40 m". */
  hint: Record<HintKind, (subject: string) => string>;
  landmarkKinds: Record<LandmarkKind, string>;
}

// ---------------------------------------------------------------------------------------------

export const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
export const lcFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);

/** `" prefix text"` when text is non-empty, else ''. */
export const opt = (prefix: string, text: string | undefined | null): string => (text ? `${prefix} ${text}` : '');

export function sideOf(mod: ManeuverModifier | undefined): Side {
  if (mod === 'slight left' || mod === 'left' || mod === 'sharp left') return 'left';
  if (mod === 'slight right' || mod === 'right' || mod === 'sharp right') return 'right';
  return mod === 'uturn' ? 'uturn' : 'straight';
}

/** One of 8 compass points for a bearing in degrees (non-finite bearings count as north). */
export function compassOf(bearing: number): Compass {
  const b = Number.isFinite(bearing) ? ((bearing % 360) + 360) % 360 : 0;
  return COMPASS[Math.round(b / 45) % 8];
}

/** Types whose sentence becomes a U-turn sentence when the modifier is 'uturn'. */
const UTURN_SENTENCE = new Set<ManeuverType>(['turn', 'continue', 'end-of-road', 'fork', 'uturn']);
const isRoadClass = (cls: string): cls is RoadClass => (ROAD_CLASSES as readonly string[]).includes(cls);
const isLinkClass = (cls: string): boolean => cls.endsWith('_link');

/** "N13;N14" → "N13/N14"; "Lyon; Paris" → "Lyon, Paris". */
const cleanRef = (ref: string): string => ref.split(';').map((s) => s.trim()).filter(Boolean).join('/');
const cleanList = (s: string): string => s.split(';').map((x) => x.trim()).filter(Boolean).join(', ');

/** The road as a sign would show it (name and ref, name, ref), or its class phrase. */
export function roadRef(road: RoadLabel, cat: Catalog): RoadRef {
  const name = (road.name ?? '').trim();
  const ref = cleanRef(road.ref ?? '');
  if (name && ref && name !== ref) return { text: cat.nameAndRef(name, ref), named: true };
  if (name || ref) return { text: name || ref, named: true };
  return { text: cat.roadClasses[isRoadClass(road.cls) ? road.cls : 'road'], named: false };
}

/**
 * The language-neutral decisions:
 * - a U-turn (type uturn, or modifier uturn on a turn, continue, end-of-road or fork) names its road only when it has a name or ref ("Make a U-turn", not "… onto the residential street");
 * - a ramp (on/off) whose road is an unnamed link road is not named ("Take the ramp on the right", not "… onto the ramp");
 * - an off-ramp with a signposted destination says only that ("Take the exit on the right towards Lyon");
 * - arrive names no road;
 * - arrive at a stop that is not the last one says its number; without `stop`, or unless `lastStop` is false, "your destination".
 */
export function partsOf(m: Maneuver, cat: Catalog): Parts {
  const mod = m.modifier ?? 'straight';
  const uturn = m.type === 'uturn' || (mod === 'uturn' && UTURN_SENTENCE.has(m.type));
  const dest = cleanList(m.road.destination ?? '');
  let road: RoadRef | null = roadRef(m.road, cat);
  if (m.type === 'arrive') road = null;
  else if (uturn && !road.named) road = null;
  else if ((m.type === 'on-ramp' || m.type === 'off-ramp') && !road.named && isLinkClass(m.road.cls)) road = null;
  else if (m.type === 'off-ramp' && dest) road = null;
  const exit = m.exit !== undefined && Number.isInteger(m.exit) && m.exit > 0 ? m.exit : undefined;
  const last = m.stop === undefined || m.lastStop !== false;
  const side = m.type === 'arrive' && mod === 'uturn' ? 'straight' : sideOf(mod);
  return { mod, side, road, dest, exit, heading: compassOf(m.bearingAfter), stop: m.stop ?? 0, last };
}

/**
 * A number with `decimals` (0 or 1) places, a trailing ".0" dropped, the culture's decimal
 * separator, and thousands grouped from 10,000 up (four-digit numbers stay ungrouped in every culture).
 */
export function formatNumber(x: number, decimals: 0 | 1, cat: Catalog): string {
  const s = x.toFixed(decimals).replace(/\.0$/, '');
  const [int, frac] = s.split('.');
  const grouped = int.length > 4 ? int.replace(/\B(?=(\d{3})+(?!\d))/g, cat.group) : int;
  return frac ? `${grouped}${cat.decimal}${frac}` : grouped;
}
