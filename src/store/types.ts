/**
 * The service's state behind one interface, {@link Store}, made of one interface per area:
 * {@link AccountStore} (accounts, Login sessions), {@link LedgerStore} (credit: grants,
 * reservations, settlements, charges, the ledger), {@link RouteStore} (stored dispatch results),
 * {@link TrackStore} (GPS points), {@link JobStore} (jobs), {@link RetentionStore} (pruning), plus
 * {@link StoreLifecycle}. Two
 * backends implement it and pass one test suite (`test/store/store.suite.ts`): SQLite
 * (`sqlite.ts`, better-sqlite3, the embedded default) and PostgreSQL (`postgres.ts`, pg, for
 * several server instances sharing state). See docs/store.md.
 *
 * Conventions:
 * - Instants are whole milliseconds since the Unix epoch (UTC), passed in by the caller (`now`),
 *   so tests control the clock. Stored as integers (BIGINT in PostgreSQL).
 * - Credit amounts are whole numbers (integers). The balance is kept on the account row and
 *   changed only in the same transaction as the ledger entry that explains it, so that
 *   `balance == sum(ledger.delta)` for every account at every commit (`ledgerSum`).
 * - Secrets are never stored: API and session keys as SHA-256 digests (`keyHash`, 32 bytes),
 *   passwords as scrypt strings made by `hash.ts`.
 * - Failures of the database are thrown as `EngineError('Storage', …)`; a name already taken as
 *   `EngineError('Conflict', …)`.
 */
import type { AccountAudit, Usage } from './rules.js';

export type { AccountAudit, Usage };

/** An account as the service sees it (no secrets). */
export interface Account {
  id: number;
  name: string;
  /** Blocked accounts are refused (HTTP 403) and cannot reserve credit. */
  blocked: boolean;
  /** The account expires at this instant (ms), or never (null). */
  expiresAt: number | null;
  createdAt: number;
  balance: number;
  /** A Login password is set. */
  hasPassword: boolean;
}

export interface NewRoute {
  name: string;
  owner: string;
  /** In the dispatch's DistanceUnit, as the result reports it. */
  distance: number;
  /** Seconds. */
  time: number;
  stops: number;
  vehicles: number;
  /** The full DispatchResult as JSON text (enum names), returned as is by getRoute. */
  result: string;
  /** The DispatchSpecification it answers, as JSON text (what a re-dispatch starts from). */
  spec?: string;
}

/** One version of a stored route: the current one (from dk_routes) or an earlier one. */
export interface RouteVersion {
  routeId: number;
  version: number;
  /** DispatchResult JSON. */
  result: string;
  /** DispatchSpecification JSON; null for routes stored before version 5 of the schema. */
  spec: string | null;
  /** The change list that made this version (JSON); null for the first. */
  changes: string | null;
  /** When this version was made (ms). */
  createdAt: number;
  /** The route's name and owner (GetRouteList's). */
  name: string;
  owner: string;
}

export type StopEventKind = 'Arrived' | 'Done' | 'Failed' | 'Skipped';

export interface StopEvent {
  vehicle: string;
  location: string;
  event: StopEventKind;
  /** When it happened (ms, UTC). */
  ts: number;
}

export interface StoredRoute {
  /** RouteID: positive, increasing with creation, unique across the database. */
  routeId: number;
  accountId: number;
  name: string;
  owner: string;
  distance: number;
  time: number;
  stops: number;
  vehicles: number;
  createdAt: number;
  /** The current version (1 until the route is re-dispatched; GetRouteList's rows say 1). */
  version: number;
}

export interface RouteFilter {
  /** Created at or after (ms). */
  from?: number;
  /** Created at or before (ms). */
  to?: number;
  /** Owner equal to this, case-insensitively. */
  owner?: string;
  /** RouteName containing this, case-insensitively. */
  name?: string;
  /** At most this many, newest first (default 1000). */
  limit?: number;
}

export interface TrackPoint {
  lat: number;
  lon: number;
  /** UTC, ms. */
  ts: number;
}

export type LedgerKind = 'grant' | 'reserve' | 'refund' | 'charge';

export interface LedgerEntry {
  id: number;
  accountId: number;
  /** Signed: + adds credit, − takes it. */
  delta: number;
  /**
   * grant: credit added or taken by an operator; reserve: taken before an operation;
   * refund: the unused part of a reservation (or all of it: failed, cancelled, or released after
   * a crash) given back; charge: taken after the fact for a reservation that had already been
   * released as stale (the operation did finish).
   */
  kind: LedgerKind;
  /** The operation (reserve/refund/charge) or the operator's note (grant). */
  note: string;
  reservationId: number | null;
  createdAt: number;
}

