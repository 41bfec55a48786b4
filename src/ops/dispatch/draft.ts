/**
 * The solver's input as the dispatch stages build it (input.ts runs them in order), with what the
 * answer needs to map it back. Each stage reads the draft and adds to it: the fleet (fleet.ts),
 * trips (trips.ts), stops with their windows (stops.ts, windows.ts), reload copies (reloads.ts),
 * breaks (breaks.ts), zone skills (zones.ts) and pickup→delivery pairs (pairs.ts).
 */
import type { DispatchModeName, DispatchSpecification, Issue, Location, Vehicle } from '../../records/index.js';
import type { VrpStop, VrpVehicle } from '../../vrp/model.js';
import type { Zone } from '../../route/zones.js';
import type { Clock } from './clock.js';
import type { PlaceIndex } from './place.js';
import type { DispatchOptions, DispatchTravel } from './types.js';

export interface Draft {
  readonly spec: DispatchSpecification;
  readonly travel: DispatchTravel;
  readonly opts: DispatchOptions;
  readonly locs: readonly (Location | null | undefined)[];
  /** Places in the matrices. */
  readonly n: number;
  readonly at: PlaceIndex;
  readonly clock: Clock;
  /** Metres per DistanceUnit. */
  readonly unit: number;
  /** Stops left out and other notes, reported with the plan (SuccessWithErrors). */
  readonly errors: string[];
  /** What fails the request. */
  readonly issues: Issue[];
  readonly mode: DispatchModeName;
  readonly modeReason: string;
  readonly objective: 'time' | 'distance';

  // ---- fleet (fleet.ts, trips.ts, zones.ts)
  /** The request's vehicles, or the implied one. */
  vehicles: Vehicle[];
  /** Vehicle → spec.Vehicles index (-1 = the implied vehicle). */
  vehIdx: number[];
  /** Vehicle index by Name (the first of a Name). */
  vName: Map<string, number>;
  zonesOf: Zone[][];
  keyOf: string[];
  anyZones: boolean;
  /** Each distinct set of zones by its key, in the vehicles' order ('' = none, not listed). */
  zonesByKey: Map<string, Zone[]>;
  /** Classes of stops by the zone sets that forbid them: the skill only the other vehicles get. */
  zoneClasses: Map<string, { skill: string; bad: Set<string> }>;
  /** Travel profiles (one per Speed and zone set in use); profile 0 = road speeds, no zones. */
  timeProfiles: ArrayLike<number>[];
  distProfiles: ArrayLike<number>[];
  /** The solver's vehicles: each vehicle, then its further trips. */
  model: VrpVehicle[];
  modelOf: number[];
  tripOf: number[];
  startLoc: (Location | undefined)[];
  finishLoc: (Location | undefined)[];
  /** A vehicle with trips → the skill all its trips have (a stop pre-assigned to it needs it). */
  tripSkill: Map<number, string>;

  // ---- stops (stops.ts, reloads.ts, breaks.ts)
  stops: VrpStop[];
  /** Model stop → spec.Locations index. */
  stopLoc: number[];
  /** spec.Locations index → model stop (served stops only). */
  stopOfLoc: Map<number, number>;
  /** Model stops that are driver breaks. */
  breakStops: Set<number>;
  /** Per model vehicle: Locations index of each of its breaks without a place. */
  breakLoc: number[][];
}
