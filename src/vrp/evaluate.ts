/**
 * A given plan checked and timed, without optimising: each route's schedule (the solver's own,
 * breaks included, when the route is feasible; a relaxed one that serves every stop as soon as
 * it can — late if it must — when it is not) and every rule it breaks, with by how much; and for
 * a stop the plan leaves out, the vehicle and place that come closest to taking it.
 *
 * What a dispatcher's manual move needs (issue #25): the page drops a stop on another vehicle,
 * this says what that does. `validateSolution` is the independent check of the same rules
 * (test/vrp/evaluate.test.ts holds the two to the same verdict on random plans).
 */
import { UNREACHABLE, serviceStart, type Problem } from './model.js';
import { routeObjective } from './objective.js';
import { chooseDeparture, describeRoute, segmentLoads, stopLoad, type RouteStopVisit, type SolutionRoute } from './solution.js';

export type ViolationKind =
  /** Service starts after the stop's (last) window closes; amount: seconds late. */
  | 'window'
  /** More on board than the vehicle carries; amount: the excess (the input's units), `dim` the dimension. */
  | 'capacity'
  /** The route ends after the vehicle's shift; amount: seconds over. */
  | 'shift'
  /** More stops than the vehicle's limit; amount: stops over. */
  | 'maxStops'
  /** The route lasts longer than the vehicle's maximum; amount: seconds over. */
  | 'maxDuration'
  /** The vehicle may not serve the stop (skills, pre-assignment, zones). */
  | 'eligibility'
  /** A pickup and its delivery not on one route, or the delivery first, or a non-stop pair split. */
  | 'pair'
  /** Stops that keep their order (keepOrder) visited out of it. */
  | 'keepOrder'
  /** No road from the previous place. */
  | 'unreachable'
  /** The vehicle's breaks cannot be taken within their windows on this route. */
  | 'breaks';

export interface PlanViolation {
  kind: ViolationKind;
  /** Index of the route in the plan given. */
  route: number;
  /** The model stop concerned, or -1 (the route as a whole). */
  stop: number;
  amount: number;
  /** Capacity dimension. */
  dim?: number;
}

export interface PlannedRoute {
  vehicle: number;
  /** Model stops in visiting order. */
  stops: readonly number[];
}

export interface PlanEvaluation {
  routes: SolutionRoute[];
  violations: PlanViolation[];
  /** Model stops of no route (optional ones excluded). */
  unplanned: number[];
  cost: number;
  distance: number;
  travelTime: number;
  duration: number;
}

/** Per kind: the total amount (capacity in fractions of the vehicle's capacity, so dimensions add). */
type Totals = Record<ViolationKind, number>;
const KINDS: readonly ViolationKind[] = ['window', 'capacity', 'shift', 'maxStops', 'maxDuration', 'eligibility', 'pair', 'keepOrder', 'unreachable', 'breaks'];

/**
 * How far a route is from feasible, as one number for comparing insertions: a minute late (window,
 * shift, duration) counts 1, 1 % of the vehicle's capacity over counts 1, a stop over the limit 30;
 * eligibility, pairs, order and missing roads rule a place out (1e9).
 */
function miss(t: Totals): number {
  return t.window / 60 + t.shift / 60 + t.maxDuration / 60 + t.capacity * 100 + t.maxStops * 30 + t.breaks / 60
    + 1e9 * (t.eligibility + t.pair + t.keepOrder + t.unreachable);
}

const zero = (): Totals => ({ window: 0, capacity: 0, shift: 0, maxStops: 0, maxDuration: 0, eligibility: 0, pair: 0, keepOrder: 0, unreachable: 0, breaks: 0 });

/** The last closing of a stop's windows (Infinity without windows). */
export function lastClose(pb: Problem, s: number): number {
  const c = pb.sWinCount[s];
  return c === 0 ? Infinity : pb.sWin[s * 4 + 2 * (c - 1) + 1];
}

/**
 * One route: its violations (with `route` = `ri`) and, when `describe`, its schedule. A feasible
 * route is scheduled exactly as the solver reports it (describeRoute); an infeasible one departs
 * at the shift's start and serves each stop on arrival when its windows are over.
 */
