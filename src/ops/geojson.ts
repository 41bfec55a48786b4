/**
 * Route results as GeoJSON (RFC 7946: [longitude, latitude], WGS 84) and as encoded polylines,
 * for maps and for tools that read routes in those forms. A FeatureCollection holds, per route,
 * a LineString of its Points (properties: kind 'route', route index, Distance, Time), one
 * feature per leg (kind 'leg', its Distance and Time; no geometry of its own in the record, so
 * `geometry: null` as RFC 7946 allows) and a Point per itinerary item (kind 'maneuver': Text,
 * Distance, Time, Warnings, Hints). Coordinates keep 7 decimals (about 1 cm).
 */
import { encodePolyline, type PolylinePrecision } from '../core/polyline.js';
import type { Route, RouteResult, RoutesResult } from '../records/index.js';

export interface GeoJsonFeature {
  type: 'Feature';
  geometry: { type: 'LineString'; coordinates: [number, number][] } | { type: 'MultiLineString'; coordinates: [number, number][][] }
    | { type: 'Point'; coordinates: [number, number] } | null;
  properties: Record<string, unknown>;
}

export interface GeoJsonFeatureCollection {
  type: 'FeatureCollection';
  features: GeoJsonFeature[];
}

const r7 = (x: number): number => Math.round(x * 1e7) / 1e7;

function routeFeatures(route: Route, routeIndex: number): GeoJsonFeature[] {
  const out: GeoJsonFeature[] = [];
  const coords = (route.Points ?? []).map((p) => [r7(p.Longitude), r7(p.Latitude)] as [number, number]);
  out.push({
    type: 'Feature',
    geometry: coords.length >= 2 ? { type: 'LineString', coordinates: coords } : null,
    properties: { kind: 'route', route: routeIndex, Distance: route.Distance, Time: route.Time },
  });
  (route.RouteLegs ?? []).forEach((leg, li) => {
    out.push({ type: 'Feature', geometry: null, properties: { kind: 'leg', route: routeIndex, leg: li, Distance: leg.Distance, Time: leg.Time } });
    (leg.Itinerary?.Items ?? []).forEach((it, k) => {
      out.push({
        type: 'Feature',
        geometry: it.LatLong ? { type: 'Point', coordinates: [r7(it.LatLong.Longitude), r7(it.LatLong.Latitude)] } : null,
        properties: { kind: 'maneuver', route: routeIndex, leg: li, index: k, Text: it.Text ?? '', Distance: it.Distance, Time: it.Time, Warnings: it.Warnings ?? [], Hints: it.Hints ?? [] },
      });
    });
  });
  return out;
}

/** A RouteResult (one route) or a RoutesResult (every route, in order) as a FeatureCollection. Failed results give no features. */
export function routeResultToGeoJson(result: RouteResult | RoutesResult): GeoJsonFeatureCollection {
  const routes: (Route | undefined)[] = 'Results' in result ? (result.Results ?? []).map((r) => r.Route) : [(result as RouteResult).Route];
  const features: GeoJsonFeature[] = [];
  routes.forEach((r, i) => { if (r) features.push(...routeFeatures(r, i)); });
  return { type: 'FeatureCollection', features };
}

/** A route's Points as an encoded polyline (precision 5, or 6 as OSRM's polyline6). */
export function routePolyline(route: Route, precision: PolylinePrecision = 5): string {
  return encodePolyline(route.Points ?? [], precision);
}
