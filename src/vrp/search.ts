/**
 * One independent search (one thread): construction, local search, then iterated
 * ruin-and-recreate with simulated-annealing acceptance.
 *
 * - Ruin: SISR string removals (Christiaens & Vanden Berghe 2020): around a random seed job,
 *   strings (or split strings) of consecutive jobs are cut out of a few nearby routes.
 * - Recreate: cheapest feasible insertion in a randomly chosen order (random / largest demand /
 *   farthest / closest / tightest deadline), highest priority first, with blinks.
 * - Local search localized to the ruined area (see localsearch.ts).
 * - Acceptance: lexicographic on the unassigned-per-priority profile (never accept a worse one),
 *   then simulated annealing on cost with an exponentially decreasing temperature.
 *
 * The stop criterion is a budget in iterations, in deterministic work units, or a wall-clock
 * deadline; the temperature follows the fraction of the budget used. With an iteration or work
 * budget the search is a pure function of (problem, parameters, seed).
 */
import { Rng } from '../core/rng.js';
import { isEngineError } from '../core/errors.js';
import { BIG, Problem, UNREACHABLE } from './model.js';
import { buildNeighbours, type Neighbours } from './neighbours.js';
import { State } from './state.js';
import { Insertion } from './insertion.js';
import { LocalSearch } from './localsearch.js';
import { regretInsert, savings } from './construct.js';
import { Pieces } from './evaluator.js';
import { Route } from './route.js';

/** The last neighbour lists built in this thread, by {@link Problem.cacheKey} (decomposition rounds reuse them). */
let lastNeighbours: { key: string; k: number; nb: Neighbours } | null = null;

function neighboursOf(pb: Problem, k: number, excluded: Uint8Array, cancelled?: () => boolean): Neighbours {
  if (pb.cacheKey !== undefined && lastNeighbours !== null && lastNeighbours.key === pb.cacheKey && lastNeighbours.k === k) return lastNeighbours.nb;
  const nb = buildNeighbours(pb, k, excluded, cancelled);
  if (pb.cacheKey !== undefined) lastNeighbours = { key: pb.cacheKey, k, nb };
  return nb;
}

/** Whether an error is the Cancelled a cancelled construction throws. */
export const isCancelled = (e: unknown): boolean => isEngineError(e) && e.code === 'Cancelled';

/** From this many jobs the ruin sometimes removes a whole short route, with this probability per iteration. */
const ROUTE_RUIN_MIN_JOBS = 1000;
const ROUTE_RUIN_RATE = 0.1;
/**
 * Share of a large search's budget spent on fleet minimisation first, and the share after which
 * it gives up on a route that will not empty. G&H r1_10_1 at 300 s on 2 threads, seeds 1 / 2:
 * without it 3.48 % / –, (0.3, never) 2.83 / 3.83 %, (0.3, 0.01) – / 3.23 %, (0.5, 0.01) 3.11 / 2.49 %
 * (bench/README.md, section homberger). Only where fewer vehicles pay ({@link fewerVehiclesPay}):
 * on Porto road dispatches where a vehicle costs nothing it spent the budget emptying routes, and
 * the plans without it were cheaper at equal work (bench/README.md, section roads-ab).
 */
const FLEET_PHASE = 0.5;
/** Ejection insertion ({@link Search.ejectInsert}): the routes of this many nearest neighbours of the job are tried. */
const EJECT_NEIGHBOURS = 20;
/**
 * Fleet minimisation: the share of its iterations that start with an ejection insertion; off by
 * default — the phase reaches fewer routes with it, the final plans are no better (the figures:
 * docs/vrp.md, "Ejection insertion").
 */
export const EJECT_RATE = 0;
const FLEET_RETRY = 0.01;

export interface SearchParams {
  /** Granular neighbourhood size for local search. */
  kLs: number;
  /** Neighbours used for insertion positions (granular insertion). */
  kIns: number;
  /** Neighbour list length (ruin adjacency). */
  kList: number;
  /** Use full-scan insertion when there are at most this many jobs. */
  fullInsertMax: number;
  /**
   * Granular insertion widened (1) or not (0): when the routes of a job's nearest neighbours offer
   * nothing better than an empty vehicle, every other used route is scanned too (see
   * {@link Insertion.widen}). By default on for problems without time constraints, where loads
   * alone decide which routes a job fits, and where fewer vehicles pay ({@link fewerVehiclesPay}:
   * an empty vehicle is the costliest place; CVRPLIB X, Gehring & Homberger: docs/vrp.md).
   */
  widenInsert: number;
  /** SISR: average number of removed jobs, maximal string length, split rate, split continuation probability. */
  cBar: number;
  lMax: number;
  splitRate: number;
  splitDepth: number;
  /** Blink rate in recreate. */
  blink: number;
  /** Temperatures relative to the mean arc cost of the first solution. */
  t0: number;
  tf: number;
  /** Unassigned jobs offered for insertion each iteration: all of them up to this many, else those near the ruin plus `offerRandom` random ones. */
  offerAll: number;
  offerRandom: number;
  /** Probability of running the localized local search after a recreate. */
  lsRate: number;
  /** SWAP* in the local search of constructed solutions, and its probability in the localized search after a recreate. */
  swapStar: boolean;
  swapStarRate: number;
  /**
   * Fleet minimisation (whole-problem searches only): the share of the budget spent first on
   * emptying routes, as in SISR's fleet minimisation (see {@link Search.iterateFleet}); 0 = off.
   * By default {@link FLEET_PHASE} from {@link ROUTE_RUIN_MIN_JOBS} jobs when the objective is a
   * sum of arc costs (balancing modes want every vehicle used) and fewer vehicles pay
   * ({@link fewerVehiclesPay}); solve.ts then keeps it only on long budgets.
   */
  fleetPhase: number;
  /**
   * Fleet minimisation: when this share of the budget passes without emptying the route being
   * emptied, the search goes back to the last complete plan and tries another route.
   */
  fleetRetry: number;
  /** Probability per iteration that the ruin removes a whole short route instead of strings (default {@link ROUTE_RUIN_RATE} from {@link ROUTE_RUIN_MIN_JOBS} jobs, else 0). */
  routeRuin: number;
  /** Fleet minimisation: probability per iteration of an ejection insertion (see {@link Search.ejectInsert}) before the ruin and recreate. */
  ejectRate: number;
}