export function evaluateRoute(pb: Problem, v: number, seq: readonly number[], ri = 0, describe = true, probe = false): { route: SolutionRoute | null; violations: PlanViolation[] } {
  const V = pb.V, K = pb.K, N = pb.N;
  const out: PlanViolation[] = [];
  // ---- rules that do not depend on time
  let nst = 0;
  let lastKeep = -1;
  for (let i = 0; i < seq.length; i++) {
    const s = seq[i];
    const j = pb.stopJob[s];
    if (pb.allowed && !pb.allowed[j * V + v]) out.push({ kind: 'eligibility', route: ri, stop: s, amount: 1 });
    const b = pb.jStop1[j];
    if (b >= 0) {
      // a non-stop pair: its delivery right after its pickup
      if (s === pb.jStop0[j] && seq[i + 1] !== b) out.push({ kind: 'pair', route: ri, stop: s, amount: 1 });
      else if (s === b && seq[i - 1] !== pb.jStop0[j]) out.push({ kind: 'pair', route: ri, stop: s, amount: 1 });
    }
    if (s === pb.jStop0[j]) nst += pb.jStops[j];
    if (pb.jKeep[j] >= 0 && s === pb.jStop0[j]) {
      if (pb.jKeep[j] < lastKeep) out.push({ kind: 'keepOrder', route: ri, stop: s, amount: 1 });
      else lastKeep = pb.jKeep[j];
    }
  }
  if (nst > pb.vMaxStops[v]) out.push({ kind: 'maxStops', route: ri, stop: -1, amount: nst - pb.vMaxStops[v] });

  // ---- loads: what leaves the depot and each reload point, then along the route
  const cap = (k: number): number => pb.vCap[v * K + k];
  const over = new Float64Array(K).fill(0);
  const overAt = new Int32Array(K).fill(-1);
  {
    const seg = segmentLoads(pb, seq);
    let g = 0;
    const load = seg[0].slice();
    const note = (k: number, s: number): void => {
      const x = load[k] - cap(k);
      if (x > 1e-9 && x > over[k]) { over[k] = x; overAt[k] = s; }
    };
    for (let k = 0; k < K; k++) note(k, -1);
    for (const s of seq) {
      if (pb.jReset[pb.stopJob[s]]) { g++; for (let k = 0; k < K; k++) load[k] = seg[g][k]; } else for (let k = 0; k < K; k++) load[k] += stopLoad(pb, s, k).delta;
      for (let k = 0; k < K; k++) note(k, s);
    }
    for (let k = 0; k < K; k++) if (over[k] > 0) out.push({ kind: 'capacity', route: ri, stop: overAt[k] < 0 ? (seq[0] ?? -1) : overAt[k], amount: over[k], dim: k });
  }

  // ---- time: the solver's schedule when the route is feasible (a probe walks the relaxed schedule only)
  if (out.length === 0 && !probe) {
    const dep = chooseDeparture(pb, v, seq as number[]);
    if (dep !== null) return { route: describe ? describeRoute(pb, v, jobsOf(pb, seq)) : null, violations: out };
  }
  const T = pb.time[pb.vProfile[v]];
  const D = pb.distP[pb.vProfile[v]];
  const C = pb.cost[pb.vProfile[v]];
  const tin = pb.vTin[v] > -1e12 ? pb.vTin[v] : 0;
  let t = tin;
  let prev = pb.vStartPl[v];
  let dist = 0, travel = 0, service = 0, wait = 0, cost = 0;
  const visits: RouteStopVisit[] = [];
  const load = new Array<number>(K).fill(0);
  let late = false;
  let firstWait = 0;
  for (let i = 0; i < seq.length; i++) {
    const s = seq[i];
    const pl = pb.sPlace[s];
    let lt = T[prev * N + pl];
    let ld = D[prev * N + pl];
    let lc = C[prev * N + pl];
    if (!(lt >= 0 && lt < UNREACHABLE)) {
      out.push({ kind: 'unreachable', route: ri, stop: s, amount: 1 });
      lt = 0; ld = 0; lc = 0;
    }
    const arrival = t + lt;
    let start = serviceStart(pb, s, arrival);
    if (start === null) {
      out.push({ kind: 'window', route: ri, stop: s, amount: arrival - lastClose(pb, s) });
      late = true;
      start = arrival;
    }
    if (i === 0) firstWait = start - arrival;
    if (!describe) {
      t = start + pb.sService[s];
      prev = pl;
      continue;
    }
    for (let k = 0; k < K; k++) load[k] += stopLoad(pb, s, k).delta;
    visits.push({ stop: s, arrival, start, departure: start + pb.sService[s], wait: start - arrival, legDistance: ld, legTime: lt, load: load.slice() });
    dist += ld; travel += lt; service += pb.sService[s]; wait += start - arrival; cost += lc;
    t = start + pb.sService[s];
    prev = pl;
  }
  let el = T[prev * N + pb.vEndPl[v]];
  let ed = D[prev * N + pb.vEndPl[v]];
  let ec = C[prev * N + pb.vEndPl[v]];
  if (!(el >= 0 && el < UNREACHABLE)) {
    out.push({ kind: 'unreachable', route: ri, stop: -1, amount: 1 });
    el = 0; ed = 0; ec = 0;
  }
  dist += ed; travel += el; cost += ec;
  const end = t + el;
  if (end > pb.vTout[v]) out.push({ kind: 'shift', route: ri, stop: -1, amount: end - pb.vTout[v] });
  const startTime = pb.vHasStart[v] ? tin : visits.length > 0 ? visits[0].arrival : tin;
  // a later departure would absorb the wait at the first stop
  const duration = end - startTime - firstWait;
  if (duration > pb.vMaxDur[v]) out.push({ kind: 'maxDuration', route: ri, stop: -1, amount: duration - pb.vMaxDur[v] });
  if (out.length === 0 && !late && !probe) out.push({ kind: 'breaks', route: ri, stop: -1, amount: 1 });
  if (!describe) return { route: null, violations: out };
  return {
    route: {
      vehicle: v, stops: visits, breaks: [], startTime, endTime: end, endLegDistance: ed, endLegTime: el,
      startLoad: new Array<number>(K).fill(0), distance: dist, travelTime: travel, serviceTime: service, waitTime: wait, breakTime: 0,
      duration: end - startTime, cost: routeObjective(pb.vCostMul[v], pb.vFixed[v], cost, seq.length > 0),
    },
    violations: out,
  };
}

