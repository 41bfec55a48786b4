/** CalculateRoute / CalculateRoutes on the Monaco fixture: legs, sums, points, equality with CalculateDistance, bad input. */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { calculateRoute } from '../../src/ops/route.js';
import type { TravelProvider } from '../../src/route/travel.js';
import { fixtureDataset } from '../helpers/datasets.js';
import { A, B, C, loc, reachablePool, type LL } from '../helpers/monaco-stops.js';

let engine: Engine;
/** Grid points that snap and reach each other both ways under both metrics. */
let pool: LL[] = [];

beforeAll(async () => {
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 2 });
  pool = reachablePool(engine);
});
afterAll(() => engine.close());

describe('CalculateRoute', () => {
  it('has a usable pool of stops', () => {
    expect(pool.length, JSON.stringify(pool)).toBeGreaterThanOrEqual(6);
  });

  it('random 2–5 stop routes: legs equal CalculateDistance, sum to the route; points start and end at the snapped stops', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat(), { minLength: 2, maxLength: 5 }),
        fc.constantFrom('MinimizeTime', 'MinimizeDistance'),
        fc.constantFrom('Mile', 'Kilometer'),
        async (idx, RouteOptimize, DistanceUnit) => {
          const stops = idx.map((i) => pool[i % pool.length]);
          const r = await engine.calculateRoute({ Locations: stops.map(loc), RouteOptions: { RouteOptimize, DistanceUnit } });
          expect(r.Status).toBe('Success');
          const route = r.Route!;
          const legs = route.RouteLegs!;
          expect(legs).toHaveLength(stops.length - 1);
          legs.forEach((leg, i) => {
            const d = engine.calculateDistance({ StartLocation: loc(stops[i]), FinishLocation: loc(stops[i + 1]), RouteOptimize, DistanceUnit });
            expect(leg.Distance).toBe(d.Distance);
            expect(leg.Time).toBe(d.Time);
            expect(Number.isInteger(leg.Time)).toBe(true);
          });
          expect(route.Time).toBe(legs.reduce((s, l) => s + l.Time, 0));
          expect(Math.abs(route.Distance - legs.reduce((s, l) => s + l.Distance, 0))).toBeLessThanOrEqual(1e-5);
          if (stops.length === 2) {
            const d = engine.calculateDistance({ StartLocation: loc(stops[0]), FinishLocation: loc(stops[1]), RouteOptimize, DistanceUnit });
            expect(route.Distance).toBe(d.Distance);
            expect(route.Time).toBe(d.Time);
          }
          const pts = route.Points!;
          expect(pts.length).toBeGreaterThanOrEqual(2);
          const first = engine.placeLocation(loc(stops[0]) as never, 'x').snap;
          const last = engine.placeLocation(loc(stops[stops.length - 1]) as never, 'x').snap;
          expect(pts[0].Latitude).toBeCloseTo(first.lat, 6);
          expect(pts[0].Longitude).toBeCloseTo(first.lon, 6);
          expect(pts[pts.length - 1].Latitude).toBeCloseTo(last.lat, 6);
          expect(pts[pts.length - 1].Longitude).toBeCloseTo(last.lon, 6);
          for (const p of pts) {
            expect(Math.round(p.Latitude * 1e7) / 1e7).toBe(p.Latitude);
            expect(Math.round(p.Longitude * 1e7) / 1e7).toBe(p.Longitude);
          }
          for (let k = 1; k < pts.length && pts.length > 2; k++) {
            expect(pts[k].Latitude === pts[k - 1].Latitude && pts[k].Longitude === pts[k - 1].Longitude).toBe(false);
          }
        },
      ),
      { numRuns: 30, seed: 20261123 },
    );
  });

  it('MinimizeDistance is never longer than MinimizeTime', async () => {
    const t = await engine.calculateRoute({ Locations: [loc(A), loc(B), loc(C)], RouteOptions: { DistanceUnit: 'Kilometer' } });
    const d = await engine.calculateRoute({ Locations: [loc(A), loc(B), loc(C)], RouteOptions: { DistanceUnit: 'Kilometer', RouteOptimize: 'MinimizeDistance' } });
    expect(d.Route!.Distance).toBeLessThanOrEqual(t.Route!.Distance + 1e-9);
  });

  it('bad input: fewer than two locations, an unplaceable stop, a malformed record; never throws', async () => {
    const one = await engine.calculateRoute({ Locations: [loc(A)] });
    expect(one.Status).toBe('Failed');
    expect(one.Errors![0].Message).toContain('Locations: needs at least two locations');
    const none = await engine.calculateRoute({});
    expect(none.Status).toBe('Failed');
    const far = await engine.calculateRoute({ Locations: [loc(A), loc({ Latitude: 40, Longitude: 3 }), loc(B)] });
    expect(far.Status).toBe('Failed');
    expect(far.Errors![0].Message).toMatch(/^Locations\[1\]/);
    const empty = await engine.calculateRoute({ Locations: [loc(A), {}] });
    expect(empty.Status).toBe('Failed');
    expect(empty.Errors![0].Message).toMatch(/^Locations\[1\]/);
    const bad = await engine.calculateRoute({ Locations: 'nope' });
    expect(bad.Status).toBe('Failed');
    expect((await engine.calculateRoute(null)).Status).toBe('Failed');
  });

  it('a leg with no drivable route fails naming the leg by its destination (a field of the request)', () => {
    const ctx = engine.context();
    const t = ctx.travel;
    let calls = 0;
    const travel: TravelProvider = {
      place: (q, p) => t.place(q, p), placeMany: (q, o) => t.placeMany(q, o), route: (a, b, p, w) => t.route(a, b, p, w), matrix: (ps, p, o) => t.matrix(ps, p, o),
      blockedArcs: (z) => t.blockedArcs(z),
      routePath: (a, b, p, d) => (calls++ === 1 ? { found: false, timeMs: Infinity, lengthCm: Infinity, lat: new Float64Array(0), lon: new Float64Array(0) } : t.routePath(a, b, p, d)),
    };
    const r = calculateRoute({ ...ctx, travel }, { Locations: [loc(A), loc(B), loc(C)] });
    expect(r.Status).toBe('Failed');
    expect(r.Errors![0].Message).toBe('Locations[2]: no drivable route from Locations[1] to it [NoRoute]');
    expect(r.Route).toBeUndefined();
  });

});

