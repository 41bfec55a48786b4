/**
 * The dispatch solver's problem model.
 *
 * Callers describe a problem with plain arrays ({@link VrpInput}); {@link buildProblem} turns it
 * into the internal, index-based {@link Problem}: integer matrices (Int32Array on
 * SharedArrayBuffers, so worker threads see them without copying) and struct-of-arrays job and
 * vehicle data. Nothing in the hot paths allocates or looks at the input objects again.
 *
 * Vocabulary:
 * - a *place* is a row/column of the matrices;
 * - a *stop* is one visit the caller asked for (input index);
 * - a *job* is what the solver moves around: one stop, or a non-stop pickup→delivery pair
 *   merged into one composite job (its two stops are always visited back to back);
 * - a *node* is a job (ids 0..J-1) or a vehicle's start (J+2v) / end (J+2v+1) depot node.
 *
 * Time windows constrain the *start of service*. Every time, duration and cost is an integer in
 * the caller's units (the dispatch layer uses seconds and metres; the benchmark readers scale).
 */
import type { BalanceTerm } from './objective.js';
import { EngineError, invalidInput } from '../core/errors.js';
import { throwIfAborted } from '../core/cancel.js';
import { vehicleCostTerms } from './objective.js';

/** "Unbounded" for times (kept finite so that differences never produce NaN). */
export const BIG = 1e13;
/** Travel time/cost stored for unreachable pairs (callers pass a negative or non-finite value). */
export const UNREACHABLE = 1_000_000_000;

export interface VrpStop {
  /** Place index (row/column of the matrices). */
  place: number;
  /** Service duration at the stop. */
  service?: number;
  /** Amount per capacity dimension (delivered from the depot; for a pickup of a pair: carried to its delivery). */
  demand?: ArrayLike<number>;
  /**
   * Up to two windows for the start of service, `[open, close]` (either end may be ±Infinity).
   * Absent or empty = any time. With two windows either may be used.
   */
  windows?: ReadonlyArray<readonly [number, number]>;
  /** Larger = more important; when not everything fits, the lowest priorities are left out first. */
  priority?: number;
  /** Skills the serving vehicle must have (all of them). */
  skills?: ReadonlyArray<string | number>;
  /** Pre-assignment: the only vehicle index allowed to serve this stop. */
  vehicle?: number;
  /** Stops with this flag keep their input order relative to each other within a route. */
  keepOrder?: boolean;
  /**
   * A reload point (MidwayDrop): visiting it empties the vehicle — the load resets, and what is
   * delivered afterwards is loaded there. Its demand must be 0; it cannot be in a pair, and no
   * pair may be open across it. It does not count towards maxStops.
   */
  reload?: boolean;
  /**
   * May be left out at no penalty, and is then not reported unassigned; the solver serves it only
   * where it pays (reload points are offered where a capacity blocks a stop).
   */
  optional?: boolean;
  /**
   * Stability (re-dispatch): the vehicle group this stop was planned on. Served by a vehicle of
   * another group (its {@link VrpVehicle.home}) it costs {@link VrpInput.moveCost} more.
   */
  home?: number;
  /** Free-form label carried to the solution (e.g. the caller's name for it). */
  label?: string;
}

export interface VrpPair {
  /** Stop index of the pickup. */
  pickup: number;
  /** Stop index of the delivery. */
  delivery: number;
  /** The delivery must come immediately after the pickup (default false here; the dispatch layer maps DeliveryNonStop). */
  nonStop?: boolean;
}

export interface VrpVehicle {
  /** Start place; undefined = the route starts at its first stop (no travel before it). */
  start?: number;
  /** End place; undefined = open route (it ends at the last stop). */
  end?: number;
  /** Capacity per dimension; 0, undefined or Infinity = unlimited. */
  capacity?: ArrayLike<number>;
  /** Maximum number of stops (a pickup/delivery pair counts two); 0/undefined = unlimited. */
  maxStops?: number;
  /** Maximum route duration, waits and service included (start departure → end arrival); 0/undefined = unlimited. */
  maxDuration?: number;
  /** Availability: earliest departure from the start, latest arrival at the end. */
  shift?: readonly [number, number];
  /** Skills the vehicle has. */
  skills?: ReadonlyArray<string | number>;
  /** Integer multiplier of the objective matrix for this vehicle (e.g. scaled FuelCost); default 1. */
  costFactor?: number;
  /** Cost added when the vehicle is used at all (hook for minimum-vehicles modes); default 0. */
  fixedCost?: number;
  /** Index into `VrpInput.time` when several travel-time profiles are given (e.g. Speed overrides); default 0. */
  timeProfile?: number;
  /**
   * Driver breaks taken where the driver is (no place of their own), see {@link VrpBreak}. A break
   * whose window closes before the shift starts does not apply.
   */
  breaks?: ReadonlyArray<VrpBreak>;
  /** Stability (re-dispatch): the vehicle group (a vehicle's trips share one), see {@link VrpStop.home}. */
  home?: number;
  label?: string;
}

/**
 * A break without a place. It starts inside `window` (open ends allowed) and lasts `duration`;
 * it is taken at the start place after departure, or at a stop before or after its service —
 * wherever the driver is — and adds its duration to the route. A used route owes it unless the
 * route is over (arrival at its end) before the window opens.
 */
export interface VrpBreak {
  window?: readonly [number, number];
  duration: number;
  label?: string;
}

export interface VrpInput {
  /** Number of places (matrices are places × places, row-major). */
  places: number;
  /** Travel time, or several profiles of it. Non-negative; negative/non-finite = unreachable. Rounded to integers. */
  time: ArrayLike<number> | ReadonlyArray<ArrayLike<number>>;
  /**
   * Distance (reported, and the objective when `objective` is 'distance'): one matrix, or one per
   * time profile (a vehicle's `timeProfile` picks both). Default: the first time profile.
   */
  distance?: ArrayLike<number> | ReadonlyArray<ArrayLike<number>>;
  /** What is minimised (before the per-vehicle costFactor): 'distance' (default) or 'time'. */
  objective?: 'distance' | 'time';
  /** Capacity dimensions (length of every demand/capacity array); default: longest given. */
  dimensions?: number;
  stops: ReadonlyArray<VrpStop>;
  vehicles: ReadonlyArray<VrpVehicle>;
  pairs?: ReadonlyArray<VrpPair>;
  /** Departure time of vehicles without a shift start (the clock for estimates); default 0. */
  startTime?: number;
  /** A balancing term added to every used route's cost in the search (the balancing DispatchModes). */
  balance?: BalanceTerm;
  /**
   * Stability (re-dispatch): the cost, in objective units, of serving a stop that has a `home`
   * on a vehicle of another home (a stop moved to another vehicle). In the search's objective
   * only, like the balancing term; the reported cost stays the travel cost. Default 0.
   */
  moveCost?: number;
  /**
   * The instance's own definition counts vehicles before cost (Solomon, Gehring & Homberger: fewest
   * vehicles, then distance). The objective stays `objective`; the search takes it as a sign that
   * fewer vehicles pay and minimises the fleet first on long budgets (docs/vrp.md, "Fleet
   * minimisation"). Default false.
   */
  vehiclesFirst?: boolean;
}

/** Why a stop is left out. Stable codes (the dispatch layer turns them into messages). */
export type UnassignedReason =
  | 'skills' | 'preassigned' | 'capacity' | 'maxStops' | 'timeWindow' | 'shift' | 'otherWindows' | 'maxDuration'
  | 'unreachable' | 'pair' | 'keepOrder' | 'noVehicle' | 'notInserted' | 'timeLimit' | 'cancelled';

export const REASON_CODES: readonly UnassignedReason[] = [
  'skills', 'preassigned', 'capacity', 'maxStops', 'timeWindow', 'shift', 'otherWindows', 'maxDuration', 'unreachable', 'pair', 'keepOrder', 'noVehicle', 'notInserted', 'timeLimit', 'cancelled',
];

