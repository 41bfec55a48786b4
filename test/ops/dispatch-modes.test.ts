/**
 * DispatchModes on one fixed instance (flat-plane matrices, every plan through the independent
 * checker): each mode's defining property against Optima on the same input (docs/dispatch-modes.md),
 * Auto's choice, and every mode end to end on the Monaco fixture.
 */
import { area, convex, featureCollection, intersect, point, union } from '@turf/turf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.js';
import { Engine } from '../../src/engine.js';
import { chooseDispatchMode } from '../../src/ops/dispatch/modes.js';
import { DispatchSpecificationSchema, type DispatchResult, type DispatchSpecificationInput } from '../../src/records/index.js';
import { fixtureDataset } from '../helpers/datasets.js';
import { dispatchOnPlane, ll } from '../helpers/plane.js';

/** The plan on the flat plane, checked; Auto's choice (the `dispatch-mode` event) into `events`. */
function run(raw: DispatchSpecificationInput, events?: unknown[]): Promise<DispatchResult> {
  return dispatchOnPlane(raw, { onProgress: (e) => { if (e.phase === 'dispatch-mode') events?.push(e.info); } });
}

interface Plan { stops: number[]; km: number[]; hours: number[]; travelS: number; vehicles: number }
/** Per used vehicle: stops served, km driven, working time (first → last arrival incl. service); total driving time. */
function plan(r: DispatchResult): Plan {
  expect(r.Status).toBe('Success');
  const items = r.Items ?? [];
  const stops: number[] = [], km: number[] = [], hours: number[] = [];
  let travelS = 0;
  for (const it of items) {
    const L = it.Locations ?? [];
    stops.push(L.filter((l) => l.Name !== 'Depot').length);
    km.push(L.reduce((a, l) => a + l.Distance, 0));
    travelS += L.reduce((a, l) => a + l.Time, 0);
    hours.push((Date.parse(`${L[L.length - 1].TimeEstimatedArrival}Z`) - Date.parse(`${L[0].TimeEstimatedArrival}Z`)) / 3.6e6);
  }
  return { stops, km, hours, travelS, vehicles: items.length };
}
const spread = (xs: number[]) => Math.max(...xs) - Math.min(...xs);
const ratio = (xs: number[]) => Math.max(...xs) / Math.min(...xs);

// 30 stops scattered around a depot, 5-15 min of service each, one unit of weight; three vans of
// 12 units: Optima needs all three but loads them unevenly.
const rng = new Rng(20261124);
const depot = { Name: 'Depot', LatLong: ll(0, 0) };
const LOCS = Array.from({ length: 30 }, (_, i) => ({
  Name: `S${i}`, LatLong: ll((rng.next() - 0.5) * 0.2, (rng.next() - 0.5) * 0.3), Wait: 300 + 60 * rng.int(11), Weight: 1,
}));
const base = (mode: string, extra: Record<string, unknown> = {}): DispatchSpecificationInput => ({
  CurrentTime: '2026-12-01T08:00:00', DistanceUnit: 'Kilometer', DispatchMode: mode as never,
  Vehicles: ['V1', 'V2', 'V3'].map((Name) => ({ Name, MaxWeight: 12, StartLocation: depot, FinishLocation: depot })),
  Locations: LOCS, ...extra,
} as DispatchSpecificationInput);

let optima: Plan;
beforeAll(async () => {
  optima = plan(await run(base('Optima')));
});

// MODES_REPORT=1 prints each mode's figures (for docs/dispatch-modes.md).
if (process.env.MODES_REPORT === '1') {
  it('report', async () => {
    for (const m of ['Optima', 'EqualStop', 'BalanceLocation', 'EqualHour', 'BalanceTime', 'EqualDistance', 'MinimumVehicles']) {
      const p = plan(await run(base(m)));
      console.log(`| ${m} | ${p.stops.join(' / ')} | ${p.km.map((x) => x.toFixed(1)).join(' / ')} | ${p.hours.map((x) => x.toFixed(2)).join(' / ')} | ${(p.travelS / 3600).toFixed(2)} (${((p.travelS / optima.travelS - 1) * 100).toFixed(1)} %) |`);
    }
  });
}

