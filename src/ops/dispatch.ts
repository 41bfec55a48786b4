/**
 * Dispatch: `DispatchSpecification` records in, `DispatchResult` out. {@link dispatchOp} places
 * the locations (LatLong or geocoded Address; a stop that cannot be placed is left out and
 * reported), gets the travel matrix from the travel provider, and runs the solver on the
 * executor. {@link dispatchOnMatrix} is the same on travel data the caller computed:
 *
 *   const places = dispatchPlaces(spec);            // which locations need coordinates, in matrix order
 *   const travel = { time, distance };              // seconds and metres over those places (caller computes)
 *   const result = await dispatchOnMatrix(spec, travel, { executor, signal });
 *
 * Semantics follow shared/spec/semantics.md; decisions it leaves open are in docs/vrp.md
 * ("Dispatch semantics"). Bad input never throws: the result has Status Failed and Errors.
 */
import {
  dateToSeconds, hasZone, secondsToDate, statusFor, failedFromError, failedFromIssues,
  type DispatchModeName, type DispatchSpecification, type DispatchResult, type LatLong, type Location, type Vehicle, type VehicleItem,
} from '../records/index.js';
import { VehicleSchema, DispatchSpecificationSchema, LocationSchema, joined, fromTexts, rawJsonSliced, toTexts, type Texts, type Address, type Issue } from '../records/index.js';
import { describeType } from '../records/schema.js';
import type { ProgressEvent } from '../core/cancel.js';
import type { Executor, TaskEnv, TaskTypes } from '../core/executor.js';
import { EngineError, isEngineError } from '../core/errors.js';
import { constantSpeedSeconds, metresPerUnit, METRES_PER_KILOMETRE, roundDistance } from '../core/units.js';
import { assemble, searchBest, solve, wallNow, WORK_PER_MS, WORK_SHARE, type SolveOptions } from '../vrp/solve.js';
import { buildProblem, Problem, REASON_TEXT, type VrpBreak, type VrpInput, type VrpPair, type VrpStop, type VrpVehicle } from '../vrp/model.js';
import type { Solution, SolveStats } from '../vrp/solution.js';
import { ROUNDED_UNREACHABLE, type PlaceQuery, type Placement } from '../route/travel.js';
import { contextInTask, taskSource, type OpOptions, type OpsContext, type TaskSource } from './context.js';
import { hasPlace, placeQuery, profileFor } from './locations.js';
import { chooseDispatchMode, MODE_TERMS, REFERENCE_SHARE, type ModeContext } from './dispatch-modes.js';
import { relaxRegions } from './dispatch-regions.js';
import { allowedAt, checkPolygon, pointInPolygon, type Zone } from '../route/zones.js';
import { IN_THREAD_MAX_CELLS, searchScratchBytes } from '../matrix/compute.js';
import {
  MAX_DISPATCH_PLACES, MAX_DISPATCH_VEHICLES, MAX_SHAPE_POINTS, MAX_SHAPES_PER_VEHICLE, MAX_TRIPS, MAX_ZONE_SETS, ROUNDED_MIN_PLACES,
  dispatchSizeIssue, rawDispatchIssues, tooBig, type DispatchSize,
} from './limits.js';

/** One place the matrices must cover, in matrix order. */
export interface DispatchPlace {
  /** 'location' = spec.Locations[index]; 'start'/'finish' = spec.Vehicles[index].StartLocation/FinishLocation. */
  kind: 'location' | 'start' | 'finish';
  index: number;
  location: Location;
}

export interface DispatchTravel {
  /** Travel time in seconds, row-major over {@link dispatchPlaces} (negative / non-finite = unreachable). */
  time: ArrayLike<number>;
  /** Travel distance in metres, same layout. */
  distance: ArrayLike<number>;
  /**
   * Per set of no-go zones ({@link zoneKey}): the matrices of a vehicle that may not drive the
   * roads those zones block. Vehicles whose key is missing here use `time` / `distance`.
   */
  zoned?: Record<string, { time: ArrayLike<number>; distance: ArrayLike<number> }>;
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
   * call; placement and matrix included in {@link dispatchOp}), with the best plan found by then.
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
  onProgress?: (e: ProgressEvent) => void;
  /** Called with the solver's input and solution before they are turned into records (checks, diagnostics). */
  onSolution?: (input: VrpInput, solution: Solution) => void;
  /** Locations (by index in spec.Locations) that could not be placed (no coordinates / not geocoded), with the reason. */
  unplaced?: ReadonlyMap<number, string>;
}

const SCALE_Q = 1000; // Weight/Volume are doubles: compared in thousandths
/** FuelCost ratios count up to 10,000:1 (cost factors in hundredths of the smallest FuelCost). */
const MAX_COST_FACTOR = 1_000_000;

/** The places a dispatch needs travel data for: every Location, then each vehicle's Start/FinishLocation when given. */
export function dispatchPlaces(spec: DispatchSpecification): DispatchPlace[] {
  const out: DispatchPlace[] = [];
  // A Break without a place is taken where the driver is: it has no place of its own.
  (spec.Locations ?? []).forEach((l, i) => { if (l && !(l.LocationType === 'Break' && !hasPlace(l))) out.push({ kind: 'location', index: i, location: l }); });
  (spec.Vehicles ?? []).forEach((v, i) => {
    if (v?.StartLocation) out.push({ kind: 'start', index: i, location: v.StartLocation });
    if (v?.FinishLocation) out.push({ kind: 'finish', index: i, location: v.FinishLocation });
  });
  return out;
}

/** 00:00 of the day of `t` (engine seconds of the date string `s`) in `s`'s own zone (zoneless = wall clock). */
function dayStart(t: number, s: string): number {
  const m = /([+-])(\d{2}):?(\d{2})$/.exec(s);
  const offset = m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60) : 0;
  return Math.floor((t + offset) / 86400) * 86400 - offset;
}

const words = (s: string | undefined): string[] => (s ?? '').split(',').map((w) => w.trim()).filter((w) => w !== '');

/**
 * A stop's service window from one pair of its time constraints, in seconds on the dispatch clock
 * (semantics: service starts at or after TimeConstraintArrival and ends — the vehicle departs — at
 * or before TimeConstraintDeparture; one bound alone is only that bound; CanArriveEarly changes
 * where the vehicle waits, not the window). The solver's window is on the start of service:
 * [A, D − Wait], in whole seconds rounded inwards. null: no constraint; 'empty': no start fits.
 */
export function serviceWindow(a: number | null, d: number | null, service: number): [number, number] | null | 'empty' {
  if (a === null && d === null) return null;
  const open = a === null ? -Infinity : Math.ceil(a);
  const close = d === null ? Infinity : Math.floor(d) - service;
  return close >= open ? [open, close] : 'empty';
}

function nameOf(l: Location, i: number): string {
  return l.Name ? `'${l.Name}' (Locations[${i}])` : `Locations[${i}]`;
}

/**
 * Dispatches `spec` on the given travel matrices. Every returned Location carries
 * TimeEstimatedArrival, and Distance / Time of the leg that reaches it (start and finish included).
 */
export async function dispatchOnMatrix(spec: DispatchSpecification, travel: DispatchTravel, opts: DispatchOptions = {}): Promise<DispatchResult> {
  const started = wallNow();
  try {
    const bad = recordIssues(spec);
    if (bad.length) return failedFromIssues(bad, { Items: [] }) as DispatchResult;
    if (dispatchPlaces(spec).length === 0) return emptyPlan();
    const built = buildDispatchInput(spec, travel, opts);
    if ('issues' in built) return failedFromIssues(built.issues, { Items: [] }) as DispatchResult;
    return await solveAndReport(spec, built.input, built.b, opts, { started, places: 0 });
  } catch (e) {
    return failedFromError(e, { Items: [] }) as DispatchResult;
  }
}

/** When a dispatch started ({@link wallNow}) and how many places it had to place and route (0 = travel given). */
interface Timing {
  started: number;
  places: number;
}

/**
 * Deterministic estimate of what a dispatch spends outside the search on this machine (idle):
 * placement, matrix and the solver's set-up for `places` places (measured on Porto: ≈ 0.6 s for
 * 1,000 stops, 1.8 s for 5,000); the final assembly and records for `stops` stops, plus 5 % of
 * the limit for the last insertion try of stops the search left out (a full scan, worth many
 * stops on large problems); and the records alone (that scan stops this much before the deadline,
 * leaving the rest with the reason 'timeLimit').
 */
export function dispatchOverheadMs(places: number, stops: number, limitMs: number): { prep: number; assembly: number; records: number } {
  return { prep: places > 0 ? 300 + 0.3 * places : 0, assembly: 50 + 0.1 * stops + 0.05 * limitMs, records: 10 + 0.01 * stops };
}

/**
 * The solver's options for a specification: MinimumOptimization's effort unless a time limit is
 * given. A time limit is a wall-clock deadline at `started + limit` less the assembly's share; the
 * work budget is {@link WORK_SHARE} of what the estimate leaves for the search (deterministic:
 * it depends on sizes only, not on measured times).
 */
