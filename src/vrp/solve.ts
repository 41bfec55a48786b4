/**
 * The dispatch solver's entry point: `solve(input, options)`.
 *
 * Runs W independent searches (W = `workers`; on the executor when it works off the calling
 * thread, one after the other in this thread otherwise — same seeds, so the same answer) with seeds derived from `seed`, keeps the best by (unassigned per priority, cost,
 * search index), and reports routes with exact schedules and reasons for left-out stops.
 *
 * Budgets (the first reached stops a search):
 * - `iterations`: ruin-and-recreate iterations per search — deterministic;
 * - `work`: an explicit work budget (units of {@link WORK_PER_MS}) — deterministic (benchmarks);
 * - `timeLimitMs` with `deterministic: true` (default when a time limit is given): a promise — the
 *   wall clock stops everything at the limit (from the call; `deadlineAt` moves the wall earlier),
 *   and the searches get a work budget calibrated to end before it ({@link WORK_SHARE} of the
 *   limit at {@link WORK_PER_MS}), so that results are identical run to run unless the clock ends
 *   a search first (`stats.stoppedBy` = 'time'). With an explicit `hardLimitFactor` the limit is
 *   converted to work in full and the clock is only a safety net at that multiple (benchmarks);
 * - `timeLimitMs` with `deterministic: false`: wall clock — the result varies with machine load;
 *   synchronised searches (syncEpochs) meet at equal shares of the time instead of the work;
 * - none of these: an effort level (`effort`, MinimumOptimization: 1 = construction + local
 *   search only, 4 = default, larger = more) gives the iterations.
 * An aborted signal stops every search at its next check; the best solution so far is returned.
 */
import { EngineError } from '../core/errors.js';
import { Rng } from '../core/rng.js';
import { cancelledError, throwIfAborted, yieldTurn, type ProgressEvent } from '../core/cancel.js';
import type { Executor } from '../core/executor.js';
import { buildProblem, Problem, REASON_CODES, type UnassignedReason, type VrpInput } from './model.js';
import { defaultParams, isCancelled, Search, type SearchParams, type SearchResult } from './search.js';
import { Insertion } from './insertion.js';
import { buildNeighbours } from './neighbours.js';
import { describeRoute, unassignedStop, type Solution, type SolveStats } from './solution.js';
import { State } from './state.js';
import { cutParts, focusedProblem, mergeParts } from './decompose.js';
import { crossover } from './crossover.js';

/** Calibrated work units per millisecond of one search on one idle core of the reference machine (see docs/vrp.md). */
export const WORK_PER_MS = 18000;

/** Share of a time limit turned into work, so that a search on an idle machine ends before the wall clock. */
export const WORK_SHARE = 0.85;
/**
 * Fleet minimisation (SearchParams.fleetPhase) runs only when each search has at least this much
 * work per job: it spends half the budget on emptying routes, which pays back on long runs (G&H
 * 1000 at 300 s, 255 ms/job: r1_10_1 3.48 → 2.96 %) but not on short ones (a 10,000-stop Porto
 * dispatch in 115 s, ~10 ms/job: 7,549 → 8,474 km with it).
 */
export const FLEET_MIN_MS_PER_JOB = 100;

/** Wall-clock milliseconds on a scale shared by every thread (performance.now() is per thread). */
export function wallNow(): number {
  return performance.timeOrigin + performance.now();
}

