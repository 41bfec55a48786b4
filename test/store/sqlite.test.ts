/**
 * The SQLite backend: the shared suite on temporary files (two stores on one file stand for two
 * processes) and on `:memory:`, then what is SQLite's own: group commit (many writes of one tick
 * in one transaction, a failing one rejected alone), durability across reopening, and opening.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { openStore, parseStoreSpec } from '../../src/store/index.js';
import { SqliteStore } from '../../src/store/sqlite.js';
import { keyHash, newApiKey } from '../../src/store/hash.js';
import { SCHEMA_VERSION } from '../../src/store/migrations.js';
import type { Store } from '../../src/store/types.js';
import { codeOf, storeSuite, type StoreFactory } from './store.suite.js';

const dir = mkdtempSync(join(tmpdir(), 'dk-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const newFile = () => join(dir, `t-${randomBytes(6).toString('hex')}.db`);
const dbOf = (s: Store) => (s as unknown as { db: Database.Database }).db;
const pathOf = (s: Store) => s.location.slice('sqlite:'.length);

const common: Pick<StoreFactory, 'raw' | 'objects'> = {
  async raw(s, sql) {
    dbOf(s).exec(sql);
  },
  async objects(s) {
    const db = dbOf(s);
    const names = db.prepare(`SELECT type || ':' || name AS n FROM sqlite_master ORDER BY 1`).all() as { n: string }[];
    const versions = db.prepare(`SELECT version FROM dk_schema_migrations ORDER BY 1`).all() as { version: number }[];
    return [...names.map((r) => r.n), ...versions.map((r) => `v${r.version}`)];
  },
};

/** A fresh store migrated only up to `version` (an older database, for upgrades). */
async function openAt(path: string, version: number): Promise<Store> {
  const s = new SqliteStore(path);
  await s.migrate({ upTo: version });
  return s;
}

storeSuite('SqliteStore (file)', {
  ...common,
  open: () => openStore(`sqlite:${newFile()}`),
  openAt: (version) => openAt(newFile(), version),
  openAgain: (s) => openStore(`sqlite:${pathOf(s)}`),
  async dispose(s) {
    await s.close();
    rmSync(pathOf(s), { force: true });
    rmSync(pathOf(s) + '-wal', { force: true });
    rmSync(pathOf(s) + '-shm', { force: true });
  },
});

storeSuite('SqliteStore (:memory:)', { ...common, open: () => openStore('sqlite::memory:'), openAt: (version) => openAt(':memory:', version), dispose: (s) => s.close() });

