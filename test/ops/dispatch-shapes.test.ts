/**
 * No-go polygons (Vehicle.Shapes, DoNotEnter / DoNotExit) on the Monaco fixture: stop
 * eligibility, paths that avoid the blocked roads (the record's legs are the restricted paths),
 * and the bad combinations reported with the field named.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { pointInPolygon } from '../../src/route/zones.js';
import type { DispatchResult } from '../../src/records/index.js';
import { fixtureDataset } from '../helpers/datasets.js';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 2 });
});
afterAll(() => engine.close());

const ll = (lat: number, lon: number) => ({ Latitude: lat, Longitude: lon });
const depot = { Name: 'Depot', LatLong: ll(43.7314, 7.42) };
// Monte-Carlo's centre (the Casino quarter).
const casinoZone = [ll(43.7375, 7.4245), ll(43.7375, 7.4310), ll(43.7420, 7.4310), ll(43.7420, 7.4245)];
const inside = [{ Name: 'Casino', LatLong: ll(43.7395, 7.428) }, { Name: 'Hotel de Paris', LatLong: ll(43.7392, 7.4265) }];
const outside = [
  { Name: 'Stade', LatLong: ll(43.7276, 7.4155) }, { Name: 'Port', LatLong: ll(43.735, 7.4225) },
  { Name: 'Jardin', LatLong: ll(43.7311, 7.4135) }, { Name: 'Larvotto', LatLong: ll(43.745, 7.4365) },
];
/** West of the zone: reachable without it (Larvotto, east of it, is not: its roads pass through). */
const west = outside.slice(0, 3);
const zonePts = casinoZone.map((p) => ({ lat: p.Latitude, lon: p.Longitude }));

const dispatch = (vehicles: unknown[], locations: unknown[]) =>
  engine.dispatch({ DistanceUnit: 'Kilometer', CurrentTime: '2026-12-01T09:00:00', Vehicles: vehicles, Locations: locations }, { seed: 1 });
const servedBy = (r: DispatchResult) => Object.fromEntries((r.Items ?? []).map((it) => [it.Vehicle!.Name, it.Locations!.map((l) => l.Name).filter((n) => n !== 'Depot')]));

describe('DoNotEnter', () => {
  it('stops inside go to the unrestricted vehicle; the restricted one serves the rest', async () => {
    const r = await dispatch([
      { Name: 'Free', StartLocation: depot, FinishLocation: depot, MaxStops: 0 },
      { Name: 'Fenced', StartLocation: depot, FinishLocation: depot, Shapes: [{ Points: casinoZone, Restriction: 'DoNotEnter' }] },
    ], [...inside, ...outside]);
    expect(r.Status, JSON.stringify(r.Errors)).toBe('Success');
    const by = servedBy(r);
    for (const n of by.Fenced ?? []) expect(inside.map((s) => s.Name)).not.toContain(n);
    const all = Object.values(by).flat().sort();
    expect(all).toEqual([...inside, ...outside].map((s) => s.Name).sort());
  });

  it("the restricted vehicle's legs are paths that avoid the zone's roads", async () => {
    const r = await dispatch([{ Name: 'Fenced', StartLocation: depot, FinishLocation: depot, Shapes: [{ Points: casinoZone }] }], west);
    expect(r.Status, JSON.stringify(r.Errors)).toBe('Success');
    const ctx = engine.context();
    const blocked = ctx.travel.blockedArcs([{ points: zonePts, restriction: 'DoNotEnter' }]);
    expect(blocked.some((b) => b === 1)).toBe(true);
    const L = r.Items![0].Locations!;
    for (let k = 1; k < L.length; k++) {
      const a = ctx.travel.place({ lat: L[k - 1].LatLong!.Latitude, lon: L[k - 1].LatLong!.Longitude }, 'a');
      const b = ctx.travel.place({ lat: L[k].LatLong!.Latitude, lon: L[k].LatLong!.Longitude }, 'b');
      const restricted = ctx.travel.route(a, b, { metric: 'time', blockedArcs: blocked }, true);
      expect(restricted.found).toBe(true);
      // the record's leg is the restricted path
      expect(L[k].Time).toBe(Math.round(restricted.timeMs / 1000));
      const free = ctx.travel.route(a, b, { metric: 'time' });
      expect(restricted.timeMs).toBeGreaterThanOrEqual(free.timeMs);
      // and no arc of it is one the zone blocks, nor has a point inside the zone
      const g = engine.dataset.graph;
      for (const arc of restricted.arcs ?? []) {
        expect(blocked[arc]).toBe(0);
        const lat: number[] = [], lon: number[] = [];
        g.arcGeometry(arc, lat, lon);
        lat.forEach((la, i) => expect(pointInPolygon(la, lon[i], zonePts)).toBe(false));
      }
    }
  });

  it('a stop inside the zone of every vehicle is left out and says why', async () => {
    const r = await dispatch([{ Name: 'Fenced', StartLocation: depot, FinishLocation: depot, Shapes: [{ Points: casinoZone }] }], [...inside.slice(0, 1), ...west]);
    expect(r.Status).toBe('SuccessWithErrors');
    expect(r.Errors!.map((e) => e.Message)).toEqual([
      "'Casino' (Locations[0]) was not dispatched: it lies inside a DoNotEnter zone or outside a DoNotExit zone of every vehicle (Vehicles[].Shapes)",
    ]);
  });
});

