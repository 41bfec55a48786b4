/**
 * Property test over random small dispatches with the fleet rules switched on at random — modes,
 * MaxStops trips, constant speeds, breaks (at a place or without one), MidwayDrops, DoNotEnter zones: every plan passes the independent
 * checker, every stop is served exactly once or reported, no trip exceeds MaxStops, breaks start
 * in their windows, and no vehicle serves a stop inside its no-go zone. (RUNS=400 for more cases, unseeded.)
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { DispatchSpecificationInput } from '../../src/records/index.js';
import { pointInPolygon } from '../../src/route/zones.js';
import { dispatchOnPlane, ll } from '../helpers/plane.js';

const MODES = ['Auto', 'Optima', 'EqualStop', 'BalanceLocation', 'EqualHour', 'BalanceTime', 'EqualDistance', 'SingleRegion', 'MultipleRegion', 'MinimumVehicles', 'TimeWindowDepot'];

const instance = fc.record({
  stops: fc.array(fc.tuple(fc.integer({ min: -50, max: 50 }), fc.integer({ min: -50, max: 50 })), { minLength: 3, maxLength: 12 }),
  vehicles: fc.array(fc.record({ maxStops: fc.constantFrom(0, 0, 2, 3), speed: fc.constantFrom(0, 0, 30), zone: fc.boolean(), maxWeight: fc.constantFrom(0, 5, 9) }), { minLength: 1, maxLength: 3 }),
  /** A MidwayDrop (and weights on the stops). */
  drop: fc.boolean(),
  mode: fc.constantFrom(...MODES),
  /** 0 none, 1 a Break at a place, 2 a Break without a place (taken where the driver is). */
  lunch: fc.constantFrom(0, 1, 2),
});

describe('random dispatches with fleet rules', () => {
  it('hold every invariant', async () => {
    await fc.assert(fc.asyncProperty(instance, async (c) => {
      const depot = { Name: 'Depot', LatLong: ll(0, 0) };
      const zone = [ll(0.1, 0.1), ll(0.1, 0.5), ll(0.5, 0.5), ll(0.5, 0.1)];
      const zonePts = zone.map((p) => ({ lat: p.Latitude, lon: p.Longitude }));
      const Locations: Record<string, unknown>[] = c.stops.map(([a, b], i) => ({ Name: `S${i}`, LatLong: ll(a / 100, b / 100), Wait: 300, Weight: 1 + (i % 4) }));
      if (c.drop) Locations.push({ Name: 'Yard', LocationType: 'MidwayDrop', LatLong: ll(-0.05, 0.02), Wait: 120 });
      if (c.lunch) Locations.push({ Name: 'Lunch', LocationType: 'Break', ...(c.lunch === 1 ? { LatLong: ll(0, 0.01) } : {}), Wait: 1200, TimeConstraintArrival: '2026-12-01T10:00:00', TimeConstraintDeparture: '2026-12-01T16:00:00' });
      const Vehicles = c.vehicles.map((v, i) => ({
        Name: `V${i}`, StartLocation: depot, FinishLocation: depot, MaxStops: v.maxStops, Speed: v.speed, MaxWeight: v.maxWeight, Tin: '2026-12-01T08:00:00',
        ...(v.zone ? { Shapes: [{ Points: zone, Restriction: 'DoNotEnter' }] } : {}),
      }));
      const raw = { CurrentTime: '2026-12-01T08:00:00', DistanceUnit: 'Kilometer', DispatchMode: c.mode, MinimumOptimization: 2, Vehicles, Locations } as DispatchSpecificationInput;
      let checked = false; // the plane helper throws on a checker violation
      const r = await dispatchOnPlane(raw, { onSolution: () => { checked = true; } });
      expect(r.Status).not.toBe('Failed');
      expect(checked).toBe(true);
      const errors = (r.Errors ?? []).map((e) => e.Message ?? '');
      const seen = new Map<string, number>();
      for (const it of r.Items ?? []) {
        const name = it.Vehicle!.Name!;
        const base = Vehicles.find((v) => v.Name === name || name.startsWith(`${v.Name}_`))!;
        const own = it.Locations!.filter((l) => l.Name !== 'Depot' && l.LocationType !== 'Break' && l.LocationType !== 'MidwayDrop');
        if (base.MaxStops > 0) expect(own.length).toBeLessThanOrEqual(base.MaxStops);
        // between the depot and a MidwayDrop (or two of them), the weights fit the vehicle
        let load = 0;
        for (const l of it.Locations!) {
          if (l.LocationType === 'MidwayDrop') { load = 0; continue; }
          load += l.Weight ?? 0;
          if (base.MaxWeight > 0) expect(load).toBeLessThanOrEqual(base.MaxWeight);
        }
        for (const l of it.Locations!) {
          if (l.Name === 'Depot') continue;
          if (l.LocationType === 'MidwayDrop') continue;
          if (l.LocationType === 'Break') {
            const day = l.TimeEstimatedArrival.slice(0, 10);
            expect(l.TimeEstimatedArrival >= `${day}T10:00:00` && l.TimeEstimatedArrival <= `${day}T16:00:00`).toBe(true);
            continue;
          }
          seen.set(l.Name!, (seen.get(l.Name!) ?? 0) + 1);
          if ('Shapes' in base) expect(pointInPolygon(l.LatLong!.Latitude, l.LatLong!.Longitude, zonePts)).toBe(false);
        }
      }
      c.stops.forEach((_, i) => {
        const name = `S${i}`;
        const served = seen.get(name) ?? 0;
        expect(served).toBeLessThanOrEqual(1);
        if (served === 0) expect(errors.some((m) => m.includes(`'${name}'`))).toBe(true);
      });
    }), { numRuns: Number(process.env.RUNS ?? 100), seed: process.env.RUNS ? undefined : 20261124 });
  }, 120_000);
});
