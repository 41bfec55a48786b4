/**
 * The one test suite both Store backends pass (`sqlite.test.ts`, `postgres.test.ts`): migrations
 * (an upgrade from version 1 included), accounts, Login sessions, the credit ledger (with
 * `balance == Σ ledger` checked after every step), stored routes, tracks, jobs, and concurrency
 * (2,000 reservations racing for 1,500 credits, settle racing releaseStale, 20 endings of one job
 * racing) over two stores on one database where the backend allows it.
 */
import { describe, expect, it } from 'vitest';
import { EngineError } from '../../src/core/errors.js';
import { keyHash, newApiKey } from '../../src/store/hash.js';
import { SCHEMA_VERSION } from '../../src/store/migrations.js';
import type { Account, NewRoute, Store } from '../../src/store/types.js';

export interface StoreFactory {
  /** A fresh, empty, migrated store. */
  open(): Promise<Store>;
  /** A fresh, empty store migrated only up to `version` (a database left by an older dispatchkit); disposed of by `dispose`. */
  openAt(version: number): Promise<Store>;
  /** A second store on the same database as `s` (another server process), migrated; undefined when the backend cannot (an in-memory database). */
  openAgain?(s: Store): Promise<Store>;
  /** Runs SQL on the store's database, bypassing the Store (to fake a newer schema). */
  raw(s: Store, sql: string): Promise<void>;
  /** Names of the tables and indexes of the store's database (to check that nothing changed). */
  objects(s: Store): Promise<string[]>;
  /** Closes the store and drops what `open` created. */
  dispose(s: Store): Promise<void>;
}

const T0 = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

/** The EngineError code of a rejected promise (fails when it resolves). */
export async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(EngineError);
    return (e as EngineError).code;
  }
  throw new Error('expected a rejection');
}

function route(name: string, owner: string, extra: Partial<NewRoute> = {}): NewRoute {
  return { name, owner, distance: 12.5, time: 1800, stops: 3, vehicles: 1, result: JSON.stringify({ Status: 'Success', RouteName: name }), ...extra };
}

interface Ctx {
  /** A fresh, empty, migrated store of its own. */
  store: Store;
  /** More stores opened by the test (closed after it). */
  extra: Store[];
  /** Creates an account (at T0) with a new API key. */
  account(name: string, credit: number, more?: { expiresAt?: number | null; passwordHash?: string | null }): Promise<Account & { key: string }>;
  /** balance == Σ ledger, and (when given) equals `expected`; the balance. */
  balanced(id: number, expected?: number, s?: Store): Promise<number>;
}

/**
 * Every test gets a database of its own (a fresh file, in-memory database or PostgreSQL schema),
 * so the tests run concurrently (their time is mostly waiting for commits and DDL).
 */