describe('DispatchModes against Optima on the same input', () => {
  it('Optima uses the fleet unevenly (so that balancing has something to do)', () => {
    expect(optima.vehicles).toBe(3);
    expect(spread(optima.stops)).toBeGreaterThanOrEqual(2);
  });
  it('EqualStop: max − min stops per used vehicle ≤ 1', async () => {
    const p = plan(await run(base('EqualStop')));
    expect(p.stops.reduce((a, b) => a + b, 0)).toBe(30);
    expect(spread(p.stops)).toBeLessThanOrEqual(1);
  });
  it('BalanceLocation: a smaller stop spread than Optima at ≤ 15 % extra driving time', async () => {
    const p = plan(await run(base('BalanceLocation')));
    expect(spread(p.stops)).toBeLessThan(spread(optima.stops));
    expect(p.travelS).toBeLessThanOrEqual(optima.travelS * 1.15);
  });
  it('EqualHour: working times within 15 % of each other', async () => {
    const p = plan(await run(base('EqualHour')));
    expect(ratio(p.hours)).toBeLessThanOrEqual(1.15);
    expect(ratio(p.hours)).toBeLessThan(ratio(optima.hours));
  });
  it('BalanceTime: a smaller working-time spread than Optima at ≤ 15 % extra driving time', async () => {
    const p = plan(await run(base('BalanceTime')));
    expect(spread(p.hours)).toBeLessThan(spread(optima.hours));
    expect(p.travelS).toBeLessThanOrEqual(optima.travelS * 1.15);
  });
  it('EqualDistance (and its other name, Central): distances within 15 % of each other', async () => {
    const p = plan(await run(base('EqualDistance')));
    expect(ratio(p.km)).toBeLessThanOrEqual(1.15);
    const c = plan(await run(base('Central')));
    expect(c).toEqual(p);
  });
  it('MinimumVehicles uses no more vehicles than any other mode', async () => {
    const min = plan(await run(base('MinimumVehicles', { Vehicles: ['V1', 'V2', 'V3', 'V4'].map((Name) => ({ Name, MaxWeight: 12, StartLocation: depot, FinishLocation: depot })) })));
    expect(min.vehicles).toBe(3); // 30 units, 12 per van
    for (const m of ['Optima', 'EqualStop', 'BalanceTime']) {
      const p = plan(await run(base(m, { Vehicles: ['V1', 'V2', 'V3', 'V4'].map((Name) => ({ Name, MaxWeight: 12, StartLocation: depot, FinishLocation: depot })) })));
      expect(min.vehicles).toBeLessThanOrEqual(p.vehicles);
    }
  });
  it('TimeWindowDepot: every vehicle back at its depot within Tout', async () => {
    const Vehicles = ['V1', 'V2', 'V3'].map((Name) => ({ Name, MaxWeight: 12, StartLocation: depot, Tin: '2026-12-01T08:00:00', Tout: '2026-12-01T12:30:00' }));
    const r = await run(base('TimeWindowDepot', { Vehicles }));
    for (const it of r.Items ?? []) {
      const L = it.Locations!;
      expect(L[L.length - 1].Name).toBe('Depot');
      expect(L[L.length - 1].TimeEstimatedArrival <= '2026-12-01T12:30:00').toBe(true);
    }
  });
  it('the same seed gives the same plan (the reference phase included)', async () => {
    expect(plan(await run(base('EqualHour')))).toEqual(plan(await run(base('EqualHour'))));
  });
});

/** Stops (not the depot) of each vehicle, as [lon, lat] points. */
function routePoints(r: DispatchResult): [number, number][][] {
  return (r.Items ?? []).map((it) => (it.Locations ?? []).filter((l) => l.Name !== 'Depot').map((l) => [l.LatLong!.Longitude, l.LatLong!.Latitude] as [number, number]));
}

/** Σ pairwise intersection area of the routes' convex hulls ÷ the area of their union. */
function hullOverlap(r: DispatchResult): number {
  const hulls = routePoints(r).filter((p) => p.length >= 3).map((p) => convex(featureCollection(p.map((x) => point(x))))!);
  let inter = 0;
  for (let i = 0; i < hulls.length; i++) {
    for (let j = i + 1; j < hulls.length; j++) {
      const x = intersect(featureCollection([hulls[i], hulls[j]]));
      if (x) inter += area(x);
    }
  }
  const u = union(featureCollection(hulls));
  return u ? inter / area(u) : 0;
}

