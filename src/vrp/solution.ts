/**
 * Turning the search's routes (job sequences) into a reported solution: stop sequences, exact
 * schedules (two windows per stop honoured), legs, loads, totals, and reasons for left-out stops.
 *
 * Schedule convention: among the feasible departure times from the start, take the earliest that
 * satisfies the maximum duration, then delay the departure as long as that does not make the
 * route end later — i.e. the earliest finish, and no avoidable waiting at the start. Route
 * duration = end arrival − start departure, waits and service included.
 */
import { BIG, REASON_TEXT, latestDeparture, scheduleStops, serviceStart, type BreakVisit, type Problem, type UnassignedReason, type VrpInput } from './model.js';
import { routeObjective } from './objective.js';
import { EngineError } from '../core/errors.js';

export interface RouteStopVisit {
  /** Stop index (input order). */
  stop: number;
  /** Arrival, start of service, departure (same units as the input times). */
  arrival: number;
  start: number;
  departure: number;
  /** Waiting before service. */
  wait: number;
  /** The leg that reaches this stop (from the previous stop or the start). */
  legDistance: number;
  legTime: number;
  /** Load on board after this stop, per capacity dimension. */
  load: number[];
}

/** A break without a place, as taken (see VrpBreak). */
export interface BreakTaken {
  /** Index into the vehicle's `breaks` (input order). */
  index: number;
  /**
   * Where: `at` = -1 at the start after departure; otherwise at the route's stop `stops[at]`,
   * on arrival before its service (`beforeService`) or after its service.
   */
  at: number;
  beforeService: boolean;
  start: number;
  end: number;
}

export interface SolutionRoute {
  vehicle: number;
  stops: RouteStopVisit[];
  /** Breaks without a place, in the order taken. */
  breaks: BreakTaken[];
  /** Departure from the start place (or arrival at the first stop when the vehicle has no start). */
  startTime: number;
  /** Arrival at the end place (or departure from the last stop for open routes). */
  endTime: number;
  /** Last leg, to the end place (0 for open routes). */
  endLegDistance: number;
  endLegTime: number;
  /** Load on board when leaving the start. */
  startLoad: number[];
  distance: number;
  travelTime: number;
  serviceTime: number;
  waitTime: number;
  /** Time spent on breaks without a place. */
  breakTime: number;
  duration: number;
  /** Objective value of the route (objective.ts `routeObjective`: costFactor × objective matrix + fixed cost). */
  cost: number;
}

export interface UnassignedStop {
  stop: number;
  reason: UnassignedReason;
  message: string;
}

export interface SolveStats {
  seed: number;
  workers: number;
  iterations: number;
  work: number;
  improvements: number;
  seconds: number;
  stoppedBy: string;
  /** Index of the search whose solution was kept. */
  bestWorker: number;
  perWorker: { iterations: number; cost: number; unassigned: number; stoppedBy: string }[];
}

export interface Solution {
  routes: SolutionRoute[];
  unassigned: UnassignedStop[];
  cost: number;
  distance: number;
  travelTime: number;
  duration: number;
  vehicles: number;
  stats: SolveStats;
}

/** Completion time at the end when departing at t (earliest schedule), or null. */
function completion(pb: Problem, v: number, seq: number[], t: number): number | null {
  return scheduleStops(pb, v, seq, -BIG, BIG, t);
}

/** Departure time per the schedule convention above; null when the route is infeasible. */
export function chooseDeparture(pb: Problem, v: number, seq: number[]): number | null {
  const ld = latestDeparture(pb, v, seq);
  if (ld === null) return null;
  const tin = pb.vTin[v];
  const maxDur = pb.vMaxDur[v];
  let t0 = tin;
  const c0 = completion(pb, v, seq, t0);
  if (c0 === null) return null;
  if (maxDur < BIG && c0 - t0 > maxDur) {
    // duration(t) = c(t) − t never increases: smallest t with duration ≤ max
    let lo = t0, hi = ld;
    const ch = completion(pb, v, seq, hi);
    if (ch === null || ch - hi > maxDur) return null;
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      const c = completion(pb, v, seq, mid);
      if (c !== null && c - mid <= maxDur) hi = mid; else lo = mid;
    }
    t0 = hi;
  }
  const end = completion(pb, v, seq, t0)!;
  // latest t in [t0, ld] with the same end
  let lo = t0, hi = ld;
  const cl = completion(pb, v, seq, ld);
  if (cl !== null && cl <= end) return ld;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    const c = completion(pb, v, seq, mid);
    if (c !== null && c <= end) lo = mid; else hi = mid;
  }
  return lo;
}

