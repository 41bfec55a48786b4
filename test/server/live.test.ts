/**
 * Live re-dispatch over REST, end to end (issue #24): a dispatch stored with its specification,
 * track points named after the vehicles, the live state, stop events, a re-dispatch stored as the
 * route's next version (GetRoute the newest, Version the others), a job, and bad input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessServer, MONACO_STOPS, post as postAny, type TestServer } from '../helpers/service.js';

/** POST with enums by name. */
const post = (url: string, path: string, body: unknown, key?: string, headers: Record<string, string> = {}) => postAny(url, `${path}?enums=name`, body, key, headers);

let s: TestServer;
let key: string, other: string;
const iso = (ms: number): string => new Date(ms).toISOString().slice(0, 19) + 'Z';
const T0 = Math.floor(Date.now() / 60_000) * 60_000 - 3 * 3_600_000; // the day began three hours ago
let routeId: number;
let plan: any;

async function get(path: string, k = key): Promise<{ status: number; json: any }> {
  const r = await fetch(`${s.url}${path}${path.includes('?') ? '&' : '?'}enums=name`, { headers: { 'X-API-Key': k } });
  return { status: r.status, json: await r.json() };
}

beforeAll(async () => {
  s = await inProcessServer({ accounts: [{ name: 'acme', credit: 1000 }, { name: 'beta', credit: 1000 }] });
  key = s.keys.acme; other = s.keys.beta;
  const depot = { Name: 'Depot', LatLong: MONACO_STOPS[0].LatLong };
  const r = await post(s.url, '/rest/dispatch', {
    CurrentTime: iso(T0), DistanceUnit: 'Kilometer', MinimumOptimization: 2,
    Vehicles: ['Van A', 'Van B'].map((Name) => ({ Name, StartLocation: depot, FinishLocation: depot })),
    Locations: MONACO_STOPS.slice(1),
  }, key, { 'X-Route-Name': 'Monaco day' });
  expect(r.status).toBe(200);
  routeId = Number(r.headers.get('x-route-id'));
  plan = r.json;
  expect(routeId).toBeGreaterThan(0);
}, 120_000);
afterAll(() => s?.close());

const stopsOf = (r: any, v: string): any[] => (r.Items ?? []).find((i: any) => i.Vehicle?.Name === v)?.Locations?.filter((l: any) => l.LocationType !== 'Start' && l.LocationType !== 'Finish') ?? [];