describe('regions', () => {
  it('SingleRegion: balanced compact territories whose hulls overlap by ≤ 2 % of their union (no more than Optima\'s)', async () => {
    const single = await run(base('SingleRegion'));
    expect(plan(single).stops.reduce((a, b) => a + b, 0)).toBe(30);
    const o = hullOverlap(await run(base('Optima')));
    const s = hullOverlap(single);
    expect(s).toBeLessThanOrEqual(0.02);
    expect(s).toBeLessThanOrEqual(o);
    expect(plan(single).stops).toEqual([10, 10, 10]); // pie slices of a shared depot, balanced
  });
  it('SingleRegion with two depots and two vans at each: stops to the nearer depot, slices per van there; no region overlaps another', async () => {
    const west = { Name: 'Depot', LatLong: ll(0, -0.05) }, east = { Name: 'Depot', LatLong: ll(0, 0.05) };
    const r = await run({
      CurrentTime: '2026-12-01T08:00:00', DistanceUnit: 'Kilometer', DispatchMode: 'SingleRegion',
      Vehicles: [west, east, west, east].map((d, v) => ({ Name: `V${v + 1}`, StartLocation: d, FinishLocation: d })),
      Locations: LOCS.map((l) => ({ ...l, Weight: 0 })),
    } as DispatchSpecificationInput);
    const p = plan(r);
    expect(p.stops.reduce((a, b) => a + b, 0)).toBe(30);
    expect(hullOverlap(r)).toBeLessThanOrEqual(0.02);
    // every van works (the slices are balanced within each depot's share)
    expect((r.Items ?? []).length).toBe(4);
    // a van's stops lie on its depot's side, but for the few the other depot had no room for
    for (const it of r.Items ?? []) {
      const side = Math.sign(it.Locations![0].LatLong!.Longitude);
      const stops = it.Locations!.filter((l) => l.Name !== 'Depot');
      expect(stops.filter((l) => Math.sign(l.LatLong!.Longitude) === side).length).toBeGreaterThanOrEqual(stops.length - 2);
    }
  });
  // Two cities 100 km apart, a van in each; 10 stops in each city; the van of A takes at most 8.
  const cityA = Array.from({ length: 10 }, (_, i) => ({ Name: `A${i}`, LatLong: ll((rng.next() - 0.5) * 0.05, (rng.next() - 0.5) * 0.05), Wait: 300, Weight: 1 }));
  const cityB = Array.from({ length: 10 }, (_, i) => ({ Name: `B${i}`, LatLong: ll((rng.next() - 0.5) * 0.05, 1 + (rng.next() - 0.5) * 0.05), Wait: 300, Weight: 1 }));
  const vans = (capA: number) => [
    { Name: 'VanA', MaxWeight: capA, StartLocation: { Name: 'Depot', LatLong: ll(0, 0) }, FinishLocation: { Name: 'Depot', LatLong: ll(0, 0) } },
    { Name: 'VanB', MaxWeight: 30, StartLocation: { Name: 'Depot', LatLong: ll(0, 1) }, FinishLocation: { Name: 'Depot', LatLong: ll(0, 1) } },
  ];
  const served = (r: DispatchResult): Record<string, string[]> =>
    Object.fromEntries((r.Items ?? []).map((it) => [it.Vehicle!.Name ?? '', (it.Locations ?? []).map((l) => l.Name ?? '').filter((n) => n !== 'Depot')]));
  it('MultipleRegion with every van at one depot: one region, the whole fleet shares it', async () => {
    const p = plan(await run(base('MultipleRegion')));
    expect(p.stops.reduce((a, b) => a + b, 0)).toBe(30);
    expect(p.travelS).toBeLessThanOrEqual(optima.travelS * 1.05);
  });
  it('MultipleRegion: each stop stays with its nearest vehicle', async () => {
    const r = served(await run(base('MultipleRegion', { Vehicles: vans(30), Locations: [...cityA, ...cityB] })));
    expect(r.VanA!.slice().sort()).toEqual(cityA.map((l) => l.Name).sort());
    expect(r.VanB!.slice().sort()).toEqual(cityB.map((l) => l.Name).sort());
  });
  it('MultipleRegion: … unless capacity forbids: the overflow goes to the other region, nothing is left out', async () => {
    const res = await run(base('MultipleRegion', { Vehicles: vans(8), Locations: [...cityA, ...cityB] }));
    expect(res.Status).toBe('Success');
    const r = served(res);
    expect(r.VanA!.length).toBe(8);
    expect(r.VanA!.every((n) => n.startsWith('A'))).toBe(true);
    expect(r.VanB!.length).toBe(12);
    expect(r.VanB!.filter((n) => n.startsWith('B')).length).toBe(10);
  });
});

