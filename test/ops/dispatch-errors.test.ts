/**
 * Dispatch errors in the contract's words: what the solver model would have refused is checked
 * in the ops layer first and named by the request's field (docs/vrp.md, "Dispatch records";
 * test/errors/contract-paths.test.ts walks every error systematically).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { buildDispatchInput, dispatchOp, inContractTerms } from '../../src/ops/dispatch/index.js';
import { invalidInput, isEngineError } from '../../src/core/errors.js';
import type { DispatchSpecificationInput } from '../../src/records/index.js';
import { fixtureDataset } from '../helpers/datasets.js';
import { dispatchOnPlane, ll, planeSetup } from '../helpers/plane.js';

const depot = { Name: 'Depot', LatLong: ll(0, 0) };
const DAY = '2026-12-01';
const three = [1, 2, 3].map((k) => ({ Name: `S${k}`, LatLong: ll(0, 0.01 * k) }));
const messages = (r: { Errors?: { Message?: string }[] }): string[] => (r.Errors ?? []).map((e) => e.Message ?? '');

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 1 });
});
afterAll(() => engine.close());

describe('what a Dispatch without stops answers', () => {
  it('{} (neither Locations nor Vehicles) fails naming Locations — was `places: must be a positive integer`', async () => {
    for (const spec of [{}, { Locations: [], Vehicles: [] }, { locations: null }]) {
      const r = await dispatchOp(engine.context(), spec);
      expect(r).toEqual({ Items: [], Status: 'Failed', Errors: [{ Message: 'Locations: at least one stop is required (the specification has neither Locations nor Vehicles)' }] });
    }
  });

  it('Vehicles and no stops: an empty plan (Success, no Items), with or without depots', async () => {
    expect(await dispatchOnPlane({ Vehicles: [{ Name: 'V' }] })).toEqual({ Status: 'Success', Errors: [], Items: [] });
    expect(await dispatchOnPlane({ Vehicles: [{ Name: 'V', StartLocation: depot }] })).toEqual({ Status: 'Success', Errors: [], Items: [] });
    const r = await dispatchOp(engine.context(), { Vehicles: [{ Name: 'V' }, { Name: 'W', StartLocation: { LatLong: ll(43.7314, 7.42) } }] });
    expect(r).toEqual({ Status: 'Success', Errors: [], Items: [] });
    // only a driver's break without a place: nothing to place, nothing to do
    expect(await dispatchOp(engine.context(), { Locations: [{ LocationType: 'Break', Wait: 600 }] })).toEqual({ Status: 'Success', Errors: [], Items: [] });
  });
});

describe('shifts and windows', () => {
  it('Tout before Tin fails naming Vehicles[i].Tout — was `vehicles[0].shift: starts after it ends`', async () => {
    const r = await dispatchOnPlane({
      Vehicles: [{ Name: 'A', StartLocation: depot }, { Name: 'B', StartLocation: depot, Tin: `${DAY}T10:00:00`, Tout: `${DAY}T09:00:00` }], Locations: three,
    });
    expect(r.Status).toBe('Failed');
    expect(messages(r)).toEqual([`Vehicles[1].Tout: is before Tin (${DAY}T09:00:00 < ${DAY}T10:00:00): the vehicle would have no working hours`]);
  });

  it('without Tin, a Tout before CurrentTime (when the vehicle would start) fails the same way', async () => {
    const r = await dispatchOnPlane({ CurrentTime: `${DAY}T10:00:00`, Vehicles: [{ Name: 'A', StartLocation: depot, Tout: `${DAY}T09:30:00` }], Locations: three });
    expect(messages(r)).toEqual([`Vehicles[0].Tout: is before CurrentTime (${DAY}T09:30:00 < ${DAY}T10:00:00): a vehicle without Tin starts at CurrentTime, so it would have no working hours`]);
    // with Tin, CurrentTime does not matter
    const ok = await dispatchOnPlane({ CurrentTime: `${DAY}T10:00:00`, Vehicles: [{ Name: 'A', StartLocation: depot, Tin: `${DAY}T08:00:00`, Tout: `${DAY}T09:30:00` }], Locations: three });
    expect(ok.Status).toBe('Success');
  });

  it('windows and shifts within one second (fractional dates) never reach the solver as empty: the stop is reported, named', async () => {
    const r = await dispatchOnPlane({
      Vehicles: [{ Name: 'A', StartLocation: depot }],
      Locations: [
        ...three,
        { Name: 'Blink', LatLong: ll(0, 0.04), CanArriveEarly: false, TimeConstraintArrival: `${DAY}T10:00:00.7`, TimeConstraintDeparture: `${DAY}T10:00:00.9` },
        { Name: 'Lunch', LocationType: 'Break', Wait: 60, TimeConstraintArrival: `${DAY}T12:00:00.2`, TimeConstraintDeparture: `${DAY}T12:00:00.8` },
      ],
    });
    expect(r.Status).toBe('SuccessWithErrors');
    expect(messages(r)).toEqual([
      "'Blink' (Locations[3]) was not dispatched: its time window cannot be met (it closes before the Wait of 0 s can end)",
      "'Lunch' (Locations[4]): the Break's window ends before it opens (TimeConstraintDeparture before TimeConstraintArrival); it was not scheduled",
    ]);
    // an arrival alone at a fraction of a second is served at the next whole second
    const at = await dispatchOnPlane({ Vehicles: [{ Name: 'A', StartLocation: depot }], Locations: [{ Name: 'At', LatLong: ll(0, 0.01), CanArriveEarly: false, TimeConstraintArrival: `${DAY}T10:00:00.7` }] });
    expect(at.Status).toBe('Success');
    expect(at.Items![0].Locations![1].TimeEstimatedArrival).toBe(`${DAY}T10:00:01`);
  });
});

describe('amounts at their bounds', () => {
  it('the largest Weight, Volume, Skids, Wait and Priority are dispatched; FuelCost ratios past 10,000:1 count as 10,000:1', async () => {
    const big = await dispatchOnPlane({
      Vehicles: [{ Name: 'A', StartLocation: depot, MaxWeight: 1e12, MaxVolume: 1e12, MaxSkids: 1e9 }],
      Locations: [{ ...three[0], Weight: 1e12, Volume: 1e12, Skids: 1e9, Wait: 86_400, Priority: 1_000_000 }, { ...three[1], Priority: -1_000_000 }],
    });
    expect(big.Status, messages(big).join('\n')).toBe('Success');
    const fuel = await dispatchOnPlane({
      Vehicles: [{ Name: 'Dear', StartLocation: depot, FuelCost: 1e6 }, { Name: 'Cheap', StartLocation: depot, FuelCost: 1e-9 }], Locations: three,
    });
    expect(fuel.Status).toBe('Success');
    expect(fuel.Items!.map((it) => it.Vehicle!.Name)).toEqual(['Cheap']);
  });
});

describe('the safety net: a solver error is told in contract terms', () => {
  it("maps the model's stops, vehicles (trips), breaks and pairs back to Locations and Vehicles", () => {
    const raw: DispatchSpecificationInput = {
      CurrentTime: `${DAY}T08:00:00`,
      Vehicles: [{ Name: 'A', StartLocation: depot, MaxStops: 1 }, { Name: 'B', StartLocation: depot }],
      Locations: [
        { Name: 'Lunch', LocationType: 'Break', Wait: 600, Vehicle: 'B' },
        { Name: 'P', LatLong: ll(0, 0.01), Delivery: 'D' },
        { Name: 'D', LatLong: ll(0, 0.02) },
        { Name: 'X', LatLong: ll(0, 0.03), Weight: 2 },
      ],
    };
    const { spec, travel } = planeSetup(raw);
    const built = buildDispatchInput(spec, travel);
    if ('issues' in built) throw new Error(JSON.stringify(built.issues));
    const { input, b } = built;
    const told = (path: string, message = 'is wrong'): string => {
      const e = inContractTerms(invalidInput(path, message), input, b);
      return isEngineError(e) ? e.message : String(e);
    };
    const stopOf = (name: string): number => b.stopLoc.findIndex((li) => spec.Locations![li].Name === name);
    expect(told(`stops[${stopOf('X')}].windows[0]`, 'opens after it closes')).toBe('Locations[3].TimeConstraintArrival: opens after it closes');
    expect(told(`stops[${stopOf('X')}].demand[0]`)).toBe('Locations[3].Weight: is wrong');
    expect(told(`stops[${stopOf('P')}].service`)).toBe('Locations[1].Wait: is wrong');
    // A has trips (MaxStops): every model vehicle of it is Vehicles[0]; B is the last model vehicle
    const tripsOfA = b.modelOf.filter((v) => v === 0).length;
    expect(tripsOfA).toBeGreaterThan(1);
    expect(told(`vehicles[${tripsOfA - 1}].shift`, 'starts after it ends')).toBe('Vehicles[0].Tout: starts after it ends');
    expect(told(`vehicles[${b.modelOf.indexOf(1)}].capacity[1]`)).toBe('Vehicles[1].MaxVolume: is wrong');
    expect(told(`vehicles[${b.modelOf.indexOf(1)}].breaks[0].window`)).toBe('Locations[0]: is wrong');
    expect(told('pairs[0]', 'pickup and delivery must be different stops')).toBe('Locations[1].Delivery: pickup and delivery must be different stops');
    expect(told('places', 'must be a positive integer')).toBe('Locations: must be a positive integer');
    expect(told('startTime')).toBe('CurrentTime: is wrong');
    // anything else passes unchanged
    const other = invalidInput('Locations[2].LatLong', 'far away');
    expect(inContractTerms(other, input, b)).toBe(other);
  });
});