/**
 * How close a candidate came when it failed for this reason (a later check = closer); used to
 * pick the one reason reported for a stop that no route could take.
 */
export const REASON_RANK: Record<UnassignedReason, number> = {
  noVehicle: 0, notInserted: 0, timeLimit: 0, cancelled: 0, skills: 1, preassigned: 1, unreachable: 2, timeWindow: 3, shift: 3, otherWindows: 3, keepOrder: 3,
  maxDuration: 4, maxStops: 5, capacity: 5, pair: 6,
};

export const REASON_TEXT: Record<UnassignedReason, string> = {
  skills: 'no vehicle has the skills (Conditions) it needs',
  preassigned: 'its pre-assigned vehicle cannot serve it',
  capacity: 'it does not fit the vehicles\' capacity',
  maxStops: 'the vehicles\' stop limit (MaxStops) is reached',
  timeWindow: 'its time window cannot be met',
  shift: 'it cannot be served within the vehicles\' shifts (Tin/Tout)',
  otherWindows: 'serving it would make stops already on the routes miss their time windows',
  maxDuration: 'it would make a route longer than the vehicle\'s MaxMinutes',
  unreachable: 'it cannot be reached by road from the vehicles\' start or end',
  pair: 'its pickup/delivery partner cannot be served with it',
  keepOrder: 'it cannot keep its order (KeepSameOrder) relative to the other stops of a route',
  noVehicle: 'there is no vehicle',
  notInserted: 'no room left in any route (lower priority than the stops served)',
  timeLimit: 'the time limit ended the work before it could be placed',
  cancelled: 'the work was cancelled before it could be placed',
};

/** Internal problem: typed arrays only (plus labels). Built by {@link buildProblem}; rebuilt in workers by {@link Problem.fromTransfer}. */
export class Problem {
  /** Matrix side (places, plus one "nowhere" place when a vehicle has an open start or end). */
  N!: number;
  /** Places given by the caller. */
  nPlaces!: number;
  /** Index of the "nowhere" place (zero travel to and from everything), or -1. */
  dummy!: number;
  nStops!: number;
  /** Jobs (solver units). */
  J!: number;
  /** Vehicles. */
  V!: number;
  /** Capacity dimensions. */
  K!: number;
  /** Time profiles. */
  P!: number;
  /** Stability: cost of a stop served away from its home group (0 = off), and each stop's home (-1 = none). */
  moveCost!: number;
  sHome!: Int32Array;
  /**
   * Per vehicle: its profile of travel *times* (profiles split by home share their times: a
   * route's cached time data serves every vehicle with the same one).
   */
  vTimeProf!: Int32Array;
  /** Per profile: the vehicle group ({@link VrpVehicle.home}) it serves, -1 = none (profiles split by home when there is a move cost). */
  profHome!: Int32Array;
  objective!: 'distance' | 'time';

  dist!: Int32Array;
  /** Distance per profile (the same matrix for all unless the input gives one per profile). */
  distP!: Int32Array[];
  time!: Int32Array[];
  /** Cost base per profile (dist, or that profile's time). */
  cost!: Int32Array[];

  // ---- per node (jobs then depots), length J + 2V
  inPl!: Int32Array;
  outPl!: Int32Array;
  /** outPl * N, for row lookups. */
  outRow!: Int32Array;

  // ---- per (profile, node): Vidal time data of the node as a segment (hull of windows), length P*(J+2V)
  nE!: Float64Array;
  nL!: Float64Array;
  nD!: Float64Array;
  /** Internal cost (composite jobs: pickup→delivery leg), base units, per (profile, node). */
  nIntCost!: Float64Array;
  /** Internal distance per node. */
  nIntDist!: Float64Array;
  /** Node has a stop with two windows (exact check needed beyond the hull). */
  nMulti!: Uint8Array;

  // ---- per job
  /** Stops of a job: first, and second (composite) or -1. */
  jStop0!: Int32Array;
  jStop1!: Int32Array;
  jStops!: Int32Array;
  /** Load: amount from the depot, net change on board, max rise within the job; J*K. */
  jDep!: Float64Array;
  jDelta!: Float64Array;
  jRise!: Float64Array;
  /** Paired job (separate pickup/delivery), or -1. */
  jMate!: Int32Array;
  /** 1 = pickup of a separate pair, 2 = delivery, 0 = none. */
  jPairRole!: Uint8Array;
  /** Keep-order rank (stop index), or -1. */
  jKeep!: Int32Array;
  /** Priority rank 0..R-1 (higher = more important). */
  jPrio!: Int32Array;
  /** 1 = a reload job (the load resets there), per job. */
  jReset!: Uint8Array;
  /** 1 = an optional job (never counted or reported unassigned), per job. */
  jOptional!: Uint8Array;
  hasReset!: boolean;
  R!: number;
  /** Allowed[j * V + v] (skills, pre-assignment and isolation feasibility), or null when all allowed. */
  allowed!: Uint8Array | null;
  /** Reason code index a job is infeasible in isolation for every vehicle, -1 when servable. */
  jInfeasible!: Int32Array;
  /** Stop → job. */
  stopJob!: Int32Array;

  // ---- per stop (for exact checks and output)
  sPlace!: Int32Array;
  sService!: Float64Array;
  /** Windows: 2 per stop [open0, close0, open1, close1]; sWinCount 0..2. */
  sWin!: Float64Array;
  sWinCount!: Uint8Array;
  sDemand!: Float64Array;
  sPriority!: Float64Array;

  // ---- per vehicle
  vProfile!: Int32Array;
  vCostMul!: Float64Array;
  vFixed!: Float64Array;
  vCap!: Float64Array;
  vMaxStops!: Float64Array;
  vMaxDur!: Float64Array;
  vTin!: Float64Array;
  vTout!: Float64Array;
  vStartPl!: Int32Array;
  vEndPl!: Int32Array;
  vHasStart!: Uint8Array;
  vHasEnd!: Uint8Array;
  /** Breaks without a place: vehicle v's are brA/brB/brW[vBrOff[v] .. vBrOff[v+1]), by window opening. */
  vBrOff!: Int32Array;
  brA!: Float64Array;
  brB!: Float64Array;
  brW!: Float64Array;
  /** Input index of each break within its vehicle's `breaks`. */
  brIdx!: Int32Array;
  /** Vehicles with identical attributes share a class (empty-route moves try one per class). */
  vClass!: Int32Array;
  nClasses!: number;

  // ---- flags
  hasTime!: boolean;
  hasLoad!: boolean;
  hasPairs!: boolean;
  hasKeep!: boolean;
  hasMulti!: boolean;
  hasMaxStops!: boolean;
  hasMaxDur!: boolean;
  /** Every job has zero rise (no pickups): loads only fall along a route. */
  loadMonotone!: boolean;
  /** All vehicles share one profile and cost multiplier. */
  uniformCost!: boolean;
  /**
   * The objective is a sum of arc costs (× costFactor) plus fixed costs. The local search's O(1)
   * arc-delta filter and the insertion prefilter rely on it; a future route-level term
   * (balancing modes, …) added to `Evaluator.cost` must set this to false.
   */
  pureArcObjective!: boolean;
  /** The balancing term of the search's objective, or null. */
  balance!: BalanceTerm | null;
  /** {@link VrpInput.vehiclesFirst}. */
  vehiclesFirst!: boolean;

  /**
   * Set by a solve whose searches run in rounds on the same threads (decomposition): lets a thread
   * reuse what it derived from this problem in an earlier round (its neighbour lists).
   */
  cacheKey?: string;

  stopLabels!: (string | undefined)[];
  vehicleLabels!: (string | undefined)[];

  startNode(v: number): number { return this.J + 2 * v; }
  endNode(v: number): number { return this.J + 2 * v + 1; }

  /** Plain record for structured cloning into a worker (matrices stay shared). */
  toTransfer(): Record<string, unknown> {
    return { ...this } as Record<string, unknown>;
  }