/** Expands jobs to stops. */
export function stopsOf(pb: Problem, jobs: ArrayLike<number>): number[] {
  const out: number[] = [];
  for (let i = 0; i < jobs.length; i++) {
    const u = jobs[i];
    out.push(pb.jStop0[u]);
    if (pb.jStop1[u] >= 0) out.push(pb.jStop1[u]);
  }
  return out;
}

/** Load change at a stop (per dimension k), and the depot amount it needs. */
export function stopLoad(pb: Problem, s: number, k: number): { dep: number; delta: number } {
  const j = pb.stopJob[s];
  const K = pb.K;
  if (pb.jStop1[j] >= 0) {
    const q = pb.jRise[j * K + k];
    return { dep: 0, delta: s === pb.jStop0[j] ? q : -q };
  }
  if (pb.jPairRole[j] !== 0) return { dep: 0, delta: pb.jDelta[j * K + k] };
  return { dep: pb.jDep[j * K + k], delta: pb.jDelta[j * K + k] };
}

/** What leaves the depot, then what is loaded at each reload point (MidwayDrop) for the stops after it, per dimension. */
export function segmentLoads(pb: Problem, seq: readonly number[]): number[][] {
  const K = pb.K;
  const seg: number[][] = [new Array<number>(K).fill(0)];
  for (const s of seq) {
    if (pb.jReset[pb.stopJob[s]]) { seg.push(new Array<number>(K).fill(0)); continue; }
    const cur = seg[seg.length - 1];
    for (let k = 0; k < K; k++) cur[k] += stopLoad(pb, s, k).dep;
  }
  return seg;
}

export function describeRoute(pb: Problem, v: number, jobs: ArrayLike<number>): SolutionRoute {
  const seq = stopsOf(pb, jobs);
  const dep = chooseDeparture(pb, v, seq);
  if (dep === null) throw new EngineError('Internal', `route of vehicle ${v} is infeasible`);
  const T = pb.time[pb.vProfile[v]];
  const D = pb.distP[pb.vProfile[v]];
  const C = pb.cost[pb.vProfile[v]];
  const N = pb.N;
  const K = pb.K;
  const segDep = segmentLoads(pb, seq);
  let seg = 0;
  const load = segDep[0].slice();
  const startLoad = load.slice();
  const plan: BreakVisit[] = [];
  if (scheduleStops(pb, v, seq, -BIG, BIG, dep, plan) === null) throw new EngineError('Internal', `route of vehicle ${v} is infeasible`);
  const breaks: BreakTaken[] = [];
  let bi = 0;
  let breakTime = 0;
  let t = dep;
  /** Takes the breaks planned at gap g, from time t; returns the time after them. */
  const takeBreaks = (g: number, at: number, beforeService: boolean): void => {
    for (; bi < plan.length && plan[bi].gap === g; bi++) {
      const b = plan[bi].br;
      const start = Math.max(t, pb.brA[b]);
      const end = start + pb.brW[b];
      breaks.push({ index: pb.brIdx[b], at, beforeService, start, end });
      breakTime += end - start;
      t = end;
    }
  };
  takeBreaks(0, -1, false);
  let prev = pb.vStartPl[v];
  let dist = 0, travel = 0, service = 0, wait = 0, cost = 0;
  const stops: RouteStopVisit[] = [];
  for (const [i, s] of seq.entries()) {
    const pl = pb.sPlace[s];
    const lt = T[prev * N + pl];
    const ld = D[prev * N + pl];
    const arrival = t + lt;
    t = arrival;
    takeBreaks(2 * i + 1, i, true);
    const start = serviceStart(pb, s, t);
    if (start === null) throw new EngineError('Internal', `stop ${s} misses its window`);
    const departure = start + pb.sService[s];
    if (pb.jReset[pb.stopJob[s]]) {
      // emptied, then loaded with what the next stops need (pairs never span a reload point)
      seg++;
      for (let k = 0; k < K; k++) load[k] = segDep[seg][k];
    } else for (let k = 0; k < K; k++) load[k] += stopLoad(pb, s, k).delta;
    stops.push({ stop: s, arrival, start, departure, wait: start - t, legDistance: ld, legTime: lt, load: load.slice() });
    dist += ld; travel += lt; service += pb.sService[s]; wait += start - t; cost += C[prev * N + pl];
    t = departure;
    takeBreaks(2 * i + 2, i, false);
    prev = pl;
  }
  const el = T[prev * N + pb.vEndPl[v]];
  const ed = D[prev * N + pb.vEndPl[v]];
  cost += C[prev * N + pb.vEndPl[v]];
  dist += ed; travel += el;
  const end = t + el;
  const startTime = pb.vHasStart[v] ? dep : stops.length > 0 ? Math.min(stops[0].arrival, breaks.length > 0 ? breaks[0].start : Infinity) : dep;
  return {
    vehicle: v, stops, breaks, startTime, endTime: end, endLegDistance: ed, endLegTime: el, startLoad,
    distance: dist, travelTime: travel, serviceTime: service, waitTime: wait, breakTime, duration: end - startTime,
    cost: routeObjective(pb.vCostMul[v], pb.vFixed[v], cost, seq.length > 0),
  };
}

