/**
 * Multi-day trips: MaxStops and MaxMinutes limit one trip; the work continues on further trips
 * (VehicleItems <Name>_2, <Name>_3, …, one per day), optimised together; OnTheRoad decides where
 * the next trip starts. Flat-plane matrices, every plan through the independent checker.
 */
import { describe, expect, it } from 'vitest';
import type { DispatchResult } from '../../src/records/index.js';
import { dispatchOnPlane as run, ll } from '../helpers/plane.js';

const depot = { Name: 'Depot', LatLong: ll(0, 0) };

const stops = (k: number) => Array.from({ length: k }, (_, i) => ({ Name: `S${i}`, LatLong: ll(0.01 * ((i % 4) + 1), 0.01 * Math.floor(i / 4)), Wait: 300 }));
const names = (r: DispatchResult) => (r.Items ?? []).map((it) => it.Vehicle!.Name);
const served = (r: DispatchResult) => (r.Items ?? []).flatMap((it) => it.Locations!.filter((l) => l.Name !== 'Depot').map((l) => l.Name));

describe('trips', () => {
  it('MaxStops: the work continues on trips <Name>_2, <Name>_3, one per day, back at the depot each time', async () => {
    const r = await run({
      CurrentTime: '2026-12-01T08:00:00', DistanceUnit: 'Kilometer',
      Vehicles: [{ Name: 'Van', MaxStops: 3, StartLocation: depot, FinishLocation: depot, Tin: '2026-12-01T08:00:00', Tout: '2026-12-01T18:00:00' }],
      Locations: stops(7),
    });
    expect(r.Status, JSON.stringify(r.Errors)).toBe('Success');
    expect(names(r)).toEqual(['Van', 'Van_2', 'Van_3']);
    expect(served(r).sort()).toEqual(stops(7).map((s) => s.Name).sort());
    r.Items!.forEach((it, k) => {
      const L = it.Locations!;
      expect(L.filter((l) => l.Name !== 'Depot').length).toBeLessThanOrEqual(3);
      expect(L[0].Name).toBe('Depot');
      expect(L[L.length - 1].Name).toBe('Depot');
      const day = `2026-12-0${k + 1}`;
      for (const l of L) expect(l.TimeEstimatedArrival.slice(0, 10)).toBe(day);
      expect(L[0].TimeEstimatedArrival >= `${day}T08:00:00`).toBe(true);
      expect(L[L.length - 1].TimeEstimatedArrival <= `${day}T18:00:00`).toBe(true);
    });
  });

  it('MaxMinutes: every trip within the limit, all stops served', async () => {
    const r = await run({
      CurrentTime: '2026-12-01T08:00:00', DistanceUnit: 'Kilometer',
      Vehicles: [{ Name: 'Van', MaxMinutes: 45, StartLocation: depot, FinishLocation: depot }],
      Locations: stops(8),
    });
    expect(r.Status, JSON.stringify(r.Errors)).toBe('Success');
    expect(r.Items!.length).toBeGreaterThanOrEqual(2);
    expect(served(r).length).toBe(8);
    for (const it of r.Items!) {
      const L = it.Locations!;
      const mins = (Date.parse(`${L[L.length - 1].TimeEstimatedArrival}Z`) - Date.parse(`${L[0].TimeEstimatedArrival}Z`)) / 60000;
      expect(mins).toBeLessThanOrEqual(45);
    }
  });

  it('OnTheRoad: later trips start where the vehicle is (at their first stop), not at the StartLocation', async () => {
    const r = await run({
      CurrentTime: '2026-12-01T08:00:00', DistanceUnit: 'Kilometer',
      Vehicles: [{ Name: 'Van', MaxStops: 3, OnTheRoad: true, StartLocation: depot, FinishLocation: depot }],
      Locations: stops(6),
    });
    expect(names(r)).toEqual(['Van', 'Van_2']);
    expect(r.Items![0].Locations![0].Name).toBe('Depot');
    expect(r.Items![1].Locations![0].Name).not.toBe('Depot');
  });

  it('trips are shared out with the other vehicles, and pre-assigned stops may go on any trip of their vehicle', async () => {
    const r = await run({
      CurrentTime: '2026-12-01T08:00:00', DistanceUnit: 'Kilometer',
      Vehicles: [
        { Name: 'A', MaxStops: 2, StartLocation: depot, FinishLocation: depot },
        { Name: 'B', MaxStops: 2, StartLocation: depot, FinishLocation: depot },
      ],
      Locations: stops(6).map((s, i) => (i < 3 ? { ...s, Vehicle: 'A' } : s)),
    });
    expect(r.Status, JSON.stringify(r.Errors)).toBe('Success');
    expect(served(r).length).toBe(6);
    const ofA = r.Items!.filter((it) => /^A(_\d+)?$/.test(it.Vehicle!.Name!)).flatMap((it) => it.Locations!.map((l) => l.Name));
    for (const k of ['S0', 'S1', 'S2']) expect(ofA).toContain(k);
    for (const it of r.Items!) expect(it.Locations!.filter((l) => l.Name !== 'Depot').length).toBeLessThanOrEqual(2);
  });

  it('without MaxStops or MaxMinutes there is one trip per vehicle', async () => {
    const r = await run({ CurrentTime: '2026-12-01T08:00:00', DistanceUnit: 'Kilometer', Vehicles: [{ Name: 'Van', StartLocation: depot, FinishLocation: depot }], Locations: stops(7) });
    expect(names(r)).toEqual(['Van']);
  });
});
