/**
 * EvaluatePlan on the Monaco fixture: the solver's plan evaluates to the solver's own answer; a
 * stop moved by hand is timed on the roads; a move that breaks a rule says which, where and by
 * how much, naming the contract's field; a stop left out gets the vehicle that comes closest and
 * what it misses by; bad plans are Failed with errors naming `Routes[i]…`.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { checkServiceWindows } from '../../src/ops/dispatch/check.js';
import type { DispatchResult, EvaluatePlanResult } from '../../src/records/index.js';
import { fixtureDataset } from '../helpers/datasets.js';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 1 });
});
afterAll(() => engine.close());

const DAY = '2026-12-01';
const at = (hm: string): string => `${DAY}T${hm}:00`;
const DEPOT = { Latitude: 43.7314, Longitude: 7.42 };
const rows = readFileSync(new URL('../ui/fixtures/monaco-50.csv', import.meta.url), 'utf8').trim().split('\n').slice(1, 21);
const STOPS = rows.map((r) => {
  const [Name, la, lo, w, wait] = r.split(',');
  return { Name, LatLong: { Latitude: Number(la), Longitude: Number(lo) }, Weight: Number(w), Wait: Number(wait) };
});
const van = (Name: string, MaxWeight = 40) => ({
  Name, MaxWeight, Tin: at('08:00'), Tout: at('18:00'),
  StartLocation: { Name: `${Name} start`, LatLong: DEPOT }, FinishLocation: { Name: `${Name} finish`, LatLong: DEPOT },
});
const SPEC = { DispatchMode: 'Auto', DistanceUnit: 'Kilometer', RouteOptimize: 'MinimizeTime', Vehicles: [van('Van 1'), van('Van 2')], Locations: STOPS };

/** The plan of a result: per vehicle, its stops' names in order (its own ends left out). */
const planOf = (r: DispatchResult) => (r.Items ?? []).map((it) => ({
  Vehicle: it.Vehicle!.Name!, Locations: (it.Locations ?? []).filter((l) => l.LocationType !== 'Start' && l.LocationType !== 'Finish').map((l) => l.Name!),
}));

let solved: DispatchResult;
beforeAll(async () => {
  solved = await engine.dispatch(SPEC, { seed: 1 });
  expect(solved.Status).toBe('Success');
});

