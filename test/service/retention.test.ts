/** Retention as the service applies it: stored routes, finished jobs and GPS points older than their days are forgotten; the ledger stays. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { openStore } from '../../src/store/index.js';
import { keyHash, newApiKey } from '../../src/store/hash.js';
import type { Store } from '../../src/store/types.js';
import { Service } from '../../src/service/service.js';
import { fixtureDataset } from '../helpers/datasets.js';
import { MONACO_STOPS } from '../helpers/service.js';

let engine: Engine;
let store: Store;
beforeAll(async () => {
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 2, offload: true });
  store = await openStore('sqlite::memory:');
});
afterAll(async () => {
  await store.close();
  await engine.close();
});

const DAY = 86_400_000;

describe('retention', () => {
  it('routes after 90 days and points after 90 days by default; --keep-…-days changes it; the ledger is kept', async () => {
    let now = Date.UTC(2026, 0, 1);
    const service = new Service(engine, store, { clock: () => now, rateLimit: { perSecond: 0 } });
    expect(service.retention).toEqual({ routes: 90, jobs: 30, tracks: 90 });
    const key = newApiKey();
    await store.createAccount({ name: 'r', keyHash: keyHash(key), passwordHash: null, credit: 1000, now });
    const d = await service.call('Dispatch', { MinimumOptimization: 1, Vehicles: [{ Name: 'V', StartLocation: MONACO_STOPS[0] }], Locations: MONACO_STOPS.slice(1, 4) }, { key });
    expect(d.kind === 'result' && d.routeId).toBeGreaterThan(0);
    const routeId = (d as { routeId: number }).routeId;
    await service.call('TrackPoints', [{ Latitude: 43.73, Longitude: 7.42, TimeStamp: new Date(now).toISOString() }], { key });
    const ledgerBefore = await store.ledgerSum((await store.accountByName('r'))!.id);

    now += 89 * DAY;
    expect(await service.prune()).toEqual({ routes: 0, jobs: 0, tracks: 0 });
    now += 2 * DAY;
    expect(await service.prune()).toEqual({ routes: 1, jobs: 0, tracks: 1 });
    const g = await service.call('GetRoute', { RouteID: routeId }, { key });
    expect(g.kind === 'result' && g.result.Status).toBe('Failed');
    expect(await store.ledgerSum((await store.accountByName('r'))!.id)).toBe(ledgerBefore);

    const keepAll = new Service(engine, store, { clock: () => now, retention: { routes: null, jobs: null, tracks: null } });
    expect(await keepAll.prune()).toEqual({ routes: 0, jobs: 0, tracks: 0 });
  });
});