function solveOptions(spec: DispatchSpecification, opts: DispatchOptions, timing: Timing, stops: number): SolveOptions {
  const so: SolveOptions = { seed: opts.seed ?? 1, executor: opts.executor, workers: opts.workers, signal: opts.signal, onProgress: opts.onProgress, offload: opts.offload };
  if (opts.timeLimitMs !== undefined) {
    const limit = Math.max(0, opts.timeLimitMs);
    const over = dispatchOverheadMs(timing.places, stops, limit);
    const ex = opts.executor;
    const W = Math.max(1, Math.floor(opts.workers ?? ex?.threads ?? 1));
    const sequential = !ex || !ex.offThread ? W : 1; // searches one after the other share the time
    so.work = Math.max(1, Math.round((WORK_SHARE * Math.max(0, limit - over.prep - over.assembly) * WORK_PER_MS) / sequential));
    so.deadlineAt = timing.started + Math.max(0, limit - over.assembly);
    so.assembleBy = timing.started + Math.max(0, limit - over.records);
  } else {
    so.effort = spec.MinimumOptimization ?? 4; // iterations, capped by a time-equivalent work budget
    if (opts.deadlineMs !== undefined) {
      const limit = Math.max(0, opts.deadlineMs);
      const over = dispatchOverheadMs(timing.places, stops, limit);
      so.deadlineAt = timing.started + Math.max(0, limit - over.assembly);
      so.assembleBy = timing.started + Math.max(0, limit - over.records);
    }
  }
  return so;
}

// ROUNDED_MIN_PLACES (ops/limits.ts): from this many places the dispatch's matrices are computed in
// whole seconds and metres (what the solver uses) on shared memory: a 10,000-place matrix in
// fractional form would first-touch 1.6 GB more, which costs seconds.
/** A travel figure that is a path (negative, non-finite and the rounded matrices' unreachable are not). */
const reachable = (x: number): boolean => x >= 0 && x < ROUNDED_UNREACHABLE;
/** At most this many reload stops per MidwayDrop (visits of one route or of several). */
const MAX_DROP_COPIES = 64;
/** Priority of a Break's stops: above any stop's, so that a plan leaves stops out before breaks. */
const BREAK_PRIORITY = 1e9;

/** Seconds in a day: trip k of a vehicle runs on day k of its shift. */
const DAY_S = 86400;
/** At most this many trips per vehicle (two weeks of days; defined with the other limits in ops/limits.ts). */
export { MAX_TRIPS };
const TRIP_SKILL = 'trip-of:';
const ZONE_SKILL = 'zone-ok:';
const NOT_STOPS = new Set(['Start', 'Finish', 'MidwayDrop', 'Break']);

/**
 * Trips per vehicle: 1, or for a vehicle with MaxStops or MaxMinutes enough trips for the stops
 * shared among the vehicles with limits — ⌈stops / (limited vehicles × stops per trip)⌉ + 1, the
 * stops per trip being MaxStops, or MaxMinutes over an estimated 10 minutes per stop — at most
 * {@link MAX_TRIPS}. Unused trips cost nothing.
 */
function tripPlan(model: ReadonlyArray<Pick<VrpVehicle, 'maxStops' | 'maxDuration'>>, stops: number): number[] {
  const limited = model.filter((v) => (v.maxStops ?? 0) > 0 || (v.maxDuration ?? 0) > 0).length;
  return model.map((v) => {
    if (stops === 0 || limited === 0) return 1;
    const byStops = (v.maxStops ?? 0) > 0 ? v.maxStops! : Infinity;
    const byTime = (v.maxDuration ?? 0) > 0 ? Math.max(1, Math.floor(v.maxDuration! / 600)) : Infinity;
    const perTrip = Math.min(byStops, byTime);
    if (!Number.isFinite(perTrip)) return 1;
    return Math.min(MAX_TRIPS, Math.ceil(stops / (limited * perTrip)) + 1);
  });
}

/** The budget of a two-phase solve: `share` of it for the first phase (a small share: two effort levels less), the rest for the second. */
function splitBudget(so: SolveOptions, share = REFERENCE_SHARE): [SolveOptions, SolveOptions] {
  const first: SolveOptions = { ...so };
  const rest: SolveOptions = { ...so };
  if (so.work !== undefined) {
    first.work = Math.max(1, Math.round(so.work * share));
    rest.work = Math.max(1, so.work - first.work);
  }
  if (so.deadlineAt !== undefined) {
    const now = wallNow();
    first.deadlineAt = now + Math.max(0, so.deadlineAt - now) * share;
  }
  if (so.work === undefined && share < 0.5) first.effort = Math.max(1, (so.effort ?? 4) - 2);
  delete first.assembleBy;
  return [first, rest];
}

/**
 * Mean of the matrix between the stops' places (objective units): a deterministic sample of at
 * most 4,096 ordered pairs, unreachable ones skipped. Scales the balancing weights.
 */
export function meanArc(m: ArrayLike<number>, places: readonly number[]): number {
  const k = places.length;
  const n = Math.round(Math.sqrt(m.length));
  if (k < 2) return 1;
  let sum = 0;
  let cnt = 0;
  const total = k * k;
  const step = Math.max(1, Math.floor(total / 4096));
  for (let x = 0; x < total; x += step) {
    const i = Math.floor(x / k), j = x % k;
    if (i === j) continue;
    const v = m[places[i] * n + places[j]];
    if (reachable(v)) { sum += v; cnt++; }
  }
  return cnt > 0 ? Math.max(1, sum / cnt) : 1;
}

/** The last progress event of a dispatch's search: what ended it ('time' = the wall clock; not reproducible). */
function reportStop(opts: DispatchOptions, stats: SolveStats): void {
  opts.onProgress?.({
    phase: 'dispatch', done: 1, total: 1,
    info: { stoppedBy: stats.stoppedBy, iterations: stats.iterations, work: stats.work, seconds: Math.round(stats.seconds * 1000) / 1000 },
  });
}

/** The solve phases of the dispatch's mode: a balancing mode's reference plan first; regions, then the rest. */
function modePhases(input: VrpInput, b: Bookkeeping): { reference: boolean; regions: boolean } {
  const term = MODE_TERMS[b.mode];
  const several = b.modeCtx.vehicles > 1;
  return { reference: !!term.reference && several && input.stops.length > 1, regions: !!term.regions && several && input.stops.length > 0 };
}

async function solveAndReport(spec: DispatchSpecification, input: VrpInput, b: Bookkeeping, opts: DispatchOptions, timing: Timing): Promise<DispatchResult> {
  try {
    return await solveAndReportModel(spec, input, b, opts, timing);
  } catch (e) {
    throw inContractTerms(e, input, b);
  }
}

/** The solver model's input fields, by the contract field they come from (see {@link inContractTerms}). */
const STOP_FIELDS: Record<string, string> = {
  place: 'LatLong', service: 'Wait', windows: 'TimeConstraintArrival', demand: 'Weight', 'demand[0]': 'Weight', 'demand[1]': 'Volume',
  'demand[2]': 'Skids', priority: 'Priority', vehicle: 'Vehicle', skills: 'Conditions',
};
const VEHICLE_FIELDS: Record<string, string> = {
  start: 'StartLocation', end: 'FinishLocation', capacity: 'MaxWeight', 'capacity[0]': 'MaxWeight', 'capacity[1]': 'MaxVolume',
  'capacity[2]': 'MaxSkids', maxStops: 'MaxStops', maxDuration: 'MaxMinutes', shift: 'Tout', costFactor: 'FuelCost', timeProfile: 'Speed',
};

/**
 * A safety net: the ops layer checks every record field before the solver sees it, so the
 * solver's own InvalidInput (named by its model: `stops[4].windows[0]`, `vehicles[2].shift`) is
 * a bug here — still, the caller is told which of its fields it concerns: the model's stop or
 * vehicle is mapped back through the bookkeeping (a stop to its Location, a trip or a break to its
 * Vehicle or Location) and the model's field to the contract's.
 */
export function inContractTerms(e: unknown, input: VrpInput, b: Bookkeeping): unknown {
  if (!isEngineError(e) || e.code !== 'InvalidInput' || e.path === undefined || !/^[a-z]/.test(e.path)) return e;
  const what = e.message.startsWith(`${e.path}: `) ? e.message.slice(e.path.length + 2) : e.message;
  let path = 'Locations';
  let m: RegExpExecArray | null;
  if ((m = /^stops\[(\d+)\](?:\.(\w+(?:\[\d+\])?))?/.exec(e.path))) {
    const li = b.stopLoc[Number(m[1])];
    const f = m[2] === undefined ? undefined : STOP_FIELDS[m[2]] ?? STOP_FIELDS[m[2].replace(/\[\d+\]$/, '')];
    if (li !== undefined) path = `Locations[${li}]${f ? `.${f}` : ''}`;
  } else if ((m = /^vehicles\[(\d+)\](?:\.breaks\[(\d+)\]|\.(\w+(?:\[\d+\])?))?/.exec(e.path))) {
    const mv = Number(m[1]);
    if (m[2] !== undefined) {
      const li = b.breakLoc[mv]?.[Number(m[2])];
      if (li !== undefined) path = `Locations[${li}]`;
    } else {
      const vi = b.vehIdx[b.modelOf[mv] ?? -1] ?? -1;
      const f = m[3] === undefined ? undefined : VEHICLE_FIELDS[m[3]] ?? VEHICLE_FIELDS[m[3].replace(/\[\d+\]$/, '')];
      if (vi >= 0) path = `Vehicles[${vi}]${f ? `.${f}` : ''}`;
    }
  } else if ((m = /^pairs\[(\d+)\]/.exec(e.path))) {
    const p = input.pairs?.[Number(m[1])];
    const li = p ? b.stopLoc[p.pickup] : undefined;
    if (li !== undefined) path = `Locations[${li}].Delivery`;
  } else if (e.path === 'startTime') path = 'CurrentTime';
  else if (e.path.startsWith('balance')) path = 'DispatchMode';
  return new EngineError('InvalidInput', `${path}: ${what}`, { path, details: { ...e.details, solverPath: e.path } });
}