describe('EvaluatePlan', () => {
  it("reproduces the solver's answer for the solver's own plan: the same ETAs and legs, feasible", async () => {
    const r = await engine.evaluatePlan({ Specification: SPEC, Routes: planOf(solved) });
    expect(r.Status).toBe('Success');
    expect(r.Feasible).toBe(true);
    expect(r.Violations).toEqual([]);
    expect(r.Unserved).toEqual([]);
    expect(r.Items).toEqual(solved.Items);
    expect(r.Distance).toBeGreaterThan(0);
  });

  it('times a stop moved to the other van on the roads and keeps every window', async () => {
    const plan = planOf(solved);
    const moved = plan[0].Locations.pop()!;
    plan[1].Locations.splice(1, 0, moved);
    const r = await engine.evaluatePlan({ Specification: SPEC, Routes: plan });
    expect(r.Feasible).toBe(true);
    const item = r.Items!.find((it) => it.Vehicle!.Name === plan[1].Vehicle)!;
    expect(item.Locations!.map((l) => l.Name)).toEqual([`${plan[1].Vehicle} start`, ...plan[1].Locations, `${plan[1].Vehicle} finish`]);
    expect(checkServiceWindows(r as DispatchResult)).toEqual([]);
    // ETAs increase along the route by the legs and services
    const times = item.Locations!.map((l) => Date.parse(`${l.TimeEstimatedArrival}Z`));
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThanOrEqual(times[i - 1] + 1000 * (item.Locations![i].Time ?? 0));
  });

  it('names what a move breaks, where and by how much: capacity, a window, the shift', async () => {
    const tight = { ...SPEC, Vehicles: [van('Van 1', 40), van('Van 2', 10)], Locations: STOPS.map((l, i) => (i === 0 ? { ...l, TimeConstraintArrival: at('08:00'), TimeConstraintDeparture: at('08:10') } : l)) };
    // everything on Van 2, the stop with an early window last
    const names = STOPS.map((l) => l.Name);
    const r = await engine.evaluatePlan({ Specification: tight, Routes: [{ Vehicle: 'Van 2', Locations: [...names.slice(1), names[0]] }], Explain: false });
    expect(r.Status).toBe('Success');
    expect(r.Feasible).toBe(false);
    const cap = r.Violations!.find((v) => v.Kind === 'Capacity')!;
    const total = STOPS.reduce((a, l) => a + l.Weight, 0);
    expect(cap).toMatchObject({ Vehicle: 'Van 2', Field: 'Vehicles[1].MaxWeight', Amount: total - 10 });
    expect(cap.Message).toMatch(new RegExp(`carry ${total} Weight where its MaxWeight is 10`));
    const win = r.Violations!.find((v) => v.Kind === 'Window')!;
    expect(win).toMatchObject({ Vehicle: 'Van 2', Location: names[0], Field: 'Locations[0].TimeConstraintDeparture' });
    expect(win.Amount).toBeGreaterThan(3600);
    expect(win.Message).toMatch(/too late for its window \(to be done by 08:10, service must start by 08:06\)/);
    // the answer still has every ETA (served late), so the page can draw it
    expect(r.Items![0].Locations).toHaveLength(STOPS.length + 2);
  });

  it('explains a stop left out: the vehicle that can take it, or the one closest and by how much it misses', async () => {
    const plan = planOf(solved);
    const left = plan[0].Locations.shift()!;
    const r = await engine.evaluatePlan({ Specification: SPEC, Routes: plan });
    expect(r.Status).toBe('SuccessWithErrors');
    expect(r.Unserved).toHaveLength(1);
    expect(r.Unserved![0]).toMatchObject({ Location: left, Fits: true });
    expect(r.Unserved![0].Message).toMatch(/can take it/);
    expect(r.Errors!.map((e) => e.Message).join()).toContain(left);

    // no room anywhere: both vans full — the closest misses by the stop's weight at most
    const full = { ...SPEC, Vehicles: [van('Van 1', 1), van('Van 2', 1)] };
    const r2 = await engine.evaluatePlan({ Specification: full, Routes: [{ Vehicle: 'Van 1', Locations: [STOPS[2].Name] }] });
    const u = r2.Unserved!.find((x) => x.Location === STOPS[0].Name)!;
    expect(u.Fits).toBe(false);
    expect(u.Vehicle).toBe('Van 2'); // the empty van misses by less
    expect(u.Misses![0]).toMatchObject({ Kind: 'Capacity', Field: 'Vehicles[1].MaxWeight', Amount: STOPS[0].Weight - 1 });
    expect(u.Message).toMatch(/Van 2 comes closest/);
  });

  it('refuses a plan that names what is not there, or a stop twice, naming Routes[i]', async () => {
    const bad = async (Routes: unknown): Promise<EvaluatePlanResult> => engine.evaluatePlan({ Specification: SPEC, Routes });
    const r1 = await bad([{ Vehicle: 'Van 9', Locations: [] }]);
    expect(r1.Status).toBe('Failed');
    expect(r1.Errors![0].Message).toMatch(/Routes\[0\]\.Vehicle.*Van 9/);
    const r2 = await bad([{ Vehicle: 'Van 1', Locations: [STOPS[0].Name, 'Nowhere'] }]);
    expect(r2.Errors![0].Message).toMatch(/Routes\[0\]\.Locations\[1\].*Nowhere/);
    const r3 = await bad([{ Vehicle: 'Van 1', Locations: [STOPS[0].Name] }, { Vehicle: 'Van 2', Locations: [STOPS[0].Name] }]);
    expect(r3.Errors![0].Message).toMatch(/Routes\[1\]\.Locations\[0\].*in the plan already \(Routes\[0\]\.Locations\[0\]\)/);
    const r4 = await bad([{ Vehicle: 'Van 1', Locations: [] }, { Vehicle: 'Van 1', Locations: [] }]);
    expect(r4.Errors![0].Message).toMatch(/Routes\[1\]\.Vehicle/);
    const r5 = await engine.evaluatePlan({ Specification: { ...SPEC, Vehicles: 'x' }, Routes: [] });
    expect(r5.Status).toBe('Failed');
    expect(r5.Errors![0].Message).toMatch(/Specification\.Vehicles/);
  });
});
