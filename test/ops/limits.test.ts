/**
 * The limits of the operations (src/ops/limits.ts, docs/limits.md): every size refusal is TooBig,
 * named by the request's field, saying the limit and how to split — and decided from counts
 * before anything is placed, geocoded or allocated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { dispatchOp } from '../../src/ops/dispatch/index.js';
import { routeOp } from '../../src/ops/route.js';
import { routesOp } from '../../src/ops/routes.js';
import { geocodeOp } from '../../src/ops/geocode.js';
import type { OpsContext } from '../../src/ops/context.js';
import type { TravelProvider } from '../../src/route/travel.js';
import { searchScratchBytes } from '../../src/matrix/compute.js';
import {
  DEFAULT_MAX_MATRIX_BYTES, MAX_DISPATCH_PLACES, rawDispatchIssues, MAX_DISPATCH_VEHICLES, MAX_GEOCODE_ADDRESSES, MAX_MINIMUM_OPTIMIZATION, MAX_ROUTE_LOCATIONS,
  MAX_ROUTES_LOCATIONS, MAX_ROUTES_SPECIFICATIONS, dispatchMemoryBytes, dispatchSizeIssue, fieldLimits, maxDispatchPlaces,
} from '../../src/ops/limits.js';
import { fixtureDataset } from '../helpers/datasets.js';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 2 });
});
afterAll(() => engine.close());

const DEPOT = { Name: 'Depot', LatLong: { Latitude: 43.7314, Longitude: 7.42 } };
/** `n` stops on a grid over Monaco (not all on a road: none is ever placed in these tests). */
const grid = (n: number) => Array.from({ length: n }, (_, i) => ({
  Name: `S${i}`, LatLong: { Latitude: 43.727 + (i % 300) * 0.00006, Longitude: 7.411 + Math.floor(i / 300) * 0.00007 }, Weight: 1,
}));
const dispatchSpec = (stops: number, extra: Record<string, unknown> = {}) => ({
  CurrentTime: '2026-12-01T08:00:00', MinimumOptimization: 1, Vehicles: [{ Name: 'V', StartLocation: DEPOT, FinishLocation: DEPOT }], Locations: grid(stops), ...extra,
});

/** The engine's context with a travel provider that counts what it is asked to do. */
function counting(over: Partial<OpsContext> = {}): { ctx: OpsContext; calls: Record<string, number> } {
  const base = engine.context();
  const t = base.travel;
  const calls: Record<string, number> = { place: 0, placeMany: 0, matrix: 0, matrixRounded: 0, route: 0 };
  const travel: TravelProvider = {
    place: (q, p) => { calls.place++; return t.place(q, p); },
    placeMany: (q, o) => { calls.placeMany++; return t.placeMany(q, o); },
    route: (a, b, p, w) => { calls.route++; return t.route(a, b, p, w); },
    routePath: (a, b, p, d) => { calls.route++; return t.routePath(a, b, p, d); },
    blockedArcs: (z) => t.blockedArcs(z),
    matrix: (ps, p, o) => { calls.matrix++; return t.matrix(ps, p, o); },
    matrixRounded: (ps, p, o) => { calls.matrixRounded++; return t.matrixRounded!(ps, p, o); },
  };
  return { ctx: { ...base, travel, ...over }, calls };
}

const messages = (r: { Errors?: { Message?: string }[] }): string[] => (r.Errors ?? []).map((e) => e.Message ?? '');
const rawOnly = (spec: unknown) => rawDispatchIssues(spec);
const idle = { place: 0, placeMany: 0, matrix: 0, matrixRounded: 0, route: 0 };

