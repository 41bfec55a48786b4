/**
 * CalculateRoute: the driving route through the Locations in the given order. RouteSpecification
 * in, RouteResult out: one RouteLeg per consecutive pair of stops, each leg's Distance and Time
 * computed exactly as CalculateDistance computes them for the same pair (so a two-stop route
 * equals CalculateDistance), Route.Time = the sum of the leg Times, Route.Distance = the sum of
 * the leg Distances rounded like any record Distance, Route.Points = the legs' polylines joined.
 * Each leg has its Itinerary: turn-by-turn items (route/maneuvers.ts) worded in the request's
 * Culture (route/text/; an unsupported one falls back to en-US with Status SuccessWithErrors),
 * with the warnings of the stretch and hints. With a MapSize, Route.Map and each RouteLeg.Map
 * are SVG maps (render/) as data URLs. A route is well under a millisecond to a few
 * milliseconds (a map, tens), so it runs in the calling thread.
 */
import { EngineError } from '../core/errors.js';
import { cmToMetres, msToSeconds, recordDistance, roundDistance } from '../core/units.js';
import {
  RouteSpecificationSchema, failedFromError, failedFromIssues,
  type Issue, type Route, type RouteColor as RouteColorRecord, type RouteItineraryItem, type RouteLeg, type RouteOptions, type RouteResult,
} from '../records/index.js';
import type { ItineraryStep } from '../route/maneuvers.js';
import { hintText, maneuverText, resolveCulture, warningText, type Culture } from '../route/text/index.js';
import type { Placement } from '../route/travel.js';
import { checkMapSize, renderMapSvg, svgDataUrl, type MapRoute } from '../render/index.js';
import type { OpOptions, OpsContext } from './context.js';
import { placeLocation, profileFor } from './locations.js';
import { rawField, rawLength, rawRouteIssues } from './limits.js';
import { routeOffThread, ROUTE_INLINE_MAX_LOCATIONS } from './routes.js';

type LatLong = { Latitude: number; Longitude: number };
type DistanceUnitName = 'Mile' | 'Kilometer';

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

/** What one CalculateRoute computes before records: legs with their paths and steps. */
interface LegOut {
  leg: RouteLeg;
  lat: Float64Array;
  lon: Float64Array;
}

