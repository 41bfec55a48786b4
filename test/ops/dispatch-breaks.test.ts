/** Driver breaks (LocationType Break): placed by the solver in their window, per vehicle; bad ones reported. */
import { describe, expect, it } from 'vitest';
import type { DispatchResult, DispatchSpecificationInput } from '../../src/records/index.js';
import { dispatchOnPlane, ll } from '../helpers/plane.js';

const depot = { Name: 'Depot', LatLong: ll(0, 0) };

/** Checked plan on the plane; a Location without LatLong is unplaced (as the operation reports it). */
function run(raw: DispatchSpecificationInput): Promise<DispatchResult> {
  const locs = (raw.Locations ?? []) as { LatLong?: unknown }[];
  return dispatchOnPlane(raw, { unplaced: new Map(locs.flatMap((l, i) => (l.LatLong || (l as { LocationType?: string }).LocationType === 'Break' ? [] : [[i, 'needs LatLong (or an Address to geocode).'] as [number, string]]))) });
}

// A day of stops 1–4 km east of the depot, 20 min each.
const stops = Array.from({ length: 8 }, (_, i) => ({ Name: `S${i}`, LatLong: ll(0.005 * (i % 2), 0.01 * (1 + (i >> 1))), Wait: 1200 }));
const lunch = (extra: Record<string, unknown> = {}) => ({
  Name: 'Lunch', LocationType: 'Break', LatLong: ll(0, 0.025), Wait: 1800,
  TimeConstraintArrival: '2026-12-01T11:30:00', TimeConstraintDeparture: '2026-12-01T12:30:00', ...extra,
});
const spec = (locs: unknown[], vehicles = [{ Name: 'Van', StartLocation: depot, FinishLocation: depot }]): DispatchSpecificationInput =>
  ({ CurrentTime: '2026-12-01T09:00:00', DistanceUnit: 'Kilometer', Vehicles: vehicles, Locations: locs } as DispatchSpecificationInput);

/** The route's Lunch: a Break in its 11:30–12:30 window, the next location reached no earlier than its end + that leg. Returns its index. */
function lunchIn(r: DispatchResult): number {
  expect(r.Status, JSON.stringify(r.Errors)).toBe('Success');
  const L = r.Items![0].Locations!;
  const k = L.findIndex((l) => l.Name === 'Lunch');
  expect(k).toBeGreaterThan(0);
  expect(L[k].LocationType).toBe('Break');
  expect(L[k].TimeEstimatedArrival >= '2026-12-01T11:30:00' && L[k].TimeEstimatedArrival <= '2026-12-01T12:30:00').toBe(true);
  const end = Date.parse(`${L[k].TimeEstimatedArrival}Z`) + 1800_000;
  expect(Date.parse(`${L[k + 1].TimeEstimatedArrival}Z`)).toBeGreaterThanOrEqual(end + L[k + 1].Time * 1000);
  expect(L.filter((l) => l.Name?.startsWith('S')).length).toBe(8);
  return k;
}