/**
 * Whether a plan with fewer vehicles is worth looking for first (the fleet minimisation's rule):
 * the instance counts vehicles first ({@link Problem.vehiclesFirst}: Solomon, Gehring & Homberger),
 * or using any vehicle costs something that matters — every vehicle has a fixed cost of at least
 * its cost factor × its mean leg from its start (else to its end) to a job. MinimumVehicles' fixed
 * cost (10⁹) passes; a plain dispatch (no fixed cost) does not, nor do trips (the first trip of a
 * vehicle costs nothing fixed, the later ones a few units to keep them in order). A vehicle with
 * neither start nor end counts with any positive fixed cost. O(J) per vehicle class.
 */
export function fewerVehiclesPay(pb: Problem): boolean {
  if (pb.vehiclesFirst) return true;
  if (pb.V === 0 || pb.J === 0) return false;
  const N = pb.N;
  const legOf = new Float64Array(pb.nClasses).fill(-1);
  for (let v = 0; v < pb.V; v++) {
    const fixed = pb.vFixed[v];
    if (!(fixed > 0)) return false;
    const c = pb.vClass[v];
    if (legOf[c] < 0) {
      const C = pb.cost[pb.vProfile[v]];
      const fromStart = pb.vHasStart[v] === 1;
      const depot = fromStart ? pb.vStartPl[v] : pb.vEndPl[v];
      let sum = 0;
      let n = 0;
      if (fromStart || pb.vHasEnd[v] === 1) {
        for (let u = 0; u < pb.J; u++) {
          const x = fromStart ? C[depot * N + pb.inPl[u]] : C[pb.outPl[u] * N + depot];
          if (x < UNREACHABLE) { sum += x; n++; }
        }
      }
      legOf[c] = n > 0 ? sum / n : 0;
    }
    if (fixed < pb.vCostMul[v] * legOf[c]) return false;
  }
  return true;
}

/**
 * The fewest routes any plan can have by its loads: with every vehicle alike, the jobs' summed
 * delivered amount over the capacity, per dimension (1 when loads rise along routes, reload
 * points or vehicles differ).
 */
export function capacityFloor(pb: Problem): number {
  if (pb.nClasses !== 1 || !pb.hasLoad || !pb.loadMonotone || pb.hasReset || pb.V === 0) return 1;
  const K = pb.K;
  let floor = 1;
  for (let k = 0; k < K; k++) {
    const cap = pb.vCap[k];
    if (!(cap > 0 && cap < Infinity)) continue;
    let sum = 0;
    for (let u = 0; u < pb.J; u++) if (!pb.jOptional[u]) sum += pb.jDep[u * K + k];
    floor = Math.max(floor, Math.ceil(sum / cap - 1e-9));
  }
  return floor;
}

export function defaultParams(pb: Problem): SearchParams {
  const J = pb.J;
  const fewer = fewerVehiclesPay(pb);
  return {
    kLs: J > 2000 ? 12 : J > 500 ? 16 : 20,
    kIns: J > 2000 ? 20 : 30,
    kList: Math.min(Math.max(J - 1, 1), J > 2000 ? 40 : 60),
    fullInsertMax: 250,
    widenInsert: !pb.hasTime || fewer ? 1 : 0,
    cBar: 10,
    lMax: 10,
    splitRate: 0.5,
    splitDepth: 0.5,
    blink: 0.01,
    t0: 0.1,
    tf: 0.002,
    lsRate: 1,
    offerAll: 20,
    offerRandom: 5,
    swapStar: true,
    swapStarRate: 0.1,
    fleetPhase: J >= ROUTE_RUIN_MIN_JOBS && pb.pureArcObjective && fewer ? FLEET_PHASE : 0,
    fleetRetry: FLEET_RETRY,
    routeRuin: J >= ROUTE_RUIN_MIN_JOBS ? ROUTE_RUIN_RATE : 0,
    ejectRate: EJECT_RATE,
  };
}

