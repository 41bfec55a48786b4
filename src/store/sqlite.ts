/**
 * The embedded backend: one SQLite file through better-sqlite3, WAL mode, `synchronous=FULL`
 * (a resolved write is on disk).
 *
 * Group commit: a commit costs an fsync, so one transaction per write would cap the service at
 * the disk's fsyncs per second. Write methods therefore enqueue a closure; the queue is flushed on
 * the next `setImmediate` (or at once when it holds {@link SqliteStoreOptions.batchLimit} items)
 * as ONE outer transaction (BEGIN IMMEDIATE) in which each closure runs in its own nested
 * transaction (a SAVEPOINT): a closure that throws rolls back only its own writes and rejects only
 * its own promise. Every other promise of the batch resolves after the outer COMMIT returned, so a
 * resolved promise means durable; when the COMMIT fails, every promise of the batch rejects.
 *
 * Reads run at once on the same connection, between batches (JavaScript runs one thing at a
 * time, and a batch runs synchronously from BEGIN to COMMIT), so they see exactly the committed
 * state: a read issued after a write's promise resolved sees the write.
 *
 * The credit and job methods decide nothing themselves: they are the flows of `flows.ts` (read the
 * rows, call the rule of `rules.ts`, write what it decided), each run synchronously in one closure
 * of the group commit ({@link SqliteStore.run}); {@link SqliteStore.apply} writes a decision.
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { EngineError } from '../core/errors.js';
import {
  ACCOUNT_COLUMNS, ACCOUNT_FACTS, DEFAULT_JOB_LIMIT, DEFAULT_LEDGER_LIMIT, DEFAULT_TRACK_LIMIT, DEFAULT_USAGE_LIMIT, JOB_COLUMNS,
  CURRENT_VERSION_COLUMNS, OLD_VERSION_COLUMNS, checkStopEvents, toVersion, type VersionRow,
  LEDGER_COLUMNS, RESERVATION_FACTS, ROUTE_COLUMNS, STALE_FACTS, USAGE_COLUMNS, changedMeanwhile, checkInteger, checkKeyHash, checkName,
  checkNewJob, checkTrackPoints, closedError, foldCase, isJobId, isProgrammingError, jobExists, limitOf, newerDatabase, pruneInBatches,
  routeFilterSql, routeValues, toAccount, toAccountFacts, toAccountWithPassword, toAuditFacts, toJob, toJobOrNull, toLedgerEntry,
  toReservationFacts, toRoute, toStaleCandidate, toUsageEntry, type AccountRow, type AuditRow, type JobRow, type LedgerRow,
  type ReservationRow, type RouteRow,
} from './common.js';
import { MIGRATIONS, MIGRATIONS_TABLE, SCHEMA_VERSION } from './migrations.js';
import * as rules from './rules.js';
import { FlowStore, type Applied, type FlowFn, type Step } from './flows.js';
import { FINISHED_JOB_STATES, NEW_RESERVATION, balanceChanges, jobReservationError, refusalError, type Writes } from './rules.js';
import type { Account, AccountAudit, JobRecord, LedgerEntry, NewJob, NewRoute, PruneCounts, PruneRequest, RouteFilter, RouteVersion, StopEvent, StopEventKind, Store, StoredRoute, TrackPoint, UsageEntry } from './types.js';

export interface SqliteStoreOptions {
  /** Flush the write queue at once when it holds this many closures (default 256). */
  batchLimit?: number;
  /** How long to wait for another process's lock, ms (default 5000). */
  busyTimeoutMs?: number;
}

interface Job {
  fn: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** A SQLite failure as the Store reports it: a taken name or key is Conflict, anything else Storage. */
function mapError(e: unknown, location: string): unknown {
  if (isProgrammingError(e)) return e;
  if (e instanceof Database.SqliteError) {
    if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      if (/dk_accounts\.name_key/.test(e.message)) return new EngineError('Conflict', 'An account with this name exists (names are unique ignoring case).', { cause: e });
      if (/dk_accounts\.key_hash/.test(e.message)) return new EngineError('Conflict', 'This key is already in use by another account.', { cause: e });
      if (/dk_sessions\.key_hash/.test(e.message)) return new EngineError('Conflict', 'This session key is already in use.', { cause: e });
      if (/dk_jobs\.id/.test(e.message)) return jobExists(e);
      return new EngineError('Conflict', `The database refused a duplicate: ${e.message}`, { cause: e });
    }
    return new EngineError('Storage', `SQLite database ${location}: ${e.message} (${e.code})`, { cause: e, details: { code: e.code } });
  }
  const msg = e instanceof Error ? e.message : String(e);
  return new EngineError('Storage', `SQLite database ${location}: ${msg}`, { cause: e });
}