  static fromTransfer(o: Record<string, unknown>): Problem {
    return Object.assign(new Problem(), o);
  }
}

/**
 * Copies a matrix into an Int32Array (on a SharedArrayBuffer) of side N, rounding; unreachable →
 * UNREACHABLE. 10⁸ cells (10,000 places) take a second: `signal` is read between bands of rows.
 */
function intMatrix(src: ArrayLike<number>, n: number, N: number, path: string, signal?: AbortSignal): Int32Array {
  if (src.length !== n * n) throw invalidInput(path, `must have places × places = ${n * n} entries (got ${src.length})`);
  const band = Math.max(1, Math.floor(MATRIX_BAND_CELLS / Math.max(1, n)));
  if (N === n && src instanceof Int32Array && src.buffer instanceof SharedArrayBuffer) {
    let ok = true;
    for (let r = 0; r < n && ok; r += band) {
      throwIfAborted(signal);
      ok = nonNegative(src, r * n, Math.min(n, r + band) * n);
    }
    if (ok) return src;
  }
  const out = new Int32Array(new SharedArrayBuffer(N * N * 4));
  if (src instanceof Float64Array) {
    for (let r = 0; r < n; r += band) {
      throwIfAborted(signal);
      roundRows(src, out, r, Math.min(n, r + band), n, N);
    }
  } else {
    for (let i = 0; i < n; i++) {
      if (i % band === 0) throwIfAborted(signal);
      const ro = i * N;
      const ri = i * n;
      for (let j = 0; j < n; j++) {
        const x = src[ri + j];
        out[ro + j] = !(x >= 0) || !Number.isFinite(x) || x >= UNREACHABLE ? UNREACHABLE : Math.round(x);
      }
    }
  }
  return out;
}

/** Cells of a matrix between two looks at the signal in {@link intMatrix} (a few ms). */
const MATRIX_BAND_CELLS = 1 << 21;

/** Whether src[from, to) holds no negative value (intMatrix's scan, monomorphic). */
function nonNegative(src: Int32Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (src[i] < 0) return false;
  return true;
}

/** intMatrix's loop for the usual Float64Array input, rows [r0, r1) (monomorphic: ~20× faster on 10⁸ cells). */
function roundRows(src: Float64Array, out: Int32Array, r0: number, r1: number, n: number, N: number): void {
  for (let i = r0; i < r1; i++) {
    const ro = i * N;
    const ri = i * n;
    for (let j = 0; j < n; j++) {
      const x = src[ri + j];
      // NaN, negative, infinite and too large all fail the one test
      out[ro + j] = x >= 0 && x < UNREACHABLE ? Math.round(x) : UNREACHABLE;
    }
  }
}

/** Vidal-style concatenation of (E,L,D) with travel t; returns null when a window is missed. */
function concatTW(E1: number, L1: number, D1: number, t: number, E2: number, L2: number, D2: number): [number, number, number] | null {
  const delta = D1 + t;
  if (E1 + delta > L2) return null;
  const wt = Math.max(E2 - delta - L1, 0);
  return [Math.max(E2 - delta, E1) - wt, Math.min(L2 - delta, L1), D1 + D2 + t + wt];
}

/**
 * Validates the input and builds the internal problem. Throws EngineError('InvalidInput') naming
 * the offending field. Stops that no vehicle can serve (checked one at a time) are marked in
 * `jInfeasible` with a reason instead of failing.
 *
 * Stages (each validates its part of the input, in this order, so the first offending field is
 * the one reported): {@link readMatrices}, {@link capacityDimensions}, {@link readStops},
 * {@link formJobs}, {@link readVehicles}, {@link vehicleClasses}, {@link jobNodes},
 * {@link depotNodes}, {@link priorityRanks}, {@link isolationFeasibility}.
 */
export function buildProblem(input: VrpInput, opts: { signal?: AbortSignal } = {}): Problem {
  const signal = opts.signal;
  const pb = new Problem();
  const stops = input.stops ?? [];
  const vehicles = input.vehicles ?? [];
  const pairs = input.pairs ?? [];
  readMatrices(pb, input, vehicles, signal);
  throwIfAborted(signal);
  pb.K = capacityDimensions(input, stops, vehicles);
  const skillOf = skillIndex();
  const st = readStops(pb, stops, skillOf);
  const jobs = formJobs(pb, stops, pairs);
  const veh = readVehicles(pb, input, vehicles, skillOf);
  pb.hasTime = st.hasWindows || veh.hasShiftEnd || pb.hasMaxDur;
  pb.hasMulti = st.hasMulti;
  pb.balance = readBalance(input.balance);
  pb.vehiclesFirst = input.vehiclesFirst === true;
  homeProfiles(pb, input, stops, vehicles);
  vehicleClasses(pb, vehicles, stops, veh.skills);
  throwIfAborted(signal);
  const compositeBad = jobNodes(pb, stops, jobs);
  depotNodes(pb);
  priorityRanks(pb);
  throwIfAborted(signal);
  isolationFeasibility(pb, stops, jobs, st.skills, veh.skills, compositeBad, signal);
  return pb;
}

/**
 * Stability: with a move cost and stops that have a home, each (profile, vehicle home) pair gets
 * its own profile — sharing the same matrices, so no memory but a few per-node arrays — whose
 * per-node cost adds the move cost for every stop planned elsewhere ({@link jobNodes}). The
 * objective stays a sum over arcs and nodes, so every delta shortcut of the search still holds.
 */
function homeProfiles(pb: Problem, input: VrpInput, stops: ReadonlyArray<VrpStop>, vehicles: ReadonlyArray<VrpVehicle>): void {
  pb.profHome = new Int32Array(pb.P).fill(-1);
  pb.vTimeProf = pb.vProfile;
  pb.moveCost = 0;
  const mc = input.moveCost ?? 0;
  if (!(Number.isFinite(mc) && mc >= 0)) throw invalidInput('moveCost', 'must be a finite number ≥ 0');
  stops.forEach((s, i) => {
    if (s.home !== undefined && !Number.isInteger(s.home)) throw invalidInput(`stops[${i}].home`, 'must be an integer');
  });
  vehicles.forEach((v, i) => {
    if (v.home !== undefined && !Number.isInteger(v.home)) throw invalidInput(`vehicles[${i}].home`, 'must be an integer');
  });
  if (mc === 0 || !stops.some((s) => s.home !== undefined)) return;
  pb.moveCost = Math.round(mc);
  pb.vTimeProf = Int32Array.from(pb.vProfile);
  const key = new Map<string, number>();
  const time: Int32Array[] = [], dist: Int32Array[] = [], home: number[] = [];
  for (let v = 0; v < pb.V; v++) {
    const p = pb.vProfile[v], h = vehicles[v].home ?? -1;
    const k = `${p}|${h}`;
    let q = key.get(k);
    if (q === undefined) {
      key.set(k, (q = time.length));
      time.push(pb.time[p]); dist.push(pb.distP[p]); home.push(h);
    }
    pb.vProfile[v] = q;
  }
  if (time.length === 0) return;
  pb.P = time.length;
  pb.time = time;
  pb.distP = dist;
  pb.cost = pb.objective === 'distance' ? pb.distP : pb.time;
  pb.profHome = Int32Array.from(home);
}

/** The balancing term, checked (null when absent or zero-weight). */
function readBalance(b: BalanceTerm | undefined): BalanceTerm | null {
  if (b === undefined || b === null) return null;
  if (b.metric !== 'stops' && b.metric !== 'travel') throw invalidInput('balance.metric', "must be 'stops' or 'travel'");
  if (!(Number.isFinite(b.target) && b.target >= 0)) throw invalidInput('balance.target', 'must be a finite number ≥ 0');
  if (!(Number.isFinite(b.weight) && b.weight >= 0)) throw invalidInput('balance.weight', 'must be a finite number ≥ 0');
  return b.weight === 0 ? null : { metric: b.metric, target: b.target, weight: b.weight, withService: b.metric === 'travel' && b.withService === true };
}