async function solveAndReportModel(spec: DispatchSpecification, input: VrpInput, b: Bookkeeping, opts: DispatchOptions, timing: Timing): Promise<DispatchResult> {
  opts.onProgress?.({ phase: 'dispatch-mode', done: 1, total: 1, info: { requested: spec.DispatchMode ?? 'Auto', mode: b.mode, reason: b.modeReason } });
  let so = solveOptions(spec, opts, timing, input.stops.length);
  const term = MODE_TERMS[b.mode];
  const phases = modePhases(input, b);
  if (phases.reference) {
    // A balancing mode's target comes from an Optima plan of the same input, made first with part of the budget.
    const [first, rest] = splitBudget(so);
    const ref = await solve(input, first);
    const measure = term.measure ?? input.objective ?? 'distance';
    const withService = measure === 'time';
    term.apply(input, b.modeCtx, ref.routes.map((r) => (measure === 'time' ? r.travelTime + (withService ? r.serviceTime : 0) : r.distance)));
    so = rest;
  }
  let sol: Solution;
  if (phases.regions) {
    // Regions first; what they cannot take is set free for a second solve with the rest of the budget.
    const [first, rest] = splitBudget(so, 1 - REFERENCE_SHARE);
    sol = await solve(input, first);
    if (sol.unassigned.length > 0) {
      // The second solve starts from the first plan (still valid: relaxing only lets more vehicles in).
      relaxRegions(input, sol.unassigned.map((u) => u.stop));
      sol = await solve(input, { ...rest, initial: sol.routes.map((r) => ({ vehicle: r.vehicle, stops: r.stops.map((x) => x.stop) })) });
    }
  } else sol = await solve(input, so);
  reportStop(opts, sol.stats);
  opts.onSolution?.(input, sol);
  return toResult(spec, b, sol);
}

interface Bookkeeping {
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
  /** Matrix place of each vehicle's start/finish (or undefined). */
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
}

// The numeric fields the solver reads, in the schema's field order.
const VEHICLE_AMOUNTS = ['Speed', 'MaxStops', 'MaxWeight', 'MaxSkids', 'MaxVolume', 'MaxMinutes', 'FuelCost'] as const;
const LOCATION_AMOUNTS = ['Priority', 'Wait', 'Volume', 'Weight', 'Skids'] as const;

/** A numeric field's bounds in the record schema (Field.range): the one place they are written. */
function boundsOf(fields: Record<string, { ty: unknown }>, name: string): [number, number] {
  const d = describeType(fields[name].ty as Parameters<typeof describeType>[0]);
  return [d.min ?? -Infinity, d.max ?? Infinity];
}
const VEHICLE_BOUNDS = VEHICLE_AMOUNTS.map((f) => [f, boundsOf(VehicleSchema.fields, f)] as const);
const LOCATION_BOUNDS = LOCATION_AMOUNTS.map((f) => [f, boundsOf(LocationSchema.fields, f)] as const);

/**
 * What the records must satisfy before anything is placed, each issue named by the contract's
 * field path, so that the solver's own input checks never reach the caller in its words:
 * - a request with neither Locations nor Vehicles has nothing to plan (`{}`: usually a misnamed
 *   property, since unknown ones are ignored);
 * - the numeric fields the solver reads lie within the schema's bounds (already true of a parsed
 *   specification; checked again for callers of {@link dispatchOnMatrix} that build records);
 * - no Vehicle's Tout comes before its Tin (or, without Tin, before CurrentTime, when it would start);
 * - Shapes are valid polygons, and their numbers stay within ops/limits.ts (TooBig past them);
 * - the counts of Vehicles and places stay within ops/limits.ts (TooBig).
 */
function recordIssues(spec: DispatchSpecification): Issue[] {
  const out: Issue[] = [];
  const vehicles = spec.Vehicles ?? [];
  const locs = spec.Locations ?? [];
  if (vehicles.length === 0 && locs.length === 0) {
    return [{ path: 'Locations', message: 'at least one stop is required (the specification has neither Locations nor Vehicles)' }];
  }
  if (vehicles.length > MAX_DISPATCH_VEHICLES) out.push(tooBig('Vehicles', `holds ${vehicles.length} Vehicles; one Dispatch takes at most ${MAX_DISPATCH_VEHICLES}: split the fleet into several Dispatches, each with its own stops`));
  const places = dispatchPlaces(spec).length;
  if (places > MAX_DISPATCH_PLACES) out.push(tooBig('Locations', `the Dispatch has ${places} places (Locations and the Vehicles' StartLocation/FinishLocation); one Dispatch takes at most ${MAX_DISPATCH_PLACES}: split the stops into several Dispatches (by area or by group of vehicles)`));
  if (out.length) return out;
  const check = (path: string, x: unknown, [min, max]: readonly [number, number]): void => {
    if (x === undefined || x === null) return;
    if (typeof x !== 'number' || !Number.isFinite(x)) out.push({ path, message: `must be a finite number (got ${String(x)})` });
    else if (x < min || x > max) out.push({ path, message: `must be between ${min} and ${max} (got ${x})` });
  };
  vehicles.forEach((v, i) => { if (v) for (const [f, b] of VEHICLE_BOUNDS) check(`Vehicles[${i}].${f}`, v[f], b); });
  locs.forEach((l, i) => { if (l) for (const [f, b] of LOCATION_BOUNDS) check(`Locations[${i}].${f}`, l[f], b); });
  // Shifts. buildDispatchInput checks them again in whole seconds, as the solver takes them (a Tin
  // and a Tout within one second of each other).
  const cur = dateToSeconds(spec.CurrentTime);
  vehicles.forEach((v, i) => {
    const tout = dateToSeconds(v?.Tout);
    const tin = dateToSeconds(v?.Tin) ?? cur;
    if (v && tout !== null && tin !== null && tout < tin) out.push(emptyShift(spec, v, i));
  });
  const zoneSets = new Set<string>();
  vehicles.forEach((v, i) => {
    const shapes = v?.Shapes ?? [];
    if (shapes.length > MAX_SHAPES_PER_VEHICLE) {
      out.push(tooBig(`Vehicles[${i}].Shapes`, `holds ${shapes.length} Shapes; a Vehicle takes at most ${MAX_SHAPES_PER_VEHICLE}: merge neighbouring zones into one polygon`));
      return;
    }
    let ok = true;
    shapes.forEach((sh, k) => {
      const pts = sh?.Points ?? [];
      if (pts.length > MAX_SHAPE_POINTS) {
        out.push(tooBig(`Vehicles[${i}].Shapes[${k}].Points`, `holds ${pts.length} points; a Shape takes at most ${MAX_SHAPE_POINTS}: simplify the polygon`));
        ok = false;
        return;
      }
      const bad = checkPolygon(pts.map((p) => ({ lat: p.Latitude, lon: p.Longitude })));
      if (bad) { out.push({ path: `Vehicles[${i}].Shapes[${k}].Points`, message: bad }); ok = false; }
    });
    if (!ok) return;
    const key = zoneKey(vehicleZones(v ?? undefined));
    if (key !== '' && !zoneSets.has(key)) {
      zoneSets.add(key);
      if (zoneSets.size === MAX_ZONE_SETS + 1) {
        out.push(tooBig(`Vehicles[${i}].Shapes`, `is the ${MAX_ZONE_SETS + 1}th distinct set of Shapes among the Vehicles; one Dispatch takes at most ${MAX_ZONE_SETS} (each is a travel matrix of its own): give vehicles that share zones the same Shapes, or split the fleet over several Dispatches`));
      }
    }
  });
  return out;
}

/** The issue of a vehicle whose shift is empty: Tout before its Tin, or — without Tin — before CurrentTime, when it starts. */
function emptyShift(spec: DispatchSpecification, v: Vehicle, i: number): Issue {
  return dateToSeconds(v.Tin) !== null
    ? { path: `Vehicles[${i}].Tout`, message: `is before Tin (${v.Tout} < ${v.Tin}): the vehicle would have no working hours` }
    : { path: `Vehicles[${i}].Tout`, message: `is before CurrentTime (${v.Tout} < ${spec.CurrentTime}): a vehicle without Tin starts at CurrentTime, so it would have no working hours` };
}

/** A vehicle's no-go zones (Shapes), or none. */
export function vehicleZones(v: Vehicle | undefined): Zone[] {
  return (v?.Shapes ?? []).filter((sh) => !!sh).map((sh) => ({
    points: (sh.Points ?? []).map((p) => ({ lat: p.Latitude, lon: p.Longitude })),
    restriction: sh.Restriction === 'DoNotExit' ? 'DoNotExit' : 'DoNotEnter',
  }));
}