function prepareStatements(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    accountById: p(`SELECT ${ACCOUNT_COLUMNS} FROM dk_accounts WHERE id = ?`),
    accountByKeyHash: p(`SELECT ${ACCOUNT_COLUMNS} FROM dk_accounts WHERE key_hash = ?`),
    accountByNameKey: p(`SELECT ${ACCOUNT_COLUMNS} FROM dk_accounts WHERE name_key = ?`),
    listAccounts: p(`SELECT ${ACCOUNT_COLUMNS} FROM dk_accounts ORDER BY name_key, id`),
    insertAccount: p(`INSERT INTO dk_accounts (name, name_key, key_hash, password_hash, blocked, expires_at, created_at, balance)
      VALUES (?, ?, ?, ?, 0, ?, ?, 0)`),
    accountFacts: p(`SELECT ${ACCOUNT_FACTS} FROM dk_accounts WHERE id = ?`),
    updateAccount: p(`UPDATE dk_accounts SET
        blocked = CASE WHEN @setBlocked THEN @blocked ELSE blocked END,
        key_hash = CASE WHEN @setKey THEN @keyHash ELSE key_hash END,
        password_hash = CASE WHEN @setPassword THEN @passwordHash ELSE password_hash END,
        expires_at = CASE WHEN @setExpires THEN @expiresAt ELSE expires_at END
      WHERE name_key = @nameKey RETURNING ${ACCOUNT_COLUMNS}`),
    addBalance: p(`UPDATE dk_accounts SET balance = balance + ? WHERE id = ?`),
    insertLedger: p(`INSERT INTO dk_ledger (account_id, delta, kind, note, reservation_id, created_at) VALUES (?, ?, ?, ?, ?, ?)`),
    balance: p(`SELECT balance FROM dk_accounts WHERE id = ?`),
    ledgerSum: p(`SELECT COALESCE(SUM(delta), 0) AS s FROM dk_ledger WHERE account_id = ?`),
    ledger: p(`SELECT ${LEDGER_COLUMNS} FROM dk_ledger WHERE account_id = ? ORDER BY id DESC LIMIT ?`),

    insertSession: p(`INSERT INTO dk_sessions (key_hash, account_id, created_at, last_used) VALUES (?, ?, ?, ?)`),
    sessionExists: p(`SELECT 1 FROM dk_sessions WHERE key_hash = ?`),
    touchSession: p(`UPDATE dk_sessions SET last_used = max(last_used, @now) WHERE key_hash = @key AND last_used > @cutoff RETURNING account_id`),
    deleteExpiredSession: p(`DELETE FROM dk_sessions WHERE key_hash = ? AND last_used <= ?`),
    deleteSession: p(`DELETE FROM dk_sessions WHERE key_hash = ?`),
    deleteAccountSessions: p(`DELETE FROM dk_sessions WHERE account_id = ?`),

    insertReservation: p(`INSERT INTO dk_reservations (account_id, amount, operation, instance, state, created_at) VALUES (?, ?, ?, ?, 'open', ?)`),
    reservation: p(`SELECT ${RESERVATION_FACTS} FROM dk_reservations r WHERE r.id = ?`),
    setReservation: p(`UPDATE dk_reservations SET state = ?, cost = ? WHERE id = ? AND state = ?`),
    // the open reservations of other instances; which are stale is the rule's (rules.isStale)
    openReservations: p(`SELECT count(*) AS n FROM dk_reservations WHERE state = 'open'`),
    heartbeat: p(`INSERT INTO dk_instances (id, heartbeat) VALUES (?, ?)
      ON CONFLICT (id) DO UPDATE SET heartbeat = max(heartbeat, excluded.heartbeat)`),

    insertRoute: p(`INSERT INTO dk_routes (account_id, name, name_key, owner, owner_key, distance, time, stops, vehicles, created_at, result)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    getRoute: p(`SELECT ${ROUTE_COLUMNS}, result FROM dk_routes WHERE id = ? AND account_id = ?`),

    insertTrackPoint: p(`INSERT INTO dk_track_points (account_id, track, ts, lat, lon) VALUES (?, ?, ?, ?, ?)`),
    getTrack: p(`SELECT ts, lat, lon FROM dk_track_points WHERE account_id = ? AND track = ? AND ts >= ? AND ts <= ? ORDER BY ts, id LIMIT ?`),
  };
}

type Statements = ReturnType<typeof prepareStatements>;

/** Statements of schema version 5 (route versions, stop events), prepared at their first use. */
function prepareLiveStatements(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    insertRoute: p(`INSERT INTO dk_routes (account_id, name, name_key, owner, owner_key, distance, time, stops, vehicles, created_at, result, spec)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    getRoute: p(`SELECT ${ROUTE_COLUMNS}, version, result FROM dk_routes WHERE id = ? AND account_id = ?`),
    currentVersion: p(`SELECT ${CURRENT_VERSION_COLUMNS} FROM dk_routes WHERE id = ? AND account_id = ?`),
    oldVersion: p(`SELECT v.${OLD_VERSION_COLUMNS.split(', ').join(', v.')}, r.name, r.owner FROM dk_route_versions v JOIN dk_routes r ON r.id = v.route_id
      WHERE v.route_id = ? AND r.account_id = ? AND v.version = ?`),
    keepVersion: p(`INSERT INTO dk_route_versions (route_id, version, spec, result, changes, created_at)
      SELECT id, version, spec, result, changes, COALESCE(updated_at, created_at) FROM dk_routes WHERE id = ? AND account_id = ? AND version = ?`),
    replaceRoute: p(`UPDATE dk_routes SET version = version + 1, name = ?, name_key = ?, owner = ?, owner_key = ?, distance = ?, time = ?, stops = ?,
      vehicles = ?, result = ?, spec = ?, changes = ?, updated_at = ? WHERE id = ? AND account_id = ? AND version = ? RETURNING version`),
    routeOwned: p(`SELECT version FROM dk_routes WHERE id = ? AND account_id = ?`),
    insertStopEvent: p(`INSERT INTO dk_stop_events (route_id, vehicle, location, event, ts, created_at) VALUES (?, ?, ?, ?, ?, ?)`),
    stopEvents: p(`SELECT e.vehicle, e.location, e.event, e.ts FROM dk_stop_events e JOIN dk_routes r ON r.id = e.route_id
      WHERE e.route_id = ? AND r.account_id = ? ORDER BY e.id`),
  };
}

