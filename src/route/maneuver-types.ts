/**
 * The language-neutral description of one turn-by-turn step: what the maneuver extraction
 * (route/maneuvers.ts) produces and the message catalogs (route/text/) turn into sentences.
 * Kernel-level: plain data, no records.
 */

export type ManeuverType =
  /** Leaving the first stop (or a waypoint): "Head north on …". */
  | 'depart'
  /** Reaching a stop: "You have arrived at your destination, on the right". */
  | 'arrive'
  /** A turn at a junction where another road could have been taken. */
  | 'turn'
  /** Going on (straight or not) through a junction where the road we are on ends in a T (the other roads go left and right). */
  | 'end-of-road'
  /** Keeping left/right where a road splits into two similar branches. */
  | 'fork'
  /** Joining a motorway/trunk from a ramp or another road, into its flow. */
  | 'merge'
  /** Taking a ramp (link road) onto a faster road. */
  | 'on-ramp'
  /** Taking a ramp (link road) off a motorway/trunk. */
  | 'off-ramp'
  /** Entering a roundabout and leaving it at exit N (one item for both). */
  | 'roundabout'
  /** The road's name (or ref) changes with no turn: "Continue onto …". */
  | 'name-change'
  /** Going straight through a junction where it is worth saying (the road we are on turns away). */
  | 'continue'
  /** A U-turn (at a junction, or at a dead end / turning place). */
  | 'uturn';

export type ManeuverModifier =
  | 'straight'
  | 'slight left'
  | 'left'
  | 'sharp left'
  | 'slight right'
  | 'right'
  | 'sharp right'
  | 'uturn';

/** How a road is named on signs (all optional; `cls` always set). */
export interface RoadLabel {
  /** OSM `name`, '' when none. */
  name: string;
  /** OSM `ref` (e.g. "A1", "N13;N14" shown as "N13/N14"), '' when none. */
  ref: string;
  /** OSM `destination` (or `destination:ref`) of the road entered, '' when none: "towards …". */
  destination: string;
  /** OSM highway class name (motorway, motorway_link, trunk, …, service, ferry). */
  cls: string;
}

export interface Maneuver {
  type: ManeuverType;
  /** Direction of the maneuver (for arrive: the side of the road the stop is on; for depart: none). */
  modifier?: ManeuverModifier;
  /** Compass bearing of travel after the maneuver, degrees 0..360 (0 = north); used by depart ("Head north"). */
  bearingAfter: number;
  /** Compass bearing of travel before the maneuver (depart: same as after). */
  bearingBefore: number;
  /** The road driven after the maneuver (for arrive: the road of the stop). */
  road: RoadLabel;
  /** The road driven before it (depart: same as road). */
  fromRoad: RoadLabel;
  /** Roundabout exit number, 1-based (roundabout only). */
  exit?: number;
  /**
   * For arrive: which stop (1-based index in the route's Locations) and whether it is the last.
   * For depart: the stop left.
   */
  stop?: number;
  lastStop?: boolean;
  /** Position of the maneuver. */
  lat: number;
  lon: number;
  /** Index in the leg's polyline of the maneuver point. */
  pointIndex: number;
  /** The road graph node of the junction (absent for depart and arrive). */
  node?: number;
  /** Centimetres and milliseconds from this maneuver to the next one (0 for arrive). */
  lengthCm: number;
  timeMs: number;
}

/** Every maneuver type, for catalog completeness checks. */
export const MANEUVER_TYPES: readonly ManeuverType[] = [
  'depart', 'arrive', 'turn', 'end-of-road', 'fork', 'merge', 'on-ramp', 'off-ramp', 'roundabout', 'name-change', 'continue', 'uturn',
];
export const MANEUVER_MODIFIERS: readonly ManeuverModifier[] = [
  'straight', 'slight left', 'left', 'sharp left', 'slight right', 'right', 'sharp right', 'uturn',
];

/** Warnings about the stretch after a maneuver (severities are decided in route/maneuvers.ts). */
export type WarningKind =
  | 'toll' | 'ferry' | 'unpaved' | 'private' | 'destination-only' | 'motorway' | 'tunnel' | 'low-speed' | 'restricted-turn';
export const WARNING_KINDS: readonly WarningKind[] = [
  'toll', 'ferry', 'unpaved', 'private', 'destination-only', 'motorway', 'tunnel', 'low-speed', 'restricted-turn',
];

/** Hints: the cross streets at the maneuver, and a landmark near it. */
export type HintKind = 'previous-intersection' | 'next-intersection' | 'landmark';
export const HINT_KINDS: readonly HintKind[] = ['previous-intersection', 'next-intersection', 'landmark'];

/** A point of interest near a maneuver: its name and its kind (an OSM tag value such as `fuel`, `church`, `supermarket`). */
export interface Landmark {
  name: string;
  kind: string;
  /** Metres from the maneuver point. */
  distanceM: number;
}
