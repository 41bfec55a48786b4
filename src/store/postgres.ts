/**
 * The shared backend: PostgreSQL through a `pg.Pool`, for several server instances on one
 * database. Every write method is one transaction: a single statement (data-modifying CTEs, atomic
 * by themselves) or BEGIN … COMMIT on one pooled client, rolled back on any error, the client
 * always released (destroyed when its connection broke).
 *
 * Credit safety between processes rests on row locks taken by conditional updates:
 * - reserve is one conditional UPDATE of the account (`… AND balance >= amount`), so two
 *   reservations can never take the same credit;
 * - settle closes the reservation with `UPDATE … WHERE id = $1 AND state = 'open'` (else
 *   `state = 'released'`, charged), and releaseStale releases with `… AND state = 'open'`: the
 *   second of two concurrent ones waits for the first's row lock, re-reads the state and skips, so
 *   a reservation is never both settled as open and released;
 * - finishJob first locks the job's row (`SELECT … FOR UPDATE`): a second ending of the same job
 *   (a retried worker and the original, a cancel) waits for the first's COMMIT, then reads the job
 *   finished and writes nothing, so a job's reservation is settled once and its route stored once.
 *
 * BIGINT columns are read as JavaScript numbers (a pool-level type parser), instants and amounts
 * being far below 2^53.
 *
 * Each store may live in its own schema (`?schema=name` in the URL, or the `schema` option): the
 * connections' `search_path` is set to it and `migrate()` creates it (tests use a fresh schema per
 * run, dropped by {@link PgStore.dropSchema}).
 */
import pg from 'pg';
import { EngineError, invalidInput } from '../core/errors.js';
import {
  ACCOUNT_COLUMNS, DEFAULT_JOB_LIMIT, DEFAULT_LEDGER_LIMIT, DEFAULT_TRACK_LIMIT, JOB_COLUMNS, ROUTE_COLUMNS, alreadySettled,
  checkCost, checkInteger, checkJobEnd, checkJobReservation, checkKeyHash, checkName, checkNewJob, checkTrackPoints,
  closedError, foldCase, isJobId, isPending, isProgrammingError, jobExists, limitOf, newerDatabase, noReservation,
  routeFilterSql, routeValues, toAccount, toAccountWithPassword, toJob, toLedgerEntry, toRoute, LEDGER_COLUMNS,
  type AccountRow, type JobRow, type LedgerRow, type RouteRow,
} from './common.js';
import { MIGRATIONS, MIGRATIONS_TABLE, SCHEMA_VERSION } from './migrations.js';
import type { Account, JobRecord, LedgerEntry, LedgerKind, NewRoute, RouteFilter, Store, StoredRoute, TrackPoint } from './types.js';

export interface PgStoreOptions {
  /** `postgres://user[:password]@host[:port]/database[?schema=name&…]`. */
  url: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** The schema holding the tables (created by migrate); overrides `?schema=` of the URL. Default: the server's search_path (public). */
  schema?: string;
  /** How long to wait for a connection, ms (default 10,000): then Storage. */
  connectTimeoutMs?: number;
}

const SCHEMA_RE = /^[a-z_][a-z0-9_]{0,62}$/;
const INT8_OID = 20;

/** The URL with its password masked, for logs. */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = 'xxxxx';
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:xxxxx@');
  }
}

/** SQLSTATE classes and Node error codes that mean the connection, not the statement, failed. */
function isConnectionError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'string') {
    if (/^(08|57P|53|58)/.test(code)) return true;
    if (/^E[A-Z]+$/.test(code)) return true; // ECONNREFUSED, ECONNRESET, ETIMEDOUT, ENOTFOUND, …
  }
  const msg = e instanceof Error ? e.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end/i.test(msg);
}

/** A pg failure as the Store reports it: a taken name or key is Conflict, anything else Storage. */
function mapError(e: unknown, location: string): unknown {
  if (isProgrammingError(e)) return e;
  const err = e as { code?: string; constraint?: string; message?: string };
  if (err && err.code === '23505') {
    const c = err.constraint ?? '';
    if (c === 'dk_jobs_pkey') return jobExists(e);
    if (c.includes('name_key')) return new EngineError('Conflict', 'An account with this name exists (names are unique ignoring case).', { cause: e });
    if (c.includes('accounts_key_hash')) return new EngineError('Conflict', 'This key is already in use by another account.', { cause: e });
    if (c.includes('sessions')) return new EngineError('Conflict', 'This session key is already in use.', { cause: e });
    return new EngineError('Conflict', `The database refused a duplicate: ${err.message}`, { cause: e });
  }
  const msg = e instanceof Error ? e.message : String(e);
  const what = isConnectionError(e) ? 'is unreachable' : 'failed';
  return new EngineError('Storage', `PostgreSQL database ${location} ${what}: ${msg}${err?.code ? ` (${err.code})` : ''}`, { cause: e, details: err?.code ? { code: err.code } : undefined });
}


