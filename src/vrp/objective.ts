/**
 * The dispatch objective of one route, in one place.
 *
 * A route's cost is costFactor × travel cost + fixed cost when the vehicle serves at least one
 * stop, and 0 when it serves none. The travel cost is the sum of the route's arc costs in the
 * objective matrix (distance or the vehicle's time profile), start and end legs included,
 * plus the internal legs of composite jobs. Everything here is integer arithmetic in practice
 * (rounded matrices, rounded factors), so the order of the additions never changes a result.
 *
 * Users: `Route.rebuild` (cached cost), `Evaluator.cost` (candidate routes), the insertion
 * prefilter ({@link objectiveDelta}), `describeRoute` (reported cost) and the independent
 * checker (`validateSolution`, from the caller's input via {@link vehicleCostTerms}). The
 * functions are tiny so that V8 inlines them into the hot loops.
 *
 * A route-level term that is not a sum of arc costs changes the search's objective and must set
 * `Problem.pureArcObjective = false`, which switches off the arc-delta shortcuts
 * ({@link objectiveDelta} and the local search's filters). The one such term is
 * {@link balancePenalty} (the balancing DispatchModes): it is part of the search's objective
 * (`Route.cost`, `Evaluator.cost`) but not of the reported cost, which stays the travel cost.
 */

/**
 * A balancing term: each vehicle pays `weight × (metric − target)²` (see {@link balancePenalty}), where the metric
 * is the route's number of jobs ('stops'; a non-stop pickup → delivery pair is one job) or its
 * travel cost before the cost factor ('travel': time or distance, whichever is the objective).
 */
export interface BalanceTerm {
  metric: 'stops' | 'travel';
  target: number;
  weight: number;
  /**
   * 'travel' only: count each job's service time in the route's travel cost (in the search's
   * objective only), so that the metric is the route's working time (EqualHour, BalanceTime).
   */
  withService?: boolean;
}

/**
 * The balancing penalty of one used route (0 without a term): `weight × m × (m − 2·target)`,
 * which is `weight × (m − target)²` less the constant `weight × target²`. Summed over every
 * vehicle — an unused one has m = 0 and adds 0 — it is Σ_v weight × (m_v − target)² minus a
 * constant, so the search sees an unused vehicle as far from the target as it is (moving work to
 * it pays), while an empty route still costs 0. The value may be negative.
 */
export function balancePenalty(b: BalanceTerm | null, travelCost: number, jobs: number): number {
  if (b === null) return 0;
  const m = b.metric === 'stops' ? jobs : travelCost;
  return Math.round(b.weight * m * (m - 2 * b.target));
}

/** A vehicle's objective coefficients: integer cost factor and fixed cost. */
export interface VehicleCostTerms {
  costFactor: number;
  fixedCost: number;
}

/** The coefficients of a vehicle as the caller gives them (defaults 1 and 0), rounded to integers. */
export function vehicleCostTerms(v: { costFactor?: number; fixedCost?: number }): VehicleCostTerms {
  return { costFactor: Math.round(v.costFactor ?? 1), fixedCost: Math.round(v.fixedCost ?? 0) };
}

/**
 * Cost of one route: `costFactor × travelCost + fixedCost` when the route serves at least one
 * stop (`used`), else 0 (an unused vehicle costs nothing, not even its start → end leg).
 */
export function routeObjective(costFactor: number, fixedCost: number, travelCost: number, used: boolean): number {
  return used ? costFactor * travelCost + fixedCost : 0;
}

/**
 * Change of {@link routeObjective} when a route's travel cost changes by `travelDelta` and the
 * route serves stops afterwards: the fixed cost is added when it was empty before (`wasEmpty`;
 * its travel cost then counts from 0, so `travelDelta` is the new route's whole travel cost).
 * Valid only while the objective is a pure sum of arc costs (`Problem.pureArcObjective`).
 */
export function objectiveDelta(costFactor: number, fixedCost: number, travelDelta: number, wasEmpty: boolean): number {
  return (wasEmpty ? fixedCost : 0) + costFactor * travelDelta;
}
