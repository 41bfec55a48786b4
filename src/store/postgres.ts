/**
 * The shared backend: PostgreSQL through a `pg.Pool`, for several server instances on one
 * database. Every write method is one transaction: a single statement (data-modifying CTEs, atomic
 * by themselves) or BEGIN … COMMIT on one pooled client, rolled back on any error, the client
 * always released (destroyed when its connection broke).
 *
 * The credit and job methods decide nothing themselves: they are the flows of `flows.ts` (read the
 * rows, call the rule of `rules.ts`, write what it decided). A decision is written in ONE statement
 * ({@link applyStatement}) whose gate first locks the rows the rule read and checks they are still
 * as it saw them — the job still pending, the reservation still in its state, the account still
 * satisfying the rule's guard (rules.AccountGuard: e.g. not blocked, not expired, a balance of at
 * least the amount) — and writes nothing when they are not. So a flow runs first without a
 * transaction (reserve and charge: one round trip, on the account as this store last saw it), and
 * when the gate stays shut, once more in a transaction whose reads lock the rows
 * ({@link PgStore.run}). Credit safety between processes rests on those row locks:
 * - two concurrent reservations of one account are written one after the other, each only while
 *   the balance still covers it: they can never take the same credit;
 * - a reservation changes only from the state the rule saw: it is never both settled as open and
 *   released, and the second of two concurrent settlements finds it settled (Conflict);
 * - a job ends only while pending: of concurrent endings (a retried worker and the original, a
 *   cancel) the later ones find it finished and write nothing, so its reservation is settled once
 *   and its route stored once.
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
  ACCOUNT_COLUMNS, ACCOUNT_FACTS, DEFAULT_JOB_LIMIT, DEFAULT_LEDGER_LIMIT, DEFAULT_TRACK_LIMIT, DEFAULT_USAGE_LIMIT, JOB_COLUMNS,
  CURRENT_VERSION_COLUMNS, checkStopEvents, toVersion, type VersionRow,
  LEDGER_COLUMNS, RESERVATION_FACTS, ROUTE_COLUMNS, STALE_FACTS, USAGE_COLUMNS, checkInteger, checkKeyHash, checkName, checkNewJob,
  checkTrackPoints, closedError, foldCase, isJobId, isProgrammingError, jobExists, limitOf, newerDatabase, pruneInBatches, routeFilterSql,
  routeValues, toAccount, toAccountFacts, toAccountWithPassword, toAuditFacts, toJob, toJobOrNull, toLedgerEntry, toReservationFacts,
  toRoute, toStaleCandidate, toUsageEntry, type AccountRow, type AuditRow, type JobRow, type LedgerRow, type RouteRow,
} from './common.js';
import { MIGRATIONS, MIGRATIONS_TABLE, SCHEMA_VERSION } from './migrations.js';
import * as rules from './rules.js';
import { FlowStore, type Applied, type Flow, type FlowFn, type Step } from './flows.js';
import { FINISHED_JOB_STATES, NEW_RESERVATION, balanceChanges, jobReservationError, refusalError, type Writes } from './rules.js';
import type { Account, AccountAudit, JobRecord, LedgerEntry, NewJob, NewRoute, PruneCounts, PruneRequest, RouteFilter, RouteVersion, StopEvent, StopEventKind, Store, StoredRoute, TrackPoint, UsageEntry } from './types.js';

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

/** A decision's write found its rows changed since they were read (see PgStore.run). */
const CHANGED = Symbol('changed');

/** How many accounts and reservations a PgStore remembers (see PgStore.recent). */
const RECENT = 10_000;

function remember<K, V>(m: Map<K, V>, k: K, v: V): void {
  m.delete(k);
  m.set(k, v);
  if (m.size > RECENT) m.delete(m.keys().next().value as K);
}

/** The finished job states, as SQL (rules.FINISHED_JOB_STATES). */
const FINISHED = FINISHED_JOB_STATES.map((x) => `'${x}'`).join(', ');