export interface SearchResult {
  routes: Int32Array[];
  cost: number;
  unassigned: Int32Array;
  iterations: number;
  work: number;
  improvements: number;
  /** Failure reason per job that was never inserted (construction's verdict). */
  reasons: Map<number, string>;
  stoppedBy: 'iterations' | 'work' | 'time' | 'cancelled' | 'none';
}

export class Search {
  readonly st: State;
  readonly nb: Neighbours;
  readonly rng: Rng;
  readonly ins: Insertion;
  readonly ls: LocalSearch;
  best: Int32Array[] = [];
  bestCost = Infinity;
  readonly bestUn: Int32Array;
  curCost = Infinity;
  readonly curUn: Int32Array;
  iterations = 0;
  improvements = 0;
  private t0 = 0;
  private tf = 0;
  private readonly removed: number[] = [];
  private readonly openJobs: number[] = [];
  private readonly ruined: Uint8Array;
  private readonly drop: Uint8Array;
  private readonly depotCost: Float64Array;
  private readonly deadlineOf: Float64Array;
  private readonly demandOf: Float64Array;
  reasons = new Map<number, string>();
  /**
   * Decomposition: the vehicles this search works on (null = all). Ruins start and spread only on
   * their routes; the problem's `allowed` keeps the other routes' jobs where they are.
   */
  focus: Uint8Array | null = null;

  readonly pb: Problem;
  /** Fleet minimisation: the problem's own `allowed` (this search's `pb.allowed` is a copy that shuts vehicles); undefined = off. */
  private readonly allowed0: Uint8Array | null | undefined;
  /** Fleet minimisation: 0 not started, 1 running, 2 over, 3 at its floor (over at the next iteration). */
  private fleetState = 0;
  private absence: Float64Array | null = null;
  private fleetBest: Int32Array[] | null = null;
  private curAbsence = 0;
  /** Fleet minimisation: the budget used when the current route was shut, and that vehicle (-1: none). */
  private fleetProgress = 0;
  private fleetTarget = -1;
  /** Fleet minimisation: no plan can have fewer routes than this ({@link capacityFloor}); reaching it ends the phase. */
  private fleetFloor = 1;

  /**
   * Set up, construction and warm start read `cancelled` (the constructor's last argument) every
   * few jobs and throw Cancelled once it says so — seconds of work at 10,000 jobs, before any plan
   * exists; the iterations read it through {@link runSlice}.
   */
  private readonly cancelled: (() => boolean) | undefined;

  constructor(pb: Problem, readonly params: SearchParams, seed: number, isFocused = false, cancelled?: () => boolean) {
    this.cancelled = cancelled;
    if (params.fleetPhase > 0 && !isFocused && pb.V > 1) {
      this.allowed0 = pb.allowed;
      pb = Object.assign(new Problem(), pb, { allowed: pb.allowed !== null ? pb.allowed.slice() : new Uint8Array(pb.J * pb.V).fill(1) });
    }
    this.pb = pb;
    this.rng = new Rng(seed);
    this.st = new State(pb);
    this.nb = neighboursOf(pb, params.kList, this.st.excluded, cancelled);
    this.ins = new Insertion(this.st, this.nb, params.kIns);
    this.ins.widen = params.widenInsert > 0;
    this.ls = new LocalSearch(this.st, this.nb, this.rng.fork(1), { k: params.kLs, swapStar: params.swapStar });
    this.bestUn = new Int32Array(pb.R);
    this.curUn = new Int32Array(pb.R);
    this.ruined = new Uint8Array(pb.V);
    this.drop = new Uint8Array(pb.J);
    const J = pb.J;
    this.depotCost = new Float64Array(J);
    this.deadlineOf = new Float64Array(J);
    this.demandOf = new Float64Array(J);
    const C = pb.cost[0];
    const sp = pb.V > 0 ? pb.vStartPl[0] : 0;
    for (let u = 0; u < J; u++) {
      this.depotCost[u] = pb.V > 0 ? C[sp * pb.N + pb.inPl[u]] : 0;
      this.deadlineOf[u] = pb.nL[u];
      let d = 0;
      for (let k = 0; k < pb.K; k++) d += pb.jDep[u * pb.K + k] + pb.jRise[u * pb.K + k];
      this.demandOf[u] = d;
    }
  }

  get full(): boolean {
    return this.pb.J <= this.params.fullInsertMax;
  }

