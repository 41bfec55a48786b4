/**
 * CalculateDistance: driving distance and time from StartLocation to FinishLocation.
 * DistanceSpecification in, DistanceResult out (Distance in the DistanceUnit, Time in whole
 * seconds; the path is the fastest or the shortest by RouteOptimize, and both its figures are
 * reported). A single query is microseconds, so it always runs in the calling thread.
 */
import { EngineError } from '../core/errors.js';
import { cmToMetres, msToSeconds, recordDistance } from '../core/units.js';
import {
  DistanceSpecificationSchema, failedFromError, failedFromIssues,
  type DistanceResult, type Issue,
} from '../records/index.js';
import type { Placement } from '../route/travel.js';
import type { OpOptions, OpsContext } from './context.js';
import { placeLocation, profileFor } from './locations.js';

const EMPTY = { StartLocationMatchCode: 'None' as const, FinishLocationMatchCode: 'None' as const, Distance: 0, Time: 0 };

/** CalculateDistance in the calling thread (what `Engine.calculateDistance` returns synchronously). */
export function calculateDistance(ctx: OpsContext, spec: unknown): DistanceResult {
  const parsed = DistanceSpecificationSchema.safeParse(spec);
  if (!parsed.ok) return failedFromIssues(parsed.issues, EMPTY);
  const s = parsed.value;
  const issues: Issue[] = [];
  if (!s.StartLocation) issues.push({ path: 'StartLocation', message: 'is required' });
  if (!s.FinishLocation) issues.push({ path: 'FinishLocation', message: 'is required' });
  if (issues.length) return failedFromIssues(issues, EMPTY);
  let from: Placement;
  let to: Placement;
  try {
    from = placeLocation(ctx, s.StartLocation!, 'StartLocation');
  } catch (e) {
    return failedFromError(e, EMPTY);
  }
  try {
    to = placeLocation(ctx, s.FinishLocation!, 'FinishLocation');
  } catch (e) {
    return failedFromError(e, { ...EMPTY, StartLocationMatchCode: from.matchCode });
  }
  const codes = { StartLocationMatchCode: from.matchCode, FinishLocationMatchCode: to.matchCode };
  const r = ctx.travel.route(from, to, profileFor(s.RouteOptimize));
  if (!r.found) {
    return failedFromError(new EngineError('NoRoute', 'no drivable route from StartLocation to it', { path: 'FinishLocation' }), { ...EMPTY, ...codes });
  }
  return {
    Status: 'Success',
    Errors: [],
    ...codes,
    Distance: recordDistance(cmToMetres(r.lengthCm), s.DistanceUnit),
    Time: Math.round(msToSeconds(r.timeMs)),
  };
}

/** The operation-table entry point. */
export async function distanceOp(ctx: OpsContext, spec: unknown, _opts: OpOptions = {}): Promise<DistanceResult> {
  return calculateDistance(ctx, spec);
}