/** A usage record (`dk_usage`, append-only): what an operation used and what it cost, written with its charge. */
export interface UsageEntry {
  id: number;
  accountId: number;
  operation: string;
  units: number;
  unitPrice: number;
  /** units × unitPrice: the credits taken for it. */
  cost: number;
  /** The reservation it settled (null: a charge, or a free job). */
  reservationId: number | null;
  createdAt: number;
}

export type JobState = 'queued' | 'active' | 'completed' | 'failed' | 'cancelled';

/** A job (an operation run asynchronously, on a queue): what the database keeps of it. */
/** A job to record ({@link JobStore.createJob}). */
export interface NewJob {
  id: string;
  accountId: number;
  operation: string;
  spec: string;
  reservationId: number | null;
  /** Credits per unit quoted at submission (null or absent: none stored). */
  unitPrice?: number | null;
  now: number;
}

export interface JobRecord {
  /** The JobID (chosen by the caller: a UUID). */
  id: string;
  accountId: number;
  /** The service operation (Dispatch, Geocode, CalculateRoutes). */
  operation: string;
  /** The raw specification as JSON text. */
  spec: string;
  state: JobState;
  /** The credit reserved at enqueue (null: the operation is free). */
  reservationId: number | null;
  /** Runs started (a job can be retried after a worker died). */
  attempts: number;
  /** completed: the result record as JSON text (enum names). */
  result: string | null;
  /** failed / cancelled: why. */
  error: string | null;
  /** completed Dispatch: the RouteID it was stored under. */
  routeId: number | null;
  /** Credits taken when it finished (0 until then, and for failed or cancelled jobs). */
  cost: number;
  /** Credits per unit quoted at submission, which the run charges at (null: submitted before it was stored — the runner's prices). */
  unitPrice: number | null;
  /**
   * The job's turn among its account's pending jobs, set at submission: how many the account had
   * pending with it, and never less than an earlier pending one's (so its own jobs stay in order).
   * A queue serves low turns first: accounts share the workers. Null: submitted before it was kept.
   */
  priority: number | null;
  createdAt: number;
  /** Last change of state, or last sign of life of the run ({@link JobStore.touchJob}). */
  updatedAt: number;
  finishedAt: number | null;
}

/** What every backend is, besides the areas below: which database, its schema, its connection. */
export interface StoreLifecycle {
  readonly kind: 'sqlite' | 'postgres';
  /** Where it is, for logs (never a password). */
  readonly location: string;

  /**
   * Applies the migrations this code knows (`migrations.ts`) that the database lacks, in order,
   * each in its own transaction, safely when several processes start at once. Throws
   * `EngineError('Storage')` (details `{ version, supported }`) when the database was written by a
   * newer version of dispatchkit (a migration this code does not know), touching nothing.
   */
  migrate(): Promise<{ from: number; to: number }>;
  /** The newest migration applied (0 = empty database). */
  schemaVersion(): Promise<number>;
  /** Resolves when the database answers (readiness). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Accounts and their Login sessions. */
export interface AccountStore {
  /**
   * Creates an account whose initial credit is one 'grant' ledger entry (none when 0). Conflict when
   * the name is taken (case-insensitively), or when `credit` is negative without `allowDebt`.
   */
  createAccount(p: { name: string; keyHash: Buffer; passwordHash: string | null; credit: number; expiresAt?: number | null; allowDebt?: boolean; now: number }): Promise<Account>;
  accountByKeyHash(keyHash: Buffer): Promise<Account | null>;
  /** Case-insensitive. With the password hash, for Login. */
  accountByName(name: string): Promise<(Account & { passwordHash: string | null }) | null>;
  accountById(id: number): Promise<Account | null>;
  /** Every account, by name. */
  listAccounts(): Promise<Account[]>;
  /**
   * Changes the given fields of the named account; null when there is no such account. Conflict
   * when the key hash is taken. A new key or password ends the account's Login sessions (same
   * transaction).
   */
  updateAccount(name: string, patch: { blocked?: boolean; keyHash?: Buffer; passwordHash?: string | null; expiresAt?: number | null }): Promise<Account | null>;