/**
 * Places, the extra "nowhere" place (when a vehicle has no start or no end), the objective, and
 * the integer matrices: time per profile, distance (default: the first time profile) and the
 * cost base per profile.
 */
function readMatrices(pb: Problem, input: VrpInput, vehicles: ReadonlyArray<VrpVehicle>, signal?: AbortSignal): void {
  const n = input.places;
  if (!Number.isInteger(n) || n < 1) throw invalidInput('places', 'must be a positive integer');
  const needDummy = vehicles.some((v) => v.start === undefined || v.end === undefined);
  const N = needDummy ? n + 1 : n;
  pb.N = N;
  pb.nPlaces = n;
  pb.dummy = needDummy ? n : -1;
  pb.nStops = (input.stops ?? []).length;
  pb.V = vehicles.length;
  pb.objective = input.objective ?? 'distance';
  if (pb.objective !== 'distance' && pb.objective !== 'time') throw invalidInput('objective', 'must be "distance" or "time"');

  const timeList: ArrayLike<number>[] = isMatrixList(input.time) ? [...(input.time as ReadonlyArray<ArrayLike<number>>)] : [input.time as ArrayLike<number>];
  if (timeList.length === 0) throw invalidInput('time', 'at least one travel-time matrix is needed');
  pb.P = timeList.length;
  pb.time = timeList.map((m, i) => intMatrix(m, n, N, timeList.length > 1 ? `time[${i}]` : 'time', signal));
  // Distance: one matrix for every profile, or one per profile (vehicles routed differently, e.g. around no-go zones).
  if (input.distance !== undefined && isMatrixList(input.distance)) {
    const list = input.distance as ReadonlyArray<ArrayLike<number>>;
    if (list.length !== pb.P) throw invalidInput('distance', `must be one matrix, or one per time profile (${pb.P}; got ${list.length})`);
    pb.distP = list.map((m, i) => intMatrix(m, n, N, `distance[${i}]`, signal));
  } else {
    const d = input.distance !== undefined ? intMatrix(input.distance as ArrayLike<number>, n, N, 'distance', signal) : pb.time[0];
    pb.distP = pb.time.map(() => d);
  }
  pb.dist = pb.distP[0];
  pb.cost = pb.objective === 'distance' ? pb.distP : pb.time;
}

/** Capacity dimensions: `input.dimensions`, else the longest demand or capacity given. */
function capacityDimensions(input: VrpInput, stops: ReadonlyArray<VrpStop>, vehicles: ReadonlyArray<VrpVehicle>): number {
  let K = input.dimensions ?? 0;
  if (input.dimensions === undefined) {
    for (const s of stops) K = Math.max(K, s.demand?.length ?? 0);
    for (const v of vehicles) K = Math.max(K, v.capacity?.length ?? 0);
  }
  return K;
}

/** Skill names → small integers, shared by stops and vehicles (strings trimmed and case-insensitive). */
function skillIndex(): (x: string | number) => number {
  const skillIds = new Map<string, number>();
  return (x: string | number): number => {
    const key = typeof x === 'string' ? x.trim().toLowerCase() : `#${x}`;
    let id = skillIds.get(key);
    if (id === undefined) skillIds.set(key, (id = skillIds.size));
    return id;
  };
}

/**
 * Per stop: place, service (rounded), up to two windows (integer-rounded inwards, overlapping
 * ones merged, sorted), demand, priority, pre-assigned vehicle (checked) and skills.
 */
function readStops(pb: Problem, stops: ReadonlyArray<VrpStop>, skillOf: (x: string | number) => number): { skills: number[][]; hasWindows: boolean; hasMulti: boolean } {
  const S = stops.length;
  const n = pb.nPlaces;
  const V = pb.V;
  const K = pb.K;
  pb.sPlace = new Int32Array(S);
  pb.sService = new Float64Array(S);
  pb.sWin = new Float64Array(S * 4);
  pb.sWinCount = new Uint8Array(S);
  pb.sDemand = new Float64Array(S * K);
  pb.sPriority = new Float64Array(S);
  pb.sHome = Int32Array.from(stops, (x) => (Number.isInteger(x.home) ? x.home! : -1));
  pb.stopLabels = stops.map((s) => s.label);
  const stopSkills: number[][] = [];
  let hasTW = false;
  let hasMulti = false;
  for (let s = 0; s < S; s++) {
    const st = stops[s];
    const path = `stops[${s}]`;
    if (!Number.isInteger(st.place) || st.place < 0 || st.place >= n) throw invalidInput(`${path}.place`, `must be a place index in 0..${n - 1}`);
    pb.sPlace[s] = st.place;
    const svc = st.service ?? 0;
    if (!(svc >= 0) || !Number.isFinite(svc)) throw invalidInput(`${path}.service`, 'must be a non-negative number');
    pb.sService[s] = Math.round(svc);
    const wins = (st.windows ?? []).filter((w) => !(w[0] === -Infinity && w[1] === Infinity));
    if (wins.length > 2) throw invalidInput(`${path}.windows`, 'at most two time windows per stop');
    const ws = [...wins].map((w, i) => {
      const a = w[0] === -Infinity ? -BIG : Math.ceil(w[0]);
      const b = w[1] === Infinity ? BIG : Math.floor(w[1]);
      if (!Number.isFinite(a) || !Number.isFinite(b) || Number.isNaN(w[0]) || Number.isNaN(w[1])) throw invalidInput(`${path}.windows[${i}]`, 'must be numbers');
      if (a > b) throw invalidInput(`${path}.windows[${i}]`, `opens after it closes (${w[0]} > ${w[1]})`);
      return [a, b] as [number, number];
    }).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    // Overlapping windows merge into one.
    if (ws.length === 2 && ws[1][0] <= ws[0][1]) { ws[0][1] = Math.max(ws[0][1], ws[1][1]); ws.pop(); }
    pb.sWinCount[s] = ws.length;
    for (let i = 0; i < 2; i++) {
      pb.sWin[s * 4 + 2 * i] = ws[i] ? ws[i][0] : -BIG;
      pb.sWin[s * 4 + 2 * i + 1] = ws[i] ? ws[i][1] : BIG;
    }
    if (ws.length > 0) hasTW = true;
    if (ws.length > 1) hasMulti = true;
    const dem = st.demand ?? [];
    if (dem.length > K) throw invalidInput(`${path}.demand`, `has more than ${K} dimensions`);
    if (st.reload && Array.from(dem).some((q) => q !== 0)) throw invalidInput(`${path}.demand`, 'must be 0 for a reload point');
    for (let k = 0; k < dem.length; k++) {
      const q = dem[k];
      if (!(q >= 0) || !Number.isFinite(q)) throw invalidInput(`${path}.demand[${k}]`, 'must be a non-negative number');
      pb.sDemand[s * K + k] = q;
    }
    const pr = st.priority ?? 0;
    if (!Number.isFinite(pr)) throw invalidInput(`${path}.priority`, 'must be a finite number');
    pb.sPriority[s] = pr;
    if (st.vehicle !== undefined && (!Number.isInteger(st.vehicle) || st.vehicle < 0 || st.vehicle >= V)) {
      throw invalidInput(`${path}.vehicle`, `must be a vehicle index in 0..${V - 1}`);
    }
    stopSkills.push((st.skills ?? []).map(skillOf));
  }
  return { skills: stopSkills, hasWindows: hasTW, hasMulti };
}

/** The solver's jobs: `stops[j]` is [stop, -1] or, for a non-stop pair, [pickup, delivery]; separate pairs are two mates (role 1 pickup, 2 delivery). */
interface JobList {
  stops: [number, number][];
  mate: number[];
  role: number[];
}

/**
 * Checks the pairs and turns stops into jobs, in stop order: a plain stop is one job, a non-stop
 * pair one composite job, a separate pair two mate jobs (pickup, then delivery). Sets `J` and `stopJob`.
 */