describe('FuelCost across a heterogeneous fleet', () => {
  it('Optima minimises fuel-weighted distance: the cheap vehicle takes the long route', async () => {
    const Vehicles = [
      { Name: 'Dear', FuelCost: 3, MaxWeight: 1, StartLocation: depot, FinishLocation: depot },
      { Name: 'Cheap', FuelCost: 1, MaxWeight: 1, StartLocation: depot, FinishLocation: depot },
    ];
    const Locations = [{ Name: 'Near', LatLong: ll(0, 0.01), Weight: 1 }, { Name: 'Far', LatLong: ll(0, 0.2), Weight: 1 }];
    const r = await run(base('Optima', { Vehicles, Locations }));
    const byVehicle = Object.fromEntries((r.Items ?? []).map((it) => [it.Vehicle!.Name, it.Locations!.map((l) => l.Name)]));
    expect(byVehicle).toEqual({ Dear: ['Depot', 'Near', 'Depot'], Cheap: ['Depot', 'Far', 'Depot'] });
  });
});

describe('Auto', () => {
  it('chooses TimeWindow when a stop has a window, else Optima, and says so', async () => {
    const events: unknown[] = [];
    await run(base('Auto'), events);
    expect(events).toEqual([{ requested: 'Auto', mode: 'Optima', reason: 'no stop has a time window' }]);
    const windowed = LOCS.map((l, i) => (i === 0 ? { ...l, TimeConstraintArrival: '2026-12-01T10:00:00' } : l));
    events.length = 0;
    await run(base('Auto', { Locations: windowed }), events);
    expect(events).toEqual([{ requested: 'Auto', mode: 'TimeWindow', reason: 'stops have time windows' }]);
    const parsed = DispatchSpecificationSchema.safeParse(base('EqualStop'));
    expect(parsed.ok && chooseDispatchMode(parsed.value)).toEqual({ mode: 'EqualStop', reason: 'requested' });
  });
});

describe('every mode end to end on the Monaco fixture', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 2 });
  });
  afterAll(() => engine.close());
  const stops = [[43.7395, 7.428], [43.7276, 7.4155], [43.7335, 7.4205], [43.745, 7.4365], [43.7311, 7.4135], [43.739, 7.42], [43.735, 7.4225], [43.7405, 7.4275]];
  it.each(['Auto', 'Optima', 'EqualStop', 'BalanceLocation', 'EqualHour', 'BalanceTime', 'EqualDistance', 'Central', 'SingleRegion', 'MultipleRegion', 'TimeWindow', 'TimeWindowDepot', 'MinimumVehicles'])('%s (the same plan offloaded, as a server runs it)', async (mode) => {
    const d = { Name: 'Depot', LatLong: ll(43.7314, 7.42) };
    const spec = {
      DispatchMode: mode, DistanceUnit: 'Kilometer', CurrentTime: '2026-12-01T09:00:00',
      Vehicles: [{ Name: 'A', StartLocation: d, FinishLocation: d }, { Name: 'B', StartLocation: d, FinishLocation: d }],
      Locations: stops.map(([la, lo], i) => ({ Name: `S${i}`, LatLong: ll(la, lo), Wait: 120 })),
    };
    const r = await engine.dispatch(spec, { seed: 1 });
    expect(r.Status, JSON.stringify(r.Errors)).toBe('Success');
    // modes solved in phases (reference plan, regions) run the same phases off the calling thread
    expect(await engine.dispatch(spec, { seed: 1, offload: true })).toEqual(r);
    const served = (r.Items ?? []).flatMap((it) => (it.Locations ?? []).map((l) => l.Name)).filter((n) => n !== 'Depot');
    expect(served.sort()).toEqual(stops.map((_, i) => `S${i}`).sort());
  });
});
