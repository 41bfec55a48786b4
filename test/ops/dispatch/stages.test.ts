/**
 * The dispatch mapping stage by stage (src/ops/dispatch/input.ts runs them in this order), each on
 * small hand-made specifications on the flat plane of test/helpers/plane.ts (1° = 100 km, 10 m/s).
 */
import { describe, expect, it } from 'vitest';
import type { DispatchSpecificationInput } from '../../../src/records/index.js';
import { dispatchClock, dayStart } from '../../../src/ops/dispatch/clock.js';
import { draftFleet } from '../../../src/ops/dispatch/fleet.js';
import { chooseDispatchMode } from '../../../src/ops/dispatch/modes.js';
import { pairStops } from '../../../src/ops/dispatch/pairs.js';
import { recordIssues, travelIssues } from '../../../src/ops/dispatch/parse.js';
import { dispatchPlaces, placeIndex } from '../../../src/ops/dispatch/place.js';
import { addStops } from '../../../src/ops/dispatch/stops.js';
import { applyModeTerm, meanArc } from '../../../src/ops/dispatch/terms.js';
import { addTrips, tripPlan } from '../../../src/ops/dispatch/trips.js';
import { BREAK_PRIORITY, DAY_S, SCALE_Q } from '../../../src/ops/dispatch/types.js';
import { breakWindow, serviceWindow, stopWindows } from '../../../src/ops/dispatch/windows.js';
import { applyZoneSkills } from '../../../src/ops/dispatch/zones.js';
import type { Draft } from '../../../src/ops/dispatch/draft.js';
import type { VrpInput } from '../../../src/vrp/model.js';
import { ll, planeSetup } from '../../helpers/plane.js';

const depot = { Name: 'Depot', LatLong: ll(0, 0) };
const D = (hm: string): string => `2026-12-01T${hm}:00`;

/** The draft after the fleet stage, with `unplaced` Locations if given. */
function draftOf(raw: DispatchSpecificationInput, unplaced?: Map<number, string>): Draft {
  const { spec, travel } = planeSetup(raw);
  const places = dispatchPlaces(spec);
  const { mode, reason } = chooseDispatchMode(spec);
  return draftFleet({ spec, travel, opts: unplaced ? { unplaced } : {}, n: places.length, at: placeIndex(places), clock: dispatchClock(spec), unit: 1000, mode, modeReason: reason });
}
/** Fleet, trips, stops (with reloads and breaks), zones. */
function stopsOf(raw: DispatchSpecificationInput, unplaced?: Map<number, string>): Draft {
  const d = draftOf(raw, unplaced);
  addTrips(d);
  addStops(d);
  applyZoneSkills(d);
  return d;
}

describe('parse', () => {
  it('refuses a request with nothing to plan, an empty shift, travel data of the wrong size — in the contract\'s words', () => {
    expect(recordIssues({} as never)).toEqual([{ path: 'Locations', message: expect.stringMatching(/neither Locations nor Vehicles/) }]);
    const { spec, travel } = planeSetup({ Vehicles: [{ Name: 'V', StartLocation: depot, Tin: D('10:00'), Tout: D('09:00') }], Locations: [{ LatLong: ll(0, 0.01) }] });
    expect(recordIssues(spec).map((i) => i.path)).toEqual(['Vehicles[0].Tout']);
    expect(travelIssues(dispatchPlaces(spec), travel)).toEqual([]);
    expect(travelIssues(dispatchPlaces(spec), { time: [0], distance: travel.distance }).map((i) => i.path)).toEqual(['travel.time']);
  });
});

describe('place', () => {
  it('lists every Location (but a Break without a place), then the vehicles\' depots; indexes them', () => {
    const { spec } = planeSetup({
      Vehicles: [{ Name: 'A', StartLocation: depot }, { Name: 'B', FinishLocation: depot }],
      Locations: [{ Name: 'S', LatLong: ll(0, 0.01) }, { Name: 'Lunch', LocationType: 'Break', Wait: 600 }, { Name: 'T', LatLong: ll(0, 0.02) }],
    });
    const places = dispatchPlaces(spec);
    expect(places.map((p) => `${p.kind}${p.index}`)).toEqual(['location0', 'location2', 'start0', 'finish1']);
    const at = placeIndex(places);
    expect([...at.ofLoc]).toEqual([[0, 0], [2, 1]]);
    expect([...at.ofStart]).toEqual([[0, 2]]);
    expect([...at.ofFinish]).toEqual([[1, 3]]);
  });
});

