/** dispatchOnMatrix: the contract's records mapped onto the solver (semantics.md). */
import { describe, expect, it } from 'vitest';
import { DispatchSpecificationSchema, issueMessage, type DispatchSpecificationInput, type DispatchResult } from '../../src/records/index.js';
import { checkedDispatch as dispatchOnMatrix, checks, ll, planeSetup as setup } from '../helpers/plane.js';

// Every dispatch in these tests also goes through the independent checker (test/helpers/plane.ts).
const depot = { Name: 'Depot', LatLong: ll(0, 0) };
const names = (r: DispatchResult): string[][] => (r.Items ?? []).map((it) => (it.Locations ?? []).map((l) => l.Name ?? ''));

describe('dispatchOnMatrix', () => {
  it('fills arrival estimates and the leg reaching each location, start and finish included', async () => {
    const { spec, travel } = setup({
      CurrentTime: '2026-12-01T08:00:00', DistanceUnit: 'Kilometer',
      Vehicles: [{ Name: 'Truck', StartLocation: depot, FinishLocation: depot }],
      Locations: [
        { Name: 'A', LatLong: ll(0, 0.01), Wait: 300 }, // 1 km east: 100 s
        { Name: 'B', LatLong: ll(0, 0.02), Wait: 60 },
      ],
    });
    const res = await dispatchOnMatrix(spec, travel);
    expect(res.Status).toBe('Success');
    expect(names(res)).toEqual([['Depot', 'A', 'B', 'Depot']]);
    const L = res.Items![0].Locations!;
    expect(L.map((l) => l.TimeEstimatedArrival)).toEqual(['2026-12-01T08:00:00', '2026-12-01T08:01:40', '2026-12-01T08:08:20', '2026-12-01T08:12:40']);
    expect(L.map((l) => l.Distance)).toEqual([0, 1, 1, 2]);
    expect(L.map((l) => l.Time)).toEqual([0, 100, 100, 200]);
    expect(res.Items![0].Vehicle!.Name).toBe('Truck');
  });

  it('miles by default; Tin sets the clock; closed windows wait (CanArriveEarly false)', async () => {
    const { spec, travel } = setup({
      CurrentTime: '2026-12-01T07:00:00',
      Vehicles: [{ Name: 'V', StartLocation: depot, Tin: '2026-12-01T08:00:00' }],
      Locations: [{ Name: 'A', LatLong: ll(0, 0.01609344), CanArriveEarly: false, TimeConstraintArrival: '2026-12-01T09:00:00', TimeConstraintDeparture: '2026-12-01T09:30:00' }],
    });
    const res = await dispatchOnMatrix(spec, travel);
    const L = res.Items![0].Locations!;
    expect(L[1].Distance).toBeCloseTo(1, 3); // one mile (matrix in whole metres)
    expect(L[1].TimeEstimatedArrival).toBe('2026-12-01T09:00:00'); // leaves late enough not to wait
    expect(L.length).toBe(2); // no FinishLocation: the route ends at the last stop
  });

  it('service windows (semantics): an early vehicle waits at the door (estimate = arrival) unless CanArriveEarly is false (estimate = the opening)', async () => {
    for (const early of [true, false]) {
      const { spec, travel } = setup({
        CurrentTime: '2026-12-01T08:00:00',
        Vehicles: [{ Name: 'V', StartLocation: depot, Tin: '2026-12-01T08:00:00' }],
        Locations: [
          { Name: 'First', LatLong: ll(0, 0.01), TimeConstraintDeparture: '2026-12-01T08:05:00' }, // served by 08:05: forces an early start
          { Name: 'Later', LatLong: ll(0, 0.02), Wait: 120, CanArriveEarly: early, TimeConstraintArrival: '2026-12-01T10:00:00', TimeConstraintDeparture: '2026-12-01T11:00:00' },
        ],
      });
      const res = await dispatchOnMatrix(spec, travel);
      const L = res.Items![0].Locations!;
      expect(L.map((l) => l.Name)).toEqual(['Depot', 'First', 'Later']);
      // leaves as late as the finish allows (08:03:20): First just by its deadline
      expect(L[0].TimeEstimatedArrival).toBe('2026-12-01T08:03:20');
      expect(L[1].TimeEstimatedArrival).toBe('2026-12-01T08:05:00');
      // gets there at 08:06:40 and waits for 10:00 (early), or leaves First late enough to be there at 10:00
      expect(L[2].TimeEstimatedArrival).toBe(early ? '2026-12-01T08:06:40' : '2026-12-01T10:00:00');
      expect(L[2].Time).toBe(100); // the leg's driving time
    }
  });

  it('a window is where service happens whatever CanArriveEarly says: neither before the Arrival nor ending after the Departure; a missed window is reported', async () => {
    const { spec, travel } = setup({
      CurrentTime: '2026-12-01T08:00:00',
      Vehicles: [{ Name: 'V', StartLocation: depot, FinishLocation: depot }],
      Locations: [
        { Name: 'Near', LatLong: ll(0, 0.01), Wait: 60, TimeConstraintArrival: '2026-12-01T09:00:00', TimeConstraintDeparture: '2026-12-01T09:05:00' },
        { Name: 'Far', LatLong: ll(0, 0.5), TimeConstraintDeparture: '2026-12-01T08:05:00' }, // 50 km at 10 m/s
        { Name: 'Short', LatLong: ll(0, 0.02), Wait: 600, TimeConstraintArrival: '2026-12-01T09:00:00', TimeConstraintDeparture: '2026-12-01T09:05:00' }, // the Wait cannot end in it
      ],
    });
    const res = await dispatchOnMatrix(spec, travel);
    expect(res.Status).toBe('SuccessWithErrors');
    expect(res.Errors!.map((e) => e.Message)).toEqual([
      expect.stringMatching(/'Short'.*time window.*Wait of 600/),
      expect.stringMatching(/'Far'.*time window/),
    ]);
    expect(names(res)).toEqual([['Depot', 'Near', 'Depot']]);
    // the vehicle leaves so as to be at Near when it opens (no avoidable wait), served 09:00-09:01
    const L = res.Items![0].Locations!;
    expect(L[1].TimeEstimatedArrival).toBe('2026-12-01T09:00:00');
    expect(L[2].TimeEstimatedArrival).toBe('2026-12-01T09:02:40');
  });

  it('no CurrentTime and no Tin: the clock starts at 00:00 of the earliest time given, in its zone', async () => {
    const { spec, travel } = setup({
      Vehicles: [{ Name: 'V', StartLocation: depot, FinishLocation: depot }],
      Locations: [
        { Name: 'Closed', LatLong: ll(0, 0.01), CanArriveEarly: false, TimeConstraintArrival: '2026-12-01T09:00:00', TimeConstraintDeparture: '2026-12-01T09:30:00' },
        { Name: 'Deadline', LatLong: ll(0, 0.02), TimeConstraintDeparture: '2026-12-01T10:00:00' },
        { Name: 'Free', LatLong: ll(0, 0.03) },
      ],
    });
    const res = await dispatchOnMatrix(spec, travel);
    expect(res.Status).toBe('Success');
    const L = res.Items![0].Locations!;
    const at = Object.fromEntries(L.slice(1, -1).map((l) => [l.Name, l.TimeEstimatedArrival!]));
    expect(at.Closed).toBe('2026-12-01T09:00:00');
    expect(at.Deadline <= '2026-12-01T10:00:00' && at.Deadline > '2026-12-01T09:00:00').toBe(true);
    for (const l of L) expect(l.TimeEstimatedArrival!.startsWith('2026-12-01T')).toBe(true); // zoneless in, zoneless out
    // A window with an offset: the day is that zone's day; estimates are written in UTC.
    const z = setup({
      Vehicles: [{ Name: 'V', StartLocation: depot }],
      Locations: [{ Name: 'A', LatLong: ll(0, 0.01), TimeConstraintArrival: '2026-12-01T01:00:00+02:00' }],
    });
    const rz = await dispatchOnMatrix(z.spec, z.travel);
    const Lz = rz.Items![0].Locations!;
    expect(Lz[0].TimeEstimatedArrival! >= '2026-11-30T22:00:00Z').toBe(true); // 00:00 at +02:00
    expect(Lz[1].TimeEstimatedArrival! <= '2026-11-30T23:00:00Z' && Lz[1].TimeEstimatedArrival!.endsWith('Z')).toBe(true);
    // A deadline the vehicle cannot meet from midnight is still reported.
    const late = setup({
      Vehicles: [{ Name: 'V', StartLocation: depot }],
      Locations: [{ Name: 'Far', LatLong: ll(0, 0.5), TimeConstraintDeparture: '2026-12-01T00:05:00' }],
    });
    const rl = await dispatchOnMatrix(late.spec, late.travel);
    expect(rl.Errors![0].Message).toMatch(/'Far'.*time window/);
    // No time anywhere: times are relative and estimates stay unset.
    const none = setup({ Vehicles: [{ Name: 'V', StartLocation: depot }], Locations: [{ Name: 'A', LatLong: ll(0, 0.01) }] });
    const rn = await dispatchOnMatrix(none.spec, none.travel);
    expect(rn.Items![0].Locations!.map((l) => l.TimeEstimatedArrival)).toEqual(['0001-01-01T00:00:00', '0001-01-01T00:00:00']);
  });

  it('errors name the record field and the real cause (negative amounts, shift vs window)', async () => {
    const msgs = async (raw: DispatchSpecificationInput): Promise<string[]> => {
      const { spec, travel } = setup(raw);
      return ((await dispatchOnMatrix(spec, travel)).Errors ?? []).map((e) => e.Message ?? '');
    };
    const four = [1, 2, 3, 4].map((k) => ({ Name: `S${k}`, LatLong: ll(0, 0.01 * k) }));
    // Amounts out of their bounds are refused by the record schema, in field order (the ops layer
    // checks the same bounds again for callers that build records themselves: see below).
    const schema = (raw: DispatchSpecificationInput): string[] => {
      const r = DispatchSpecificationSchema.safeParse(raw);
      return r.ok ? [] : r.issues.map(issueMessage);
    };
    const neg = schema({ Vehicles: [{ Name: 'V', StartLocation: depot, MaxWeight: -5 }], Locations: four });
    expect(neg).toEqual(['Vehicles[0].MaxWeight: must be between 0 and 1000000000000 (got -5)']);
    const speed = schema({ Vehicles: [{ Name: 'V', StartLocation: depot, Speed: -30, MaxMinutes: -1 }], Locations: four });
    expect(speed.map((m) => m.split(':')[0])).toEqual(['Vehicles[0].Speed', 'Vehicles[0].MaxMinutes']);
    const w = schema({ Vehicles: [{ Name: 'V', StartLocation: depot }], Locations: [...four.slice(0, 3), { ...four[3], Weight: -1, Wait: -60 }] });
    expect(w.map((m) => m.split(':')[0])).toEqual(['Locations[3].Wait', 'Locations[3].Weight']);
    const fuel = schema({ Vehicles: [{ Name: 'V', StartLocation: depot, FuelCost: -2 }], Locations: [{ ...four[0], Priority: -1 }] });
    // a negative Priority is a valid priority (below the default 0), not an error
    expect(fuel.map((m) => m.split(':')[0])).toEqual(['Vehicles[0].FuelCost']);
    // A record built in code (not parsed) with an amount out of bounds: the same path, before the solver.
    const built = setup({ Vehicles: [{ Name: 'V', StartLocation: depot }], Locations: four });
    built.spec.Vehicles![0].MaxWeight = -5;
    built.spec.Locations![3].Wait = 1e6;
    expect(((await dispatchOnMatrix(built.spec, built.travel)).Errors ?? []).map((e) => e.Message)).toEqual([
      'Vehicles[0].MaxWeight: must be between 0 and 1000000000000 (got -5)', 'Locations[3].Wait: must be between 0 and 86400 (got 1000000)',
    ]);
    const lowPriority = setup({ Vehicles: [{ Name: 'V', StartLocation: depot }], Locations: [{ ...four[0], Priority: -3 }, four[1]] });
    expect((await dispatchOnMatrix(lowPriority.spec, lowPriority.travel)).Status).toBe('Success');
    // A one-hour shift with 20-minute stops: two fit; the others are left out by the shift, not by a window.
    const shift = await msgs({
      Vehicles: [{ Name: 'V', StartLocation: depot, Tin: '2026-12-01T08:00:00', Tout: '2026-12-01T09:00:00' }],
      Locations: four.map((l) => ({ ...l, Wait: 1200 })),
    });
    expect(shift).toHaveLength(2);
    for (const m of shift) {
      expect(m).toMatch(/shifts \(Tin\/Tout\)/);
      expect(m).not.toMatch(/time window/);
    }
    // A stop without a window that would push windowed stops past their deadlines (before them) or
    // the route past Tout (after them) names the other stops' windows (the more frequent cause).
    const other = await msgs({
      Vehicles: [{ Name: 'V', StartLocation: depot, Tin: '2026-12-01T08:00:00', Tout: '2026-12-01T08:20:00' }],
      Locations: [
        { Name: 'Due', LatLong: ll(0, 0.01), Wait: 600, TimeConstraintDeparture: '2026-12-01T08:12:00' },
        { Name: 'Free', LatLong: ll(0, -0.01), Wait: 600, Vehicle: 'V' },
        { Name: 'Due2', LatLong: ll(0, 0.02), TimeConstraintDeparture: '2026-12-01T08:14:00' },
      ],
    });
    expect(other).toHaveLength(1);
    expect(other[0]).toMatch(/'Free'.*other|'Free'.*already on the routes/);
  });

  it('pickups and deliveries (Delivery names the drop-off), non-stop by default', async () => {
    // on a line east of the depot, open route: P at 1 km, X at 2 km, D at 3 km
    const { spec, travel } = setup({
      Vehicles: [{ Name: 'V', StartLocation: depot, MaxWeight: 10 }],
      Locations: [
        { Name: 'P', LatLong: ll(0, 0.01), Delivery: 'D', Weight: 10 },
        { Name: 'X', LatLong: ll(0, 0.02) },
        { Name: 'D', LatLong: ll(0, 0.03), LocationType: 'Delivery' },
      ],
    });
    const res = await dispatchOnMatrix(spec, travel);
    expect(names(res)).toEqual([['Depot', 'P', 'D', 'X']]);
    const free = setup({ ...(spec as DispatchSpecificationInput), Locations: spec.Locations!.map((l) => (l.Name === 'P' ? { ...l, DeliveryNonStop: false } : l)) });
    const res2 = await dispatchOnMatrix(free.spec, free.travel);
    expect(names(res2)).toEqual([['Depot', 'P', 'X', 'D']]);
  });

  it('Conditions ⊆ Roles (case-insensitive), Location.Vehicle pre-assigns, Priority decides what is left out', async () => {
    const { spec, travel } = setup({
      Vehicles: [
        { Name: 'Plain', StartLocation: depot, FinishLocation: depot, MaxWeight: 1 },
        { Name: 'Cold', StartLocation: { ...depot, LatLong: ll(1, 1) }, Roles: 'Frozen, lift', MaxWeight: 1 },
      ],
      Locations: [
        { Name: 'Ice', LatLong: ll(0, 0.01), Conditions: 'frozen', Weight: 0.3 },
        { Name: 'Mine', LatLong: ll(0, 0.01), Vehicle: 'Cold', Weight: 0.4, Priority: 5 },
        { Name: 'Low', LatLong: ll(0, 0.01), Weight: 0.7, Priority: 1 },
        { Name: 'High', LatLong: ll(0, 0.01), Weight: 0.7, Priority: 9 },
      ],
    });
    const res = await dispatchOnMatrix(spec, travel);
    const byVeh = Object.fromEntries(res.Items!.map((it) => [it.Vehicle!.Name, it.Locations!.map((l) => l.Name)]));
    expect(byVeh.Cold).toEqual(expect.arrayContaining(['Ice', 'Mine']));
    expect(byVeh.Plain).toContain('High');
    expect(res.Errors!.map((e) => e.Message)).toEqual([expect.stringMatching(/'Low'.*capacity/)]);
  });

  it('no vehicles: one is implied from the Start/Finish locations', async () => {
    const { spec, travel } = setup({
      Locations: [
        { Name: 'S', LatLong: ll(0, 0), LocationType: 'Start' },
        { Name: 'A', LatLong: ll(0, 0.02) },
        { Name: 'B', LatLong: ll(0, 0.01) },
        { Name: 'F', LatLong: ll(0, 0.03), LocationType: 'Finish' },
      ],
    });
    const res = await dispatchOnMatrix(spec, travel);
    expect(names(res)).toEqual([['S', 'B', 'A', 'F']]);
    expect(res.Items![0].Locations![0].TimeEstimatedArrival).toBe('0001-01-01T00:00:00'); // no clock given
  });

  it('Speed > 0 overrides the road times; FuelCost weights the vehicles', async () => {
    const { spec, travel } = setup({
      CurrentTime: '2026-12-01T08:00:00', DistanceUnit: 'Kilometer',
      Vehicles: [
        { Name: 'Dear', StartLocation: depot, FinishLocation: depot, FuelCost: 2 },
        { Name: 'Cheap', StartLocation: depot, FinishLocation: depot, FuelCost: 1, Speed: 36 }, // 36 km/h = 10 m/s... 
      ],
      Locations: [{ Name: 'A', LatLong: ll(0, 0.1) }],
    });
    const res = await dispatchOnMatrix(spec, travel);
    expect(res.Items!.map((i) => i.Vehicle!.Name)).toEqual(['Cheap']);
    expect(res.Items![0].Locations![1].Time).toBe(1000); // 10 km at 36 km/h
  });

  it('MinimumVehicles uses as few vehicles as possible, then minimises cost', async () => {
    const raw: DispatchSpecificationInput = {
      Vehicles: [{ Name: 'V1', StartLocation: depot, FinishLocation: depot }, { Name: 'V2', StartLocation: depot, FinishLocation: depot }],
      Locations: [{ Name: 'East', LatLong: ll(0, 0.01) }, { Name: 'West', LatLong: ll(0, -0.01) }, { Name: 'East2', LatLong: ll(0, 0.02) }],
    };
    const min = setup({ ...raw, DispatchMode: 'MinimumVehicles' });
    const res = await dispatchOnMatrix(min.spec, min.travel);
    expect(res.Items).toHaveLength(1);
    expect(names(res)[0]).toHaveLength(5);
  });

  it('bad input fails with the field path; a MidwayDrop with no capacity anywhere is reported and ignored', async () => {
    const { spec, travel } = setup({
      Vehicles: [{ Name: 'V', StartLocation: depot }],
      Locations: [{ Name: 'P', LatLong: ll(0, 0.01), Delivery: 'Nowhere' }],
    });
    const res = await dispatchOnMatrix(spec, travel);
    expect(res.Status).toBe('Failed');
    expect(res.Errors![0].Message).toMatch(/Locations\[0\]\.Delivery/);
    const b = setup({
      Vehicles: [{ Name: 'V', StartLocation: depot }],
      Locations: [{ Name: 'A', LatLong: ll(0, 0.01) }, { Name: 'Drop', LatLong: ll(0, 0.02), LocationType: 'MidwayDrop' }],
    });
    const res2 = await dispatchOnMatrix(b.spec, b.travel);
    expect(res2.Status).toBe('SuccessWithErrors');
    expect(res2.Errors!.map((e) => e.Message)).toEqual(["'Drop' (Locations[1]): a MidwayDrop is visited only when MaxWeight, MaxVolume or MaxSkids would be exceeded, and no vehicle has any of them; it was ignored"]);
    expect(names(res2)).toEqual([['Depot', 'A']]);
    const wrong = await dispatchOnMatrix(b.spec, { time: [0], distance: [0] });
    expect(wrong.Status).toBe('Failed');
    expect(checks.count).toBeGreaterThan(8);
  });
});