export interface SolveOptions {
  seed?: number;
  /** Per-search ruin-and-recreate iterations (deterministic). */
  iterations?: number;
  /** Time budget. */
  timeLimitMs?: number;
  /** With a time limit: convert it to a deterministic work budget (default true). */
  deterministic?: boolean;
  /**
   * Benchmarks: the time limit is converted to work in full and the wall clock only stops a
   * search at this multiple of it (unset: the limit itself is the wall, see {@link WORK_SHARE}).
   */
  hardLimitFactor?: number;
  /** Explicit work budget per search (units of {@link WORK_PER_MS}; deterministic). */
  work?: number;
  /** Hard wall-clock end of every search ({@link wallNow} scale), e.g. an operation's deadline. */
  deadlineAt?: number;
  /**
   * Wall-clock time ({@link wallNow}) by which the final report should be done: after it, stops
   * still unassigned get no last insertion try and the reason 'timeLimit'.
   */
  assembleBy?: number;
  /** MinimumOptimization (1 = quick … 4 default … larger = more); used when neither iterations nor timeLimitMs is given. */
  effort?: number;
  /** Independent searches (default: the executor's threads, or 1 without one). */
  workers?: number;
  /** Runs the searches as `vrp-search` tasks (in parallel when it works off the calling thread). */
  executor?: Executor;
  /**
   * Also build the problem and assemble the solution on the executor (when it works off the
   * calling thread and the problem has more than 100 stops), so that the caller's thread stays
   * free; costs a copy of the input matrices to the worker.
   */
  offload?: boolean;
  signal?: AbortSignal;
  /**
   * Aborted when nobody will read the solution (a cancelled job): the solve then throws Cancelled
   * after its searches instead of assembling their best plan (seconds at 10,000 stops).
   */
  discard?: AbortSignal;
  onProgress?: (e: ProgressEvent) => void;
  /** Search parameter overrides (tuning, tests). */
  params?: Partial<SearchParams>;
  /**
   * Cooperative rounds on parts after the independent searches (decompose.ts), with 2+ off-thread
   * workers: by default from 1,000 jobs; true = at any size, false = never.
   */
  decompose?: boolean;
  /**
   * Searches on several threads without decomposition meet every `syncEveryMs` of work (default
   * {@link EPOCH_MS}, at most {@link MAX_EPOCHS} times) — of wall-clock time with `deterministic:
   * false` — and all go on from the best plan; false = never (see syncEpochs).
   */
  sync?: boolean;
  syncEveryMs?: number;
  /** With `sync`: the searches after the first start each epoch from a crossover of the best plan and another search's ({@link crossover}; default true, false = from the best plan too). */
  crossover?: boolean;
  /**
   * A warm start: stop indices per route, by vehicle index (`Solution.routes` of an earlier solve
   * of the same stops and vehicles, e.g. before some constraints were relaxed). Routes that are
   * not feasible under this input, and stops not in them, are inserted again.
   */
  initial?: ReadonlyArray<{ vehicle: number; stops: ReadonlyArray<number> }>;
}

/** Iterations per search for an effort level (MinimumOptimization): 0 at level 1, 20·jobs at level 4, doubling per level. */
export function effortIterations(effort: number, jobs: number): number {
  const e = Math.max(1, Math.floor(effort));
  if (e <= 1) return 0;
  return Math.round(Math.max(200, 20 * jobs) * 2 ** (e - 2) / 4);
}

/**
 * Time-equivalent cap of an effort level, converted to deterministic work units: (2 s + 6.7 ms
 * per job) at level 4, doubling per level — e.g. 8.7 s for 1,000 stops, 35 s for 5,000.
 */
export function effortMs(effort: number, jobs: number): number {
  const e = Math.max(1, Math.floor(effort));
  return 1000 * (2 + jobs / 150) * 2 ** (e - 4);
}

export interface SearchTaskSpec {
  seed: number;
  params: SearchParams;
  /** Decomposition (decompose.ts): the vehicles this search may change (1 = yes). */
  focus?: Uint8Array;
  /** Decomposition: `allowed` for this search (jobs kept to their part), replacing the problem's. */
  allowed?: Uint8Array;
  /** Start from these routes (job ids per vehicle) instead of constructing ({@link SolveOptions.initial}). */
  initial?: Int32Array[];
  /**
   * deadlineAt: wall-clock end ({@link wallNow} scale, the same instant on every thread); span: the
   * share of the solve's cooling schedule this search covers (default [0, 1]; epochs, see syncEpochs).
   */
  budget: { iterations?: number; work?: number; deadlineAt?: number; span?: [number, number] };
}

/** A {@link SearchResult} in a form that crosses the worker boundary (reasons as entries). */
export interface SearchTaskResult extends Omit<SearchResult, 'reasons' | 'stoppedBy'> {
  reasons: [number, string][];
  stoppedBy: string;
  /** Cancelled before it had a plan (during its set-up or construction): no routes, not a candidate. */
  planless?: true;
}