describe('SqliteStore specifics', () => {
  const account = (s: Store, name: string, credit: number) =>
    s.createAccount({ name, keyHash: keyHash(newApiKey()), passwordHash: null, credit, now: 1 });

  it('group commit: the writes of one tick share one transaction; a failing one rejects alone, the others are committed', async () => {
    const s = await openStore(`sqlite:${newFile()}`);
    try {
      const a = await account(s, 'acme', 1000);
      let commits = 0;
      // count outer transactions by wrapping the batch runner
      const inner = (s as unknown as { runBatch: (...x: unknown[]) => void });
      const run = inner.runBatch;
      inner.runBatch = (...x: unknown[]) => { commits++; return run(...x); };

      const ps: Promise<unknown>[] = [];
      for (let i = 0; i < 100; i++) {
        if (i === 37) ps.push(account(s, 'ACME', 5)); // a name taken: Conflict
        else if (i === 61) ps.push(s.settle({ reservationId: 424242, cost: 0, now: 2 })); // unknown: Conflict
        else if (i === 80) ps.push(s.addTrackPoints({ accountId: a.id + 99, track: 't', points: [{ lat: 1, lon: 1, ts: 1 }], now: 1 })); // FK: Storage
        else ps.push(s.reserve({ accountId: a.id, amount: 1, operation: 'Route', instance: 'me', now: 2 }));
      }
      const out = await Promise.allSettled(ps);
      expect(commits).toBe(1);
      const rejected = out.map((o, i) => [i, o.status] as const).filter(([, st]) => st === 'rejected').map(([i]) => i);
      expect(rejected).toEqual([37, 61, 80]);
      expect((out[37] as PromiseRejectedResult).reason.code).toBe('Conflict');
      expect((out[61] as PromiseRejectedResult).reason.code).toBe('Conflict');
      expect((out[80] as PromiseRejectedResult).reason.code).toBe('Storage');
      expect(await s.balance(a.id)).toBe(1000 - 97);
      expect(await s.ledgerSum(a.id)).toBe(1000 - 97);
      expect(await s.openReservations()).toBe(97);
      expect((await s.listAccounts()).length).toBe(1);

      // a settle whose route fails rolls back alone, in the middle of others
      const ids = (out.filter((o) => o.status === 'fulfilled') as PromiseFulfilledResult<number>[]).map((o) => o.value);
      commits = 0;
      const settles = ids.map((id, i) => s.settle({
        reservationId: id, cost: 1, now: 3,
        route: { name: `r${i}`, owner: 'o', distance: 1, time: 1, stops: 1, vehicles: 1, result: (i === 50 ? null : '{}') as string },
      }));
      const so = await Promise.allSettled(settles);
      expect(commits).toBe(1);
      expect(so.filter((o) => o.status === 'rejected')).toHaveLength(1);
      expect(so[50].status).toBe('rejected');
      expect(await s.openReservations()).toBe(1);
      expect(await s.listRoutes(a.id)).toHaveLength(96);
      expect(await s.balance(a.id)).toBe(await s.ledgerSum(a.id));
    } finally {
      await s.close();
    }
  });

  it('group commit: more writes than a batch holds are split into several transactions; every promise resolves after its commit', async () => {
    const s = await openStore(`sqlite:${newFile()}`);
    try {
      const a = await account(s, 'acme', 10_000);
      const ps = Array.from({ length: 1000 }, () => s.reserve({ accountId: a.id, amount: 1, operation: 'Route', instance: 'me', now: 2 }));
      // a read right after each resolution sees the write (and every earlier one of its batch)
      const seen = await Promise.all(ps.map((p) => p.then(async (id) => ({ id, bal: await s.balance(a.id) }))));
      expect(seen.every((x) => x.id !== null)).toBe(true);
      expect(await s.balance(a.id)).toBe(9000);
      expect(Math.max(...seen.map((x) => x.bal!))).toBeLessThanOrEqual(10_000 - 1);
      // another connection (another process) sees everything that resolved
      const other = new Database(pathOf(s), { readonly: true });
      try {
        expect((other.prepare('SELECT balance FROM dk_accounts WHERE id = ?').get(a.id) as { balance: number }).balance).toBe(9000);
      } finally {
        other.close();
      }
    } finally {
      await s.close();
    }
  });

  it('a batch that cannot commit (another process holds the lock too long) rejects every write of it, Storage, and leaves nothing behind', async () => {
    const file = newFile();
    const s = await openStore(`sqlite:${file}`);
    const a = await account(s, 'acme', 100);
    // another process holds the write lock longer than the busy timeout
    const blocker = new Database(file);
    blocker.pragma('busy_timeout = 0');
    blocker.exec('BEGIN IMMEDIATE');
    (dbOf(s)).pragma('busy_timeout = 50');
    try {
      const out = await Promise.allSettled([
        s.reserve({ accountId: a.id, amount: 1, operation: 'Route', instance: 'me', now: 2 }),
        s.grantCredit({ accountId: a.id, amount: 5, note: 'x', now: 2 }),
      ]);
      expect(out.map((o) => o.status)).toEqual(['rejected', 'rejected']);
      expect((out[0] as PromiseRejectedResult).reason.code).toBe('Storage');
    } finally {
      blocker.exec('ROLLBACK');
      blocker.close();
    }
    expect(await s.balance(a.id)).toBe(100);
    expect(await s.ledgerSum(a.id)).toBe(100);
    expect(await s.grantCredit({ accountId: a.id, amount: 5, note: 'x', now: 2 })).toBe(105);
    await s.close();
  });

  it('what resolved survives closing and reopening; close commits queued writes', async () => {
    const file = newFile();
    const s = await openStore(file); // a bare path ending in .db
    expect(s.kind).toBe('sqlite');
    const a = await account(s, 'acme', 10);
    const pending = s.grantCredit({ accountId: a.id, amount: 5, note: 'late', now: 2 });
    await s.close();
    expect(await pending).toBe(15);
    expect(await codeOf(s.balance(a.id))).toBe('Storage');
    expect(await codeOf(s.grantCredit({ accountId: a.id, amount: 5, note: 'x', now: 2 }))).toBe('Storage');
    await s.close(); // twice is fine
    const again = await openStore(`sqlite:${file}`);
    try {
      expect(await again.migrate()).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
      expect(await again.balance(a.id)).toBe(15);
      const db = dbOf(again);
      expect(String(db.pragma('journal_mode', { simple: true }))).toBe('wal');
      expect(Number(db.pragma('synchronous', { simple: true }))).toBe(2); // FULL
      expect(Number(db.pragma('foreign_keys', { simple: true }))).toBe(1);
      expect(Number(db.pragma('busy_timeout', { simple: true }))).toBe(5000);
    } finally {
      await again.close();
    }
  });

  it('retention gives disk space back: a new file has incremental auto-vacuum; prune deletes in short transactions, then frees the pages; the file shrinks', async () => {
    const file = newFile();
    const s = await openStore(`sqlite:${file}`);
    try {
      const db = dbOf(s);
      const pragma = (name: string) => Number(db.pragma(name, { simple: true }));
      expect(pragma('auto_vacuum')).toBe(2); // INCREMENTAL
      const a = await account(s, 'acme', 0);
      for (let k = 0; k < 4; k++) {
        await s.addTrackPoints({ accountId: a.id, track: 'van', points: Array.from({ length: 5000 }, (_, i) => ({ lat: 43 + i * 1e-6, lon: 7 + k * 1e-3, ts: k * 5000 + i })), now: 1 });
      }
      db.pragma('wal_checkpoint(TRUNCATE)');
      const pages = pragma('page_count'), size = statSync(file).size;
      expect(pages).toBeGreaterThan(200);
      let commits = 0;
      const inner = s as unknown as { runBatch: (...x: unknown[]) => void };
      const run = inner.runBatch;
      inner.runBatch = (...x: unknown[]) => { commits++; return run(...x); };
      // the newest 1,000 points stay
      expect(await s.prune({ now: 1e12, tracksBefore: 19_000, batchSize: 2000 })).toEqual({ routes: 0, jobs: 0, tracks: 19_000 });
      expect(commits).toBeGreaterThanOrEqual(10); // 10 batches (the last one short), then the vacuum steps
      expect(pragma('freelist_count')).toBe(0);
      expect(pragma('page_count')).toBeLessThan(pages / 5);
      db.pragma('wal_checkpoint(TRUNCATE)');
      expect(statSync(file).size).toBeLessThan(size / 5);
      expect(await s.getTrack({ accountId: a.id, track: 'van', from: 0, to: 1e12 })).toHaveLength(1000);
    } finally {
      await s.close();
    }
  });

  it('a file created before auto-vacuum keeps its freed pages for reuse (it does not shrink); vacuum() converts it', async () => {
    const file = newFile();
    const raw = new Database(file);
    raw.pragma('journal_mode = WAL'); // written by an older dispatchkit: auto_vacuum none
    raw.close();
    const s = await openStore(`sqlite:${file}`);
    try {
      const db = dbOf(s);
      const pragma = (name: string) => Number(db.pragma(name, { simple: true }));
      expect(pragma('auto_vacuum')).toBe(0);
      const a = await account(s, 'acme', 0);
      await s.addTrackPoints({ accountId: a.id, track: 'van', points: Array.from({ length: 40_000 }, (_, i) => ({ lat: 43, lon: 7, ts: i })), now: 1 });
      const pages = pragma('page_count');
      expect(await s.prune({ now: 1e12, tracksBefore: 1e12 })).toMatchObject({ tracks: 40_000 });
      expect(pragma('page_count')).toBe(pages);
      const free = pragma('freelist_count');
      expect(free).toBeGreaterThan(pages / 2);
      expect(await (s as SqliteStore).vacuum()).toBe(2);
      expect(pragma('freelist_count')).toBe(0);
      expect(pragma('page_count')).toBeLessThanOrEqual(pages - free + 2); // + the pointer maps of auto-vacuum
      expect(pragma('page_count')).toBeLessThan(pages / 3);
      // it keeps working, and now gives pages back by itself
      await s.addTrackPoints({ accountId: a.id, track: 'van', points: Array.from({ length: 10_000 }, (_, i) => ({ lat: 43, lon: 7, ts: i })), now: 1 });
      await s.prune({ now: 1e12, tracksBefore: 1e12 });
      expect(pragma('freelist_count')).toBe(0);
      await s.close();
      expect(await codeOf((s as SqliteStore).vacuum())).toBe('Storage');
    } finally {
      await s.close();
    }
  });

  it('the ledger is append-only', async () => {
    const s = await openStore('sqlite::memory:');
    try {
      await account(s, 'acme', 10);
      expect(() => dbOf(s).exec('UPDATE dk_ledger SET delta = 1000')).toThrow(/append-only/);
      expect(() => dbOf(s).exec('DELETE FROM dk_ledger')).toThrow(/append-only/);
    } finally {
      await s.close();
    }
  });

  it('a newer database is refused by openStore as well, untouched', async () => {
    const file = newFile();
    const s = await openStore(`sqlite:${file}`);
    dbOf(s).exec(`INSERT INTO dk_schema_migrations VALUES (${SCHEMA_VERSION + 1}, 'next', 0)`);
    await s.close();
    let err: { code?: string; details?: unknown; message?: string } = {};
    try {
      await openStore(`sqlite:${file}`);
    } catch (e) {
      err = e as typeof err;
    }
    expect(err.code).toBe('Storage');
    expect(err.details).toEqual({ version: SCHEMA_VERSION + 1, supported: SCHEMA_VERSION });
    expect(err.message).toContain(file);
  });

  it('opening: a missing folder is Storage naming it; specs are recognised; the location shows the file', async () => {
    const missing = join(dir, 'no-such-folder', 'x.db');
    let err: { code?: string; message?: string } = {};
    try {
      await openStore(`sqlite:${missing}`);
    } catch (e) {
      err = e as typeof err;
    }
    expect(err.code).toBe('Storage');
    expect(err.message).toContain(join(dir, 'no-such-folder'));
    expect(() => new SqliteStore(missing)).toThrow(/does not exist/);

    expect(parseStoreSpec('sqlite::memory:')).toEqual({ kind: 'sqlite', path: ':memory:' });
    expect(parseStoreSpec('sqlite:data/x.db')).toEqual({ kind: 'sqlite', path: 'data/x.db' });
    expect(parseStoreSpec('sqlite:///tmp/x')).toEqual({ kind: 'sqlite', path: '/tmp/x' });
    expect(parseStoreSpec('/tmp/a.sqlite')).toEqual({ kind: 'sqlite', path: '/tmp/a.sqlite' });
    expect(parseStoreSpec('x.sqlite3')).toEqual({ kind: 'sqlite', path: 'x.sqlite3' });
    expect(parseStoreSpec('postgres://u@h/db')).toEqual({ kind: 'postgres', url: 'postgres://u@h/db' });
    expect(parseStoreSpec('postgresql://u@h/db')).toEqual({ kind: 'postgres', url: 'postgresql://u@h/db' });
    for (const bad of ['', 'mysql://h/db', 'data/x.txt', 'sqlite:']) expect(() => parseStoreSpec(bad)).toThrow(expect.objectContaining({ code: 'InvalidInput' }));
    await expect(openStore('nope')).rejects.toMatchObject({ code: 'InvalidInput' });

    const m = await openStore('sqlite::memory:');
    expect(m.location).toBe('sqlite::memory:');
    await m.close();
    const file = newFile();
    const f = await openStore(`sqlite:${file}`);
    expect(f.location).toBe(`sqlite:${file}`);
    await f.close();
  });
});