  // Login sessions
  createSession(p: { keyHash: Buffer; accountId: number; now: number }): Promise<void>;
  /**
   * The session's account when it was last used less than `ttlMs` before `now`: its last use
   * becomes `now` (sliding expiry). Null when unknown or expired; an expired session is deleted.
   */
  touchSession(keyHash: Buffer, now: number, ttlMs: number): Promise<Account | null>;
  /** Ends a session; whether there was one. */
  deleteSession(keyHash: Buffer): Promise<boolean>;
}

/** Credit: the ledger, reservations and their settlement, charges. */
export interface LedgerStore {
  /**
   * Adds (negative: takes) credit as one 'grant' entry with `note`; the new balance. Null when there
   * is no such account. Taking credit that would leave the balance below zero is refused (Conflict,
   * `details: { accountId, balance, amount }`, nothing written) unless `allowDebt` (rules.grant).
   */
  grantCredit(p: { accountId: number; amount: number; note: string; allowDebt?: boolean; now: number }): Promise<number | null>;
  /**
   * Takes `amount` (> 0) from the balance before an operation runs, atomically, only when the
   * account exists, is not blocked, has not expired at `now`, and its balance covers it: one
   * 'reserve' entry and an open reservation owned by `instance`. Null otherwise (nothing
   * written). Two concurrent reservations can never both take the same credit.
   */
  reserve(p: { accountId: number; amount: number; operation: string; instance: string; now: number }): Promise<number | null>;
  /**
   * Closes an open reservation at `cost` (0 ≤ cost ≤ its amount): the rest comes back as one
   * 'refund' entry (none when cost = amount). When `route` is given it is stored in the same
   * transaction (both or neither), and so is `usage` (its `units × unitPrice` must equal `cost`:
   * InvalidInput otherwise). When the reservation is no longer open (released as stale meanwhile)
   * the cost is taken again as a 'charge' entry (the balance may go below zero). A reservation
   * settles once: settling a settled one throws Conflict and writes nothing.
   */
  settle(p: { reservationId: number; cost: number; now: number; route?: NewRoute; usage?: Usage }): Promise<{ routeId: number | null }>;
  /**
   * Takes `amount` (≥ 1) from the balance in one write when the account may spend it (not
   * blocked, not expired, the balance covers it): a 'charge' ledger entry, its id; else null and
   * nothing written. For work already done at a known cost (the service's instant operations):
   * one write where a reservation and its settlement take two; the balance never goes below zero.
   * `usage` (`units × unitPrice` must equal `amount`: InvalidInput otherwise) is recorded with it.
   */
  charge(p: { accountId: number; amount: number; operation: string; now: number; usage?: Usage }): Promise<number | null>;
  /** Records that `instance` is alive at `now` (for {@link releaseStale}). */
  heartbeat(instance: string, now: number): Promise<void>;
  /**
   * Refunds every reservation still open whose instance has not sent a heartbeat for `staleMs`
   * (a process that died mid-operation), except `instance`'s own and jobs' (instance `job:…`,
   * ended by {@link JobStore.finishJob}). How many were released.
   */
  releaseStale(p: { instance: string; now: number; staleMs: number }): Promise<number>;
  /** Null when there is no such account. */
  balance(accountId: number): Promise<number | null>;
  /** Σ delta of the account's ledger (equals its balance). */
  ledgerSum(accountId: number): Promise<number>;
  /** The newest `limit` entries, newest first. */
  ledger(accountId: number, limit?: number): Promise<LedgerEntry[]>;
  /** Reservations still open (all accounts): for checks and tests. */
  openReservations(): Promise<number>;
  /** The account's newest `limit` usage records (default 100), newest first. */
  usage(accountId: number, limit?: number): Promise<UsageEntry[]>;
  /**
   * Each account's audit (or the one's; [] when there is none), by name: balance against Σ ledger,
   * and the credits charged for operations against the usage recorded — counting only what was
   * written since usage is recorded (migration 3); older charges are reported in `beforeUsage`
   * and a note, never as a problem (rules.audit).
   */
  audit(accountId?: number): Promise<AccountAudit[]>;
}

/** Stored dispatch results (RouteIDs). */
export interface RouteStore {
  listRoutes(accountId: number, f?: RouteFilter): Promise<StoredRoute[]>;
  /** The stored route of this account with its DispatchResult JSON; null when there is none (or it is another account's). */
  getRoute(accountId: number, routeId: number): Promise<{ route: StoredRoute; result: string } | null>;
  /** Stores a route with no credit involved (an operation priced 0). */
  storeRoute(p: { accountId: number; route: NewRoute; now: number }): Promise<number>;
  /** One version of the account's route (default: the current one); null when there is none. */
  getRouteVersion(accountId: number, routeId: number, version?: number): Promise<RouteVersion | null>;
  /**
   * Replaces the route's current version with a new one, keeping the old one in the history. Only
   * when the current version is still `version` (optimistic: two re-dispatches of one version,
   * one wins). Returns the new version number; null when the route is not the account's, and
   * 'conflict' when it has moved on.
   */
  replaceRoute(p: { accountId: number; routeId: number; version: number; route: NewRoute; changes: string; now: number }): Promise<number | 'conflict' | null>;
  /** Records stop events for the account's route; how many (null when the route is not the account's). */
  addStopEvents(p: { accountId: number; routeId: number; events: readonly StopEvent[]; now: number }): Promise<number | null>;
  /** The stop events of the account's route in the order they were recorded (empty when none or not the account's). */
  stopEvents(accountId: number, routeId: number): Promise<StopEvent[]>;
}

/** GPS track points. */
export interface TrackStore {
  /** Appends points to the account's track named `track`, in one transaction; how many. */
  addTrackPoints(p: { accountId: number; track: string; points: readonly TrackPoint[]; now: number }): Promise<number>;
  /** Points of the track with from ≤ ts ≤ to, ordered by ts (then by arrival), at most `limit` (default 100,000). */
  getTrack(p: { accountId: number; track: string; from: number; to: number; limit?: number }): Promise<TrackPoint[]>;
}

/** Jobs: operations run asynchronously. */
export interface JobStore {
  /**
   * Records a new job in state 'queued' (its credit already reserved by the caller: the
   * reservation's instance should be `job:<id>`, which {@link LedgerStore.releaseStale} releases only
   * while no row of that job exists — the job's own end settles it). Conflict when the id exists.
   */
  createJob(p: NewJob): Promise<JobRecord>;
  /** The job, or null. */
  getJob(id: string): Promise<JobRecord | null>;
  /**
   * A run begins: a 'queued' or 'active' job becomes 'active' with one more attempt; returns it.
   * Null when the job is unknown or already finished (completed, failed or cancelled): do not run.
   */
  startJob(id: string, now: number): Promise<JobRecord | null>;
  /** A running job is alive (updatedAt = now), unless it has finished. */
  touchJob(id: string, now: number): Promise<void>;
  /**
   * Ends a job exactly once, in one transaction: its reservation settled at `cost` (completed) or
   * refunded in full (failed, cancelled; cost must be 0), the route stored when given (completed
   * Dispatch), and the job's state, result/error, routeId, cost and finishedAt written. When the
   * job had already finished, nothing is written and `finished` is false (a retry that finished
   * twice, a cancel after the end): its first ending stands. `usage` (`units × unitPrice` = `cost`)
   * is recorded when this ending settles the reservation (not when it had been settled already).
   */
  finishJob(p: { id: string; state: 'completed' | 'failed' | 'cancelled'; cost: number; result?: string; error?: string; route?: NewRoute; usage?: Usage; now: number }): Promise<{ finished: boolean; job: JobRecord | null }>;
  /** Jobs still queued or active whose updatedAt ≤ `before`, oldest first, at most `limit` (default 1000). */
  pendingJobs(p: { before: number; limit?: number }): Promise<JobRecord[]>;
}

/** What {@link RetentionStore.prune} deletes: each kind only when its instant is given (ms). */
export interface PruneRequest {
  /** When the pruning runs (ms); every `…Before` must be at or before it (InvalidInput otherwise: a unit mistake must not delete everything). */
  now: number;
  /** Stored routes created before this instant, except one a job still refers to (it goes with its job). */
  routesBefore?: number;
  /** Finished jobs (completed, failed, cancelled) that finished before this instant; never a queued or active one. */
  jobsBefore?: number;
  /** GPS points whose time stamp is before this instant. */
  tracksBefore?: number;
  /** Rows deleted per transaction (default 1000, at most 10,000): no long transaction, other writes go between. */
  batchSize?: number;
}

/** How many rows {@link RetentionStore.prune} deleted, by kind. */
export interface PruneCounts {
  routes: number;
  jobs: number;
  tracks: number;
}

/** Retention: what may be forgotten after a while. The ledger, reservations, usage and accounts are never deleted. */
export interface RetentionStore {
  /**
   * Deletes, in batches of `batchSize` rows each in its own short transaction: finished jobs
   * finished before `jobsBefore`, then stored routes created before `routesBefore` that no job
   * refers to, then GPS points before `tracksBefore`; nothing of a queued or active job or of an
   * open reservation. The counts deleted. SQLite then gives the freed pages back to the file
   * system (incremental vacuum) when the file was created with auto_vacuum (see docs/store.md).
   * Suggested retention: rules.SUGGESTED_RETENTION_DAYS (routes 90 days, jobs 30, tracks 90).
   */
  prune(p: PruneRequest): Promise<PruneCounts>;
}

/**
 * The whole store: what a backend implements and what the service holds. Code that needs one area
 * only can ask for that interface (`LedgerStore`, `JobStore`, …).
 */
export interface Store extends StoreLifecycle, AccountStore, LedgerStore, RouteStore, TrackStore, JobStore, RetentionStore {}