/** The jobs of a stop sequence (a non-stop pair's two stops are one job). */
function jobsOf(pb: Problem, seq: readonly number[]): number[] {
  const jobs: number[] = [];
  for (const s of seq) {
    const j = pb.stopJob[s];
    if (pb.jStop1[j] === s) continue;
    jobs.push(j);
  }
  return jobs;
}

/** Checks and times a whole plan: every route, pairs across routes, and the stops left out. */
export function evaluatePlan(pb: Problem, plan: readonly PlannedRoute[]): PlanEvaluation {
  const routes: SolutionRoute[] = [];
  const violations: PlanViolation[] = [];
  const routeOf = new Int32Array(pb.nStops).fill(-1);
  const posOf = new Int32Array(pb.nStops).fill(-1);
  plan.forEach((r, ri) => r.stops.forEach((s, i) => { routeOf[s] = ri; posOf[s] = i; }));
  plan.forEach((r, ri) => {
    if (r.stops.length === 0) return;
    const e = evaluateRoute(pb, r.vehicle, r.stops, ri);
    routes.push(e.route!);
    violations.push(...e.violations);
  });
  // separate pickup/delivery pairs: one route, pickup first
  for (let j = 0; j < pb.J; j++) {
    if (pb.jPairRole[j] !== 1) continue;
    const p = pb.jStop0[j], d = pb.jStop0[pb.jMate[j]];
    const rp = routeOf[p], rd = routeOf[d];
    if (rp < 0 && rd < 0) continue;
    if (rp !== rd) violations.push({ kind: 'pair', route: rp >= 0 ? rp : rd, stop: rp >= 0 ? p : d, amount: 1 });
    else if (posOf[d] < posOf[p]) violations.push({ kind: 'pair', route: rd, stop: d, amount: 1 });
  }
  const unplanned: number[] = [];
  for (let s = 0; s < pb.nStops; s++) if (routeOf[s] < 0 && !pb.jOptional[pb.stopJob[s]]) unplanned.push(s);
  let cost = 0, distance = 0, travelTime = 0, duration = 0;
  for (const r of routes) { cost += r.cost; distance += r.distance; travelTime += r.travelTime; duration += r.duration; }
  return { routes, violations, unplanned, cost, distance, travelTime, duration };
}

/** Places of a stop left out checked exactly, best first by the relaxed schedule. */
const EXACT_CHECKS = 24;

export interface ClosestFit {
  /** The vehicle and the position in its route (0 = first) that come closest. */
  vehicle: number;
  position: number;
  /** Nothing would be broken there. */
  fits: boolean;
  /** What the insertion breaks beyond what the route broke already (empty when it fits). */
  misses: PlanViolation[];
  /** Added travel cost there (objective units). */
  addedCost: number;
}