type LiveStatements = ReturnType<typeof prepareLiveStatements>;

/** The statements of `dk_jobs` (migration 2), prepared on first use: a database at version 1 (tests of upgrades) can still use the others. */
function prepareJobStatements(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    // here, not with the ledger's: it reads dk_jobs (schema version 2)
    openOfOthers: p(`SELECT ${STALE_FACTS} FROM dk_reservations r LEFT JOIN dk_instances i ON i.id = r.instance
      WHERE r.state = 'open' AND r.instance <> ?`),
    insertJob: p(`INSERT INTO dk_jobs (id, account_id, operation, spec, state, reservation_id, attempts, cost, created_at, updated_at, unit_price, priority)
      VALUES (@id, @accountId, @operation, @spec, 'queued', @reservationId, 0, 0, @now, @now, @unitPrice,
        (SELECT max(count(*) + 1, coalesce(max(priority), 1)) FROM dk_jobs WHERE account_id = @accountId AND state IN ('queued', 'active')))
      RETURNING ${JOB_COLUMNS}`),
    getJob: p(`SELECT ${JOB_COLUMNS} FROM dk_jobs WHERE id = ?`),
    startJob: p(`UPDATE dk_jobs SET state = 'active', attempts = attempts + 1, updated_at = ?
      WHERE id = ? AND state IN ('queued', 'active') RETURNING ${JOB_COLUMNS}`),
    touchJob: p(`UPDATE dk_jobs SET updated_at = ? WHERE id = ? AND state IN ('queued', 'active')`),
    endJob: p(`UPDATE dk_jobs SET state = @state, result = @result, error = @error, route_id = @routeId, cost = @cost, updated_at = @now, finished_at = @now
      WHERE id = @id AND state IN ('queued', 'active') RETURNING ${JOB_COLUMNS}`),
    pendingJobs: p(`SELECT ${JOB_COLUMNS} FROM dk_jobs WHERE state IN ('queued', 'active') AND updated_at <= ?
      ORDER BY updated_at, created_at, id LIMIT ?`),
    // retention (Store.prune): one batch each, by the indexes of migration 4
    prune: {
      jobs: p(`DELETE FROM dk_jobs WHERE id IN (SELECT j.id FROM dk_jobs j WHERE j.finished_at < ? AND j.state IN (${FINISHED})
        AND NOT EXISTS (SELECT 1 FROM dk_reservations r WHERE r.id = j.reservation_id AND r.state = 'open') LIMIT ?)`),
      routes: p(`DELETE FROM dk_routes WHERE id IN (SELECT r.id FROM dk_routes r WHERE r.created_at < ?
        AND NOT EXISTS (SELECT 1 FROM dk_jobs j WHERE j.route_id = r.id) LIMIT ?)`),
      tracks: p(`DELETE FROM dk_track_points WHERE id IN (SELECT id FROM dk_track_points WHERE ts < ? LIMIT ?)`),
    },
  };
}

/** The finished job states, as SQL (rules.FINISHED_JOB_STATES). */
const FINISHED = FINISHED_JOB_STATES.map((x) => `'${x}'`).join(', ');

/** Pages given back per incremental-vacuum step (4 KiB each: 8 MiB), one short write each. */
const VACUUM_PAGES = 2048;

type JobStatements = ReturnType<typeof prepareJobStatements>;

/** The statements of `dk_usage` (migration 3), prepared on first use (as the jobs'). */
function prepareUsageStatements(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    insertUsage: p(`INSERT INTO dk_usage (account_id, operation, units, unit_price, cost, reservation_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`),
    usage: p(`SELECT ${USAGE_COLUMNS} FROM dk_usage WHERE account_id = ? ORDER BY id DESC LIMIT ?`),
    // per account, split at the epoch: an entry of a reservation by the reservation's id, another by its own
    audit: p(`WITH e AS (SELECT COALESCE(MAX(ledger_id), 0) AS l, COALESCE(MAX(reservation_id), 0) AS r FROM dk_usage_epoch),
      led AS (SELECT account_id, delta, kind <> 'grant' AS taken,
          CASE WHEN reservation_id IS NULL THEN id > (SELECT l FROM e) ELSE reservation_id > (SELECT r FROM e) END AS rec
        FROM dk_ledger WHERE @id IS NULL OR account_id = @id),
      l AS (SELECT account_id, SUM(delta) AS total, SUM(CASE WHEN taken AND rec THEN -delta ELSE 0 END) AS taken_rec,
          SUM(CASE WHEN taken AND NOT rec THEN -delta ELSE 0 END) AS taken_old
        FROM led GROUP BY account_id),
      o AS (SELECT account_id, SUM(CASE WHEN id > (SELECT r FROM e) THEN amount ELSE 0 END) AS open_rec,
          SUM(CASE WHEN id > (SELECT r FROM e) THEN 0 ELSE amount END) AS open_old
        FROM dk_reservations WHERE state = 'open' AND (@id IS NULL OR account_id = @id) GROUP BY account_id),
      u AS (SELECT account_id, SUM(CASE WHEN reservation_id IS NULL OR reservation_id > (SELECT r FROM e) THEN cost ELSE 0 END) AS usage_rec,
          SUM(CASE WHEN reservation_id IS NULL OR reservation_id > (SELECT r FROM e) THEN 0 ELSE cost END) AS usage_old
        FROM dk_usage WHERE @id IS NULL OR account_id = @id GROUP BY account_id)
      SELECT a.id, a.name, a.balance, COALESCE(l.total, 0) AS ledger_sum, COALESCE(l.taken_rec, 0) AS taken_rec, COALESCE(l.taken_old, 0) AS taken_old,
        COALESCE(o.open_rec, 0) AS open_rec, COALESCE(o.open_old, 0) AS open_old, COALESCE(u.usage_rec, 0) AS usage_rec, COALESCE(u.usage_old, 0) AS usage_old
      FROM dk_accounts a LEFT JOIN l ON l.account_id = a.id LEFT JOIN o ON o.account_id = a.id LEFT JOIN u ON u.account_id = a.id
      WHERE @id IS NULL OR a.id = @id ORDER BY a.name_key, a.id`),
  };
}