const SQL = {
  // the rows the rules read (a flow's locked retry adds FOR UPDATE)
  account: `SELECT ${ACCOUNT_FACTS} FROM dk_accounts WHERE id = $1::bigint`,
  reservation: `SELECT ${RESERVATION_FACTS} FROM dk_reservations r WHERE r.id = $1::bigint`,
  job: `SELECT ${JOB_COLUMNS} FROM dk_jobs WHERE id = $1::text`,
  // the open reservations of other instances (which are stale is the rule's: rules.isStale)
  openOfOthers: `SELECT ${STALE_FACTS} FROM dk_reservations r LEFT JOIN dk_instances i ON i.id = r.instance
    WHERE r.state = 'open' AND r.instance <> $1::text`,
  usage: `SELECT ${USAGE_COLUMNS} FROM dk_usage WHERE account_id = $1::bigint ORDER BY id DESC LIMIT $2::bigint`,
  // per account, split at the epoch: an entry of a reservation by the reservation's id, another by its own
  audit: `WITH e AS (SELECT COALESCE(MAX(ledger_id), 0) AS l, COALESCE(MAX(reservation_id), 0) AS r FROM dk_usage_epoch),
    led AS (SELECT account_id, delta, kind <> 'grant' AS taken,
        CASE WHEN reservation_id IS NULL THEN id > (SELECT l FROM e) ELSE reservation_id > (SELECT r FROM e) END AS rec
      FROM dk_ledger WHERE $1::bigint IS NULL OR account_id = $1::bigint),
    l AS (SELECT account_id, SUM(delta) AS total, SUM(CASE WHEN taken AND rec THEN -delta ELSE 0 END) AS taken_rec,
        SUM(CASE WHEN taken AND NOT rec THEN -delta ELSE 0 END) AS taken_old
      FROM led GROUP BY account_id),
    o AS (SELECT account_id, SUM(CASE WHEN id > (SELECT r FROM e) THEN amount ELSE 0 END) AS open_rec,
        SUM(CASE WHEN id > (SELECT r FROM e) THEN 0 ELSE amount END) AS open_old
      FROM dk_reservations WHERE state = 'open' AND ($1::bigint IS NULL OR account_id = $1::bigint) GROUP BY account_id),
    u AS (SELECT account_id, SUM(CASE WHEN reservation_id IS NULL OR reservation_id > (SELECT r FROM e) THEN cost ELSE 0 END) AS usage_rec,
        SUM(CASE WHEN reservation_id IS NULL OR reservation_id > (SELECT r FROM e) THEN 0 ELSE cost END) AS usage_old
      FROM dk_usage WHERE $1::bigint IS NULL OR account_id = $1::bigint GROUP BY account_id)
    SELECT a.id, a.name, a.balance, COALESCE(l.total, 0) AS ledger_sum, COALESCE(l.taken_rec, 0) AS taken_rec, COALESCE(l.taken_old, 0) AS taken_old,
      COALESCE(o.open_rec, 0) AS open_rec, COALESCE(o.open_old, 0) AS open_old, COALESCE(u.usage_rec, 0) AS usage_rec, COALESCE(u.usage_old, 0) AS usage_old
    FROM dk_accounts a LEFT JOIN l ON l.account_id = a.id LEFT JOIN o ON o.account_id = a.id LEFT JOIN u ON u.account_id = a.id
    WHERE $1::bigint IS NULL OR a.id = $1::bigint ORDER BY a.name_key, a.id`,
  insertRoute: `INSERT INTO dk_routes (account_id, name, name_key, owner, owner_key, distance, time, stops, vehicles, created_at, result)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
  insertRouteSpec: `INSERT INTO dk_routes (account_id, name, name_key, owner, owner_key, distance, time, stops, vehicles, created_at, result, spec)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id`,
  insertJob: `INSERT INTO dk_jobs (id, account_id, operation, spec, state, reservation_id, attempts, cost, created_at, updated_at, unit_price, priority)
    VALUES ($1::text, $2::bigint, $3::text, $4::text, 'queued', $5::bigint, 0, 0, $6::bigint, $6::bigint, $7::bigint,
      (SELECT GREATEST(count(*) + 1, coalesce(max(priority), 1)) FROM dk_jobs WHERE account_id = $2::bigint AND state IN ('queued', 'active')))
    RETURNING ${JOB_COLUMNS}`,
  startJob: `UPDATE dk_jobs SET state = 'active', attempts = attempts + 1, updated_at = $2::bigint
    WHERE id = $1::text AND state IN ('queued', 'active') RETURNING ${JOB_COLUMNS}`,
  touchJob: `UPDATE dk_jobs SET updated_at = $2::bigint WHERE id = $1::text AND state IN ('queued', 'active')`,
  // retention (Store.prune): one batch each, by the indexes of migration 4
  prune: {
    jobs: `WITH d AS (DELETE FROM dk_jobs WHERE id IN (SELECT j.id FROM dk_jobs j WHERE j.finished_at < $1::bigint AND j.state IN (${FINISHED})
        AND NOT EXISTS (SELECT 1 FROM dk_reservations r WHERE r.id = j.reservation_id AND r.state = 'open') LIMIT $2::bigint) RETURNING 1)
      SELECT count(*)::int AS n FROM d`,
    routes: `WITH d AS (DELETE FROM dk_routes WHERE id IN (SELECT r.id FROM dk_routes r WHERE r.created_at < $1::bigint
        AND NOT EXISTS (SELECT 1 FROM dk_jobs j WHERE j.route_id = r.id) LIMIT $2::bigint) RETURNING 1)
      SELECT count(*)::int AS n FROM d`,
    tracks: `WITH d AS (DELETE FROM dk_track_points WHERE id IN (SELECT id FROM dk_track_points WHERE ts < $1::bigint LIMIT $2::bigint) RETURNING 1)
      SELECT count(*)::int AS n FROM d`,
  },
  // ids compared bytewise (COLLATE "C"), as SQLite does, whatever the database's collation
  pendingJobs: `SELECT ${JOB_COLUMNS} FROM dk_jobs WHERE state IN ('queued', 'active') AND updated_at <= $1::bigint
    ORDER BY updated_at, created_at, id COLLATE "C" LIMIT $2::bigint`,
};

/**
 * What a rule decided, as one statement of data-modifying CTEs. A decision writes at most one
 * ledger entry, changes at most one balance and one reservation (rules.ts keeps it so; tested).
 * First the gate, under row locks taken in this order: the job still pending (`jl`), the
 * reservation still in the state the rule saw (`rl`), then the balance (`ba`: changed by the entry,
 * only while the gates before are open and the rule's guard holds). `ok` — the gate opened — is that
 * the balance was changed (with none to change, the gates before); only then come the new
 * reservation, the reservation's change, the ledger entry, the usage record, the route and the
 * job's end. The text depends only on the shape of the writes (which parts there are), so it is a
 * prepared statement per shape, named by it.
 */
function applyStatement(w: Writes, now: number): pg.QueryConfig {
  const changes = [...balanceChanges(w)];
  const [r] = w.reservations, [e] = w.entries;
  if (changes.length > 1 || w.reservations.length > 1 || w.entries.length > 1) throw new EngineError('Internal', 'A decision wrote more than one entry, balance or reservation.');
  const values: unknown[] = [];
  const $ = (v: unknown, type: string): string => (values.push(v), `$${values.length}::${type}`);
  let nowRef = '';
  const at = (): string => (nowRef ||= $(now, 'bigint'));
  const shape: string[] = [], ctes: string[] = [], gates: string[] = [];
  const j = w.job;
  if (j) {
    shape.push('j');
    ctes.push(`jl AS MATERIALIZED (SELECT id FROM dk_jobs WHERE id = ${$(j.id, 'text')} AND state IN ('queued', 'active') FOR UPDATE)`);
    gates.push('EXISTS (SELECT 1 FROM jl)');
  }
  let rid = '';
  if (r) {
    shape.push('r');
    rid = $(r.id, 'bigint');
    ctes.push(`rl AS MATERIALIZED (SELECT id FROM dk_reservations WHERE id = ${rid} AND state = ${$(r.from, 'text')} FOR UPDATE)`);
    gates.push('EXISTS (SELECT 1 FROM rl)');
  }
  let ok = gates.length ? gates.join(' AND ') : 'TRUE';
  if (changes.length) {
    let guard = '';
    const g = w.guard;
    if (g) {
      shape.push(`g${g.blocked === undefined ? '' : 'b'}${g.expiresAt === undefined ? '' : 'e'}${g.minBalance === undefined ? '' : 'm'}${g.balance === undefined ? '' : 'x'}`);
      if (g.blocked !== undefined) guard += ` AND x.blocked = ${$(g.blocked, 'boolean')}`;
      if (g.expiresAt !== undefined) guard += ` AND x.expires_at IS NOT DISTINCT FROM ${$(g.expiresAt, 'bigint')}`;
      if (g.minBalance !== undefined) guard += ` AND x.balance >= ${$(g.minBalance, 'bigint')}`;
      if (g.balance !== undefined) guard += ` AND x.balance = ${$(g.balance, 'bigint')}`;
    }
    shape.push('b');
    ctes.push(`ba AS (UPDATE dk_accounts x SET balance = x.balance + ${$(changes[0][1], 'bigint')}
      WHERE x.id = ${$(changes[0][0], 'bigint')}${guard}${gates.map((c) => ` AND ${c}`).join('')} RETURNING x.id, x.balance)`);
    ok = 'EXISTS (SELECT 1 FROM ba)';
  }
  const out = [`${ok} AS ok`];
  if (changes.length) out.push('(SELECT balance FROM ba) AS balance');
  const n = w.newReservation;
  if (n) {
    shape.push('n');
    ctes.push(`nr AS (INSERT INTO dk_reservations (account_id, amount, operation, instance, state, created_at)
      SELECT ${$(n.accountId, 'bigint')}, ${$(n.amount, 'bigint')}, ${$(n.operation, 'text')}, ${$(n.instance, 'text')}, 'open', ${at()} WHERE ${ok}
      RETURNING id)`);
    out.push('(SELECT id FROM nr) AS reservation_id');
  }
  if (r) ctes.push(`ru AS (UPDATE dk_reservations SET state = ${$(r.to, 'text')}, cost = ${$(r.cost, 'bigint')} WHERE id = ${rid} AND ${ok} RETURNING id)`);
  if (e) {
    const fresh = e.reservationId === NEW_RESERVATION;
    shape.push(fresh ? 'ln' : 'l');
    ctes.push(`le AS (INSERT INTO dk_ledger (account_id, delta, kind, note, reservation_id, created_at)
      SELECT ${$(e.accountId, 'bigint')}, ${$(e.delta, 'bigint')}, ${$(e.kind, 'text')}, ${$(e.note, 'text')},
        ${fresh ? '(SELECT id FROM nr)' : $(e.reservationId, 'bigint')}, ${at()} WHERE ${ok} RETURNING id)`);
    out.push('(SELECT id FROM le) AS entry_id');
  }
  const u = w.usage;
  if (u) {
    shape.push('u');
    ctes.push(`us AS (INSERT INTO dk_usage (account_id, operation, units, unit_price, cost, reservation_id, created_at)
      SELECT ${$(u.accountId, 'bigint')}, ${$(u.operation, 'text')}, ${$(u.units, 'bigint')}, ${$(u.unitPrice, 'bigint')}, ${$(u.cost, 'bigint')},
        ${$(u.reservationId, 'bigint')}, ${at()} WHERE ${ok} RETURNING id)`);
  }
  const rt = w.route;
  if (rt) {
    shape.push('t');
    const [name, nameKey, owner, ownerKey, distance, time, stops, vehicles] = routeValues(rt.route);
    ctes.push(`rt AS (INSERT INTO dk_routes (account_id, name, name_key, owner, owner_key, distance, time, stops, vehicles, created_at, result)
      SELECT ${$(rt.accountId, 'bigint')}, ${$(name, 'text')}, ${$(nameKey, 'text')}, ${$(owner, 'text')}, ${$(ownerKey, 'text')}, ${$(distance, 'float8')},
        ${$(time, 'float8')}, ${$(stops, 'int')}, ${$(vehicles, 'int')}, ${at()}, ${$(rt.route.result, 'text')}
      WHERE ${ok} RETURNING id)`);
    out.push('(SELECT id FROM rt) AS route_id');
  }
  if (j) {
    ctes.push(`jb AS (UPDATE dk_jobs SET state = ${$(j.state, 'text')}, result = ${$(j.result, 'text')}, error = ${$(j.error, 'text')},
        route_id = ${rt ? '(SELECT id FROM rt)' : 'NULL'}, cost = ${$(j.cost, 'bigint')}, updated_at = ${at()}, finished_at = ${at()}
      WHERE id IN (SELECT id FROM jl) AND ${ok} RETURNING ${JOB_COLUMNS})`);
    out.push('(SELECT row_to_json(jb) FROM jb) AS job');
  }
  return { name: `dk_apply_${shape.join('_') || 'none'}`, text: `${ctes.length ? `WITH ${ctes.join(',\n    ')}\n    ` : ''}SELECT ${out.join(', ')}`, values };
}

export class PgStore extends FlowStore implements Store {
  readonly kind = 'postgres' as const;
  readonly location: string;
  /** The schema of the tables, when one was given. */
  readonly schema: string | null;
  private readonly pool: pg.Pool;
  private closed = false;
  /**
   * Facts this store saw last — accounts it read or wrote, reservations it made — so that the hot
   * decisions (reserve, charge, grantCredit, settle) need no read before their write. A remembered
   * fact may be stale (another process wrote since): the write's gate then stays shut and the
   * decision is made again on rows read under lock ({@link PgStore.run}). Nothing is ever refused on
   * remembered facts alone. At most {@link RECENT} of each, the oldest forgotten first.
   */
  private readonly recent = { accounts: new Map<number, rules.AccountFacts>(), reservations: new Map<number, rules.ReservationFacts>() };

  constructor(opts: PgStoreOptions) {
    super();
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
    // nor one that breaks while lent (the server ends it, the network drops): the client emits 'error'
    // besides failing its query, and pg-pool listens only while it is idle — so every client has a
    // listener of its own from its creation (unheard, that event ended `serve` under pg_terminate_backend)
    this.pool.on('connect', (c) => c.on('error', () => { /* the query in progress fails with it; tx() releases the client as broken */ }));
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

  /** {@inheritDoc Store.createAccount} */
  async createAccount(p: { name: string; keyHash: Buffer; passwordHash: string | null; credit: number; expiresAt?: number | null; allowDebt?: boolean; now: number }): Promise<Account> {
    checkName(p.name);
    checkKeyHash('keyHash', p.keyHash);
    checkInteger('credit', p.credit);
    checkInteger('now', p.now);
    if (p.expiresAt !== undefined && p.expiresAt !== null) checkInteger('expiresAt', p.expiresAt);
    return this.tx(async (c) => {
      const r = await c.query(
        `INSERT INTO dk_accounts (name, name_key, key_hash, password_hash, blocked, expires_at, created_at, balance)
         VALUES ($1, $2, $3, $4, FALSE, $5, $6, 0) RETURNING ${ACCOUNT_COLUMNS}`,
        [p.name, foldCase(p.name), p.keyHash, p.passwordHash ?? null, p.expiresAt ?? null, p.now],
      );
      const a = toAccount(this.seen(r.rows[0] as AccountRow));
      if (p.credit === 0) return a;
      const d = rules.grant(toAccountFacts(r.rows[0] as AccountRow), { accountId: a.id, amount: p.credit, note: 'initial credit', allowDebt: p.allowDebt === true });
      if (!d.ok) throw refusalError(d.refusal);
      if (!(await this.apply(c, d.writes, p.now))) throw new EngineError('Internal', 'A new account changed before its initial credit was written.');
      return { ...a, balance: d.balance };
    });
  }

  async accountByKeyHash(keyHash: Buffer): Promise<Account | null> {
    const rows = await this.q<AccountRow>({ name: 'dk_account_by_key', text: `SELECT ${ACCOUNT_COLUMNS} FROM dk_accounts WHERE key_hash = $1`, values: [keyHash] });
    return rows.length ? toAccount(this.seen(rows[0])) : null;
  }

  async accountByName(name: string): Promise<(Account & { passwordHash: string | null }) | null> {
    const rows = await this.q<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM dk_accounts WHERE name_key = $1`, [foldCase(name)]);
    return rows.length ? toAccountWithPassword(this.seen(rows[0])) : null;
  }

  async accountById(id: number): Promise<Account | null> {
    const rows = await this.q<AccountRow>({ name: 'dk_account_by_id', text: `SELECT ${ACCOUNT_COLUMNS} FROM dk_accounts WHERE id = $1`, values: [id] });
    return rows.length ? toAccount(this.seen(rows[0])) : null;
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
    return rows.length ? toAccount(this.seen(rows[0])) : null;
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
    if (rows.length) return toAccount(this.seen(rows[0]));
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

  // ------------------------------------------------------------------ flows: the rows the rules read, and their writes

  /**
   * Runs a flow (flows.ts) first without a transaction or lock — one round trip for its write, plus
   * one per read of what this store does not remember — and, when the write's gate found the rows
   * changed since they were read (or the database broke a deadlock with it), once more in a
   * transaction whose reads lock the rows, where the gate always opens.
   */
  protected async run<T>(make: () => FlowFn<T>): Promise<T> {
    const flow = make();
    if (this.closed) throw closedError(this.location);
    let out: T | typeof CHANGED;
    try {
      out = await this.drive<T>(flow(), this.pool, false);
    } catch (e) {
      if ((e as { code?: string })?.code !== '40P01') throw mapError(e, this.location);
      out = CHANGED;
    }
    if (out !== CHANGED) return out;
    return this.tx(async (c) => {
      const again = await this.drive<T>(flow(), c, true);
      if (again === CHANGED) throw new EngineError('Internal', 'Rows read with locks changed before they were written.');
      return again;
    });
  }

  private async drive<T>(g: Flow<T>, c: Q, lock: boolean): Promise<T | typeof CHANGED> {
    for (let input: unknown; ;) {
      const it = g.next(input);
      if (it.done) return it.value;
      input = await this.step(c, it.value, lock);
      if (input === CHANGED) {
        g.return(undefined as never);
        return CHANGED;
      }
    }
  }

  private async step(c: Q, st: Step, lock: boolean): Promise<unknown> {
    if ('recall' in st) return lock ? undefined : (st.recall === 'account' ? this.recent.accounts : this.recent.reservations).get(st.id);
    if ('apply' in st) return (await this.apply(c, st.apply, st.now)) ?? CHANGED;
    const forUpdate = lock ? ' FOR UPDATE' : '';
    const name = (n: string) => `${n}${lock ? '_locked' : ''}`;
    switch (st.read) {
      case 'account': {
        const a = toAccountFacts((await c.query({ name: name('dk_account_facts'), text: SQL.account + forUpdate, values: [st.id] })).rows[0]);
        if (a) remember(this.recent.accounts, a.id, a);
        return a;
      }
      case 'reservation':
        return toReservationFacts((await c.query({ name: name('dk_reservation_facts'), text: SQL.reservation + forUpdate, values: [st.id] })).rows[0]);
      case 'job':
        return isJobId(st.id) ? toJobOrNull((await c.query({ name: name('dk_job'), text: SQL.job + forUpdate, values: [st.id] })).rows[0]) : null;
      case 'stale': {
        // locked: releasers one at a time; the reservations being settled meanwhile are skipped (their settlement closes them)
        if (lock) await c.query(`SELECT pg_advisory_xact_lock(hashtext($1)::bigint)`, [`dispatchkit.releaseStale.${this.schema ?? ''}`]);
        const r = await c.query({ name: name('dk_open_of_others'), text: SQL.openOfOthers + (lock ? ' ORDER BY r.id FOR UPDATE OF r SKIP LOCKED' : ''), values: [st.instance] });
        return r.rows.map(toStaleCandidate);
      }
    }
  }

  /** Remembers an account row's facts; the row. */
  private seen<R extends AccountRow>(row: R): R {
    const a = toAccountFacts(row)!;
    remember(this.recent.accounts, a.id, a);
    return row;
  }

  /** Writes what a rule decided in one statement ({@link applyStatement}); null (nothing written) when its gate found the rows changed. */
  private async apply(c: Q, w: Writes, now: number): Promise<Applied | null> {
    const r = (await c.query(applyStatement(w, now))).rows[0] as { ok: boolean; balance?: number; reservation_id?: number; entry_id?: number; route_id?: number; job?: JobRow };
    for (const x of w.reservations) this.recent.reservations.delete(x.id);
    if (!r.ok) {
      if (w.guard) this.recent.accounts.delete(w.guard.accountId);
      return null;
    }
    const [change] = balanceChanges(w);
    const a = change && this.recent.accounts.get(change[0]);
    if (a) remember(this.recent.accounts, a.id, { ...a, balance: Number(r.balance) });
    const n = w.newReservation, reservationId = r.reservation_id === undefined ? null : Number(r.reservation_id);
    if (n && reservationId !== null) remember(this.recent.reservations, reservationId, { id: reservationId, accountId: n.accountId, amount: n.amount, operation: n.operation, state: 'open', cost: null });
    return {
      reservationId,
      entryIds: r.entry_id === undefined ? [] : [Number(r.entry_id)],
      routeId: r.route_id === undefined ? null : Number(r.route_id),
      job: r.job ? toJob(r.job) : null,
    };
  }

  private async insertRoute(c: Q, accountId: number, route: NewRoute, now: number): Promise<number> {
    // (a route without its specification is written as every schema version takes it)
    const r = route.spec === undefined
      ? await c.query({ name: 'dk_insert_route', text: SQL.insertRoute, values: [accountId, ...routeValues(route), now, route.result] })
      : await c.query({ name: 'dk_insert_route_spec', text: SQL.insertRouteSpec, values: [accountId, ...routeValues(route), now, route.result, route.spec] });
    return Number(r.rows[0].id);
  }

  // ------------------------------------------------------------------ credit

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

  async usage(accountId: number, limit?: number): Promise<UsageEntry[]> {
    const rows = await this.q<Parameters<typeof toUsageEntry>[0]>({ name: 'dk_usage', text: SQL.usage, values: [accountId, limitOf('limit', limit, DEFAULT_USAGE_LIMIT)] });
    return rows.map(toUsageEntry);
  }

  async audit(accountId?: number): Promise<AccountAudit[]> {
    return (await this.q<AuditRow>({ name: 'dk_audit', text: SQL.audit, values: [accountId ?? null] })).map((r) => rules.audit(toAuditFacts(r)));
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
    const rows = await this.q<RouteRow & { result: string }>(`SELECT ${ROUTE_COLUMNS}, version, result FROM dk_routes WHERE id = $1 AND account_id = $2`, [routeId, accountId]);
    return rows.length ? { route: toRoute(rows[0]), result: rows[0].result } : null;
  }

  async getRouteVersion(accountId: number, routeId: number, version?: number): Promise<RouteVersion | null> {
    if (!Number.isSafeInteger(routeId)) return null;
    const cur = await this.q<VersionRow>(`SELECT ${CURRENT_VERSION_COLUMNS} FROM dk_routes WHERE id = $1 AND account_id = $2`, [routeId, accountId]);
    if (!cur.length || version === undefined || version === Number(cur[0].version)) return cur.length ? toVersion(cur[0]) : null;
    if (!Number.isSafeInteger(version)) return null;
    const old = await this.q<VersionRow>(
      `SELECT v.route_id, v.version, v.spec, v.result, v.changes, v.created_at, r.name, r.owner FROM dk_route_versions v JOIN dk_routes r ON r.id = v.route_id
        WHERE v.route_id = $1 AND r.account_id = $2 AND v.version = $3`, [routeId, accountId, version]);
    return old.length ? toVersion(old[0]) : null;
  }

  async replaceRoute(p: { accountId: number; routeId: number; version: number; route: NewRoute; changes: string; now: number }): Promise<number | 'conflict' | null> {
    checkInteger('now', p.now);
    checkInteger('version', p.version, 1);
    const values = routeValues(p.route);
    return this.tx(async (c) => {
      // the row locked for the transaction: a concurrent replacement of the same version waits, then sees the new one
      const owned = await c.query(`SELECT version FROM dk_routes WHERE id = $1 AND account_id = $2 FOR UPDATE`, [p.routeId, p.accountId]);
      if (!owned.rows.length) return null;
      if (Number(owned.rows[0].version) !== p.version) return 'conflict' as const;
      await c.query(`INSERT INTO dk_route_versions (route_id, version, spec, result, changes, created_at)
        SELECT id, version, spec, result, changes, COALESCE(updated_at, created_at) FROM dk_routes WHERE id = $1`, [p.routeId]);
      const r = await c.query(`UPDATE dk_routes SET version = version + 1, name = $1, name_key = $2, owner = $3, owner_key = $4, distance = $5, time = $6,
        stops = $7, vehicles = $8, result = $9, spec = $10, changes = $11, updated_at = $12 WHERE id = $13 RETURNING version`,
      [...values, p.route.result, p.route.spec ?? null, p.changes, p.now, p.routeId]);
      return Number(r.rows[0].version);
    });
  }

  async addStopEvents(p: { accountId: number; routeId: number; events: readonly StopEvent[]; now: number }): Promise<number | null> {
    checkInteger('now', p.now);
    checkStopEvents(p.events);
    if (!Number.isSafeInteger(p.routeId)) return null;
    return this.tx(async (c) => {
      const owned = await c.query(`SELECT 1 FROM dk_routes WHERE id = $1 AND account_id = $2`, [p.routeId, p.accountId]);
      if (!owned.rows.length) return null;
      if (p.events.length) {
        await c.query(`INSERT INTO dk_stop_events (route_id, vehicle, location, event, ts, created_at)
          SELECT $1::bigint, e.vehicle, e.location, e.event, e.ts, $6::bigint FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[]) AS e(vehicle, location, event, ts)`,
        [p.routeId, p.events.map((e) => e.vehicle), p.events.map((e) => e.location), p.events.map((e) => e.event), p.events.map((e) => e.ts), p.now]);
      }
      return p.events.length;
    });
  }

  async stopEvents(accountId: number, routeId: number): Promise<StopEvent[]> {
    if (!Number.isSafeInteger(routeId)) return [];
    const rows = await this.q<{ vehicle: string; location: string; event: StopEventKind; ts: string }>(
      `SELECT e.vehicle, e.location, e.event, e.ts FROM dk_stop_events e JOIN dk_routes r ON r.id = e.route_id
        WHERE e.route_id = $1 AND r.account_id = $2 ORDER BY e.id`, [routeId, accountId]);
    return rows.map((r) => ({ vehicle: r.vehicle, location: r.location, event: r.event, ts: Number(r.ts) }));
  }

  // ------------------------------------------------------------------ jobs

  /**
   * {@inheritDoc Store.createJob}
   * The id is 1 to 100 characters among A–Z, a–z, 0–9, `-` and `_` (InvalidInput otherwise); the
   * reservation must be an open one of the account (InvalidInput otherwise).
   */
  async createJob(p: NewJob): Promise<JobRecord> {
    checkNewJob(p);
    const reservationId = p.reservationId ?? null;
    return this.tx(async (c) => {
      if (reservationId !== null) {
        const r = toReservationFacts((await c.query({ name: 'dk_reservation_facts_locked', text: SQL.reservation + ' FOR UPDATE', values: [reservationId] })).rows[0]);
        const no = rules.jobReservation(r, { reservationId, accountId: p.accountId });
        if (no) throw jobReservationError(no);
      }
      const r = await c.query({ name: 'dk_insert_job', text: SQL.insertJob, values: [p.id, p.accountId, p.operation, p.spec, reservationId, p.now, p.unitPrice ?? null] });
      return toJob(r.rows[0] as JobRow);
    });
  }

  async getJob(id: string): Promise<JobRecord | null> {
    if (!isJobId(id)) return null;
    const rows = await this.q<JobRow>({ name: 'dk_get_job', text: SQL.job, values: [id] });
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

  // ------------------------------------------------------------------ retention

  /**
   * {@inheritDoc Store.prune}
   * Each batch is one statement (its own transaction). PostgreSQL's autovacuum makes the space of
   * deleted rows reusable; the files shrink only with VACUUM FULL (see docs/store.md).
   */
  prune(p: PruneRequest): Promise<PruneCounts> {
    return pruneInBatches(p, async (kind, before, batch) =>
      (await this.q<{ n: number }>({ name: `dk_prune_${kind}`, text: SQL.prune[kind], values: [before, batch] }))[0].n);
  }
}