export function storeSuite(name: string, factory: StoreFactory): void {
  const t = it.extend<{ ctx: Ctx }>({
    // eslint-disable-next-line no-empty-pattern
    ctx: async ({}, use) => {
      const store = await factory.open();
      const extra: Store[] = [];
      const ctx: Ctx = {
        store,
        extra,
        async account(n, credit, more = {}) {
          const key = newApiKey();
          const a = await store.createAccount({ name: n, keyHash: keyHash(key), passwordHash: more.passwordHash ?? null, credit, expiresAt: more.expiresAt ?? null, now: T0 });
          return { ...a, key };
        },
        async balanced(id, expected, s = store) {
          const b = await s.balance(id);
          expect(b).not.toBeNull();
          expect(await s.ledgerSum(id)).toBe(b);
          if (expected !== undefined) expect(b).toBe(expected);
          return b!;
        },
      };
      try {
        await use(ctx);
      } finally {
        for (const s of extra) await s.close();
        await factory.dispose(store);
      }
    },
  });

  describe.concurrent(name, () => {
    // ---------------------------------------------------------------- migrations

    describe('migrations', () => {
      t('a fresh database is at the newest version; migrate again changes nothing', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        expect(await store.schemaVersion()).toBe(SCHEMA_VERSION);
        const before = await factory.objects(store);
        expect(before.length).toBeGreaterThan(8);
        expect(await store.migrate()).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
        expect(await store.migrate()).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
        expect(await factory.objects(store)).toEqual(before);
        await store.ping();
      });

      t('a database written by a newer version is refused (Storage, naming both versions) and left untouched', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        const a = await account('keep', 5);
        await factory.raw(store, `INSERT INTO dk_schema_migrations (version, description, applied_at) VALUES (${SCHEMA_VERSION + 998}, 'from the future', 0)`);
        const before = await factory.objects(store);
        let err: unknown;
        try {
          await store.migrate();
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(EngineError);
        expect((err as EngineError).code).toBe('Storage');
        expect((err as EngineError).details).toEqual({ version: SCHEMA_VERSION + 998, supported: SCHEMA_VERSION });
        expect((err as EngineError).message).toContain(String(SCHEMA_VERSION + 998));
        expect(await store.schemaVersion()).toBe(SCHEMA_VERSION + 998);
        expect(await factory.objects(store)).toEqual(before);
        expect((await store.accountById(a.id))?.balance).toBe(5);
        if (factory.openAgain) expect(await codeOf(factory.openAgain(store))).toBe('Storage');
      });

      t('a database at version 1 migrates to the newest version keeping its data; its reservations can become jobs\'', async ({ ctx }) => {
        const { store, balanced } = ctx;
        const old = await factory.openAt(1);
        try {
          expect(await old.schemaVersion()).toBe(1);
          expect((await factory.objects(old)).filter((n) => n.includes('dk_jobs'))).toEqual([]);
          const a = await old.createAccount({ name: 'Acme', keyHash: keyHash('k-old'), passwordHash: 'scrypt$x', credit: 100, now: T0 });
          const r1 = (await old.reserve({ accountId: a.id, amount: 10, operation: 'Dispatch', instance: 'i1', now: T0 + 1 }))!;
          const { routeId } = await old.settle({ reservationId: r1, cost: 4, now: T0 + 2, route: route('kept', 'acme') });
          const r2 = (await old.reserve({ accountId: a.id, amount: 7, operation: 'Dispatch', instance: 'job:carried', now: T0 + 3 }))!;
          await old.createSession({ keyHash: keyHash('s-old'), accountId: a.id, now: T0 + 3 });
          await old.addTrackPoints({ accountId: a.id, track: 'van', points: [{ lat: 1, lon: 2, ts: T0 }], now: T0 });
          const ledgerBefore = await old.ledger(a.id, 1000);
          await balanced(a.id, 89, old);

          expect(await old.migrate()).toEqual({ from: 1, to: SCHEMA_VERSION });
          expect(await old.schemaVersion()).toBe(SCHEMA_VERSION);
          // the same tables and indexes as a database created at the newest version
          expect(await factory.objects(old)).toEqual(await factory.objects(store));
          expect(await old.accountByName('ACME')).toMatchObject({ id: a.id, balance: 89, passwordHash: 'scrypt$x' });
          expect(await old.ledger(a.id, 1000)).toEqual(ledgerBefore);
          expect((await old.getRoute(a.id, routeId!))?.route).toMatchObject({ name: 'kept', createdAt: T0 + 2 });
          expect((await old.touchSession(keyHash('s-old'), T0 + 4, HOUR))?.id).toBe(a.id);
          expect(await old.getTrack({ accountId: a.id, track: 'van', from: 0, to: T0 })).toEqual([{ lat: 1, lon: 2, ts: T0 }]);
          expect(await old.openReservations()).toBe(1);
          await balanced(a.id, 89, old);
          // a reservation made before the upgrade becomes a job's, and is never released as stale
          await old.createJob({ id: 'carried', accountId: a.id, operation: 'Dispatch', spec: '{}', reservationId: r2, now: T0 + 5 });
          expect((await old.getJob('carried'))?.unitPrice).toBeNull();
          expect(await old.releaseStale({ instance: 'me', now: T0 + HOUR, staleMs: 1000 })).toBe(0);
          expect((await old.finishJob({ id: 'carried', state: 'completed', cost: 2, result: '{}', now: T0 + 6 })).finished).toBe(true);
          await balanced(a.id, 94, old);
          expect(await old.migrate()).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
        } finally {
          await factory.dispose(old);
        }
      });

      t.runIf(!!factory.openAgain)('two stores migrating one database at once both succeed', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        // the first store has migrated already; the point is a second and third opening concurrently
        const [b, c] = await Promise.all([factory.openAgain!(store), factory.openAgain!(store)]);
        extra.push(b, c);
        expect(await b.schemaVersion()).toBe(SCHEMA_VERSION);
        expect(await c.migrate()).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
      });
    });

    // ---------------------------------------------------------------- accounts

    describe('accounts', () => {
      t('creates with an initial grant (none for 0 credit), finds by key hash, name (any case) and id', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        const a = await account('Acme', 100, { expiresAt: T0 + HOUR, passwordHash: 'scrypt$x' });
        expect(a).toMatchObject({ name: 'Acme', blocked: false, expiresAt: T0 + HOUR, createdAt: T0, balance: 100, hasPassword: true });
        expect(a.id).toBeGreaterThan(0);
        const l = await store.ledger(a.id);
        expect(l).toHaveLength(1);
        expect(l[0]).toMatchObject({ accountId: a.id, delta: 100, kind: 'grant', reservationId: null, createdAt: T0 });
        await balanced(a.id, 100);

        const z = await account('zero', 0);
        expect(z).toMatchObject({ balance: 0, hasPassword: false, expiresAt: null });
        expect(await store.ledger(z.id)).toEqual([]);
        await balanced(z.id, 0);

        const { key: _k, ...plain } = a;
        expect(await store.accountByKeyHash(keyHash(a.key))).toEqual(plain);
        expect(await store.accountByKeyHash(keyHash(a.key + ' '))).toBeNull();
        expect(await store.accountById(a.id)).toEqual(plain);
        expect(await store.accountById(a.id + 1000)).toBeNull();
        expect(await store.accountByName('aCME')).toEqual({ ...plain, passwordHash: 'scrypt$x' });
        expect(await store.accountByName('acme ')).toBeNull();
        expect(await store.accountByName('nobody')).toBeNull();
      });

      t('names are unique ignoring case (Conflict), Unicode included; nothing is written by a refused create', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        await account('Acme', 10);
        expect(await codeOf(account('ACME', 10))).toBe('Conflict');
        expect(await codeOf(account('acme', 0))).toBe('Conflict');
        await account('Émile', 1);
        expect(await codeOf(account('éMILE', 1))).toBe('Conflict');
        expect((await store.listAccounts()).map((x) => x.name)).toEqual(['Acme', 'Émile']);
        // the same key hash for two accounts is refused too
        const key = newApiKey();
        await store.createAccount({ name: 'one', keyHash: keyHash(key), passwordHash: null, credit: 0, now: T0 });
        expect(await codeOf(store.createAccount({ name: 'two', keyHash: keyHash(key), passwordHash: null, credit: 5, now: T0 }))).toBe('Conflict');
        expect(await store.accountByName('two')).toBeNull();
      });

      t('lists every account by name', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        for (const n of ['delta', 'Alpha', 'charlie', 'Bravo']) await account(n, 1);
        expect((await store.listAccounts()).map((x) => x.name)).toEqual(['Alpha', 'Bravo', 'charlie', 'delta']);
      });

      t('updates only the given fields; null for an unknown name; Conflict for a key hash in use', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        const a = await account('acme', 7, { passwordHash: 'p1', expiresAt: T0 + HOUR });
        const b = await account('other', 7);
        expect(await store.updateAccount('ACME', { blocked: true })).toMatchObject({ id: a.id, blocked: true, expiresAt: T0 + HOUR, hasPassword: true, balance: 7 });
        expect(await store.updateAccount('acme', { expiresAt: null })).toMatchObject({ blocked: true, expiresAt: null });
        expect(await store.updateAccount('acme', { passwordHash: null })).toMatchObject({ hasPassword: false });
        expect((await store.accountByName('acme'))!.passwordHash).toBeNull();
        expect(await store.updateAccount('acme', { passwordHash: 'p2', blocked: false, expiresAt: T0 + 2 * HOUR })).toMatchObject({ hasPassword: true, blocked: false, expiresAt: T0 + 2 * HOUR });
        expect((await store.accountByName('acme'))!.passwordHash).toBe('p2');
        // rotate the key: the old one stops working at once
        const k2 = newApiKey();
        expect(await store.updateAccount('acme', { keyHash: keyHash(k2) })).toMatchObject({ id: a.id });
        expect(await store.accountByKeyHash(keyHash(a.key))).toBeNull();
        expect((await store.accountByKeyHash(keyHash(k2)))?.id).toBe(a.id);
        expect(await codeOf(store.updateAccount('acme', { keyHash: keyHash(b.key) }))).toBe('Conflict');
        expect((await store.accountByKeyHash(keyHash(k2)))?.id).toBe(a.id);
        expect(await store.updateAccount('nobody', { blocked: true })).toBeNull();
        await balanced(a.id, 7);
      });
    });

    // ---------------------------------------------------------------- sessions

    describe('Login sessions', () => {
      t('slide: each use within the TTL extends it; an expired one is null and deleted', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        const a = await account('acme', 0);
        const TTL = 4 * HOUR;
        const k = keyHash('session-1');
        await store.createSession({ keyHash: k, accountId: a.id, now: T0 });
        expect(await codeOf(store.createSession({ keyHash: k, accountId: a.id, now: T0 }))).toBe('Conflict');
        expect((await store.touchSession(k, T0 + TTL - 1, TTL))?.id).toBe(a.id);
        // last use is now T0 + TTL - 1: still valid nearly two TTLs after creation
        expect((await store.touchSession(k, T0 + 2 * TTL - 2, TTL))?.name).toBe('acme');
        // unused for exactly the TTL: expired, and gone for good (even asked with an earlier clock)
        expect(await store.touchSession(k, T0 + 3 * TTL - 2, TTL)).toBeNull();
        expect(await store.touchSession(k, T0 + 2 * TTL, TTL)).toBeNull();
        expect(await store.deleteSession(k)).toBe(false);
        expect(await store.touchSession(keyHash('unknown'), T0, TTL)).toBeNull();
      });

      t('deleteSession ends one session and says whether there was one; the account reflects its current state', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        const a = await account('acme', 0);
        const k1 = keyHash('s1'), k2 = keyHash('s2');
        await store.createSession({ keyHash: k1, accountId: a.id, now: T0 });
        await store.createSession({ keyHash: k2, accountId: a.id, now: T0 });
        expect(await store.deleteSession(k1)).toBe(true);
        expect(await store.deleteSession(k1)).toBe(false);
        expect(await store.touchSession(k1, T0 + 1, HOUR)).toBeNull();
        await store.updateAccount('acme', { blocked: true });
        expect(await store.touchSession(k2, T0 + 1, HOUR)).toMatchObject({ id: a.id, blocked: true });
      });

      t("a new key or password ends the account's sessions (and no other account's); blocking or expiry does not", async ({ ctx }) => {
        const { store, account } = ctx;
        const a = await account('acme', 0);
        const b = await account('other', 0);
        const kb = keyHash('other-session');
        await store.createSession({ keyHash: kb, accountId: b.id, now: T0 });
        for (const patch of [{ keyHash: keyHash('new-key') }, { passwordHash: 'scrypt$2$1$1$AA$AAAAAAAAAAAAAAAAAAAAAA' }, { passwordHash: null }]) {
          const k = keyHash(`s-${JSON.stringify(patch)}`);
          await store.createSession({ keyHash: k, accountId: a.id, now: T0 });
          await store.updateAccount('acme', { expiresAt: T0 + 10 * HOUR });
          expect(await store.touchSession(k, T0 + 1, HOUR)).not.toBeNull();
          await store.updateAccount('acme', patch);
          expect(await store.touchSession(k, T0 + 2, HOUR)).toBeNull();
        }
        expect((await store.touchSession(kb, T0 + 3, HOUR))?.id).toBe(b.id);
      });
    });

    // ---------------------------------------------------------------- credit

    describe('credit', () => {
      t('grant, reserve, settle with refund; balance == Σ ledger after every step', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        const a = await account('acme', 100);
        expect(await store.grantCredit({ accountId: a.id, amount: 50, note: 'top-up', now: T0 + 1 })).toBe(150);
        await balanced(a.id, 150);
        expect(await store.grantCredit({ accountId: a.id, amount: -20, note: 'correction', now: T0 + 2 })).toBe(130);
        await balanced(a.id, 130);
        expect(await store.grantCredit({ accountId: a.id + 999, amount: 5, note: 'x', now: T0 })).toBeNull();

        const r = await store.reserve({ accountId: a.id, amount: 30, operation: 'Dispatch', instance: 'i1', now: T0 + 3 });
        expect(r).toEqual(expect.any(Number));
        await balanced(a.id, 100);
        expect(await store.openReservations()).toBe(1);
        expect(await store.settle({ reservationId: r!, cost: 12, now: T0 + 4 })).toEqual({ routeId: null });
        await balanced(a.id, 118);
        expect(await store.openReservations()).toBe(0);

        const l = await store.ledger(a.id);
        expect(l.map((e) => [e.kind, e.delta, e.note, e.reservationId])).toEqual([
          ['refund', 18, 'Dispatch', r],
          ['reserve', -30, 'Dispatch', r],
          ['grant', -20, 'correction', null],
          ['grant', 50, 'top-up', null],
          ['grant', 100, 'initial credit', null],
        ]);
        expect(l[0].createdAt).toBe(T0 + 4);
        expect(l.every((e) => e.accountId === a.id)).toBe(true);
        expect((await store.ledger(a.id, 2)).map((e) => e.kind)).toEqual(['refund', 'reserve']);

        // settling twice: Conflict, nothing written
        expect(await codeOf(store.settle({ reservationId: r!, cost: 0, now: T0 + 5 }))).toBe('Conflict');
        expect(await store.ledger(a.id, 100)).toHaveLength(5);
        await balanced(a.id, 118);
        expect(await codeOf(store.settle({ reservationId: 987654, cost: 0, now: T0 + 5 }))).toBe('Conflict');
      });

      t('taking credit below zero is refused (Conflict naming the balance, nothing written) unless allowDebt, also concurrently and at creation', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        const a = await account('acme', 30);
        const grant = (amount: number, allowDebt?: boolean, s = store) => s.grantCredit({ accountId: a.id, amount, note: 'correction', now: T0 + 1, ...(allowDebt === undefined ? {} : { allowDebt }) });
        let err: EngineError | undefined;
        try {
          await grant(-31);
        } catch (e) {
          err = e as EngineError;
        }
        expect(err).toBeInstanceOf(EngineError);
        expect(err!.code).toBe('Conflict');
        expect(err!.details).toEqual({ accountId: a.id, balance: 30, amount: -31 });
        expect(err!.message).toContain('the balance is 30');
        expect(await codeOf(grant(-31, false))).toBe('Conflict');
        expect(await store.ledger(a.id)).toHaveLength(1);
        await balanced(a.id, 30);
        expect(await grant(-30)).toBe(0);
        expect(await grant(-5, true)).toBe(-5);
        await balanced(a.id, -5);
        // raising a negative balance is always allowed; taking more from it is not
        expect(await grant(2)).toBe(-3);
        expect(await codeOf(grant(-1))).toBe('Conflict');
        expect(await grant(33)).toBe(30);
        // concurrently (over two stores where the backend allows): 10 takes of 4 from 30, exactly 7 succeed
        const other = factory.openAgain ? await factory.openAgain(store) : store;
        if (other !== store) extra.push(other);
        const got = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => grant(-4, undefined, i % 2 ? other : store)));
        expect(got.filter((o) => o.status === 'fulfilled')).toHaveLength(7);
        expect(got.filter((o) => o.status === 'rejected').map((o) => ((o as PromiseRejectedResult).reason as EngineError).code)).toEqual(['Conflict', 'Conflict', 'Conflict']);
        await balanced(a.id, 2);
        // an account cannot be created in debt either, unless allowDebt
        expect(await codeOf(account('debtor', -5))).toBe('Conflict');
        expect(await store.accountByName('debtor')).toBeNull();
        const d = await store.createAccount({ name: 'debtor', keyHash: keyHash(newApiKey()), passwordHash: null, credit: -5, allowDebt: true, now: T0 });
        expect(d.balance).toBe(-5);
        await balanced(d.id, -5);
      });

      t('settle at the full amount writes no refund; at 0 refunds everything; above the amount is refused', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        const a = await account('acme', 10);
        const r1 = (await store.reserve({ accountId: a.id, amount: 4, operation: 'Geocode', instance: 'i1', now: T0 }))!;
        await store.settle({ reservationId: r1, cost: 4, now: T0 });
        await balanced(a.id, 6);
        expect((await store.ledger(a.id)).map((e) => e.kind)).toEqual(['reserve', 'grant']);
        const r2 = (await store.reserve({ accountId: a.id, amount: 6, operation: 'Geocode', instance: 'i1', now: T0 }))!;
        await balanced(a.id, 0);
        expect(await codeOf(store.settle({ reservationId: r2, cost: 7, now: T0 }))).toBe('InvalidInput');
        expect(await store.openReservations()).toBe(1);
        await store.settle({ reservationId: r2, cost: 0, now: T0 });
        await balanced(a.id, 6);
        expect((await store.ledger(a.id, 1))[0]).toMatchObject({ kind: 'refund', delta: 6, reservationId: r2 });
      });

      t('reserve refuses (null, nothing written) a blocked, expired, unknown or short account; takes exactly the balance', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        const a = await account('acme', 10, { expiresAt: T0 + HOUR });
        const res = (amount: number, now = T0, accountId = a.id) => store.reserve({ accountId, amount, operation: 'Route', instance: 'i1', now });
        expect(await res(11)).toBeNull();
        expect(await res(1, T0 + HOUR)).toBeNull(); // expires at that instant
        expect(await res(1, T0, a.id + 1000)).toBeNull();
        await store.updateAccount('acme', { blocked: true });
        expect(await res(1)).toBeNull();
        expect(await store.ledger(a.id)).toHaveLength(1);
        expect(await store.openReservations()).toBe(0);
        await balanced(a.id, 10);
        await store.updateAccount('acme', { blocked: false });
        expect(await res(10, T0 + HOUR - 1)).toEqual(expect.any(Number));
        await balanced(a.id, 0);
        expect(await res(1)).toBeNull();
        expect(await codeOf(res(0))).toBe('InvalidInput');
        expect(await codeOf(res(1.5))).toBe('InvalidInput');
      });

      t('charge takes a known cost in one write (a charge entry, no reservation); refuses like reserve, writing nothing; never below zero, even concurrently', async ({ ctx }) => {
        const { store, account, balanced } = ctx;
        const a = await account('acme', 10, { expiresAt: T0 + HOUR });
        const charge = (amount: number, now = T0, accountId = a.id) => store.charge({ accountId, amount, operation: 'CalculateDistance', now });
        const id = await charge(3);
        expect(id).toEqual(expect.any(Number));
        await balanced(a.id, 7);
        const [e] = await store.ledger(a.id, 1);
        expect([e.id, e.kind, e.delta, e.note, e.reservationId]).toEqual([id, 'charge', -3, 'CalculateDistance', null]);
        expect(await store.openReservations()).toBe(0);
        expect(await charge(8)).toBeNull();
        expect(await charge(1, T0 + HOUR)).toBeNull(); // expires at that instant
        expect(await charge(1, T0, a.id + 1000)).toBeNull();
        await store.updateAccount('acme', { blocked: true });
        expect(await charge(1)).toBeNull();
        await store.updateAccount('acme', { blocked: false });
        expect(await store.ledger(a.id)).toHaveLength(2);
        await balanced(a.id, 7);
        expect(await codeOf(charge(0))).toBe('InvalidInput');
        expect(await codeOf(charge(2.5))).toBe('InvalidInput');
        // 20 concurrent charges of 1 on a balance of 7: exactly 7 succeed
        const got = await Promise.all(Array.from({ length: 20 }, () => charge(1)));
        expect(got.filter((x) => x !== null)).toHaveLength(7);
        await balanced(a.id, 0);
      });

      t('settle with a route stores both in one transaction, under the reservation\'s account', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        const a = await account('acme', 10);
        const r = (await store.reserve({ accountId: a.id, amount: 5, operation: 'Dispatch', instance: 'i1', now: T0 }))!;
        const { routeId } = await store.settle({ reservationId: r, cost: 3, now: T0 + 7, route: route('3 stops on 1 vehicles', 'acme') });
        expect(routeId).toBeGreaterThan(0);
        await balanced(a.id, 7);
        const got = await store.getRoute(a.id, routeId!);
        expect(got?.route).toEqual({ routeId, accountId: a.id, name: '3 stops on 1 vehicles', owner: 'acme', distance: 12.5, time: 1800, stops: 3, vehicles: 1, createdAt: T0 + 7, version: 1 });
        expect(JSON.parse(got!.result)).toEqual({ Status: 'Success', RouteName: '3 stops on 1 vehicles' });
      });

      t('when storing the route fails, neither the refund nor the settlement is visible', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        const a = await account('acme', 10);
        const r = (await store.reserve({ accountId: a.id, amount: 5, operation: 'Dispatch', instance: 'i1', now: T0 }))!;
        const bad = route('bad', 'acme', { result: null as unknown as string }); // violates NOT NULL
        expect(await codeOf(store.settle({ reservationId: r, cost: 3, now: T0, route: bad }))).toBe('Storage');
        await balanced(a.id, 5);
        expect(await store.openReservations()).toBe(1);
        expect(await store.listRoutes(a.id)).toEqual([]);
        expect(await store.ledger(a.id)).toHaveLength(2);
        // the reservation is still open and settles normally afterwards
        const { routeId } = await store.settle({ reservationId: r, cost: 3, now: T0, route: route('good', 'acme') });
        expect((await store.listRoutes(a.id)).map((x) => x.routeId)).toEqual([routeId]);
        await balanced(a.id, 7);
      });

      t('releaseStale refunds a job\'s reservation whose job row was never written (the server died between the two), once stale; never one whose job exists', async ({ ctx }) => {
        const { store, account, balanced } = ctx;
        const a = await account('acme', 100);
        const STALE = 30_000;
        const now = T0 + HOUR;
        const res = async (id: string, amount: number, at: number) => (await store.reserve({ accountId: a.id, amount, operation: 'Dispatch', instance: `job:${id}`, now: at }))!;
        const orphan = await res('orphan', 10, now - STALE); // its row never written
        const young = await res('young', 5, now - STALE + 1); // being submitted right now
        const withJob = await res('held', 20, now - 10 * STALE);
        await store.createJob({ id: 'held', accountId: a.id, operation: 'Dispatch', spec: '{}', reservationId: withJob, now: now - 10 * STALE });
        await balanced(a.id, 65);
        expect(await store.releaseStale({ instance: 'me', now, staleMs: STALE })).toBe(1);
        await balanced(a.id, 75);
        expect((await store.ledger(a.id)).filter((e) => e.kind === 'refund').map((e) => e.reservationId)).toEqual([orphan]);
        // the young one's row comes: it is the job's as before; the job's end settles it
        await store.createJob({ id: 'young', accountId: a.id, operation: 'Dispatch', spec: '{}', reservationId: young, now });
        expect(await store.releaseStale({ instance: 'me', now: now + HOUR, staleMs: STALE })).toBe(0);
        expect((await store.finishJob({ id: 'held', state: 'completed', cost: 4, result: '{}', now: now + 1 })).finished).toBe(true);
        await balanced(a.id, 91);
      });

      t('releaseStale refunds only other instances\' stale reservations; a later settle charges the cost', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        const a = await account('acme', 100);
        const STALE = 30_000;
        const now = T0 + HOUR;
        await store.heartbeat('dead', now - STALE - 1);
        await store.heartbeat('edge', now - STALE); // silent for exactly staleMs: stale
        await store.heartbeat('alive', now - STALE + 1);
        await store.heartbeat('me', now - 10 * STALE); // one's own reservations are never released
        const res = async (instance: string, amount: number, at = now - 2 * STALE) =>
          (await store.reserve({ accountId: a.id, amount, operation: 'Dispatch', instance, now: at }))!;
        const rDead = await res('dead', 10);
        const rEdge = await res('edge', 5);
        const rAlive = await res('alive', 20);
        const rMe = await res('me', 30);
        const rGhost = await res('ghost', 4, now - STALE - 5); // never sent a heartbeat: counts from its creation
        const rYoung = await res('newborn', 2, now - 100); // no heartbeat yet, but just created
        const rDone = await res('dead', 1);
        await store.settle({ reservationId: rDone, cost: 1, now });
        await balanced(a.id, 100 - 10 - 5 - 20 - 30 - 4 - 2 - 1);
        expect(await store.openReservations()).toBe(6);

        expect(await store.releaseStale({ instance: 'me', now, staleMs: STALE })).toBe(3);
        await balanced(a.id, 100 - 20 - 30 - 2 - 1);
        expect(await store.openReservations()).toBe(3);
        expect(await store.releaseStale({ instance: 'me', now, staleMs: STALE })).toBe(0);
        const refunds = (await store.ledger(a.id)).filter((e) => e.kind === 'refund').map((e) => e.reservationId).sort((x, y) => x! - y!);
        expect(refunds).toEqual([rDead, rEdge, rGhost].sort((x, y) => x - y));

        // the dead instance's operation did finish: its settlement takes the cost again
        await store.settle({ reservationId: rDead, cost: 7, now: now + 1 });
        expect((await store.ledger(a.id, 1))[0]).toMatchObject({ kind: 'charge', delta: -7, reservationId: rDead });
        await balanced(a.id, 100 - 20 - 30 - 2 - 1 - 7);
        expect(await codeOf(store.settle({ reservationId: rDead, cost: 7, now: now + 2 }))).toBe('Conflict');
        // a released one settled at 0 writes nothing
        const n = (await store.ledger(a.id, 1000)).length;
        await store.settle({ reservationId: rEdge, cost: 0, now: now + 3 });
        expect(await store.ledger(a.id, 1000)).toHaveLength(n);
        // live ones settle normally
        await store.settle({ reservationId: rAlive, cost: 20, now: now + 4 });
        await store.settle({ reservationId: rMe, cost: 10, now: now + 4 });
        await store.settle({ reservationId: rYoung, cost: 2, now: now + 4 });
        await store.settle({ reservationId: rGhost, cost: 4, now: now + 4 });
        expect(await store.openReservations()).toBe(0);
        await balanced(a.id, 100 - 1 - 7 - 20 - 10 - 2 - 4);
        // the balance may go below zero through charges
        const b = await account('poor', 3);
        const rb = (await store.reserve({ accountId: b.id, amount: 3, operation: 'Dispatch', instance: 'dead', now: now - 2 * STALE }))!;
        expect(await store.releaseStale({ instance: 'me', now, staleMs: STALE })).toBe(1);
        const rb2 = (await store.reserve({ accountId: b.id, amount: 3, operation: 'Dispatch', instance: 'me', now }))!;
        await store.settle({ reservationId: rb2, cost: 3, now });
        await store.settle({ reservationId: rb, cost: 3, now });
        await balanced(b.id, -3);
      });
    });

    // ---------------------------------------------------------------- usage and audit

    describe('usage and audit', () => {
      const u = (units: number, unitPrice = 1, operation = 'Geocode') => ({ operation, units, unitPrice });

      t('usage is written with its charge (charge, settle, finishJob) in the same transaction; listed newest first; append-only', async ({ ctx }) => {
        const { store, account, balanced } = ctx;
        const a = await account('acme', 100);
        const c = await store.charge({ accountId: a.id, amount: 6, operation: 'Geocode', now: T0 + 1, usage: u(3, 2) });
        expect(c).toEqual(expect.any(Number));
        const r = (await store.reserve({ accountId: a.id, amount: 10, operation: 'Dispatch', instance: 'i1', now: T0 + 2 }))!;
        await store.settle({ reservationId: r, cost: 4, now: T0 + 3, usage: u(4, 1, 'Dispatch') });
        const rj = (await store.reserve({ accountId: a.id, amount: 8, operation: 'CalculateRoutes', instance: 'job:j1', now: T0 + 4 }))!;
        await store.createJob({ id: 'j1', accountId: a.id, operation: 'CalculateRoutes', spec: '{}', reservationId: rj, now: T0 + 4 });
        await store.finishJob({ id: 'j1', state: 'completed', cost: 5, result: '{}', usage: u(5, 1, 'CalculateRoutes'), now: T0 + 5 });
        await balanced(a.id, 100 - 6 - 4 - 5);
        const got = await store.usage(a.id);
        expect(got.map((x) => [x.operation, x.units, x.unitPrice, x.cost, x.reservationId, x.createdAt])).toEqual([
          ['CalculateRoutes', 5, 1, 5, rj, T0 + 5],
          ['Dispatch', 4, 1, 4, r, T0 + 3],
          ['Geocode', 3, 2, 6, null, T0 + 1],
        ]);
        expect(got.every((x) => x.accountId === a.id && x.id > 0)).toBe(true);
        expect((await store.usage(a.id, 1)).map((x) => x.operation)).toEqual(['CalculateRoutes']);
        expect(await store.usage(a.id + 1000)).toEqual([]);
        // a refused charge writes no usage either
        expect(await store.charge({ accountId: a.id, amount: 1000, operation: 'Geocode', now: T0 + 6, usage: u(1000) })).toBeNull();
        // an ending that finds its reservation settled already records no second usage
        const rs = (await store.reserve({ accountId: a.id, amount: 3, operation: 'Dispatch', instance: 'job:j2', now: T0 + 7 }))!;
        await store.createJob({ id: 'j2', accountId: a.id, operation: 'Dispatch', spec: '{}', reservationId: rs, now: T0 + 7 });
        await store.settle({ reservationId: rs, cost: 2, now: T0 + 8, usage: u(2, 1, 'Dispatch') });
        await store.finishJob({ id: 'j2', state: 'completed', cost: 3, result: '{}', usage: u(3, 1, 'Dispatch'), now: T0 + 9 });
        expect((await store.usage(a.id)).length).toBe(4);
        await expect(factory.raw(store, `UPDATE dk_usage SET cost = 0`)).rejects.toThrow(/append-only/);
        await expect(factory.raw(store, `DELETE FROM dk_usage`)).rejects.toThrow(/append-only/);
        expect((await store.audit(a.id))[0]).toMatchObject({ ok: true, netCharged: 6 + 4 + 5 + 2, usageCost: 17 });
      });

      t('a usage whose units × unitPrice is not the cost is InvalidInput, and nothing is written', async ({ ctx }) => {
        const { store, account, balanced } = ctx;
        const a = await account('acme', 100);
        const r = (await store.reserve({ accountId: a.id, amount: 10, operation: 'Dispatch', instance: 'i1', now: T0 }))!;
        await store.createJob({ id: 'j', accountId: a.id, operation: 'Dispatch', spec: '{}', reservationId: (await store.reserve({ accountId: a.id, amount: 5, operation: 'Dispatch', instance: 'job:j', now: T0 }))!, now: T0 });
        const n = (await store.ledger(a.id, 100)).length;
        const bad = [
          store.charge({ accountId: a.id, amount: 6, operation: 'Geocode', now: T0, usage: u(3, 3) }),
          store.charge({ accountId: a.id, amount: 6, operation: 'Geocode', now: T0, usage: u(-2, -3) }),
          store.charge({ accountId: a.id, amount: 6, operation: 'Geocode', now: T0, usage: u(1.5, 4) }),
          store.settle({ reservationId: r, cost: 4, now: T0, usage: u(5) }),
          store.settle({ reservationId: r, cost: 4, now: T0, usage: { operation: '', units: 4, unitPrice: 1 } }),
          store.finishJob({ id: 'j', state: 'completed', cost: 2, now: T0, usage: u(1) }),
          store.finishJob({ id: 'j', state: 'failed', cost: 0, now: T0, usage: u(1) }),
        ];
        for (const p of bad) expect(await codeOf(p)).toBe('InvalidInput');
        expect(await store.ledger(a.id, 100)).toHaveLength(n);
        expect(await store.usage(a.id)).toEqual([]);
        expect(await store.openReservations()).toBe(2);
        expect(await store.getJob('j')).toMatchObject({ state: 'queued' });
        await balanced(a.id, 85);
      });

      t('audit: balance against Σ ledger and net charged against Σ usage, per account, by name; the problems in words', async ({ ctx }) => {
        const { store, account } = ctx;
        const a = await account('acme', 100), b = await account('Beta', 50), z = await account('zero', 0);
        // acme: every charge with its usage, one reservation still open, one released as stale and settled late, a grant
        await store.charge({ accountId: a.id, amount: 3, operation: 'CalculateDistance', now: T0, usage: u(3, 1, 'CalculateDistance') });
        const r1 = (await store.reserve({ accountId: a.id, amount: 10, operation: 'Dispatch', instance: 'i1', now: T0 }))!;
        await store.settle({ reservationId: r1, cost: 7, now: T0 + 1, usage: u(7, 1, 'Dispatch') });
        await store.reserve({ accountId: a.id, amount: 20, operation: 'Dispatch', instance: 'i1', now: T0 + 2 }); // still running
        const r3 = (await store.reserve({ accountId: a.id, amount: 5, operation: 'Dispatch', instance: 'dead', now: T0 }))!;
        expect(await store.releaseStale({ instance: 'i1', now: T0 + HOUR, staleMs: 1000 })).toBe(1);
        await store.settle({ reservationId: r3, cost: 5, now: T0 + HOUR, usage: u(5, 1, 'Dispatch') }); // a late charge
        await store.grantCredit({ accountId: a.id, amount: 40, note: 'top-up', now: T0 + HOUR });
        await store.settle({ reservationId: (await store.reserve({ accountId: a.id, amount: 2, operation: 'Geocode', instance: 'i1', now: T0 }))!, cost: 0, now: T0 + 1 }); // free: no usage needed
        // Beta: a charge without its usage
        await store.charge({ accountId: b.id, amount: 4, operation: 'Geocode', now: T0 });
        const all = await store.audit();
        expect(all.map((x) => x.name)).toEqual(['acme', 'Beta', 'zero']);
        const [aa, bb, zz] = all;
        expect(aa).toMatchObject({ accountId: a.id, balance: 100 - 3 - 7 - 20 - 5 + 40, ledgerSum: 105, netCharged: 15, usageCost: 15, openReserved: 20, ok: true, problems: [] });
        expect(aa.beforeUsage).toEqual({ netCharged: 0, usageCost: 0 });
        expect(aa.notes).toEqual(['20 credit(s) reserved by operations still running']);
        expect(bb).toMatchObject({ accountId: b.id, balance: 46, ledgerSum: 46, netCharged: 4, usageCost: 0, ok: false });
        expect(bb.problems).toEqual(['charged 4 credit(s) for operations but usage records account for 0: 4 charged without a usage record']);
        expect(zz).toMatchObject({ balance: 0, ledgerSum: 0, netCharged: 0, usageCost: 0, ok: true });
        expect((await store.audit(b.id)).map((x) => x.name)).toEqual(['Beta']);
        expect(await store.audit(z.id + 1000)).toEqual([]);
        // a balance changed behind the ledger's back
        await factory.raw(store, `UPDATE dk_accounts SET balance = balance + 1 WHERE id = ${z.id}`);
        const [z2] = await store.audit(z.id);
        expect(z2.ok).toBe(false);
        expect(z2.problems).toEqual(['balance 1 ≠ ledger sum 0 (+1)']);
      });

      t('a database at version 2 migrates to usage: charges written before are "before usage was recorded", not problems', async ({ ctx }) => {
        const { balanced } = ctx;
        const old = await factory.openAt(2);
        try {
          expect(await old.schemaVersion()).toBe(2);
          const a = await old.createAccount({ name: 'acme', keyHash: keyHash('k-v2'), passwordHash: null, credit: 100, now: T0 });
          await old.charge({ accountId: a.id, amount: 3, operation: 'Geocode', now: T0 });
          const r1 = (await old.reserve({ accountId: a.id, amount: 10, operation: 'Dispatch', instance: 'i1', now: T0 }))!;
          await old.settle({ reservationId: r1, cost: 6, now: T0 });
          const rOpen = (await old.reserve({ accountId: a.id, amount: 8, operation: 'Dispatch', instance: 'i1', now: T0 }))!; // running across the upgrade
          expect(await old.migrate()).toEqual({ from: 2, to: SCHEMA_VERSION });
          // the reservation made before the upgrade settles after it, with its usage: all of it counts as before
          await old.settle({ reservationId: rOpen, cost: 5, now: T0 + 1, usage: u(5, 1, 'Dispatch') });
          await old.charge({ accountId: a.id, amount: 2, operation: 'Geocode', now: T0 + 2, usage: u(2) });
          const [x] = await old.audit(a.id);
          expect(x).toMatchObject({ ok: true, problems: [], netCharged: 2, usageCost: 2, beforeUsage: { netCharged: 3 + 6 + 5, usageCost: 5 } });
          expect(x.notes).toEqual(['before usage was recorded: 14 credit(s) charged (5 of them with a usage record); not checked']);
          // a charge after the upgrade without its usage is a problem again
          await old.charge({ accountId: a.id, amount: 1, operation: 'Geocode', now: T0 + 3 });
          expect((await old.audit(a.id))[0]).toMatchObject({ ok: false, netCharged: 3, usageCost: 2 });
          await balanced(a.id, 100 - 3 - 6 - 5 - 2 - 1, old);
        } finally {
          await factory.dispose(old);
        }
      });
    });

    // ---------------------------------------------------------------- retention

    describe('retention', () => {
      const DAY = 86_400_000;

      t('prune deletes old routes, finished jobs and track points; never a pending job, an open reservation, the ledger or usage', async ({ ctx }) => {
        const { store, account, balanced } = ctx;
        const NOW = T0 + 200 * DAY, CUT = NOW - 30 * DAY, OLD = NOW - 100 * DAY, RECENT = NOW - DAY;
        const a = await account('acme', 1000), b = await account('beta', 0);
        const standalone = [];
        for (let i = 0; i < 5; i++) standalone.push(await store.storeRoute({ accountId: a.id, route: route(`old ${i}`, 'acme'), now: OLD + i }));
        const fresh = await store.storeRoute({ accountId: b.id, route: route('fresh', 'beta'), now: RECENT });
        const edge = await store.storeRoute({ accountId: a.id, route: route('edge', 'acme'), now: CUT }); // not before the cut: kept
        const job = async (id: string, amount: number, at: number) => {
          const r = amount ? (await store.reserve({ accountId: a.id, amount, operation: 'Dispatch', instance: `job:${id}`, now: at }))! : null;
          await store.createJob({ id, accountId: a.id, operation: 'Dispatch', spec: '{}', reservationId: r, now: at });
          return r;
        };
        await job('pending-old', 10, OLD); // queued since long ago, its reservation open
        await job('done-old', 10, OLD);
        const done = await store.finishJob({ id: 'done-old', state: 'completed', cost: 4, result: '{}', route: route('of a job', 'acme'), usage: { operation: 'Dispatch', units: 4, unitPrice: 1 }, now: OLD });
        await job('failed-old', 0, OLD);
        await store.finishJob({ id: 'failed-old', state: 'failed', cost: 0, error: 'x', now: OLD });
        await job('cancelled-recent', 5, OLD);
        await store.finishJob({ id: 'cancelled-recent', state: 'cancelled', cost: 0, now: RECENT });
        // a job marked finished behind the store's back while its reservation is still open is not deleted either
        const rOdd = await job('odd', 3, OLD);
        await factory.raw(store, `UPDATE dk_jobs SET state = 'failed', finished_at = ${OLD}, updated_at = ${OLD} WHERE id = 'odd'`);
        const pts = Array.from({ length: 250 }, (_, i) => ({ lat: 43 + i * 1e-5, lon: 7, ts: i < 150 ? OLD + i : RECENT + i }));
        await store.addTrackPoints({ accountId: a.id, track: 'van', points: pts, now: NOW });
        await store.addTrackPoints({ accountId: b.id, track: 'van', points: [{ lat: 1, lon: 1, ts: CUT - 1 }, { lat: 1, lon: 1, ts: CUT }], now: NOW });
        const ledgerBefore = await store.ledger(a.id, 1000);
        const auditBefore = await store.audit();

        // every job kept (jobsBefore long ago): the route of a kept job stays, the standalone ones go
        expect(await store.prune({ now: NOW, routesBefore: CUT, jobsBefore: NOW - 300 * DAY, tracksBefore: CUT, batchSize: 2 })).toEqual({ routes: 5, jobs: 0, tracks: 151 });
        expect((await store.listRoutes(a.id)).map((x) => x.routeId).sort((x, y) => x - y)).toEqual([done.job!.routeId!, edge].sort((x, y) => x - y));
        expect((await store.listRoutes(b.id)).map((x) => x.routeId)).toEqual([fresh]);
        for (const id of standalone) expect(await store.getRoute(a.id, id)).toBeNull();
        const track = await store.getTrack({ accountId: a.id, track: 'van', from: 0, to: Number.MAX_SAFE_INTEGER });
        expect(track.map((p) => p.ts)).toEqual(pts.slice(150).map((p) => p.ts));
        expect(await store.getTrack({ accountId: b.id, track: 'van', from: 0, to: Number.MAX_SAFE_INTEGER })).toEqual([{ lat: 1, lon: 1, ts: CUT }]);

        // then the finished jobs before the cut, and with them the route only they referred to
        expect(await store.prune({ now: NOW, routesBefore: CUT, jobsBefore: CUT, batchSize: 2 })).toEqual({ routes: 1, jobs: 2, tracks: 0 });
        expect(await store.getJob('done-old')).toBeNull();
        expect(await store.getJob('failed-old')).toBeNull();
        expect(await store.getJob('pending-old')).toMatchObject({ state: 'queued' });
        expect(await store.getJob('cancelled-recent')).toMatchObject({ state: 'cancelled' });
        expect(await store.getJob('odd')).toMatchObject({ state: 'failed', reservationId: rOdd });
        expect(await store.getRoute(a.id, done.job!.routeId!)).toBeNull();
        expect((await store.listRoutes(a.id)).map((x) => x.routeId)).toEqual([edge]);
        expect(await store.pendingJobs({ before: NOW })).toHaveLength(1);

        // the ledger, the reservations and the usage are untouched
        expect(await store.ledger(a.id, 1000)).toEqual(ledgerBefore);
        expect(await store.openReservations()).toBe(2);
        expect(await store.usage(a.id)).toHaveLength(1);
        expect(await store.audit()).toEqual(auditBefore);
        await balanced(a.id);
        expect(await store.prune({ now: NOW, routesBefore: CUT, jobsBefore: CUT, tracksBefore: CUT })).toEqual({ routes: 0, jobs: 0, tracks: 0 });
        expect(await store.prune({ now: NOW })).toEqual({ routes: 0, jobs: 0, tracks: 0 });
      });

      t('prune refuses an instant after now, or a bad batch size (InvalidInput), deleting nothing', async ({ ctx }) => {
        const { store, account } = ctx;
        const a = await account('acme', 0);
        await store.storeRoute({ accountId: a.id, route: route('r', 'acme'), now: T0 });
        await store.addTrackPoints({ accountId: a.id, track: 't', points: [{ lat: 1, lon: 1, ts: T0 }], now: T0 });
        for (const p of [
          { now: T0, routesBefore: T0 + 1 },
          { now: T0, tracksBefore: T0 * 1000 },
          { now: T0, jobsBefore: 1.5 },
          { now: T0, routesBefore: T0, batchSize: -1 },
          { now: T0, routesBefore: T0, batchSize: 2.5 },
          { now: Number.NaN, routesBefore: 0 },
        ]) expect(await codeOf(store.prune(p)), JSON.stringify(p)).toBe('InvalidInput');
        expect(await store.listRoutes(a.id)).toHaveLength(1);
        expect(await store.getTrack({ accountId: a.id, track: 't', from: 0, to: T0 })).toHaveLength(1);
        expect(await store.prune({ now: T0 + 1, routesBefore: T0 + 1, tracksBefore: T0 + 1, batchSize: 1 })).toEqual({ routes: 1, jobs: 0, tracks: 1 });
      });
    });

    // ---------------------------------------------------------------- routes

    describe('stored routes', () => {
      t('lists newest first with every filter; RouteIDs increase; accounts never see each other\'s', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        const a = await account('acme', 0), b = await account('beta', 0);
        const ids: number[] = [];
        const add = async (accountId: number, n: string, owner: string, at: number) => {
          const id = await store.storeRoute({ accountId, route: route(n, owner), now: at });
          if (ids.length) expect(id).toBeGreaterThan(ids[ids.length - 1]);
          ids.push(id);
          return id;
        };
        const r1 = await add(a.id, 'Morning Run', 'Dispatcher', T0 + 1000);
        const r2 = await add(a.id, 'evening run', 'dispatcher', T0 + 2000);
        const r3 = await add(a.id, 'Night shift', 'acme', T0 + 3000);
        const r4 = await add(a.id, 'Late RUN', 'Émile', T0 + 3000);
        const rb = await add(b.id, 'Morning Run', 'Dispatcher', T0 + 1500);
        const list = async (f?: Parameters<Store['listRoutes']>[1]) => (await store.listRoutes(a.id, f)).map((x) => x.routeId);

        expect(await list()).toEqual([r4, r3, r2, r1]);
        expect(await list({ from: T0 + 2000 })).toEqual([r4, r3, r2]);
        expect(await list({ to: T0 + 2000 })).toEqual([r2, r1]);
        expect(await list({ from: T0 + 2000, to: T0 + 2000 })).toEqual([r2]);
        expect(await list({ from: T0 + 3001 })).toEqual([]);
        expect(await list({ owner: 'DISPATCHER' })).toEqual([r2, r1]);
        expect(await list({ owner: 'dispatch' })).toEqual([]);
        expect(await list({ owner: 'émile' })).toEqual([r4]);
        expect(await list({ name: 'RUN' })).toEqual([r4, r2, r1]);
        expect(await list({ name: 'ning r' })).toEqual([r2, r1]);
        expect(await list({ name: '%' })).toEqual([]);
        expect(await list({ name: 'run', owner: 'dispatcher', from: T0 + 1500 })).toEqual([r2]);
        expect(await list({ limit: 2 })).toEqual([r4, r3]);
        expect(await list({ limit: 0 })).toEqual([]);
        expect((await store.listRoutes(b.id)).map((x) => x.routeId)).toEqual([rb]);

        const got = await store.getRoute(a.id, r3);
        expect(got?.route).toMatchObject({ routeId: r3, accountId: a.id, name: 'Night shift', owner: 'acme', createdAt: T0 + 3000 });
        expect(JSON.parse(got!.result).RouteName).toBe('Night shift');
        expect(await store.getRoute(b.id, r3)).toBeNull();
        expect(await store.getRoute(a.id, rb)).toBeNull();
        expect(await store.getRoute(a.id, 99_999_999)).toBeNull();
      });

      t('versions: a replacement keeps the old version, only from the current one (optimistic), never another account\'s; stop events by route', async ({ ctx }) => {
        const { store, account } = ctx;
        const a = await account('acme', 0), b = await account('beta', 0);
        const id = await store.storeRoute({ accountId: a.id, route: route('Day', 'ops', { spec: '{"Locations":[]}' }), now: T0 });
        const v1 = await store.getRouteVersion(a.id, id);
        expect(v1).toMatchObject({ routeId: id, version: 1, spec: '{"Locations":[]}', changes: null, createdAt: T0 });
        expect((await store.getRoute(a.id, id))!.route.version).toBe(1);
        const next = route('Day', 'ops', { distance: 9, result: JSON.stringify({ Status: 'Success', V: 2 }), spec: '{"v":2}' });
        expect(await store.replaceRoute({ accountId: b.id, routeId: id, version: 1, route: next, changes: '[]', now: T0 + HOUR })).toBeNull();
        expect(await store.replaceRoute({ accountId: a.id, routeId: id, version: 1, route: next, changes: '[{"x":1}]', now: T0 + HOUR })).toBe(2);
        // a second re-dispatch of version 1 lost the race
        expect(await store.replaceRoute({ accountId: a.id, routeId: id, version: 1, route: next, changes: '[]', now: T0 + HOUR })).toBe('conflict');
        const cur = await store.getRoute(a.id, id);
        expect(cur!.route).toMatchObject({ version: 2, distance: 9, createdAt: T0 });
        expect(JSON.parse(cur!.result).V).toBe(2);
        expect(await store.getRouteVersion(a.id, id)).toMatchObject({ version: 2, spec: '{"v":2}', changes: '[{"x":1}]', createdAt: T0 + HOUR });
        expect(await store.getRouteVersion(a.id, id, 1)).toMatchObject({ version: 1, spec: '{"Locations":[]}', createdAt: T0 });
        expect(await store.getRouteVersion(a.id, id, 3)).toBeNull();
        expect(await store.getRouteVersion(b.id, id, 1)).toBeNull();
        expect(await store.replaceRoute({ accountId: a.id, routeId: id, version: 2, route: next, changes: '[]', now: T0 + 2 * HOUR })).toBe(3);
        expect((await store.getRouteVersion(a.id, id, 2))!.changes).toBe('[{"x":1}]');

        const ev = [
          { vehicle: 'Van 1', location: 'Stop A', event: 'Arrived' as const, ts: T0 + 100 },
          { vehicle: 'Van 1', location: 'Stop A', event: 'Done' as const, ts: T0 + 200 },
        ];
        expect(await store.addStopEvents({ accountId: a.id, routeId: id, events: ev, now: T0 })).toBe(2);
        expect(await store.addStopEvents({ accountId: b.id, routeId: id, events: ev, now: T0 })).toBeNull();
        expect(await store.addStopEvents({ accountId: a.id, routeId: 99_999_999, events: ev, now: T0 })).toBeNull();
        expect(await store.addStopEvents({ accountId: a.id, routeId: id, events: [{ ...ev[0], event: 'Skipped' }], now: T0 })).toBe(1);
        expect((await store.stopEvents(a.id, id)).map((e) => e.event)).toEqual(['Arrived', 'Done', 'Skipped']);
        expect(await store.stopEvents(b.id, id)).toEqual([]);
        expect(await codeOf(store.addStopEvents({ accountId: a.id, routeId: id, events: [{ ...ev[0], event: 'Lost' as 'Done' }], now: T0 }))).toBe('InvalidInput');
        // versions and events go with their route
        const pruned = await store.prune({ now: T0 + 3 * HOUR, routesBefore: T0 + 1 });
        expect(pruned.routes).toBeGreaterThanOrEqual(1);
        expect(await store.getRouteVersion(a.id, id, 1)).toBeNull();
        expect(await store.stopEvents(a.id, id)).toEqual([]);
      });
    });

    // ---------------------------------------------------------------- tracks

    describe('GPS tracks', () => {
      t('ordered by time then arrival, inclusive range, limit; tracks and accounts isolated', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        const a = await account('acme', 0), b = await account('beta', 0);
        const pts = [
          { lat: 43.1, lon: 7.1, ts: T0 + 300 },
          { lat: 43.2, lon: 7.2, ts: T0 + 100 },
          { lat: 43.3, lon: 7.3, ts: T0 + 200 },
          { lat: 43.4, lon: 7.4, ts: T0 + 200 },
        ];
        expect(await store.addTrackPoints({ accountId: a.id, track: 'van-7', points: pts, now: T0 })).toBe(4);
        expect(await store.addTrackPoints({ accountId: a.id, track: 'van-7', points: [{ lat: 43.5, lon: 7.5, ts: T0 + 200 }], now: T0 })).toBe(1);
        expect(await store.addTrackPoints({ accountId: a.id, track: 'van-7', points: [], now: T0 })).toBe(0);
        await store.addTrackPoints({ accountId: a.id, track: 'van-8', points: [{ lat: 1, lon: 2, ts: T0 + 200 }], now: T0 });
        await store.addTrackPoints({ accountId: b.id, track: 'van-7', points: [{ lat: 3, lon: 4, ts: T0 + 200 }], now: T0 });

        const get = (from: number, to: number, limit?: number, accountId = a.id, track = 'van-7') => store.getTrack({ accountId, track, from, to, limit });
        expect(await get(0, Number.MAX_SAFE_INTEGER)).toEqual([
          { lat: 43.2, lon: 7.2, ts: T0 + 100 },
          { lat: 43.3, lon: 7.3, ts: T0 + 200 },
          { lat: 43.4, lon: 7.4, ts: T0 + 200 },
          { lat: 43.5, lon: 7.5, ts: T0 + 200 },
          { lat: 43.1, lon: 7.1, ts: T0 + 300 },
        ]);
        expect((await get(T0 + 200, T0 + 300)).map((p) => p.lat)).toEqual([43.3, 43.4, 43.5, 43.1]);
        expect((await get(T0 + 100, T0 + 200)).map((p) => p.lat)).toEqual([43.2, 43.3, 43.4, 43.5]);
        expect(await get(T0 + 201, T0 + 299)).toEqual([]);
        expect((await get(0, Number.MAX_SAFE_INTEGER, 2)).map((p) => p.lat)).toEqual([43.2, 43.3]);
        expect(await get(0, Number.MAX_SAFE_INTEGER, undefined, a.id, 'van-8')).toEqual([{ lat: 1, lon: 2, ts: T0 + 200 }]);
        expect(await get(0, Number.MAX_SAFE_INTEGER, undefined, b.id)).toEqual([{ lat: 3, lon: 4, ts: T0 + 200 }]);
        expect(await get(0, Number.MAX_SAFE_INTEGER, undefined, b.id, 'van-8')).toEqual([]);
        expect(await get(0, Number.MAX_SAFE_INTEGER, undefined, a.id, 'VAN-7')).toEqual([]);
      });

      t('a batch is all or nothing', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        const a = await account('acme', 0);
        const bad = [{ lat: 1, lon: 1, ts: T0 }, { lat: Number.NaN, lon: 1, ts: T0 }];
        expect(await codeOf(store.addTrackPoints({ accountId: a.id, track: 't', points: bad, now: T0 }))).toBe('InvalidInput');
        expect(await store.getTrack({ accountId: a.id, track: 't', from: 0, to: Number.MAX_SAFE_INTEGER })).toEqual([]);
        // an unknown account violates the foreign key: nothing stored
        expect(await codeOf(store.addTrackPoints({ accountId: a.id + 1000, track: 't', points: [{ lat: 1, lon: 1, ts: T0 }], now: T0 }))).toBe('Storage');
        const many = Array.from({ length: 5000 }, (_, i) => ({ lat: 43 + i * 1e-6, lon: 7, ts: T0 + (i % 100) }));
        expect(await store.addTrackPoints({ accountId: a.id, track: 't', points: many, now: T0 })).toBe(5000);
        const got = await store.getTrack({ accountId: a.id, track: 't', from: T0 + 99, to: T0 + 99 });
        expect(got.map((p) => p.lat)).toEqual(many.filter((p) => p.ts === T0 + 99).map((p) => p.lat));
      });
    });

    // ---------------------------------------------------------------- jobs

    describe('jobs', () => {
      /** Credit reserved for job `id` as the service does it (instance `job:<id>`). */
      const jobCredit = async (s: Store, accountId: number, id: string, amount: number, at = T0) =>
        (await s.reserve({ accountId, amount, operation: 'Dispatch', instance: `job:${id}`, now: at }))!;

      t('lifecycle: queued → active (one attempt per run) → completed with a route: cost settled, the rest refunded, the route stored under the job', async ({ ctx }) => {
        const { store, account, balanced } = ctx;
        const a = await account('acme', 100);
        const id = '5f0c2a9e-7d1b-4c2e-9a57-0b8f3d2e6c41';
        const r = await jobCredit(store, a.id, id, 30);
        const j = await store.createJob({ id, accountId: a.id, operation: 'Dispatch', spec: '{"Locations":[]}', reservationId: r, unitPrice: 3, now: T0 + 1 });
        expect(j).toEqual({
          id, accountId: a.id, operation: 'Dispatch', spec: '{"Locations":[]}', state: 'queued', reservationId: r, attempts: 0,
          result: null, error: null, routeId: null, cost: 0, createdAt: T0 + 1, updatedAt: T0 + 1, finishedAt: null, unitPrice: 3, priority: 1,
        });
        expect(await store.getJob(id)).toEqual(j);
        expect(await store.getJob('no-such-job')).toBeNull();
        expect(await store.getJob('not a job id')).toBeNull();
        await balanced(a.id, 70);

        expect(await store.startJob(id, T0 + 2)).toEqual({ ...j, state: 'active', attempts: 1, updatedAt: T0 + 2 });
        await store.touchJob(id, T0 + 3);
        expect(await store.getJob(id)).toMatchObject({ state: 'active', attempts: 1, updatedAt: T0 + 3 });
        // the worker died: the job runs again
        expect(await store.startJob(id, T0 + 4)).toMatchObject({ state: 'active', attempts: 2, updatedAt: T0 + 4 });
        expect(await store.startJob('no-such-job', T0 + 4)).toBeNull();
        await store.touchJob('no-such-job', T0 + 4);
        await balanced(a.id, 70);
        expect(await store.openReservations()).toBe(1);

        const result = JSON.stringify({ Status: 'Success' });
        const end = await store.finishJob({ id, state: 'completed', cost: 12, result, route: route('3 stops', 'acme'), now: T0 + 5 });
        expect(end.finished).toBe(true);
        expect(end.job).toEqual({ ...j, state: 'completed', attempts: 2, result, routeId: expect.any(Number), cost: 12, updatedAt: T0 + 5, finishedAt: T0 + 5 });
        expect(await store.getJob(id)).toEqual(end.job);
        await balanced(a.id, 88);
        expect(await store.openReservations()).toBe(0);
        expect((await store.ledger(a.id, 2)).map((e) => [e.kind, e.delta, e.note, e.reservationId, e.createdAt])).toEqual([
          ['refund', 18, 'Dispatch', r, T0 + 5],
          ['reserve', -30, 'Dispatch', r, T0],
        ]);
        const got = await store.getRoute(a.id, end.job!.routeId!);
        expect(got?.route).toMatchObject({ routeId: end.job!.routeId, accountId: a.id, name: '3 stops', owner: 'acme', createdAt: T0 + 5 });
        expect((await store.listRoutes(a.id)).map((x) => x.routeId)).toEqual([end.job!.routeId]);

        // finished: no more runs, signs of life ignored, not pending
        expect(await store.startJob(id, T0 + 6)).toBeNull();
        await store.touchJob(id, T0 + 7);
        expect(await store.getJob(id)).toEqual(end.job);
        expect(await store.pendingJobs({ before: T0 + HOUR })).toEqual([]);
      });

      t('the price quoted at submission is stored with the job (none: null); a price that is not a whole number ≥ 0 is InvalidInput, nothing written', async ({ ctx }) => {
        const { store, account } = ctx;
        const a = await account('acme', 100);
        expect((await store.createJob({ id: 'free', accountId: a.id, operation: 'Geocode', spec: '{}', reservationId: null, unitPrice: 0, now: T0 })).unitPrice).toBe(0);
        expect((await store.createJob({ id: 'none', accountId: a.id, operation: 'Geocode', spec: '{}', reservationId: null, now: T0 })).unitPrice).toBeNull();
        expect((await store.startJob('free', T0 + 1))?.unitPrice).toBe(0);
        expect((await store.pendingJobs({ before: T0 + 1 })).map((j) => [j.id, j.unitPrice])).toEqual([['none', null], ['free', 0]]);
        expect((await store.finishJob({ id: 'none', state: 'failed', cost: 0, error: 'x', now: T0 + 2 })).job?.unitPrice).toBeNull();
        for (const unitPrice of [-1, 1.5, Number.NaN]) {
          expect(await codeOf(store.createJob({ id: 'bad', accountId: a.id, operation: 'Geocode', spec: '{}', reservationId: null, unitPrice, now: T0 }))).toBe('InvalidInput');
        }
        expect(await store.getJob('bad')).toBeNull();
      });

      t('a job\'s turn among its account\'s pending jobs: their count with it, never before an earlier one\'s; per account; from 1 again once none is pending', async ({ ctx }) => {
        const { store, account } = ctx;
        const a = await account('acme', 100);
        const b = await account('bolt', 100);
        const job = (id: string, accountId: number, at: number) => store.createJob({ id, accountId, operation: 'Geocode', spec: '{}', reservationId: null, now: at });
        expect([(await job('a1', a.id, T0)).priority, (await job('a2', a.id, T0)).priority, (await job('a3', a.id, T0)).priority]).toEqual([1, 2, 3]);
        expect((await job('b1', b.id, T0)).priority).toBe(1);
        await store.startJob('a1', T0 + 1); // active jobs are pending too
        expect((await job('a4', a.id, T0 + 1)).priority).toBe(4);
        for (const id of ['a1', 'a2']) await store.finishJob({ id, state: 'failed', cost: 0, error: 'x', now: T0 + 2 });
        // two pending (a3: 3, a4: 4): the next is 4 — counted it would be 3, before a4
        expect((await job('a5', a.id, T0 + 3)).priority).toBe(4);
        for (const id of ['a3', 'a4', 'a5']) await store.finishJob({ id, state: 'cancelled', cost: 0, error: 'x', now: T0 + 4 });
        expect((await job('a6', a.id, T0 + 5)).priority).toBe(1);
        expect((await store.getJob('b1'))?.priority).toBe(1);
      });

      t('failed and cancelled jobs are refunded in full at cost 0; a free job costs nothing; refused endings write nothing', async ({ ctx }) => {
        const { store, account, balanced } = ctx;
        const a = await account('acme', 50);
        const rf = await jobCredit(store, a.id, 'job-failed', 10);
        const rc = await jobCredit(store, a.id, 'job-cancelled', 5);
        await store.createJob({ id: 'job-failed', accountId: a.id, operation: 'Dispatch', spec: '{}', reservationId: rf, now: T0 });
        await store.createJob({ id: 'job-cancelled', accountId: a.id, operation: 'Geocode', spec: '{}', reservationId: rc, now: T0 });
        await store.createJob({ id: 'job-free', accountId: a.id, operation: 'Dispatch', spec: '{}', reservationId: null, now: T0 });
        await store.startJob('job-failed', T0 + 1);
        await balanced(a.id, 35);
        const n0 = (await store.ledger(a.id, 1000)).length;

        type End = Parameters<Store['finishJob']>[0];
        const refused: End[] = [
          { id: 'job-failed', state: 'failed', cost: 1, now: T0 + 2 }, // a failed job costs 0
          { id: 'job-cancelled', state: 'cancelled', cost: 5, now: T0 + 2 },
          { id: 'job-failed', state: 'completed', cost: 11, now: T0 + 2 }, // above the reservation
          { id: 'job-failed', state: 'completed', cost: -1, now: T0 + 2 },
          { id: 'job-failed', state: 'completed', cost: 0.5, now: T0 + 2 },
          { id: 'job-failed', state: 'failed', cost: 0, route: route('r', 'acme'), now: T0 + 2 }, // a route of a failed job
          { id: 'job-failed', state: 'active' as 'failed', cost: 0, now: T0 + 2 },
          { id: 'job-free', state: 'completed', cost: 1, now: T0 + 2 }, // a cost without a reservation
        ];
        for (const p of refused) expect(await codeOf(store.finishJob(p))).toBe('InvalidInput');
        expect(await store.getJob('job-failed')).toMatchObject({ state: 'active', finishedAt: null, cost: 0 });
        expect(await store.getJob('job-cancelled')).toMatchObject({ state: 'queued' });
        expect(await store.getJob('job-free')).toMatchObject({ state: 'queued' });
        expect(await store.ledger(a.id, 1000)).toHaveLength(n0);
        expect(await store.listRoutes(a.id)).toEqual([]);
        expect(await store.openReservations()).toBe(2);
        await balanced(a.id, 35);

        const f = await store.finishJob({ id: 'job-failed', state: 'failed', cost: 0, error: 'NoRoute: no path', now: T0 + 3 });
        expect(f).toEqual({ finished: true, job: expect.objectContaining({ state: 'failed', error: 'NoRoute: no path', result: null, routeId: null, cost: 0, attempts: 1, updatedAt: T0 + 3, finishedAt: T0 + 3 }) });
        await balanced(a.id, 45);
        expect((await store.ledger(a.id, 1))[0]).toMatchObject({ kind: 'refund', delta: 10, reservationId: rf, createdAt: T0 + 3 });
        const c = await store.finishJob({ id: 'job-cancelled', state: 'cancelled', cost: 0, error: 'cancelled by the caller', now: T0 + 4 });
        expect(c.job).toMatchObject({ state: 'cancelled', attempts: 0, cost: 0, error: 'cancelled by the caller', finishedAt: T0 + 4 });
        await balanced(a.id, 50);
        expect((await store.ledger(a.id, 1))[0]).toMatchObject({ kind: 'refund', delta: 5, reservationId: rc });
        expect(await store.openReservations()).toBe(0);

        // a free job: its route stored, the ledger untouched
        const n1 = (await store.ledger(a.id, 1000)).length;
        const free = await store.finishJob({ id: 'job-free', state: 'completed', cost: 0, result: '{}', route: route('free', 'acme'), now: T0 + 5 });
        expect(free.job).toMatchObject({ state: 'completed', cost: 0, reservationId: null, result: '{}', routeId: expect.any(Number) });
        expect((await store.listRoutes(a.id)).map((x) => x.routeId)).toEqual([free.job!.routeId]);
        expect(await store.ledger(a.id, 1000)).toHaveLength(n1);
        await balanced(a.id, 50);
      });

      t('a job ends once: later endings write nothing and return the first one (completed, then completed again, failed, cancelled)', async ({ ctx }) => {
        const { store, account, balanced } = ctx;
        const a = await account('acme', 100);
        const r = await jobCredit(store, a.id, 'twice', 20);
        await store.createJob({ id: 'twice', accountId: a.id, operation: 'Dispatch', spec: '{}', reservationId: r, now: T0 });
        await store.startJob('twice', T0 + 1);
        const first = await store.finishJob({ id: 'twice', state: 'completed', cost: 5, result: '{"n":1}', route: route('first', 'acme'), now: T0 + 2 });
        expect(first.finished).toBe(true);
        await balanced(a.id, 95);
        const n = (await store.ledger(a.id, 1000)).length;
        const again: Parameters<Store['finishJob']>[0][] = [
          { id: 'twice', state: 'completed', cost: 7, result: '{"n":2}', route: route('second', 'acme'), now: T0 + 3 },
          { id: 'twice', state: 'failed', cost: 0, error: 'worker lost', now: T0 + 4 },
          { id: 'twice', state: 'cancelled', cost: 0, now: T0 + 5 },
        ];
        for (const p of again) expect(await store.finishJob(p)).toEqual({ finished: false, job: first.job });
        expect(await store.getJob('twice')).toEqual(first.job);
        expect(await store.ledger(a.id, 1000)).toHaveLength(n);
        expect((await store.listRoutes(a.id)).map((x) => x.name)).toEqual(['first']);
        await balanced(a.id, 95);
        expect(await store.startJob('twice', T0 + 6)).toBeNull();
        expect(await store.finishJob({ id: 'no-such-job', state: 'cancelled', cost: 0, now: T0 })).toEqual({ finished: false, job: null });
      });

      t('a job whose reservation was closed elsewhere: settled already, the ledger is left alone; released as stale, the cost is charged (as settle does)', async ({ ctx }) => {
        const { store, account, balanced } = ctx;
        const a = await account('acme', 100);
        const job = (id: string, reservationId: number) => store.createJob({ id, accountId: a.id, operation: 'Dispatch', spec: '{}', reservationId, now: T0 });
        // settled by settle() before the job ended
        const r1 = await jobCredit(store, a.id, 'pre-settled', 10);
        await job('pre-settled', r1);
        await store.settle({ reservationId: r1, cost: 4, now: T0 + 1 });
        await balanced(a.id, 96);
        const n = (await store.ledger(a.id, 1000)).length;
        expect(await codeOf(store.finishJob({ id: 'pre-settled', state: 'completed', cost: 11, now: T0 + 2 }))).toBe('InvalidInput');
        const e1 = await store.finishJob({ id: 'pre-settled', state: 'completed', cost: 7, result: '{}', route: route('x', 'acme'), now: T0 + 2 });
        expect(e1).toEqual({ finished: true, job: expect.objectContaining({ state: 'completed', cost: 4, routeId: expect.any(Number) }) });
        expect(await store.ledger(a.id, 1000)).toHaveLength(n);
        await balanced(a.id, 96);

        // reservations not made for a job (instance not job:…) can be released as stale; the job's end then charges its cost
        await store.heartbeat('dead', T0);
        const r2 = (await store.reserve({ accountId: a.id, amount: 10, operation: 'Dispatch', instance: 'dead', now: T0 }))!;
        const r3 = (await store.reserve({ accountId: a.id, amount: 5, operation: 'Dispatch', instance: 'dead', now: T0 }))!;
        await job('released', r2);
        await job('released-failed', r3);
        expect(await store.releaseStale({ instance: 'me', now: T0 + HOUR, staleMs: 1000 })).toBe(2);
        await balanced(a.id, 96);
        const e2 = await store.finishJob({ id: 'released', state: 'completed', cost: 3, result: '{}', now: T0 + HOUR + 1 });
        expect(e2.job).toMatchObject({ state: 'completed', cost: 3 });
        expect((await store.ledger(a.id, 1))[0]).toMatchObject({ kind: 'charge', delta: -3, reservationId: r2 });
        await balanced(a.id, 93);
        const m = (await store.ledger(a.id, 1000)).length;
        expect((await store.finishJob({ id: 'released-failed', state: 'failed', cost: 0, error: 'x', now: T0 + HOUR + 2 })).job).toMatchObject({ state: 'failed', cost: 0 });
        expect(await store.ledger(a.id, 1000)).toHaveLength(m);
        await balanced(a.id, 93);
        expect(await store.openReservations()).toBe(0);
      });

      t('createJob: Conflict for a taken id (nothing written); id, arguments and reservation checked (InvalidInput)', async ({ ctx }) => {
        const { store, account, balanced } = ctx;
        const a = await account('acme', 100), b = await account('beta', 100);
        const r = await jobCredit(store, a.id, 'dup', 10);
        const first = await store.createJob({ id: 'dup', accountId: a.id, operation: 'Dispatch', spec: '{"a":1}', reservationId: r, now: T0 });
        expect(await codeOf(store.createJob({ id: 'dup', accountId: a.id, operation: 'Geocode', spec: '{"b":2}', reservationId: null, now: T0 + 1 }))).toBe('Conflict');
        expect(await store.getJob('dup')).toEqual(first);
        const job = (id: string, more: Partial<Parameters<Store['createJob']>[0]> = {}) =>
          ({ id, accountId: a.id, operation: 'Dispatch', spec: '{}', reservationId: null, now: T0, ...more });
        // ids are case-sensitive
        expect(await store.createJob(job('DUP'))).toMatchObject({ id: 'DUP', state: 'queued' });
        expect((await store.createJob(job('x'.repeat(100)))).id).toBe('x'.repeat(100));
        for (const id of ['', 'x'.repeat(101), 'has space', 'émile', 'a/b', 'a.b', 'job:1', 42 as unknown as string, null as unknown as string]) {
          expect(await codeOf(store.createJob(job(id)))).toBe('InvalidInput');
        }
        expect(await codeOf(store.createJob(job('ok-1', { operation: '' })))).toBe('InvalidInput');
        expect(await codeOf(store.createJob(job('ok-1', { spec: null as unknown as string })))).toBe('InvalidInput');
        expect(await codeOf(store.createJob(job('ok-1', { now: 1.5 })))).toBe('InvalidInput');
        expect(await codeOf(store.createJob(job('ok-1', { reservationId: 0 })))).toBe('InvalidInput');
        // the reservation must be an open one of the account
        const rb = (await store.reserve({ accountId: b.id, amount: 5, operation: 'Dispatch', instance: 'job:ok-1', now: T0 }))!;
        expect(await codeOf(store.createJob(job('ok-1', { reservationId: rb })))).toBe('InvalidInput');
        expect(await codeOf(store.createJob(job('ok-1', { reservationId: rb + 1000 })))).toBe('InvalidInput');
        const rs = await jobCredit(store, a.id, 'ok-1', 5);
        await store.settle({ reservationId: rs, cost: 5, now: T0 });
        expect(await codeOf(store.createJob(job('ok-1', { reservationId: rs })))).toBe('InvalidInput');
        expect(await store.getJob('ok-1')).toBeNull();
        // the table's own checks: the five states, finished_at set exactly when finished
        await expect(factory.raw(store, `UPDATE dk_jobs SET state = 'lost' WHERE id = 'dup'`)).rejects.toThrow();
        await expect(factory.raw(store, `UPDATE dk_jobs SET state = 'completed' WHERE id = 'dup'`)).rejects.toThrow();
        expect(await store.getJob('dup')).toEqual(first);
        await balanced(a.id, 85);
        await balanced(b.id, 95);
      });

      t('releaseStale never releases a job\'s reservation (instance job:…), however stale', async ({ ctx }) => {
        const { store, account, balanced } = ctx;
        const a = await account('acme', 100);
        await store.heartbeat('dead', T0);
        await store.heartbeat('job:j1', T0); // even with a heartbeat under that name
        const rj1 = await jobCredit(store, a.id, 'j1', 10);
        const rj2 = await jobCredit(store, a.id, 'j2', 20); // never a heartbeat: stale since its creation
        const rDead = (await store.reserve({ accountId: a.id, amount: 5, operation: 'Dispatch', instance: 'dead', now: T0 }))!;
        const rUpper = (await store.reserve({ accountId: a.id, amount: 3, operation: 'Dispatch', instance: 'JOB:j3', now: T0 }))!; // the prefix is case-sensitive
        await store.createJob({ id: 'j1', accountId: a.id, operation: 'Dispatch', spec: '{}', reservationId: rj1, now: T0 });
        await store.createJob({ id: 'j2', accountId: a.id, operation: 'Dispatch', spec: '{}', reservationId: rj2, now: T0 });
        await balanced(a.id, 62);
        const later = T0 + 100 * HOUR;
        expect(await store.releaseStale({ instance: 'me', now: later, staleMs: 1000 })).toBe(2);
        expect(await store.releaseStale({ instance: 'me', now: later + HOUR, staleMs: 0 })).toBe(0);
        expect(await store.openReservations()).toBe(2);
        await balanced(a.id, 70);
        const refunded = (await store.ledger(a.id)).filter((e) => e.kind === 'refund').map((e) => e.reservationId!).sort((x, y) => x - y);
        expect(refunded).toEqual([rDead, rUpper].sort((x, y) => x - y));
        // the jobs end their reservations themselves
        expect((await store.finishJob({ id: 'j1', state: 'completed', cost: 10, result: '{}', now: later })).finished).toBe(true); // the whole amount: no refund
        expect((await store.finishJob({ id: 'j2', state: 'failed', cost: 0, error: 'x', now: later })).finished).toBe(true);
        expect(await store.openReservations()).toBe(0);
        await balanced(a.id, 90);
      });

      t('pendingJobs: queued and active jobs updated at or before `before`, oldest first (then by creation, then id), at most `limit`', async ({ ctx }) => {
        const { store, account } = ctx;
        const a = await account('acme', 0);
        const mk = (id: string, at: number) => store.createJob({ id, accountId: a.id, operation: 'Geocode', spec: '{}', reservationId: null, now: at });
        for (const [id, at] of [['p1', 10], ['p2', 20], ['p3', 30], ['p4', 40], ['p5', 50]] as const) await mk(id, T0 + at);
        await store.touchJob('p1', T0 + 60); // a sign of life
        await store.startJob('p3', T0 + 35);
        await store.finishJob({ id: 'p4', state: 'cancelled', cost: 0, now: T0 + 45 });
        // equal instants: by creation, then by id (bytewise: upper case first)
        await mk('q-b', T0 + 70);
        await mk('q-a', T0 + 70);
        await mk('Q-c', T0 + 70);
        await mk('q-0', T0 + 69);
        await store.touchJob('q-0', T0 + 70);
        const ids = async (before: number, limit?: number) => (await store.pendingJobs({ before, limit })).map((j) => j.id);
        expect(await ids(T0 + HOUR)).toEqual(['p2', 'p3', 'p5', 'p1', 'q-0', 'Q-c', 'q-a', 'q-b']);
        expect(await ids(T0 + 35)).toEqual(['p2', 'p3']);
        expect(await ids(T0 + 34)).toEqual(['p2']);
        expect(await ids(T0 + 19)).toEqual([]);
        expect(await ids(T0 + HOUR, 3)).toEqual(['p2', 'p3', 'p5']);
        expect(await ids(T0 + HOUR, 0)).toEqual([]);
        const all = await store.pendingJobs({ before: T0 + HOUR });
        expect(all.find((j) => j.id === 'p3')).toMatchObject({ state: 'active', attempts: 1, updatedAt: T0 + 35, createdAt: T0 + 30 });
        expect(all.find((j) => j.id === 'p1')).toMatchObject({ state: 'queued', attempts: 0, updatedAt: T0 + 60, createdAt: T0 + 10 });
        expect(await codeOf(store.pendingJobs({ before: 1.5 }))).toBe('InvalidInput');
      });
    });

    // ---------------------------------------------------------------- concurrency

    describe('concurrency', () => {
      t('2,000 concurrent reserve(1) on a balance of 1,500: exactly 1,500 succeed, nothing spent twice', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        const a = await account('shared', 1500);
        const other = factory.openAgain ? await factory.openAgain(store) : store;
        if (other !== store) extra.push(other);
        const stores = [store, other];
        const got = await Promise.all(Array.from({ length: 2000 }, (_, i) =>
          stores[i % 2].reserve({ accountId: a.id, amount: 1, operation: 'CalculateDistance', instance: `i${i % 2}`, now: T0 })));
        const ok = got.filter((r): r is number => r !== null);
        expect(ok).toHaveLength(1500);
        expect(new Set(ok).size).toBe(1500);
        await balanced(a.id, 0);
        await balanced(a.id, 0, other);
        expect(await store.openReservations()).toBe(1500);
        // settle them all concurrently over both stores, 100 at cost 0 (refunded)
        await Promise.all(ok.map((id, i) => stores[i % 2].settle({ reservationId: id, cost: i < 100 ? 0 : 1, now: T0 + 1 })));
        await balanced(a.id, 100);
        expect(await store.openReservations()).toBe(0);
      });

      t('settle racing releaseStale: each reservation is refunded at most once and its cost taken exactly once', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        const accts = await Promise.all(Array.from({ length: 8 }, (_, i) => account(`race${i}`, 100)));
        const other = factory.openAgain ? await factory.openAgain(store) : store;
        if (other !== store) extra.push(other);
        await store.heartbeat('dead', T0);
        const ids = (await Promise.all(Array.from({ length: 200 }, (_, i) =>
          store.reserve({ accountId: accts[i % 8].id, amount: 3, operation: 'Route', instance: 'dead', now: T0 })))) as number[];
        for (const a of accts) await balanced(a.id, 100 - 25 * 3);
        const settles = ids.map((id) => store.settle({ reservationId: id, cost: 2, now: T0 + HOUR }));
        const releases = Array.from({ length: 4 }, () => other.releaseStale({ instance: 'me', now: T0 + HOUR, staleMs: 1000 }));
        const [released] = await Promise.all([Promise.all(releases), Promise.all(settles)]);
        expect(released.reduce((x, y) => x + y, 0)).toBeLessThanOrEqual(200);
        expect(await store.openReservations()).toBe(0);
        for (const a of accts) {
          await balanced(a.id, 100 - 25 * 2);
          const perRes = new Map<number, number>();
          for (const e of await store.ledger(a.id, 10_000)) {
            if (e.reservationId !== null && e.kind === 'refund') perRes.set(e.reservationId, (perRes.get(e.reservationId) ?? 0) + 1);
          }
          expect([...perRes.values()].every((n) => n === 1)).toBe(true);
        }
      });

      t('20 concurrent endings of one job (completed, failed, cancelled) over two stores: one stands, one settlement, at most one route', async ({ ctx }) => {
        const { store, account, balanced, extra } = ctx;
        const a = await account('acme', 1000);
        const other = factory.openAgain ? await factory.openAgain(store) : store;
        if (other !== store) extra.push(other);
        const stores = [store, other];
        const JOBS = 5, RACERS = 20, AMOUNT = 10;
        const ids = Array.from({ length: JOBS }, (_, k) => `race-${k}`);
        const reservations: number[] = [];
        for (const id of ids) {
          const r = (await store.reserve({ accountId: a.id, amount: AMOUNT, operation: 'Dispatch', instance: `job:${id}`, now: T0 }))!;
          reservations.push(r);
          await store.createJob({ id, accountId: a.id, operation: 'Dispatch', spec: '{}', reservationId: r, now: T0 });
          await store.startJob(id, T0 + 1);
        }
        const ending = (k: number, i: number) => {
          const state = (['completed', 'failed', 'cancelled'] as const)[(i + k) % 3];
          return state === 'completed'
            ? { state, cost: 1 + (i % 5), result: JSON.stringify({ k, i }), error: undefined, route: route(`race-${k}-${i}`, 'acme') }
            : { state, cost: 0, result: undefined, error: `ending ${i}`, route: undefined };
        };
        const outs = await Promise.all(ids.map((id, k) => Promise.all(Array.from({ length: RACERS }, (_, i) =>
          stores[i % 2].finishJob({ id, ...ending(k, i), now: T0 + 2 + i })))));
        const routes = await store.listRoutes(a.id);
        const ledger = await store.ledger(a.id, 10_000);
        let spent = 0;
        for (let k = 0; k < JOBS; k++) {
          const out = outs[k];
          expect(out.filter((o) => o.finished)).toHaveLength(1);
          const i = out.findIndex((o) => o.finished);
          const final = await store.getJob(ids[k]);
          // every other ending saw the first one, which stands
          for (const o of out) expect(o.job).toEqual(final);
          const e = ending(k, i);
          expect(final).toMatchObject({ state: e.state, cost: e.cost, result: e.result ?? null, error: e.error ?? null, updatedAt: T0 + 2 + i, finishedAt: T0 + 2 + i });
          // one refund of the reservation, nothing else
          const entries = ledger.filter((x) => x.reservationId === reservations[k]);
          expect(entries.map((x) => [x.kind, x.delta])).toEqual([['refund', AMOUNT - e.cost], ['reserve', -AMOUNT]]);
          // at most one route: the winner's
          const mine = routes.filter((x) => x.name.startsWith(`race-${k}-`));
          if (e.state === 'completed') expect(mine.map((x) => [x.routeId, x.name])).toEqual([[final!.routeId, `race-${k}-${i}`]]);
          else {
            expect(mine).toEqual([]);
            expect(final!.routeId).toBeNull();
          }
          spent += e.cost;
        }
        expect(routes.length).toBeLessThanOrEqual(JOBS);
        expect(await store.openReservations()).toBe(0);
        await balanced(a.id, 1000 - spent);
        await balanced(a.id, 1000 - spent, other);
      });
    });
  });
}
