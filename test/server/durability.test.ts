/**
 * Real servers in child processes (`dispatchkit serve`), real databases:
 * - two instances on one PostgreSQL hammered with concurrent credit-spending calls and
 *   dispatches: the ledger balances to the unit, no credit is spent twice, no stored route is lost;
 * - SIGKILL in the middle of writes, 20 times on SQLite and 20 times on PostgreSQL: after a
 *   restart everything a client was told is committed is there, and nothing half-written is
 *   visible (a track batch is all there or absent; every stored route has its settlement; every
 *   balance equals its ledger; open reservations of the dead process are refunded).
 * PostgreSQL parts need DATABASE_URL (set by .ci/run); without it they are skipped, saying so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { openStore } from '../../src/store/index.js';
import { keyHash, newApiKey } from '../../src/store/hash.js';
import type { Store } from '../../src/store/types.js';
import { fixtureDatasetFile } from '../helpers/datasets.js';
import { MONACO_STOPS, post, startServer, type ServerProcess } from '../helpers/service.js';

const PG = process.env.DATABASE_URL;
const KILLS = Number(process.env.DK_KILLS ?? 20);
/**
 * Track points' time stamps: within the servers' retention (90 days for GPS points), or the prune a
 * server runs at start deletes acknowledged points while the test writes them (batch i at
 * TRACK_T0 + i s: writer 7's batches end 8.1 days later, still in the past).
 */
const TRACK_T0 = Date.now() - 10 * 86_400_000;

let data: string;
const tmp = mkdtempSync(join(tmpdir(), 'dk-durability-'));
beforeAll(async () => { data = await fixtureDatasetFile('monaco'); });
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A fresh PostgreSQL schema per use (dropped at the end). */
function pgUrl(): string {
  const u = new URL(PG!);
  u.searchParams.set('schema', `dk_test_${randomBytes(6).toString('hex')}`);
  return u.toString();
}

const DISTANCE = { StartLocation: { LatLong: { Latitude: 43.7395, Longitude: 7.428 } }, FinishLocation: { LatLong: { Latitude: 43.7276, Longitude: 7.4155 } }, DistanceUnit: 1 };
const DISPATCH = {
  CurrentTime: '2026-12-01T09:00:00', DistanceUnit: 1, MinimumOptimization: 1,
  Vehicles: [{ Name: 'V1', StartLocation: MONACO_STOPS[1] }], Locations: MONACO_STOPS.slice(2, 5),
};

async function newAccount(store: Store, name: string, credit: number): Promise<string> {
  const key = newApiKey();
  await store.createAccount({ name, keyHash: keyHash(key), passwordHash: null, credit, now: Date.now() });
  return key;
}

/** Runs `tasks` with at most `limit` in flight. */
async function pool<T>(n: number, limit: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, n) }, async () => {
    for (let i = next++; i < n; i = next++) out[i] = await task(i);
  }));
  return out;
}

describe.skipIf(!PG)(`two servers on one PostgreSQL${PG ? '' : ' (skipped: DATABASE_URL is not set)'}`, () => {
  it('10,000 concurrent credit-spending calls and dispatches over both: the ledger is exact, nothing spent twice, no route lost', async () => {
    const db = pgUrl();
    const store = await openStore(db);
    const CREDIT = 6000;
    const key = await newAccount(store, 'shared', CREDIT);
    const servers: ServerProcess[] = [];
    try {
      servers.push(await startServer(['--data', data, '--db', db, '--rate-limit', '0']));
      servers.push(await startServer(['--data', data, '--db', db, '--rate-limit', '0']));
      const N = 10_000;
      const results = await pool(N, 128, async (i) => {
        const s = servers[i % 2];
        const r = i % 500 === 7 ? await post(s.url, '/rest/dispatch', DISPATCH, key) : await post(s.url, '/rest/distance', DISTANCE, key);
        return { dispatch: i % 500 === 7, status: r.status, routeId: r.headers.get('x-route-id'), ok: r.status === 200 && r.json?.Status === 1 };
      });
      const paid = results.filter((r) => r.status === 200);
      expect(results.every((r) => r.status === 200 || r.status === 403)).toBe(true);
      const spent = paid.reduce((a, r) => a + (r.dispatch ? 3 : 1), 0);
      const acct = (await store.accountByName('shared'))!;
      expect(acct.balance).toBe(CREDIT - spent);
      expect(await store.ledgerSum(acct.id)).toBe(acct.balance);
      expect(acct.balance).toBeGreaterThanOrEqual(0);
      expect(acct.balance).toBeLessThan(3); // the credit ran out: everything was spent, once
      expect(paid.every((r) => r.ok)).toBe(true);
      const routes = await store.listRoutes(acct.id);
      const told = paid.filter((r) => r.dispatch).map((r) => Number(r.routeId)).sort((a, b) => a - b);
      expect(routes.map((r) => r.routeId).sort((a, b) => a - b)).toEqual(told);
      expect(await store.openReservations()).toBe(0);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      await (store as unknown as { dropSchema?: () => Promise<void> }).dropSchema?.();
      await store.close();
    }
  }, 300_000);
});

/**
 * Kill cycles on one database: a server takes writes from 12 concurrent clients (track batches of
 * 25 points, dispatches, distance calls); it is killed with SIGKILL at a pseudo-random moment;
 * the database is checked as the crash left it; then a new server starts on it (refunding the
 * dead one's open reservations at start) and takes the next cycle's writes.
 */