function formJobs(pb: Problem, stops: ReadonlyArray<VrpStop>, pairs: ReadonlyArray<VrpPair>): JobList {
  const S = stops.length;
  const pairOfStop = new Int32Array(S).fill(-1);
  for (let i = 0; i < pairs.length; i++) {
    const p = pairs[i];
    const path = `pairs[${i}]`;
    for (const f of ['pickup', 'delivery'] as const) {
      const s = p[f];
      if (!Number.isInteger(s) || s < 0 || s >= S) throw invalidInput(`${path}.${f}`, `must be a stop index in 0..${S - 1}`);
      if (pairOfStop[s] >= 0) throw invalidInput(`${path}.${f}`, `stop ${s} is already in another pair`);
    }
    if (p.pickup === p.delivery) throw invalidInput(path, 'pickup and delivery must be different stops');
    if (stops[p.pickup].reload || stops[p.delivery].reload) throw invalidInput(path, 'a reload point cannot be a pickup or a delivery');
    pairOfStop[p.pickup] = i;
    pairOfStop[p.delivery] = i;
    const vp = stops[p.pickup].vehicle;
    const vd = stops[p.delivery].vehicle;
    if (vp !== undefined && vd !== undefined && vp !== vd) throw invalidInput(path, 'pickup and delivery are pre-assigned to different vehicles');
  }
  const jobStops: [number, number][] = [];
  const jobMate: number[] = [];
  const jobRole: number[] = [];
  const stopJob = new Int32Array(S).fill(-1);
  for (let s = 0; s < S; s++) {
    if (stopJob[s] >= 0) continue;
    const pi = pairOfStop[s];
    if (pi < 0) {
      stopJob[s] = jobStops.length;
      jobStops.push([s, -1]);
      jobMate.push(-1);
      jobRole.push(0);
      continue;
    }
    const p = pairs[pi];
    if (p.nonStop) {
      const j = jobStops.length;
      stopJob[p.pickup] = j;
      stopJob[p.delivery] = j;
      jobStops.push([p.pickup, p.delivery]);
      jobMate.push(-1);
      jobRole.push(0);
    } else {
      const jp = jobStops.length;
      const jd = jp + 1;
      stopJob[p.pickup] = jp;
      stopJob[p.delivery] = jd;
      jobStops.push([p.pickup, -1], [p.delivery, -1]);
      jobMate.push(jd, jp);
      jobRole.push(1, 2);
    }
  }
  pb.J = jobStops.length;
  pb.stopJob = stopJob;
  return { stops: jobStops, mate: jobMate, role: jobRole };
}

/**
 * Per vehicle: start/end places (the "nowhere" place when absent), time profile, objective
 * coefficients ({@link vehicleCostTerms}), capacities (0 = unlimited), max stops, max duration
 * and shift (integer-rounded inwards; no shift = from `startTime`, unbounded), skills. Sets
 * `hasMaxStops` and `hasMaxDur`.
 */
function readVehicles(
  pb: Problem, input: VrpInput, vehicles: ReadonlyArray<VrpVehicle>, skillOf: (x: string | number) => number,
): { skills: Set<number>[]; hasShiftEnd: boolean } {
  const V = vehicles.length;
  const K = pb.K;
  const n = pb.nPlaces;
  pb.vProfile = new Int32Array(V);
  pb.vCostMul = new Float64Array(V);
  pb.vFixed = new Float64Array(V);
  pb.vCap = new Float64Array(V * K);
  pb.vMaxStops = new Float64Array(V);
  pb.vMaxDur = new Float64Array(V);
  pb.vTin = new Float64Array(V);
  pb.vTout = new Float64Array(V);
  pb.vStartPl = new Int32Array(V);
  pb.vEndPl = new Int32Array(V);
  pb.vHasStart = new Uint8Array(V);
  pb.vHasEnd = new Uint8Array(V);
  pb.vehicleLabels = vehicles.map((v) => v.label);
  const vehSkills: Set<number>[] = [];
  const t0 = input.startTime ?? 0;
  if (!Number.isFinite(t0)) throw invalidInput('startTime', 'must be a finite number');
  let hasShiftEnd = false;
  let hasMaxStops = false;
  let hasMaxDur = false;
  for (let v = 0; v < V; v++) {
    const ve = vehicles[v];
    const path = `vehicles[${v}]`;
    for (const f of ['start', 'end'] as const) {
      const x = ve[f];
      if (x !== undefined && (!Number.isInteger(x) || x < 0 || x >= n)) throw invalidInput(`${path}.${f}`, `must be a place index in 0..${n - 1}`);
    }
    pb.vHasStart[v] = ve.start === undefined ? 0 : 1;
    pb.vHasEnd[v] = ve.end === undefined ? 0 : 1;
    pb.vStartPl[v] = ve.start ?? pb.dummy;
    pb.vEndPl[v] = ve.end ?? pb.dummy;
    const prof = ve.timeProfile ?? 0;
    if (!Number.isInteger(prof) || prof < 0 || prof >= pb.P) throw invalidInput(`${path}.timeProfile`, `must be in 0..${pb.P - 1}`);
    pb.vProfile[v] = prof;
    const mul = ve.costFactor ?? 1;
    if (!(mul >= 0) || !Number.isFinite(mul)) throw invalidInput(`${path}.costFactor`, 'must be a non-negative number');
    const fc = ve.fixedCost ?? 0;
    if (!(fc >= 0) || !Number.isFinite(fc)) throw invalidInput(`${path}.fixedCost`, 'must be a non-negative number');
    const terms = vehicleCostTerms(ve);
    pb.vCostMul[v] = terms.costFactor;
    pb.vFixed[v] = terms.fixedCost;
    const cap = ve.capacity ?? [];
    if (cap.length > K) throw invalidInput(`${path}.capacity`, `has more than ${K} dimensions`);
    for (let k = 0; k < K; k++) {
      const c = k < cap.length ? cap[k] : 0;
      if (!(c >= 0)) throw invalidInput(`${path}.capacity[${k}]`, 'must be a non-negative number');
      pb.vCap[v * K + k] = c === 0 ? Infinity : c;
    }
    const ms = ve.maxStops ?? 0;
    if (!(ms >= 0)) throw invalidInput(`${path}.maxStops`, 'must be non-negative');
    pb.vMaxStops[v] = ms === 0 ? Infinity : ms;
    if (ms > 0) hasMaxStops = true;
    const md = ve.maxDuration ?? 0;
    if (!(md >= 0)) throw invalidInput(`${path}.maxDuration`, 'must be non-negative');
    pb.vMaxDur[v] = md === 0 || md === Infinity ? BIG : Math.floor(md);
    if (md > 0 && md !== Infinity) hasMaxDur = true;
    const sh = ve.shift;
    let tin = t0;
    let tout = BIG;
    if (sh) {
      tin = sh[0] === -Infinity ? -BIG : Math.ceil(sh[0]);
      tout = sh[1] === Infinity ? BIG : Math.floor(sh[1]);
      if (Number.isNaN(tin) || Number.isNaN(tout)) throw invalidInput(`${path}.shift`, 'must be numbers');
      if (tin > tout) throw invalidInput(`${path}.shift`, 'starts after it ends');
    }
    pb.vTin[v] = tin;
    pb.vTout[v] = tout;
    if (tout < BIG) hasShiftEnd = true;
    vehSkills.push(new Set((ve.skills ?? []).map(skillOf)));
  }
  pb.hasMaxStops = hasMaxStops;
  readBreaks(pb, vehicles);
  pb.hasMaxDur = hasMaxDur;
  return { skills: vehSkills, hasShiftEnd };
}

/**
 * Vehicles with identical attributes (places, profile, cost terms, limits, shift, capacities,
 * skills, and no stop pre-assigned to them) share a class; sets `uniformCost` (one profile and
 * cost factor for all) and `pureArcObjective`.
 */