describe('clock', () => {
  it('CurrentTime, else the earliest Tin, else 00:00 of the earliest time in its zone; none = no clock', () => {
    expect(dispatchClock({ CurrentTime: D('07:30'), Vehicles: [{ Tin: D('06:00') }] } as never).rel(D('08:00'))).toBe(1800);
    expect(dispatchClock({ Vehicles: [{ Tin: D('09:00') }, { Tin: D('08:00') }] } as never).rel(D('08:00'))).toBe(0);
    const z = dispatchClock({ Locations: [{ TimeConstraintArrival: '2026-12-01T01:00:00+02:00' }] } as never);
    expect(z.rel('2026-11-30T22:00:00Z')).toBe(0);
    expect(z.utc).toBe(true);
    const none = dispatchClock({ Locations: [{}] } as never);
    expect(none.hasClock).toBe(false);
    expect(none.rel(undefined)).toBeNull();
    expect(dayStart(Date.UTC(2026, 11, 1, 13) / 1000, '2026-12-01T13:00:00')).toBe(Date.UTC(2026, 11, 1) / 1000);
  });
});

describe('windows', () => {
  it('service inside [A, D]: the start in [A, D − Wait], either bound open, rounded inwards; too short = empty', () => {
    expect(serviceWindow(100.5, 1000.5, 60)).toEqual([101, 940]);
    expect(serviceWindow(100, null, 60)).toEqual([100, Infinity]);
    expect(serviceWindow(null, 1000, 60)).toEqual([-Infinity, 940]);
    expect(serviceWindow(null, null, 60)).toBeNull();
    expect(serviceWindow(100, 150, 60)).toBe('empty');
    const clock = dispatchClock({ CurrentTime: D('08:00') } as never);
    // CanArriveEarly does not change the window
    for (const CanArriveEarly of [true, false]) {
      expect(stopWindows({ Wait: 600, CanArriveEarly, TimeConstraintArrival: D('09:00'), TimeConstraintDeparture: D('10:00'), TimeConstraintArrival2: D('14:00'), TimeConstraintDeparture2: D('14:05') } as never, clock))
        .toEqual({ windows: [[3600, 6600]], empty: false });
    }
    expect(stopWindows({ Wait: 600, TimeConstraintArrival: D('09:00'), TimeConstraintDeparture: D('09:05') } as never, clock)).toEqual({ windows: [], empty: true });
    expect(breakWindow({ Wait: 1800, TimeConstraintArrival: D('12:00'), TimeConstraintDeparture: D('12:00') } as never, clock)).toEqual([14400, 14400]);
    expect(breakWindow({ TimeConstraintArrival: D('13:00'), TimeConstraintDeparture: D('12:00') } as never, clock)).toBe('empty');
  });
});

