/**
 * How each DispatchMode shapes the solver's objective: one pluggable term per mode, applied to
 * the solver's input after the records are mapped (`buildDispatchInput`). A term changes only
 * what it owns (per-vehicle fixed costs, later route-level balancing terms through
 * `vrp/objective.ts`); rules that are not objectives (TimeWindowDepot's return to the depot) stay
 * with the record mapping. Adding a mode's objective = writing its term here and its test.
 *
 * Today: Optima (and Auto) minimise the travel cost (× each vehicle's FuelCost factor);
 * MinimumVehicles puts a fixed cost on every used vehicle that outweighs any travel cost; the
 * balancing and region modes still minimise the plain cost (their terms come with the
 * DispatchMode issue).
 */
import type { DispatchModeName } from '../records/index.js';
import type { VrpInput } from '../vrp/model.js';

export interface ModeTerm {
  /** What the term minimises, for docs and diagnostics. */
  objective: string;
  /** Adjusts the solver's input in place. */
  apply(input: VrpInput): void;
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

export const MODE_TERMS: Record<DispatchModeName, ModeTerm> = {
  Auto: TRAVEL_COST,
  Optima: TRAVEL_COST,
  EqualStop: TRAVEL_COST,
  BalanceLocation: TRAVEL_COST,
  EqualHour: TRAVEL_COST,
  BalanceTime: TRAVEL_COST,
  EqualDistance: TRAVEL_COST,
  SingleRegion: TRAVEL_COST,
  MultipleRegion: TRAVEL_COST,
  TimeWindow: TRAVEL_COST,
  TimeWindowDepot: TRAVEL_COST,
  MinimumVehicles: FEWEST_VEHICLES,
};
