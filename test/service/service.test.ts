/**
 * The service over the engine and a real store (SQLite in memory): authentication, credit
 * reserved and settled for the work done, stored dispatches, tracks, Login sessions, rate limits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { openStore } from '../../src/store/index.js';
import { hashPassword, keyHash, newApiKey } from '../../src/store/hash.js';
import type { Store } from '../../src/store/types.js';
import { Service, type Answer, type Outcome } from '../../src/service/service.js';
import { fixtureDataset } from '../helpers/datasets.js';
import { MONACO_STOPS } from '../helpers/service.js';

let engine: Engine;
let store: Store;
let now = Date.UTC(2026, 10, 25, 12, 0, 0);
let service: Service;
const keys: Record<string, string> = {};

async function account(name: string, credit: number, extra: { password?: string; expiresAt?: number } = {}): Promise<string> {
  const key = newApiKey();
  await store.createAccount({ name, keyHash: keyHash(key), passwordHash: extra.password ? await hashPassword(extra.password) : null, credit, expiresAt: extra.expiresAt ?? null, now });
  keys[name] = key;
  return key;
}

const answer = (o: Outcome): Answer => {
  if (o.kind !== 'result') throw new Error(`refused: ${o.code} ${o.message}`);
  return o;
};

const DISTANCE = { StartLocation: { LatLong: { Latitude: 43.7395, Longitude: 7.428 } }, FinishLocation: { LatLong: { Latitude: 43.7276, Longitude: 7.4155 } }, DistanceUnit: 1 };
const dispatchSpec = (n: number) => ({
  CurrentTime: '2026-11-02T09:00:00', DistanceUnit: 'Kilometer', MinimumOptimization: 1,
  Vehicles: [{ Name: 'V1', StartLocation: { Name: 'Depot', LatLong: { Latitude: 43.7314, Longitude: 7.42 } } }],
  Locations: MONACO_STOPS.slice(0, n),
});

async function checkLedger(): Promise<void> {
  for (const a of await store.listAccounts()) expect(await store.ledgerSum(a.id), a.name).toBe(a.balance);
  expect(await store.openReservations()).toBe(0);
}

beforeAll(async () => {
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 2, offload: true });
  store = await openStore('sqlite::memory:');
  service = new Service(engine, store, { clock: () => now, rateLimit: { perSecond: 0 } });
  await service.start();
  await account('acme', 1000, { password: 'hunter22' });
  await account('other', 1000);
  await account('poor', 2);
  await account('late', 100, { expiresAt: now - 1000 });
  await account('held', 100);
  await store.updateAccount('held', { blocked: true });
});
afterAll(async () => {
  await service?.close();
  await store?.close();
  await engine?.close();
});

describe('authentication', () => {
  it('refuses a missing, unknown or padded key (Unauthorized) and a blocked or expired account (Forbidden)', async () => {
    for (const key of [undefined, '', 'dk_nope', ` ${keys.acme}`, `${keys.acme} `]) {
      const o = await service.call('CreditRemaining', undefined, { key });
      expect(o.kind === 'refused' && o.code, String(key)).toBe('Unauthorized');
    }
    const held = await service.call('CreditRemaining', undefined, { key: keys.held });
    expect(held).toMatchObject({ kind: 'refused', code: 'Forbidden', message: expect.stringContaining('blocked') });
    const late = await service.call('CalculateDistance', DISTANCE, { key: keys.late });
    expect(late).toMatchObject({ kind: 'refused', code: 'Forbidden', message: expect.stringContaining('expired') });
  });
});

describe('credit', () => {
  it('CalculateDistance costs one credit; CreditRemaining is free and reports the balance', async () => {
    const before = answer(await service.call('CreditRemaining', undefined, { key: keys.acme })).result.Credit as number;
    const r = answer(await service.call('CalculateDistance', DISTANCE, { key: keys.acme }));
    expect(r.result.Status).toBe('Success');
    expect(r.cost).toBe(1);
    expect(answer(await service.call('CreditRemaining', undefined, { key: keys.acme })).result.Credit).toBe(before - 1);
    await checkLedger();
  });

  it('a failed operation costs nothing and names the field', async () => {
    const before = (await store.accountByName('acme'))!.balance;
    const r = answer(await service.call('CalculateDistance', { DistanceUnit: 1, StartLocation: DISTANCE.StartLocation }, { key: keys.acme }));
    expect(r.result.Status).toBe('Failed');
    expect(JSON.stringify(r.result.Errors)).toContain('FinishLocation');
    expect(r.cost).toBe(0);
    expect((await store.accountByName('acme'))!.balance).toBe(before);
    const bad = answer(await service.call('Dispatch', 'not a spec', { key: keys.acme }));
    expect(bad.result.Status).toBe('Failed');
    expect((await store.accountByName('acme'))!.balance).toBe(before);
    await checkLedger();
  });

  it('refuses (Forbidden) a request its balance cannot cover, before any work, writing nothing', async () => {
    const o = await service.call('Geocode', { Addresses: [{ City: 'Monaco' }, { City: 'Monaco' }, { City: 'Monaco' }] }, { key: keys.poor });
    expect(o).toMatchObject({ kind: 'refused', code: 'Forbidden', message: expect.stringContaining('Not enough credit') });
    expect((await store.accountByName('poor'))!.balance).toBe(2);
    const ok = answer(await service.call('Geocode', { Addresses: [{ Street: 'Boulevard des Moulins', City: 'Monaco' }, { City: 'Monaco' }] }, { key: keys.poor }));
    expect(ok.cost).toBe(2);
    expect((await store.accountByName('poor'))!.balance).toBe(0);
    await checkLedger();
  });

  it('instant operations (CalculateDistance, a Geocode of ≤ 16 addresses) are charged in one write after the work: one charge entry, no reservation; 17 addresses reserve first', async () => {
    const id = (await store.accountByName('acme'))!.id;
    const last = async (n: number) => (await store.ledger(id, n)).map((e) => [e.kind, e.delta, e.note, e.reservationId]);
    expect(answer(await service.call('CalculateDistance', DISTANCE, { key: keys.acme })).cost).toBe(1);
    expect(await last(1)).toEqual([['charge', -1, 'CalculateDistance', null]]);
    const addresses = (n: number) => ({ Addresses: Array.from({ length: n }, () => ({ Street: 'Boulevard des Moulins', City: 'Monaco' })) });
    expect(answer(await service.call('Geocode', addresses(16), { key: keys.acme })).cost).toBe(16);
    expect(await last(1)).toEqual([['charge', -16, 'Geocode', null]]);
    expect(answer(await service.call('Geocode', addresses(17), { key: keys.acme })).cost).toBe(17);
    expect((await last(1))[0].slice(0, 3)).toEqual(['reserve', -17, 'Geocode']);
    await checkLedger();
  });

  it('an instant request whose charge is refused after the work (the balance spent meanwhile) is a 403 and takes nothing', async () => {
    const racing = new Proxy(store, {
      get(target, p, recv) {
        if (p === 'charge') return async () => null;
        const v = Reflect.get(target, p, recv);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    }) as Store;
    const s = new Service(engine, racing, { clock: () => now, rateLimit: { perSecond: 0 } });
    await s.start();
    const before = (await store.accountByName('other'))!.balance;
    const o = await s.call('CalculateDistance', DISTANCE, { key: keys.other });
    expect(o).toMatchObject({ kind: 'refused', code: 'Forbidden', message: expect.stringContaining('Not enough credit') });
    expect((await store.accountByName('other'))!.balance).toBe(before);
    await s.close();
    await checkLedger();
  });

  it('Dispatch costs one credit per stop dispatched, reserved for every stop and settled for the served ones', async () => {
    const spec = dispatchSpec(6);
    const withNowhere = { ...spec, Locations: [...spec.Locations, { Name: 'Nowhere', LatLong: { Latitude: 10, Longitude: 10 } }] };
    const before = (await store.accountByName('acme'))!.balance;
    const r = answer(await service.call('Dispatch', withNowhere, { key: keys.acme }));
    expect(r.result.Status).toBe('SuccessWithErrors'); // Nowhere is left out and reported
    expect(r.cost).toBe(6);
    expect((await store.accountByName('acme'))!.balance).toBe(before - 6);
    const entries = await store.ledger((await store.accountByName('acme'))!.id, 2);
    expect(entries.map((e) => [e.kind, e.delta])).toEqual([['refund', 1], ['reserve', -7]]);
    await checkLedger();
  });
});

describe('stored dispatches', () => {
  it('every successful Dispatch is stored: GetRouteList lists it (filters), GetRoute returns the same DispatchResult', async () => {
    now += 60_000;
    const t1 = now;
    const a = answer(await service.call('Dispatch', dispatchSpec(4), { key: keys.acme, routeName: 'Morning run', owner: 'alice' }));
    now += 60_000;
    const b = answer(await service.call('Dispatch', dispatchSpec(5), { key: keys.acme, routeName: 'Afternoon run' }));
    expect(a.routeId).toBeGreaterThan(0);
    expect(b.routeId).toBeGreaterThan(a.routeId!);
    const list = answer(await service.call('GetRouteList', {}, { key: keys.acme })).result.Routes as Record<string, unknown>[];
    const mine = list.filter((x) => x.RouteID === a.routeId || x.RouteID === b.routeId);
    expect(mine.map((x) => x.RouteName)).toEqual(['Afternoon run', 'Morning run']); // newest first
    expect(mine[1]).toMatchObject({ Owner: 'alice', DateCreated: new Date(t1).toISOString().replace('.000Z', 'Z') });
    expect(mine[0].Owner).toBe('acme');
    expect((mine[1].Distance as number)).toBeGreaterThan(0);
    const byName = answer(await service.call('GetRouteList', { RouteName: 'morning' }, { key: keys.acme })).result.Routes as { RouteID: number }[];
    expect(byName.map((x) => x.RouteID)).toEqual([a.routeId]);
    const byOwner = answer(await service.call('GetRouteList', { Owner: 'ALICE' }, { key: keys.acme })).result.Routes as { RouteID: number }[];
    expect(byOwner.map((x) => x.RouteID)).toEqual([a.routeId]);
    const since = answer(await service.call('GetRouteList', { FromDate: new Date(t1 + 1000).toISOString() }, { key: keys.acme })).result.Routes as { RouteID: number }[];
    expect(since.map((x) => x.RouteID)).toEqual([b.routeId]);
    const bad = answer(await service.call('GetRouteList', { FromDate: '2026-12-02T00:00:00', ToDate: '2026-11-02T00:00:00' }, { key: keys.acme }));
    expect(bad.result).toMatchObject({ Status: 'Failed', Errors: [{ Message: 'ToDate: is before FromDate' }] });

    const got = answer(await service.call('GetRoute', { RouteID: a.routeId }, { key: keys.acme }));
    expect(got.result).toEqual(a.result);
    // another account sees neither the list entry nor the route
    const theirs = answer(await service.call('GetRoute', { RouteID: a.routeId }, { key: keys.other }));
    expect(theirs.result).toMatchObject({ Status: 'Failed', Errors: [{ Message: expect.stringContaining('RouteID') }] });
    expect((answer(await service.call('GetRouteList', {}, { key: keys.other })).result.Routes as unknown[])).toEqual([]);
    const missing = answer(await service.call('GetRoute', {}, { key: keys.acme }));
    expect(missing.result).toMatchObject({ Status: 'Failed', Errors: [{ Message: 'RouteID: is required' }] });
  });

  it("the stored route counts the visits: a vehicle's own start and finish are not stops, named or not", async () => {
    const depot = { LatLong: { Latitude: 43.7314, Longitude: 7.42 } }; // no Name
    const r = answer(await service.call('Dispatch', { ...dispatchSpec(2), Vehicles: [{ Name: 'V1', StartLocation: depot, FinishLocation: depot }] }, { key: keys.other }));
    expect(r.result.Status).toBe('Success');
    const list = answer(await service.call('GetRouteList', {}, { key: keys.other })).result.Routes as { RouteID: number; RouteName: string }[];
    expect(list.find((x) => x.RouteID === r.routeId)?.RouteName).toBe('2 stops on 1 vehicle');
  });

  it('a failed Dispatch is not stored', async () => {
    const n = (answer(await service.call('GetRouteList', {}, { key: keys.other })).result.Routes as unknown[]).length;
    const r = answer(await service.call('Dispatch', { ...dispatchSpec(3), DistanceUnit: 'Parsec' }, { key: keys.other }));
    expect(r.result.Status).toBe('Failed');
    expect((answer(await service.call('GetRouteList', {}, { key: keys.other })).result.Routes as unknown[]).length).toBe(n);
  });
});

describe('GPS tracks', () => {
  it('TrackPoints records points (array or specification); GetTrack returns a UTC range ordered by time, per track and account', async () => {
    const pts = [
      { Latitude: 43.73, Longitude: 7.42, TimeStamp: '2026-11-02T09:00:30Z' },
      { Latitude: 43.74, Longitude: 7.43, TimeStamp: '2026-11-02T09:00:00Z' },
      { Latitude: 43.75, Longitude: 7.44, TimeStamp: '2026-11-02T10:00:00' }, // zoneless = UTC
    ];
    expect(answer(await service.call('TrackPoints', pts, { key: keys.acme })).result).toMatchObject({ Status: 'Success', Count: 3 });
    expect(answer(await service.call('TrackPoints', { Account: 'van-7', TrackPoints: [pts[0]] }, { key: keys.acme })).result.Count).toBe(1);
    const t = answer(await service.call('GetTrack', { FromDate: '2026-11-02T09:00:00Z', ToDate: '2026-11-02T09:59:59Z' }, { key: keys.acme }));
    expect(t.result.TrackPoints).toEqual([
      { Latitude: 43.74, Longitude: 7.43, TimeStamp: '2026-11-02T09:00:00Z' },
      { Latitude: 43.73, Longitude: 7.42, TimeStamp: '2026-11-02T09:00:30Z' },
    ]);
    const van = answer(await service.call('GetTrack', { Account: 'van-7', FromDate: '2026-01-01T00:00:00Z', ToDate: '2027-01-01T00:00:00Z' }, { key: keys.acme }));
    expect((van.result.TrackPoints as unknown[]).length).toBe(1);
    const other = answer(await service.call('GetTrack', { Account: 'acme', FromDate: '2026-01-01T00:00:00Z', ToDate: '2027-01-01T00:00:00Z' }, { key: keys.other }));
    expect(other.result.TrackPoints).toEqual([]);
  });

  it('a point older than the GPS retention (90 days by default) is refused with the batch, as one in the future: the next prune would delete it', async () => {
    const iso = (t: number) => new Date(t).toISOString();
    const day = 86_400_000;
    const r = answer(await service.call('TrackPoints', { Account: 'old', TrackPoints: [
      { Latitude: 43.73, Longitude: 7.42, TimeStamp: iso(now - 89 * day) },
      { Latitude: 43.73, Longitude: 7.42, TimeStamp: iso(now - 91 * day) },
      { Latitude: 43.73, Longitude: 7.42, TimeStamp: iso(now + 3_600_000) },
    ] }, { key: keys.other }));
    expect(r.result).toMatchObject({ Status: 'Failed', Count: 0 });
    const msgs = (r.result.Errors as { Message: string }[]).map((e) => e.Message);
    expect(msgs).toEqual([
      expect.stringMatching(/^TrackPoints\[1\]\.TimeStamp: is older than the server keeps GPS points \(90 days: before .*\), so the next prune would delete it; nothing was recorded$/),
      expect.stringMatching(/^TrackPoints\[2\]\.TimeStamp: is in the future/),
    ]);
    const track = (acct: string) => service.call('GetTrack', { Account: acct, FromDate: iso(now - 100 * day), ToDate: iso(now + day) }, { key: keys.other });
    expect(answer(await track('old')).result.TrackPoints).toEqual([]);
    // 89 days old is kept; with retention off (null) any age is
    expect(answer(await service.call('TrackPoints', { Account: 'old', TrackPoints: [{ Latitude: 43.73, Longitude: 7.42, TimeStamp: iso(now - 89 * day) }] }, { key: keys.other })).result.Count).toBe(1);
    const keepAll = new Service(engine, store, { clock: () => now, rateLimit: { perSecond: 0 }, retention: { tracks: null } });
    expect(answer(await keepAll.call('TrackPoints', { Account: 'older', TrackPoints: [{ Latitude: 43.73, Longitude: 7.42, TimeStamp: iso(now - 400 * day) }] }, { key: keys.other })).result.Count).toBe(1);
  });

  it('bad points are refused together, each named', async () => {
    const r = answer(await service.call('TrackPoints', [
      { Latitude: 43.7, Longitude: 7.4, TimeStamp: '2026-11-02T09:00:00Z' },
      { Latitude: 95, Longitude: 7.4, TimeStamp: '2026-11-02T09:00:00Z' },
      { Latitude: 43.7, Longitude: 7.4, TimeStamp: '0001-01-01T00:00:00' },
      { Latitude: 43.7, Longitude: 7.4 },
    ], { key: keys.other }));
    expect(r.result.Status).toBe('Failed');
    const msgs = (r.result.Errors as { Message: string }[]).map((e) => e.Message).join('\n');
    expect(msgs).toContain('TrackPoints[1].Latitude');
    expect(msgs).toContain('TrackPoints[2].TimeStamp');
    expect(msgs).toContain('TrackPoints[3].TimeStamp: is required');
    const t = answer(await service.call('GetTrack', { FromDate: '2026-01-01T00:00:00Z', ToDate: '2027-01-01T00:00:00Z' }, { key: keys.other }));
    expect(t.result.TrackPoints).toEqual([]);
    const noDates = answer(await service.call('GetTrack', {}, { key: keys.other }));
    expect(noDates.result).toMatchObject({ Status: 'Failed' });
    expect(JSON.stringify(noDates.result.Errors)).toContain('FromDate: is required');
  });
});

describe('limits and odd input', () => {
  it('binds TrackPoints case-insensitively; refuses a track name over 200 characters and over 5,000 points', async () => {
    const r = answer(await service.call('TrackPoints', { account: 'lc', trackpoints: [{ latitude: 1, longitude: 2, timestamp: '2026-11-01T00:00:00Z' }] }, { key: keys.other }));
    expect(r.result).toMatchObject({ Status: 'Success', Count: 1 });
    const t = answer(await service.call('GetTrack', { Account: 'lc', FromDate: '2026-01-01T00:00:00Z', ToDate: '2027-01-01T00:00:00Z' }, { key: keys.other }));
    expect((t.result.TrackPoints as unknown[]).length).toBe(1);
    const long = answer(await service.call('TrackPoints', { Account: 'T'.repeat(201), TrackPoints: [{ Latitude: 1, Longitude: 2, TimeStamp: '2026-11-01T00:00:00Z' }] }, { key: keys.other }));
    expect(long.result).toMatchObject({ Status: 'Failed', Count: 0, Errors: [{ Message: expect.stringContaining('Account: at most 200') }] });
    const many = Array.from({ length: 5_001 }, () => ({ Latitude: 1, Longitude: 2, TimeStamp: '2026-11-01T00:00:00Z' }));
    expect(answer(await service.call('TrackPoints', many, { key: keys.other })).result).toMatchObject({ Status: 'Failed', Errors: [{ Message: expect.stringContaining('at most 5000 points') }] });
  });

  it('GetTrack reads a long track in pages: every point once, in time order, also when pages end inside a run of equal time stamps', async () => {
    // 12,345 points on 'pages': runs of equal time stamps longer than a page (2,000) among single ones
    const ts = (s: number): string => new Date(Date.UTC(2026, 10, 2) + s * 1000).toISOString();
    const all: { Latitude: number; Longitude: number; TimeStamp: string }[] = [];
    for (let i = 0; i < 12_345; i++) all.push({ Latitude: i / 1e5, Longitude: 7, TimeStamp: ts(i < 6000 ? 0 : i < 6500 ? i : i < 12_000 ? 7000 : i) });
    for (let i = 0; i < all.length; i += 5_000) {
      expect(answer(await service.call('TrackPoints', { Account: 'pages', TrackPoints: all.slice(i, i + 5_000) }, { key: keys.other })).result.Status).toBe('Success');
    }
    const t = answer(await service.call('GetTrack', { Account: 'pages', FromDate: '2026-01-01T00:00:00Z', ToDate: '2027-01-01T00:00:00Z' }, { key: keys.other }));
    const got = t.result.TrackPoints as { Latitude: number }[];
    expect(got.length).toBe(12_345);
    // equal time stamps keep their arrival order, so the latitudes come back as sent
    expect(got.map((p) => Math.round(p.Latitude * 1e5))).toEqual(all.map((_, i) => i));
  });

  it('out-of-range and malformed dates, and NUL characters, are Failed naming the field (not errors)', async () => {
    for (const [spec, path] of [
      [{ FromDate: '/Date(99999999999999999)/' }, 'FromDate'], [{ FromDate: '2027-01-01T00:00:00+99:99' }, 'FromDate'],
      [{ Owner: 'a\u0000b' }, 'Owner'], [{ ToDate: '9999-12-31T23:59:00' }, 'ToDate'],
    ] as const) {
      const r = answer(await service.call('GetRouteList', spec, { key: keys.other }));
      expect(r.result.Status, JSON.stringify(spec)).toBe('Failed');
      expect((r.result.Errors as { Message: string }[])[0].Message.startsWith(`${path}:`), JSON.stringify(r.result.Errors)).toBe(true);
    }
    const d = answer(await service.call('Dispatch', { ...dispatchSpec(3), CurrentTime: '9999-12-31T23:59:00' }, { key: keys.other }));
    expect(d.result.Status).toBe('Failed');
    expect(d.cost).toBe(0);
  });

  it('a settlement the database refuses is refunded in the background once it answers again', async () => {
    let fail = 2; // the settlement and the first refund attempt fail
    const flaky = new Proxy(store, {
      get(target, p, recv) {
        if (p === 'settle') {
          return async (a: Parameters<Store['settle']>[0]) => {
            if (fail-- > 0) throw Object.assign(new Error('database is locked'), { code: 'Storage' });
            return target.settle(a);
          };
        }
        const v = Reflect.get(target, p, recv);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    }) as Store;
    const s = new Service(engine, flaky, { clock: () => now, rateLimit: { perSecond: 0 }, heartbeatMs: 50 });
    await s.start();
    const before = (await store.accountByName('other'))!.balance;
    // a Geocode of 17 addresses is not instant: reserved first, then settled
    const many = { Addresses: Array.from({ length: 17 }, () => ({ Street: 'Boulevard des Moulins', City: 'Monaco' })) };
    await expect(s.call('Geocode', many, { key: keys.other })).rejects.toThrow('database is locked');
    expect(await store.openReservations()).toBe(1);
    for (let i = 0; i < 100 && (await store.openReservations()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await store.openReservations()).toBe(0);
    expect((await store.accountByName('other'))!.balance).toBe(before);
    await s.close();
    await checkLedger();
  });
});

describe('Login sessions', () => {
  it('Login gives a key accepted like the API key, valid 4 h after its last use; Logout ends it', async () => {
    const wrong = answer(await service.call('Login', { UserName: 'acme', Password: 'nope' }));
    expect(wrong.result).toEqual({ Message: 'Wrong user name or password.', Status: 'Failed' });
    const nobody = answer(await service.call('Login', { userName: 'ghost', password: 'hunter22' }));
    expect(nobody.result.Status).toBe('Failed');
    const noPassword = answer(await service.call('Login', { UserName: 'other', Password: 'x' }));
    expect(noPassword.result.Status).toBe('Failed');
    const ok = answer(await service.call('Login', { userName: 'ACME', password: 'hunter22' }));
    expect(ok.result).toMatchObject({ Status: 'Success', Key: expect.any(String) });
    const key = ok.result.Key as string;
    expect(answer(await service.call('CreditRemaining', undefined, { key })).result.Status).toBe('Success');
    now += 3.9 * 3600_000; // still alive: used 3.9 h ago
    expect((await service.call('CreditRemaining', undefined, { key })).kind).toBe('result');
    now += 3.9 * 3600_000; // sliding: 3.9 h after the last use
    expect((await service.call('CreditRemaining', undefined, { key })).kind).toBe('result');
    now += 4.1 * 3600_000;
    expect(await service.call('CreditRemaining', undefined, { key })).toMatchObject({ kind: 'refused', code: 'Unauthorized' });
    const k2 = answer(await service.call('Login', { UserName: 'acme', Password: 'hunter22' })).result.Key as string;
    expect(answer(await service.call('Logout', undefined, { key: k2 })).result.Status).toBe('Success');
    expect(await service.call('CreditRemaining', undefined, { key: k2 })).toMatchObject({ kind: 'refused', code: 'Unauthorized' });
    // Logout with the API key ends nothing: the key still works
    answer(await service.call('Logout', undefined, { key: keys.acme }));
    expect((await service.call('CreditRemaining', undefined, { key: keys.acme })).kind).toBe('result');
    // a new password ends the sessions
    const k3 = answer(await service.call('Login', { UserName: 'acme', Password: 'hunter22' })).result.Key as string;
    await store.updateAccount('acme', { passwordHash: await hashPassword('hunter23') });
    expect(await service.call('CreditRemaining', undefined, { key: k3 })).toMatchObject({ kind: 'refused', code: 'Unauthorized' });
  });
});

describe('rate limit', () => {
  it('refuses past the per-account rate with the seconds to wait, other accounts unaffected', async () => {
    const s = new Service(engine, store, { clock: () => now, rateLimit: { perSecond: 2, burst: 3 } });
    const outs = [];
    for (let i = 0; i < 5; i++) outs.push(await s.call('CreditRemaining', undefined, { key: keys.other }));
    expect(outs.slice(0, 3).every((o) => o.kind === 'result')).toBe(true);
    expect(outs[3]).toMatchObject({ kind: 'refused', code: 'RateLimited', retryAfter: 1 });
    expect((await s.call('CreditRemaining', undefined, { key: keys.acme })).kind).toBe('result');
    await s.close();
  });
});