describe('fleet', () => {
  it('an implied vehicle between the Locations typed Start and Finish; profiles per Speed; FuelCost factors; shifts rounded inwards', () => {
    const implied = draftOf({ Locations: [{ Name: 'S', LocationType: 'Start', LatLong: ll(0, 0) }, { Name: 'A', LatLong: ll(0, 0.01) }, { Name: 'F', LocationType: 'Finish', LatLong: ll(0, 0.02) }] });
    expect(implied.vehicles.map((v) => v.Name)).toEqual(['Vehicle']);
    expect(implied.vehIdx).toEqual([-1]);
    expect([implied.model[0].start, implied.model[0].end]).toEqual([0, 2]);
    expect(implied.startLoc[0]?.Name).toBe('S');
    const d = draftOf({
      CurrentTime: '2026-12-01T08:00:00.4', DistanceUnit: 'Kilometer',
      Vehicles: [
        { Name: 'Slow', StartLocation: depot, Speed: 36, FuelCost: 2, Tout: '2026-12-01T17:00:00.7', MaxWeight: 1.5 },
        { Name: 'Road', StartLocation: depot, FuelCost: 1 },
        { Name: 'Slow2', StartLocation: depot, Speed: 36 },
      ],
      Locations: [{ Name: 'A', LatLong: ll(0, 0.01) }],
    });
    expect(d.model.map((m) => m.timeProfile)).toEqual([1, 0, 1]); // one profile per Speed in use
    expect(d.timeProfiles[1][0 * d.n + 0]).toBe(0);
    expect(d.timeProfiles[1][1]).toBe(100); // 1 km at 36 km/h = 100 s
    expect(d.model.map((m) => m.costFactor)).toEqual([200, 100, 100]);
    expect(d.objective).toBe('distance'); // FuelCost: the objective is distance
    expect(d.model[0].shift).toEqual([0, 32400]); // from CurrentTime (the origin) to Tout: 17:00:00.7 − 08:00:00.4 = 32,400.3 s, rounded down
    expect(d.model[0].capacity).toEqual([1.5 * SCALE_Q, 0, 0]);
  });

  it('TimeWindowDepot brings a vehicle without FinishLocation back to its start', () => {
    const d = draftOf({ DispatchMode: 'TimeWindowDepot', Vehicles: [{ Name: 'V', StartLocation: depot }], Locations: [{ LatLong: ll(0, 0.01) }] });
    expect(d.model[0].end).toBe(d.model[0].start);
  });
});

describe('trips', () => {
  it('enough trips for the stops over the limited vehicles, one more; each a vehicle of its own on the next day', () => {
    expect(tripPlan([{ maxStops: 2 }, { maxStops: 0 }], 5)).toEqual([4, 1]);
    expect(tripPlan([{ maxDuration: 3600 }], 12)).toEqual([3]); // 6 stops of 10 min per trip
    const d = draftOf({
      CurrentTime: D('08:00'),
      Vehicles: [{ Name: 'V', StartLocation: depot, MaxStops: 2, Tin: D('08:00'), Tout: D('12:00') }, { Name: 'W', StartLocation: depot, MaxStops: 2, OnTheRoad: true }],
      Locations: [1, 2, 3, 4].map((k) => ({ Name: `S${k}`, LatLong: ll(0, 0.01 * k) })),
    });
    addTrips(d);
    expect(d.model.map((m) => m.label)).toEqual(['V', 'W', 'V_2', 'W_2']);
    expect(d.model[2].shift).toEqual([DAY_S, 4 * 3600 + DAY_S]);
    expect(d.model[2].skills).toContain('trip-of:0');
    expect(d.model[3].start).toBeUndefined(); // OnTheRoad: starts where the last trip ended
    expect(d.model[3].fixedCost).toBe(1 + 400); // one more than the first trip, and its longest start leg (4 km at 10 m/s)
    expect(d.tripOf).toEqual([1, 1, 2, 2]);
  });
});

describe('stops', () => {
  it('demand in thousandths, windows, pre-assigned vehicles; unknown vehicles, empty windows and unplaced stops are reported', () => {
    const d = stopsOf({
      CurrentTime: D('08:00'),
      Vehicles: [{ Name: 'Van', StartLocation: depot }],
      Locations: [
        { Name: 'A', LatLong: ll(0, 0.01), Weight: 2.5, Volume: 1, Skids: 3, Priority: 2, Wait: 60, Conditions: 'cold, lift', Vehicle: 'van', TimeConstraintArrival: D('09:00') },
        { Name: 'Ghost', LatLong: ll(0, 0.02), Vehicle: 'Truck' },
        { Name: 'Short', LatLong: ll(0, 0.03), Wait: 600, TimeConstraintArrival: D('09:00'), TimeConstraintDeparture: D('09:05') },
        { Name: 'Lost', Address: { Street: 'Nowhere' } },
        { Name: 'End', LocationType: 'Finish', LatLong: ll(0, 0) },
      ],
    }, new Map([[3, 'Address: not found']]));
    expect(d.stops).toHaveLength(1);
    expect(d.stops[0]).toMatchObject({ demand: [2500, 1000, 3], priority: 2, service: 60, skills: ['cold', 'lift'], vehicle: 0, windows: [[3600, Infinity]] });
    expect(d.stopLoc).toEqual([0]);
    expect(d.errors).toEqual([
      expect.stringMatching(/'Ghost'.*vehicle 'Truck', which does not exist/),
      expect.stringMatching(/'Short'.*Wait of 600 s/),
      expect.stringMatching(/'Lost'.*Address: not found/),
    ]);
  });
});

