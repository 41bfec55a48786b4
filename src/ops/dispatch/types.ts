/**
 * The types the dispatch stages share: the travel data and options a dispatch takes, the places
 * it needs, and the bookkeeping that maps the solver's answer back onto the records.
 */
import type { DispatchModeName, Location, Vehicle } from '../../records/index.js';
import type { ProgressEvent } from '../../core/cancel.js';
import type { Executor } from '../../core/executor.js';
import type { VrpInput } from '../../vrp/model.js';
import type { Solution } from '../../vrp/solution.js';
import { ROUNDED_UNREACHABLE } from '../../route/travel.js';
import type { ModeContext } from './modes.js';
import type { StabilityHints } from './stability.js';

/** One place the matrices must cover, in matrix order. */
export interface DispatchPlace {
  /** 'location' = spec.Locations[index]; 'start'/'finish' = spec.Vehicles[index].StartLocation/FinishLocation. */
  kind: 'location' | 'start' | 'finish';
  index: number;
  location: Location;
}

export interface DispatchTravel {
  /** Travel time in seconds, row-major over `dispatchPlaces` (negative / non-finite = unreachable). */
  time: ArrayLike<number>;
  /** Travel distance in metres, same layout. */
  distance: ArrayLike<number>;
  /**
   * Per set of no-go zones (`zoneKey`): the matrices of a vehicle that may not drive the roads
   * those zones block. Vehicles whose key is missing here use `time` / `distance`.
   */
  zoned?: Record<string, { time: ArrayLike<number>; distance: ArrayLike<number> }>;
  /**
   * `distance` is absent from the search (nothing in it reads distances: see `legDistancesSuffice`)
   * and only the plan's legs get theirs, after the solve ({@link DispatchOptions.legDistance} or
   * {@link DispatchOptions.measureLegs}, or the finishing task's own): a very large dispatch holds one n² matrix instead of two.
   */
  legDistances?: boolean;
}

export interface DispatchOptions {
  seed?: number;
  /** Runs the solver's searches (and, on large problems, its build and assembly) as tasks. */
  executor?: Executor;
  /** Also build and assemble the solver's problem on the executor (SolveOptions.offload). */
  offload?: boolean;
  workers?: number;
  /**
   * Overrides MinimumOptimization's budget: a hard wall-clock bound on the whole dispatch (from the
   * call; placement and matrix included in `dispatchOp`), with the best plan found by then.
   * The search's work budget is calibrated to end inside it, so results repeat unless the clock
   * ends the search first (reported as `info.stoppedBy: 'time'` in the last progress event).
   */
  timeLimitMs?: number;
  /**
   * A hard wall-clock bound on the whole dispatch (from the call, placement and matrix included)
   * that keeps MinimumOptimization's effort: the search ends at its budget or at the bound,
   * whichever comes first, with the best plan found by then, and the records are written inside
   * it. What the service sets (its operation time limit); `timeLimitMs` wins when both are given.
   */
  deadlineMs?: number;
  signal?: AbortSignal;
  /** Aborted when nobody will read the answer (OpOptions.discard): a cancelled solve then ends with Cancelled, unassembled. */
  discard?: AbortSignal;
  onProgress?: (e: ProgressEvent) => void;
  /** Called with the solver's input and solution before they are turned into records (checks, diagnostics). */
  onSolution?: (input: VrpInput, solution: Solution) => void;
  /** Locations (by index in spec.Locations) that could not be placed (no coordinates / not geocoded), with the reason. */
  unplaced?: ReadonlyMap<number, string>;
  /** Re-dispatch: the previous plan as homes, a move cost and a warm start (stability.ts). */
  stability?: StabilityHints;
  /** Metres of the leg between two places (dispatch place indices), when the travel came with `legDistances`. */
  legDistance?: (from: number, to: number) => number;
  /** The same for many legs at once, elsewhere (a task): `pairs` = [from, to, from, to, …] → metres per pair. */
  measureLegs?: (pairs: Int32Array) => Promise<Float64Array>;
}

/** What the answer needs to map the solver's solution back onto the records. */
export interface Bookkeeping {
  /** Model stop → spec.Locations index. */
  stopLoc: number[];
  /** Vehicle (index in `vehicles`) → spec.Vehicles index (-1 = the implied vehicle). */
  vehIdx: number[];
  vehicles: Vehicle[];
  /** Model stops that are driver breaks. */
  breaks: number[];
  /** Per model vehicle: the Locations index of each of its breaks without a place (VrpVehicle.breaks order). */
  breakLoc: number[][];
  /** Model vehicle → index in `vehicles`, and its trip number (1 = first trip). */
  modelOf: number[];
  tripOf: number[];
  /** Each model vehicle's start/finish location (or undefined). */
  startLoc: (Location | undefined)[];
  finishLoc: (Location | undefined)[];
  origin: number;
  hasClock: boolean;
  utc: boolean;
  unit: number;
  errors: string[];
  /** The mode the dispatch runs in (Auto resolved) and why; what its term may read. */
  mode: DispatchModeName;
  modeReason: string;
  modeCtx: ModeContext;
  /** Re-dispatch: the previous plan as the solver's warm start (model indices). */
  initial?: { vehicle: number; stops: number[] }[];
  /** The solver ran without distances ({@link DispatchTravel.legDistances}): its plan's legs get them before the records. */
  legDistances?: boolean;
}

/** Weight/Volume are doubles: compared in thousandths. */
export const SCALE_Q = 1000;
/** FuelCost ratios count up to 10,000:1 (cost factors in hundredths of the smallest FuelCost). */
export const MAX_COST_FACTOR = 1_000_000;
/** At most this many reload stops per MidwayDrop (visits of one route or of several). */
export const MAX_DROP_COPIES = 64;
/** Priority of a Break's stops: above any stop's, so that a plan leaves stops out before breaks. */
export const BREAK_PRIORITY = 1e9;
/** Seconds in a day: trip k of a vehicle runs on day k of its shift. */
export const DAY_S = 86400;
export const TRIP_SKILL = 'trip-of:';
export const ZONE_SKILL = 'zone-ok:';
/** Location types that are not stops to serve. */
export const NOT_STOPS = new Set(['Start', 'Finish', 'MidwayDrop', 'Break']);

/** A travel figure that is a path (negative, non-finite and the rounded matrices' unreachable are not). */
export const reachable = (x: number): boolean => x >= 0 && x < ROUNDED_UNREACHABLE;

/** A comma-separated list of words (Roles, Conditions, a Break's Vehicle). */
export const words = (s: string | undefined): string[] => (s ?? '').split(',').map((w) => w.trim()).filter((w) => w !== '');

/** How an Error names a Location: its Name and index. */
export function nameOf(l: Location, i: number): string {
  return l.Name ? `'${l.Name}' (Locations[${i}])` : `Locations[${i}]`;
}
