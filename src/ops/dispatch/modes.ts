/**
 * How each DispatchMode shapes the solver's objective: one term per mode, applied to the solver's
 * input after the records are mapped (`buildDispatchInput`). The definitions, with their
 * formulas, are in docs/dispatch-modes.md; in short:
 *
 * - Optima, TimeWindow, TimeWindowDepot: travel cost (× each vehicle's FuelCost factor), every
 *   rule hard (TimeWindowDepot's return to the depot within the shift is a rule of the record
 *   mapping, not an objective).
 * - MinimumVehicles: a fixed cost per used vehicle that outweighs any travel cost.
 * - EqualStop / BalanceLocation: each vehicle pays w·(jobs − J/V)², strong / soft.
 * - EqualHour / BalanceTime: each vehicle pays w·(time − T)²/T, time = driving + service,
 *   T = a reference plan's total over the fleet's V vehicles (a plan with the stops shared
 *   evenly, so that every vehicle works: solve.ts); strong / soft. The objective is time.
 * - EqualDistance (= Central): the same on distance. The objective is distance.
 * - SingleRegion / MultipleRegion: travel cost with every stop kept in a region (a compact
 *   cluster per vehicle / the region of its nearest vehicle; ops/dispatch/regions.ts); stops a
 *   region cannot take go anywhere in a second solve.
 * - Auto: TimeWindow when any stop has a time window, else Optima ({@link chooseDispatchMode}).
 *
 * A term with a reference needs a reference plan of the same input first (EqualStop's term: the
 * whole fleet at work): the dispatch runs it with part of the budget ({@link REFERENCE_SHARE}),
 * then solves with the term, starting from it.
 */
import { isDateSet, type DispatchModeName, type DispatchSpecification } from '../../records/index.js';
import type { VrpInput } from '../../vrp/model.js';
import { assignRegions, type RegionKind } from './regions.js';

/** What a term may read about the input. */
export interface ModeContext {
  /** Mean travel cost (objective units) between stops, for scaling weights. */
  meanArc: number;
  /** Jobs of the solver's input (a non-stop pickup → delivery pair is one). */
  jobs: number;
  vehicles: number;
  /** Coordinates of the dispatch's places (by place index), where known. */
  coords?: ({ lat: number; lon: number } | undefined)[];
}

export interface ModeTerm {
  /** What the term minimises, for docs and diagnostics. */
  objective: string;
  /** The objective matrix the mode measures in, overriding RouteOptimize. */
  measure?: 'time' | 'distance';
  /**
   * Needs a reference plan (the same input with the stops shared evenly): its routes' metric
   * (time with service, or distance) is handed to {@link apply}.
   */
  reference?: boolean;
  /**
   * Regions (SingleRegion, MultipleRegion): {@link apply} gave every stop a region; stops the
   * first solve leaves out are set free of it for a second solve.
   */
  regions?: RegionKind;
  /** Adjusts the solver's input in place. */
  apply(input: VrpInput, ctx: ModeContext, reference?: number[]): void;
}

/** The plain objective: travel cost (× cost factors), nothing added. */
const TRAVEL_COST: ModeTerm = { objective: 'travel cost', apply: () => {} };

/** A fixed cost per used vehicle larger than any route's travel cost: fewest vehicles first, then cost. */
export const VEHICLE_FIXED_COST = 1e9;

const FEWEST_VEHICLES: ModeTerm = {
  objective: 'vehicles used, then travel cost',
  apply(input) {
    for (const v of input.vehicles) v.fixedCost = VEHICLE_FIXED_COST;
  },
};

/** Weights of the balancing terms (see docs/dispatch-modes.md for the measured trade-offs). */
export const BALANCE_WEIGHTS = {
  /** × meanArc per (stop deviation)²: one stop off target costs 40 average legs. */
  equalStops: 40,
  /** × meanArc per (stop deviation)². */
  balanceStops: 0.25,
  /** per (relative deviation)² × T: 10 % off target costs 0.6 T. */
  equalMetric: 60,
  balanceMetric: 0.6,
} as const;

function stops(weight: number, what: string): ModeTerm {
  return {
    objective: `travel cost + ${weight} × meanArc × Σ_v (jobs_v − J/V)² (${what})`,
    apply(input, ctx) {
      if (ctx.vehicles < 2 || ctx.jobs === 0) return;
      input.balance = { metric: 'stops', target: ctx.jobs / ctx.vehicles, weight: weight * Math.max(1, ctx.meanArc) };
    },
  };
}

function metric(measure: 'time' | 'distance', weight: number, what: string): ModeTerm {
  return {
    objective: `${measure} + ${weight} × Σ_v (${measure === 'time' ? 'time incl. service' : 'distance'}_v − T)² / T (${what})`,
    measure,
    reference: true,
    apply(input, ctx, ref) {
      input.objective = measure;
      // Target: the reference plan's total shared over the whole fleet.
      if (ctx.vehicles < 2 || !ref || ref.length === 0) return;
      const T = ref.reduce((a, x) => a + x, 0) / ctx.vehicles;
      if (!(T > 0)) return;
      input.balance = { metric: 'travel', target: T, weight: weight / T, withService: measure === 'time' };
    },
  };
}

function regions(kind: RegionKind, objective: string): ModeTerm {
  return { objective, regions: kind, apply: (input, ctx) => { assignRegions(input, kind, ctx.coords); } };
}

export const MODE_TERMS: Record<DispatchModeName, ModeTerm> = {
  Auto: TRAVEL_COST,
  Optima: TRAVEL_COST,
  TimeWindow: TRAVEL_COST,
  TimeWindowDepot: TRAVEL_COST,
  MinimumVehicles: FEWEST_VEHICLES,
  EqualStop: stops(BALANCE_WEIGHTS.equalStops, 'strong'),
  BalanceLocation: stops(BALANCE_WEIGHTS.balanceStops, 'soft'),
  EqualHour: metric('time', BALANCE_WEIGHTS.equalMetric, 'strong'),
  BalanceTime: metric('time', BALANCE_WEIGHTS.balanceMetric, 'soft'),
  EqualDistance: metric('distance', BALANCE_WEIGHTS.equalMetric, 'strong'),
  SingleRegion: regions('clusters', 'travel cost, each stop kept in its vehicle\'s compact region (balanced k-medoids on travel time)'),
  MultipleRegion: regions('nearest', 'travel cost, each stop kept in the region of its nearest vehicle'),
};

/** Share of the budget the reference plan of a balancing mode gets. */
export const REFERENCE_SHARE = 0.35;

/**
 * The mode a dispatch runs in: the requested one, or for Auto, TimeWindow when any stop has a
 * time window (TimeConstraintArrival/Departure or the second pair set) and Optima otherwise.
 */
export function chooseDispatchMode(spec: DispatchSpecification): { mode: DispatchModeName; reason: string } {
  const requested = spec.DispatchMode ?? 'Auto';
  if (requested !== 'Auto') return { mode: requested, reason: 'requested' };
  const windows = (spec.Locations ?? []).some((l) => l && (isDateSet(l.TimeConstraintArrival) || isDateSet(l.TimeConstraintDeparture) || isDateSet(l.TimeConstraintArrival2) || isDateSet(l.TimeConstraintDeparture2)));
  return windows ? { mode: 'TimeWindow', reason: 'stops have time windows' } : { mode: 'Optima', reason: 'no stop has a time window' };
}