describe('CalculateRoutes', () => {
  const specs = (): unknown[] => {
    const out: unknown[] = [];
    for (let i = 0; i < 11; i++) {
      const stops = [pool[i % pool.length], pool[(i * 3 + 1) % pool.length], pool[(i * 5 + 2) % pool.length]].slice(0, 2 + (i % 2));
      out.push({ Locations: stops.map(loc), ...(i % 3 === 0 ? { RouteOptions: { DistanceUnit: 'Kilometer' } } : {}) });
    }
    return out;
  };

  it('equals individual CalculateRoute calls, in order, with and without the executor', async () => {
    const list = specs();
    const individual = await Promise.all(list.map((s) => engine.calculateRoute(s)));
    const few = await engine.calculateRoutes({ Specifications: list.slice(0, 3) });
    expect(few.Status).toBe('Success');
    expect(few.Results).toEqual(individual.slice(0, 3));
    const fewOff = await engine.calculateRoutes({ Specifications: list.slice(0, 3) }, { offload: true });
    expect(fewOff).toEqual(few);
    const many = await engine.calculateRoutes({ Specifications: list });
    expect(many.Results).toEqual(individual);
    expect(await engine.calculateRoutes({ Specifications: list }, { offload: false })).toEqual(many);
    expect(await engine.calculateRoutes({ Specifications: list }, { offload: true })).toEqual(many);
  });

  it('a failed specification does not fail the others; Errors name it', async () => {
    for (const offload of [false, true]) {
      const r = await engine.calculateRoutes({ Specifications: [{ Locations: [loc(A), loc(B)] }, { Locations: [loc(A)] }, { Locations: [loc(B), loc(C)] }] }, { offload });
      expect(r.Status).toBe('SuccessWithErrors');
      expect(r.Results!.map((x) => x.Status)).toEqual(['Success', 'Failed', 'Success']);
      expect(r.Errors).toHaveLength(1);
      expect(r.Errors![0].Message).toMatch(/^Specifications\[1\]\.Locations: needs at least two locations/);
    }
    const all = await engine.calculateRoutes({ Specifications: [{ Locations: [] }] });
    expect(all.Status).toBe('Failed');
    expect((await engine.calculateRoutes({ Specifications: 3 })).Status).toBe('Failed');
    expect((await engine.calculateRoutes({ RoutesOptions: { DistanceUnit: 'Furlong' } })).Status).toBe('Failed');
    expect(await engine.calculateRoutes({ Specifications: [] })).toMatchObject({ Status: 'Success', Results: [] });
  });

  it("a Specification's RouteOptions override RoutesOptions field by field", async () => {
    const stops = [loc(A), loc(B), loc(C)];
    const r = await engine.calculateRoutes({
      RoutesOptions: { DistanceUnit: 'Kilometer', RouteOptimize: 'MinimizeDistance' },
      Specifications: [
        { Locations: stops },
        { Locations: stops, RouteOptions: { DistanceUnit: 'Mile' } },
        { Locations: stops, RouteOptions: { routeoptimize: 'MinimizeTime' } },
      ],
    });
    const one = async (o: Record<string, string>) => (await engine.calculateRoute({ Locations: stops, RouteOptions: o }));
    expect(r.Results![0]).toEqual(await one({ DistanceUnit: 'Kilometer', RouteOptimize: 'MinimizeDistance' }));
    expect(r.Results![1]).toEqual(await one({ DistanceUnit: 'Mile', RouteOptimize: 'MinimizeDistance' }));
    expect(r.Results![2]).toEqual(await one({ DistanceUnit: 'Kilometer', RouteOptimize: 'MinimizeTime' }));
    // Without RoutesOptions the defaults apply (Mile, MinimizeTime).
    const d = await engine.calculateRoutes({ Specifications: [{ Locations: stops }] });
    expect(d.Results![0]).toEqual(await one({}));
    expect(d.Results![0]).toEqual(await one({ DistanceUnit: 'Mile', RouteOptimize: 'MinimizeTime' }));
  });
});
