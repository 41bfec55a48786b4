/** Live state and re-dispatch on the Monaco fixture (issue #24): invariants of the next plan. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine.js';
import type { RecordDef } from '../../../src/records/index.js';
import { DispatchSpecificationSchema, RedispatchSpecificationSchema, dateToSeconds, type DispatchResult, type DispatchSpecification, type Location, type RedispatchResult, type RedispatchSpecification } from '../../../src/records/index.js';
import { liveState, type LiveEvent } from '../../../src/ops/live/state.js';
import { redispatch } from '../../../src/ops/live/redispatch.js';
import { checkServiceWindows } from '../../../src/ops/dispatch/check.js';
import { validateSolution } from '../../../src/vrp/validate.js';
import type { Fix } from '../../../src/route/match.js';
import { Rng } from '../../../src/core/rng.js';
import { metresPerDegree } from '../../../src/core/geo.js';
import { fixtureDataset } from '../../helpers/datasets.js';
import { reachablePool, type LL } from '../../helpers/monaco-stops.js';

let engine: Engine;
let pool: LL[];
let spec: DispatchSpecification;
let plan: DispatchResult;
const T0 = '2026-11-26T08:00:00Z';
const ms = (s: string | undefined): number => dateToSeconds(s)! * 1000;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function parsed<T>(schema: RecordDef<any>, v: unknown): T {
  const r = schema.safeParse(v);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  return r.value as T;
}

beforeAll(async () => {
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 1 });
  pool = reachablePool(engine);
  const depot = pool[0];
  const stops = pool.slice(1, 15).map((p, i) => ({ Name: `S${i + 1}`, LatLong: p, Wait: 300, Weight: 1 }));
  // a pickup and its delivery among them
  stops[2] = { ...stops[2], Name: 'P1', Delivery: 'D1', DeliveryNonStop: false, Weight: 2 } as typeof stops[number];
  stops[9] = { ...stops[9], Name: 'D1', Weight: 0 };
  spec = parsed<DispatchSpecification>(DispatchSpecificationSchema, {
    CurrentTime: T0, DistanceUnit: 'Kilometer', MinimumOptimization: 3,
    Vehicles: ['Van A', 'Van B'].map((Name) => ({ Name, StartLocation: { Name: 'Depot', LatLong: depot }, FinishLocation: { Name: 'Depot', LatLong: depot }, MaxWeight: 10 })),
    Locations: stops,
  });
  plan = await engine.dispatch(spec, { seed: 1 });
  expect(plan.Status).toBe('Success');
  expect(plan.Items).toHaveLength(2);
}, 120_000);
afterAll(() => engine.close());

const stopsOf = (r: DispatchResult, v: string): Location[] => (r.Items ?? []).find((i) => i.Vehicle?.Name === v)?.Locations?.filter((l) => l.LocationType !== 'Start' && l.LocationType !== 'Finish') ?? [];

/** A dwell at each of `n` first stops of a vehicle, fixes every 10 s with 5 m noise, from its planned arrival to the end of service; then `now`. */
function dwellTrack(r: DispatchResult, v: string, n: number, rng: Rng): { fixes: Fix[]; now: number } {
  const fixes: Fix[] = [];
  let now = 0;
  const road = (l: Location) => engine.context().travel.place({ lat: l.LatLong!.Latitude, lon: l.LatLong!.Longitude }, 'test').snap;
  for (const l of stopsOf(r, v).slice(0, n)) {
    const a = ms(l.TimeEstimatedArrival);
    const p = road(l); // parked on the street
    const { kx, ky } = metresPerDegree(p.lat);
    for (let t = a; t <= a + (l.Wait ?? 0) * 1000; t += 10_000) fixes.push({ lat: p.lat + (rng.normal() * 5) / ky, lon: p.lon + (rng.normal() * 5) / kx, ts: t });
    now = a + (l.Wait ?? 0) * 1000 + 60_000;
  }
  // it drove on: a fix away from the last stop
  const next = stopsOf(r, v)[n];
  if (next) { const p = road(next); fixes.push({ lat: p.lat, lon: p.lon, ts: now - 20_000 }); }
  return { fixes, now };
}