/** Runs one search to completion (used in this thread and by the `vrp-solve` worker task). */
export async function runSearch(
  pb: Problem, spec: SearchTaskSpec, cancelled: () => boolean, tick?: (s: Search) => void, yieldEveryMs = 0,
): Promise<SearchTaskResult> {
  const start = performance.now();
  if (spec.allowed && spec.focus) pb = focusedProblem(pb, spec.allowed, spec.focus);
  let s: Search;
  try {
    // set-up and construction read `cancelled` too (seconds at 10,000 jobs): cancelled before a plan exists, the search has none
    s = new Search(pb, spec.params, spec.seed, spec.focus !== undefined, cancelled);
    if (spec.focus) s.focus = spec.focus;
    const { deadlineAt, ...b } = spec.budget;
    s.setBudget(deadlineAt === undefined ? b : { ...b, timeLimitMs: deadlineAt - performance.timeOrigin - start }, start);
    // a decomposition round starts from a plan the local search has been through already
    if (spec.initial) s.warmStart(spec.initial, !spec.focus);
    else s.construct();
  } catch (e) {
    if (!isCancelled(e) || !cancelled()) throw e;
    return { routes: [], cost: Infinity, unassigned: new Int32Array(pb.R), iterations: 0, work: 0, improvements: 0, reasons: [], stoppedBy: 'cancelled', planless: true };
  }
  let stoppedBy: string;
  for (;;) {
    stoppedBy = s.runSlice(yieldEveryMs > 0 ? performance.now() + yieldEveryMs : Infinity, cancelled, tick);
    if (stoppedBy !== 'slice') break;
    // Between slices the event loop runs, so that an AbortSignal can fire; results do not depend on slicing.
    await new Promise<void>((r) => setImmediate(r));
  }
  if (cancelled()) stoppedBy = 'cancelled';
  const r = s.result(stoppedBy as never);
  return {
    routes: r.routes, cost: r.cost, unassigned: r.unassigned, iterations: r.iterations, work: r.work,
    improvements: r.improvements, reasons: [...r.reasons], stoppedBy,
  };
}

/** Problems with more stops than this are built and assembled on an off-thread executor. */
const OFFLOAD_MIN_STOPS = 100;

export async function solve(input: VrpInput | Problem, opts: SolveOptions = {}): Promise<Solution> {
  const started = wallNow(); // a time limit counts from here, the problem's build included
  const ex = opts.executor;
  const offload = opts.offload === true && ex !== undefined && ex.offThread && (input instanceof Problem ? input.J : input.stops.length) > OFFLOAD_MIN_STOPS;
  const pb = input instanceof Problem ? input
    : offload ? Problem.fromTransfer(await ex.run('vrp-build', input, { signal: opts.signal })) : buildProblem(input);
  const best = await searchBest(pb, opts, started);
  throwIfAborted(opts.discard);
  return offload ? ex.run('vrp-assemble', { problem: pb.toTransfer(), ...best }) : assemble(pb, best.routes, best.stats, opts.assembleBy);
}

/**
 * The searches of {@link solve} without the final assembly: the best search's routes and the
 * statistics (for callers that assemble elsewhere, e.g. on another thread).
 */
