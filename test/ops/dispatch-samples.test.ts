/**
 * The original service's own client samples (rdrunnerxx/TrackRoad, samples/TrackRoad.Api.Examples/
 * Program.cs: "1. Single-vehicle route optimization using latitude/longitude", "2. Route
 * optimization with time windows", "3. Route optimization without vehicles (stops only)"), with
 * Monaco coordinates instead of Virginia's and a fixed day instead of DateTime.UtcNow, dispatched
 * on the Monaco fixture. Every answer also passes the contract's schedule checker.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { checkServiceWindows } from '../../src/ops/dispatch/check.js';
import type { DispatchResult, DispatchSpecificationInput, Location } from '../../src/records/index.js';
import { dateToSeconds } from '../../src/records/index.js';
import { fixtureDataset } from '../helpers/datasets.js';
import { at, CASINO, SAMPLE_1, SAMPLE_3, sample2, STADE, WAREHOUSE } from '../helpers/client-samples.js';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 1 });
});
afterAll(() => engine.close());

const common = { RoutingService: 0, IsNeedMatchCode: true, CurrentTime: at('08:30'), DispatchMode: 0, MinimumOptimization: 4, DistanceUnit: 0, RouteOptimize: 0 };

async function run(spec: Record<string, unknown>): Promise<{ r: DispatchResult; L: Location[] }> {
  const r = await engine.dispatch(spec as DispatchSpecificationInput, { seed: 1 });
  expect(r.Errors ?? []).toEqual([]);
  expect(r.Status).toBe('Success');
  expect(checkServiceWindows(r)).toEqual([]);
  expect(r.Items).toHaveLength(1);
  return { r, L: r.Items![0].Locations! };
}
const secs = (l: Location): number => dateToSeconds(l.TimeEstimatedArrival)!;

describe("the original client's samples", () => {
  it('example 1: one vehicle, lat/long stops — a route from the warehouse back to it, typed Start and Finish, matched, at 45 mph', async () => {
    const { r, L } = await run(SAMPLE_1);
    expect(r.Items![0].Vehicle!.Name).toBe('Truck 1');
    expect(L.map((l) => l.Name)[0]).toBe('Warehouse');
    expect(L.map((l) => l.Name).slice(1, 4).sort()).toEqual(['A', 'B', 'C']);
    expect(L.map((l) => l.LocationType)).toEqual(['Start', 'Midway', 'Midway', 'Midway', 'Finish']);
    for (const l of L) expect(l.MatchCode).toBe('Exact');
    // a constant speed of 45 mph: each leg's Time is its Distance (miles) / 45 h
    for (const l of L.slice(1)) expect(Math.abs(l.Time! - (l.Distance! / 45) * 3600)).toBeLessThan(3);
    // the estimates follow the legs and the Waits, from CurrentTime
    expect(L[0].TimeEstimatedArrival).toBe(at('08:30'));
    for (let k = 1; k < L.length; k++) expect(secs(L[k]) - secs(L[k - 1])).toBeCloseTo((L[k - 1].Wait ?? 0) + L[k].Time!, -0.5);
  });

  it('example 2: time windows are service windows — service inside each window, B (15:00-19:00) last, the vehicle back after 15:00', async () => {
    for (const early of [true, false]) {
      const { L } = await run(sample2(early));
      const names = L.map((l) => l.Name);
      expect(names[3]).toBe('B');
      const byName = new Map(L.slice(1, 4).map((l) => [l.Name, l]));
      for (const [name, open, close] of [['A', '10:00', '15:00'], ['B', '15:00', '19:00'], ['C', '11:00', '14:00']] as const) {
        const l = byName.get(name)!;
        const start = Math.max(secs(l), dateToSeconds(at(open))!);
        expect(start).toBeGreaterThanOrEqual(dateToSeconds(at(open))!);
        expect(start + l.Wait!).toBeLessThanOrEqual(dateToSeconds(at(close))!);
        // CanArriveEarly false: the estimate is the start of service, at or after the opening
        if (!early) expect(secs(l)).toBeGreaterThanOrEqual(dateToSeconds(at(open))!);
      }
      expect(secs(L[4])).toBeGreaterThan(dateToSeconds(at('15:00'))! + 10);
      expect(secs(L[4])).toBeLessThanOrEqual(dateToSeconds(at('18:00'))!);
      expect(L[0].LocationType).toBe('Start');
      expect(L[4].LocationType).toBe('Finish');
    }
  });

  it('example 3: no vehicles, Start and Finish among the stops — one route between them', async () => {
    const { L } = await run(SAMPLE_3);
    expect(L.map((l) => l.Name)[0]).toBe('Start');
    expect(L.map((l) => l.Name)[4]).toBe('Finish');
    expect(L.map((l) => l.LocationType)).toEqual(['Start', 'Midway', 'Midway', 'Midway', 'Finish']);
  });

  it('an untyped depot comes back typed: the first entry Start, the last Finish (and stops keep their types)', async () => {
    const { L } = await run({
      ...common,
      Vehicles: [{ Name: 'Van', StartLocation: { Name: 'Depot', LatLong: WAREHOUSE }, FinishLocation: { Name: 'Depot', LatLong: WAREHOUSE } }],
      Locations: [{ Name: 'A', LatLong: CASINO }, { Name: 'B', LatLong: STADE }],
    });
    expect(L.map((l) => l.LocationType)).toEqual(['Start', 'Midway', 'Midway', 'Finish']);
  });
});
