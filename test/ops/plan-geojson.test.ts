/** A dispatch plan as GeoJSON on the Monaco fixture: one path per vehicle through its stops, as routed. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { pointInPolygon } from '../../src/route/zones.js';
import { fixtureDataset } from '../helpers/datasets.js';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 2 });
});
afterAll(() => engine.close());

const ll = (lat: number, lon: number) => ({ Latitude: lat, Longitude: lon });
const depot = { Name: 'Depot', LatLong: ll(43.7314, 7.42) };
const stops = [[43.7395, 7.428], [43.7276, 7.4155], [43.7335, 7.4205], [43.745, 7.4365], [43.7311, 7.4135], [43.739, 7.42]]
  .map(([la, lo], i) => ({ Name: `S${i}`, LatLong: ll(la, lo), Weight: 1 }));
const hav = (a: [number, number], b: [number, number]) => {
  const R = 6371008.8, rad = Math.PI / 180;
  const dLa = (b[1] - a[1]) * rad, dLo = (b[0] - a[0]) * rad;
  const h = Math.sin(dLa / 2) ** 2 + Math.cos(a[1] * rad) * Math.cos(b[1] * rad) * Math.sin(dLo / 2) ** 2;
  return 2 * R * Math.asin(Math.sqrt(h));
};

describe('dispatch plan as GeoJSON', () => {
  it('a LineString per vehicle from its first to its last location, as long as the record says; a Point per location', async () => {
    const spec = {
      DistanceUnit: 'Kilometer', CurrentTime: '2026-12-01T09:00:00',
      Vehicles: [{ Name: 'A', MaxWeight: 3, StartLocation: depot, FinishLocation: depot }, { Name: 'B', MaxWeight: 3, StartLocation: depot, FinishLocation: depot }],
      Locations: stops,
    };
    const r = await engine.dispatch(spec, { seed: 1 });
    expect(r.Status).toBe('Success');
    const fc = engine.dispatchGeoJson(spec, r);
    expect(fc.type).toBe('FeatureCollection');
    const lines = fc.features.filter((f) => f.properties.kind === 'vehicle-route');
    expect(lines.map((f) => f.properties.vehicle)).toEqual(r.Items!.map((it) => it.Vehicle!.Name));
    lines.forEach((f, i) => {
      expect(f.geometry?.type).toBe('LineString');
      const c = (f.geometry as { coordinates: [number, number][] }).coordinates;
      for (const [lo, la] of c) { expect(la).toBeGreaterThan(43.72); expect(la).toBeLessThan(43.76); expect(lo).toBeGreaterThan(7.40); expect(lo).toBeLessThan(7.45); }
      const L = r.Items![i].Locations!;
      expect(hav(c[0], [L[0].LatLong!.Longitude, L[0].LatLong!.Latitude])).toBeLessThan(100);
      expect(hav(c[c.length - 1], [L[L.length - 1].LatLong!.Longitude, L[L.length - 1].LatLong!.Latitude])).toBeLessThan(100);
      let m = 0;
      for (let k = 1; k < c.length; k++) m += hav(c[k - 1], c[k]);
      const km = L.reduce((a, l) => a + l.Distance, 0);
      expect(Math.abs(m / 1000 - km) / km).toBeLessThan(0.02);
      expect(f.properties.stops).toBe(3);
      const pts = fc.features.filter((p) => p.properties.kind === 'stop' && p.properties.index === i);
      expect(pts.map((p) => p.properties.Name)).toEqual(L.map((l) => l.Name));
    });
  });

  it("a vehicle with a no-go zone: its drawn path avoids the zone", async () => {
    const zone = [ll(43.7375, 7.4245), ll(43.7375, 7.4310), ll(43.7420, 7.4310), ll(43.7420, 7.4245)];
    const spec = {
      DistanceUnit: 'Kilometer', Vehicles: [{ Name: 'Fenced', StartLocation: depot, FinishLocation: depot, Shapes: [{ Points: zone }] }],
      Locations: [stops[1], stops[2], stops[4]],
    };
    const r = await engine.dispatch(spec, { seed: 1 });
    expect(r.Status, JSON.stringify(r.Errors)).toBe('Success');
    const line = engine.dispatchGeoJson(spec, r).features.find((f) => f.properties.kind === 'vehicle-route')!;
    const zp = zone.map((p) => ({ lat: p.Latitude, lon: p.Longitude }));
    for (const [lo, la] of (line.geometry as { coordinates: [number, number][] }).coordinates) expect(pointInPolygon(la, lo, zp)).toBe(false);
  });

  it('a failed dispatch gives no features', async () => {
    const bad = await engine.dispatch({ Vehicles: [{ Name: 'V', StartLocation: depot, Shapes: [{ Points: [ll(0, 0), ll(0, 1)] }] }], Locations: stops });
    expect(bad.Status).toBe('Failed');
    expect(engine.dispatchGeoJson({}, bad).features).toEqual([]);
  });
});