describe('Dispatch size refusals', () => {
  it('a 100,000-stop Dispatch on Monaco is Failed/TooBig in well under a second, with nothing placed or allocated', async () => {
    const spec = dispatchSpec(100_000);
    const { ctx, calls } = counting();
    const t0 = performance.now();
    const r = await dispatchOp(ctx, spec);
    const ms = performance.now() - t0;
    expect(r.Status).toBe('Failed');
    expect(messages(r)).toEqual([expect.stringMatching(/^Locations: holds 100000 Locations; one Dispatch takes at most 32768 places .*split the stops into several Dispatches.* \[TooBig\]$/)]);
    expect(calls).toEqual(idle);
    expect(ms).toBeLessThan(1000); // measured: well under 10 ms (a count of the raw list, before parsing)
    // The same through the operation table, as the service calls it (and offloaded: the worker's prepare task refuses it).
    const t1 = performance.now();
    expect(messages(await engine.run('Dispatch', spec))).toEqual(messages(r));
    expect(messages(await engine.run('Dispatch', spec, { offload: true }))).toEqual(messages(r));
    expect(performance.now() - t1).toBeLessThan(5000);
  });

  it('a 30,000-stop Dispatch: its travel matrix alone is past maxMatrixBytes, refused before parsing', async () => {
    const { ctx, calls } = counting();
    const spec = dispatchSpec(30_000);
    const t0 = performance.now();
    const r = await dispatchOp(ctx, spec);
    const ms = performance.now() - t0;
    expect(r.Status).toBe('Failed');
    const [m] = messages(r);
    expect(m).toMatch(/^Locations: holds 30000 places; their travel matrix alone would need at least 3\.4 GiB; the limit is 2\.0 GiB \(maxMatrixBytes\), about \d+ places: split the stops into several Dispatches .*\[TooBig\]$/);
    expect(calls).toEqual(idle);
    expect(ms).toBeLessThan(1000); // was 2.8 s of placement before a TooBig from the matrix kernel
    const most = Number(/about (\d+) places/.exec(m)![1]);
    expect(most).toBeGreaterThan(22_000);
    expect(most).toBeLessThan(24_000);
    // Breaks are not counted (they may have no place): 30,000 Breaks pass this check
    const breaks = rawOnly(dispatchSpec(0, { Locations: Array.from({ length: 30_000 }, () => ({ LocationType: 'break', Wait: 60 })) }));
    expect(breaks).toEqual([]);
  });

  it('after parsing, the full estimate (here 10,000 stops around two sets of Shapes) is refused before placing', async () => {
    const square = (k: number) => ({ Points: [0, 1, 2, 3].map((c) => ({ Latitude: 43.70 + 0.001 * k + (c >> 1) * 0.0005, Longitude: 7.40 + ((c ^ (c >> 1)) & 1) * 0.0005 })) });
    const { ctx, calls } = counting();
    const r = await dispatchOp(ctx, dispatchSpec(10_000, { Vehicles: [0, 1].map((k) => ({ Name: `V${k}`, StartLocation: DEPOT, Shapes: [square(k)] })) }));
    expect(messages(r)).toEqual([expect.stringMatching(/^Locations: the Dispatch's 10002 places would need about 5\.2 GiB for travel matrices and the solver's tables \(2 distinct sets of Shapes\); the limit is 2\.0 GiB \(maxMatrixBytes\), about \d+ places of this kind: split the stops .*\[TooBig\]$/)]);
    expect(calls).toEqual(idle);
  });

  it('a small maxMatrixBytes refuses a small Dispatch before placing, naming the limit', async () => {
    // 196 KiB: less than the matrix search's own scratch on Monaco
    const { ctx, calls } = counting({ maxMatrixBytes: 200_000 });
    const r = await dispatchOp(ctx, dispatchSpec(20));
    expect(messages(r)).toEqual([expect.stringMatching(/^Locations: the Dispatch's 22 places would need about \d+ KiB .*the limit is 196 KiB \(maxMatrixBytes\), too small for any Dispatch on this road network: raise it \[TooBig\]$/)]);
    expect(calls).toEqual(idle);
  });

  it('stops left unplaced past roundedMatrixFrom take the fractional path: checked again after placing, before the matrix', async () => {
    const n = 40; // 38 stops + depot twice
    const scratch = searchScratchBytes(engine.dataset.graph.numNodes, n, true, 0);
    const size = { places: n, zoneSets: 0, speedProfiles: 0, stops: n - 2, modelVehicles: 1, scratchBytes: scratch };
    const rounded = dispatchMemoryBytes({ ...size, rounded: true });
    const fractional = dispatchMemoryBytes({ ...size, rounded: false });
    expect(fractional).toBeGreaterThan(rounded);
    const limit = Math.round((rounded + fractional) / 2);
    const spec = dispatchSpec(n - 2);
    // every stop placed: the rounded estimate fits, the dispatch runs
    const ok = counting({ roundedMatrixFrom: 10, maxMatrixBytes: limit });
    const placedSpec = { ...spec, Locations: spec.Locations.map((l, i) => ({ ...l, LatLong: [DEPOT.LatLong, { Latitude: 43.7395, Longitude: 7.428 }, { Latitude: 43.7276, Longitude: 7.4155 }][i % 3] })) };
    const r1 = await dispatchOp(ok.ctx, placedSpec, { seed: 1 });
    expect(r1.Status, messages(r1).join('\n')).toBe('Success');
    expect(ok.calls.matrixRounded).toBe(1);
    // one stop without a place: refused after placing, no matrix computed
    const bad = counting({ roundedMatrixFrom: 10, maxMatrixBytes: limit });
    const r2 = await dispatchOp(bad.ctx, { ...placedSpec, Locations: [...placedSpec.Locations.slice(1), { Name: 'Nowhere' }] }, { seed: 1 });
    expect(messages(r2)).toEqual([expect.stringMatching(/^Locations: the Dispatch's 40 places would need .*\[TooBig\]$/)]);
    expect(bad.calls.placeMany).toBe(1);
    expect(bad.calls.matrix + bad.calls.matrixRounded).toBe(0);
  });

  it('more than 2,000 Vehicles, and Shapes past their limits, are TooBig naming the field', async () => {
    const many = await dispatchOp(engine.context(), dispatchSpec(3, { Vehicles: Array.from({ length: MAX_DISPATCH_VEHICLES + 1 }, (_, i) => ({ Name: `V${i}` })) }));
    expect(messages(many)).toEqual([expect.stringMatching(/^Vehicles: holds 2001 Vehicles; one Dispatch takes at most 2000: split the fleet .*\[TooBig\]$/)]);
    const square = (k: number) => ({ Points: [0, 1, 2, 3].map((c) => ({ Latitude: 43.70 + 0.001 * k + (c >> 1) * 0.0005, Longitude: 7.40 + ((c ^ (c >> 1)) & 1) * 0.0005 })) });
    const shapes = await dispatchOp(engine.context(), dispatchSpec(3, { Vehicles: [{ Name: 'V', StartLocation: DEPOT, Shapes: Array.from({ length: 21 }, (_, k) => square(k)) }] }));
    expect(messages(shapes)).toEqual([expect.stringMatching(/^Vehicles\[0\]\.Shapes: holds 21 Shapes; a Vehicle takes at most 20: .*\[TooBig\]$/)]);
    const circle = { Points: Array.from({ length: 501 }, (_, i) => ({ Latitude: 43.73 + 0.001 * Math.sin((2 * Math.PI * i) / 501), Longitude: 7.42 + 0.001 * Math.cos((2 * Math.PI * i) / 501) })) };
    const points = await dispatchOp(engine.context(), dispatchSpec(3, { Vehicles: [{ Name: 'V', StartLocation: DEPOT, Shapes: [circle] }] }));
    expect(messages(points)).toEqual([expect.stringMatching(/^Vehicles\[0\]\.Shapes\[0\]\.Points: holds 501 points; a Shape takes at most 500: simplify the polygon \[TooBig\]$/)]);
    const sets = await dispatchOp(engine.context(), dispatchSpec(3, { Vehicles: Array.from({ length: 17 }, (_, k) => ({ Name: `V${k}`, StartLocation: DEPOT, Shapes: [square(k)] })) }));
    expect(messages(sets)).toEqual([expect.stringMatching(/^Vehicles\[16\]\.Shapes: is the 17th distinct set of Shapes among the Vehicles; one Dispatch takes at most 16 .*\[TooBig\]$/)]);
  });

  it('the 10,000-stop Porto dispatch of the benchmarks (100 vehicles, rounded matrix) fits the default bound; 16,000 places do not', () => {
    const porto = { places: 10_200, rounded: true, zoneSets: 0, speedProfiles: 0, stops: 10_000, modelVehicles: 100 };
    expect(dispatchSizeIssue(porto)).toBeNull();
    expect(dispatchMemoryBytes(porto)).toBeLessThan(DEFAULT_MAX_MATRIX_BYTES / 2);
    expect(dispatchSizeIssue({ ...porto, places: 17_000 })?.message).toMatch(/would need about 2\.2 GiB/);
    expect(maxDispatchPlaces(porto, DEFAULT_MAX_MATRIX_BYTES)).toBeGreaterThan(16_000);
    // the same places around two sets of Shapes (each a matrix of its own): refused
    expect(dispatchSizeIssue({ ...porto, zoneSets: 2 })?.message).toMatch(/2 distinct sets of Shapes/);
    // the places limit keeps the matrix within the kernel's 2^30 cells
    expect(MAX_DISPATCH_PLACES ** 2).toBeLessThanOrEqual(2 ** 30);
  });
});

describe('route and geocode size refusals', () => {
  const ll = { LatLong: { Latitude: 43.7395, Longitude: 7.428 } };
  it('CalculateRoute past 1,000 Locations: TooBig before placing', async () => {
    const { ctx, calls } = counting();
    const r = await routeOp(ctx, { Locations: Array.from({ length: MAX_ROUTE_LOCATIONS + 1 }, () => ll) });
    expect(messages(r)).toEqual(['Locations: holds 1001 Locations; one CalculateRoute takes at most 1000: split the route into consecutive parts (the last stop of one is the first of the next) [TooBig]']);
    expect(calls).toEqual(idle);
  });

  it('CalculateRoutes past 250 Specifications or 1,000 Locations in all (as one CalculateRoute): TooBig before routing', async () => {
    const { ctx, calls } = counting();
    const specs = await routesOp(ctx, { Specifications: Array.from({ length: MAX_ROUTES_SPECIFICATIONS + 1 }, () => ({ Locations: [ll, ll] })) });
    expect(messages(specs)).toEqual([expect.stringMatching(/^Specifications: holds 251 RouteSpecifications; one CalculateRoutes takes at most 250: split them over several calls \[TooBig\]$/)]);
    const locs = await routesOp(ctx, { Specifications: Array.from({ length: 11 }, () => ({ Locations: Array.from({ length: 1000 }, () => ll) })) });
    expect(messages(locs)).toEqual([`Specifications: hold 11000 Locations together; one CalculateRoutes takes at most ${MAX_ROUTES_LOCATIONS}: split the Specifications over several calls [TooBig]`]);
    const justOver = await routesOp(ctx, { Specifications: [{ Locations: [ll, ll] }, { Locations: Array.from({ length: 999 }, () => ll) }] });
    expect(messages(justOver)).toEqual([`Specifications: hold 1001 Locations together; one CalculateRoutes takes at most ${MAX_ROUTES_LOCATIONS}: split the Specifications over several calls [TooBig]`]);
    expect(calls).toEqual(idle);
  });

  it('Geocode past 100,000 Addresses: TooBig from the raw list, before parsing it', async () => {
    const addresses = Array.from({ length: MAX_GEOCODE_ADDRESSES + 1 }, () => 'not even an Address record');
    const t0 = performance.now();
    const r = await geocodeOp(engine.context(), { Addresses: addresses });
    expect(messages(r)).toEqual(['Addresses: holds 100001 Addresses; one Geocode call takes at most 100000 (split the batch) [TooBig]']);
    expect(performance.now() - t0).toBeLessThan(1000);
  });
});

describe('the limits in one place', () => {
  it('fieldLimits lists the schema bounds: MinimumOptimization 1..10 and the other knobs', () => {
    const byPath = Object.fromEntries(fieldLimits().map((f) => [f.path, [f.min, f.max]]));
    expect(byPath['DispatchSpecification.MinimumOptimization']).toEqual([1, MAX_MINIMUM_OPTIMIZATION]);
    expect(MAX_MINIMUM_OPTIMIZATION).toBe(10);
    expect(byPath['Vehicle.Speed']).toEqual([0, 1000]);
    expect(byPath['Vehicle.MaxMinutes']).toEqual([0, 20160]);
    expect(byPath['Location.Wait']).toEqual([0, 86400]);
    expect(byPath['Location.Priority']).toEqual([-1_000_000, 1_000_000]);
    expect(byPath['Location.Weight']).toEqual([0, 1e12]);
    // plain types keep their own range and are not listed
    expect(byPath['Location.Time']).toBeUndefined();
    expect(byPath['RouteColor.A']).toBeUndefined();
  });

  it('MinimumOptimization out of 1..10 fails the Dispatch naming the field, before placing', async () => {
    for (const [mo, got] of [[0, '0'], [11, '11'], [1e9, '1000000000'], [-5, '-5']] as const) {
      const { ctx, calls } = counting();
      const r = await dispatchOp(ctx, dispatchSpec(3, { MinimumOptimization: mo }));
      expect(r.Status).toBe('Failed');
      expect(messages(r)).toEqual([`MinimumOptimization: must be between 1 and 10 (got ${got})`]);
      expect(calls).toEqual(idle);
    }
  });
});