/** Vehicles with the same zones share a key (and their matrices); '' = no zones. */
export function zoneKey(zones: readonly Zone[]): string {
  return zones.length === 0 ? '' : JSON.stringify(zones);
}

/** Maps the records onto the solver's model. Exposed for tests. */
export function buildDispatchInput(spec: DispatchSpecification, travel: DispatchTravel, opts: DispatchOptions = {}): { input: VrpInput; b: Bookkeeping } | { issues: Issue[] } {
  const places = dispatchPlaces(spec);
  const n = places.length;
  const issues: Issue[] = [];
  if (travel.time.length !== n * n) issues.push({ path: 'travel.time', message: `must have ${n}×${n} entries for the dispatch's ${n} places (got ${travel.time.length})` });
  if (travel.distance.length !== n * n) issues.push({ path: 'travel.distance', message: `must have ${n}×${n} entries (got ${travel.distance.length})` });
  if (issues.length) return { issues };
  // Record fields the solver needs in range, checked here so that errors name the contract's fields.
  issues.push(...recordIssues(spec));
  if (issues.length) return { issues };
  // (Dispatch and dispatchOnMatrix answer an empty plan before this; direct callers learn why.)
  if (n === 0) return { issues: [{ path: 'Locations', message: "at least one place is required (a Location, or a Vehicle's StartLocation or FinishLocation)" }] };
  const locs = spec.Locations ?? [];
  const placeOfLoc = new Map<number, number>();
  const placeOfStart = new Map<number, number>();
  const placeOfFinish = new Map<number, number>();
  places.forEach((p, i) => (p.kind === 'location' ? placeOfLoc : p.kind === 'start' ? placeOfStart : placeOfFinish).set(p.index, i));
  const unit = metresPerUnit(spec.DistanceUnit === 'Kilometer' ? 'Kilometer' : 'Mile');
  const errors: string[] = [];

  // ---- clock: engine seconds, made relative to an origin so that numbers stay small.
  // CurrentTime, else the earliest Tin; with neither, 00:00 of the day of the earliest time given
  // anywhere (a window or a Tout), in that value's zone (docs/semantics.md, "The clock").
  const cur = dateToSeconds(spec.CurrentTime);
  const specVehicles = (spec.Vehicles ?? []).filter((v): v is Vehicle => !!v);
  const tins = specVehicles.map((v) => dateToSeconds(v.Tin)).filter((x): x is number => x !== null);
  let refStr = spec.CurrentTime && cur !== null ? spec.CurrentTime : specVehicles.find((v) => dateToSeconds(v.Tin) !== null)?.Tin;
  let earliest: { t: number; s: string } | null = null;
  const consider = (s: string | undefined): void => {
    const t = dateToSeconds(s);
    if (t !== null && (earliest === null || t < earliest.t)) earliest = { t, s: s! };
  };
  for (const v of specVehicles) consider(v.Tout);
  for (const l of locs) for (const f of ['TimeConstraintArrival', 'TimeConstraintDeparture', 'TimeConstraintArrival2', 'TimeConstraintDeparture2'] as const) consider(l?.[f]);
  let origin: number;
  if (cur !== null) origin = cur;
  else if (tins.length > 0) origin = Math.min(...tins);
  else if (earliest !== null) {
    const e: { t: number; s: string } = earliest;
    origin = dayStart(e.t, e.s);
    refStr = e.s;
  } else origin = 0;
  const hasClock = cur !== null || tins.length > 0 || earliest !== null;
  const rel = (s: string | undefined): number | null => { const t = dateToSeconds(s); return t === null ? null : t - origin; };

  // ---- vehicles (implied one when none given)
  const startTyped = locs.findIndex((l) => l?.LocationType === 'Start');
  const finishTyped = locs.findIndex((l) => l?.LocationType === 'Finish');
  const vehicles: Vehicle[] = specVehicles.length > 0 ? specVehicles : [{ ...VehicleSchema.defaults(), Name: 'Vehicle' }];
  const vehIdx = specVehicles.length > 0 ? (spec.Vehicles ?? []).map((v, i) => (v ? i : -1)).filter((i) => i >= 0) : [-1];
  const anyFuel = vehicles.some((v) => (v.FuelCost ?? 0) > 0);
  const minFuel = anyFuel ? Math.min(...vehicles.map((v) => v.FuelCost ?? 0).filter((f) => f > 0)) : 1;
  const objective: 'time' | 'distance' = anyFuel ? 'distance' : spec.RouteOptimize === 'MinimizeDistance' ? 'distance' : 'time';
  const { mode, reason: modeReason } = chooseDispatchMode(spec);
  // Profiles: one per (Speed, no-go zones) in use; profile 0 = road speeds, no zones. A constant
  // Speed turns the profile's distances into times; zones pick the matrices that avoid them.
  const zonesOf = vehicles.map((v) => vehicleZones(v));
  const keyOf = zonesOf.map((z) => zoneKey(z));
  const profileKeys = new Map<string, number>([['0|', 0]]);
  const timeProfiles: ArrayLike<number>[] = [travel.time];
  const distProfiles: ArrayLike<number>[] = [travel.distance];
  const profileOf = vehicles.map((v, i) => {
    const speed = v.Speed ?? 0;
    const key = `${speed}|${keyOf[i]}`;
    let p = profileKeys.get(key);
    if (p === undefined) {
      const base = keyOf[i] !== '' && travel.zoned?.[keyOf[i]] ? travel.zoned[keyOf[i]] : travel;
      let time = base.time;
      if (speed > 0) {
        const m = new Float64Array(n * n);
        const u = spec.DistanceUnit === 'Kilometer' ? 'Kilometer' : 'Mile';
        for (let q = 0; q < n * n; q++) { const d = base.distance[q]; m[q] = reachable(d) ? constantSpeedSeconds(d, speed, u) : -1; }
        time = m;
      }
      p = timeProfiles.length;
      profileKeys.set(key, p);
      timeProfiles.push(time);
      distProfiles.push(base.distance);
    }
    return p;
  });
  const anyZones = keyOf.some((k) => k !== '');
  const vName = new Map<string, number>();
  vehicles.forEach((v, i) => { if (v.Name !== undefined && !vName.has(v.Name)) vName.set(v.Name, i); });
  const model: VrpVehicle[] = [];
  /** Model vehicle → index in `vehicles`, and its trip number (1 = the vehicle itself). */
  const modelOf: number[] = [];
  const tripOf: number[] = [];
  const startLoc: (Location | undefined)[] = [];
  const finishLoc: (Location | undefined)[] = [];
  vehicles.forEach((v, i) => {
    const si = vehIdx[i];
    let start = si >= 0 ? placeOfStart.get(si) : undefined;
    let finish = si >= 0 ? placeOfFinish.get(si) : undefined;
    let sl = v.StartLocation, fl = v.FinishLocation;
    if (start === undefined && startTyped >= 0) { start = placeOfLoc.get(startTyped); sl = locs[startTyped]; }
    if (finish === undefined && finishTyped >= 0) { finish = placeOfLoc.get(finishTyped); fl = locs[finishTyped]; }
    if (finish === undefined && mode === 'TimeWindowDepot' && start !== undefined) { finish = start; fl = sl; }
    const tin = rel(v.Tin) ?? (cur !== null ? cur - origin : undefined);
    const tout = rel(v.Tout);
    const ve: VrpVehicle = {
      start, end: finish,
      capacity: [(v.MaxWeight ?? 0) * SCALE_Q, (v.MaxVolume ?? 0) * SCALE_Q, v.MaxSkids ?? 0],
      maxStops: v.MaxStops ?? 0,
      maxDuration: (v.MaxMinutes ?? 0) * 60,
      skills: words(v.Roles),
      costFactor: anyFuel ? Math.min(MAX_COST_FACTOR, Math.max(1, Math.round((100 * ((v.FuelCost ?? 0) > 0 ? v.FuelCost! : minFuel)) / minFuel))) : 1,
      fixedCost: 0,
      timeProfile: profileOf[i],
      label: v.Name,
    };
    if (tin !== undefined || tout !== null) {
      // whole seconds, rounded inwards as the solver rounds them: it never sees an empty shift
      ve.shift = [tin === undefined ? -Infinity : Math.ceil(tin), tout === null ? Infinity : Math.floor(tout)];
      if (ve.shift[0] > ve.shift[1]) issues.push(emptyShift(spec, v, vehIdx[i]));
    }
    model.push(ve);
    modelOf.push(i);
    tripOf.push(1);
    startLoc.push(sl);
    finishLoc.push(fl);
  });
  if (issues.length) return { issues };
  // ---- trips: a vehicle with MaxStops or MaxMinutes continues on further trips, one per day
  const trips = tripPlan(model, locs.filter((l) => l && !NOT_STOPS.has(l.LocationType ?? 'Midway')).length);
  const tripSkill = new Map<number, string>();
  trips.forEach((T, i) => {
    if (T < 2) return;
    const skill = `${TRIP_SKILL}${i}`;
    tripSkill.set(i, skill);
    const base = model[i];
    base.skills = [...(base.skills ?? []), skill];
    const v = vehicles[i];
    const day0 = base.shift ? (Number.isFinite(base.shift[0]) ? base.shift[0] : 0) : cur !== null ? cur - origin : 0;
    // An OnTheRoad trip has no start leg: it pays the longest one as a fixed cost, so that no plan
    // prefers a later trip to the first (which does start at the StartLocation).
    let startLeg = 0;
    if (v.OnTheRoad === true && base.start !== undefined) {
      const m = objective === 'distance' ? distProfiles[base.timeProfile ?? 0] : timeProfiles[base.timeProfile ?? 0];
      for (let q = 0; q < n; q++) { const x = m[base.start * n + q]; if (reachable(x) && x > startLeg) startLeg = x; }
      startLeg = Math.round(startLeg * (base.costFactor ?? 1));
    }
    for (let k = 2; k <= T; k++) {
      const d = (k - 1) * DAY_S;
      const onTheRoad = v.OnTheRoad === true;
      model.push({
        ...base,
        // OnTheRoad: the trip starts where the vehicle is, i.e. at its first stop (docs/dispatch-modes.md, Trips).
        start: onTheRoad ? undefined : base.start,
        shift: [day0 + d, base.shift && Number.isFinite(base.shift[1]) ? base.shift[1] + d : Infinity],
        // Later trips cost a little more, so that a plan uses them in order.
        fixedCost: (base.fixedCost ?? 0) + k - 1 + (onTheRoad ? startLeg : 0),
        label: `${v.Name ?? 'Vehicle'}_${k}`,
      });
      modelOf.push(i);
      tripOf.push(k);
      startLoc.push(onTheRoad ? undefined : startLoc[i]);
      finishLoc.push(finishLoc[i]);
    }
  });

  // ---- stops
  const stops: VrpStop[] = [];
  const stopLoc: number[] = [];
  const stopOfLoc = new Map<number, number>();
  const breakStops = new Set<number>();
  const breakLoc: number[][] = [];
  const dropLocs: number[] = [];
  const zonesByKey = new Map<string, Zone[]>();
  keyOf.forEach((k, i) => { if (k !== '') zonesByKey.set(k, zonesOf[i]); });
  const zoneClasses = new Map<string, { skill: string; bad: Set<string> }>();
  const byName = new Map<string, number>();
  locs.forEach((l, i) => { if (l?.Name !== undefined && !byName.has(l.Name)) byName.set(l.Name, i); });
  locs.forEach((l, i) => {
    if (!l) return;
    const type = l.LocationType ?? 'Midway';
    if (type === 'Start' || type === 'Finish') return;
    if (type === 'MidwayDrop') {
      dropLocs.push(i);
      return;
    }
    if (type === 'Break') {
      addBreak(l, i);
      return;
    }
    if (opts.unplaced?.has(i)) {
      errors.push(`${nameOf(l, i)} was not dispatched: ${opts.unplaced.get(i)}`);
      return;
    }
    const place = placeOfLoc.get(i)!;
    const service = l.Wait ?? 0;
    const windows: [number, number][] = [];
    let badWindows = 0;
    for (const [af, df] of [['TimeConstraintArrival', 'TimeConstraintDeparture'], ['TimeConstraintArrival2', 'TimeConstraintDeparture2']] as const) {
      const w = serviceWindow(rel(l[af]), rel(l[df]), service);
      if (w === 'empty') badWindows++;
      else if (w !== null) windows.push(w);
    }
    if (windows.length === 0 && badWindows > 0) {
      errors.push(`${nameOf(l, i)} was not dispatched: ${REASON_TEXT.timeWindow} (it closes before the Wait of ${service} s can end)`);
      return;
    }
    let vehicle: number | undefined;
    if (l.Vehicle !== undefined && l.Vehicle !== '') {
      vehicle = vName.get(l.Vehicle) ?? [...vName.entries()].find(([k]) => k.toLowerCase() === l.Vehicle!.toLowerCase())?.[1];
      if (vehicle === undefined) {
        errors.push(`${nameOf(l, i)} was not dispatched: it is pre-assigned to vehicle '${l.Vehicle}', which does not exist`);
        return;
      }
    }
    const st: VrpStop = {
      place, service,
      demand: [(l.Weight ?? 0) * SCALE_Q, (l.Volume ?? 0) * SCALE_Q, l.Skids ?? 0],
      priority: l.Priority ?? 0,
      skills: words(l.Conditions),
      keepOrder: l.KeepSameOrder ?? false,
      label: l.Name,
    };
    if (windows.length > 0) st.windows = windows;
    if (anyZones) {
      const z = zoneSkill(l, i);
      if (z === null) return;
      if (z !== undefined) st.skills = [...(st.skills ?? []), z];
    }
    // Pre-assigned to a vehicle with trips: any of its trips (a skill only they have).
    if (vehicle !== undefined && tripSkill.has(vehicle)) st.skills = [...(st.skills ?? []), tripSkill.get(vehicle)!];
    else if (vehicle !== undefined) st.vehicle = vehicle;
    stopOfLoc.set(i, stops.length);
    stopLoc.push(i);
    stops.push(st);
  });
  addDrops();

  /**
   * MidwayDrop locations: reload points that empty the vehicle (docs/dispatch-modes.md). Each is
   * offered to the solver as optional reload stops, as many copies as a route could need; the
   * solver visits one where a capacity would otherwise leave stops out.
   */
  function addDrops(): void {
    if (dropLocs.length === 0) return;
    const capped = model.some((mv) => Array.from(mv.capacity ?? []).some((c) => c > 0));
    if (!capped) {
      for (const i of dropLocs) errors.push(`${nameOf(locs[i]!, i)}: a MidwayDrop is visited only when MaxWeight, MaxVolume or MaxSkids would be exceeded, and no vehicle has any of them; it was ignored`);
      return;
    }
    // copies: enough for the whole demand to pass through the smallest vehicle, one more per vehicle
    let copies = 1;
    for (let k = 0; k < 3; k++) {
      const caps = model.map((mv) => mv.capacity?.[k] ?? 0).filter((c) => c > 0);
      if (caps.length === 0) continue;
      const total = stops.reduce((a, st) => a + (st.demand?.[k] ?? 0), 0);
      copies = Math.max(copies, Math.ceil(total / Math.min(...caps)) + model.length);
    }
    copies = Math.min(copies, Math.max(1, stops.length), MAX_DROP_COPIES);
    for (const i of dropLocs) {
      const l = locs[i]!;
      if (opts.unplaced?.has(i)) { errors.push(`${nameOf(l, i)}: the MidwayDrop could not be placed (${opts.unplaced.get(i)}); it was ignored`); continue; }
      const service = l.Wait ?? 0;
      const st: VrpStop = { place: placeOfLoc.get(i)!, service, reload: true, optional: true, label: l.Name };
      const win = serviceWindow(rel(l.TimeConstraintArrival), rel(l.TimeConstraintDeparture), service);
      if (win === 'empty') { errors.push(`${nameOf(l, i)}: the MidwayDrop closes before its Wait can end; it was ignored`); continue; }
      if (win !== null) st.windows = [win];
      if (anyZones) {
        const z = zoneSkill(l, i);
        if (z === null) continue;
        if (z !== undefined) st.skills = [z];
      }
      for (let c = 0; c < copies; c++) {
        stopLoc.push(i);
        stops.push(c === 0 ? st : { ...st });
      }
    }
  }
  /**
   * The skill a stop needs under the vehicles' no-go zones: undefined when every vehicle may serve
   * it; a `zone-ok:<class>` skill that only the vehicles allowed there get; null when no vehicle
   * may (the stop is reported and left out).
   */
  function zoneSkill(l: Location, i: number): string | null | undefined {
    const p = l.LatLong;
    if (!p) return undefined;
    const bad = [...zonesByKey.keys()].filter((k) => !allowedAt(p.Latitude, p.Longitude, zonesByKey.get(k)!));
    if (bad.length === 0) return undefined;
    if (keyOf.every((k) => bad.includes(k))) {
      errors.push(`${nameOf(l, i)} was not dispatched: it lies inside a DoNotEnter zone or outside a DoNotExit zone of every vehicle (Vehicles[].Shapes)`);
      return null;
    }
    const ck = bad.join('\u0000');
    let skill = zoneClasses.get(ck)?.skill;
    if (skill === undefined) zoneClasses.set(ck, { skill: (skill = `${ZONE_SKILL}${zoneClasses.size}`), bad: new Set(bad) });
    return skill;
  }

  /**
   * A driver's break (LocationType Break): Wait is its length, its window is when it must start
   * (start ∈ [TimeConstraintArrival, TimeConstraintDeparture]; either may be open), Vehicle names
   * the vehicles whose break it is (comma-separated; none = every vehicle). One stop per vehicle,
   * pre-assigned to it, of a priority above every stop's, so that a plan keeps its breaks.
   */
  function addBreak(l: Location, i: number): void {
    if (opts.unplaced?.has(i)) {
      errors.push(`${nameOf(l, i)}: the Break could not be placed (${opts.unplaced.get(i)}); it was not scheduled`);
      return;
    }
    const wanted = words(l.Vehicle);
    const owners: number[] = [];
    for (const w of wanted) {
      const v = vName.get(w) ?? [...vName.entries()].find(([k]) => k.toLowerCase() === w.toLowerCase())?.[1];
      if (v === undefined) {
        errors.push(`${nameOf(l, i)}: the Break names vehicle '${w}', which does not exist (Vehicles: ${[...vName.keys()].join(', ') || 'none named'}); it was not scheduled for it`);
        continue;
      }
      owners.push(v);
    }
    if (wanted.length === 0) vehicles.forEach((_, v) => owners.push(v));
    const a = rel(l.TimeConstraintArrival);
    const d = rel(l.TimeConstraintDeparture);
    // whole seconds, rounded inwards as the solver rounds windows
    const win: [number, number] = [a === null ? -Infinity : Math.ceil(a), d === null ? Infinity : Math.floor(d)];
    if (win[1] < win[0]) {
      errors.push(`${nameOf(l, i)}: the Break's window ends before it opens (TimeConstraintDeparture before TimeConstraintArrival); it was not scheduled`);
      return;
    }
    if (!hasPlace(l)) {
      // No place: taken where the driver is (VrpBreak), on every trip whose shift its window meets.
      for (const v of owners) model.forEach((mv, m) => {
        if (modelOf[m] !== v) return;
        const brs = (mv.breaks ??= []) as VrpBreak[];
        brs.push({ duration: l.Wait ?? 0, window: win, label: l.Name });
        (breakLoc[m] ??= []).push(i);
      });
      return;
    }
    for (const v of owners) {
      const st: VrpStop = { place: placeOfLoc.get(i)!, service: l.Wait ?? 0, demand: [0, 0, 0], priority: BREAK_PRIORITY, label: l.Name };
      if (a !== null || d !== null) st.windows = [win];
      if (tripSkill.has(v)) st.skills = [tripSkill.get(v)!];
      else st.vehicle = v;
      breakStops.add(stops.length);
      stopLoc.push(i);
      stops.push(st);
    }
  }

  // Zone skills: a vehicle (every trip of it) may serve a class of stops unless its zones are among the class's.
  for (const { skill, bad } of zoneClasses.values()) {
    model.forEach((mv, m) => { if (!bad.has(keyOf[modelOf[m]])) mv.skills = [...(mv.skills ?? []), skill]; });
  }
  // A DoNotExit zone with no stop inside leaves its vehicle nothing to do: say so.
  zonesOf.forEach((zs, v) => zs.forEach((z, k) => {
    if (z.restriction !== 'DoNotExit') return;
    const any = locs.some((l) => l?.LatLong && (l.LocationType ?? 'Midway') !== 'Start' && (l.LocationType ?? 'Midway') !== 'Finish' && pointInPolygon(l.LatLong.Latitude, l.LatLong.Longitude, z.points));
    if (!any) errors.push(`Vehicles[${vehIdx[v]}].Shapes[${k}]: the DoNotExit zone contains no stop; vehicle '${vehicles[v].Name ?? v}' can serve none`);
  }));

  // ---- pickup → delivery
  const pairs: VrpPair[] = [];
  const inPair = new Set<number>();
  const orphan = new Set<number>();
  locs.forEach((l, i) => {
    if (!l?.Delivery) return;
    const di = byName.get(l.Delivery);
    const path = `Locations[${i}].Delivery`;
    if (di === undefined) { issues.push({ path, message: `names no location ('${l.Delivery}')` }); return; }
    if (di === i) { issues.push({ path, message: 'a location cannot be its own delivery' }); return; }
    const p = stopOfLoc.get(i), d = stopOfLoc.get(di);
    if (p === undefined || d === undefined) {
      // one side was left out above: the other cannot be served alone
      for (const [x, li] of [[p, i], [d, di]] as const) if (x !== undefined) { orphan.add(x); errors.push(`${nameOf(locs[li]!, li)} was not dispatched: ${REASON_TEXT.pair}`); }
      return;
    }
    if (inPair.has(p) || inPair.has(d)) { issues.push({ path, message: 'a location can be in one pickup/delivery pair only' }); return; }
    inPair.add(p); inPair.add(d);
    if (stops[p].vehicle !== undefined && stops[d].vehicle !== undefined && stops[p].vehicle !== stops[d].vehicle) {
      issues.push({ path, message: 'pickup and delivery are pre-assigned to different vehicles' });
      return;
    }
    const pre = stops[p].vehicle ?? stops[d].vehicle;
    if (pre !== undefined) { stops[p].vehicle = pre; stops[d].vehicle = pre; }
    pairs.push({ pickup: p, delivery: d, nonStop: l.DeliveryNonStop ?? true });
  });
  if (issues.length) return { issues };
  // stops orphaned by a left-out partner: drop them (already reported)
  const keep = stops.map((_, i) => !orphan.has(i));
  const remap = new Map<number, number>();
  const stops2: VrpStop[] = [];
  const stopLoc2: number[] = [];
  stops.forEach((s, i) => { if (keep[i]) { remap.set(i, stops2.length); stops2.push(s); stopLoc2.push(stopLoc[i]); } });
  const pairs2 = pairs.map((p) => ({ ...p, pickup: remap.get(p.pickup)!, delivery: remap.get(p.delivery)! }));

  const input: VrpInput = {
    places: n, time: timeProfiles, distance: anyZones ? distProfiles : travel.distance, objective, dimensions: 3, stops: stops2, vehicles: model, pairs: pairs2,
    startTime: cur !== null ? cur - origin : 0,
  };
  const modeCtx: ModeContext = {
    meanArc: meanArc(input.objective === 'distance' ? travel.distance : travel.time, stops2.map((x) => x.place)),
    jobs: stops2.filter((x) => !x.reload).length - pairs2.filter((p) => p.nonStop !== false).length,
    vehicles: model.length,
  };
  const term = MODE_TERMS[mode];
  if (term.regions) modeCtx.coords = places.map((p) => (p.location.LatLong ? { lat: p.location.LatLong.Latitude, lon: p.location.LatLong.Longitude } : undefined));
  term.apply(input, modeCtx);
  delete modeCtx.coords; // used once; the bookkeeping stays small
  return {
    input,
    b: { stopLoc: stopLoc2, breakLoc, breaks: [...breakStops].map((i) => remap.get(i)!).filter((i) => i !== undefined), vehIdx, vehicles, modelOf, tripOf, startLoc, finishLoc, origin, hasClock, utc: hasZone(refStr), unit, errors, mode, modeReason, modeCtx },
  };
}