  /**
   * Construction (savings and regret, keep the better) followed by local search. Cancelled (see
   * {@link cancelled}) during the second construction, the first one's plan is kept; before any
   * plan exists, Cancelled is thrown.
   */
  construct(): void {
    const st = this.st;
    let bestSnap: Int32Array[] | null = null;
    let bestCost = Infinity;
    const bestUn = new Int32Array(this.pb.R);
    let bestReasons = new Map<number, string>();
    const consider = (reasons: Map<number, string>): void => {
      this.reloadPass();
      this.ls.cancelled = this.cancelled ?? null;
      try {
        this.ls.run();
      } finally {
        this.ls.cancelled = null;
      }
      const c = st.totalCost();
      const cmp = bestSnap === null ? -1 : State.compareUnassigned(st.unassigned, bestUn);
      if (cmp < 0 || (cmp === 0 && c < bestCost)) {
        bestSnap = st.snapshot();
        bestCost = c;
        bestUn.set(st.unassigned);
        bestReasons = reasons;
      }
    };
    if (savings(st, this.nb)) {
      const r = regretInsert(st, this.ins, this.full, this.cancelled);
      consider(r);
      st.load(this.pb.V === 0 ? [] : st.routes.map(() => new Int32Array(0)));
    }
    // The second construction only while the wall clock allows (the savings one is kept otherwise).
    if (bestSnap === null || performance.now() < this.bDeadline) {
      try {
        const r2 = regretInsert(st, this.ins, this.full, this.cancelled);
        consider(r2);
      } catch (e) {
        if (bestSnap === null || !isCancelled(e)) throw e;
      }
    } else this.cutByClock = true;
    st.load(bestSnap!);
    this.reasons = bestReasons;
    this.curCost = bestCost;
    this.curUn.set(st.unassigned);
    this.saveBest();
    // temperature scale: mean arc cost of the first solution (fixed vehicle costs excluded)
    this.setTemperatures();
  }

  /**
   * Starts from given routes instead of {@link construct}: each route is kept when it is feasible
   * for its vehicle here (else its jobs are set free), then the free jobs are inserted (regret),
   * and the local search runs.
   */
  warmStart(routes: Int32Array[], fullLocalSearch = true): void {
    const st = this.st;
    const pb = this.pb;
    const keep: Int32Array[] = [];
    const used = new Uint8Array(pb.J);
    const scratch = { routeOf: new Int32Array(pb.J), posOf: new Int32Array(pb.J) };
    for (let v = 0; v < pb.V; v++) {
      const jobs = (routes[v] ?? new Int32Array(0)).filter((u) => u >= 0 && u < pb.J && !st.excluded[u] && !used[u]);
      const ok = jobs.length === 0 || this.feasibleRoute(v, jobs, scratch);
      keep.push(ok ? jobs : new Int32Array(0));
      if (ok) for (const u of jobs) used[u] = 1;
    }
    st.load(keep);
    const reasons = regretInsert(st, this.ins, this.full, this.cancelled);
    this.reloadPass();
    if (fullLocalSearch) {
      this.ls.cancelled = this.cancelled ?? null;
      try {
        this.ls.run();
      } finally {
        this.ls.cancelled = null;
      }
    }
    this.reasons = reasons;
    this.curCost = st.totalCost();
    this.curUn.set(st.unassigned);
    this.saveBest();
    this.setTemperatures();
  }

  /** Whether a job sequence is feasible for vehicle v (every constraint), via a scratch route. */
  private feasibleRoute(v: number, jobs: Int32Array, scratch: { routeOf: Int32Array; posOf: Int32Array }): boolean {
    const pb = this.pb;
    if (pb.allowed !== null) for (const u of jobs) if (pb.allowed[u * pb.V + v] === 0) return false;
    const r = new Route(pb, v, jobs.length + 2);
    r.setJobs(jobs, jobs.length, scratch.routeOf, scratch.posOf);
    if (!r.rebuild()) return false; // windows (hull), maximum duration
    const saved = this.st.routes[v];
    (this.st.routes as Route[])[v] = r;
    try {
      // capacity, stops, pairs (both ends here, pickup first), exact windows and breaks, as for any candidate
      return this.st.ev.check(v, new Pieces().range(v, 0, r.len));
    } finally {
      (this.st.routes as Route[])[v] = saved;
    }
  }

  private setTemperatures(): void {
    let arcs = 0;
    let travel = 0;
    for (const r of this.st.routes) if (r.len > 0) { arcs += r.len + 1; travel += this.pb.vCostMul[r.v] * (r.arcF[r.len + 1] + r.icum[r.len + 1]); }
    const mean = arcs > 0 && travel > 0 ? travel / arcs : 1;
    this.t0 = this.params.t0 * mean;
    this.tf = this.params.tf * mean;
  }

  private saveBest(): void {
    this.best = this.st.snapshot();
    this.bestCost = this.curCost;
    this.bestUn.set(this.curUn);
  }

  /**
   * The move of an iteration, logged (commit or roll back after): ruin, the open jobs offered,
   * recreate, unneeded reload visits dropped, the localized local search (with SWAP* now and then
   * when `swapStar`).
   */
  private move(swapStar: boolean): void {
    const st = this.st;
    this.iterations++;
    st.beginLog();
    this.ruin();
    this.offerOpen();
    this.recreate();
    if (this.pb.hasReset) this.ins.dropUselessReloads(st.touched().slice());
    const removed = this.removed;
    if (this.params.lsRate >= 1 || this.rng.next() < this.params.lsRate) {
      this.ls.run(removed, swapStar && this.params.swapStar && this.rng.next() < this.params.swapStarRate);
    }
    for (const u of removed) this.drop[u] = 0;
  }

