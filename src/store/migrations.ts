/**
 * The database schema as versioned migrations, one SQL text per backend. Append new migrations
 * at the end with the next version; never edit one that has shipped (databases already have it).
 * A database whose newest applied version is above the last one here was written by a newer
 * dispatchkit and is refused (see `Store.migrate`).
 *
 * Tables:
 * - `dk_schema_migrations` (version, description, applied_at): what was applied, when.
 * - `dk_accounts`: `name` as given; `name_key` its lower case (JavaScript's `toLowerCase`, the same
 *   on both backends whatever the database's locale), unique, so names are unique ignoring case;
 *   `key_hash` the SHA-256 of the API key (32 bytes, unique); `balance` the credit, changed only
 *   together with a ledger entry.
 * - `dk_sessions`: Login sessions by the SHA-256 of their key, with their last use (sliding expiry).
 * - `dk_ledger`: append-only (triggers refuse UPDATE and DELETE); Σ delta = balance per account.
 * - `dk_reservations`: credit taken before an operation; `open` → `settled` (at `cost`) or
 *   `released` (refunded as stale) → `settled` (charged after all).
 * - `dk_instances`: server instances' heartbeats.
 * - `dk_routes`: stored dispatch results (`id` is the RouteID; `name_key`/`owner_key` the lower
 *   case of `name`/`owner`, for the case-insensitive filters).
 * - `dk_track_points`: GPS points by account and track name.
 * - `dk_jobs` (version 2): operations run asynchronously, by the caller's JobID (`id`); `state`
 *   `queued` → `active` (`attempts` runs started) → `completed`, `failed` or `cancelled` (then
 *   `finished_at` is set, and never again changed); `reservation_id` the credit reserved at enqueue
 *   (its instance `job:<id>`, never released as stale), settled when the job ends; `cost` what was
 *   taken; `route_id` the stored route of a completed Dispatch; `result`/`error` as JSON text or a
 *   message; `updated_at` the last change or sign of life (the sweep of `(state, updated_at)` finds
 *   jobs whose worker died); `unit_price` (version 6) the credits per unit quoted at submission,
 *   which the run charges at (null: a job submitted before version 6, charged at its runner's prices);
 *   `priority` (version 6) the job's turn among its account's pending jobs when it was submitted
 *   (their count with it, and never before an earlier one's): queues serve low turns first, so
 *   accounts share the workers (jobs.ts).
 * - `dk_usage` (version 3): append-only, like the ledger: what each charged operation used
 *   (`operation`, `units`, `unit_price`, `cost` = units × unit_price), written in the same
 *   transaction as its charge; `reservation_id` the reservation it settled (null: a charge).
 * - `dk_usage_epoch` (version 3): one row, the newest ledger and reservation ids when usage began to
 *   be recorded; the audit checks usage against the charges written after them only.
 * - Version 4: the indexes `Store.prune` deletes by (routes by creation, finished jobs by their end,
 *   jobs by their route, track points by time stamp).
 * - Version 5 (live re-dispatch): `dk_routes` keeps its current `version` (1 at creation), the
 *   DispatchSpecification it answers (`spec`, JSON; null for routes stored before), the change
 *   list that made it (`changes`, JSON) and when (`updated_at`); `dk_route_versions` the earlier
 *   versions (written when a version is replaced); `dk_stop_events` the stop events sent for a
 *   route (arrived, done, failed, skipped). Both go with their route (ON DELETE CASCADE).
 */