/** Where a solution's legs begin and end: the place of a stop, of a vehicle's start and end (−1: none). */
export interface LegPlaces {
  stop(s: number): number;
  start(v: number): number;
  end(v: number): number;
}

/** The places of `pb`'s stops and vehicles (the "nowhere" place of a vehicle without start or end is −1). */
export function problemLegPlaces(pb: Problem): LegPlaces {
  const at = (pl: number): number => (pl === pb.dummy ? -1 : pl);
  return { stop: (s) => pb.sPlace[s], start: (v) => at(pb.vStartPl[v]), end: (v) => at(pb.vEndPl[v]) };
}

/** The places of an input's stops and vehicles (−1: a vehicle without start or end). */
export function inputLegPlaces(input: VrpInput): LegPlaces {
  return { stop: (s) => input.stops[s].place, start: (v) => input.vehicles[v].start ?? -1, end: (v) => input.vehicles[v].end ?? -1 };
}

/**
 * Each leg of a solution, in route order: `visit(route, i, from, to)` with `i` the stop it reaches
 * (−1: the route's end) and the places of its ends (−1: none).
 */
function eachLeg(sol: Solution, places: LegPlaces, visit: (r: SolutionRoute, i: number, from: number, to: number) => void): void {
  for (const r of sol.routes) {
    let prev = places.start(r.vehicle);
    r.stops.forEach((x, i) => {
      const pl = places.stop(x.stop);
      visit(r, i, prev, pl);
      prev = pl;
    });
    visit(r, -1, prev, places.end(r.vehicle));
  }
}

/** Whether a leg has a length to measure: both ends are places, and different ones. */
const measured = (from: number, to: number): boolean => from >= 0 && to >= 0 && from !== to;

/** Every leg of a solution between two different places, as [from, to] pairs in one array (what {@link setLegDistances} will ask for). */
export function legPairs(sol: Solution, places: LegPlaces): Int32Array {
  const out: number[] = [];
  eachLeg(sol, places, (_r, _i, a, b) => { if (measured(a, b)) out.push(a, b); });
  return Int32Array.from(out);
}

/**
 * A solution made without a distance matrix (the solver read the time matrix in its place) gets
 * its legs' distances: `leg(from, to)` for each leg between two different places, 0 where either
 * end is none or both are the same place; the routes' and the solution's totals follow.
 */
export function setLegDistances(sol: Solution, places: LegPlaces, leg: (from: number, to: number) => number): void {
  for (const r of sol.routes) r.distance = 0;
  eachLeg(sol, places, (r, i, a, b) => {
    const d = measured(a, b) ? leg(a, b) : 0;
    if (i < 0) r.endLegDistance = d;
    else r.stops[i].legDistance = d;
    r.distance += d;
  });
  sol.distance = sol.routes.reduce((t, r) => t + r.distance, 0);
}

export function unassignedStop(stop: number, reason: UnassignedReason): UnassignedStop {
  return { stop, reason, message: REASON_TEXT[reason] };
}