/** Breaks without a place, per vehicle, sorted by window opening (those closing before the shift starts dropped). */
function readBreaks(pb: Problem, vehicles: ReadonlyArray<VrpVehicle>): void {
  const V = vehicles.length;
  pb.vBrOff = new Int32Array(V + 1);
  const A: number[] = [], B: number[] = [], W: number[] = [], I: number[] = [];
  for (let v = 0; v < V; v++) {
    pb.vBrOff[v] = A.length;
    const list: { a: number; b: number; w: number; i: number }[] = [];
    (vehicles[v].breaks ?? []).forEach((br, i) => {
      const path = `vehicles[${v}].breaks[${i}]`;
      const w = br.duration;
      if (!(w >= 0) || !Number.isFinite(w)) throw invalidInput(`${path}.duration`, 'must be a non-negative number');
      const a = br.window ? (br.window[0] === -Infinity ? -BIG : Math.ceil(br.window[0])) : -BIG;
      const b = br.window ? (br.window[1] === Infinity ? BIG : Math.floor(br.window[1])) : BIG;
      if (Number.isNaN(a) || Number.isNaN(b)) throw invalidInput(`${path}.window`, 'must be numbers');
      if (b < a) throw invalidInput(`${path}.window`, 'closes before it opens');
      if (b < pb.vTin[v]) return; // over before the shift starts: not this vehicle's concern
      list.push({ a, b, w: Math.round(w), i });
    });
    list.sort((x, y) => x.a - y.a || x.b - y.b || x.i - y.i);
    for (const x of list) { A.push(x.a); B.push(x.b); W.push(x.w); I.push(x.i); }
  }
  pb.vBrOff[V] = A.length;
  pb.brA = Float64Array.from(A);
  pb.brB = Float64Array.from(B);
  pb.brW = Float64Array.from(W);
  pb.brIdx = Int32Array.from(I);
}

/** Whether vehicle v has breaks without a place (its routes need the exact schedule). */
export function hasBreaks(pb: Problem, v: number): boolean {
  return pb.vBrOff[v + 1] > pb.vBrOff[v];
}

function vehicleClasses(pb: Problem, vehicles: ReadonlyArray<VrpVehicle>, stops: ReadonlyArray<VrpStop>, vehSkills: Set<number>[]): void {
  const V = pb.V;
  const K = pb.K;
  const classKey = new Map<string, number>();
  pb.vClass = new Int32Array(V);
  for (let v = 0; v < V; v++) {
    const ve = vehicles[v];
    const key = [
      pb.vStartPl[v], pb.vEndPl[v], pb.vProfile[v], pb.vCostMul[v], pb.vFixed[v], pb.vMaxStops[v], pb.vMaxDur[v], pb.vTin[v], pb.vTout[v],
      Array.from(pb.vCap.subarray(v * K, v * K + K)).join(','), [...vehSkills[v]].sort().join(','),
      stops.some((s) => s.vehicle === v) ? `own${v}` : '', ve.label === undefined ? '' : '',
      Array.from({ length: pb.vBrOff[v + 1] - pb.vBrOff[v] }, (_, i) => `${pb.brA[pb.vBrOff[v] + i]}:${pb.brB[pb.vBrOff[v] + i]}:${pb.brW[pb.vBrOff[v] + i]}`).join(','),
    ].join('|');
    let c = classKey.get(key);
    if (c === undefined) classKey.set(key, (c = classKey.size));
    pb.vClass[v] = c;
  }
  pb.nClasses = classKey.size;
  pb.pureArcObjective = pb.balance === null;
  pb.uniformCost = V === 0 || (pb.vProfile.every((p) => p === pb.vProfile[0]) && pb.vCostMul.every((m) => m === pb.vCostMul[0]));
}

/**
 * Per job: its stops, places, keep-order rank, segment time data per profile (a composite job's
 * pickup → delivery concatenated, with its internal cost and distance), and the load triple per
 * dimension (from the depot, net change, rise). Sets the load and pair flags. Returns, per
 * (profile, job), 1 when a composite job's delivery window cannot follow its pickup.
 */
function jobNodes(pb: Problem, stops: ReadonlyArray<VrpStop>, jobs: JobList): Uint8Array {
  const { stops: jobStops, mate: jobMate, role: jobRole } = jobs;
  const J = pb.J;
  const K = pb.K;
  const N = pb.N;
  const NN = J + 2 * pb.V;
  pb.inPl = new Int32Array(NN);
  pb.outPl = new Int32Array(NN);
  pb.outRow = new Int32Array(NN);
  pb.nE = new Float64Array(pb.P * NN);
  pb.nL = new Float64Array(pb.P * NN);
  pb.nD = new Float64Array(pb.P * NN);
  pb.nIntCost = new Float64Array(pb.P * NN);
  pb.nIntDist = new Float64Array(NN);
  pb.nMulti = new Uint8Array(NN);
  pb.jStop0 = new Int32Array(J);
  pb.jStop1 = new Int32Array(J);
  pb.jStops = new Int32Array(J);
  pb.jDep = new Float64Array(J * K);
  pb.jDelta = new Float64Array(J * K);
  pb.jRise = new Float64Array(J * K);
  pb.jMate = Int32Array.from(jobMate);
  pb.jPairRole = Uint8Array.from(jobRole);
  pb.jKeep = new Int32Array(J).fill(-1);
  pb.jPrio = new Int32Array(J);
  pb.jInfeasible = new Int32Array(J).fill(-1);
  pb.hasPairs = jobRole.some((r) => r !== 0);
  pb.jReset = new Uint8Array(J);
  pb.jOptional = new Uint8Array(J);
  let loadMonotone = true;
  const hullOf = (s: number): [number, number] => {
    const c = pb.sWinCount[s];
    if (c === 0) return [-BIG, BIG];
    return [pb.sWin[s * 4], pb.sWin[s * 4 + 2 * (c - 1) + 1]];
  };
  const compositeBad = new Uint8Array(pb.P * J);
  for (let j = 0; j < J; j++) {
    const [a, b] = jobStops[j];
    pb.jStop0[j] = a;
    pb.jStop1[j] = b;
    pb.jStops[j] = b >= 0 ? 2 : stops[a].reload ? 0 : 1;
    pb.jReset[j] = b < 0 && stops[a].reload ? 1 : 0;
    pb.jOptional[j] = b < 0 && stops[a].optional ? 1 : 0;
    pb.inPl[j] = pb.sPlace[a];
    pb.outPl[j] = pb.sPlace[b >= 0 ? b : a];
    pb.nMulti[j] = pb.sWinCount[a] > 1 || (b >= 0 && pb.sWinCount[b] > 1) ? 1 : 0;
    if (stops[a].keepOrder || (b >= 0 && stops[b].keepOrder)) pb.jKeep[j] = stops[a].keepOrder ? a : b;
    for (let p = 0; p < pb.P; p++) {
      const o = p * NN + j;
      const [ea, la] = hullOf(a);
      if (b < 0) {
        pb.nE[o] = ea;
        pb.nL[o] = la;
        pb.nD[o] = pb.sService[a];
      } else {
        const t = pb.time[p][pb.sPlace[a] * N + pb.sPlace[b]];
        const [eb, lb] = hullOf(b);
        const c = concatTW(ea, la, pb.sService[a], t, eb, lb, pb.sService[b]);
        if (c === null) {
          compositeBad[p * J + j] = 1;
          pb.nE[o] = ea; pb.nL[o] = -BIG; pb.nD[o] = 0;
        } else {
          pb.nE[o] = c[0]; pb.nL[o] = c[1]; pb.nD[o] = c[2];
        }
        pb.nIntCost[o] = pb.cost[p][pb.sPlace[a] * N + pb.sPlace[b]];
      }
      // A balancing term on working time counts service in the search's travel cost.
      if (pb.balance?.withService) pb.nIntCost[o] += pb.sService[a] + (b >= 0 ? pb.sService[b] : 0);
      // Stability: a stop planned on another vehicle group costs the move
      if (pb.moveCost > 0 && pb.sHome[a] >= 0 && pb.sHome[a] !== pb.profHome[p]) pb.nIntCost[o] += pb.moveCost;
    }
    if (b >= 0) pb.nIntDist[j] = pb.dist[pb.sPlace[a] * N + pb.sPlace[b]];
    for (let k = 0; k < K; k++) {
      if (b >= 0) {
        const q = pb.sDemand[a * K + k] + pb.sDemand[b * K + k];
        pb.jRise[j * K + k] = q;
        if (q > 0) loadMonotone = false;
      } else if (jobRole[j] === 1) {
        const q = pb.sDemand[a * K + k] + pb.sDemand[jobStops[jobMate[j]][0] * K + k];
        pb.jDelta[j * K + k] = q;
        pb.jRise[j * K + k] = q;
        if (q > 0) loadMonotone = false;
      } else if (jobRole[j] === 2) {
        const q = pb.sDemand[a * K + k] + pb.sDemand[jobStops[jobMate[j]][0] * K + k];
        pb.jDelta[j * K + k] = -q;
      } else {
        pb.jDep[j * K + k] = pb.sDemand[a * K + k];
        pb.jDelta[j * K + k] = -pb.sDemand[a * K + k];
      }
    }
  }
  pb.hasReset = pb.jReset.some((x) => x === 1);
  pb.loadMonotone = loadMonotone && !pb.hasReset;
  pb.hasLoad = K > 0 && (pb.vCap.some((c) => c !== Infinity));
  pb.hasKeep = pb.jKeep.some((r) => r >= 0);
  return compositeBad;
}

