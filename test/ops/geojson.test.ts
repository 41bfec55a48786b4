/** Route results as GeoJSON and encoded polylines. */
import { describe, expect, it } from 'vitest';
import { routePolyline, routeResultToGeoJson } from '../../src/ops/geojson.js';
import { decodePolyline } from '../../src/core/polyline.js';
import { RouteResultSchema, type RouteResult } from '../../src/records/index.js';

const parsed = RouteResultSchema.safeParse({
  Status: 'Success',
  Route: {
    Distance: 1.23456, Time: 300,
    Points: [{ Latitude: 43.7395, Longitude: 7.428 }, { Latitude: 43.735, Longitude: 7.42 }, { Latitude: 43.7276, Longitude: 7.4155 }],
    RouteLegs: [
      { Distance: 0.5, Time: 100, Itinerary: { Items: [{ Distance: 0.5, Time: 100, Text: 'Head south', LatLong: { Latitude: 43.7395, Longitude: 7.428 }, Warnings: [{ Severity: 'Minor', Text: 'toll' }] }] } },
      { Distance: 0.73456, Time: 200 },
    ],
  },
});
if (!parsed.ok) throw new TypeError(JSON.stringify(parsed.issues));
const result = parsed.value as RouteResult;

describe('route GeoJSON', () => {
  it('has the route line in [lon, lat], a feature per leg and a point per maneuver', () => {
    const fc = routeResultToGeoJson(result);
    expect(fc.type).toBe('FeatureCollection');
    const [route, leg0, man, leg1] = fc.features;
    expect(route.geometry).toEqual({ type: 'LineString', coordinates: [[7.428, 43.7395], [7.42, 43.735], [7.4155, 43.7276]] });
    expect(route.properties).toMatchObject({ kind: 'route', Distance: 1.23456, Time: 300 });
    expect(leg0).toMatchObject({ geometry: null, properties: { kind: 'leg', leg: 0, Time: 100 } });
    expect(man).toMatchObject({ geometry: { type: 'Point', coordinates: [7.428, 43.7395] }, properties: { kind: 'maneuver', Text: 'Head south', Warnings: [{ Severity: 'Minor', Text: 'toll' }] } });
    expect(leg1.properties).toMatchObject({ kind: 'leg', leg: 1 });
    expect(JSON.parse(JSON.stringify(fc))).toEqual(fc); // plain JSON
  });

  it('a RoutesResult gives every route in order; a failed one gives none', () => {
    const fc = routeResultToGeoJson({ Status: 'SuccessWithErrors', Errors: [], Results: [result, { Status: 'Failed', Errors: [] } as unknown as RouteResult, result] } as never);
    expect(fc.features.filter((f) => f.properties.kind === 'route').map((f) => f.properties.route)).toEqual([0, 2]);
  });

  it('encodes the route as a polyline at 5 and 6 decimals', () => {
    for (const p of [5, 6] as const) {
      const back = decodePolyline(routePolyline(result.Route!, p), p);
      expect(back.map((x) => [x.lat, x.lon])).toEqual([[43.7395, 7.428], [43.735, 7.42], [43.7276, 7.4155]]);
    }
  });
});