  /** One ruin-and-recreate iteration; `progress` in [0,1] sets the temperature. */
  iterate(progress: number): void {
    if (this.allowed0 !== undefined && this.fleetState !== 2) {
      if (progress < this.params.fleetPhase && this.fleetState !== 3) { this.iterateFleet(progress); return; }
      this.endFleet();
    }
    const st = this.st;
    this.move(true);
    const c = st.totalCost();
    const cmp = State.compareUnassigned(st.unassigned, this.curUn);
    let accept: boolean;
    if (cmp !== 0) accept = cmp < 0;
    else {
      const T = this.t0 * Math.pow(this.tf / this.t0, Math.min(1, Math.max(0, progress)));
      accept = c < this.curCost - T * Math.log(this.rng.next() + 1e-300);
    }
    if (accept) {
      st.commit();
      this.curCost = c;
      this.curUn.set(st.unassigned);
      const cb = State.compareUnassigned(this.curUn, this.bestUn);
      if (cb < 0 || (cb === 0 && c < this.bestCost)) { this.saveBest(); this.improvements++; }
    } else st.rollback();
  }

  /**
   * One iteration of fleet minimisation (Christiaens & Vanden Berghe's SISR, §5): the plan runs
   * with one route fewer than its last complete version, its jobs left open; a ruin-and-recreate
   * is accepted when it leaves fewer jobs open or open jobs that were open less often (absence
   * counters), whatever its cost. Once every job is placed, that plan is kept and the next
   * shortest of three random routes is shut. No route can open meanwhile (`allowed`).
   */
  private iterateFleet(progress: number): void {
    const st = this.st;
    const pb = this.pb;
    if (this.fleetState === 0) {
      this.fleetState = 1;
      this.fleetFloor = capacityFloor(pb);
      this.absence = new Float64Array(pb.J);
      this.fleetProgress = progress;
      for (let v = 0; v < pb.V; v++) if (st.routes[v].len === 0) this.shut(v);
      if (State.compareUnassigned(this.curUn, new Int32Array(pb.R)) === 0) { this.fleetBest = st.snapshot(); this.nextRoute(-1); }
      this.curAbsence = 0;
    }
    const abs = this.absence!;
    if (this.params.ejectRate > 0 && this.rng.next() < this.params.ejectRate) this.ejectInsert(abs);
    this.move(false);
    let a = 0;
    for (let u = 0; u < pb.J; u++) if (st.routeOf[u] < 0 && !st.excluded[u] && !pb.jOptional[u]) a += abs[u];
    const cmp = State.compareUnassigned(st.unassigned, this.curUn);
    if (cmp < 0 || (cmp === 0 && a <= this.curAbsence)) {
      st.commit();
      this.curUn.set(st.unassigned);
    } else st.rollback();
    let open = 0;
    for (let u = 0; u < pb.J; u++) if (st.routeOf[u] < 0 && !st.excluded[u] && !pb.jOptional[u]) { abs[u]++; open++; }
    this.curAbsence = 0;
    for (let u = 0; u < pb.J; u++) if (st.routeOf[u] < 0 && !st.excluded[u] && !pb.jOptional[u]) this.curAbsence += abs[u];
    if (open === 0 || State.compareUnassigned(this.curUn, this.bestUn) < 0) {
      // every job placed (or fewer open than the best, e.g. jobs no route could take): a fleet one route smaller
      this.fleetBest = st.snapshot();
      const c = st.totalCost();
      if (State.compareUnassigned(this.curUn, this.bestUn) < 0 || c < this.bestCost) { this.curCost = c; this.saveBest(); this.improvements++; }
      if (open === 0) { this.nextRoute(-1); this.fleetProgress = progress; }
    } else if (progress - this.fleetProgress > this.params.fleetRetry && this.fleetBest !== null && this.fleetTarget >= 0) {
      // stuck on this route: back to the last complete plan, another route
      const v = this.fleetTarget;
      const allowed = pb.allowed!;
      for (let u = 0; u < pb.J; u++) allowed[u * pb.V + v] = this.allowed0 ? this.allowed0[u * pb.V + v] : 1;
      st.load(this.fleetBest);
      this.nextRoute(v);
      this.fleetProgress = progress;
    }
  }

