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
  failedFromError, failedFromIssues, statusFor, DispatchSpecificationSchema, VehicleSchema, joined, fromTexts, rawJsonSliced, toTexts,
  type Address, type DispatchResult, type DispatchSpecification, type Issue, type Texts, type Vehicle,
} from '../../records/index.js';
import type { Executor, TaskEnv, TaskTypes } from '../../core/executor.js';
import { EngineError, isEngineError } from '../../core/errors.js';
import { cancelledError, throwIfAborted } from '../../core/cancel.js';
import { assemble, searchBest, wallNow } from '../../vrp/solve.js';
import { problemLegPlaces, setLegDistances } from '../../vrp/solution.js';
import { buildProblem, Problem, type VrpInput } from '../../vrp/model.js';
import type { SolveStats } from '../../vrp/solution.js';
import type { PlaceQuery, Placement } from '../../route/travel.js';
import type { Zone } from '../../route/zones.js';
import { IN_THREAD_MAX_CELLS, searchScratchBytes } from '../../matrix/compute.js';
import { contextInTask, OFFLOAD_IN_THREAD_CELLS, taskSource, type OpOptions, type OpsContext, type TaskSource } from '../context.js';
import { hasPlace, placeQuery, profileFor } from '../locations.js';
import { dispatchSizeIssue, rawDispatchIssues, rawLength, ROUNDED_MIN_PLACES, type DispatchSize } from '../limits.js';
import { buildDispatchInput, legDistancesSuffice } from './input.js';
import { recordIssues } from './parse.js';
import { dispatchPlaces } from './place.js';
import { toResult } from './result.js';
import { inContractTerms, modePhases, reportMode, reportStop, solveAndReport, solveOptions } from './solve.js';
import { tripPlan } from './trips.js';
import { MAX_DROP_COPIES, type Bookkeeping, type DispatchOptions, type DispatchTravel } from './types.js';
import { vehicleZones, zoneKey } from './zones.js';
import type { StabilityHints } from './stability.js';

export type { Bookkeeping, DispatchOptions, DispatchPlace, DispatchTravel } from './types.js';
export type { StabilityHints } from './stability.js';
export { buildDispatchInput } from './input.js';
export { dispatchPlaces } from './place.js';
export { inContractTerms, dispatchOverheadMs } from './solve.js';
export { serviceWindow } from './windows.js';
export { meanArc } from './terms.js';
export { vehicleZones, zoneKey } from './zones.js';
export { checkServiceWindows } from './check.js';
export { MAX_TRIPS } from '../limits.js';

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
 * time limit is given (the same answer with or without `offload`). `onSolution` needs the
 * solver's input and solution in the calling thread: a dispatch given it runs as without `offload`.
 */
export async function dispatchOp(ctx: OpsContext, spec: unknown, opts: DispatchOpOptions = {}): Promise<DispatchResult> {
  const started = wallNow(); // a time limit counts from here: placement and matrix included
  if (opts.offload && ctx.executor.offThread && !opts.onSolution) return dispatchOffThread(ctx, spec, opts, started);
  const p = await prepareDispatch(ctx, spec, opts, undefined, true);
  if ('Status' in p) return p;
  try {
    return await solveAndReport(p.spec, p.input, p.b, { ...opts, executor: ctx.executor, ...(p.legDistance ? { legDistance: p.legDistance } : {}) }, { started, places: dispatchPlaces(p.spec).length });
  } catch (e) {
    return failedFromError(e, { Items: [] }) as DispatchResult;
  }
}

export interface Prepared {
  spec: DispatchSpecification;
  input: VrpInput;
  b: Bookkeeping;
  /** With `b.legDistances`: metres of a leg between two places (DispatchOptions.legDistance). */
  legDistance?: (from: number, to: number) => number;
}