describe('reloads', () => {
  it('a MidwayDrop becomes optional reload copies (enough for the demand through the smallest vehicle); ignored without capacities', () => {
    const d = stopsOf({
      Vehicles: [{ Name: 'V', StartLocation: depot, MaxWeight: 10 }],
      Locations: [...[1, 2, 3].map((k) => ({ Name: `S${k}`, LatLong: ll(0, 0.01 * k), Weight: 8 })), { Name: 'Yard', LocationType: 'MidwayDrop', LatLong: ll(0, -0.01) }],
    });
    const reloads = d.stops.filter((s) => s.reload);
    expect(reloads).toHaveLength(3); // ⌈24 / 10⌉ + 1 vehicle = 4, at most the 3 stops
    expect(reloads.every((s) => s.optional)).toBe(true);
    const none = stopsOf({ Vehicles: [{ Name: 'V', StartLocation: depot }], Locations: [{ LatLong: ll(0, 0.01) }, { Name: 'Yard', LocationType: 'MidwayDrop', LatLong: ll(0, -0.01) }] });
    expect(none.stops.some((s) => s.reload)).toBe(false);
    expect(none.errors).toEqual([expect.stringMatching(/'Yard'.*no vehicle has any of them/)]);
  });
});

describe('breaks', () => {
  it('without a place: a break on each owner\'s trips; with a place: a stop per owner, pre-assigned, above every priority', () => {
    const d = stopsOf({
      CurrentTime: D('08:00'),
      Vehicles: [{ Name: 'A', StartLocation: depot }, { Name: 'B', StartLocation: depot }],
      Locations: [
        { Name: 'S', LatLong: ll(0, 0.01) },
        { Name: 'Lunch', LocationType: 'Break', Wait: 1800, Vehicle: 'a', TimeConstraintArrival: D('12:00'), TimeConstraintDeparture: D('13:00') },
        { Name: 'Coffee', LocationType: 'Break', Wait: 600, LatLong: ll(0, 0.02) },
        { Name: 'Nap', LocationType: 'Break', Wait: 600, Vehicle: 'Z' },
        { Name: 'Never', LocationType: 'Break', Wait: 600, TimeConstraintArrival: D('13:00'), TimeConstraintDeparture: D('12:00') },
      ],
    });
    expect(d.model[0].breaks).toEqual([{ duration: 1800, window: [4 * 3600, 5 * 3600], label: 'Lunch' }]);
    expect(d.model[1].breaks).toBeUndefined();
    expect(d.breakLoc[0]).toEqual([1]);
    const coffee = d.stops.filter((s) => s.label === 'Coffee');
    expect(coffee.map((s) => s.vehicle)).toEqual([0, 1]);
    expect(coffee.every((s) => s.priority === BREAK_PRIORITY)).toBe(true);
    expect([...d.breakStops]).toEqual([1, 2]);
    expect(d.errors).toEqual([expect.stringMatching(/'Nap'.*vehicle 'Z', which does not exist/), expect.stringMatching(/'Never'.*ends before it opens/)]);
  });
});

