/**
 * The PostgreSQL backend: the shared suite, each test in a fresh schema of its own
 * (`dk_test_<random>`, dropped after), two PgStores (two pools) on one schema standing for two
 * server processes. Needs DATABASE_URL, which the global setup (test/setup/services.ts) sets to
 * postgres://postgres@127.0.0.1:5432/test when that answers; without it the whole file is skipped,
 * saying so.
 */
import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openStore } from '../../src/store/index.js';
import { PgStore, maskUrl } from '../../src/store/postgres.js';
import { keyHash, newApiKey } from '../../src/store/hash.js';
import { SCHEMA_VERSION } from '../../src/store/migrations.js';
import type { Store } from '../../src/store/types.js';
import { codeOf, storeSuite } from './store.suite.js';

const URL_ = process.env.DATABASE_URL;

function freshUrl(): string {
  const u = new URL(URL_!);
  u.searchParams.set('schema', `dk_test_${randomBytes(6).toString('hex')}`);
  return u.toString();
}

const poolOf = (s: Store) => (s as unknown as { pool: pg.Pool }).pool;
const schemaOf = (s: Store) => (s as PgStore).schema!;
const urlOf = (s: Store) => {
  const u = new URL(URL_!);
  u.searchParams.set('schema', schemaOf(s));
  return u.toString();
};

describe.skipIf(!URL_)(`postgres store${URL_ ? '' : ' (skipped: DATABASE_URL is not set)'}`, () => {
  storeSuite('PgStore', {
    open: () => openStore(freshUrl()),
    async openAt(version) {
      const s = new PgStore({ url: freshUrl() });
      await s.migrate({ upTo: version });
      return s;
    },
    openAgain: (s) => openStore(urlOf(s)),
    async raw(s, sql) {
      await poolOf(s).query(sql);
    },
    async objects(s) {
      const p = poolOf(s);
      const r = await p.query(`SELECT c.relkind::text || ':' || c.relname AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 ORDER BY 1`, [schemaOf(s)]);
      const v = await p.query(`SELECT version FROM dk_schema_migrations ORDER BY 1`);
      return [...r.rows.map((x) => x.n as string), ...v.rows.map((x) => `v${x.version}`)];
    },
    async dispose(s) {
      try {
        await (s as PgStore).dropSchema();
      } finally {
        await s.close();
      }
    },
  });

  describe('PgStore specifics', () => {
    it('migrates a fresh schema once when several processes start at once', async () => {
      const url = freshUrl();
      const opened = await Promise.allSettled(Array.from({ length: 4 }, () => openStore(url, { poolSize: 2 })));
      const stores = opened.filter((o) => o.status === 'fulfilled').map((o) => o.value);
      try {
        expect(opened.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
        const r = await poolOf(stores[0]).query('SELECT count(*)::int AS n FROM dk_schema_migrations');
        expect(r.rows[0].n).toBe(SCHEMA_VERSION);
        for (const s of stores) expect(await s.schemaVersion()).toBe(SCHEMA_VERSION);
      } finally {
        for (const s of stores) await s.close();
        const d = new PgStore({ url });
        await d.dropSchema();
        await d.close();
      }
    });

    it('BIGINT columns come back as numbers; the ledger is append-only', async () => {
      const s = await openStore(freshUrl());
      try {
        const a = await s.createAccount({ name: 'big', keyHash: keyHash(newApiKey()), passwordHash: null, credit: 2 ** 40, expiresAt: 2 ** 45, now: 2 ** 41 });
        expect(a).toMatchObject({ balance: 2 ** 40, expiresAt: 2 ** 45, createdAt: 2 ** 41 });
        expect(typeof a.id).toBe('number');
        expect(await s.ledgerSum(a.id)).toBe(2 ** 40);
        await expect(poolOf(s).query('UPDATE dk_ledger SET delta = 0')).rejects.toThrow(/append-only/);
        await expect(poolOf(s).query('DELETE FROM dk_ledger')).rejects.toThrow(/append-only/);
      } finally {
        await (s as PgStore).dropSchema();
        await s.close();
      }
    });

    it('prune deletes in batches, each one statement (its own short transaction)', async () => {
      const s = await openStore(freshUrl());
      try {
        const a = await s.createAccount({ name: 'acme', keyHash: keyHash(newApiKey()), passwordHash: null, credit: 0, now: 1 });
        await s.addTrackPoints({ accountId: a.id, track: 'van', points: Array.from({ length: 1050 }, (_, i) => ({ lat: 43, lon: 7, ts: i })), now: 1 });
        const pool = poolOf(s);
        const query = pool.query.bind(pool);
        const seen: string[] = [];
        (pool as unknown as { query: unknown }).query = (cfg: { name?: string }, v?: unknown) => {
          seen.push(cfg?.name ?? '');
          return query(cfg as never, v as never);
        };
        expect(await s.prune({ now: 2000, tracksBefore: 2000, batchSize: 100 })).toEqual({ routes: 0, jobs: 0, tracks: 1050 });
        expect(seen.filter((n) => n === 'dk_prune_tracks')).toHaveLength(11);
      } finally {
        await (s as PgStore).dropSchema();
        await s.close();
      }
    });

    it('a connection ended by the server inside a transaction fails that call as Storage; the process goes on and the next call works', async () => {
      // the checked-out client also emits 'error', which nobody heard: it ended `serve` (pg_terminate_backend during submissions)
      const s = (await openStore(freshUrl())) as PgStore;
      try {
        const tx = (s as unknown as { tx: (fn: (c: pg.PoolClient) => Promise<unknown>) => Promise<unknown> }).tx.bind(s);
        const admin = new pg.Client({ connectionString: URL_! });
        await admin.connect();
        try {
          let listening = -1;
          const e = await tx(async (c) => {
            listening = c.listenerCount('error'); // pg-pool's own listener is off while the client is lent
            const pid = (await c.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number;
            await admin.query('SELECT pg_terminate_backend($1)', [pid]);
            await new Promise((r) => setTimeout(r, 200)); // the client sees its connection end here, between queries
            await c.query('SELECT 1');
          }).then(() => null, (err: { code: string }) => err);
          expect(e).toMatchObject({ code: 'Storage' });
          expect(listening).toBeGreaterThan(0); // read outside tx(), which maps any error it meets to Storage
        } finally {
          await admin.end();
        }
        expect(await s.ping()).toBeUndefined();
      } finally {
        await s.dropSchema();
        await s.close();
      }
    });

    it('an unreachable server is Storage; the location never shows the password', async () => {
      const s = new PgStore({ url: 'postgres://u:s3cret@127.0.0.1:9/db?schema=dk_x', connectTimeoutMs: 2000 });
      expect(s.location).not.toContain('s3cret');
      expect(s.location).toContain('schema=dk_x');
      expect(await codeOf(s.ping())).toBe('Storage');
      expect(await codeOf(s.migrate())).toBe('Storage');
      expect(await codeOf(s.reserve({ accountId: 1, amount: 1, operation: 'x', instance: 'i', now: 1 }))).toBe('Storage');
      await s.close();
      expect(maskUrl('postgresql://user:pw@host:5432/db')).not.toContain('pw@');
      expect(() => new PgStore({ url: URL_!, schema: 'Bad-Name' })).toThrow(expect.objectContaining({ code: 'InvalidInput' }));
    });
  });
});