function routeHere(ctx: OpsContext, spec: unknown): RouteResult {
  const big = rawRouteIssues(spec); // before parsing or placing anything
  if (big.length) return failedFromIssues(big) as RouteResult;
  const parsed = RouteSpecificationSchema.safeParse(spec);
  if (!parsed.ok) return failedFromIssues(parsed.issues) as RouteResult;
  const s = parsed.value;
  const locs = s.Locations ?? [];
  if (locs.length < 2) return failedFromIssues([{ path: 'Locations', message: `needs at least two locations (got ${locs.length})` }]) as RouteResult;
  const issues: Issue[] = [];
  locs.forEach((l, i) => {
    if (!l) issues.push({ path: `Locations[${i}]`, message: 'is required' });
  });
  const o = s.RouteOptions;
  const map = mapRequest(o, issues);
  if (issues.length) return failedFromIssues(issues) as RouteResult;
  const unit = o?.DistanceUnit ?? 'Mile';
  const profile = profileFor(o?.RouteOptimize ?? 'MinimizeTime');
  const culture = resolveCulture(o?.Culture);
  const places: Placement[] = [];
  for (let i = 0; i < locs.length; i++) {
    try {
      places.push(placeLocation(ctx, locs[i]!, `Locations[${i}]`));
    } catch (e) {
      return failedFromError(e) as RouteResult;
    }
  }
  const legs: LegOut[] = [];
  const points: LatLong[] = [];
  let time = 0;
  let distance = 0;
  for (let i = 0; i + 1 < places.length; i++) {
    const p = ctx.travel.routePath(places[i], places[i + 1], profile, { fromStop: i + 1, toStop: i + 2, lastStop: i + 2 === places.length });
    if (!p.found) {
      // named by the leg's destination (a field of the request; the RouteLegs are the answer's)
      return failedFromError(new EngineError('NoRoute', `no drivable route from Locations[${i}] to it`, { path: `Locations[${i + 1}]` })) as RouteResult;
    }
    // Exactly CalculateDistance's figures for the same pair.
    const leg: RouteLeg = { Distance: recordDistance(cmToMetres(p.lengthCm), unit), Time: Math.round(msToSeconds(p.timeMs)) };
    if (p.steps) leg.Itinerary = { Items: itineraryItems(p.steps, p.lengthCm, p.timeMs, unit, culture.culture) };
    legs.push({ leg, lat: p.lat, lon: p.lon });
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
  const route: Route = { Distance: roundDistance(distance, unit), Time: time, RouteLegs: legs.map((l) => l.leg), Points: points };
  if (map) {
    const color = routeColor(o?.RouteColor);
    const stops = places.map((p, i) => ({ lat: p.snap.lat, lon: p.snap.lon, label: String(i + 1) }));
    route.Map = drawMap(ctx, map, [{ lat: Float64Array.from(points, (q) => q.Latitude), lon: Float64Array.from(points, (q) => q.Longitude), color }], o?.HideStops ? [] : stops, unit);
    legs.forEach((l, i) => {
      // A single leg's map is the route's map (same line, same stops, same view).
      l.leg.Map = legs.length === 1 ? route.Map : drawMap(ctx, map, [{ lat: l.lat, lon: l.lon, color }], o?.HideStops ? [] : [stops[i], stops[i + 1]], unit);
    });
  }
  const errors = culture.message ? [{ Message: `RouteOptions.Culture: ${culture.message}` }] : [];
  return { Status: errors.length ? 'SuccessWithErrors' : 'Success', Errors: errors, Route: route } as RouteResult;
}

/**
 * The leg's itinerary items: one per step, Distance and Time from the step to the next one.
 * Both are differences of the rounded cumulative figures, so items sum to their leg (exactly in
 * Time; in Distance up to the last digit of the record's rounding).
 */
function itineraryItems(steps: ItineraryStep[], legCm: number, legMs: number, unit: DistanceUnitName, culture: Culture): RouteItineraryItem[] {
  let cm = 0;
  let ms = 0;
  return steps.map((st, k) => {
    const m = st.maneuver;
    const last = k === steps.length - 1;
    const cm2 = last ? legCm : Math.min(legCm, cm + m.lengthCm);
    const ms2 = last ? legMs : Math.min(legMs, ms + m.timeMs);
    const item: RouteItineraryItem = {
      Distance: roundDistance(recordDistance(cmToMetres(cm2), unit) - recordDistance(cmToMetres(cm), unit), unit),
      Time: Math.round(msToSeconds(ms2)) - Math.round(msToSeconds(ms)),
      LatLong: { Latitude: round7(m.lat), Longitude: round7(m.lon) },
      Text: maneuverText(m, culture),
      Warnings: st.warnings.map((w) => ({ Severity: w.severity, Text: warningText(w.kind, culture, { speedKmh: w.speedKmh, unit }) })),
      Hints: st.hints.map((h) => ({ Type: HINT_TYPE[h.kind], Text: hintText(h.kind, culture, h.subject, unit) })),
    };
    cm = cm2;
    ms = ms2;
    return item;
  });
}

const HINT_TYPE = { 'previous-intersection': 'PreviousIntersection', 'next-intersection': 'NextIntersection', landmark: 'Landmark' } as const;

export interface MapRequest {
  width: number;
  height: number;
  center?: { lat: number; lon: number };
  zoom?: number;
}

/** The map asked for by RouteOptions (null: none), or issues naming the bad field. */
export function mapRequest(o: RouteOptions | undefined, issues: Issue[], path = 'RouteOptions'): MapRequest | null {
  const w = o?.MapSize?.Width ?? 0;
  const h = o?.MapSize?.Height ?? 0;
  if (w < 0 || h < 0) {
    issues.push({ path: `${path}.MapSize`, message: `Width and Height must not be negative (got ${w}×${h})` });
    return null;
  }
  // The view's fields are checked whether or not a map is asked for: a bad one is a bad request.
  const z = o?.ZoomLevel ?? 0;
  if (z < 0 || z > 20) {
    issues.push({ path: `${path}.ZoomLevel`, message: `must be between 0 (fit the route) and 20 (got ${z})` });
    return null;
  }
  const c = o?.MapCenter;
  if (c && (!(Math.abs(c.Latitude) <= 85) || !(Math.abs(c.Longitude) <= 180))) {
    issues.push({ path: `${path}.MapCenter`, message: `must be a latitude within ±85 and a longitude within ±180 (got ${c.Latitude}, ${c.Longitude})` });
    return null;
  }
  if (w === 0 || h === 0) return null;
  const bad = checkMapSize(w, h);
  if (bad) {
    issues.push({ path: `${path}.MapSize`, message: bad });
    return null;
  }
  if (c) {
    // A centre without a zoom: the zoom that fits the route around that centre.
    return { width: w, height: h, center: { lat: c.Latitude, lon: c.Longitude }, ...(z > 0 ? { zoom: z } : {}) };
  }
  return { width: w, height: h, ...(z > 0 ? { zoom: z } : {}) };
}

/** RouteColor with the contract's defaults for fields not given. */
export function routeColor(c: Partial<RouteColorRecord> | undefined): { a: number; r: number; g: number; b: number } {
  return { a: c?.A ?? 179, r: c?.R ?? 0, g: c?.G ?? 169, b: c?.B ?? 235 };
}

/** One map as a data URL: the dataset's roads as backdrop (when the context has them). */
export function drawMap(
  ctx: OpsContext, map: MapRequest, routes: MapRoute[], markers: { lat: number; lon: number; label: string }[], unit: DistanceUnitName,
): string {
  const svg = renderMapSvg(ctx.roads ?? null, {
    width: map.width, height: map.height, center: map.center, zoom: map.zoom, routes, markers,
    scaleUnit: unit === 'Mile' ? 'imperial' : 'metric',
  });
  return svgDataUrl(svg);
}

/** The operation-table entry point. */
export async function routeOp(ctx: OpsContext, spec: unknown, opts: OpOptions = {}): Promise<RouteResult> {
  // a long route, or one with maps (drawn per leg too), for a caller that keeps its thread free, runs on the executor
  const heavy = rawLength(spec, 'Locations') > ROUTE_INLINE_MAX_LOCATIONS || !!rawField(rawField(spec, 'RouteOptions'), 'MapSize');
  if (opts.offload && ctx.executor.offThread && heavy) {
    try {
      return await routeOffThread(ctx, spec, opts);
    } catch (e) {
      return failedFromError(e) as RouteResult;
    }
  }
  return calculateRoute(ctx, spec);
}
