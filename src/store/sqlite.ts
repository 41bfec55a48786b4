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
 */
import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { EngineError } from '../core/errors.js';
import {
  ACCOUNT_COLUMNS, DEFAULT_JOB_LIMIT, DEFAULT_LEDGER_LIMIT, DEFAULT_TRACK_LIMIT, JOB_COLUMNS, ROUTE_COLUMNS, alreadySettled,
  checkInteger, checkCost, checkJobEnd, checkJobReservation, checkKeyHash, checkName, checkNewJob, checkTrackPoints,
  closedError, foldCase, isJobId, isPending, isProgrammingError, jobExists, limitOf, newerDatabase, noReservation,
  routeFilterSql, routeValues, toAccount, toAccountWithPassword, toJob, toLedgerEntry, toRoute, LEDGER_COLUMNS,
  type AccountRow, type JobRow, type LedgerRow, type RouteRow,
} from './common.js';
import { MIGRATIONS, MIGRATIONS_TABLE, SCHEMA_VERSION } from './migrations.js';
import type { Account, JobRecord, LedgerEntry, LedgerKind, NewRoute, RouteFilter, Store, StoredRoute, TrackPoint } from './types.js';

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

interface ReservationRow {
  account_id: number;
  amount: number;
  state: 'open' | 'settled' | 'released';
  operation: string;
  cost: number | null;
}