/** Start and end depot nodes of every vehicle: places, and time data from the shift (an end node only has the shift end). Fills `outRow`. */
function depotNodes(pb: Problem): void {
  const J = pb.J;
  const NN = J + 2 * pb.V;
  for (let v = 0; v < pb.V; v++) {
    const sn = J + 2 * v;
    const en = sn + 1;
    pb.inPl[sn] = pb.outPl[sn] = pb.vStartPl[v];
    pb.inPl[en] = pb.outPl[en] = pb.vEndPl[v];
    for (let p = 0; p < pb.P; p++) {
      pb.nE[p * NN + sn] = pb.vTin[v];
      pb.nL[p * NN + sn] = pb.vTout[v];
      pb.nE[p * NN + en] = -BIG;
      pb.nL[p * NN + en] = pb.vTout[v];
    }
  }
  for (let i = 0; i < NN; i++) pb.outRow[i] = pb.outPl[i] * pb.N;
}

/** Job priorities (the highest of its stops and its mate's) → ranks 0..R-1, higher = more important. */
function priorityRanks(pb: Problem): void {
  const J = pb.J;
  const prios = [...new Set(Array.from({ length: J }, (_, j) => jobPriority(pb, j)))].sort((x, y) => x - y);
  pb.R = Math.max(1, prios.length);
  const rankOf = new Map(prios.map((p, i) => [p, i]));
  for (let j = 0; j < J; j++) pb.jPrio[j] = rankOf.get(jobPriority(pb, j))!;
}

/**
 * The `allowed[job × vehicle]` matrix (null when everything is allowed): each job (a pickup with
 * its delivery) is checked alone against every vehicle ({@link isolationReason}). A job no vehicle
 * can serve gets, in `jInfeasible`, the reason of the vehicle that came closest (`preassigned`
 * when a stop is pre-assigned), or `noVehicle`.
 */
function isolationFeasibility(
  pb: Problem, stops: ReadonlyArray<VrpStop>, jobs: JobList, stopSkills: number[][], vehSkills: Set<number>[], compositeBad: Uint8Array, signal?: AbortSignal,
): void {
  const { stops: jobStops, mate: jobMate, role: jobRole } = jobs;
  const J = pb.J;
  const V = pb.V;
  const allowed = new Uint8Array(J * V);
  let allAllowed = true;
  const reasonCount = new Int32Array(REASON_CODES.length);
  for (let j = 0; j < J; j++) {
    if ((j & 255) === 255) throwIfAborted(signal);
    if (jobRole[j] === 2) continue; // handled with its pickup
    const js = jobRole[j] === 1 ? [j, jobMate[j]] : [j];
    const jstops = js.flatMap((x) => (jobStops[x][1] >= 0 ? [jobStops[x][0], jobStops[x][1]] : [jobStops[x][0]]));
    reasonCount.fill(0);
    let any = false;
    for (let v = 0; v < V; v++) {
      const r = isolationReason(pb, js, jstops, v, stops, stopSkills, vehSkills[v], compositeBad);
      if (r === null) {
        for (const x of js) allowed[x * V + v] = 1;
        any = true;
      } else {
        allAllowed = false;
        reasonCount[REASON_CODES.indexOf(r)]++;
      }
    }
    if (!any) {
      let best = REASON_CODES.indexOf('noVehicle');
      if (V > 0) {
        // The reason of the "closest" vehicles: the later a check fails, the closer the vehicle came.
        for (let i = REASON_CODES.length - 1; i >= 0; i--) if (reasonCount[i] > 0) { best = i; break; }
        if (reasonCount[REASON_CODES.indexOf('preassigned')] > 0 && jstops.some((s) => stops[s].vehicle !== undefined)) best = REASON_CODES.indexOf('preassigned');
      }
      for (const x of js) pb.jInfeasible[x] = best;
    }
  }
  pb.allowed = allAllowed ? null : allowed;
}

function jobPriority(pb: Problem, j: number): number {
  const a = pb.jStop0[j];
  const b = pb.jStop1[j];
  let p = pb.sPriority[a];
  if (b >= 0) p = Math.max(p, pb.sPriority[b]);
  const m = pb.jMate[j];
  if (m >= 0) p = Math.max(p, pb.sPriority[pb.jStop0[m]]);
  return p;
}

function isMatrixList(x: unknown): boolean {
  return Array.isArray(x) && x.length > 0 && typeof x[0] === 'object' && x[0] !== null && 'length' in (x[0] as object);
}

/**
 * Why job(s) `js` (one job, or a pickup and its delivery) cannot be served alone by vehicle v,
 * or null when they can. Checks go from the structural to the temporal; the order defines which
 * reason is reported when several apply.
 */
function isolationReason(
  pb: Problem, js: number[], jstops: number[], v: number, stops: ReadonlyArray<VrpStop>, stopSkills: number[][],
  vs: Set<number>, compositeBad: Uint8Array,
): UnassignedReason | null {
  for (const s of jstops) if (stops[s].vehicle !== undefined && stops[s].vehicle !== v) return 'preassigned';
  for (const s of jstops) for (const k of stopSkills[s]) if (!vs.has(k)) return 'skills';
  const K = pb.K;
  for (let k = 0; k < K; k++) {
    let dep = 0;
    let S = 0;
    let M = 0;
    for (const j of js) {
      M = Math.max(M, S + pb.jRise[j * K + k]);
      S += pb.jDelta[j * K + k];
      dep += pb.jDep[j * K + k];
    }
    if (dep + M > pb.vCap[v * K + k]) return 'capacity';
  }
  let nst = 0;
  for (const j of js) nst += pb.jStops[j];
  if (nst > pb.vMaxStops[v]) return 'maxStops';
  const p = pb.vProfile[v];
  for (const j of js) if (compositeBad[p * pb.J + j]) return 'timeWindow';
  // Reachability.
  const T = pb.time[p];
  const N = pb.N;
  let prev = pb.vStartPl[v];
  for (const s of jstops) {
    if (T[prev * N + pb.sPlace[s]] >= UNREACHABLE) return 'unreachable';
    prev = pb.sPlace[s];
  }
  if (T[prev * N + pb.vEndPl[v]] >= UNREACHABLE) return 'unreachable';
  const r = exactCheckStops(pb, v, jstops, true);
  if (r === 'ok') return null;
  return r;
}