describe('zones', () => {
  it('a stop inside a DoNotEnter zone goes only to the vehicles allowed there; inside every vehicle\'s zone it is left out; an empty DoNotExit zone is said', () => {
    const square = [ll(0.005, 0.005), ll(0.005, 0.015), ll(0.015, 0.015), ll(0.015, 0.005)];
    const far = [ll(1, 1), ll(1, 1.1), ll(1.1, 1.1), ll(1.1, 1)];
    const d = stopsOf({
      Vehicles: [
        { Name: 'Out', StartLocation: depot, Shapes: [{ Points: square, Restriction: 'DoNotEnter' }] },
        { Name: 'In', StartLocation: depot },
        { Name: 'Kept', StartLocation: depot, Shapes: [{ Points: far, Restriction: 'DoNotExit' }] },
      ],
      Locations: [{ Name: 'Inside', LatLong: ll(0.01, 0.01) }, { Name: 'Outside', LatLong: ll(0.03, 0.03) }],
    });
    const inside = d.stops.find((s) => s.label === 'Inside')!;
    const skill = inside.skills!.find((s) => String(s).startsWith('zone-ok:'))!;
    expect(d.model.map((m) => (m.skills ?? []).includes(skill))).toEqual([false, true, false]);
    expect(d.errors).toEqual([expect.stringMatching(/Vehicles\[2\]\.Shapes\[0\].*contains no stop/)]);
    const nobody = stopsOf({ Vehicles: [{ Name: 'Out', StartLocation: depot, Shapes: [{ Points: square, Restriction: 'DoNotEnter' }] }], Locations: [{ Name: 'Inside', LatLong: ll(0.01, 0.01) }] });
    expect(nobody.stops).toHaveLength(0);
    expect(nobody.errors).toEqual([expect.stringMatching(/'Inside'.*every vehicle/)]);
  });
});

describe('pairs', () => {
  it('Delivery pairs two stops; a pair missing a side drops the other (reported); a Delivery naming nothing fails the request', () => {
    const d = stopsOf({
      Vehicles: [{ Name: 'V', StartLocation: depot }],
      Locations: [
        { Name: 'P', LatLong: ll(0, 0.01), Delivery: 'D', DeliveryNonStop: false },
        { Name: 'D', LatLong: ll(0, 0.02) },
        { Name: 'P2', LatLong: ll(0, 0.03), Delivery: 'D2' },
        { Name: 'D2', Address: { Street: 'Nowhere' } },
      ],
    }, new Map([[3, 'Address: not found']]));
    const paired = pairStops(d);
    expect(paired.pairs).toEqual([{ pickup: 0, delivery: 1, nonStop: false }]);
    expect(paired.stops.map((s) => s.label)).toEqual(['P', 'D']);
    expect(paired.stopLoc).toEqual([0, 1]);
    expect(d.errors.at(-1)).toMatch(/'P2'.*(pair|delivery)/i);
    const bad = stopsOf({ Vehicles: [{ Name: 'V', StartLocation: depot }], Locations: [{ Name: 'P', LatLong: ll(0, 0.01), Delivery: 'Nope' }] });
    pairStops(bad);
    expect(bad.issues).toEqual([{ path: 'Locations[0].Delivery', message: "names no location ('Nope')" }]);
  });
});

describe('mode terms', () => {
  it('the mean arc between stops scales the balance term; EqualStop targets J / V', () => {
    // 3 places on a line 0 - 1 - 3: arcs between the stops at 1 and 3 = 2 both ways
    const m = [0, 1, 3, 1, 0, 2, 3, 2, 0];
    expect(meanArc(m, [1, 2])).toBe(2);
    expect(meanArc(m, [1])).toBe(1);
    const input = { places: 3, time: m, distance: m, stops: [{ place: 1 }, { place: 2 }], vehicles: [{ start: 0 }, { start: 0 }], objective: 'time' } as unknown as VrpInput;
    const ctx = applyModeTerm(input, 'EqualStop', [], { time: m, distance: m });
    expect(ctx).toMatchObject({ meanArc: 2, jobs: 2, vehicles: 2 });
    expect(input.balance).toMatchObject({ metric: 'stops', target: 1 });
    const optima = { ...input, balance: undefined } as VrpInput;
    applyModeTerm(optima, 'Optima', [], { time: m, distance: m });
    expect(optima.balance).toBeUndefined();
  });
});