type UsageStatements = ReturnType<typeof prepareUsageStatements>;

export class SqliteStore extends FlowStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly location: string;
  private readonly db: Database.Database;
  private readonly batchLimit: number;
  private stmts: Statements | null = null;
  private jobStmts: JobStatements | null = null;
  private usageStmts: UsageStatements | null = null;
  private readonly routeListStmts = new Map<string, Database.Statement>();
  private queue: Job[] = [];
  private scheduled = false;
  private closed = false;
  private readonly runBatch: (jobs: Job[], out: Outcome[]) => void;
  private readonly nested: (fn: () => unknown) => unknown;

  /**
   * Opens (creating when absent) the database file at `path` (`:memory:` for a private in-memory
   * database). Its folder must exist: Storage otherwise. Call {@link migrate} before use.
   */
  constructor(path: string, opts: SqliteStoreOptions = {}) {
    super();
    const memory = path === ':memory:' || path === '';
    this.location = memory ? 'sqlite::memory:' : `sqlite:${resolve(path)}`;
    this.batchLimit = Math.max(1, opts.batchLimit ?? 256);
    if (!memory && !path.startsWith('file:')) {
      const dir = dirname(resolve(path));
      if (!existsSync(dir)) throw new EngineError('Storage', `Cannot open the database ${resolve(path)}: the folder ${dir} does not exist.`, { details: { path: resolve(path) } });
    }
    try {
      this.db = new Database(memory ? ':memory:' : path);
    } catch (e) {
      throw new EngineError('Storage', `Cannot open the database ${this.location}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    try {
      this.db.pragma(`busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
      // a new file gives pages freed by prune back to the file system (set before anything is written; a no-op on an older file)
      this.db.pragma('auto_vacuum = INCREMENTAL');
      if (!memory) {
        const mode = String(this.db.pragma('journal_mode = WAL', { simple: true })).toLowerCase();
        if (mode !== 'wal') throw new EngineError('Storage', `could not switch ${this.location} to WAL mode (journal_mode is ${mode})`);
      }
      this.db.pragma('synchronous = FULL');
      this.db.pragma('foreign_keys = ON');
    } catch (e) {
      this.db.close();
      throw mapError(e, this.location);
    }
    const db = this.db;
    this.nested = db.transaction((fn: () => unknown) => fn());
    const batch = db.transaction((jobs: Job[], out: Outcome[]) => {
      for (let i = 0; i < jobs.length; i++) {
        try {
          out[i] = { ok: true, value: this.nested(jobs[i].fn) };
        } catch (e) {
          // SQLite rolls back the whole transaction on some errors (I/O, full disk): then the batch fails as a whole
          if (!db.inTransaction) throw e;
          out[i] = { ok: false, error: mapError(e, this.location) };
        }
      }
    });
    this.runBatch = (jobs, out) => batch.immediate(jobs, out);
  }

  private get s(): Statements {
    if (this.closed) throw closedError(this.location);
    return (this.stmts ??= prepareStatements(this.db));
  }

  private get js(): JobStatements {
    if (this.closed) throw closedError(this.location);
    return (this.jobStmts ??= prepareJobStatements(this.db));
  }

  private liveStmts: LiveStatements | undefined;
  private get ls(): LiveStatements {
    if (this.closed) throw closedError(this.location);
    return (this.liveStmts ??= prepareLiveStatements(this.db));
  }

  private get us(): UsageStatements {
    if (this.closed) throw closedError(this.location);
    return (this.usageStmts ??= prepareUsageStatements(this.db));
  }

  // ------------------------------------------------------------------ group commit

  /** Queues `fn` to run in the next group-committed transaction; resolves after the COMMIT. */
  private write<T>(fn: () => T): Promise<T> {
    if (this.closed) return Promise.reject(closedError(this.location));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (this.queue.length >= this.batchLimit) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.flushSoon);
      }
    });
  }

  private readonly flushSoon = (): void => {
    this.scheduled = false;
    this.flush();
  };

  /** Runs the queued closures in one transaction, then settles their promises. */
  private flush(): void {
    const jobs = this.queue;
    if (jobs.length === 0) return;
    this.queue = [];
    const out: Outcome[] = new Array(jobs.length);
    try {
      this.runBatch(jobs, out);
    } catch (e) {
      const err = mapError(e, this.location);
      for (let i = 0; i < jobs.length; i++) jobs[i].reject(out[i] && !out[i].ok ? (out[i] as { error: unknown }).error : err);
      return;
    }
    for (let i = 0; i < jobs.length; i++) {
      const o = out[i];
      if (o.ok) jobs[i].resolve(o.value);
      else jobs[i].reject(o.error);
    }
  }

  /** Runs a read at once (committed state). */
  private read<T>(fn: () => T): Promise<T> {
    if (this.closed) return Promise.reject(closedError(this.location));
    try {
      return Promise.resolve(fn());
    } catch (e) {
      return Promise.reject(mapError(e, this.location));
    }
  }

  // ------------------------------------------------------------------ lifecycle

  private readVersion(): number {
    const t = this.db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(MIGRATIONS_TABLE);
    if (!t) return 0;
    const r = this.db.prepare(`SELECT COALESCE(MAX(version), 0) AS v FROM ${MIGRATIONS_TABLE}`).get() as { v: number };
    return Number(r.v);
  }

  /**
   * {@inheritDoc Store.migrate}
   * `upTo` (tests of upgrades): apply only the migrations up to that version, leaving an older database.
   */
  async migrate(opts: { upTo?: number } = {}): Promise<{ from: number; to: number }> {
    if (this.closed) throw closedError(this.location);
    const upTo = opts.upTo ?? SCHEMA_VERSION;
    this.flush();
    let from: number;
    try {
      from = this.db.transaction(() => this.readVersion()).immediate();
    } catch (e) {
      throw mapError(e, this.location);
    }
    if (from > SCHEMA_VERSION) throw newerDatabase(this.location, from);
    for (const m of MIGRATIONS) {
      if (m.version <= from) continue;
      if (m.version > upTo) break;
      try {
        // BEGIN IMMEDIATE takes the write lock first: a second process opening the file waits, then sees the version and skips
        this.db.transaction(() => {
          const v = this.readVersion();
          if (v > SCHEMA_VERSION) throw newerDatabase(this.location, v);
          if (v >= m.version) return;
          for (const sql of m.sqlite) this.db.exec(sql);
          this.db.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (version, description, applied_at) VALUES (?, ?, ?)`).run(m.version, m.description, Date.now());
        }).immediate();
      } catch (e) {
        if (e instanceof EngineError) throw e;
        throw new EngineError('Storage', `Migration ${m.version} (${m.description}) of ${this.location} failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e, details: { version: m.version } });
      }
    }
    this.stmts = null; // the schema may have changed
    this.jobStmts = null;
    this.usageStmts = null;
    return { from, to: await this.schemaVersion() };
  }

  schemaVersion(): Promise<number> {
    return this.read(() => this.readVersion());
  }

  ping(): Promise<void> {
    return this.read(() => {
      this.db.prepare('SELECT 1').get();
    });
  }

  /** Commits what is queued, then closes the database. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    this.stmts = null;
    this.jobStmts = null;
    this.usageStmts = null;
    this.routeListStmts.clear();
    this.db.close();
  }

  // ------------------------------------------------------------------ flows: the rows the rules read, and their writes

  /** Runs a flow (flows.ts) synchronously in one closure of the group commit: its reads and its writes are one transaction. */
  protected run<T>(make: () => FlowFn<T>): Promise<T> {
    let flow: FlowFn<T>;
    try {
      flow = make();
    } catch (e) {
      return Promise.reject(e);
    }
    return this.write(() => {
      const g = flow();
      for (let input: unknown; ;) {
        const { value, done } = g.next(input);
        if (done) return value;
        input = this.step(value);
      }
    });
  }

  private step(st: Step): unknown {
    if ('apply' in st) return this.apply(st.apply, st.now);
    // nothing is remembered here: a recall is a read, fresh in this very transaction
    if ('recall' in st) return this.facts(st.recall, st.id);
    switch (st.read) {
      case 'account':
      case 'reservation': return this.facts(st.read, st.id);
      case 'job': return isJobId(st.id) ? toJobOrNull(this.js.getJob.get(st.id) as JobRow | undefined) : null;
      case 'stale': return (this.js.openOfOthers.all(st.instance) as Parameters<typeof toStaleCandidate>[0][]).map(toStaleCandidate);
    }
  }

  private facts(what: 'account' | 'reservation', id: number): rules.AccountFacts | rules.ReservationFacts | null {
    return what === 'account'
      ? toAccountFacts(this.s.accountFacts.get(id) as AccountRow | undefined)
      : toReservationFacts(this.s.reservation.get(id) as ReservationRow | undefined);
  }

  /**
   * Writes what a rule decided, in the running write: the new reservation, the reservations'
   * changes (each conditional on the state the rule saw), the ledger entries, each account's
   * balance changed by the sum of its entries, the usage, the route, the job's end.
   */
  private apply(w: Writes, now: number): Applied {
    const s = this.s;
    let reservationId: number | null = null;
    if (w.newReservation) {
      const n = w.newReservation;
      reservationId = Number(s.insertReservation.run(n.accountId, n.amount, n.operation, n.instance, now).lastInsertRowid);
    }
    for (const r of w.reservations) if (s.setReservation.run(r.to, r.cost, r.id, r.from).changes !== 1) throw changedMeanwhile(r.id);
    const entryIds: number[] = [];
    for (const e of w.entries) {
      entryIds.push(Number(s.insertLedger.run(e.accountId, e.delta, e.kind, e.note, e.reservationId === NEW_RESERVATION ? reservationId : e.reservationId, now).lastInsertRowid));
    }
    for (const [id, delta] of balanceChanges(w)) s.addBalance.run(delta, id);
    const u = w.usage;
    if (u) this.us.insertUsage.run(u.accountId, u.operation, u.units, u.unitPrice, u.cost, u.reservationId, now);
    const routeId = w.route ? this.insertRoute(w.route.accountId, w.route.route, now) : null;
    const job = w.job ? toJob(this.js.endJob.get({ ...w.job, routeId, now }) as JobRow) : null;
    return { reservationId, entryIds, routeId, job };
  }

  private insertRoute(accountId: number, route: NewRoute, now: number): number {
    // (a route without its specification is written as every schema version takes it)
    if (route.spec === undefined) return Number(this.s.insertRoute.run(accountId, ...routeValues(route), now, route.result).lastInsertRowid);
    return Number(this.ls.insertRoute.run(accountId, ...routeValues(route), now, route.result, route.spec).lastInsertRowid);
  }

  // ------------------------------------------------------------------ accounts

  private account(id: number): Account | null {
    const r = this.s.accountById.get(id) as AccountRow | undefined;
    return r ? toAccount(r) : null;
  }

  /** {@inheritDoc Store.createAccount} */
  async createAccount(p: { name: string; keyHash: Buffer; passwordHash: string | null; credit: number; expiresAt?: number | null; allowDebt?: boolean; now: number }): Promise<Account> {
    checkName(p.name);
    checkKeyHash('keyHash', p.keyHash);
    checkInteger('credit', p.credit);
    checkInteger('now', p.now);
    if (p.expiresAt !== undefined && p.expiresAt !== null) checkInteger('expiresAt', p.expiresAt);
    return this.write(() => {
      const id = Number(this.s.insertAccount.run(p.name, foldCase(p.name), p.keyHash, p.passwordHash ?? null, p.expiresAt ?? null, p.now).lastInsertRowid);
      if (p.credit !== 0) {
        const d = rules.grant({ id, balance: 0, blocked: false, expiresAt: p.expiresAt ?? null }, { accountId: id, amount: p.credit, note: 'initial credit', allowDebt: p.allowDebt === true });
        if (!d.ok) throw refusalError(d.refusal);
        this.apply(d.writes, p.now);
      }
      return this.account(id)!;
    });
  }

  accountByKeyHash(keyHash: Buffer): Promise<Account | null> {
    return this.read(() => {
      const r = this.s.accountByKeyHash.get(keyHash) as AccountRow | undefined;
      return r ? toAccount(r) : null;
    });
  }

  accountByName(name: string): Promise<(Account & { passwordHash: string | null }) | null> {
    return this.read(() => {
      const r = this.s.accountByNameKey.get(foldCase(name)) as AccountRow | undefined;
      return r ? toAccountWithPassword(r) : null;
    });
  }

  accountById(id: number): Promise<Account | null> {
    return this.read(() => this.account(id));
  }

  listAccounts(): Promise<Account[]> {
    return this.read(() => (this.s.listAccounts.all() as AccountRow[]).map(toAccount));
  }

  async updateAccount(name: string, patch: { blocked?: boolean; keyHash?: Buffer; passwordHash?: string | null; expiresAt?: number | null }): Promise<Account | null> {
    if (patch.keyHash !== undefined) checkKeyHash('keyHash', patch.keyHash);
    if (patch.expiresAt !== undefined && patch.expiresAt !== null) checkInteger('expiresAt', patch.expiresAt);
    return this.write(() => {
      const r = this.s.updateAccount.get({
        nameKey: foldCase(name),
        setBlocked: patch.blocked !== undefined ? 1 : 0, blocked: patch.blocked ? 1 : 0,
        setKey: patch.keyHash !== undefined ? 1 : 0, keyHash: patch.keyHash ?? null,
        setPassword: patch.passwordHash !== undefined ? 1 : 0, passwordHash: patch.passwordHash ?? null,
        setExpires: patch.expiresAt !== undefined ? 1 : 0, expiresAt: patch.expiresAt ?? null,
      }) as AccountRow | undefined;
      // a new key or password ends the account's Login sessions
      if (r && (patch.keyHash !== undefined || patch.passwordHash !== undefined)) this.s.deleteAccountSessions.run(r.id);
      return r ? toAccount(r) : null;
    });
  }

  // ------------------------------------------------------------------ Login sessions

  async createSession(p: { keyHash: Buffer; accountId: number; now: number }): Promise<void> {
    checkKeyHash('keyHash', p.keyHash);
    checkInteger('now', p.now);
    return this.write(() => {
      this.s.insertSession.run(p.keyHash, p.accountId, p.now, p.now);
    });
  }

  touchSession(keyHash: Buffer, now: number, ttlMs: number): Promise<Account | null> {
    // unknown keys (every wrong API key comes here) are answered without a write
    if (this.closed) return Promise.reject(closedError(this.location));
    try {
      if (this.s.sessionExists.get(keyHash) === undefined) return Promise.resolve(null);
    } catch (e) {
      return Promise.reject(mapError(e, this.location));
    }
    const cutoff = now - ttlMs;
    return this.write(() => {
      const s = this.s;
      const r = s.touchSession.get({ key: keyHash, now, cutoff }) as { account_id: number } | undefined;
      if (!r) {
        s.deleteExpiredSession.run(keyHash, cutoff);
        return null;
      }
      return this.account(r.account_id);
    });
  }

  deleteSession(keyHash: Buffer): Promise<boolean> {
    return this.write(() => this.s.deleteSession.run(keyHash).changes > 0);
  }

  // ------------------------------------------------------------------ credit

  async storeRoute(p: { accountId: number; route: NewRoute; now: number }): Promise<number> {
    checkInteger('now', p.now);
    routeValues(p.route);
    return this.write(() => this.insertRoute(p.accountId, p.route, p.now));
  }

  heartbeat(instance: string, now: number): Promise<void> {
    return this.write(() => {
      this.s.heartbeat.run(instance, now);
    });
  }

  balance(accountId: number): Promise<number | null> {
    return this.read(() => {
      const r = this.s.balance.get(accountId) as { balance: number } | undefined;
      return r ? Number(r.balance) : null;
    });
  }

  ledgerSum(accountId: number): Promise<number> {
    return this.read(() => Number((this.s.ledgerSum.get(accountId) as { s: number }).s));
  }

  ledger(accountId: number, limit?: number): Promise<LedgerEntry[]> {
    return this.read(() => (this.s.ledger.all(accountId, limitOf('limit', limit, DEFAULT_LEDGER_LIMIT)) as LedgerRow[]).map(toLedgerEntry));
  }

  openReservations(): Promise<number> {
    return this.read(() => Number((this.s.openReservations.get() as { n: number }).n));
  }

  usage(accountId: number, limit?: number): Promise<UsageEntry[]> {
    return this.read(() => (this.us.usage.all(accountId, limitOf('limit', limit, DEFAULT_USAGE_LIMIT)) as Parameters<typeof toUsageEntry>[0][]).map(toUsageEntry));
  }

  audit(accountId?: number): Promise<AccountAudit[]> {
    return this.read(() => (this.us.audit.all({ id: accountId ?? null }) as AuditRow[]).map((r) => rules.audit(toAuditFacts(r))));
  }

  // ------------------------------------------------------------------ stored routes

  listRoutes(accountId: number, f: RouteFilter = {}): Promise<StoredRoute[]> {
    return this.read(() => {
      const params: unknown[] = [accountId];
      const { where, limit } = routeFilterSql(f, (v) => (params.push(v), '?'), (col, p) => `instr(${col}, ${p}) > 0`);
      params.push(limit);
      let st = this.routeListStmts.get(where);
      if (!st) {
        st = this.db.prepare(`SELECT ${ROUTE_COLUMNS} FROM dk_routes WHERE account_id = ?${where} ORDER BY created_at DESC, id DESC LIMIT ?`);
        this.routeListStmts.set(where, st);
      }
      return (st.all(...params) as RouteRow[]).map(toRoute);
    });
  }

  getRoute(accountId: number, routeId: number): Promise<{ route: StoredRoute; result: string } | null> {
    return this.read(() => {
      const r = this.ls.getRoute.get(routeId, accountId) as (RouteRow & { result: string }) | undefined;
      return r ? { route: toRoute(r), result: r.result } : null;
    });
  }

  getRouteVersion(accountId: number, routeId: number, version?: number): Promise<RouteVersion | null> {
    return this.read(() => {
      const cur = this.ls.currentVersion.get(routeId, accountId) as VersionRow | undefined;
      if (!cur || version === undefined || version === Number(cur.version)) return cur ? toVersion(cur) : null;
      const old = this.ls.oldVersion.get(routeId, accountId, version) as VersionRow | undefined;
      return old ? toVersion(old) : null;
    });
  }

  async replaceRoute(p: { accountId: number; routeId: number; version: number; route: NewRoute; changes: string; now: number }): Promise<number | 'conflict' | null> {
    checkInteger('now', p.now);
    checkInteger('version', p.version, 1);
    const values = routeValues(p.route);
    return this.write(() => {
      const owned = this.ls.routeOwned.get(p.routeId, p.accountId) as { version: number } | undefined;
      if (!owned) return null;
      if (Number(owned.version) !== p.version) return 'conflict';
      this.ls.keepVersion.run(p.routeId, p.accountId, p.version);
      const r = this.ls.replaceRoute.get(...values, p.route.result, p.route.spec ?? null, p.changes, p.now, p.routeId, p.accountId, p.version) as { version: number } | undefined;
      return r ? Number(r.version) : 'conflict';
    });
  }

  async addStopEvents(p: { accountId: number; routeId: number; events: readonly StopEvent[]; now: number }): Promise<number | null> {
    checkInteger('now', p.now);
    checkStopEvents(p.events);
    return this.write(() => {
      if (!this.ls.routeOwned.get(p.routeId, p.accountId)) return null;
      for (const e of p.events) this.ls.insertStopEvent.run(p.routeId, e.vehicle, e.location, e.event, e.ts, p.now);
      return p.events.length;
    });
  }

  stopEvents(accountId: number, routeId: number): Promise<StopEvent[]> {
    return this.read(() => (this.ls.stopEvents.all(routeId, accountId) as { vehicle: string; location: string; event: StopEventKind; ts: number }[])
      .map((r) => ({ vehicle: r.vehicle, location: r.location, event: r.event, ts: Number(r.ts) })));
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
    return this.write(() => {
      if (reservationId !== null) {
        const no = rules.jobReservation(toReservationFacts(this.s.reservation.get(reservationId) as ReservationRow | undefined), { reservationId, accountId: p.accountId });
        if (no) throw jobReservationError(no);
      }
      return toJob(this.js.insertJob.get({ id: p.id, accountId: p.accountId, operation: p.operation, spec: p.spec, reservationId, now: p.now, unitPrice: p.unitPrice ?? null }) as JobRow);
    });
  }

  getJob(id: string): Promise<JobRecord | null> {
    return this.read(() => {
      if (!isJobId(id)) return null;
      const r = this.js.getJob.get(id) as JobRow | undefined;
      return r ? toJob(r) : null;
    });
  }

  async startJob(id: string, now: number): Promise<JobRecord | null> {
    checkInteger('now', now);
    if (!isJobId(id)) return this.read(() => null);
    return this.write(() => {
      const r = this.js.startJob.get(now, id) as JobRow | undefined;
      return r ? toJob(r) : null;
    });
  }

  async touchJob(id: string, now: number): Promise<void> {
    checkInteger('now', now);
    if (!isJobId(id)) return this.read(() => undefined);
    return this.write(() => {
      this.js.touchJob.run(now, id);
    });
  }

  pendingJobs(p: { before: number; limit?: number }): Promise<JobRecord[]> {
    return this.read(() => {
      checkInteger('before', p.before);
      return (this.js.pendingJobs.all(p.before, limitOf('limit', p.limit, DEFAULT_JOB_LIMIT)) as JobRow[]).map(toJob);
    });
  }

  // ------------------------------------------------------------------ GPS tracks

  async addTrackPoints(p: { accountId: number; track: string; points: readonly TrackPoint[]; now: number }): Promise<number> {
    checkTrackPoints(p.points);
    if (p.points.length === 0) return this.read(() => 0);
    return this.write(() => {
      const ins = this.s.insertTrackPoint;
      for (const pt of p.points) ins.run(p.accountId, p.track, pt.ts, pt.lat, pt.lon);
      return p.points.length;
    });
  }

  getTrack(p: { accountId: number; track: string; from: number; to: number; limit?: number }): Promise<TrackPoint[]> {
    return this.read(() => {
      const rows = this.s.getTrack.all(p.accountId, p.track, p.from, p.to, limitOf('limit', p.limit, DEFAULT_TRACK_LIMIT)) as { ts: number; lat: number; lon: number }[];
      return rows.map((r) => ({ lat: r.lat, lon: r.lon, ts: Number(r.ts) }));
    });
  }

  // ------------------------------------------------------------------ retention

  /**
   * {@inheritDoc Store.prune}
   * Each batch is one closure of the group commit (other writes go between). Then, when the file
   * has incremental auto-vacuum (every file created by this version), the freed pages are given
   * back {@link VACUUM_PAGES} at a time, and the WAL is checkpointed as far as readers allow, so
   * the file shrinks now rather than at the next automatic checkpoint.
   */
  async prune(p: PruneRequest): Promise<PruneCounts> {
    const out = await pruneInBatches(p, (kind, before, batch) => this.write(() => this.js.prune[kind].run(before, batch).changes));
    if (out.routes + out.jobs + out.tracks > 0) await this.giveBack();
    return out;
  }

  /** Gives free pages back to the file system (incremental auto-vacuum), in bounded steps; nothing on a file without it. */
  private async giveBack(): Promise<void> {
    const free = () => this.read(() => (Number(this.db.pragma('auto_vacuum', { simple: true })) === 2 ? Number(this.db.pragma('freelist_count', { simple: true })) : 0));
    for (let left = await free(); left > 0;) {
      await this.write(() => this.db.pragma(`incremental_vacuum(${VACUUM_PAGES})`));
      const now = await free();
      if (now >= left) break;
      left = now;
    }
    await this.read(() => this.db.pragma('wal_checkpoint(PASSIVE)'));
  }

  /**
   * Rewrites the whole file (VACUUM) with incremental auto-vacuum on: for a file created before
   * this version (auto_vacuum none: pages freed by prune are reused, never given back). It holds the
   * file's write lock and this process's event loop for as long as the copy takes (seconds per
   * GiB): run it with the service stopped. Returns the file's auto_vacuum mode after (2: incremental).
   */
  async vacuum(): Promise<number> {
    if (this.closed) throw closedError(this.location);
    this.flush();
    try {
      this.db.pragma('auto_vacuum = INCREMENTAL');
      this.db.exec('VACUUM');
      return Number(this.db.pragma('auto_vacuum', { simple: true }));
    } catch (e) {
      throw mapError(e, this.location);
    }
  }
}