/**
 * For a stop the plan leaves out: the vehicle and position where inserting it breaks least
 * (a pickup with its delivery right after it), or null when there is no vehicle.
 */
export function closestFit(pb: Problem, plan: readonly PlannedRoute[], s: number): ClosestFit | null {
  const j = pb.stopJob[s];
  let extra: number[] = [s];
  if (pb.jStop1[j] >= 0) extra = [pb.jStop0[j], pb.jStop1[j]];
  else if (pb.jPairRole[j] === 1) extra = [s, pb.jStop0[pb.jMate[j]]];
  else if (pb.jPairRole[j] === 2) extra = [pb.jStop0[pb.jMate[j]], s];
  const seqOf = new Map<number, readonly number[]>();
  for (const r of plan) seqOf.set(r.vehicle, r.stops);
  // every vehicle and position walked on the relaxed schedule (linear, no allocation per stop)…
  const cands: { v: number; p: number; m: number; dc: number }[] = [];
  const base = new Map<number, { soft: Totals; exact: Totals; cost: number }>();
  for (let v = 0; v < pb.V; v++) {
    // a vehicle the stop is not allowed on is tried too: its window or load may be what rules it
    // out, and by how much is the answer (an eligibility miss weighs more than any other)
    const seq = seqOf.get(v) ?? [];
    if (seq.some((x) => extra.includes(x))) continue;
    const b = {
      soft: totals(pb, evaluateRoute(pb, v, seq, 0, false, true).violations, v),
      exact: totals(pb, evaluateRoute(pb, v, seq, 0, false).violations, v),
      cost: arcCost(pb, v, seq),
    };
    base.set(v, b);
    for (let p = 0; p <= seq.length; p++) {
      const cand = [...seq.slice(0, p), ...extra, ...seq.slice(p)];
      const now = totals(pb, evaluateRoute(pb, v, cand, 0, false, true).violations, v);
      const added = zero();
      for (const k of KINDS) added[k] = Math.max(0, now[k] - b.soft[k]);
      cands.push({ v, p, m: miss(added), dc: arcCost(pb, v, cand) - b.cost });
    }
  }
  // …then the best few checked exactly (the solver's schedule: breaks, the latest departure)
  cands.sort((a, b) => a.m - b.m || a.dc - b.dc || a.v - b.v || a.p - b.p);
  let best: ClosestFit | null = null;
  let bestMiss = Infinity;
  for (const c of cands.slice(0, EXACT_CHECKS)) {
    const seq = seqOf.get(c.v) ?? [];
    const cand = [...seq.slice(0, c.p), ...extra, ...seq.slice(c.p)];
    const ev = evaluateRoute(pb, c.v, cand, 0, false).violations;
    const now = totals(pb, ev, c.v);
    const b = base.get(c.v)!;
    const added = zero();
    for (const k of KINDS) added[k] = Math.max(0, now[k] - b.exact[k]);
    const m = miss(added);
    if (m < bestMiss - 1e-9 || (Math.abs(m - bestMiss) <= 1e-9 && best !== null && c.dc < best.addedCost)) {
      bestMiss = m;
      best = { vehicle: c.v, position: c.p, fits: m === 0, misses: ev.filter((x) => added[x.kind] > 0), addedCost: c.dc };
    }
    if (bestMiss === 0) break;
  }
  return best;
}

function totals(pb: Problem, vs: readonly PlanViolation[], v: number): Totals {
  const t = zero();
  for (const x of vs) t[x.kind] += x.kind === 'capacity' ? x.amount / Math.max(1e-9, pb.vCap[v * pb.K + (x.dim ?? 0)]) : x.amount;
  return t;
}

/** A route's travel cost (objective units) through `seq`. */
function arcCost(pb: Problem, v: number, seq: readonly number[]): number {
  const C = pb.cost[pb.vProfile[v]];
  const N = pb.N;
  let prev = pb.vStartPl[v];
  let c = 0;
  for (const s of seq) {
    const x = C[prev * N + pb.sPlace[s]];
    c += x >= 0 && x < UNREACHABLE ? x : 0;
    prev = pb.sPlace[s];
  }
  const x = C[prev * N + pb.vEndPl[v]];
  return c + (x >= 0 && x < UNREACHABLE ? x : 0);
}