describe('DoNotExit', () => {
  it('the vehicle serves only stops inside and its paths stay inside', async () => {
    const big = [ll(43.7300, 7.4200), ll(43.7300, 7.4350), ll(43.7470, 7.4350), ll(43.7470, 7.4200)];
    const home = { Name: 'Depot', LatLong: ll(43.7395, 7.428) };
    const r = await dispatch([
      { Name: 'Local', StartLocation: home, FinishLocation: home, Shapes: [{ Points: big, Restriction: 'DoNotExit' }] },
      { Name: 'Any', StartLocation: home, FinishLocation: home },
    ], [...inside, ...outside]);
    expect(r.Status, JSON.stringify(r.Errors)).not.toBe('Failed');
    const bigPts = big.map((p) => ({ lat: p.Latitude, lon: p.Longitude }));
    for (const it of r.Items ?? []) {
      if (it.Vehicle!.Name !== 'Local') continue;
      for (const l of it.Locations!) expect(pointInPolygon(l.LatLong!.Latitude, l.LatLong!.Longitude, bigPts)).toBe(true);
    }
  });

  it('a DoNotExit zone with no stop inside is reported', async () => {
    const far = [ll(43.7250, 7.4100), ll(43.7250, 7.4120), ll(43.7265, 7.4120), ll(43.7265, 7.4100)];
    const r = await dispatch([
      { Name: 'Stuck', StartLocation: depot, FinishLocation: depot, Shapes: [{ Points: far, Restriction: 'DoNotExit' }] },
      { Name: 'Any', StartLocation: depot, FinishLocation: depot },
    ], outside);
    expect(r.Errors!.map((e) => e.Message)).toContain("Vehicles[0].Shapes[0]: the DoNotExit zone contains no stop; vehicle 'Stuck' can serve none");
    expect(Object.keys(servedBy(r))).toEqual(['Any']);
  });
});

describe('bad polygons', () => {
  it('fewer than 3 points, or self-intersecting: Failed, naming the field', async () => {
    const two = await dispatch([{ Name: 'V', StartLocation: depot, Shapes: [{ Points: casinoZone.slice(0, 2) }] }], outside);
    expect(two.Status).toBe('Failed');
    expect(two.Errors![0].Message).toMatch(/^Vehicles\[0\]\.Shapes\[0\]\.Points: /);
    const bowTie = [casinoZone[0], casinoZone[2], casinoZone[1], casinoZone[3]];
    const bt = await dispatch([{ Name: 'V', StartLocation: depot, Shapes: [{ Points: bowTie }] }], outside);
    expect(bt.Status).toBe('Failed');
    expect(bt.Errors![0].Message).toMatch(/^Vehicles\[0\]\.Shapes\[0\]\.Points: .*(cross|intersect)/);
  });
});