function toResult(spec: DispatchSpecification, b: Bookkeeping, sol: Solution): DispatchResult {
  const locs = spec.Locations ?? [];
  const items: VehicleItem[] = [];
  const when = (t: number): string => (b.hasClock ? secondsToDate(b.origin + t, b.utc) : '0001-01-01T00:00:00');
  const lengthUnit = b.unit === METRES_PER_KILOMETRE ? 'Kilometer' : 'Mile';
  const dist = (m: number): number => roundDistance(m / b.unit, lengthUnit);
  // A route of breaks only is no work: the vehicle stays at the depot (and takes no break).
  const isBreak = new Set(b.breaks);
  const working = sol.routes.filter((r) => r.stops.some((x) => !isBreak.has(x.stop)));
  // Trips are named <Name>, <Name>_2, <Name>_3, … in the order of the days they run (used trips only).
  const tripName = new Map<number, string>();
  const usedTrips = new Map<number, number[]>();
  for (const r of working) {
    const l = usedTrips.get(b.modelOf[r.vehicle]) ?? [];
    l.push(r.vehicle);
    usedTrips.set(b.modelOf[r.vehicle], l);
  }
  for (const [i, list] of usedTrips) {
    list.sort((x, y) => b.tripOf[x] - b.tripOf[y]);
    list.forEach((mv, k) => tripName.set(mv, k === 0 ? b.vehicles[i].Name ?? '' : `${b.vehicles[i].Name ?? 'Vehicle'}_${k + 1}`));
  }
  const routes = [...working].sort((x, y) => b.modelOf[x.vehicle] - b.modelOf[y.vehicle] || b.tripOf[x.vehicle] - b.tripOf[y.vehicle]);
  for (const r of routes) {
    const out: Location[] = [];
    const sl = b.startLoc[r.vehicle];
    // A vehicle's first and last entries are typed Start and Finish, whatever the request said.
    if (sl) out.push({ ...sl, LocationType: 'Start', TimeEstimatedArrival: when(r.startTime), Distance: 0, Time: 0 });
    // Breaks without a place appear where they were taken, with the LatLong of that place; one
    // taken on arrival at a stop carries the leg to it (and the stop a leg of 0). Returns when the
    // last of them ends (null: none there).
    const placedBreaks = (at: number, before: boolean, where: LatLong | undefined, leg: { d: number; t: number } | null): number | null => {
      let end: number | null = null;
      for (const x of r.breaks) {
        if (x.at !== at || x.beforeService !== before) continue;
        const li = b.breakLoc[r.vehicle][x.index];
        const first = leg !== null && end === null;
        out.push({ ...(locs[li] as Location), ...(where ? { LatLong: where } : {}), TimeEstimatedArrival: when(x.start), Distance: first ? dist(leg.d) : 0, Time: first ? Math.round(leg.t) : 0 });
        end = Math.max(end ?? -Infinity, x.end);
      }
      return end;
    };
    placedBreaks(-1, false, sl?.LatLong ?? (r.stops.length > 0 ? (locs[b.stopLoc[r.stops[0].stop]] as Location).LatLong : undefined), null);
    r.stops.forEach((s, i) => {
      const li = b.stopLoc[s.stop];
      const loc = locs[li] as Location;
      const breakEnd = placedBreaks(i, true, loc.LatLong, { d: s.legDistance, t: s.legTime });
      // CanArriveEarly (default true): the estimate is when the vehicle gets there (after a break
      // taken on arriving, when that ends), perhaps before its window opens: it waits at the door.
      // False: it leaves the previous place late enough to get there no earlier than the opening,
      // so the estimate is when service starts.
      const eta = loc.CanArriveEarly === false ? s.start : Math.max(s.arrival, breakEnd ?? -Infinity);
      out.push({ ...loc, TimeEstimatedArrival: when(eta), Distance: breakEnd !== null ? 0 : dist(s.legDistance), Time: breakEnd !== null ? 0 : Math.round(s.legTime) });
      placedBreaks(i, false, loc.LatLong, null);
    });
    const fl = b.finishLoc[r.vehicle];
    if (fl) out.push({ ...fl, LocationType: 'Finish', TimeEstimatedArrival: when(r.endTime), Distance: dist(r.endLegDistance), Time: Math.round(r.endLegTime) });
    const veh = b.vehicles[b.modelOf[r.vehicle]];
    items.push({ Vehicle: b.tripOf[r.vehicle] === 1 && tripName.get(r.vehicle) === veh.Name ? veh : { ...veh, Name: tripName.get(r.vehicle) }, Locations: out });
  }
  const messages = [...b.errors];
  for (const u of sol.unassigned) {
    const li = b.stopLoc[u.stop];
    if (isBreak.has(u.stop)) {
      // A break left out matters only for a vehicle that works.
      messages.push(`${nameOf(locs[li] as Location, li)}: the Break could not be scheduled: ${u.message}`);
      continue;
    }
    messages.push(`${nameOf(locs[li] as Location, li)} was not dispatched: ${u.message}`);
  }
  return { ...statusFor(messages), Items: items } as DispatchResult;
}