  /**
   * Fleet minimisation's ejection insertion (Nagata & Bräysy's route minimisation, with the
   * absence counters as its penalties): the open job left open most often goes into a route near
   * it in place of one job left open less often — the cheapest such exchange, over the positions
   * of the routes of its nearest neighbours, that keeps the route feasible. The ejected job is
   * open then; the open count is the same and the absence sum lower, so the fleet's acceptance
   * holds (`curAbsence` follows it). Single jobs of one priority only (a pair's parts move together
   * elsewhere). Returns whether a job went in.
   */
  private ejectInsert(abs: Float64Array): boolean {
    const st = this.st;
    const pb = this.pb;
    const V = pb.V;
    let u = -1;
    for (let j = 0; j < pb.J; j++) {
      if (st.routeOf[j] >= 0 || st.excluded[j] || pb.jOptional[j] || pb.jPairRole[j] !== 0) continue;
      if (u < 0 || abs[j] > abs[u]) u = j;
    }
    if (u < 0) return false;
    const nb = this.nb;
    const allowed = pb.allowed;
    const P = this.ejectPieces;
    const seen = this.ejectSeen;
    seen.fill(0);
    let bestAbs = abs[u], bestCost = Infinity, bestV = -1, bestE = -1, bestP = -1;
    for (let i = 0, kk = Math.min(nb.k, EJECT_NEIGHBOURS); i < kk; i++) {
      const w0 = nb.list[u * nb.k + i];
      if (w0 < 0) break;
      const v = st.routeOf[w0];
      if (v < 0 || seen[v]) continue;
      seen[v] = 1;
      if (allowed !== null && allowed[u * V + v] === 0) continue;
      const r = st.routes[v];
      for (let e = 1; e <= r.len; e++) {
        const w = r.nodes[e];
        if (pb.jPairRole[w] !== 0 || pb.jOptional[w] || pb.jPrio[w] !== pb.jPrio[u] || abs[w] > bestAbs) continue;
        for (let p = 0; p <= r.len; p++) {
          if (p === e - 1) continue; // u right where w was: p = e is the same sequence
          P.clear();
          if (p < e) P.range(v, 0, p).node(u).range(v, p + 1, e - 1).range(v, e + 1, r.len);
          else P.range(v, 0, e - 1).range(v, e + 1, p).node(u).range(v, p + 1, r.len);
          const c = st.ev.cost(v, P) - r.cost;
          if (abs[w] === bestAbs && c >= bestCost) continue;
          const ok = st.ev.check(v, P);
          st.ev.work += r.len; // the check walks the route's middle part job by job
          if (!ok) continue;
          bestAbs = abs[w]; bestCost = c; bestV = v; bestE = e; bestP = p;
        }
      }
    }
    if (bestV < 0 || !(bestAbs < abs[u])) return false;
    const r = st.routes[bestV];
    const buf = this.ejectBuf;
    const w = r.nodes[bestE];
    let n = 0;
    if (bestP === 0) buf[n++] = u;
    for (let x = 1; x <= r.len; x++) {
      if (x !== bestE) buf[n++] = r.nodes[x];
      if (x === bestP) buf[n++] = u;
    }
    st.beginLog();
    st.setRoute(bestV, buf, n);
    st.commit();
    this.curUn.set(st.unassigned);
    this.curAbsence += abs[w] - abs[u]; // u in, w out (whole counts: exact)
    return true;
  }
  private readonly ejectPieces = new Pieces();
  private get ejectSeen(): Uint8Array { return (this.ejectSeen_ ??= new Uint8Array(this.pb.V)); }
  private ejectSeen_: Uint8Array | null = null;
  private get ejectBuf(): Int32Array { return (this.ejectBuf_ ??= new Int32Array(this.pb.J + 2)); }
  private ejectBuf_: Int32Array | null = null;

  /** Shuts vehicle v for the fleet minimisation (no job may use it). */
  private shut(v: number): void {
    const pb = this.pb;
    const allowed = pb.allowed!;
    for (let u = 0; u < pb.J; u++) allowed[u * pb.V + v] = 0;
  }

  /** Fleet minimisation: the shortest of three random used routes (not `not`) is emptied and shut. */
  private nextRoute(not: number): void {
    const st = this.st;
    const pb = this.pb;
    const used: number[] = [];
    for (let v = 0; v < pb.V; v++) if (st.routes[v].len > 0 && v !== not) used.push(v);
    if (used.length <= 1) return;
    // a complete plan on as few routes as the loads allow: nothing left to empty
    if (not < 0 && used.length <= this.fleetFloor) { this.fleetState = 3; return; }
    let pick = -1;
    for (let t = 0; t < 3; t++) {
      const v = used[this.rng.int(used.length)];
      if (pick < 0 || st.routes[v].len < st.routes[pick].len) pick = v;
    }
    st.beginLog();
    const r = st.routes[pick];
    for (let x = 1; x <= r.len; x++) this.drop[r.nodes[x]] = 1;
    st.removeJobs(pick, this.drop);
    st.commit();
    this.drop.fill(0);
    this.shut(pick);
    this.fleetTarget = pick;
    this.curUn.set(st.unassigned);
    this.curAbsence = 0;
    for (let u = 0; u < pb.J; u++) if (st.routeOf[u] < 0 && !st.excluded[u] && !pb.jOptional[u]) this.curAbsence += this.absence![u];
  }

  /** Ends the fleet minimisation: every vehicle open again, the search goes on from the smallest complete fleet found. */
  private endFleet(): void {
    this.fleetState = 2;
    const pb = this.pb;
    if (this.allowed0 === null) pb.allowed = null;
    else pb.allowed!.set(this.allowed0!);
    this.absence = null;
    this.st.load(this.fleetBest ?? this.best);
    this.fleetBest = null;
    this.curCost = this.st.totalCost();
    this.curUn.set(this.st.unassigned);
  }