const request = (over: Record<string, unknown>) => parsed<RedispatchSpecification>(RedispatchSpecificationSchema, { RouteID: 1, ...over });

describe('live state', () => {
  it('marks the stops a vehicle dwelt at as done, the rest remaining with renewed estimates; no track = nothing done', () => {
    const { fixes, now } = dwellTrack(plan, 'Van A', 2, new Rng(1));
    const st = liveState(engine.context().travel, { result: plan, stored: { spec, done: [] }, tracks: new Map([['Van A', fixes]]), events: [], asOf: now });
    const a = st.find((s) => s.name === 'Van A')!, b = st.find((s) => s.name === 'Van B')!;
    expect(a.done.map((d) => d.name)).toEqual(stopsOf(plan, 'Van A').slice(0, 2).map((l) => l.Name));
    expect(a.done.every((d) => d.source === 'track')).toBe(true);
    expect(a.remaining.map((r) => r.entry.name)).toEqual(stopsOf(plan, 'Van A').slice(2).map((l) => l.Name));
    expect(a.position, JSON.stringify(fixes.slice(-3))).not.toBeNull();
    expect(b.done).toEqual([]);
    // estimates never before now, in order
    for (const s of st) for (let i = 1; i < s.remaining.length; i++) expect(s.remaining[i].eta).toBeGreaterThanOrEqual(s.remaining[i - 1].eta);
    expect(a.remaining[0].eta).toBeGreaterThanOrEqual(now / 1000);
  });

  it('a vehicle driving past a stop (no dwell) does not mark it done; events override the track', () => {
    const first = stopsOf(plan, 'Van A')[0];
    const t = ms(first.TimeEstimatedArrival);
    const pass: Fix[] = [0, 10_000].map((d) => ({ lat: first.LatLong!.Latitude, lon: first.LatLong!.Longitude, ts: t + d }));
    const ev: LiveEvent[] = [{ vehicle: 'Van B', location: stopsOf(plan, 'Van B')[0].Name!, event: 'Skipped', ts: t }];
    const st = liveState(engine.context().travel, { result: plan, stored: { spec, done: [] }, tracks: new Map([['Van A', pass]]), events: ev, asOf: t + 60_000 });
    expect(st.find((s) => s.name === 'Van A')!.done).toEqual([]);
    expect(st.find((s) => s.name === 'Van B')!.done).toMatchObject([{ name: ev[0].location, event: 'Skipped', source: 'event' }]);
  });
});