// ---- the operation ------------------------------------------------------------------------------

export type DispatchOpOptions = OpOptions & Omit<DispatchOptions, 'executor' | 'unplaced' | 'signal' | 'onProgress'>;

/** Locations of these types may be left out when they cannot be placed; any other unplaceable location fails the request. */
const OPTIONAL_TYPES = new Set(['Midway', 'Delivery', 'MidwayDrop', 'Break']);

/**
 * The Dispatch operation. The solver's searches run on the executor (one per thread). With
 * `offload`, everything else heavy runs there too: one `dispatch-prepare` task parses the
 * specification, places the stops, computes the travel matrix and builds the solver's problem;
 * the searches follow; one `dispatch-finish` task assembles the solution and writes the records.
 * The calling thread only coordinates. Deterministic for a given seed and worker count when no
 * time limit is given (the same answer with or without `offload`).
 */
export async function dispatchOp(ctx: OpsContext, spec: unknown, opts: DispatchOpOptions = {}): Promise<DispatchResult> {
  const started = wallNow(); // a time limit counts from here: placement and matrix included
  if (opts.offload && ctx.executor.offThread) return dispatchOffThread(ctx, spec, opts, started);
  const p = await prepareDispatch(ctx, spec, opts, undefined);
  if ('Status' in p) return p;
  try {
    return await solveAndReport(p.spec, p.input, p.b, { ...opts, executor: ctx.executor }, { started, places: dispatchPlaces(p.spec).length });
  } catch (e) {
    return failedFromError(e, { Items: [] }) as DispatchResult;
  }
}

