/**
 * Solving a dispatch's input: the solver's options from MinimumOptimization or a time limit, the
 * mode's phases (a balancing mode's reference plan first; regions, then the rest), and the
 * solver's own input errors told in the contract's terms.
 */
import type { DispatchResult, DispatchSpecification } from '../../records/index.js';
import { EngineError, isEngineError } from '../../core/errors.js';
import { solve, wallNow, WORK_PER_MS, WORK_SHARE, type SolveOptions } from '../../vrp/solve.js';
import type { VrpInput } from '../../vrp/model.js';
import { inputLegPlaces, legPairs, setLegDistances, type Solution, type SolveStats } from '../../vrp/solution.js';
import { MODE_TERMS, REFERENCE_SHARE } from './modes.js';
import { relaxRegions } from './regions.js';
import { toResult } from './result.js';
import type { Bookkeeping, DispatchOptions } from './types.js';

/** When a dispatch started ({@link wallNow}) and how many places it had to place and route (0 = travel given). */
export interface Timing {
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
export function solveOptions(spec: DispatchSpecification, opts: DispatchOptions, timing: Timing, stops: number): SolveOptions {
  const so: SolveOptions = { seed: opts.seed ?? 1, executor: opts.executor, workers: opts.workers, signal: opts.signal, onProgress: opts.onProgress, offload: opts.offload };
  if (opts.discard) so.discard = opts.discard;
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

/** The budget of a two-phase solve: `share` of it for the first phase (a small share: two effort levels less), the rest for the second. */
export function splitBudget(so: SolveOptions, share = REFERENCE_SHARE): [SolveOptions, SolveOptions] {
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

/** The last progress event of a dispatch's search: what ended it ('time' = the wall clock; not reproducible). */
export function reportStop(opts: DispatchOptions, stats: SolveStats): void {
  opts.onProgress?.({
    phase: 'dispatch', done: 1, total: 1,
    info: { stoppedBy: stats.stoppedBy, iterations: stats.iterations, work: stats.work, seconds: Math.round(stats.seconds * 1000) / 1000 },
  });
}

/** The solve phases of the dispatch's mode: a balancing mode's reference plan first; regions, then the rest. */
export function modePhases(input: VrpInput, b: Bookkeeping): { reference: boolean; regions: boolean } {
  const term = MODE_TERMS[b.mode];
  const several = b.modeCtx.vehicles > 1;
  return { reference: !!term.reference && several && input.stops.length > 1, regions: !!term.regions && several && input.stops.length > 0 };
}

export async function solveAndReport(spec: DispatchSpecification, input: VrpInput, b: Bookkeeping, opts: DispatchOptions, timing: Timing): Promise<DispatchResult> {
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

/** The progress event that says which DispatchMode runs, and why (the CLI prints it). */
export function reportMode(spec: DispatchSpecification, b: Bookkeeping, opts: { onProgress?: DispatchOptions['onProgress'] }): void {
  opts.onProgress?.({ phase: 'dispatch-mode', done: 1, total: 1, info: { requested: spec.DispatchMode ?? 'Auto', mode: b.mode, reason: b.modeReason } });
}

/** How the legs of a plan made without distances are measured: in this thread, or all at once elsewhere. */
async function legMeasure(sol: Solution, input: VrpInput, opts: DispatchOptions): Promise<(from: number, to: number) => number> {
  if (opts.legDistance) return opts.legDistance;
  if (!opts.measureLegs) throw new EngineError('Internal', 'a plan made without distances and nothing to measure its legs');
  const pairs = legPairs(sol, inputLegPlaces(input));
  const metres = await opts.measureLegs(pairs);
  const key = (a: number, b: number): number => a * PLACE_KEY + b;
  const byPair = new Map<number, number>();
  for (let i = 0; i < metres.length; i++) byPair.set(key(pairs[2 * i], pairs[2 * i + 1]), metres[i]);
  return (a, b) => {
    const d = byPair.get(key(a, b));
    if (d === undefined) throw new EngineError('Internal', `leg ${a} → ${b} was not measured`);
    return d;
  };
}

/** Places per row of the leg key (a dispatch has far fewer places). */
const PLACE_KEY = 2 ** 24;

async function solveAndReportModel(spec: DispatchSpecification, input: VrpInput, b: Bookkeeping, opts: DispatchOptions, timing: Timing): Promise<DispatchResult> {
  reportMode(spec, b, opts);
  let so = solveOptions(spec, opts, timing, input.stops.length);
  if (b.initial) so = { ...so, initial: b.initial };
  const term = MODE_TERMS[b.mode];
  const phases = modePhases(input, b);
  if (phases.reference) {
    // A balancing mode's target comes from a reference plan of the same input that uses the whole
    // fleet — the stops shared evenly (EqualStop's term) — made first with part of the budget. (An
    // Optima reference may use one van of five: its total ÷ V is then below what any plan with all
    // five can reach, and the term pulls the wrong way.) The second solve starts from it.
    const [first, rest] = splitBudget(so);
    const refInput: VrpInput = { ...input };
    MODE_TERMS.EqualStop.apply(refInput, b.modeCtx);
    const ref = await solve(refInput, first);
    const measure = term.measure ?? input.objective ?? 'distance';
    const withService = measure === 'time';
    term.apply(input, b.modeCtx, ref.routes.map((r) => (measure === 'time' ? r.travelTime + (withService ? r.serviceTime : 0) : r.distance)));
    so = { ...rest, initial: ref.routes.map((r) => ({ vehicle: r.vehicle, stops: r.stops.map((x) => x.stop) })) };
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
  if (b.legDistances) setLegDistances(sol, inputLegPlaces(input), await legMeasure(sol, input, opts));
  opts.onSolution?.(input, sol);
  return toResult(spec, b, sol);
}