  /**
   * Unassigned jobs are offered to the recreate too: all of them when few, else those near the
   * ruined area and a few at random.
   */
  private offerOpen(): void {
    const st = this.st;
    const pb = this.pb;
    const removed = this.removed;
    const nRuined = removed.length;
    const open = this.openJobs;
    open.length = 0;
    for (let u = 0; u < pb.J; u++) if (st.routeOf[u] < 0 && !st.excluded[u] && !pb.jOptional[u] && !this.drop[u]) open.push(u);
    if (open.length <= this.params.offerAll) {
      for (const u of open) { removed.push(u); this.drop[u] = 1; }
    } else {
      const nb = this.nb;
      const kk = Math.min(nb.k, 10);
      for (let i = 0; i < nRuined; i++) {
        const r = removed[i];
        for (let k = 0; k < kk; k++) {
          const w = nb.list[r * nb.k + k];
          if (w >= 0 && st.routeOf[w] < 0 && !st.excluded[w] && !pb.jOptional[w] && !this.drop[w]) { removed.push(w); this.drop[w] = 1; }
        }
      }
      for (let t = 0; t < this.params.offerRandom; t++) {
        const w = open[this.rng.int(open.length)];
        if (!this.drop[w]) { removed.push(w); this.drop[w] = 1; }
      }
    }
  }

  private ruin(): void {
    const st = this.st;
    const pb = this.pb;
    const p = this.params;
    const removed = this.removed;
    removed.length = 0;
    let assigned = 0;
    let used = 0;
    for (const r of st.routes) if (r.len > 0) { assigned += r.len; used++; }
    if (assigned === 0) return;
    const avgLen = assigned / used;
    const lsMax = Math.min(p.lMax, avgLen);
    const ksMax = (4 * p.cBar) / (1 + lsMax) - 1;
    const ks = Math.floor(this.rng.next() * ksMax) + 1;
    const focus = this.focus;
    // Large problems: now and then a whole short route goes (fleet reduction; on R1-type G&H
    // instances every route saved is distance saved). Smaller problems never draw this.
    if (p.routeRuin > 0 && this.fleetState !== 1 && this.rng.next() < p.routeRuin) {
      let pick = -1;
      for (let t = 0; t < 3; t++) {
        const v = this.rng.int(pb.V);
        const r = st.routes[v];
        if (r.len === 0 || (focus !== null && focus[v] === 0)) continue;
        if (pick < 0 || r.len < st.routes[pick].len) pick = v;
      }
      if (pick >= 0) {
        const r = st.routes[pick];
        for (let x = 1; x <= r.len; x++) this.mark(r.nodes[x]);
        for (let i = 0; i < removed.length; i++) { const m = pb.jMate[removed[i]]; if (m >= 0) this.mark(m); }
        st.removeJobs(pick, this.drop);
        return;
      }
    }
    // seed: a random assigned job (on a focus route)
    const seedOk = (u: number): boolean => st.routeOf[u] >= 0 && (focus === null || focus[st.routeOf[u]] === 1);
    let seed = -1;
    for (let tries = 0; tries < 100 && seed < 0; tries++) {
      const u = this.rng.int(pb.J);
      if (seedOk(u)) seed = u;
    }
    if (seed < 0) for (let u = 0; u < pb.J; u++) if (seedOk(u)) { seed = u; break; }
    if (seed < 0) return;
    const ruined = this.ruined;
    const touched: number[] = [];
    let done = 0;
    const nb = this.nb;
    for (let i = -1; i < nb.k && done < ks; i++) {
      const c = i < 0 ? seed : nb.list[seed * nb.k + i];
      if (c < 0) break;
      const v = st.routeOf[c];
      if (v < 0 || ruined[v] || (focus !== null && focus[v] === 0)) continue;
      ruined[v] = 1;
      touched.push(v);
      const r = st.routes[v];
      const lMaxT = Math.min(r.len, lsMax);
      const l = Math.floor(this.rng.next() * lMaxT) + 1;
      const pc = st.posOf[c];
      if (this.rng.next() < p.splitRate && r.len > l) {
        // split string: l removed around m preserved
        let m = 1;
        while (m < r.len - l && this.rng.next() < p.splitDepth) m++;
        const total = l + m;
        const lo = Math.max(1, pc - total + 1), hi = Math.min(pc, r.len - total + 1);
        const s = lo + this.rng.int(hi - lo + 1);
        const keepAt = s + this.rng.int(l + 1); // preserved block [keepAt, keepAt+m)
        for (let x = s; x < s + total; x++) if (x < keepAt || x >= keepAt + m) this.mark(r.nodes[x]);
      } else {
        const lo = Math.max(1, pc - l + 1), hi = Math.min(pc, r.len - l + 1);
        const s = lo + this.rng.int(hi - lo + 1);
        for (let x = s; x < s + l; x++) this.mark(r.nodes[x]);
      }
      done++;
    }
    // mates of removed pair jobs go too (their routes are edited below)
    for (let i = 0; i < removed.length; i++) {
      const m = pb.jMate[removed[i]];
      if (m >= 0 && !this.drop[m]) {
        this.mark(m);
        const v = st.routeOf[m];
        if (!ruined[v]) { ruined[v] = 1; touched.push(v); }
      }
    }
    for (const v of touched) { st.removeJobs(v, this.drop); ruined[v] = 0; }
  }

  private mark(u: number): void {
    // Reload visits stay (removing one could overload its route); dropUselessReloads removes them.
    if (this.drop[u] || this.pb.jOptional[u]) return;
    this.drop[u] = 1;
    this.removed.push(u);
  }