interface Prepared {
  spec: DispatchSpecification;
  input: VrpInput;
  b: Bookkeeping;
}

/**
 * The record stages before the solver: parse, place the locations (LatLong or geocoded Address;
 * a stop that cannot be placed is left out and reported), the travel matrix, the solver's input.
 * Returns a (Failed) DispatchResult when the request cannot go on.
 */
async function prepareDispatch(ctx: OpsContext, spec: unknown, opts: DispatchOpOptions, placeExecutor: Executor | undefined): Promise<Prepared | DispatchResult> {
  // Sizes first, from the raw lists: a request past the limits is refused before it is parsed.
  const big = rawDispatchIssues(spec, ctx.maxMatrixBytes);
  if (big.length) return failedFromIssues(big, { Items: [] }) as DispatchResult;
  const parsed = DispatchSpecificationSchema.safeParse(spec);
  if (!parsed.ok) return failedFromIssues(parsed.issues, { Items: [] }) as DispatchResult;
  const s = structuredClone(parsed.value);
  const bad = recordIssues(s); // before placing anything
  if (bad.length) return failedFromIssues(bad, { Items: [] }) as DispatchResult;
  const places = dispatchPlaces(s);
  if (places.length === 0) return emptyPlan();
  // The memory the travel data and the solver's tables would take, before placing or allocating.
  const roundedFrom = ctx.roundedMatrixFrom ?? ROUNDED_MIN_PLACES;
  const canRound = !!ctx.travel.matrixRounded;
  const tooLarge = dispatchSizeIssue(dispatchSize(s, places.length, canRound && places.length >= roundedFrom, scratchOf(ctx, places.length)), ctx.maxMatrixBytes, roundedFrom);
  if (tooLarge) return failedFromIssues([tooLarge], { Items: [] }) as DispatchResult;
  const paths = places.map((p) => p.kind === 'location' ? `Locations[${p.index}]` : `Vehicles[${p.index}].${p.kind === 'start' ? 'StartLocation' : 'FinishLocation'}`);
  const issues: Issue[] = [];
  const unplaced = new Map<number, string>();
  const recordUnplaced = (i: number, message: string): void => {
    const p = places[i];
    const msg = message.replace(`${paths[i]}: `, '').replace(`${paths[i]}.`, '');
    if (p.kind === 'location' && OPTIONAL_TYPES.has(p.location.LocationType ?? 'Midway')) {
      unplaced.set(p.index, msg);
      if (s.IsNeedMatchCode) p.location.MatchCode = 'None';
    } else {
      issues.push({ path: paths[i], message: msg });
    }
  };
  const queryOf = new Map<number, number>(); // place → index in queries
  const queries: PlaceQuery[] = [];
  const queryPaths: string[] = [];
  for (let i = 0; i < places.length; i++) {
    try {
      const q = placeQuery(places[i].location, paths[i]);
      queryOf.set(i, queries.length);
      queries.push(q);
      queryPaths.push(paths[i]);
    } catch (e) {
      if (!isEngineError(e)) throw e;
      recordUnplaced(i, e.message);
    }
  }
  const placed: (Placement | null)[] = [];
  try {
    const outcomes = await ctx.travel.placeMany(queries, {
      paths: queryPaths, reverseWithinM: ctx.geocoder ? 200 : undefined,
      executor: placeExecutor, signal: opts.signal, onProgress: opts.onProgress,
    });
    for (let i = 0; i < places.length; i++) {
      const q = queryOf.get(i);
      const o = q === undefined ? null : outcomes[q];
      if (o === null || 'error' in o) {
        placed.push(null);
        if (o) recordUnplaced(i, o.error.message);
        continue;
      }
      placed.push(o);
      const loc = places[i].location;
      if (o.geocoded && !loc.LatLong) loc.LatLong = { Latitude: o.lat, Longitude: o.lon };
      if (s.IsNeedMatchCode) loc.MatchCode = o.matchCode;
      // Address filled on stops given only as coordinates (reverse geocoding), for the output.
      if (!loc.Address && o.address) loc.Address = { ...o.address } as Address;
    }
  } catch (e) {
    return failedFromError(e, { Items: [] }) as DispatchResult;
  }
  if (issues.length) return failedFromIssues(issues, { Items: [] }) as DispatchResult;
  // Stops left unplaced take a large matrix off the rounded path (placedTravel): check again.
  if (placed.some((p) => p === null) && places.length >= roundedFrom) {
    const again = dispatchSizeIssue(dispatchSize(s, places.length, false, scratchOf(ctx, places.length)), ctx.maxMatrixBytes, roundedFrom);
    if (again) return failedFromIssues([again], { Items: [] }) as DispatchResult;
  }
  let travel: DispatchTravel;
  try {
    travel = await placedTravel(ctx, s, placed, opts);
  } catch (e) {
    // a matrix refused by the kernel's own bound is about the request's Locations
    return failedFromError(isEngineError(e) && e.code === 'TooBig' && e.path === undefined ? new EngineError('TooBig', e.message, { path: 'Locations', details: e.details }) : e, { Items: [] }) as DispatchResult;
  }
  try {
    const built = buildDispatchInput(s, travel, { unplaced });
    if ('issues' in built) return failedFromIssues(built.issues, { Items: [] }) as DispatchResult;
    return { spec: s, input: built.input, b: built.b };
  } catch (e) {
    return failedFromError(e, { Items: [] }) as DispatchResult;
  }
}

/** The answer to a Dispatch with nothing to place (Vehicles without depots, no stops): an empty plan. */
function emptyPlan(): DispatchResult {
  return { ...statusFor([]), Items: [] } as DispatchResult;
}

/**
 * The counts a Dispatch's memory estimate needs (ops/limits.ts, dispatchMemoryBytes), from the
 * records alone: places, distinct sets of Shapes and constant-Speed profiles, the solver's stops
 * (an upper bound: MidwayDrops count their reload copies, Breaks with a place one per vehicle)
 * and vehicles (trips included, by the same plan as {@link tripPlan}).
 */
