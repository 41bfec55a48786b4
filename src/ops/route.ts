/**
 * CalculateRoute: the driving route through the Locations in the given order. RouteSpecification
 * in, RouteResult out: one RouteLeg per consecutive pair of stops, each leg's Distance and Time
 * computed exactly as CalculateDistance computes them for the same pair (so a two-stop route
 * equals CalculateDistance), Route.Time = the sum of the leg Times, Route.Distance = the sum of
 * the leg Distances rounded like any record Distance, Route.Points = the legs' polylines joined.
 * A route is microseconds to a few milliseconds, so it runs in the calling thread.
 */
import { EngineError } from '../core/errors.js';
import { cmToMetres, msToSeconds, recordDistance, roundDistance } from '../core/units.js';
import {
  RouteSpecificationSchema, failedFromError, failedFromIssues,
  type Issue, type RouteResult,
} from '../records/index.js';
import type { Placement } from '../route/travel.js';
import type { OpOptions, OpsContext } from './context.js';
import { placeLocation, profileFor } from './locations.js';

type LatLong = { Latitude: number; Longitude: number };
type Leg = { Distance: number; Time: number };

/** Coordinates in Route.Points are rounded to 1e-7 degrees (about 1 cm). */
const round7 = (x: number): number => Math.round(x * 1e7) / 1e7;

/** CalculateRoute in the calling thread; never throws. */
export function calculateRoute(ctx: OpsContext, spec: unknown): RouteResult {
  try {
    return routeHere(ctx, spec);
  } catch (e) {
    return failedFromError(e) as RouteResult;
  }
}

function routeHere(ctx: OpsContext, spec: unknown): RouteResult {
  const parsed = RouteSpecificationSchema.safeParse(spec);
  if (!parsed.ok) return failedFromIssues(parsed.issues) as RouteResult;
  const s = parsed.value;
  const locs = s.Locations ?? [];
  if (locs.length < 2) return failedFromIssues([{ path: 'Locations', message: 'needs at least two locations' }]) as RouteResult;
  const issues: Issue[] = [];
  locs.forEach((l, i) => {
    if (!l) issues.push({ path: `Locations[${i}]`, message: 'is required' });
  });
  if (issues.length) return failedFromIssues(issues) as RouteResult;
  const unit = s.RouteOptions?.DistanceUnit ?? 'Mile';
  const profile = profileFor(s.RouteOptions?.RouteOptimize ?? 'MinimizeTime');
  const places: Placement[] = [];
  for (let i = 0; i < locs.length; i++) {
    try {
      places.push(placeLocation(ctx, locs[i]!, `Locations[${i}]`));
    } catch (e) {
      return failedFromError(e) as RouteResult;
    }
  }
  const legs: Leg[] = [];
  const points: LatLong[] = [];
  let time = 0;
  let distance = 0;
  for (let i = 0; i + 1 < places.length; i++) {
    const p = ctx.travel.routePath(places[i], places[i + 1], profile);
    if (!p.found) {
      return failedFromError(new EngineError('NoRoute', `no drivable route from Locations[${i}] to Locations[${i + 1}]`, { path: `RouteLegs[${i}]` })) as RouteResult;
    }
    // Exactly CalculateDistance's figures for the same pair.
    const leg = { Distance: recordDistance(cmToMetres(p.lengthCm), unit), Time: Math.round(msToSeconds(p.timeMs)) };
    legs.push(leg);
    time += leg.Time;
    distance += leg.Distance;
    for (let k = 0; k < p.lat.length; k++) {
      const pt = { Latitude: round7(p.lat[k]), Longitude: round7(p.lon[k]) };
      const last = points[points.length - 1];
      if (last && last.Latitude === pt.Latitude && last.Longitude === pt.Longitude) continue;
      points.push(pt);
    }
  }
  if (points.length === 1) points.push({ ...points[0] });
  return {
    Status: 'Success',
    Errors: [],
    Route: { Distance: roundDistance(distance, unit), Time: time, RouteLegs: legs, Points: points },
  } as RouteResult;
}

/** The operation-table entry point. */
export async function routeOp(ctx: OpsContext, spec: unknown, _opts: OpOptions = {}): Promise<RouteResult> {
  return calculateRoute(ctx, spec);
}