export interface Migration {
  version: number;
  description: string;
  /** Statements for SQLite, run in order in one transaction. */
  sqlite: string[];
  /** Statements for PostgreSQL, run in order in one transaction. */
  postgres: string[];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'initial schema: accounts, sessions, ledger, reservations, instances, routes, track points',
    sqlite: [
      `CREATE TABLE dk_schema_migrations (
        version     INTEGER PRIMARY KEY,
        description TEXT    NOT NULL,
        applied_at  INTEGER NOT NULL
      )`,
      `CREATE TABLE dk_accounts (
        id            INTEGER PRIMARY KEY AUTOINCREMENT,
        name          TEXT    NOT NULL CHECK (length(name) > 0),
        name_key      TEXT    NOT NULL UNIQUE,
        key_hash      BLOB    NOT NULL UNIQUE CHECK (length(key_hash) = 32),
        password_hash TEXT,
        blocked       INTEGER NOT NULL DEFAULT 0 CHECK (blocked IN (0, 1)),
        expires_at    INTEGER,
        created_at    INTEGER NOT NULL,
        balance       INTEGER NOT NULL DEFAULT 0
      )`,
      `CREATE TABLE dk_sessions (
        key_hash   BLOB    PRIMARY KEY CHECK (length(key_hash) = 32),
        account_id INTEGER NOT NULL REFERENCES dk_accounts (id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL,
        last_used  INTEGER NOT NULL
      ) WITHOUT ROWID`,
      `CREATE INDEX dk_sessions_account ON dk_sessions (account_id)`,
      `CREATE TABLE dk_reservations (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id INTEGER NOT NULL REFERENCES dk_accounts (id),
        amount     INTEGER NOT NULL CHECK (amount > 0),
        operation  TEXT    NOT NULL,
        instance   TEXT    NOT NULL,
        state      TEXT    NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'settled', 'released')),
        cost       INTEGER CHECK (cost >= 0),
        created_at INTEGER NOT NULL
      )`,
      `CREATE INDEX dk_reservations_open ON dk_reservations (instance) WHERE state = 'open'`,
      `CREATE TABLE dk_ledger (
        id             INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id     INTEGER NOT NULL REFERENCES dk_accounts (id),
        delta          INTEGER NOT NULL,
        kind           TEXT    NOT NULL CHECK (kind IN ('grant', 'reserve', 'refund', 'charge')),
        note           TEXT    NOT NULL,
        reservation_id INTEGER REFERENCES dk_reservations (id),
        created_at     INTEGER NOT NULL
      )`,
      `CREATE INDEX dk_ledger_account ON dk_ledger (account_id, id)`,
      `CREATE INDEX dk_ledger_reservation ON dk_ledger (reservation_id) WHERE reservation_id IS NOT NULL`,
      `CREATE TRIGGER dk_ledger_no_update BEFORE UPDATE ON dk_ledger
        BEGIN SELECT RAISE(ABORT, 'dk_ledger is append-only'); END`,
      `CREATE TRIGGER dk_ledger_no_delete BEFORE DELETE ON dk_ledger
        BEGIN SELECT RAISE(ABORT, 'dk_ledger is append-only'); END`,
      `CREATE TABLE dk_instances (
        id        TEXT    PRIMARY KEY,
        heartbeat INTEGER NOT NULL
      ) WITHOUT ROWID`,
      `CREATE TABLE dk_routes (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id INTEGER NOT NULL REFERENCES dk_accounts (id),
        name       TEXT    NOT NULL,
        name_key   TEXT    NOT NULL,
        owner      TEXT    NOT NULL,
        owner_key  TEXT    NOT NULL,
        distance   REAL    NOT NULL,
        time       REAL    NOT NULL,
        stops      INTEGER NOT NULL,
        vehicles   INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        result     TEXT    NOT NULL
      )`,
      `CREATE INDEX dk_routes_account_created ON dk_routes (account_id, created_at)`,
      `CREATE TABLE dk_track_points (
        id         INTEGER PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES dk_accounts (id),
        track      TEXT    NOT NULL,
        ts         INTEGER NOT NULL,
        lat        REAL    NOT NULL,
        lon        REAL    NOT NULL
      )`,
      `CREATE INDEX dk_track_points_track ON dk_track_points (account_id, track, ts)`,
    ],
    postgres: [
      `CREATE TABLE dk_schema_migrations (
        version     INTEGER PRIMARY KEY,
        description TEXT    NOT NULL,
        applied_at  BIGINT  NOT NULL
      )`,
      `CREATE TABLE dk_accounts (
        id            BIGINT  GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        name          TEXT    NOT NULL CHECK (length(name) > 0),
        name_key      TEXT    NOT NULL UNIQUE,
        key_hash      BYTEA   NOT NULL UNIQUE CHECK (length(key_hash) = 32),
        password_hash TEXT,
        blocked       BOOLEAN NOT NULL DEFAULT FALSE,
        expires_at    BIGINT,
        created_at    BIGINT  NOT NULL,
        balance       BIGINT  NOT NULL DEFAULT 0
      )`,
      `CREATE TABLE dk_sessions (
        key_hash   BYTEA  PRIMARY KEY CHECK (length(key_hash) = 32),
        account_id BIGINT NOT NULL REFERENCES dk_accounts (id) ON DELETE CASCADE,
        created_at BIGINT NOT NULL,
        last_used  BIGINT NOT NULL
      )`,
      `CREATE INDEX dk_sessions_account ON dk_sessions (account_id)`,
      `CREATE TABLE dk_reservations (
        id         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        account_id BIGINT NOT NULL REFERENCES dk_accounts (id),
        amount     BIGINT NOT NULL CHECK (amount > 0),
        operation  TEXT   NOT NULL,
        instance   TEXT   NOT NULL,
        state      TEXT   NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'settled', 'released')),
        cost       BIGINT CHECK (cost >= 0),
        created_at BIGINT NOT NULL
      )`,
      `CREATE INDEX dk_reservations_open ON dk_reservations (instance) WHERE state = 'open'`,
      `CREATE TABLE dk_ledger (
        id             BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        account_id     BIGINT NOT NULL REFERENCES dk_accounts (id),
        delta          BIGINT NOT NULL,
        kind           TEXT   NOT NULL CHECK (kind IN ('grant', 'reserve', 'refund', 'charge')),
        note           TEXT   NOT NULL,
        reservation_id BIGINT REFERENCES dk_reservations (id),
        created_at     BIGINT NOT NULL
      )`,
      `CREATE INDEX dk_ledger_account ON dk_ledger (account_id, id)`,
      `CREATE INDEX dk_ledger_reservation ON dk_ledger (reservation_id) WHERE reservation_id IS NOT NULL`,
      `CREATE FUNCTION dk_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'dk_ledger is append-only'; END $$`,
      `CREATE TRIGGER dk_ledger_append_only BEFORE UPDATE OR DELETE ON dk_ledger
        FOR EACH ROW EXECUTE FUNCTION dk_ledger_append_only()`,
      `CREATE TABLE dk_instances (
        id        TEXT   PRIMARY KEY,
        heartbeat BIGINT NOT NULL
      )`,
      `CREATE TABLE dk_routes (
        id         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        account_id BIGINT NOT NULL REFERENCES dk_accounts (id),
        name       TEXT   NOT NULL,
        name_key   TEXT   NOT NULL,
        owner      TEXT   NOT NULL,
        owner_key  TEXT   NOT NULL,
        distance   DOUBLE PRECISION NOT NULL,
        time       DOUBLE PRECISION NOT NULL,
        stops      INTEGER NOT NULL,
        vehicles   INTEGER NOT NULL,
        created_at BIGINT NOT NULL,
        result     TEXT   NOT NULL
      )`,
      `CREATE INDEX dk_routes_account_created ON dk_routes (account_id, created_at)`,
      `CREATE TABLE dk_track_points (
        id         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        account_id BIGINT NOT NULL REFERENCES dk_accounts (id),
        track      TEXT   NOT NULL,
        ts         BIGINT NOT NULL,
        lat        DOUBLE PRECISION NOT NULL,
        lon        DOUBLE PRECISION NOT NULL
      )`,
      `CREATE INDEX dk_track_points_track ON dk_track_points (account_id, track, ts)`,
    ],
  },
  {
    version: 2,
    description: 'jobs: operations run asynchronously, with their reservation, result and route',
    sqlite: [
      `CREATE TABLE dk_jobs (
        id             TEXT    PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 100),
        account_id     INTEGER NOT NULL REFERENCES dk_accounts (id),
        operation      TEXT    NOT NULL,
        spec           TEXT    NOT NULL,
        state          TEXT    NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'active', 'completed', 'failed', 'cancelled')),
        reservation_id INTEGER REFERENCES dk_reservations (id),
        attempts       INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        result         TEXT,
        error          TEXT,
        route_id       INTEGER REFERENCES dk_routes (id),
        cost           INTEGER NOT NULL DEFAULT 0 CHECK (cost >= 0),
        created_at     INTEGER NOT NULL,
        updated_at     INTEGER NOT NULL,
        finished_at    INTEGER,
        CHECK ((finished_at IS NULL) = (state IN ('queued', 'active')))
      )`,
      `CREATE INDEX dk_jobs_pending ON dk_jobs (state, updated_at)`,
      `CREATE INDEX dk_jobs_account_created ON dk_jobs (account_id, created_at)`,
    ],
    postgres: [
      `CREATE TABLE dk_jobs (
        id             TEXT    PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 100),
        account_id     BIGINT  NOT NULL REFERENCES dk_accounts (id),
        operation      TEXT    NOT NULL,
        spec           TEXT    NOT NULL,
        state          TEXT    NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'active', 'completed', 'failed', 'cancelled')),
        reservation_id BIGINT  REFERENCES dk_reservations (id),
        attempts       INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
        result         TEXT,
        error          TEXT,
        route_id       BIGINT  REFERENCES dk_routes (id),
        cost           BIGINT  NOT NULL DEFAULT 0 CHECK (cost >= 0),
        created_at     BIGINT  NOT NULL,
        updated_at     BIGINT  NOT NULL,
        finished_at    BIGINT,
        CHECK ((finished_at IS NULL) = (state IN ('queued', 'active')))
      )`,
      `CREATE INDEX dk_jobs_pending ON dk_jobs (state, updated_at)`,
      `CREATE INDEX dk_jobs_account_created ON dk_jobs (account_id, created_at)`,
    ],
  },
  {
    version: 3,
    description: 'usage: what each charged operation used, recorded with its charge; where its recording began',
    sqlite: [
      `CREATE TABLE dk_usage (
        id             INTEGER PRIMARY KEY AUTOINCREMENT,
        account_id     INTEGER NOT NULL REFERENCES dk_accounts (id),
        operation      TEXT    NOT NULL CHECK (length(operation) > 0),
        units          INTEGER NOT NULL CHECK (units >= 0),
        unit_price     INTEGER NOT NULL CHECK (unit_price >= 0),
        cost           INTEGER NOT NULL CHECK (cost = units * unit_price),
        reservation_id INTEGER REFERENCES dk_reservations (id),
        created_at     INTEGER NOT NULL
      )`,
      `CREATE INDEX dk_usage_account ON dk_usage (account_id, id)`,
      `CREATE TRIGGER dk_usage_no_update BEFORE UPDATE ON dk_usage
        BEGIN SELECT RAISE(ABORT, 'dk_usage is append-only'); END`,
      `CREATE TRIGGER dk_usage_no_delete BEFORE DELETE ON dk_usage
        BEGIN SELECT RAISE(ABORT, 'dk_usage is append-only'); END`,
      `CREATE TABLE dk_usage_epoch (
        ledger_id      INTEGER NOT NULL,
        reservation_id INTEGER NOT NULL,
        created_at     INTEGER NOT NULL
      )`,
      // the migration runs under BEGIN IMMEDIATE: no write comes between these maxima and the commit
      `INSERT INTO dk_usage_epoch (ledger_id, reservation_id, created_at)
        SELECT COALESCE((SELECT MAX(id) FROM dk_ledger), 0), COALESCE((SELECT MAX(id) FROM dk_reservations), 0),
          CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)`,
    ],
    postgres: [
      // writers of the ledger finish first and wait for this commit, so the maxima below are exact
      `LOCK TABLE dk_reservations, dk_ledger IN SHARE MODE`,
      `CREATE TABLE dk_usage (
        id             BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        account_id     BIGINT NOT NULL REFERENCES dk_accounts (id),
        operation      TEXT   NOT NULL CHECK (length(operation) > 0),
        units          BIGINT NOT NULL CHECK (units >= 0),
        unit_price     BIGINT NOT NULL CHECK (unit_price >= 0),
        cost           BIGINT NOT NULL CHECK (cost = units * unit_price),
        reservation_id BIGINT REFERENCES dk_reservations (id),
        created_at     BIGINT NOT NULL
      )`,
      `CREATE INDEX dk_usage_account ON dk_usage (account_id, id)`,
      `CREATE FUNCTION dk_usage_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'dk_usage is append-only'; END $$`,
      `CREATE TRIGGER dk_usage_append_only BEFORE UPDATE OR DELETE ON dk_usage
        FOR EACH ROW EXECUTE FUNCTION dk_usage_append_only()`,
      `CREATE TABLE dk_usage_epoch (
        ledger_id      BIGINT NOT NULL,
        reservation_id BIGINT NOT NULL,
        created_at     BIGINT NOT NULL
      )`,
      `INSERT INTO dk_usage_epoch (ledger_id, reservation_id, created_at)
        SELECT COALESCE((SELECT MAX(id) FROM dk_ledger), 0), COALESCE((SELECT MAX(id) FROM dk_reservations), 0),
          (extract(epoch FROM clock_timestamp()) * 1000)::bigint`,
    ],
  },
  {
    version: 4,
    description: 'retention: indexes to prune routes, finished jobs and track points by age',
    sqlite: [
      `CREATE INDEX dk_routes_created ON dk_routes (created_at)`,
      `CREATE INDEX dk_jobs_finished ON dk_jobs (finished_at) WHERE finished_at IS NOT NULL`,
      `CREATE INDEX dk_jobs_route ON dk_jobs (route_id) WHERE route_id IS NOT NULL`,
      `CREATE INDEX dk_track_points_ts ON dk_track_points (ts)`,
    ],
    postgres: [
      `CREATE INDEX dk_routes_created ON dk_routes (created_at)`,
      `CREATE INDEX dk_jobs_finished ON dk_jobs (finished_at) WHERE finished_at IS NOT NULL`,
      `CREATE INDEX dk_jobs_route ON dk_jobs (route_id) WHERE route_id IS NOT NULL`,
      `CREATE INDEX dk_track_points_ts ON dk_track_points (ts)`,
    ],
  },
  {
    version: 5,
    description: 'live re-dispatch: route versions with their specification, stop events',
    sqlite: [
      `ALTER TABLE dk_routes ADD COLUMN version INTEGER NOT NULL DEFAULT 1`,
      `ALTER TABLE dk_routes ADD COLUMN spec TEXT`,
      `ALTER TABLE dk_routes ADD COLUMN changes TEXT`,
      `ALTER TABLE dk_routes ADD COLUMN updated_at INTEGER`,
      `CREATE TABLE dk_route_versions (
        route_id   INTEGER NOT NULL REFERENCES dk_routes (id) ON DELETE CASCADE,
        version    INTEGER NOT NULL,
        spec       TEXT,
        result     TEXT    NOT NULL,
        changes    TEXT,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (route_id, version)
      ) WITHOUT ROWID`,
      `CREATE TABLE dk_stop_events (
        id         INTEGER PRIMARY KEY,
        route_id   INTEGER NOT NULL REFERENCES dk_routes (id) ON DELETE CASCADE,
        vehicle    TEXT    NOT NULL,
        location   TEXT    NOT NULL,
        event      TEXT    NOT NULL,
        ts         INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      )`,
      `CREATE INDEX dk_stop_events_route ON dk_stop_events (route_id, id)`,
    ],
    postgres: [
      `ALTER TABLE dk_routes ADD COLUMN version INTEGER NOT NULL DEFAULT 1`,
      `ALTER TABLE dk_routes ADD COLUMN spec TEXT`,
      `ALTER TABLE dk_routes ADD COLUMN changes TEXT`,
      `ALTER TABLE dk_routes ADD COLUMN updated_at BIGINT`,
      `CREATE TABLE dk_route_versions (
        route_id   BIGINT  NOT NULL REFERENCES dk_routes (id) ON DELETE CASCADE,
        version    INTEGER NOT NULL,
        spec       TEXT,
        result     TEXT    NOT NULL,
        changes    TEXT,
        created_at BIGINT  NOT NULL,
        PRIMARY KEY (route_id, version)
      )`,
      `CREATE TABLE dk_stop_events (
        id         BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        route_id   BIGINT NOT NULL REFERENCES dk_routes (id) ON DELETE CASCADE,
        vehicle    TEXT   NOT NULL,
        location   TEXT   NOT NULL,
        event      TEXT   NOT NULL,
        ts         BIGINT NOT NULL,
        created_at BIGINT NOT NULL
      )`,
      `CREATE INDEX dk_stop_events_route ON dk_stop_events (route_id, id)`,
    ],
  },
  {
    version: 6,
    description: "jobs: the price per unit quoted at submission (the job is charged at it, whatever the runner's price list); the job's turn among its account's",
    sqlite: [`ALTER TABLE dk_jobs ADD COLUMN unit_price INTEGER`, `ALTER TABLE dk_jobs ADD COLUMN priority INTEGER`],
    postgres: [`ALTER TABLE dk_jobs ADD COLUMN unit_price BIGINT`, `ALTER TABLE dk_jobs ADD COLUMN priority INTEGER`],
  },
];

/** The newest migration this code knows. */
export const SCHEMA_VERSION: number = MIGRATIONS[MIGRATIONS.length - 1].version;

/** The name of the migrations table (the same on both backends). */
export const MIGRATIONS_TABLE = 'dk_schema_migrations';