type Q = Pick<pg.PoolClient, 'query'>;

const SQL = {
  reserve: `WITH a AS (
      UPDATE dk_accounts SET balance = balance - $2::bigint
      WHERE id = $1::bigint AND NOT blocked AND (expires_at IS NULL OR expires_at > $5::bigint) AND balance >= $2::bigint
      RETURNING id),
    r AS (
      INSERT INTO dk_reservations (account_id, amount, operation, instance, state, created_at)
      SELECT id, $2::bigint, $3::text, $4::text, 'open', $5::bigint FROM a
      RETURNING id, account_id),
    l AS (
      INSERT INTO dk_ledger (account_id, delta, kind, note, reservation_id, created_at)
      SELECT account_id, -$2::bigint, 'reserve', $3::text, id, $5::bigint FROM r)
    SELECT id FROM r`,
  charge: `WITH a AS (
      UPDATE dk_accounts SET balance = balance - $2::bigint
      WHERE id = $1::bigint AND NOT blocked AND (expires_at IS NULL OR expires_at > $4::bigint) AND balance >= $2::bigint
      RETURNING id)
    INSERT INTO dk_ledger (account_id, delta, kind, note, reservation_id, created_at)
    SELECT id, -$2::bigint, 'charge', $3::text, NULL, $4::bigint FROM a
    RETURNING id`,
  applyDelta: `WITH a AS (UPDATE dk_accounts SET balance = balance + $2::bigint WHERE id = $1::bigint RETURNING id, balance),
    l AS (INSERT INTO dk_ledger (account_id, delta, kind, note, reservation_id, created_at)
      SELECT id, $2::bigint, $3::text, $4::text, $5::bigint, $6::bigint FROM a)
    SELECT balance FROM a`,
  closeOpen: `UPDATE dk_reservations SET state = 'settled', cost = $2::bigint WHERE id = $1::bigint AND state = 'open' RETURNING account_id, amount, operation`,
  closeReleased: `UPDATE dk_reservations SET state = 'settled', cost = $2::bigint WHERE id = $1::bigint AND state = 'released' RETURNING account_id, amount, operation`,
  reservationState: `SELECT state, amount, cost FROM dk_reservations WHERE id = $1::bigint`,
  reservationOwner: `SELECT account_id, state FROM dk_reservations WHERE id = $1::bigint`,
  insertRoute: `INSERT INTO dk_routes (account_id, name, name_key, owner, owner_key, distance, time, stops, vehicles, created_at, result)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
  releaseStale: `WITH s AS (
      UPDATE dk_reservations r SET state = 'released'
      WHERE r.state = 'open' AND r.instance <> $1::text AND r.instance NOT LIKE 'job:%'
        AND COALESCE((SELECT i.heartbeat FROM dk_instances i WHERE i.id = r.instance), r.created_at) <= $2::bigint
      RETURNING r.id, r.account_id, r.amount, r.operation),
    l AS (
      INSERT INTO dk_ledger (account_id, delta, kind, note, reservation_id, created_at)
      SELECT account_id, amount, 'refund', operation, id, $3::bigint FROM s),
    b AS (
      UPDATE dk_accounts a SET balance = a.balance + t.total
      FROM (SELECT account_id, SUM(amount)::bigint AS total FROM s GROUP BY account_id) t
      WHERE a.id = t.account_id)
    SELECT count(*)::int AS n FROM s`,
  insertJob: `INSERT INTO dk_jobs (id, account_id, operation, spec, state, reservation_id, attempts, cost, created_at, updated_at)
    VALUES ($1::text, $2::bigint, $3::text, $4::text, 'queued', $5::bigint, 0, 0, $6::bigint, $6::bigint) RETURNING ${JOB_COLUMNS}`,
  getJob: `SELECT ${JOB_COLUMNS} FROM dk_jobs WHERE id = $1::text`,
  lockJob: `SELECT ${JOB_COLUMNS} FROM dk_jobs WHERE id = $1::text FOR UPDATE`,
  startJob: `UPDATE dk_jobs SET state = 'active', attempts = attempts + 1, updated_at = $2::bigint
    WHERE id = $1::text AND state IN ('queued', 'active') RETURNING ${JOB_COLUMNS}`,
  touchJob: `UPDATE dk_jobs SET updated_at = $2::bigint WHERE id = $1::text AND state IN ('queued', 'active')`,
  endJob: `UPDATE dk_jobs SET state = $2::text, result = $3::text, error = $4::text, route_id = $5::bigint, cost = $6::bigint,
      updated_at = $7::bigint, finished_at = $7::bigint
    WHERE id = $1::text AND state IN ('queued', 'active') RETURNING ${JOB_COLUMNS}`,
  // ids compared bytewise (COLLATE "C"), as SQLite does, whatever the database's collation
  pendingJobs: `SELECT ${JOB_COLUMNS} FROM dk_jobs WHERE state IN ('queued', 'active') AND updated_at <= $1::bigint
    ORDER BY updated_at, created_at, id COLLATE "C" LIMIT $2::bigint`,
};

export class PgStore implements Store {
  readonly kind = 'postgres' as const;
  readonly location: string;
  /** The schema of the tables, when one was given. */
  readonly schema: string | null;
  private readonly pool: pg.Pool;
  private closed = false;

  constructor(opts: PgStoreOptions) {
    let u: URL;
    try {
      u = new URL(opts.url);
    } catch {
      throw invalidInput('db', `not a PostgreSQL URL: ${maskUrl(opts.url)}`);
    }
    if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') throw invalidInput('db', `not a PostgreSQL URL: ${maskUrl(opts.url)}`);
    const schema = opts.schema ?? u.searchParams.get('schema');
    u.searchParams.delete('schema');
    if (schema !== null && schema !== undefined) {
      if (!SCHEMA_RE.test(schema)) throw invalidInput('schema', `'${schema}' is not a valid schema name (lower-case letters, digits, _; at most 63)`);
      const prev = u.searchParams.get('options');
      u.searchParams.set('options', `${prev ? prev + ' ' : ''}-c search_path=${schema}`);
    }
    this.schema = schema ?? null;
    const shown = new URL(u.toString());
    shown.searchParams.delete('options');
    if (this.schema) shown.searchParams.set('schema', this.schema);
    this.location = maskUrl(shown.toString());
    const poolSize = opts.poolSize ?? 10;
    if (!Number.isInteger(poolSize) || poolSize < 1) throw invalidInput('poolSize', `must be a whole number ≥ 1 (got ${poolSize})`);
    const parseInt8 = (v: string): number => Number(v);
    this.pool = new pg.Pool({
      connectionString: u.toString(),
      max: poolSize,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
      idleTimeoutMillis: 30_000,
      application_name: 'dispatchkit',
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID && format !== 'binary' ? parseInt8 : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
      },
    });
    // an idle connection that breaks (server restart) must not crash the process: the next query reports it
    this.pool.on('error', () => {});
  }

  // ------------------------------------------------------------------ plumbing

  private async q<R>(sql: string | pg.QueryConfig, params?: unknown[]): Promise<R[]> {
    if (this.closed) throw closedError(this.location);
    try {
      const r = typeof sql === 'string' ? await this.pool.query(sql, params) : await this.pool.query(sql);
      return r.rows as R[];
    } catch (e) {
      throw mapError(e, this.location);
    }
  }

  /** A client of the pool (Storage when the database cannot be reached). */
  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (e) {
      throw mapError(e, this.location);
    }
  }

  /** Runs `fn` in BEGIN … COMMIT on one client; ROLLBACK on any error; the client always released. */
  private async tx<T>(fn: (c: Q) => Promise<T>): Promise<T> {
    if (this.closed) throw closedError(this.location);
    const c = await this.connect();
    let broken: Error | undefined;
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (e) {
      if (isConnectionError(e)) broken = e as Error;
      else {
        try {
          await c.query('ROLLBACK');
        } catch (e2) {
          broken = e2 as Error;
        }
      }
      throw mapError(e, this.location);
    } finally {
      c.release(broken);
    }
  }

  // ------------------------------------------------------------------ lifecycle

  private async readVersion(c: Q): Promise<number> {
    const t = await c.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [MIGRATIONS_TABLE]);
    if (!t.rows[0].present) return 0;
    const r = await c.query(`SELECT COALESCE(MAX(version), 0)::int AS v FROM ${MIGRATIONS_TABLE}`);
    return Number(r.rows[0].v);
  }

  /**
   * Applies what is missing, holding a session-level advisory lock (per schema) on one connection
   * for the whole run, so concurrent starts migrate one after the other; each step is its own
   * transaction begun after the lock was granted (so it sees what the previous holder committed)
   * and re-reads the version first. `upTo` (tests of upgrades): apply only the migrations up to that
   * version, leaving an older database.
   */
  async migrate(opts: { upTo?: number } = {}): Promise<{ from: number; to: number }> {
    if (this.closed) throw closedError(this.location);
    const upTo = opts.upTo ?? SCHEMA_VERSION;
    const c = await this.connect();
    const lockKey = `dispatchkit.migrate.${this.schema ?? ''}`;
    let locked = false;
    let broken: Error | undefined;
    const step = async <T>(fn: () => Promise<T>): Promise<T> => {
      await c.query('BEGIN');
      try {
        const out = await fn();
        await c.query('COMMIT');
        return out;
      } catch (e) {
        await c.query('ROLLBACK').catch((e2: Error) => { broken = e2; });
        throw e;
      }
    };
    try {
      await c.query(`SELECT pg_advisory_lock(hashtext($1)::bigint)`, [lockKey]);
      locked = true;
      const from = await step(async () => {
        if (this.schema) await c.query(`CREATE SCHEMA IF NOT EXISTS "${this.schema}"`);
        return this.readVersion(c);
      });
      if (from > SCHEMA_VERSION) throw newerDatabase(this.location, from);
      for (const m of MIGRATIONS) {
        if (m.version <= from) continue;
        if (m.version > upTo) break;
        try {
          await step(async () => {
            const v = await this.readVersion(c);
            if (v > SCHEMA_VERSION) throw newerDatabase(this.location, v);
            if (v >= m.version) return;
            // one round trip: the statements as one simple-protocol query, inside this step's transaction
            await c.query(m.postgres.join(';\n'));
            await c.query(`INSERT INTO ${MIGRATIONS_TABLE} (version, description, applied_at) VALUES ($1, $2, $3)`, [m.version, m.description, Date.now()]);
          });
        } catch (e) {
          if (e instanceof EngineError) throw e;
          if (isConnectionError(e)) throw e;
          throw new EngineError('Storage', `Migration ${m.version} (${m.description}) of ${this.location} failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e, details: { version: m.version } });
        }
      }
      const to = await this.readVersion(c);
      return { from, to };
    } catch (e) {
      if (isConnectionError(e)) broken = e as Error;
      throw mapError(e, this.location);
    } finally {
      if (locked && !broken) await c.query(`SELECT pg_advisory_unlock(hashtext($1)::bigint)`, [lockKey]).catch((e: Error) => { broken = e; });
      c.release(broken);
    }
  }

  async schemaVersion(): Promise<number> {
    if (this.closed) throw closedError(this.location);
    const c = await this.connect();
    try {
      return await this.readVersion(c);
    } catch (e) {
      throw mapError(e, this.location);
    } finally {
      c.release();
    }
  }

  async ping(): Promise<void> {
    await this.q('SELECT 1');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  /** Drops this store's schema and everything in it (tests); nothing when the store has no schema of its own. */
  async dropSchema(): Promise<void> {
    if (!this.schema) return;
    await this.q(`DROP SCHEMA IF EXISTS "${this.schema}" CASCADE`);
  }

  // ------------------------------------------------------------------ accounts

  async createAccount(p: { name: string; keyHash: Buffer; passwordHash: string | null; credit: number; expiresAt?: number | null; now: number }): Promise<Account> {
    checkName(p.name);
    checkKeyHash('keyHash', p.keyHash);
    checkInteger('credit', p.credit);
    checkInteger('now', p.now);
    if (p.expiresAt !== undefined && p.expiresAt !== null) checkInteger('expiresAt', p.expiresAt);
    return this.tx(async (c) => {
      const r = await c.query(
        `INSERT INTO dk_accounts (name, name_key, key_hash, password_hash, blocked, expires_at, created_at, balance)
         VALUES ($1, $2, $3, $4, FALSE, $5, $6, $7) RETURNING ${ACCOUNT_COLUMNS}`,
        [p.name, foldCase(p.name), p.keyHash, p.passwordHash ?? null, p.expiresAt ?? null, p.now, p.credit],
      );
      const a = toAccount(r.rows[0] as AccountRow);
      if (p.credit !== 0) {
        await c.query(`INSERT INTO dk_ledger (account_id, delta, kind, note, reservation_id, created_at) VALUES ($1, $2, 'grant', 'initial credit', NULL, $3)`, [a.id, p.credit, p.now]);
      }
      return a;
    });
  }

  async accountByKeyHash(keyHash: Buffer): Promise<Account | null> {
    const rows = await this.q<AccountRow>({ name: 'dk_account_by_key', text: `SELECT ${ACCOUNT_COLUMNS} FROM dk_accounts WHERE key_hash = $1`, values: [keyHash] });
    return rows.length ? toAccount(rows[0]) : null;
  }

  async accountByName(name: string): Promise<(Account & { passwordHash: string | null }) | null> {
    const rows = await this.q<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM dk_accounts WHERE name_key = $1`, [foldCase(name)]);
    return rows.length ? toAccountWithPassword(rows[0]) : null;
  }

  async accountById(id: number): Promise<Account | null> {
    const rows = await this.q<AccountRow>({ name: 'dk_account_by_id', text: `SELECT ${ACCOUNT_COLUMNS} FROM dk_accounts WHERE id = $1`, values: [id] });
    return rows.length ? toAccount(rows[0]) : null;
  }

  async listAccounts(): Promise<Account[]> {
    return (await this.q<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM dk_accounts ORDER BY name_key, id`)).map(toAccount);
  }

  async updateAccount(name: string, patch: { blocked?: boolean; keyHash?: Buffer; passwordHash?: string | null; expiresAt?: number | null }): Promise<Account | null> {
    if (patch.keyHash !== undefined) checkKeyHash('keyHash', patch.keyHash);
    if (patch.expiresAt !== undefined && patch.expiresAt !== null) checkInteger('expiresAt', patch.expiresAt);
    // a new key or password ends the account's Login sessions (in the same statement)
    const rows = await this.q<AccountRow>(
      `WITH a AS (UPDATE dk_accounts SET
         blocked = CASE WHEN $2::boolean THEN $3::boolean ELSE blocked END,
         key_hash = CASE WHEN $4::boolean THEN $5::bytea ELSE key_hash END,
         password_hash = CASE WHEN $6::boolean THEN $7::text ELSE password_hash END,
         expires_at = CASE WHEN $8::boolean THEN $9::bigint ELSE expires_at END
       WHERE name_key = $1 RETURNING ${ACCOUNT_COLUMNS}),
       gone AS (DELETE FROM dk_sessions WHERE ($4::boolean OR $6::boolean) AND account_id IN (SELECT id FROM a))
       SELECT * FROM a`,
      [
        foldCase(name),
        patch.blocked !== undefined, patch.blocked === true,
        patch.keyHash !== undefined, patch.keyHash ?? null,
        patch.passwordHash !== undefined, patch.passwordHash ?? null,
        patch.expiresAt !== undefined, patch.expiresAt ?? null,
      ],
    );
    return rows.length ? toAccount(rows[0]) : null;
  }

  // ------------------------------------------------------------------ Login sessions

  async createSession(p: { keyHash: Buffer; accountId: number; now: number }): Promise<void> {
    checkKeyHash('keyHash', p.keyHash);
    checkInteger('now', p.now);
    await this.q(`INSERT INTO dk_sessions (key_hash, account_id, created_at, last_used) VALUES ($1, $2, $3, $3)`, [p.keyHash, p.accountId, p.now]);
  }

  async touchSession(keyHash: Buffer, now: number, ttlMs: number): Promise<Account | null> {
    const cutoff = now - ttlMs;
    const rows = await this.q<AccountRow>({
      name: 'dk_touch_session',
      text: `WITH s AS (
          UPDATE dk_sessions SET last_used = GREATEST(last_used, $2::bigint) WHERE key_hash = $1 AND last_used > $3::bigint RETURNING account_id)
        SELECT ${ACCOUNT_COLUMNS.split(', ').map((c) => `a.${c}`).join(', ')} FROM dk_accounts a JOIN s ON a.id = s.account_id`,
      values: [keyHash, now, cutoff],
    });
    if (rows.length) return toAccount(rows[0]);
    await this.q({ name: 'dk_delete_expired_session', text: `DELETE FROM dk_sessions WHERE key_hash = $1 AND last_used <= $2::bigint`, values: [keyHash, cutoff] });
    return null;
  }

  async deleteSession(keyHash: Buffer): Promise<boolean> {
    if (this.closed) throw closedError(this.location);
    try {
      const r = await this.pool.query(`DELETE FROM dk_sessions WHERE key_hash = $1`, [keyHash]);
      return (r.rowCount ?? 0) > 0;
    } catch (e) {
      throw mapError(e, this.location);
    }
  }

  // ------------------------------------------------------------------ credit

  /** Changes the balance by `delta` with its ledger entry, in one statement; the new balance, or null without such an account. */
  private async applyDelta(c: Q, accountId: number, delta: number, kind: LedgerKind, note: string, reservationId: number | null, now: number): Promise<number | null> {
    const r = await c.query({ name: 'dk_apply_delta', text: SQL.applyDelta, values: [accountId, delta, kind, note, reservationId, now] });
    return r.rows.length ? Number(r.rows[0].balance) : null;
  }

  async grantCredit(p: { accountId: number; amount: number; note: string; now: number }): Promise<number | null> {
    checkInteger('amount', p.amount);
    checkInteger('now', p.now);
    if (this.closed) throw closedError(this.location);
    try {
      return await this.applyDelta(this.pool, p.accountId, p.amount, 'grant', String(p.note ?? ''), null, p.now);
    } catch (e) {
      throw mapError(e, this.location);
    }
  }

  async reserve(p: { accountId: number; amount: number; operation: string; instance: string; now: number }): Promise<number | null> {
    checkInteger('amount', p.amount, 1);
    checkInteger('now', p.now);
    // one statement, so one transaction: the conditional UPDATE locks the account row until COMMIT
    const rows = await this.q<{ id: number }>({ name: 'dk_reserve', text: SQL.reserve, values: [p.accountId, p.amount, p.operation, p.instance, p.now] });
    return rows.length ? Number(rows[0].id) : null;
  }

  async charge(p: { accountId: number; amount: number; operation: string; now: number }): Promise<number | null> {
    checkInteger('amount', p.amount, 1);
    checkInteger('now', p.now);
    // one statement, so one transaction: the conditional UPDATE locks the account row until COMMIT
    const rows = await this.q<{ id: number }>({ name: 'dk_charge', text: SQL.charge, values: [p.accountId, p.amount, p.operation, p.now] });
    return rows.length ? Number(rows[0].id) : null;
  }

  /**
   * {@inheritDoc Store.settle}
   * An unknown reservation is Conflict too; a cost above the reservation's amount is InvalidInput.
   */
  async settle(p: { reservationId: number; cost: number; now: number; route?: NewRoute }): Promise<{ routeId: number | null }> {
    checkInteger('cost', p.cost, 0);
    checkInteger('now', p.now);
    if (p.route) routeValues(p.route);
    return this.tx(async (c) => {
      const r = await this.closeReservation(c, p.reservationId, p.cost, p.now, false);
      return { routeId: p.route ? await this.insertRoute(c, r.accountId!, p.route, p.now) : null };
    });
  }

  /**
   * Settles reservation `id` at `cost` in `c`'s transaction (settle's rule): an open one gives the
   * rest back as a 'refund'; one released as stale meanwhile (all of it refunded) takes the cost
   * again as a 'charge' (the operation did finish). One already settled throws Conflict, or, with
   * `settledOk` (a job's end: its reservation closes once), is left alone: the ledger is not touched.
   * An unknown one is Conflict; a cost above the amount InvalidInput (the caller's transaction rolls
   * back). Returns the state it was in, its account (when closed here) and the cost it is settled at.
   */
  private async closeReservation(c: Q, id: number, cost: number, now: number, settledOk: boolean): Promise<{ was: 'open' | 'released' | 'settled'; accountId: number | null; cost: number }> {
    type Closed = { account_id: number; amount: number; operation: string };
    let r = (await c.query({ name: 'dk_close_open', text: SQL.closeOpen, values: [id, cost] })).rows[0] as Closed | undefined;
    let wasOpen = true;
    if (!r) {
      // not open: released as stale meanwhile (then charged), settled already, or unknown
      r = (await c.query({ name: 'dk_close_released', text: SQL.closeReleased, values: [id, cost] })).rows[0] as Closed | undefined;
      wasOpen = false;
      if (!r) {
        const s = (await c.query({ name: 'dk_reservation_state', text: SQL.reservationState, values: [id] })).rows[0] as { state: string; amount: number; cost: number | null } | undefined;
        if (!s) throw noReservation(id);
        if (!settledOk) throw alreadySettled(id);
        checkCost(cost, Number(s.amount));
        return { was: 'settled', accountId: null, cost: Number(s.cost ?? 0) };
      }
    }
    const amount = Number(r.amount), accountId = Number(r.account_id);
    checkCost(cost, amount);
    if (wasOpen) {
      if (amount > cost) await this.applyDelta(c, accountId, amount - cost, 'refund', r.operation, id, now);
    } else if (cost > 0) {
      await this.applyDelta(c, accountId, -cost, 'charge', r.operation, id, now);
    }
    return { was: wasOpen ? 'open' : 'released', accountId, cost };
  }

  private async insertRoute(c: Q, accountId: number, route: NewRoute, now: number): Promise<number> {
    const r = await c.query({ name: 'dk_insert_route', text: SQL.insertRoute, values: [accountId, ...routeValues(route), now, route.result] });
    return Number(r.rows[0].id);
  }

  async storeRoute(p: { accountId: number; route: NewRoute; now: number }): Promise<number> {
    checkInteger('now', p.now);
    routeValues(p.route);
    if (this.closed) throw closedError(this.location);
    try {
      return await this.insertRoute(this.pool, p.accountId, p.route, p.now);
    } catch (e) {
      throw mapError(e, this.location);
    }
  }

  async heartbeat(instance: string, now: number): Promise<void> {
    await this.q(
      { name: 'dk_heartbeat', text: `INSERT INTO dk_instances (id, heartbeat) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET heartbeat = GREATEST(dk_instances.heartbeat, EXCLUDED.heartbeat)`, values: [instance, now] },
    );
  }

  /**
   * {@inheritDoc Store.releaseStale}
   * Stale: the instance's last heartbeat is at least `staleMs` old (`heartbeat ≤ now − staleMs`);
   * an instance that never sent one counts from the reservation's creation. Releases of several
   * instances are serialised by an advisory lock (no deadlock between them).
   */
  async releaseStale(p: { instance: string; now: number; staleMs: number }): Promise<number> {
    checkInteger('now', p.now);
    checkInteger('staleMs', p.staleMs, 0);
    return this.tx(async (c) => {
      await c.query(`SELECT pg_advisory_xact_lock(hashtext($1)::bigint)`, [`dispatchkit.releaseStale.${this.schema ?? ''}`]);
      const r = await c.query({ name: 'dk_release_stale', text: SQL.releaseStale, values: [p.instance, p.now - p.staleMs, p.now] });
      return Number(r.rows[0].n);
    });
  }

  async balance(accountId: number): Promise<number | null> {
    const rows = await this.q<{ balance: number }>({ name: 'dk_balance', text: `SELECT balance FROM dk_accounts WHERE id = $1`, values: [accountId] });
    return rows.length ? Number(rows[0].balance) : null;
  }

  async ledgerSum(accountId: number): Promise<number> {
    const rows = await this.q<{ s: number }>(`SELECT COALESCE(SUM(delta), 0)::bigint AS s FROM dk_ledger WHERE account_id = $1`, [accountId]);
    return Number(rows[0].s);
  }

  async ledger(accountId: number, limit?: number): Promise<LedgerEntry[]> {
    const rows = await this.q<LedgerRow>(
      `SELECT ${LEDGER_COLUMNS} FROM dk_ledger WHERE account_id = $1 ORDER BY id DESC LIMIT $2`,
      [accountId, limitOf('limit', limit, DEFAULT_LEDGER_LIMIT)],
    );
    return rows.map(toLedgerEntry);
  }

  async openReservations(): Promise<number> {
    const rows = await this.q<{ n: number }>(`SELECT count(*)::int AS n FROM dk_reservations WHERE state = 'open'`);
    return Number(rows[0].n);
  }

  // ------------------------------------------------------------------ stored routes

  async listRoutes(accountId: number, f: RouteFilter = {}): Promise<StoredRoute[]> {
    const params: unknown[] = [accountId];
    const { where, limit } = routeFilterSql(f, (v) => (params.push(v), `$${params.length}`), (col, ph) => `strpos(${col}, ${ph}) > 0`);
    params.push(limit);
    const rows = await this.q<RouteRow>(
      `SELECT ${ROUTE_COLUMNS} FROM dk_routes WHERE account_id = $1${where} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    return rows.map(toRoute);
  }

  async getRoute(accountId: number, routeId: number): Promise<{ route: StoredRoute; result: string } | null> {
    if (!Number.isSafeInteger(routeId)) return null;
    const rows = await this.q<RouteRow & { result: string }>(`SELECT ${ROUTE_COLUMNS}, result FROM dk_routes WHERE id = $1 AND account_id = $2`, [routeId, accountId]);
    return rows.length ? { route: toRoute(rows[0]), result: rows[0].result } : null;
  }

  // ------------------------------------------------------------------ jobs

  /**
   * {@inheritDoc Store.createJob}
   * The id is 1 to 100 characters among A–Z, a–z, 0–9, `-` and `_` (InvalidInput otherwise); the
   * reservation must be an open one of the account (InvalidInput otherwise).
   */
  async createJob(p: { id: string; accountId: number; operation: string; spec: string; reservationId: number | null; now: number }): Promise<JobRecord> {
    checkNewJob(p);
    const reservationId = p.reservationId ?? null;
    return this.tx(async (c) => {
      if (reservationId !== null) {
        const r = await c.query({ name: 'dk_reservation_owner', text: SQL.reservationOwner, values: [reservationId] });
        checkJobReservation(reservationId, p.accountId, r.rows[0]);
      }
      const r = await c.query({ name: 'dk_insert_job', text: SQL.insertJob, values: [p.id, p.accountId, p.operation, p.spec, reservationId, p.now] });
      return toJob(r.rows[0] as JobRow);
    });
  }

  async getJob(id: string): Promise<JobRecord | null> {
    if (!isJobId(id)) return null;
    const rows = await this.q<JobRow>({ name: 'dk_get_job', text: SQL.getJob, values: [id] });
    return rows.length ? toJob(rows[0]) : null;
  }

  async startJob(id: string, now: number): Promise<JobRecord | null> {
    checkInteger('now', now);
    if (!isJobId(id)) return null;
    const rows = await this.q<JobRow>({ name: 'dk_start_job', text: SQL.startJob, values: [id, now] });
    return rows.length ? toJob(rows[0]) : null;
  }

  async touchJob(id: string, now: number): Promise<void> {
    checkInteger('now', now);
    if (!isJobId(id)) return;
    await this.q({ name: 'dk_touch_job', text: SQL.touchJob, values: [id, now] });
  }

  /**
   * {@inheritDoc Store.finishJob}
   * Exactly once: the job's row is locked first (`SELECT … FOR UPDATE`), so a concurrent ending of
   * the same job, from this process or another, waits for this one's COMMIT and then reads it
   * finished. A cost above the reservation's amount, or above 0 without a reservation, is InvalidInput
   * (nothing written). When the reservation had been settled already (by `settle`), the ledger is not
   * touched and the job's cost is the one it was settled at; when it had been released as stale, the
   * cost is charged (as settle). An unknown job: `{ finished: false, job: null }`.
   */
  async finishJob(p: { id: string; state: 'completed' | 'failed' | 'cancelled'; cost: number; result?: string; error?: string; route?: NewRoute; now: number }): Promise<{ finished: boolean; job: JobRecord | null }> {
    checkJobEnd(p);
    if (!isJobId(p.id)) return { finished: false, job: null };
    return this.tx(async (c) => {
      const row = (await c.query({ name: 'dk_lock_job', text: SQL.lockJob, values: [p.id] })).rows[0] as JobRow | undefined;
      if (!row) return { finished: false, job: null };
      const job = toJob(row);
      if (!isPending(job.state)) return { finished: false, job };
      let cost = p.cost;
      if (job.reservationId === null) checkCost(p.cost, null);
      else {
        const r = await this.closeReservation(c, job.reservationId, p.cost, p.now, true);
        // settled already (not by a job's end, which is this one): what it was settled at is what the job took
        if (r.was === 'settled') cost = p.state === 'completed' ? r.cost : 0;
      }
      const routeId = p.route ? await this.insertRoute(c, job.accountId, p.route, p.now) : null;
      const ended = await c.query({ name: 'dk_end_job', text: SQL.endJob, values: [p.id, p.state, p.result ?? null, p.error ?? null, routeId, cost, p.now] });
      return { finished: true, job: toJob(ended.rows[0] as JobRow) };
    });
  }

  async pendingJobs(p: { before: number; limit?: number }): Promise<JobRecord[]> {
    checkInteger('before', p.before);
    const rows = await this.q<JobRow>({ name: 'dk_pending_jobs', text: SQL.pendingJobs, values: [p.before, limitOf('limit', p.limit, DEFAULT_JOB_LIMIT)] });
    return rows.map(toJob);
  }

  // ------------------------------------------------------------------ GPS tracks

  async addTrackPoints(p: { accountId: number; track: string; points: readonly TrackPoint[]; now: number }): Promise<number> {
    checkTrackPoints(p.points);
    if (p.points.length === 0) {
      if (this.closed) throw closedError(this.location);
      return 0;
    }
    // one statement (atomic), the points inserted in their order (ids follow arrival)
    const rows = await this.q<{ n: number }>(
      `WITH ins AS (
         INSERT INTO dk_track_points (account_id, track, ts, lat, lon)
         SELECT $1, $2, t.ts, t.lat, t.lon FROM unnest($3::bigint[], $4::float8[], $5::float8[]) WITH ORDINALITY AS t(ts, lat, lon, ord) ORDER BY t.ord
         RETURNING 1)
       SELECT count(*)::int AS n FROM ins`,
      [p.accountId, p.track, p.points.map((x) => x.ts), p.points.map((x) => x.lat), p.points.map((x) => x.lon)],
    );
    return Number(rows[0].n);
  }

  async getTrack(p: { accountId: number; track: string; from: number; to: number; limit?: number }): Promise<TrackPoint[]> {
    const rows = await this.q<{ ts: number; lat: number; lon: number }>(
      `SELECT ts, lat, lon FROM dk_track_points WHERE account_id = $1 AND track = $2 AND ts >= $3 AND ts <= $4 ORDER BY ts, id LIMIT $5`,
      [p.accountId, p.track, p.from, p.to, limitOf('limit', p.limit, DEFAULT_TRACK_LIMIT)],
    );
    return rows.map((r) => ({ lat: Number(r.lat), lon: Number(r.lon), ts: Number(r.ts) }));
  }
}
