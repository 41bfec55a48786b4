/** Driver breaks (LocationType Break): placed by the solver in their window, per vehicle; bad ones reported. */
import { describe, expect, it } from 'vitest';
import type { DispatchResult, DispatchSpecificationInput } from '../../src/records/index.js';
import { dispatchOnPlane, ll } from '../helpers/plane.js';

const depot = { Name: 'Depot', LatLong: ll(0, 0) };

/** Checked plan on the plane; a Location without LatLong is unplaced (as the operation reports it). */
function run(raw: DispatchSpecificationInput): Promise<DispatchResult> {
  const locs = (raw.Locations ?? []) as { LatLong?: unknown }[];
  return dispatchOnPlane(raw, { unplaced: new Map(locs.flatMap((l, i) => (l.LatLong ? [] : [[i, 'needs LatLong (or an Address to geocode).'] as [number, string]]))) });
}

// A day of stops 1–4 km east of the depot, 20 min each.
const stops = Array.from({ length: 8 }, (_, i) => ({ Name: `S${i}`, LatLong: ll(0.005 * (i % 2), 0.01 * (1 + (i >> 1))), Wait: 1200 }));
const lunch = (extra: Record<string, unknown> = {}) => ({
  Name: 'Lunch', LocationType: 'Break', LatLong: ll(0, 0.025), Wait: 1800,
  TimeConstraintArrival: '2026-12-01T11:30:00', TimeConstraintDeparture: '2026-12-01T12:30:00', ...extra,
});
const spec = (locs: unknown[], vehicles = [{ Name: 'Van', StartLocation: depot, FinishLocation: depot }]): DispatchSpecificationInput =>
  ({ CurrentTime: '2026-12-01T09:00:00', DistanceUnit: 'Kilometer', Vehicles: vehicles, Locations: locs } as DispatchSpecificationInput);

describe('breaks', () => {
  it('a Break is placed in its window, for its vehicle, and lasts its Wait', async () => {
    const r = await run(spec([...stops, lunch({ Vehicle: 'Van' })]));
    expect(r.Status, JSON.stringify(r.Errors)).toBe('Success');
    const L = r.Items![0].Locations!;
    const k = L.findIndex((l) => l.Name === 'Lunch');
    expect(k).toBeGreaterThan(0);
    expect(L[k].LocationType).toBe('Break');
    expect(L[k].TimeEstimatedArrival >= '2026-12-01T11:30:00' && L[k].TimeEstimatedArrival <= '2026-12-01T12:30:00').toBe(true);
    // the next location is reached no earlier than the break's end + its leg
    const end = Date.parse(`${L[k].TimeEstimatedArrival}Z`) + 1800_000;
    expect(Date.parse(`${L[k + 1].TimeEstimatedArrival}Z`)).toBeGreaterThanOrEqual(end + L[k + 1].Time * 1000);
    expect(L.filter((l) => l.Name !== 'Depot' && l.Name !== 'Lunch').length).toBe(8);
  });

  it('without Vehicle, each working vehicle gets the break; a vehicle with no work stays home', async () => {
    const two = [{ Name: 'A', StartLocation: depot, FinishLocation: depot, MaxWeight: 5 }, { Name: 'B', StartLocation: depot, FinishLocation: depot, MaxWeight: 5 }];
    const r = await run(spec([...stops.map((s) => ({ ...s, Weight: 1 })), lunch()], two));
    expect(r.Status, JSON.stringify(r.Errors)).toBe('Success');
    expect(r.Items!.length).toBe(2);
    for (const it of r.Items!) expect(it.Locations!.filter((l) => l.Name === 'Lunch').length).toBe(1);
    const few = await run(spec([stops[0], lunch()], two));
    expect(few.Items!.length).toBe(1);
  });

  it('a Break naming an unknown vehicle, or without a place, is a clear Error (the rest is dispatched)', async () => {
    const r = await run(spec([...stops, lunch({ Vehicle: 'Truck' })]));
    expect(r.Status).toBe('SuccessWithErrors');
    expect(r.Errors!.map((e) => e.Message)).toEqual([
      "'Lunch' (Locations[8]): the Break names vehicle 'Truck', which does not exist (Vehicles: Van); it was not scheduled for it",
    ]);
    const noPlace = await run(spec([...stops, { ...lunch({ Vehicle: 'Van' }), LatLong: undefined }]));
    expect(noPlace.Errors!.map((e) => e.Message)).toEqual(["'Lunch' (Locations[8]): a Break without a place (LatLong or Address) is not supported yet; it was not scheduled"]);
    expect(noPlace.Items![0].Locations!.filter((l) => l.Name?.startsWith('S')).length).toBe(8);
  });

  it('a Break whose window closes before it opens is reported', async () => {
    const r = await run(spec([...stops, lunch({ Vehicle: 'Van', TimeConstraintArrival: '2026-12-01T13:00:00' })]));
    expect(r.Errors!.map((e) => e.Message)).toEqual(["'Lunch' (Locations[8]): the Break's window ends before it opens (TimeConstraintDeparture before TimeConstraintArrival); it was not scheduled"]);
  });
});