describe('breaks', () => {
  it('a Break is placed in its window, for its vehicle, and lasts its Wait', async () => {
    lunchIn(await run(spec([...stops, lunch({ Vehicle: 'Van' })])));
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

  it('a Break naming an unknown vehicle is a clear Error (the rest is dispatched)', async () => {
    const r = await run(spec([...stops, lunch({ Vehicle: 'Truck' })]));
    expect(r.Status).toBe('SuccessWithErrors');
    expect(r.Errors!.map((e) => e.Message)).toEqual([
      "'Lunch' (Locations[8]): the Break names vehicle 'Truck', which does not exist (Vehicles: Van); it was not scheduled for it",
    ]);
  });

  const placeless = (extra: Record<string, unknown> = {}) => ({ ...lunch(extra), LatLong: undefined });

  it('a Break without a place is taken where the driver is, inside its window, and delays what follows by its Wait', async () => {
    const r = await run(spec([...stops, placeless({ Vehicle: 'Van' })]));
    const k = lunchIn(r);
    const L = r.Items![0].Locations!;
    // where the driver is: the LatLong of the stop it is taken at (before or after its service)
    const near = [L[k - 1], L[k + 1]].filter((l) => l.LatLong && l.LatLong.Latitude === L[k].LatLong!.Latitude && l.LatLong.Longitude === L[k].LatLong!.Longitude);
    expect(near.length).toBeGreaterThan(0);
    // legs still sum: the break's leg and the stop's together are the one leg between the stops
    expect(L.reduce((a, l) => a + (l.Distance ?? 0), 0)).toBeCloseTo(r.Items![0].Locations!.filter((l) => l.Name !== 'Lunch').reduce((a, l) => a + (l.Distance ?? 0), 0), 6);
  });

  it('a Break without a place fills a wait; a day over before the window opens takes none', async () => {
    // S0 opens at 12:00 (no early service): the driver waits there — the break fits in the wait
    const late = [{ ...stops[0], CanArriveEarly: false, TimeConstraintArrival: '2026-12-01T12:00:00', TimeConstraintDeparture: '2026-12-01T13:00:00' }];
    const br = placeless({ TimeConstraintArrival: '2026-12-01T09:30:00', TimeConstraintDeparture: '2026-12-01T11:00:00' });
    const without = await run(spec(late));
    const withBreak = await run(spec([...late, br]));
    expect(withBreak.Status, JSON.stringify(withBreak.Errors)).toBe('Success');
    const end = (x: DispatchResult) => x.Items![0].Locations!.at(-1)!.TimeEstimatedArrival;
    expect(end(withBreak)).toBe(end(without));
    expect(withBreak.Items![0].Locations!.some((l) => l.Name === 'Lunch')).toBe(true);
    // one stop, done by 09:20: lunch at 11:30 is not owed
    const short = await run(spec([stops[0], placeless()]));
    expect(short.Status).toBe('Success');
    expect(short.Items![0].Locations!.some((l) => l.Name === 'Lunch')).toBe(false);
  });

  it('a Break without a place goes to every working vehicle, and only to the trip of its day', async () => {
    const two = [{ Name: 'A', StartLocation: depot, FinishLocation: depot, MaxWeight: 5 }, { Name: 'B', StartLocation: depot, FinishLocation: depot, MaxWeight: 5 }];
    // an hour per stop: both days run past 11:30
    const r = await run(spec([...stops.map((s) => ({ ...s, Weight: 1, Wait: 3600 })), placeless()], two));
    expect(r.Status, JSON.stringify(r.Errors)).toBe('Success');
    expect(r.Items!.length).toBe(2);
    for (const it of r.Items!) expect(it.Locations!.filter((l) => l.Name === 'Lunch').length).toBe(1);
    // MaxStops 5 over 8 stops: two trips, on two days; the 11:30–12:30 lunch of day 1 is day 1's
    const trips = await run(spec([...stops.map((s) => ({ ...s, Wait: 3600 })), placeless()], [{ Name: 'Van', StartLocation: depot, FinishLocation: depot, MaxStops: 5 } as never]));
    expect(trips.Status, JSON.stringify(trips.Errors)).toBe('Success');
    expect(trips.Items!.map((it) => it.Vehicle!.Name)).toEqual(['Van', 'Van_2']);
    expect(trips.Items!.map((it) => it.Locations!.filter((l) => l.Name === 'Lunch').length)).toEqual([1, 0]);
  });

  it('a Break without a place that cannot fit in the shift leaves work out, and says why', async () => {
    const r = await run(spec([...stops, placeless({ Wait: 6 * 3600 })], [{ Name: 'Van', StartLocation: depot, FinishLocation: depot, Tout: '2026-12-01T14:00:00' } as never]));
    expect(r.Status).toBe('SuccessWithErrors');
    const L = r.Items![0]?.Locations ?? [];
    const served = L.filter((l) => l.Name?.startsWith('S')).length;
    expect(served).toBeLessThan(8);
    expect(r.Errors!.length).toBe(8 - served);
  });

  it('a Break whose window closes before it opens is reported', async () => {
    const r = await run(spec([...stops, lunch({ Vehicle: 'Van', TimeConstraintArrival: '2026-12-01T13:00:00' })]));
    expect(r.Errors!.map((e) => e.Message)).toEqual(["'Lunch' (Locations[8]): the Break's window ends before it opens (TimeConstraintDeparture before TimeConstraintArrival); it was not scheduled"]);
  });
});