/**
 * Exact feasibility of visiting `stops` (in order) with vehicle v: windows (two per stop),
 * shift and maximum duration. With `classify`, a failure is attributed: 'timeWindow' when a
 * window is missed even if the shift had no end (leaving at the shift start), else 'shift'
 * (the route cannot end in time), or 'maxDuration'.
 */
export function exactCheckStops(pb: Problem, v: number, stopsSeq: ArrayLike<number>, classify = false): 'ok' | 'timeWindow' | 'shift' | 'maxDuration' {
  const r = scheduleStops(pb, v, stopsSeq, pb.vTin[v], pb.vTout[v]);
  if (r === null) {
    if (!classify) return 'timeWindow';
    // Windows missed even with an open-ended shift (leaving at the shift start) → the window is the cause.
    return scheduleStops(pb, v, stopsSeq, pb.vTin[v], BIG) === null ? 'timeWindow' : 'shift';
  }
  if (pb.vMaxDur[v] < BIG && minDuration(pb, v, stopsSeq) > pb.vMaxDur[v]) return 'maxDuration';
  return 'ok';
}

/** Where a break without a place was taken: gap 0 = at the start after departure; for the i-th stop (0-based), 2i+1 = on arrival before service, 2i+2 = after service. */
export interface BreakVisit {
  /** Index into the Problem's break arrays (brA/brB/brW/brIdx). */
  br: number;
  gap: number;
  start: number;
}

let dpT = new Float64Array(8);
let dpG = new Int32Array(64);
let dpS = new Float64Array(64);

/**
 * Earliest schedule departing at `depart` (not before tin): completion time at the end, or null
 * when infeasible. With breaks without a place (vehicle v's, see {@link VrpBreak}), a forward
 * dynamic programme over "breaks taken so far" (earliest time per count dominates) places them;
 * `plan` receives where they were taken on the earliest-finishing schedule.
 */
export function scheduleStops(pb: Problem, v: number, seq: ArrayLike<number>, tin: number, tout: number, depart = tin, plan?: BreakVisit[]): number | null {
  const T = pb.time[pb.vProfile[v]];
  const N = pb.N;
  const b0 = pb.vBrOff[v];
  const k = pb.vBrOff[v + 1] - b0;
  if (plan) plan.length = 0;
  if (k === 0 || seq.length === 0) {
    let t = Math.max(depart, tin);
    let prev = pb.vStartPl[v];
    for (let i = 0; i < seq.length; i++) {
      const s = seq[i];
      const pl = pb.sPlace[s];
      const a = t + T[prev * N + pl];
      const st = serviceStart(pb, s, a);
      if (st === null) return null;
      t = st + pb.sService[s];
      prev = pl;
    }
    const end = t + T[prev * N + pb.vEndPl[v]];
    return end <= tout ? end : null;
  }
  if (dpT.length < k + 1) dpT = new Float64Array(2 * (k + 1));
  if (dpG.length < (k + 1) * k) { dpG = new Int32Array(2 * (k + 1) * k); dpS = new Float64Array(2 * (k + 1) * k); }
  const tt = dpT, G = dpG, S = dpS;
  const A = pb.brA, B = pb.brB, W = pb.brW;
  const track = plan !== undefined;
  tt.fill(Infinity, 0, k + 1);
  tt[0] = Math.max(depart, tin);
  const gap = (g: number): void => {
    for (let j = 0; j < k; j++) {
      const t = tt[j];
      if (t === Infinity) continue;
      const st = t > A[b0 + j] ? t : A[b0 + j];
      if (st > B[b0 + j]) continue;
      const e = st + W[b0 + j];
      if (e < tt[j + 1]) {
        tt[j + 1] = e;
        if (track) {
          for (let x = 0; x < j; x++) { G[(j + 1) * k + x] = G[j * k + x]; S[(j + 1) * k + x] = S[j * k + x]; }
          G[(j + 1) * k + j] = g; S[(j + 1) * k + j] = st;
        }
      }
    }
  };
  gap(0);
  let prev = pb.vStartPl[v];
  for (let i = 0; i < seq.length; i++) {
    const s = seq[i];
    const pl = pb.sPlace[s];
    const tr = T[prev * N + pl];
    for (let j = 0; j <= k; j++) tt[j] += tr;
    gap(2 * i + 1);
    for (let j = 0; j <= k; j++) {
      if (tt[j] === Infinity) continue;
      const st = serviceStart(pb, s, tt[j]);
      tt[j] = st === null ? Infinity : st + pb.sService[s];
    }
    gap(2 * i + 2);
    prev = pl;
  }
  const tr = T[prev * N + pb.vEndPl[v]];
  let best = Infinity, bestJ = -1;
  for (let j = 0; j <= k; j++) {
    if (tt[j] === Infinity) continue;
    const e = tt[j] + tr;
    if (e > tout) continue;
    if (j < k && !(e < A[b0 + j])) continue; // break j (and later ones) still owed
    if (e < best) { best = e; bestJ = j; }
  }
  if (bestJ < 0) return null;
  if (track) for (let x = 0; x < bestJ; x++) plan.push({ br: b0 + x, gap: G[bestJ * k + x], start: S[bestJ * k + x] });
  return best;
}

/** Service start at stop s for arrival a (first window that closes at or after a), or null. */
export function serviceStart(pb: Problem, s: number, a: number): number | null {
  const c = pb.sWinCount[s];
  if (c === 0) return a;
  for (let w = 0; w < c; w++) {
    const o = pb.sWin[s * 4 + 2 * w];
    const cl = pb.sWin[s * 4 + 2 * w + 1];
    if (a <= cl) return a > o ? a : o;
  }
  return null;
}

/**
 * Latest departure from the start that still lets the route be served (multi-window aware, and
 * with the vehicle's breaks without a place), or null. Feasibility only gets easier with an
 * earlier departure, so with breaks a bisection below the break-free bound finds it.
 */
export function latestDeparture(pb: Problem, v: number, seq: ArrayLike<number>): number | null {
  const ld = latestDepartureNoBreaks(pb, v, seq);
  if (ld === null || seq.length === 0 || !hasBreaks(pb, v)) return ld;
  const ok = (t: number): boolean => scheduleStops(pb, v, seq, pb.vTin[v], pb.vTout[v], t) !== null;
  if (ok(ld)) return ld;
  let lo = pb.vTin[v];
  if (!ok(lo)) return null;
  let hi = ld;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (ok(mid)) lo = mid; else hi = mid;
  }
  return lo;
}

function latestDepartureNoBreaks(pb: Problem, v: number, seq: ArrayLike<number>): number | null {
  const T = pb.time[pb.vProfile[v]];
  const N = pb.N;
  let latest = pb.vTout[v]; // latest arrival at the next place
  let next = pb.vEndPl[v];
  for (let i = seq.length - 1; i >= 0; i--) {
    const s = seq[i];
    const pl = pb.sPlace[s];
    const x = latest - T[pl * N + next] - pb.sService[s]; // latest service start allowed by what follows
    const c = pb.sWinCount[s];
    let best = -Infinity;
    if (c === 0) best = x;
    else for (let w = 0; w < c; w++) {
      const o = pb.sWin[s * 4 + 2 * w];
      const cl = pb.sWin[s * 4 + 2 * w + 1];
      if (o <= x) best = Math.max(best, Math.min(cl, x));
    }
    if (best === -Infinity) return null;
    latest = best;
    next = pl;
  }
  const dep = Math.min(latest - T[pb.vStartPl[v] * N + next], pb.vTout[v]);
  return dep >= pb.vTin[v] ? dep : null;
}

/**
 * Minimal route duration over all feasible departure times (waits and service included):
 * duration(t) = completion(t) − t never increases with t, so it is reached at the latest
 * feasible departure. Infinity when infeasible.
 */
export function minDuration(pb: Problem, v: number, seq: ArrayLike<number>): number {
  const ld = latestDeparture(pb, v, seq);
  if (ld === null) return Infinity;
  const end = scheduleStops(pb, v, seq, pb.vTin[v], pb.vTout[v], ld);
  return end === null ? Infinity : end - ld;
}