function dispatchSize(spec: DispatchSpecification, places: number, rounded: boolean, scratchBytes = 0): DispatchSize {
  const vehicles = (spec.Vehicles ?? []).filter((v): v is Vehicle => !!v);
  const zoneSets = new Set<string>();
  const speeds = new Set<string>();
  for (const v of vehicles) {
    const k = zoneKey(vehicleZones(v));
    if (k !== '') zoneSets.add(k);
    if ((v.Speed ?? 0) > 0) speeds.add(`${v.Speed}|${k}`);
  }
  let stops = 0, drops = 0, breaks = 0;
  for (const l of spec.Locations ?? []) {
    const type = l?.LocationType ?? 'Midway';
    if (!l || type === 'Start' || type === 'Finish') continue;
    if (type === 'MidwayDrop') drops++;
    else if (type === 'Break') { if (hasPlace(l)) breaks++; } else stops++;
  }
  const fleet = vehicles.length > 0 ? vehicles : [VehicleSchema.defaults()];
  const trips = tripPlan(fleet.map((v) => ({ maxStops: v.MaxStops ?? 0, maxDuration: (v.MaxMinutes ?? 0) * 60 })), stops);
  return {
    places, rounded, zoneSets: zoneSets.size, speedProfiles: speeds.size,
    stops: stops + drops * MAX_DROP_COPIES + breaks * fleet.length,
    modelVehicles: trips.reduce((a, t) => a + t, 0),
    scratchBytes,
  };
}

/**
 * The matrix search's scratch for `places` places, as the matrix kernel will count it (its
 * threads only when the matrix is large enough to be tiled: asking for them starts the pool).
 */
function scratchOf(ctx: OpsContext, places: number): number {
  if (!ctx.roads) return 0;
  const tiled = places * places > IN_THREAD_MAX_CELLS && places > 1 && ctx.executor.offThread;
  return searchScratchBytes(ctx.roads.numNodes, places, true, tiled ? ctx.executor.threads : 0);
}

/** Travel data over the placed locations, in the dispatch's place order (unplaced rows and columns unreachable). */
async function placedTravel(ctx: OpsContext, s: DispatchSpecification, placed: (Placement | null)[], opts: OpOptions): Promise<DispatchTravel> {
  const idx: number[] = [];
  placed.forEach((p, i) => { if (p) idx.push(i); });
  const n = idx.length;
  const N = placed.length;
  const mopts = {
    // computeMatrix keeps small matrices in this thread and tiles large ones on the executor.
    executor: ctx.executor,
    signal: opts.signal, onProgress: opts.onProgress, maxMatrixBytes: ctx.maxMatrixBytes,
  };
  let out: DispatchTravel;
  if (n >= (ctx.roundedMatrixFrom ?? ROUNDED_MIN_PLACES) && n === N && ctx.travel.matrixRounded) {
    // Very large: whole seconds and metres from the start, shared with the solver as they are.
    const m = await ctx.travel.matrixRounded(idx.map((i) => placed[i]!), profileFor(s.RouteOptimize), mopts);
    out = { time: m.time, distance: m.distance };
  } else {
    const m = await ctx.travel.matrix(idx.map((i) => placed[i]!), profileFor(s.RouteOptimize), mopts);
    out = spread(m.timeS, m.distanceM, idx, N);
  }
  // Vehicles with no-go zones: the matrices of paths that avoid the roads their zones block,
  // one per distinct set of zones (vehicles sharing one share them).
  const sets = new Map<string, Zone[]>();
  for (const v of s.Vehicles ?? []) {
    const z = vehicleZones(v ?? undefined);
    const k = zoneKey(z);
    if (k !== '' && !sets.has(k)) sets.set(k, z);
  }
  if (sets.size > 0) {
    out.zoned = {};
    for (const [k, zones] of sets) {
      const blocked = ctx.travel.blockedArcs(zones);
      const zm = await ctx.travel.matrix(idx.map((i) => placed[i]!), { ...profileFor(s.RouteOptimize), blockedArcs: blocked }, {
        executor: ctx.executor, signal: opts.signal, onProgress: opts.onProgress, maxMatrixBytes: ctx.maxMatrixBytes,
      });
      const z = spread(zm.timeS, zm.distanceM, idx, N);
      out.zoned[k] = { time: z.time, distance: z.distance };
    }
  }
  return out;
}

/** An n×n matrix over the placed rows `idx` spread into the N×N place order (others unreachable). */
function spread(timeS: Float64Array, distanceM: Float64Array, idx: number[], N: number): DispatchTravel {
  const n = idx.length;
  if (n === N) return { time: timeS, distance: distanceM };
  const time = new Float64Array(N * N).fill(Infinity);
  const distance = new Float64Array(N * N).fill(Infinity);
  for (let a = 0; a < n; a++) {
    const row = idx[a] * N, src = a * n;
    for (let b = 0; b < n; b++) {
      time[row + idx[b]] = timeS[src + b];
      distance[row + idx[b]] = distanceM[src + b];
    }
  }
  for (let i = 0; i < N; i++) { time[i * N + i] = 0; distance[i * N + i] = 0; }
  return { time, distance };
}

// ---- off the calling thread ----------------------------------------------------------------------

/** Where a dispatch task finds the dataset (see ops/context.ts). */
export type DispatchTaskSource = TaskSource;

export interface DispatchPrepareTask {
  source: DispatchTaskSource;
  spec?: unknown;
  /** The specification as JSON text instead (a large one crosses threads at once as text). */
  specText?: string;
}

/** From this many Locations a specification travels to the prepare task as JSON text. */
const SPEC_AS_TEXT_FROM = 500;

export type DispatchPrepared = { result: DispatchResult }
  | { spec: DispatchSpecification; b: Bookkeeping; problem: Record<string, unknown>; input?: undefined }
  /** Modes solved in phases: the solver's input itself (its large matrices are on shared memory). */
  | { spec: DispatchSpecification; b: Bookkeeping; input: VrpInput; problem?: undefined };

export interface DispatchFinishTask {
  spec: DispatchSpecification;
  b: Bookkeeping;
  problem: Record<string, unknown>;
  routes: Int32Array[];
  stats: SolveStats;
  assembleBy?: number;
}

declare module '../core/executor.js' {
  interface TaskMap {
    'dispatch-prepare': TaskTypes<DispatchPrepareTask, DispatchPrepared>;
    /** The DispatchResult as text, an Item per text: text crosses threads at once (a large object graph would hold the receiving event loop while it is rebuilt). */
    'dispatch-finish': TaskTypes<DispatchFinishTask, Texts>;
  }
}

async function dispatchOffThread(ctx: OpsContext, spec: unknown, opts: DispatchOpOptions, started: number): Promise<DispatchResult> {
  const ex = ctx.executor;
  try {
    const locs = spec && typeof spec === 'object' ? Object.entries(spec).find(([k]) => k.toLowerCase() === 'locations')?.[1] : undefined;
    const payload = Array.isArray(locs) && locs.length >= SPEC_AS_TEXT_FROM ? { specText: joined(await rawJsonSliced(spec)) } : { spec };
    const prep = await ex.run('dispatch-prepare', { source: taskSource(ctx), ...payload }, { signal: opts.signal, onProgress: opts.onProgress });
    if ('result' in prep) return prep.result;
    if (prep.input) {
      // A mode solved in phases (a balancing mode's reference plan, regions then the rest): the
      // phases run here as in dispatchOp, the solver's build, searches and assembly on the executor.
      return await solveAndReport(prep.spec, prep.input, prep.b, { ...opts, executor: ex, offload: true }, { started, places: dispatchPlaces(prep.spec).length });
    }
    const pb = Problem.fromTransfer(prep.problem);
    const so = solveOptions(prep.spec, { ...opts, executor: ex }, { started, places: dispatchPlaces(prep.spec).length }, pb.nStops);
    const best = await searchBest(pb, so, started);
    reportStop(opts, best.stats);
    // No signal here: a cancelled solve still reports the best solution it reached.
    return await fromTexts<DispatchResult>(await ex.run('dispatch-finish', { spec: prep.spec, b: prep.b, problem: prep.problem, ...best, assembleBy: so.assembleBy }));
  } catch (e) {
    return failedFromError(e, { Items: [] }) as DispatchResult;
  }
}

export async function dispatchPrepareTask(t: DispatchPrepareTask, env: TaskEnv): Promise<DispatchPrepared> {
  const spec = t.specText !== undefined ? JSON.parse(t.specText) as unknown : t.spec;
  const p = await prepareDispatch(contextInTask(t.source, env), spec, { onProgress: env.progress, ...(env.signal ? { signal: env.signal } : {}) }, undefined);
  if ('Status' in p) return { result: p };
  const phases = modePhases(p.input, p.b);
  if (phases.reference || phases.regions) return { spec: p.spec, b: p.b, input: p.input };
  try {
    return { spec: p.spec, b: p.b, problem: buildProblem(p.input).toTransfer() };
  } catch (e) {
    return { result: failedFromError(inContractTerms(e, p.input, p.b), { Items: [] }) as DispatchResult };
  }
}

export function dispatchFinishTask(t: DispatchFinishTask): Texts {
  return toTexts(toResult(t.spec, t.b, assemble(Problem.fromTransfer(t.problem), t.routes, t.stats, t.assembleBy)) as Record<string, unknown>, 'Items');
}