describe('re-dispatch', () => {
  async function run(
    over: Record<string, unknown>, tracks = new Map<string, Fix[]>(), events: LiveEvent[] = [], base: { plan: DispatchResult; spec: DispatchSpecification } = { plan, spec },
  ): Promise<{ r: RedispatchResult; stored: string; violations: string[][] }> {
    const violations: string[][] = [];
    const out = await redispatch(engine.context(), { result: base.plan, stored: { spec: base.spec, done: [] }, tracks, events }, request(over), {
      seed: 1, onSolution: (input, sol) => violations.push(validateSolution(input, sol).violations.map((v) => JSON.stringify(v))),
    });
    if ('issues' in out) throw new Error(JSON.stringify(out.issues));
    return { r: out.result, stored: out.storedSpec, violations };
  }

  it('done stops leave, the stop in progress and the next Frozen stay in place, each vehicle starts where it is now; the new plan is feasible', async () => {
    const { fixes, now } = dwellTrack(plan, 'Van A', 2, new Rng(2));
    const nowIso = new Date(now).toISOString().slice(0, 19) + 'Z';
    const cancel = stopsOf(plan, 'Van B').at(-1)!.Name!;
    const added = { Name: 'N1', LatLong: pool[16], Wait: 120, Weight: 1 };
    const { r, stored, violations } = await run({ CurrentTime: nowIso, Frozen: 1, Cancelled: [cancel], Locations: [added] }, new Map([['Van A', fixes]]));
    expect(violations.flat()).toEqual([]);
    expect(['Success', 'SuccessWithErrors']).toContain(r.Status);
    expect(checkServiceWindows(r), JSON.stringify(r.Items?.map((i) => i.Locations?.map((l) => [l.Name, l.TimeEstimatedArrival])))).toEqual([]);
    const doneA = stopsOf(plan, 'Van A').slice(0, 2).map((l) => l.Name);
    const all = (r.Items ?? []).flatMap((i) => (i.Locations ?? []).map((l) => l.Name));
    for (const d of doneA) expect(all).not.toContain(d);
    expect(all).not.toContain(cancel);
    for (const it of r.Items ?? []) {
      expect(it.Locations![0].LocationType).toBe('Start');
      expect(ms(it.Locations![0].TimeEstimatedArrival)).toBe(Math.round(now / 1000) * 1000);
    }
    // everything still to deliver is on board now: frozen stops and the plan after them fit the capacity together
    for (const it of r.Items ?? []) {
      const onBoard = (it.Locations ?? []).filter((l) => l.LocationType !== 'Start' && l.LocationType !== 'Finish' && !l.Delivery).reduce((a, l) => a + (l.Weight ?? 0), 0);
      expect(onBoard, it.Vehicle?.Name).toBeLessThanOrEqual(10);
    }
    // the next stop of each vehicle is frozen in place
    expect(stopsOf(r, 'Van A')[0].Name).toBe(stopsOf(plan, 'Van A')[2].Name);
    expect(stopsOf(r, 'Van B')[0].Name).toBe(stopsOf(plan, 'Van B')[0].Name);
    const kinds = (k: string) => (r.Changes ?? []).filter((c) => c.Change === k).map((c) => c.Location);
    expect(kinds('Served').sort()).toEqual([...doneA].sort());
    expect(kinds('Cancelled')).toEqual([cancel]);
    expect([...kinds('Added'), ...kinds('Unserved')]).toContain('N1');
    const kept = JSON.parse(stored) as { Specification: DispatchSpecification; Done: { Location: string }[] };
    expect(kept.Done.map((d) => d.Location).sort()).toEqual([...doneA].sort());
    expect(kept.Specification.Locations!.map((l) => l!.Name)).toContain('N1');
    expect(kept.Specification.Locations!.map((l) => l!.Name)).not.toContain(cancel);
  }, 60_000);

  it('a vehicle at a stop (arrived, not left): its first entry is that stop since it got there, then the stop itself, then the next Frozen', async () => {
    const { fixes } = dwellTrack(plan, 'Van A', 1, new Rng(3));
    const first = stopsOf(plan, 'Van A')[0];
    const arrived = ms(first.TimeEstimatedArrival);
    const inside = fixes.filter((f) => f.ts <= arrived + 120_000); // still there, two minutes in
    const nowIso = new Date(arrived + 120_000).toISOString().slice(0, 19) + 'Z';
    const { r, violations } = await run({ CurrentTime: nowIso, Frozen: 1 }, new Map([['Van A', inside]]));
    expect(violations.flat()).toEqual([]);
    expect(checkServiceWindows(r)).toEqual([]);
    const a = r.Items!.find((i) => i.Vehicle?.Name === 'Van A')!.Locations!;
    expect(a[0]).toMatchObject({ LocationType: 'Start', Name: first.Name, TimeEstimatedArrival: first.TimeEstimatedArrival });
    expect(a[1].Name).toBe(first.Name);
    expect(a[2].Name).toBe(stopsOf(plan, 'Van A')[1].Name);
    // it leaves after its service
    expect(ms(a[2].TimeEstimatedArrival)).toBeGreaterThanOrEqual(arrived + (first.Wait ?? 0) * 1000);
  }, 60_000);

  it('a large stability keeps every stop on its vehicle; goods picked up stay on their vehicle', async () => {
    const who = (['Van A', 'Van B'] as const).find((v) => stopsOf(plan, v).some((l) => l.Name === 'P1'))!;
    const t = ms(stopsOf(plan, who).find((l) => l.Name === 'P1')!.TimeEstimatedArrival) + 300_000;
    const nowIso = new Date(t + 60_000).toISOString().slice(0, 19) + 'Z';
    // every stop of its route up to P1 is done (events)
    const upTo = stopsOf(plan, who).map((l) => l.Name!);
    const events: LiveEvent[] = upTo.slice(0, upTo.indexOf('P1') + 1).map((location, k) => ({ vehicle: who, location, event: 'Done', ts: t - 1000 * (100 - k) }));
    const { r, violations } = await run({ CurrentTime: nowIso, Frozen: 0, Stability: 1000 }, new Map(), events);
    expect(violations.flat()).toEqual([]);
    expect((r.Changes ?? []).filter((c) => c.Change === 'Moved'), JSON.stringify([plan.Items?.map((i) => i.Locations?.map((l) => l.Name)), r.Items?.map((i) => i.Locations?.map((l) => l.Name)), r.Errors])).toEqual([]);
    const d1 = stopsOf(r, who).find((l) => l.Name === 'D1');
    expect(d1, 'the delivery stays on the vehicle that holds its goods').toBeDefined();
    expect(d1!.Weight).toBe(2);
  }, 60_000);

  it('an unavailable vehicle leaves the plan; its stops go to the others or are reported', async () => {
    const nowIso = new Date(ms(T0) + 600_000).toISOString().slice(0, 19) + 'Z';
    const { r, violations } = await run({ CurrentTime: nowIso, Unavailable: ['Van B'], Frozen: 0 });
    expect(violations.flat()).toEqual([]);
    expect((r.Items ?? []).map((i) => i.Vehicle?.Name)).not.toContain('Van B');
    const served = new Set(stopsOf(r, 'Van A').map((l) => l.Name));
    for (const l of stopsOf(plan, 'Van B')) {
      expect(served.has(l.Name) || (r.Changes ?? []).some((c) => c.Location === l.Name && c.Change === 'Unserved')).toBe(true);
    }
  }, 60_000);

  it('a vehicle whose shift is over by the time it is free keeps its frozen stops and takes nothing new; the others go on (not refused)', async () => {
    // Van A on shift until 10:00, Van B until 20:00; at 09:59 nothing is done, so Van A's next stop (frozen) ends after its Tout
    const shifts = parsed<DispatchSpecification>(DispatchSpecificationSchema, {
      ...spec, Vehicles: spec.Vehicles!.map((v) => ({ ...v, Tin: T0, Tout: v!.Name === 'Van A' ? '2026-11-26T10:00:00Z' : '2026-11-26T20:00:00Z' })),
    });
    const first = await engine.dispatch(shifts, { seed: 1 });
    expect(first.Status).toBe('Success');
    expect(stopsOf(first, 'Van A').length).toBeGreaterThan(1);
    const { r, violations } = await run({ CurrentTime: '2026-11-26T09:59:00Z', Frozen: 1 }, new Map(), [], { plan: first, spec: shifts });
    expect(violations.flat()).toEqual([]);
    expect(['Success', 'SuccessWithErrors']).toContain(r.Status);
    const a = stopsOf(r, 'Van A').map((l) => l.Name);
    expect(a).toEqual([stopsOf(first, 'Van A')[0].Name]); // its frozen stop, nothing new
    const b = new Set(stopsOf(r, 'Van B').map((l) => l.Name));
    for (const l of stopsOf(first, 'Van A').slice(1)) {
      expect(b.has(l.Name) || (r.Changes ?? []).some((c) => c.Location === l.Name && c.Change === 'Unserved'), l.Name).toBe(true);
    }
  }, 60_000);

  it('bad requests name the field: unknown stop or vehicle, a new stop with a name taken, a day that is over', async () => {
    const ask = (over: Record<string, unknown>) => redispatch(engine.context(), { result: plan, stored: { spec, done: [] }, tracks: new Map(), events: [] }, request({ CurrentTime: T0, ...over }));
    expect(await ask({ Cancelled: ['nope'] })).toMatchObject({ issues: [{ path: 'Cancelled[0]' }] });
    expect(await ask({ Unavailable: ['Van Z'] })).toMatchObject({ issues: [{ path: 'Unavailable[0]' }] });
    expect(await ask({ Locations: [{ Name: 'S1', LatLong: pool[3] }] })).toMatchObject({ issues: [{ path: 'Locations[0].Name' }] });
    expect(await ask({ Locations: [{ LatLong: pool[3] }] })).toMatchObject({ issues: [{ path: 'Locations[0].Name' }] });
    expect(await ask({ CurrentTime: '2026-11-28T08:00:00Z' })).toMatchObject({ issues: [{ path: 'CurrentTime' }] });
  });
});