describe('live re-dispatch over REST', () => {
  it('track points named after a vehicle mark the stops it dwelt at; the live state names them, with renewed estimates for the rest', async () => {
    const van = plan.Items.find((i: any) => stopsOf(plan, i.Vehicle.Name).length >= 2).Vehicle.Name;
    const first = stopsOf(plan, van)[0];
    const a = Date.parse(first.TimeEstimatedArrival);
    // parked on the street in front of it for its whole service, then gone
    const snap = s.engine.context().travel.place({ lat: first.LatLong.Latitude, lon: first.LatLong.Longitude }, 't').snap;
    const pts = Array.from({ length: 14 }, (_, i) => ({ Latitude: snap.lat, Longitude: snap.lon, TimeStamp: iso(a + i * 10_000) }));
    const next = stopsOf(plan, van)[1];
    pts.push({ Latitude: next.LatLong.Latitude, Longitude: next.LatLong.Longitude, TimeStamp: iso(a + 200_000) });
    expect((await post(s.url, '/rest/TrackPoints', { Account: van, TrackPoints: pts }, key)).json.Count).toBe(15);
    const live = await get(`/rest/routes/${routeId}/live?AsOf=${iso(a + 300_000)}`);
    expect(live.status).toBe(200);
    expect(live.json).toMatchObject({ Status: 'Success', RouteID: routeId, Version: 1 });
    const v = live.json.Vehicles.find((x: any) => x.Name === van);
    expect(v.Done).toEqual([first.Name]);
    expect(v.Next).toBe(next.Name);
    expect(v.Position).toBeDefined();
    for (const r of v.Remaining) expect(Date.parse(r.TimeEstimatedArrival)).toBeGreaterThanOrEqual(a + 300_000 - 1000);
    // another account sees nothing
    expect((await get(`/rest/routes/${routeId}/live`, other)).json).toMatchObject({ Status: 'Failed', Errors: [{ Message: expect.stringMatching(/^RouteID: no stored route/) }] });
  });

  it('stop events are checked against the route: unknown vehicle, unknown stop, a time in the future — all named, nothing recorded', async () => {
    const van = plan.Items[0].Vehicle.Name;
    const stop = stopsOf(plan, van)[0].Name;
    const bad = await post(s.url, '/rest/StopEvents', { RouteID: routeId, Events: [
      { Vehicle: 'Van Z', Location: stop, Event: 'Done', TimeStamp: iso(T0 + 60_000) },
      { Vehicle: van, Location: 'Nowhere', Event: 'Done', TimeStamp: iso(T0 + 60_000) },
      { Vehicle: van, Location: stop, Event: 'Done', TimeStamp: iso(Date.now() + 3_600_000) },
    ] }, key);
    expect(bad.json.Status).toBe('Failed');
    expect(bad.json.Errors.map((e: any) => e.Message.split(':')[0])).toEqual(['Events[0].Vehicle', 'Events[1].Location', 'Events[2].TimeStamp']);
    expect((await post(s.url, '/rest/StopEvents', { RouteID: routeId, Events: [] }, other)).json.Errors[0].Message).toMatch(/^RouteID:/);
    const ok = await post(s.url, '/rest/StopEvents', { RouteID: routeId, Events: [{ Vehicle: van, Location: stop, Event: 'Done', TimeStamp: iso(T0 + 60_000) }] }, key);
    expect(ok.json).toMatchObject({ Status: 'Success', Count: 1 });
  });

  it('track points: out of time order they are kept in time order; one in the future is refused by name and nothing is recorded', async () => {
    const p = (m: number) => ({ Latitude: 43.73, Longitude: 7.42, TimeStamp: iso(T0 + m * 60_000) });
    expect((await post(s.url, '/rest/TrackPoints', { Account: 'probe', TrackPoints: [p(3), p(1), p(2)] }, key)).json).toMatchObject({ Status: 'Success', Count: 3 });
    const bad = await post(s.url, '/rest/TrackPoints', { Account: 'probe', TrackPoints: [p(4), { ...p(0), TimeStamp: iso(Date.now() + 3_600_000) }] }, key);
    expect(bad.json).toMatchObject({ Status: 'Failed', Count: 0 });
    expect(bad.json.Errors[0].Message).toMatch(/^TrackPoints\[1\]\.TimeStamp: is in the future/);
    const track = await post(s.url, '/rest/track', { Account: 'probe', FromDate: iso(T0), ToDate: iso(T0 + 3_600_000) }, key);
    expect(track.json.TrackPoints.map((x: any) => x.TimeStamp)).toEqual([1, 2, 3].map((m) => iso(T0 + m * 60_000)));
  });

  it('re-dispatch: the next version with its changes, X-Route-ID, GetRoute the newest and Version the first; a second re-dispatch of version 1 is refused', async () => {
    const now = iso(T0 + 3_600_000);
    const r = await post(s.url, '/rest/Redispatch', { RouteID: routeId, CurrentTime: now, Locations: [{ Name: 'New order', LatLong: MONACO_STOPS[1].LatLong, Wait: 60 }], Frozen: 1 }, key);
    expect(r.status).toBe(200);
    expect(r.json.Status === 'Success' || r.json.Status === 'SuccessWithErrors').toBe(true);
    expect(r.json).toMatchObject({ RouteID: routeId, Version: 2 });
    expect(Number(r.headers.get('x-route-id'))).toBe(routeId);
    expect(r.json.Changes.some((c: any) => c.Location === 'New order')).toBe(true);
    for (const it of r.json.Items) expect(it.Locations[0].LocationType).toBe('Start');
    const latest = await post(s.url, '/rest/getroute', { RouteID: routeId }, key);
    expect(latest.json.Items.flatMap((i: any) => i.Locations.map((l: any) => l.Name))).toContain('New order');
    const v1 = await post(s.url, '/rest/getroute', { RouteID: routeId, Version: 1 }, key);
    expect(v1.json.Items.flatMap((i: any) => i.Locations.map((l: any) => l.Name))).not.toContain('New order');
    expect((await post(s.url, '/rest/getroute', { RouteID: routeId, Version: 9 }, key)).json.Errors[0].Message).toMatch(/^Version:/);
    const again = await post(s.url, '/rest/Redispatch', { RouteID: routeId, CurrentTime: now, Version: 1 }, key);
    expect(again.json.Status).toBe('Failed');
    expect(again.json.Errors[0].Message).toMatch(/^Version:/);
    // the route list shows one route, at its name
    const list = await post(s.url, '/rest/routelist', {}, key);
    expect(list.json.Routes.filter((x: any) => x.RouteID === routeId)).toMatchObject([{ RouteName: 'Monaco day' }]);
    const live = await get(`/rest/routes/${routeId}/live?AsOf=${now}`);
    expect(live.json.Version).toBe(2);
  }, 60_000);

  it('re-dispatch as a job; bad requests name their field (another account\'s route, unknown names, a day that is over)', async () => {
    const job = await post(s.url, '/rest/jobs', { Operation: 'Redispatch', Specification: { RouteID: routeId, CurrentTime: iso(T0 + 3_700_000), Frozen: 0 } }, key);
    expect(job.status).toBe(202);
    let view: any;
    for (let i = 0; i < 200; i++) {
      view = (await get(`/rest/jobs/${job.json.JobID}`)).json;
      if (view.Result || ['Completed', 'Failed', 'Cancelled'].includes(view.State)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(view.Result).toMatchObject({ RouteID: routeId, Version: 3 });
    const ask = (body: object, k = key) => post(s.url, '/rest/Redispatch', { RouteID: routeId, CurrentTime: iso(T0 + 3_800_000), ...body }, k);
    expect((await ask({}, other)).json.Errors[0].Message).toMatch(/^RouteID:/);
    expect((await ask({ Cancelled: ['nope'] })).json.Errors[0].Message).toMatch(/^Cancelled\[0\]:/);
    expect((await ask({ Unavailable: ['Van Z'] })).json.Errors[0].Message).toMatch(/^Unavailable\[0\]:/);
    expect((await ask({ CurrentTime: iso(T0 + 3 * 86_400_000) })).json.Errors[0].Message).toMatch(/^CurrentTime:.*day is over/);
    expect((await ask({ Frozen: -1 })).json.Errors[0].Message).toMatch(/^Frozen:/);
  }, 60_000);
});