  private recreate(): void {
    const st = this.st;
    const pb = this.pb;
    const list = this.removed.slice();
    // order
    const w = this.rng.next() * (pb.hasTime ? 13 : 11);
    if (w < 4) this.rng.shuffle(list);
    else if (w < 8) { this.rng.shuffle(list); list.sort((a, b) => this.demandOf[b] - this.demandOf[a]); }
    else if (w < 10) list.sort((a, b) => this.depotCost[b] - this.depotCost[a] || a - b);
    else if (w < 11) list.sort((a, b) => this.depotCost[a] - this.depotCost[b] || a - b);
    else list.sort((a, b) => this.deadlineOf[a] - this.deadlineOf[b] || a - b);
    if (pb.R > 1) list.sort((a, b) => pb.jPrio[b] - pb.jPrio[a]); // stable: keeps the order within a rank
    const full = this.full;
    const blink = this.params.blink;
    for (const u of list) {
      if (st.routeOf[u] >= 0) continue; // a pair's mate inserted with it
      if (this.ins.find(u, full, blink, this.rng)) this.ins.apply(u);
      else if (blink > 0 && this.ins.find(u, full, 0, null)) this.ins.apply(u);
      else if (pb.hasReset && this.ins.findWithReload(u)) this.ins.applyWithReload(u);
    }
  }

  /** Unassigned jobs that fit with a visit to a reload point get one (construction). */
  private reloadPass(): void {
    const st = this.st;
    const pb = this.pb;
    if (!pb.hasReset) return;
    for (let u = 0; u < pb.J; u++) {
      if (st.routeOf[u] >= 0 || st.excluded[u] || pb.jOptional[u] || pb.jPairRole[u] !== 0) continue;
      if (this.ins.find(u, this.full)) this.ins.apply(u);
      else if (this.ins.findWithReload(u)) this.ins.applyWithReload(u);
    }
  }

  // ---- budget (whole search; `runSlice` may be called repeatedly)
  private bIt = Infinity;
  private bWork = Infinity;
  private bDeadline = Infinity;
  private bStart = 0;
  private bWork0 = 0;
  private bIt0 = 0;
  /** The share of the whole solve's cooling this search covers (see {@link SearchTaskSpec}'s `span`). */
  private span0 = 0;
  private span1 = 1;
  /** The wall clock cut the construction short (the search then reports 'time'). */
  private cutByClock = false;

  /**
   * Sets the budget of the whole search (before {@link construct}, whose second construction is
   * skipped once the time limit has passed). `start` (performance.now() at the start of the solve)
   * makes the time limit include set-up and construction; work units count from the start too.
   */
  setBudget(b: { iterations?: number; work?: number; timeLimitMs?: number; span?: [number, number] }, start = performance.now()): void {
    this.span0 = b.span?.[0] ?? 0;
    this.span1 = b.span?.[1] ?? 1;
    this.bIt = b.iterations ?? Infinity;
    this.bWork = b.work ?? Infinity;
    this.bStart = start;
    this.bDeadline = b.timeLimitMs !== undefined ? this.bStart + b.timeLimitMs : Infinity;
    this.bWork0 = 0;
    this.bIt0 = this.iterations;
  }

  /** Iterates until the budget is used, the search is cancelled, or the wall clock passes sliceEnd ('slice'). */
  runSlice(sliceEnd: number, cancelled?: () => boolean, onTick?: (s: Search) => void): SearchResult['stoppedBy'] | 'slice' {
    const ev = this.st.ev;
    if (this.pb.J === 0 || this.pb.V === 0 || this.bestCost === Infinity) return 'none';
    if (this.cutByClock) return 'time';
    // in slices the clock is read every iteration (one iteration of a large problem can take milliseconds)
    const mask = sliceEnd === Infinity ? 7 : 0;
    for (let n = 0; ; n++) {
      const it = this.iterations - this.bIt0;
      const w = ev.work - this.bWork0;
      if (it >= this.bIt) return 'iterations';
      if (w >= this.bWork) return 'work';
      if ((n & mask) === 0) {
        if (cancelled?.()) return 'cancelled';
        const now = performance.now();
        if (now >= this.bDeadline) return 'time';
        if (now >= sliceEnd) return 'slice';
        if (onTick) onTick(this);
      }
      let progress: number;
      if (this.bIt !== Infinity) progress = it / this.bIt;
      else if (this.bWork !== Infinity) progress = w / this.bWork;
      else if (this.bDeadline !== Infinity) progress = (performance.now() - this.bStart) / (this.bDeadline - this.bStart);
      else progress = 0.5;
      this.iterate(this.span0 + (this.span1 - this.span0) * progress);
    }
  }

  result(stoppedBy: SearchResult['stoppedBy']): SearchResult {
    return {
      routes: this.best,
      cost: this.bestCost,
      unassigned: this.bestUn,
      iterations: this.iterations,
      work: this.st.ev.work,
      improvements: this.improvements,
      reasons: this.reasons,
      stoppedBy,
    };
  }
}

export { BIG };