/**
 * The record stages before the solver: parse, place the locations (LatLong or geocoded Address;
 * a stop that cannot be placed is left out and reported), the travel matrix, the solver's input.
 * Returns a (Failed) DispatchResult when the request cannot go on. `legs`: the caller measures
 * the plan's legs after the solve, so that a very large dispatch whose search reads no distance
 * ({@link legDistancesSuffice}) may take the time matrix alone.
 */
export async function prepareDispatch(ctx: OpsContext, spec: unknown, opts: DispatchOpOptions, placeExecutor: Executor | undefined, legs = false): Promise<Prepared | DispatchResult> {
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
  const timesOnly = legs && !!ctx.travel.legRounded && legDistancesSuffice(s);
  const tooLarge = dispatchSizeIssue(dispatchSize(s, places.length, canRound && places.length >= roundedFrom, scratchOf(ctx, places.length), timesOnly), ctx.maxMatrixBytes, roundedFrom);
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
    travel = await placedTravel(ctx, s, placed, opts, timesOnly);
  } catch (e) {
    // a matrix refused by the kernel's own bound is about the request's Locations
    return failedFromError(isEngineError(e) && e.code === 'TooBig' && e.path === undefined ? new EngineError('TooBig', e.message, { path: 'Locations', details: e.details }) : e, { Items: [] }) as DispatchResult;
  }
  try {
    throwIfAborted(opts.signal);
    const built = buildDispatchInput(s, travel, { unplaced, ...(opts.stability ? { stability: opts.stability } : {}) });
    throwIfAborted(opts.signal);
    if ('issues' in built) return failedFromIssues(built.issues, { Items: [] }) as DispatchResult;
    return { spec: s, input: built.input, b: built.b, ...(travel.legDistances ? { legDistance: legDistanceOf(ctx, placed as Placement[], s) } : {}) };
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
function dispatchSize(spec: DispatchSpecification, places: number, rounded: boolean, scratchBytes = 0, legDistances = false): DispatchSize {
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
    places, rounded, legDistances: rounded && legDistances, zoneSets: zoneSets.size, speedProfiles: speeds.size,
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


/**
 * Metres of the leg between two places (dispatch place indices) as the rounded matrix would have
 * held it ({@link DispatchTravel.legDistances}).
 */
function legDistanceOf(ctx: OpsContext, placed: readonly Placement[], s: DispatchSpecification): (from: number, to: number) => number {
  const profile = profileFor(s.RouteOptimize);
  return (from, to) => ctx.travel.legRounded!(placed[from], placed[to], profile).distance;
}

/**
 * Travel data over the placed locations, in the dispatch's place order (unplaced rows and columns
 * unreachable). `timesOnly`: a rounded matrix (when the dispatch is that large) holds times alone.
 */
async function placedTravel(ctx: OpsContext, s: DispatchSpecification, placed: (Placement | null)[], opts: OpOptions, timesOnly = false): Promise<DispatchTravel> {
  const idx: number[] = [];
  placed.forEach((p, i) => { if (p) idx.push(i); });
  const n = idx.length;
  const N = placed.length;
  const mopts = {
    // computeMatrix keeps small matrices in this thread and tiles large ones on the executor.
    executor: ctx.executor,
    signal: opts.signal, onProgress: opts.onProgress, maxMatrixBytes: ctx.maxMatrixBytes,
    // a caller that offloads keeps only tiny matrices in its own thread (EvaluatePlan's model)
    ...(opts.offload && ctx.executor.offThread ? { inThreadMaxCells: OFFLOAD_IN_THREAD_CELLS } : {}),
  };
  let out: DispatchTravel;
  if (n >= (ctx.roundedMatrixFrom ?? ROUNDED_MIN_PLACES) && n === N && ctx.travel.matrixRounded) {
    // Very large: whole seconds and metres from the start, shared with the solver as they are.
    const m = await ctx.travel.matrixRounded(idx.map((i) => placed[i]!), profileFor(s.RouteOptimize), { ...mopts, distance: !timesOnly });
    // times alone: the solver reads no distance (the time matrix stands in), the plan's legs get theirs afterwards
    out = m.distance ? { time: m.time, distance: m.distance } : { time: m.time, distance: m.time, legDistances: true };
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
      const zm = await ctx.travel.matrix(idx.map((i) => placed[i]!), { ...profileFor(s.RouteOptimize), blockedArcs: blocked }, mopts);
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
  stability?: StabilityHints;
  /** The solver's problem whatever the mode (a plan's evaluation solves nothing: no phases). */
  problemOnly?: boolean;
  /** The finishing task measures the plan's legs: a very large matrix may hold times alone (prepareDispatch `legs`). */
  legs?: boolean;
}

/** From this many Locations a specification travels to the prepare task as JSON text. */
const SPEC_AS_TEXT_FROM = 500;

/** The specification as the prepare task takes it: as it is, or as JSON text written in slices when large. */
async function specPayload(spec: unknown, signal?: AbortSignal): Promise<{ spec: unknown } | { specText: string }> {
  return rawLength(spec, 'Locations') >= SPEC_AS_TEXT_FROM ? { specText: joined(await rawJsonSliced(spec, signal)) } : { spec };
}

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
  /** With `b.legDistances`: where the task finds the dataset, to place the spec's places again and measure the plan's legs. */
  source?: DispatchTaskSource;
}

/** The legs of a plan made without distances, measured where the dataset is (DispatchOptions.measureLegs). */
export interface DispatchLegsTask {
  source: DispatchTaskSource;
  spec: DispatchSpecification;
  /** [from, to, from, to, …] dispatch place indices. */
  pairs: Int32Array;
}

declare module '../../core/executor.js' {
  interface TaskMap {
    'dispatch-prepare': TaskTypes<DispatchPrepareTask, DispatchPrepared>;
    'dispatch-legs': TaskTypes<DispatchLegsTask, Float64Array>;
    /** The DispatchResult as text, an Item per text: text crosses threads at once (a large object graph would hold the receiving event loop while it is rebuilt). */
    'dispatch-finish': TaskTypes<DispatchFinishTask, Texts>;
  }
}

async function dispatchOffThread(ctx: OpsContext, spec: unknown, opts: DispatchOpOptions, started: number): Promise<DispatchResult> {
  const ex = ctx.executor;
  try {
    throwIfAborted(opts.signal);
    const prep = await ex.run('dispatch-prepare', { source: taskSource(ctx), ...await specPayload(spec, opts.signal), legs: true, ...(opts.stability ? { stability: opts.stability } : {}) }, { signal: opts.signal, onProgress: opts.onProgress });
    if ('result' in prep) return prep.result;
    if (prep.input) {
      // A mode solved in phases (a balancing mode's reference plan, regions then the rest): the
      // phases run here as in dispatchOp, the solver's build, searches and assembly on the executor.
      const spec = prep.spec;
      const measureLegs = (pairs: Int32Array): Promise<Float64Array> => ex.run('dispatch-legs', { source: taskSource(ctx), spec, pairs });
      return await solveAndReport(spec, prep.input, prep.b, { ...opts, executor: ex, offload: true, ...(prep.b.legDistances ? { measureLegs } : {}) }, { started, places: dispatchPlaces(spec).length });
    }
    reportMode(prep.spec, prep.b, opts);
    const pb = Problem.fromTransfer(prep.problem);
    const so = solveOptions(prep.spec, { ...opts, executor: ex }, { started, places: dispatchPlaces(prep.spec).length }, pb.nStops);
    if (prep.b.initial) so.initial = prep.b.initial;
    const best = await searchBest(pb, so, started);
    reportStop(opts, best.stats);
    // Nobody will read the answer (a cancelled job): no assembly (seconds at 10,000 stops).
    throwIfAborted(opts.discard);
    // No signal here: a cancelled solve still reports the best solution it reached.
    return await fromTexts<DispatchResult>(await ex.run('dispatch-finish', { spec: prep.spec, b: prep.b, problem: prep.problem, ...best, assembleBy: so.assembleBy, ...(prep.b.legDistances ? { source: taskSource(ctx) } : {}) }));
  } catch (e) {
    return failedFromError(e, { Items: [] }) as DispatchResult;
  }
}

export async function dispatchPrepareTask(t: DispatchPrepareTask, env: TaskEnv): Promise<DispatchPrepared> {
  const spec = t.specText !== undefined ? JSON.parse(t.specText) as unknown : t.spec;
  const p = await prepareDispatch(contextInTask(t.source, env), spec, { onProgress: env.progress, ...(env.signal ? { signal: env.signal } : {}), ...(t.stability ? { stability: t.stability } : {}) }, undefined, t.legs === true && !t.problemOnly);
  if ('Status' in p) return { result: p };
  const phases = modePhases(p.input, p.b);
  if (!t.problemOnly && (phases.reference || phases.regions)) return { spec: p.spec, b: p.b, input: p.input };
  try {
    // the signal is read inside the build too (a second at 10,000 stops)
    return { spec: p.spec, b: p.b, problem: buildProblem(p.input, env.signal ? { signal: env.signal } : {}).toTransfer() };
  } catch (e) {
    if (isEngineError(e) && e.code === 'Cancelled') throw e;
    return { result: failedFromError(inContractTerms(e, p.input, p.b), { Items: [] }) as DispatchResult };
  }
}

/**
 * The records' stages and the solver's problem built on the executor (EvaluatePlan's model under
 * `offload`): the calling thread only receives the problem's tables, moved, not copied.
 */
export async function prepareProblemOffThread(ctx: OpsContext, spec: unknown, opts: OpOptions): Promise<{ spec: DispatchSpecification; b: Bookkeeping; pb: Problem } | DispatchResult> {
  const prep = await ctx.executor.run('dispatch-prepare', { source: taskSource(ctx), ...await specPayload(spec, opts.signal), problemOnly: true }, { signal: opts.signal, onProgress: opts.onProgress });
  if ('result' in prep) return prep.result;
  return { spec: prep.spec, b: prep.b, pb: Problem.fromTransfer(prep.problem!) };
}

export async function dispatchFinishTask(t: DispatchFinishTask, env: TaskEnv): Promise<Texts> {
  const pb = Problem.fromTransfer(t.problem);
  const sol = assemble(pb, t.routes, t.stats, t.assembleBy);
  if (t.b.legDistances) {
    if (!t.source) throw new EngineError('Internal', 'dispatch-finish: a plan without distances and no dataset to measure its legs');
    setLegDistances(sol, problemLegPlaces(pb), await replacedLegDistance(contextInTask(t.source, env), t.spec));
  }
  return toTexts(toResult(t.spec, t.b, sol) as Record<string, unknown>, 'Items');
}

export async function dispatchLegsTask(t: DispatchLegsTask, env: TaskEnv): Promise<Float64Array> {
  const leg = await replacedLegDistance(contextInTask(t.source, env), t.spec);
  const out = new Float64Array(t.pairs.length / 2);
  for (let i = 0; i < out.length; i++) {
    if ((i & 1023) === 0 && env.signal?.aborted) throw cancelledError();
    out[i] = leg(t.pairs[2 * i], t.pairs[2 * i + 1]);
  }
  return out;
}

/**
 * The spec's places placed again in this thread (the prepare task wrote each geocoded position
 * into its LatLong, and a position always snaps the same way), as {@link legDistanceOf} measures them.
 */
async function replacedLegDistance(ctx: OpsContext, s: DispatchSpecification): Promise<(from: number, to: number) => number> {
  const places = dispatchPlaces(s);
  const outcomes = await ctx.travel.placeMany(places.map((p, i) => placeQuery(p.location, `places[${i}]`)));
  const placed = outcomes.map((o, i) => {
    if ('error' in o) throw new EngineError('Internal', `dispatch-finish: place ${i} no longer places (${o.error.message})`);
    return o;
  });
  return legDistanceOf(ctx, placed, s);
}