function prepareStatements(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    accountById: p(`SELECT ${ACCOUNT_COLUMNS} FROM dk_accounts WHERE id = ?`),
    accountByKeyHash: p(`SELECT ${ACCOUNT_COLUMNS} FROM dk_accounts WHERE key_hash = ?`),
    accountByNameKey: p(`SELECT ${ACCOUNT_COLUMNS} FROM dk_accounts WHERE name_key = ?`),
    listAccounts: p(`SELECT ${ACCOUNT_COLUMNS} FROM dk_accounts ORDER BY name_key, id`),
    insertAccount: p(`INSERT INTO dk_accounts (name, name_key, key_hash, password_hash, blocked, expires_at, created_at, balance)
      VALUES (?, ?, ?, ?, 0, ?, ?, ?)`),
    updateAccount: p(`UPDATE dk_accounts SET
        blocked = CASE WHEN @setBlocked THEN @blocked ELSE blocked END,
        key_hash = CASE WHEN @setKey THEN @keyHash ELSE key_hash END,
        password_hash = CASE WHEN @setPassword THEN @passwordHash ELSE password_hash END,
        expires_at = CASE WHEN @setExpires THEN @expiresAt ELSE expires_at END
      WHERE name_key = @nameKey RETURNING ${ACCOUNT_COLUMNS}`),
    addBalance: p(`UPDATE dk_accounts SET balance = balance + ? WHERE id = ? RETURNING balance`),
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

    reserveCredit: p(`UPDATE dk_accounts SET balance = balance - @amount
      WHERE id = @id AND NOT blocked AND (expires_at IS NULL OR expires_at > @now) AND balance >= @amount`),
    insertReservation: p(`INSERT INTO dk_reservations (account_id, amount, operation, instance, state, created_at) VALUES (?, ?, ?, ?, 'open', ?)`),
    reservation: p(`SELECT account_id, amount, state, operation, cost FROM dk_reservations WHERE id = ?`),
    closeReservation: p(`UPDATE dk_reservations SET state = 'settled', cost = ? WHERE id = ? AND state = ?`),
    // jobs' reservations (instance job:…) are ended by finishJob only; GLOB, not LIKE: SQLite's LIKE ignores
    // the case of ASCII letters, PostgreSQL's does not, and the prefix is `job:` exactly on both
    staleReservations: p(`SELECT r.id, r.account_id, r.amount, r.operation FROM dk_reservations r
      LEFT JOIN dk_instances i ON i.id = r.instance
      WHERE r.state = 'open' AND r.instance <> ? AND r.instance NOT GLOB 'job:*' AND COALESCE(i.heartbeat, r.created_at) <= ?`),
    releaseReservation: p(`UPDATE dk_reservations SET state = 'released' WHERE id = ? AND state = 'open'`),
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

/** The statements of `dk_jobs` (migration 2), prepared on first use: a database at version 1 (tests of upgrades) can still use the others. */
function prepareJobStatements(db: Database.Database) {
  const p = (sql: string) => db.prepare(sql);
  return {
    insertJob: p(`INSERT INTO dk_jobs (id, account_id, operation, spec, state, reservation_id, attempts, cost, created_at, updated_at)
      VALUES (?, ?, ?, ?, 'queued', ?, 0, 0, ?, ?) RETURNING ${JOB_COLUMNS}`),
    getJob: p(`SELECT ${JOB_COLUMNS} FROM dk_jobs WHERE id = ?`),
    startJob: p(`UPDATE dk_jobs SET state = 'active', attempts = attempts + 1, updated_at = ?
      WHERE id = ? AND state IN ('queued', 'active') RETURNING ${JOB_COLUMNS}`),
    touchJob: p(`UPDATE dk_jobs SET updated_at = ? WHERE id = ? AND state IN ('queued', 'active')`),
    endJob: p(`UPDATE dk_jobs SET state = @state, result = @result, error = @error, route_id = @routeId, cost = @cost, updated_at = @now, finished_at = @now
      WHERE id = @id AND state IN ('queued', 'active') RETURNING ${JOB_COLUMNS}`),
    pendingJobs: p(`SELECT ${JOB_COLUMNS} FROM dk_jobs WHERE state IN ('queued', 'active') AND updated_at <= ?
      ORDER BY updated_at, created_at, id LIMIT ?`),
  };
}

type JobStatements = ReturnType<typeof prepareJobStatements>;

export class SqliteStore implements Store {
  readonly kind = 'sqlite' as const;
  readonly location: string;
  private readonly db: Database.Database;
  private readonly batchLimit: number;
  private stmts: Statements | null = null;
  private jobStmts: JobStatements | null = null;
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
    this.routeListStmts.clear();
    this.db.close();
  }

  // ------------------------------------------------------------------ accounts

  private account(id: number): Account | null {
    const r = this.s.accountById.get(id) as AccountRow | undefined;
    return r ? toAccount(r) : null;
  }

  createAccount(p: { name: string; keyHash: Buffer; passwordHash: string | null; credit: number; expiresAt?: number | null; now: number }): Promise<Account> {
    try {
      checkName(p.name);
      checkKeyHash('keyHash', p.keyHash);
      checkInteger('credit', p.credit);
      checkInteger('now', p.now);
      if (p.expiresAt !== undefined && p.expiresAt !== null) checkInteger('expiresAt', p.expiresAt);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.write(() => {
      const s = this.s;
      const id = Number(s.insertAccount.run(p.name, foldCase(p.name), p.keyHash, p.passwordHash ?? null, p.expiresAt ?? null, p.now, p.credit).lastInsertRowid);
      if (p.credit !== 0) s.insertLedger.run(id, p.credit, 'grant', 'initial credit', null, p.now);
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

  updateAccount(name: string, patch: { blocked?: boolean; keyHash?: Buffer; passwordHash?: string | null; expiresAt?: number | null }): Promise<Account | null> {
    try {
      if (patch.keyHash !== undefined) checkKeyHash('keyHash', patch.keyHash);
      if (patch.expiresAt !== undefined && patch.expiresAt !== null) checkInteger('expiresAt', patch.expiresAt);
    } catch (e) {
      return Promise.reject(e);
    }
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

  createSession(p: { keyHash: Buffer; accountId: number; now: number }): Promise<void> {
    try {
      checkKeyHash('keyHash', p.keyHash);
      checkInteger('now', p.now);
    } catch (e) {
      return Promise.reject(e);
    }
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

  /** Changes the balance by `delta` with its ledger entry; the new balance, or null without such an account. */
  private applyDelta(accountId: number, delta: number, kind: LedgerKind, note: string, reservationId: number | null, now: number): number | null {
    const s = this.s;
    const r = s.addBalance.get(delta, accountId) as { balance: number } | undefined;
    if (!r) return null;
    s.insertLedger.run(accountId, delta, kind, note, reservationId, now);
    return Number(r.balance);
  }

  grantCredit(p: { accountId: number; amount: number; note: string; now: number }): Promise<number | null> {
    try {
      checkInteger('amount', p.amount);
      checkInteger('now', p.now);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.write(() => this.applyDelta(p.accountId, p.amount, 'grant', String(p.note ?? ''), null, p.now));
  }

  reserve(p: { accountId: number; amount: number; operation: string; instance: string; now: number }): Promise<number | null> {
    return this.take(p, (s) => {
      const id = Number(s.insertReservation.run(p.accountId, p.amount, p.operation, p.instance, p.now).lastInsertRowid);
      s.insertLedger.run(p.accountId, -p.amount, 'reserve', p.operation, id, p.now);
      return id;
    });
  }

  charge(p: { accountId: number; amount: number; operation: string; now: number }): Promise<number | null> {
    return this.take(p, (s) => Number(s.insertLedger.run(p.accountId, -p.amount, 'charge', p.operation, null, p.now).lastInsertRowid));
  }

  /** Takes `amount` when the account may spend it (one conditional update), then writes `entries`' rows: their id, or null (nothing written). */
  private take(p: { accountId: number; amount: number; now: number }, entries: (s: Statements) => number): Promise<number | null> {
    try {
      checkInteger('amount', p.amount, 1);
      checkInteger('now', p.now);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.write(() => {
      const s = this.s;
      if (s.reserveCredit.run({ amount: p.amount, id: p.accountId, now: p.now }).changes === 0) return null;
      return entries(s);
    });
  }

  /**
   * {@inheritDoc Store.settle}
   * An unknown reservation is Conflict too; a cost above the reservation's amount is InvalidInput.
   */
  settle(p: { reservationId: number; cost: number; now: number; route?: NewRoute }): Promise<{ routeId: number | null }> {
    try {
      checkInteger('cost', p.cost, 0);
      checkInteger('now', p.now);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.write(() => {
      const r = this.closeReservation(p.reservationId, p.cost, p.now, false);
      return { routeId: p.route ? this.insertRoute(r.account_id, p.route, p.now) : null };
    });
  }

  /**
   * Settles reservation `id` at `cost` in the running write (settle's rule): an open one gives the
   * rest back as a 'refund'; one released as stale meanwhile (all of it refunded) takes the cost
   * again as a 'charge' (the operation did finish). One already settled throws Conflict, or, with
   * `settledOk` (a job's end: its reservation closes once), is left alone: the ledger is not touched.
   * An unknown one is Conflict; a cost above the amount InvalidInput. Returns the reservation as it was.
   */
  private closeReservation(id: number, cost: number, now: number, settledOk: boolean): ReservationRow {
    const s = this.s;
    const r = s.reservation.get(id) as ReservationRow | undefined;
    if (!r) throw noReservation(id);
    if (r.state === 'settled' && !settledOk) throw alreadySettled(id);
    checkCost(cost, r.amount);
    if (r.state === 'settled') return r;
    s.closeReservation.run(cost, id, r.state);
    if (r.state === 'open') {
      if (r.amount > cost) this.applyDelta(r.account_id, r.amount - cost, 'refund', r.operation, id, now);
    } else if (cost > 0) {
      this.applyDelta(r.account_id, -cost, 'charge', r.operation, id, now);
    }
    return r;
  }

  private insertRoute(accountId: number, route: NewRoute, now: number): number {
    return Number(this.s.insertRoute.run(accountId, ...routeValues(route), now, route.result).lastInsertRowid);
  }

  storeRoute(p: { accountId: number; route: NewRoute; now: number }): Promise<number> {
    try {
      checkInteger('now', p.now);
      routeValues(p.route);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.write(() => this.insertRoute(p.accountId, p.route, p.now));
  }

  heartbeat(instance: string, now: number): Promise<void> {
    return this.write(() => {
      this.s.heartbeat.run(instance, now);
    });
  }

  /**
   * {@inheritDoc Store.releaseStale}
   * Stale: the instance's last heartbeat is at least `staleMs` old (`heartbeat ≤ now − staleMs`);
   * an instance that never sent one counts from the reservation's creation.
   */
  releaseStale(p: { instance: string; now: number; staleMs: number }): Promise<number> {
    return this.write(() => {
      const s = this.s;
      const rows = s.staleReservations.all(p.instance, p.now - p.staleMs) as { id: number; account_id: number; amount: number; operation: string }[];
      let n = 0;
      for (const r of rows) {
        if (s.releaseReservation.run(r.id).changes === 0) continue;
        this.applyDelta(r.account_id, r.amount, 'refund', r.operation, r.id, p.now);
        n++;
      }
      return n;
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
    return this.read(() => {
      const rows = this.s.ledger.all(accountId, limitOf('limit', limit, DEFAULT_LEDGER_LIMIT)) as LedgerRow[];
      return rows.map(toLedgerEntry);
    });
  }

  openReservations(): Promise<number> {
    return this.read(() => Number((this.s.openReservations.get() as { n: number }).n));
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
      const r = this.s.getRoute.get(routeId, accountId) as (RouteRow & { result: string }) | undefined;
      return r ? { route: toRoute(r), result: r.result } : null;
    });
  }

  // ------------------------------------------------------------------ jobs

  /**
   * {@inheritDoc Store.createJob}
   * The id is 1 to 100 characters among A–Z, a–z, 0–9, `-` and `_` (InvalidInput otherwise); the
   * reservation must be an open one of the account (InvalidInput otherwise).
   */
  createJob(p: { id: string; accountId: number; operation: string; spec: string; reservationId: number | null; now: number }): Promise<JobRecord> {
    try {
      checkNewJob(p);
    } catch (e) {
      return Promise.reject(e);
    }
    const reservationId = p.reservationId ?? null;
    return this.write(() => {
      if (reservationId !== null) checkJobReservation(reservationId, p.accountId, this.s.reservation.get(reservationId) as ReservationRow | undefined);
      return toJob(this.js.insertJob.get(p.id, p.accountId, p.operation, p.spec, reservationId, p.now, p.now) as JobRow);
    });
  }

  getJob(id: string): Promise<JobRecord | null> {
    return this.read(() => {
      if (!isJobId(id)) return null;
      const r = this.js.getJob.get(id) as JobRow | undefined;
      return r ? toJob(r) : null;
    });
  }

  startJob(id: string, now: number): Promise<JobRecord | null> {
    try {
      checkInteger('now', now);
    } catch (e) {
      return Promise.reject(e);
    }
    if (!isJobId(id)) return this.read(() => null);
    return this.write(() => {
      const r = this.js.startJob.get(now, id) as JobRow | undefined;
      return r ? toJob(r) : null;
    });
  }

  touchJob(id: string, now: number): Promise<void> {
    try {
      checkInteger('now', now);
    } catch (e) {
      return Promise.reject(e);
    }
    if (!isJobId(id)) return this.read(() => undefined);
    return this.write(() => {
      this.js.touchJob.run(now, id);
    });
  }

  /**
   * {@inheritDoc Store.finishJob}
   * Exactly once: the write queue runs one closure at a time, and another process's writes wait for
   * the file's write lock, so the second ending reads the first one's state. A cost above the
   * reservation's amount, or above 0 without a reservation, is InvalidInput (nothing written). When the
   * reservation had been settled already (by `settle`), the ledger is not touched and the job's cost
   * is the one it was settled at; when it had been released as stale, the cost is charged (as settle).
   * An unknown job: `{ finished: false, job: null }`.
   */
  finishJob(p: { id: string; state: 'completed' | 'failed' | 'cancelled'; cost: number; result?: string; error?: string; route?: NewRoute; now: number }): Promise<{ finished: boolean; job: JobRecord | null }> {
    try {
      checkJobEnd(p);
    } catch (e) {
      return Promise.reject(e);
    }
    if (!isJobId(p.id)) return this.read(() => ({ finished: false, job: null }));
    return this.write(() => {
      const js = this.js;
      const row = js.getJob.get(p.id) as JobRow | undefined;
      if (!row) return { finished: false, job: null };
      const job = toJob(row);
      if (!isPending(job.state)) return { finished: false, job };
      let cost = p.cost;
      if (job.reservationId === null) checkCost(p.cost, null);
      else {
        const r = this.closeReservation(job.reservationId, p.cost, p.now, true);
        // settled already (not by a job's end, which is this one): what it was settled at is what the job took
        if (r.state === 'settled') cost = p.state === 'completed' ? Number(r.cost ?? 0) : 0;
      }
      const routeId = p.route ? this.insertRoute(job.accountId, p.route, p.now) : null;
      const ended = js.endJob.get({ id: p.id, state: p.state, result: p.result ?? null, error: p.error ?? null, routeId, cost, now: p.now }) as JobRow;
      return { finished: true, job: toJob(ended) };
    });
  }

  pendingJobs(p: { before: number; limit?: number }): Promise<JobRecord[]> {
    return this.read(() => {
      checkInteger('before', p.before);
      return (this.js.pendingJobs.all(p.before, limitOf('limit', p.limit, DEFAULT_JOB_LIMIT)) as JobRow[]).map(toJob);
    });
  }

  // ------------------------------------------------------------------ GPS tracks

  addTrackPoints(p: { accountId: number; track: string; points: readonly TrackPoint[]; now: number }): Promise<number> {
    try {
      checkTrackPoints(p.points);
    } catch (e) {
      return Promise.reject(e);
    }
    if (p.points.length === 0) return this.closed ? Promise.reject(closedError(this.location)) : Promise.resolve(0);
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
}