async function killCycles(db: string, cycles: number): Promise<{ acked: number; routes: number; openAtKill: number }[]> {
  const store = await openStore(db);
  const out: { acked: number; routes: number; openAtKill: number }[] = [];
  const args = ['--data', data, '--db', db, '--rate-limit', '0', '--stale-after', '0'];
  let server = await startServer(args);
  try {
    for (let cycle = 0; cycle < cycles; cycle++) {
      const name = `k${cycle}`;
      const key = await newAccount(store, name, 1_000_000);
      const acked: number[] = [];
      const ackedRoutes: number[] = [];
      let stop = false;
      const url = server.url;
      const writers = Array.from({ length: 12 }, async (_, w) => {
        for (let i = 0; !stop; i++) {
          const batch = w * 100_000 + i;
          try {
            if (w < 8) {
              const base = TRACK_T0 + batch * 1000;
              const pts = Array.from({ length: 25 }, (_, k) => ({ Latitude: 43.73, Longitude: 7.42, TimeStamp: new Date(base + k).toISOString() }));
              const r = await post(url, '/rest/trackpoints', { Account: `b${batch}`, TrackPoints: pts }, key);
              if (r.status === 200 && r.json.Count === 25) acked.push(batch);
            } else if (w < 10) {
              const r = await post(url, '/rest/dispatch', DISPATCH, key);
              if (r.status === 200 && r.json.Status === 1) ackedRoutes.push(Number(r.headers.get('x-route-id')));
            } else {
              await post(url, '/rest/distance', DISTANCE, key);
            }
          } catch {
            return; // the server is gone
          }
        }
      });
      await new Promise((r) => setTimeout(r, 400 + ((cycle * 7919) % 900)));
      await server.kill();
      stop = true;
      await Promise.all(writers);

      // as the crash left it: what was acknowledged is there, nothing is half-written
      const acct = (await store.accountByName(name))!;
      const ackedSet = new Set(acked);
      for (let w = 0; w < 8; w++) {
        for (let i = 0; ; i++) {
          const batch = w * 100_000 + i;
          const n = (await store.getTrack({ accountId: acct.id, track: `b${batch}`, from: 0, to: Number.MAX_SAFE_INTEGER })).length;
          if (ackedSet.has(batch)) expect(n, `acknowledged batch ${batch}`).toBe(25);
          else expect([0, 25], `batch ${batch}`).toContain(n); // in flight at the kill: all or nothing
          if (n === 0 && !ackedSet.has(batch)) break;
        }
      }
      const openAtKill = await store.openReservations();
      const routes = await store.listRoutes(acct.id, { limit: 100_000 });
      const ids = new Set(routes.map((r) => r.routeId));
      for (const id of ackedRoutes) expect(ids.has(id), `acknowledged route ${id}`).toBe(true);
      // balance and ledger read in one statement (one snapshot): a statement the killed server had
      // in flight may still commit after the kill (PostgreSQL finishes it), between two reads
      const [audit] = await store.audit(acct.id);
      expect(audit.ledgerSum, audit.problems.join('; ')).toBe(audit.balance);
      // every stored route was paid: each has its Dispatch reservation settled (3 stops each)
      const entries = await store.ledger(acct.id, 1_000_000);
      const reserves = entries.filter((e) => e.kind === 'reserve' && e.note === 'Dispatch').length;
      expect(reserves).toBeGreaterThanOrEqual(routes.length);
      expect(routes.map((r) => r.stops).filter((n) => n !== 3)).toEqual([]);

      // restart: the dead process's open reservations are refunded, every ledger still balances
      server = await startServer(args);
      const r = await post(server.url, '/rest/credit', undefined, key);
      expect(r.status).toBe(200);
      expect(await store.openReservations()).toBe(0);
      const after = (await store.accountByName(name))!;
      expect(await store.ledgerSum(after.id)).toBe(after.balance);
      expect(r.json.Credit).toBe(after.balance);
      out.push({ acked: acked.length, routes: ackedRoutes.length, openAtKill });
    }
  } finally {
    await server.stop();
    await store.close();
  }
  return out;
}

describe('SIGKILL during writes', () => {
  it(`SQLite: ${KILLS} kills, nothing acknowledged lost, nothing half-written`, async () => {
    const db = `sqlite:${join(tmp, 'kill.db')}`;
    const cycles = await killCycles(db, KILLS);
    // the kills landed in the middle of writes: points and routes acknowledged, paid operations cut short
    expect(cycles.every((c) => c.acked > 0)).toBe(true);
    expect(cycles.some((c) => c.openAtKill > 0)).toBe(true);
    console.log(`SQLite kills: ${cycles.map((c) => `${c.acked} batches/${c.routes} routes/${c.openAtKill} open`).join(', ')}`);
  }, 900_000);

  it.skipIf(!PG)(`PostgreSQL: ${KILLS} kills${PG ? '' : ' (skipped: DATABASE_URL is not set)'}`, async () => {
    const db = pgUrl();
    let cycles: Awaited<ReturnType<typeof killCycles>> = [];
    try {
      cycles = await killCycles(db, KILLS);
    } finally {
      const s = await openStore(db);
      await (s as unknown as { dropSchema?: () => Promise<void> }).dropSchema?.();
      await s.close();
    }
    expect(cycles.every((c) => c.acked > 0)).toBe(true);
    expect(cycles.some((c) => c.openAtKill > 0)).toBe(true);
    console.log(`PostgreSQL kills: ${cycles.map((c) => `${c.acked} batches/${c.routes} routes/${c.openAtKill} open`).join(', ')}`);
  }, 900_000);
});