export async function searchBest(pb: Problem, opts: SolveOptions = {}, started = wallNow()): Promise<{ routes: Int32Array[]; stats: SolveStats }> {
  const t0 = performance.now();
  const ex = opts.executor;
  const seed = (opts.seed ?? 1) >>> 0;
  const W = Math.max(1, Math.floor(opts.workers ?? opts.executor?.threads ?? 1));
  const params: SearchParams = { ...defaultParams(pb), ...(opts.params ?? {}) };
  const budget = searchBudget(pb, opts, started, !ex || !ex.offThread ? W : 1);
  if (opts.params?.fleetPhase === undefined) params.fleetPhase = fleetPhaseFor(params.fleetPhase, budget, pb.J);
  if (opts.signal?.aborted) throw cancelledError(opts.signal);

  const initial = opts.initial ? initialRoutes(pb, opts.initial) : undefined;
  // Large problems on several threads: independent searches first, then cooperative rounds on parts (decompose.ts).
  const decompose = ex !== undefined && ex.offThread && W >= 2 && pb.V >= 2 && opts.decompose !== false && (opts.decompose === true || pb.J >= DECOMPOSE_MIN_JOBS);
  const share = (b: typeof budget, f: number): typeof budget => ({
    ...b,
    ...(b.iterations !== undefined ? { iterations: Math.max(1, Math.round(b.iterations * f)) } : {}),
    ...(b.work !== undefined ? { work: Math.max(1, Math.round(b.work * f)) } : {}),
  });
  // Smaller problems on several threads: the searches meet every epoch and all go on from the best plan (see syncEpochs).
  // With the clock alone, epoch e ends at its share of the time left now (the cooling follows the clock within it).
  const byClock = clockOnly(budget);
  const epochFrom = wallNow();
  const epochs = ex !== undefined && ex.offThread && W >= 2 && !decompose && opts.sync !== false ? syncEpochs(pb, budget, params, opts.syncEveryMs ?? EPOCH_MS, epochFrom) : 1;
  const epochBudget = (e: number): typeof budget => ({
    ...share(budget, 1 / epochs), span: [e / epochs, (e + 1) / epochs],
    ...(byClock ? { deadlineAt: epochFrom + ((e + 1) / epochs) * (budget.deadlineAt! - epochFrom) } : {}),
  });
  const specs: SearchTaskSpec[] = [];
  for (let i = 0; i < W; i++) {
    specs.push({ seed: Rng.derive(seed, i), params, budget: decompose ? share(budget, FIRST_SHARE) : epochs > 1 ? epochBudget(0) : budget, ...(initial ? { initial } : {}) });
  }
  const results: SearchTaskResult[] = [];
  const progress = (done: number, best: number, it: number): void => {
    opts.onProgress?.({ phase: 'dispatch', done, total: W * (budget.iterations ?? budget.work ?? 0), info: { bestCost: best, iterations: it } });
  };
  if (!ex || !ex.offThread) {
    let lastTick = 0;
    let doneBefore = 0;
    const tick = (s: Search): void => {
      const now = performance.now();
      if (opts.onProgress && now - lastTick >= 100) {
        lastTick = now;
        progress(doneBefore + (budget.iterations !== undefined ? s.iterations : s.st.ev.work), s.bestCost, s.iterations);
      }
    };
    for (const spec of specs) {
      const r = await runSearch(pb, spec, () => opts.signal?.aborted === true, tick, 50);
      results.push(r);
      doneBefore += budget.iterations !== undefined ? r.iterations : r.work;
      if (opts.signal?.aborted) break;
    }
  } else {
    const control = new SharedArrayBuffer(8 + 8 * 3 * W);
    const flag = new Int32Array(control, 0, 1);
    const stats = new Float64Array(control, 8, 3 * W);
    const onAbort = (): void => { Atomics.store(flag, 0, 1); };
    opts.signal?.addEventListener('abort', onAbort);
    let doneBase = 0, itBase = 0;
    const timer = opts.onProgress ? setInterval(() => {
      let best = Infinity, done = doneBase, it = itBase;
      for (let i = 0; i < W; i++) { done += stats[3 * i]; it += stats[3 * i + 1]; if (stats[3 * i + 2] > 0) best = Math.min(best, stats[3 * i + 2]); }
      progress(done, best, it);
    }, 200) : null;
    /** Before the next round of searches: the last round's work counts as done, the live counters start again. */
    const nextRound = (): void => {
      for (const r of results.slice(-W)) { doneBase += budget.iterations !== undefined ? r.iterations : r.work; itBase += r.iterations; }
      stats.fill(0);
    };
    try {
      if (decompose || epochs > 1) pb.cacheKey = `${performance.timeOrigin}:${++solveCounter}`;
      const problem = pb.toTransfer();
      const out = await Promise.all(specs.map((spec, index) => ex.run('vrp-search', { problem, spec, control, index })));
      results.push(...out);
      for (let e = 1; e < epochs; e++) {
        const last = results.slice(-W);
        // the clock ending an epoch ends the solve, unless the epochs are ended by the clock
        const timeUp = byClock ? wallNow() >= budget.deadlineAt! : last.some((r) => r.stoppedBy === 'time');
        if (opts.signal?.aborted || timeUp || last.some((r) => r.planless || r.stoppedBy === 'cancelled')) break;
        nextRound();
        const from = pickBest(results).routes;
        // the other searches start from a child of the best plan and the last epoch's other plans (crossover.ts)
        const others = last.filter((r) => !r.planless && r.routes !== from);
        const xr = new Rng(Rng.derive(seed, EPOCH_SEEDS - 1 + e));
        const startOf = (index: number): Int32Array[] => index === 0 || opts.crossover === false || others.length === 0 ? from : crossover(pb, from, others[(index - 1) % others.length].routes, xr);
        const outs = await Promise.all(specs.map((spec, index) => ex.run('vrp-search', {
          problem, control, index, spec: { ...spec, seed: Rng.derive(seed, EPOCH_SEEDS + e * W + index), budget: epochBudget(e), initial: startOf(index) },
        })));
        results.push(...outs);
      }
      if (decompose && !opts.signal?.aborted) {
        let routes = pickBest(results).routes;
        const rng = new Rng(Rng.derive(seed, 999));
        const roundBudget = share(budget, (1 - FIRST_SHARE) / ROUNDS);
        for (let round = 0; round < ROUNDS; round++) {
          if (opts.signal?.aborted || (budget.deadlineAt !== undefined && wallNow() >= budget.deadlineAt)) break;
          nextRound();
          const parts = cutParts(pb, routes, W, rng);
          const base = routes;
          const outs = await Promise.all(parts.focus.map((focus, w) => ex.run('vrp-search', {
            problem, control, index: w,
            spec: { seed: Rng.derive(seed, 1000 + round * W + w), params, budget: roundBudget, initial: base, focus, allowed: parts.allowed[w] },
          })));
          if (outs.some((o) => o.planless)) break; // cancelled inside the round: the plan before it stands
          routes = await mergeParts(pb, base, parts, outs.map((o) => o.routes));
          results.push(...outs);
        }
        await yieldTurn();
        results.push(resultOf(pb, routes, results));
      }
    } finally {
      if (timer) clearInterval(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }
  // cancelled before any search had a plan: there is no best so far
  if (results.every((r) => r.planless)) throw cancelledError(opts.signal);
  // best by (unassigned profile, cost, index); after a decomposition, its merged plan (the last result)
  const bi = decompose && results.length > W ? results.length - 1 : pickBestIndex(results);
  const best = results[bi];
  // The clock ending any search makes the choice of the best depend on timing: say so.
  const stoppedBy = results.some((r) => r.stoppedBy === 'time') ? 'time' : best.stoppedBy;
  const stats: SolveStats = {
    seed, workers: W, iterations: results.reduce((a, r) => a + r.iterations, 0), work: results.reduce((a, r) => a + r.work, 0),
    improvements: best.improvements, seconds: (performance.now() - t0) / 1000, stoppedBy, bestWorker: bi,
    perWorker: results.map((r) => ({ iterations: r.iterations, cost: r.cost, unassigned: r.unassigned.reduce((a, b) => a + b, 0), stoppedBy: r.stoppedBy })),
  };
  return { routes: best.routes, stats };
}

/** Seeds of the epochs after the first (Rng.derive(seed, EPOCH_SEEDS + epoch · W + search)). */
const EPOCH_SEEDS = 3000;
/** Work (ms at {@link WORK_PER_MS}) of one epoch of the synchronised searches, and the most epochs. */
const EPOCH_MS = 5000;
const MAX_EPOCHS = 12;

/**
 * Epochs of the searches of a problem solved on several threads without decomposition: every
 * {@link EPOCH_MS} of work the searches meet, and each goes on (with its own seed) from the best
 * plan found so far, the cooling schedule continuing where it was (`span`), instead of W searches
 * that never meet with only the best kept. With a work budget (time limits, MinimumOptimization), or
 * with the wall clock alone (a time limit with `deterministic: false`: every EPOCH_MS of the time
 * left); not with a budget of iterations, nor with fleet minimisation (its state is the search's own).
 */
function syncEpochs(pb: Problem, budget: SearchTaskSpec['budget'], params: SearchParams, everyMs: number, now: number): number {
  if (params.fleetPhase > 0 || pb.J < 2 || !(everyMs > 0)) return 1;
  const ms = budget.work !== undefined ? budget.work / WORK_PER_MS : clockOnly(budget) ? budget.deadlineAt! - now : 0;
  return Math.max(1, Math.min(MAX_EPOCHS, Math.floor(ms / everyMs)));
}

/** Only the wall clock bounds the searches (a time limit with `deterministic: false`): epochs end by the clock too. */
function clockOnly(budget: SearchTaskSpec['budget']): boolean {
  return budget.work === undefined && budget.iterations === undefined && budget.deadlineAt !== undefined;
}

/** Numbers the decomposed solves of this thread ({@link Problem.cacheKey}). */
let solveCounter = 0;
/** Problems from this many jobs are decomposed after the independent searches (with 2+ threads). */
const DECOMPOSE_MIN_JOBS = 1000;
/** Share of the budget the independent searches get before the cooperative rounds. */
const FIRST_SHARE = 0.4;
/** Cooperative rounds (each cuts the plan elsewhere). */
const ROUNDS = 4;

/** The best search with a plan (at least one has one). */
function pickBestIndex(results: readonly SearchTaskResult[]): number {
  let bi = results.findIndex((r) => !r.planless);
  for (let i = bi + 1; i < results.length; i++) {
    if (results[i].planless) continue;
    const c = State.compareUnassigned(results[i].unassigned, results[bi].unassigned);
    if (c < 0 || (c === 0 && results[i].cost < results[bi].cost)) bi = i;
  }
  return bi;
}

function pickBest(results: readonly SearchTaskResult[]): SearchTaskResult {
  return results[pickBestIndex(results)];
}

/** The merged plan of a decomposition as a search result (cost and unassigned recomputed). */
function resultOf(pb: Problem, routes: Int32Array[], parts: readonly SearchTaskResult[]): SearchTaskResult {
  const st = new State(pb);
  st.load(routes);
  return {
    routes, cost: st.totalCost(), unassigned: st.unassigned.slice(), iterations: 0, work: 0,
    improvements: parts.reduce((a, r) => a + r.improvements, 0), reasons: parts[0].reasons,
    stoppedBy: parts[parts.length - 1].stoppedBy,
  };
}

/** Stop lists per vehicle → job lists per vehicle (a composite pickup/delivery job once). */
function initialRoutes(pb: Problem, routes: NonNullable<SolveOptions['initial']>): Int32Array[] {
  const out: Int32Array[] = Array.from({ length: pb.V }, () => new Int32Array(0));
  const seen = new Uint8Array(pb.J);
  for (const r of routes) {
    if (!(r.vehicle >= 0 && r.vehicle < pb.V)) throw new EngineError('InvalidInput', `initial: vehicle ${r.vehicle} does not exist`, { path: 'initial' });
    const jobs: number[] = [];
    for (const s of r.stops) {
      if (!(s >= 0 && s < pb.nStops)) throw new EngineError('InvalidInput', `initial: stop ${s} does not exist`, { path: 'initial' });
      const j = pb.stopJob[s];
      if (!seen[j]) { seen[j] = 1; jobs.push(j); }
    }
    out[r.vehicle] = Int32Array.from(jobs);
  }
  return out;
}

/**
 * The fleet-minimisation share a search gets: the default one when its budget is long enough
 * ({@link FLEET_MIN_MS_PER_JOB} of work, or of wall clock when only a deadline bounds it, per job;
 * a budget of iterations alone keeps it), else 0.
 */
export function fleetPhaseFor(phase: number, budget: SearchTaskSpec['budget'], jobs: number, now = wallNow()): number {
  if (phase <= 0 || jobs <= 0) return phase;
  const ms = budget.work !== undefined ? budget.work / WORK_PER_MS : budget.iterations === undefined && budget.deadlineAt !== undefined ? budget.deadlineAt - now : Infinity;
  return ms / jobs < FLEET_MIN_MS_PER_JOB ? 0 : phase;
}

/** The budget of each search from the options (see the file comment); `started` = when the time limit began ({@link wallNow}). */
function searchBudget(pb: Problem, opts: SolveOptions, started: number, sequential: number): SearchTaskSpec['budget'] {
  const budget: SearchTaskSpec['budget'] = {};
  let wallMs = Infinity;
  if (opts.iterations !== undefined) {
    budget.iterations = Math.max(0, Math.floor(opts.iterations));
    if (opts.timeLimitMs !== undefined) wallMs = opts.timeLimitMs;
  } else if (opts.work !== undefined) {
    budget.work = Math.max(1, Math.round(opts.work));
    if (opts.timeLimitMs !== undefined) wallMs = opts.timeLimitMs * (opts.hardLimitFactor ?? 1);
  } else if (opts.timeLimitMs !== undefined) {
    if (opts.deterministic ?? true) {
      const legacy = opts.hardLimitFactor !== undefined;
      // searches one after the other in this thread share the limit
      budget.work = Math.max(1, Math.round(opts.timeLimitMs * (legacy ? 1 : WORK_SHARE / sequential) * WORK_PER_MS));
      wallMs = opts.timeLimitMs * (opts.hardLimitFactor ?? 1);
    } else wallMs = opts.timeLimitMs;
  } else {
    // effort level: iterations, capped by a deterministic work budget, with a wall-clock safety net
    const e = opts.effort ?? 4;
    budget.iterations = effortIterations(e, pb.J);
    const ms = effortMs(e, pb.J);
    budget.work = Math.round(ms * WORK_PER_MS);
    wallMs = ms * (opts.hardLimitFactor ?? 3) * sequential;
  }
  const end = Math.min(started + wallMs, opts.deadlineAt ?? Infinity);
  if (end !== Infinity) budget.deadlineAt = end;
  return budget;
}

/**
 * Builds the reported solution; stops still unassigned get a final insertion try, then a reason
 * (every position of every route); once `assembleBy` ({@link wallNow}) has passed, the rest get
 * 'timeLimit'. A cancelled solve's best plan is reported as it is: no tries (seconds of work when
 * thousands of stops are open), its open stops get 'cancelled'.
 */
export function assemble(pb: Problem, routes: Int32Array[], stats: SolveStats, assembleBy = Infinity): Solution {
  const st = new State(pb);
  st.load(routes);
  const open: number[] = [];
  for (let j = 0; j < pb.J; j++) if (st.routeOf[j] < 0 && !st.excluded[j] && !pb.jOptional[j] && pb.jPairRole[j] !== 2) open.push(j);
  open.sort((a, b) => pb.jPrio[b] - pb.jPrio[a] || a - b);
  const why = new Map<number, UnassignedReason>();
  const cancelled = stats.stoppedBy === 'cancelled' || stats.perWorker.some((w) => w.stoppedBy === 'cancelled');
  if (cancelled) {
    for (const u of open) {
      why.set(u, 'cancelled');
      if (pb.jPairRole[u] === 1) why.set(pb.jMate[u], 'cancelled');
    }
    open.length = 0;
  }
  // Last chance: insert what fits now (highest priority first), to report reasons that hold for the returned routes.
  // (The neighbour lists cost O(J²): none when nothing is open.)
  const ins = new Insertion(st, open.length > 0 ? buildNeighbours(pb, 1) : { k: 1, list: new Int32Array(pb.J).fill(-1) }, 1);
  ins.classify = true; // exact attribution of time failures (shift / own window / other stops' windows)
  for (const u of open) {
    if (assembleBy !== Infinity && wallNow() >= assembleBy) { // out of time: no more tries
      why.set(u, 'timeLimit');
      if (pb.jPairRole[u] === 1) why.set(pb.jMate[u], 'timeLimit');
      continue;
    }
    if (ins.find(u, true)) { ins.apply(u); continue; }
    const why0 = ins.failReason;
    if (pb.hasReset && ins.findWithReload(u)) { ins.applyWithReload(u); continue; }
    ins.failReason = why0;
    const r = (REASON_CODES as readonly string[]).includes(ins.failReason) ? (ins.failReason as UnassignedReason) : 'notInserted';
    why.set(u, r);
    if (pb.jPairRole[u] === 1) why.set(pb.jMate[u], r);
  }
  const out: Solution['routes'] = [];
  let cost = 0, distance = 0, travel = 0, duration = 0;
  for (let v = 0; v < pb.V; v++) {
    const r = st.routes[v];
    if (r.len === 0) continue;
    const d = describeRoute(pb, v, r.jobs());
    out.push(d);
    cost += d.cost; distance += d.distance; travel += d.travelTime; duration += d.duration;
  }
  const unassigned: Solution['unassigned'] = [];
  for (let s = 0; s < pb.nStops; s++) {
    const j = pb.stopJob[s];
    if (st.routeOf[j] >= 0 || pb.jOptional[j]) continue; // optional stops left out are not reported
    const code = pb.jInfeasible[j] >= 0 ? REASON_CODES[pb.jInfeasible[j]] : why.get(j) ?? 'notInserted';
    unassigned.push(unassignedStop(s, code));
  }
  return { routes: out, unassigned, cost, distance, travelTime: travel, duration, vehicles: out.length, stats };
}
