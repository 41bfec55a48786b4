/**
 * What both backends share: argument checks, row → record mapping, the case-folding of names,
 * and the Storage errors of a newer database.
 */
import { EngineError, invalidInput } from '../core/errors.js';
import { SCHEMA_VERSION } from './migrations.js';
import { checkUsage, type AccountFacts, type AuditFacts, type ReservationFacts, type ReservationState, type StaleCandidate, type Usage } from './rules.js';
import type { Account, JobRecord, JobState, LedgerEntry, NewJob, LedgerKind, NewRoute, PruneCounts, PruneRequest, RouteFilter, RouteVersion, StopEvent, StopEventKind, StoredRoute, TrackPoint, UsageEntry } from './types.js';

/** The case-insensitive form of a name (account names, route names and owners), the same on both backends. */
export function foldCase(s: string): string {
  return typeof s === 'string' ? s.toLowerCase() : s;
}

/** Default and ceiling of `RouteFilter.limit`. */
export const DEFAULT_ROUTE_LIMIT = 1000;
/** Default of `getTrack`'s limit. */
export const DEFAULT_TRACK_LIMIT = 100_000;
/** Default of `ledger`'s limit. */
export const DEFAULT_LEDGER_LIMIT = 100;
/** Default of `pendingJobs`'s limit. */
export const DEFAULT_JOB_LIMIT = 1000;
/** Default of `usage`'s limit. */
export const DEFAULT_USAGE_LIMIT = 100;

export function checkInteger(path: string, v: unknown, min = Number.MIN_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) {
    throw invalidInput(path, `must be a whole number${min > Number.MIN_SAFE_INTEGER ? ` ≥ ${min}` : ''} (got ${String(v)})`);
  }
  return v;
}

export function checkKeyHash(path: string, h: unknown): Buffer {
  if (!Buffer.isBuffer(h) || h.length !== 32) throw invalidInput(path, 'must be a 32-byte SHA-256 digest');
  return h;
}

export function checkName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0) throw invalidInput('name', 'must be a non-empty string');
  return name;
}

/** A non-empty string. */
export function checkText(path: string, v: unknown): string {
  if (typeof v !== 'string' || v.length === 0) throw invalidInput(path, 'must be a non-empty string');
  return v;
}

const JOB_ID_RE = /^[A-Za-z0-9_-]{1,100}$/;

/** Whether `id` can name a job: 1 to 100 characters among A–Z, a–z, 0–9, `-` and `_` (a UUID fits). */
export function isJobId(id: unknown): id is string {
  return typeof id === 'string' && JOB_ID_RE.test(id);
}

export function checkJobId(id: unknown): string {
  if (!isJobId(id)) throw invalidInput('id', `must be 1 to 100 characters among A-Z, a-z, 0-9, '-' and '_' (got ${JSON.stringify(id)?.slice(0, 120)})`);
  return id;
}

/** The arguments of `createJob` that need no database. */
export function checkNewJob(p: NewJob): void {
  checkJobId(p.id);
  checkInteger('accountId', p.accountId, 1);
  checkText('operation', p.operation);
  if (typeof p.spec !== 'string') throw invalidInput('spec', 'must be a string (JSON text)');
  if (p.reservationId !== null && p.reservationId !== undefined) checkInteger('reservationId', p.reservationId, 1);
  if (p.unitPrice !== null && p.unitPrice !== undefined) checkInteger('unitPrice', p.unitPrice, 0);
  checkInteger('now', p.now);
}

const JOB_ENDS: readonly string[] = ['completed', 'failed', 'cancelled'];

/**
 * The arguments of `finishJob` that need no database: a final state; a cost ≥ 0, and 0 unless
 * completed; a route only for a completed job; result and error strings when given; the usage,
 * when given, matching the cost (returned).
 */
export function checkJobEnd(p: { id: string; state: string; cost: number; result?: string; error?: string; route?: NewRoute; usage?: Usage; now: number }): Usage | null {
  if (!JOB_ENDS.includes(p.state)) throw invalidInput('state', `must be completed, failed or cancelled (got ${String(p.state)})`);
  checkInteger('cost', p.cost, 0);
  if (p.state !== 'completed' && p.cost !== 0) throw invalidInput('cost', `must be 0 for a ${p.state} job (got ${p.cost})`);
  if (p.result !== undefined && p.result !== null && typeof p.result !== 'string') throw invalidInput('result', 'must be a string (JSON text)');
  if (p.error !== undefined && p.error !== null && typeof p.error !== 'string') throw invalidInput('error', 'must be a string');
  if (p.route !== undefined && p.route !== null) {
    if (p.state !== 'completed') throw invalidInput('route', `only a completed job stores a route (this one is ${p.state})`);
    routeValues(p.route);
  }
  checkInteger('now', p.now);
  return checkUsage(p.usage, p.cost);
}

/** The arguments of `grantCredit`. */
export function checkGrant(p: { amount: number; now: number; allowDebt?: boolean }): void {
  checkInteger('amount', p.amount);
  checkInteger('now', p.now);
  if (p.allowDebt !== undefined && p.allowDebt !== null && typeof p.allowDebt !== 'boolean') throw invalidInput('allowDebt', 'must be true or false');
}

/** The arguments of `reserve` and `charge` (an amount ≥ 1; a charge's usage matching it, returned). */
export function checkSpend(p: { amount: number; now: number; usage?: Usage }): Usage | null {
  checkInteger('amount', p.amount, 1);
  checkInteger('now', p.now);
  return checkUsage(p.usage, p.amount, 'amount');
}

/** The arguments of `settle` (the usage, when given, matching the cost: returned). */
export function checkSettle(p: { cost: number; now: number; route?: NewRoute; usage?: Usage }): Usage | null {
  checkInteger('cost', p.cost, 0);
  checkInteger('now', p.now);
  if (p.route !== undefined && p.route !== null) routeValues(p.route);
  return checkUsage(p.usage, p.cost);
}

/** The arguments of `releaseStale`. */
export function checkStale(p: { instance: string; now: number; staleMs: number }): void {
  checkText('instance', p.instance);
  checkInteger('now', p.now);
  checkInteger('staleMs', p.staleMs, 0);
}

/** Default and ceiling of prune's `batchSize`. */
export const DEFAULT_PRUNE_BATCH = 1000;
export const MAX_PRUNE_BATCH = 10_000;

/** prune's arguments: each `…Before` a whole number at or before `now`; the batch size. */
export function checkPrune(p: PruneRequest): { batch: number; kinds: { kind: keyof PruneCounts; before: number }[] } {
  checkInteger('now', p.now);
  const kinds: { kind: keyof PruneCounts; before: number }[] = [];
  // jobs first: a route goes once no job refers to it
  for (const [kind, v] of [['jobs', p.jobsBefore], ['routes', p.routesBefore], ['tracks', p.tracksBefore]] as const) {
    if (v === undefined || v === null) continue;
    checkInteger(`${kind}Before`, v);
    if (v > p.now) throw invalidInput(`${kind}Before`, `must be at or before now (${p.now}; got ${v}): an instant in ms`);
    kinds.push({ kind, before: v });
  }
  const batch = Math.max(1, limitOf('batchSize', p.batchSize, DEFAULT_PRUNE_BATCH, MAX_PRUNE_BATCH));
  return { batch, kinds };
}

/**
 * prune's batches, the same on both backends: per kind (jobs, then routes, then tracks) `deleteBatch`
 * deletes at most `batch` rows before `before` in one short transaction and says how many, until
 * a batch comes back short. The counts.
 */
export async function pruneInBatches(p: PruneRequest, deleteBatch: (kind: keyof PruneCounts, before: number, batch: number) => Promise<number>): Promise<PruneCounts> {
  const { batch, kinds } = checkPrune(p);
  const out: PruneCounts = { routes: 0, jobs: 0, tracks: 0 };
  for (const { kind, before } of kinds) {
    for (let n = batch; n === batch;) {
      n = await deleteBatch(kind, before, batch);
      out[kind] += n;
    }
  }
  return out;
}

/** A job still to run or running (not finished). */
export function isPending(state: JobState): boolean {
  return state === 'queued' || state === 'active';
}

/** A limit argument: a whole number ≥ 0, at most `max`; `dflt` when absent. */
export function limitOf(path: string, v: number | undefined, dflt: number, max = Number.MAX_SAFE_INTEGER): number {
  if (v === undefined || v === null) return dflt;
  return Math.min(checkInteger(path, v, 0), max);
}

export function checkTrackPoints(points: readonly TrackPoint[]): void {
  if (!Array.isArray(points)) throw invalidInput('points', 'must be an array');
  for (let i = 0; i < points.length; i++) {
    const p = points[i];
    if (!p || typeof p.lat !== 'number' || !Number.isFinite(p.lat) || typeof p.lon !== 'number' || !Number.isFinite(p.lon)) {
      throw invalidInput(`points[${i}]`, 'lat and lon must be finite numbers');
    }
    checkInteger(`points[${i}].ts`, p.ts);
  }
}

/** The SQL conditions (each prefixed by ` AND `) of a route filter; `param` binds a value and returns its placeholder. */
export function routeFilterSql(f: RouteFilter, param: (v: unknown) => string, contains: (column: string, p: string) => string): { where: string; limit: number } {
  const conds: string[] = [];
  if (f.from !== undefined && f.from !== null) conds.push(`created_at >= ${param(checkInteger('from', f.from))}`);
  if (f.to !== undefined && f.to !== null) conds.push(`created_at <= ${param(checkInteger('to', f.to))}`);
  if (f.owner !== undefined && f.owner !== null) conds.push(`owner_key = ${param(foldCase(f.owner))}`);
  if (f.name !== undefined && f.name !== null && f.name !== '') conds.push(contains('name_key', param(foldCase(f.name))));
  return { where: conds.map((c) => ` AND ${c}`).join(''), limit: limitOf('limit', f.limit, DEFAULT_ROUTE_LIMIT) };
}

/** The columns of a NewRoute, in insertion order (after account_id), with the folded keys. */
export function routeValues(r: NewRoute): unknown[] {
  if (!r || typeof r !== 'object') throw invalidInput('route', 'must be an object');
  return [r.name, foldCase(r.name), r.owner, foldCase(r.owner), r.distance, r.time, r.stops, r.vehicles];
}

export interface AccountRow {
  id: number | string;
  name: string;
  blocked: number | boolean;
  expires_at: number | string | null;
  created_at: number | string;
  balance: number | string;
  password_hash: string | null;
}

export const ACCOUNT_COLUMNS = 'id, name, blocked, expires_at, created_at, balance, password_hash';

export function toAccount(r: AccountRow): Account {
  return {
    id: Number(r.id),
    name: r.name,
    blocked: r.blocked === true || r.blocked === 1,
    expiresAt: r.expires_at === null ? null : Number(r.expires_at),
    createdAt: Number(r.created_at),
    balance: Number(r.balance),
    hasPassword: r.password_hash !== null,
  };
}

export function toAccountWithPassword(r: AccountRow): Account & { passwordHash: string | null } {
  return { ...toAccount(r), passwordHash: r.password_hash };
}

export interface LedgerRow {
  id: number;
  account_id: number;
  delta: number;
  kind: LedgerKind;
  note: string;
  reservation_id: number | null;
  created_at: number;
}

export const LEDGER_COLUMNS = 'id, account_id, delta, kind, note, reservation_id, created_at';

/** A ledger row as the Store reports it (integers may come back as strings or bigints). */
export function toLedgerEntry(r: LedgerRow): LedgerEntry {
  return {
    id: Number(r.id), accountId: Number(r.account_id), delta: Number(r.delta), kind: r.kind, note: r.note,
    reservationId: r.reservation_id === null ? null : Number(r.reservation_id), createdAt: Number(r.created_at),
  };
}

export interface RouteRow {
  id: number | string;
  account_id: number | string;
  name: string;
  owner: string;
  distance: number;
  time: number;
  stops: number;
  vehicles: number;
  created_at: number | string;
  /** Read where the schema has it (version 5; getRoute). */
  version?: number | string;
}

/** A route's columns as every schema version has them (statements prepared before a migration must still work). */
export const ROUTE_COLUMNS = 'id, account_id, name, owner, distance, time, stops, vehicles, created_at';

export function toRoute(r: RouteRow): StoredRoute {
  return {
    routeId: Number(r.id),
    accountId: Number(r.account_id),
    name: r.name,
    owner: r.owner,
    distance: Number(r.distance),
    time: Number(r.time),
    stops: Number(r.stops),
    vehicles: Number(r.vehicles),
    createdAt: Number(r.created_at),
    version: r.version === undefined ? 1 : Number(r.version),
  };
}

/** Columns of a route's current version (dk_routes) and of an earlier one (dk_route_versions), read as {@link VersionRow}. */
export const CURRENT_VERSION_COLUMNS = 'id AS route_id, version, spec, result, changes, COALESCE(updated_at, created_at) AS created_at, name, owner';
export const OLD_VERSION_COLUMNS = 'route_id, version, spec, result, changes, created_at';

export interface VersionRow {
  route_id: number | string;
  version: number | string;
  spec: string | null;
  result: string;
  changes: string | null;
  created_at: number | string;
  name: string;
  owner: string;
}

export function toVersion(r: VersionRow): RouteVersion {
  return { routeId: Number(r.route_id), version: Number(r.version), spec: r.spec, result: r.result, changes: r.changes, createdAt: Number(r.created_at), name: r.name, owner: r.owner };
}

/** Stop events as the store takes them: checked (InvalidInput names the field). */
export function checkStopEvents(events: readonly StopEvent[]): void {
  if (!Array.isArray(events)) throw invalidInput('events', 'must be a list');
  events.forEach((e, i) => {
    if (typeof e?.vehicle !== 'string' || typeof e.location !== 'string') throw invalidInput(`events[${i}]`, 'vehicle and location must be strings');
    if (!STOP_EVENT_KINDS.includes(e.event)) throw invalidInput(`events[${i}].event`, `must be one of ${STOP_EVENT_KINDS.join(', ')}`);
    checkInteger(`events[${i}].ts`, e.ts);
  });
}

export const STOP_EVENT_KINDS: readonly StopEventKind[] = ['Arrived', 'Done', 'Failed', 'Skipped'];

export interface JobRow {
  id: string;
  account_id: number | string;
  operation: string;
  spec: string;
  state: JobState;
  reservation_id: number | string | null;
  attempts: number | string;
  result: string | null;
  error: string | null;
  route_id: number | string | null;
  cost: number | string;
  created_at: number | string;
  updated_at: number | string;
  finished_at: number | string | null;
  unit_price: number | string | null;
  priority: number | string | null;
}

export const JOB_COLUMNS = 'id, account_id, operation, spec, state, reservation_id, attempts, result, error, route_id, cost, created_at, updated_at, finished_at, unit_price, priority';

export function toJobOrNull(r: JobRow | undefined | null): JobRecord | null {
  return r ? toJob(r) : null;
}

export function toJob(r: JobRow): JobRecord {
  return {
    id: r.id,
    accountId: Number(r.account_id),
    operation: r.operation,
    spec: r.spec,
    state: r.state,
    reservationId: r.reservation_id === null ? null : Number(r.reservation_id),
    attempts: Number(r.attempts),
    result: r.result,
    error: r.error,
    routeId: r.route_id === null ? null : Number(r.route_id),
    cost: Number(r.cost),
    unitPrice: r.unit_price === null || r.unit_price === undefined ? null : Number(r.unit_price),
    priority: r.priority === null || r.priority === undefined ? null : Number(r.priority),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    finishedAt: r.finished_at === null ? null : Number(r.finished_at),
  };
}

export const USAGE_COLUMNS = 'id, account_id, operation, units, unit_price, cost, reservation_id, created_at';

type Int = number | string;

export function toUsageEntry(r: { id: Int; account_id: Int; operation: string; units: Int; unit_price: Int; cost: Int; reservation_id: Int | null; created_at: Int }): UsageEntry {
  return {
    id: Number(r.id), accountId: Number(r.account_id), operation: r.operation, units: Number(r.units), unitPrice: Number(r.unit_price),
    cost: Number(r.cost), reservationId: r.reservation_id === null ? null : Number(r.reservation_id), createdAt: Number(r.created_at),
  };
}

/** A row of the backends' audit queries: per account, sums split at the usage epoch (`_rec` after it, `_old` before). */
export interface AuditRow {
  id: Int;
  name: string;
  balance: Int;
  ledger_sum: Int;
  taken_rec: Int;
  taken_old: Int;
  open_rec: Int;
  open_old: Int;
  usage_rec: Int;
  usage_old: Int;
}

export function toAuditFacts(r: AuditRow): AuditFacts {
  return {
    accountId: Number(r.id), name: r.name, balance: Number(r.balance), ledgerSum: Number(r.ledger_sum),
    taken: { recorded: Number(r.taken_rec), before: Number(r.taken_old) },
    open: { recorded: Number(r.open_rec), before: Number(r.open_old) },
    usage: { recorded: Number(r.usage_rec), before: Number(r.usage_old) },
  };
}

/** What the credit rules read of an account (`SELECT ${ACCOUNT_FACTS} FROM dk_accounts`). */
export const ACCOUNT_FACTS = 'id, balance, blocked, expires_at';

export function toAccountFacts(r: { id: number | string; balance: number | string; blocked: number | boolean; expires_at: number | string | null } | undefined): AccountFacts | null {
  if (!r) return null;
  return { id: Number(r.id), balance: Number(r.balance), blocked: r.blocked === true || r.blocked === 1, expiresAt: r.expires_at === null ? null : Number(r.expires_at) };
}

/** What the rules read of a reservation (`SELECT ${RESERVATION_FACTS} FROM dk_reservations r`). */
export const RESERVATION_FACTS = 'r.id, r.account_id, r.amount, r.operation, r.state, r.cost';

export interface ReservationRow {
  id: number | string;
  account_id: number | string;
  amount: number | string;
  operation: string;
  state: ReservationState;
  cost: number | string | null;
}

export function toReservationFacts(r: ReservationRow | undefined): ReservationFacts | null {
  if (!r) return null;
  return { id: Number(r.id), accountId: Number(r.account_id), amount: Number(r.amount), operation: r.operation, state: r.state, cost: r.cost === null ? null : Number(r.cost) };
}

/**
 * Open reservations with their instance and its heartbeat, for releaseStale (`… FROM dk_reservations r
 * LEFT JOIN dk_instances i ON i.id = r.instance`); for a job's (`job:<id>`), whether its job row exists
 * (by the job's primary key).
 */
export const STALE_FACTS = `${RESERVATION_FACTS}, r.instance, r.created_at, i.heartbeat,
  CASE WHEN substr(r.instance, 1, 4) = 'job:' AND EXISTS (SELECT 1 FROM dk_jobs j WHERE j.id = substr(r.instance, 5)) THEN 1 ELSE 0 END AS has_job`;

export function toStaleCandidate(r: ReservationRow & { instance: string; created_at: number | string; heartbeat: number | string | null; has_job: number | string }): StaleCandidate {
  return { ...toReservationFacts(r)!, instance: r.instance, createdAt: Number(r.created_at), heartbeat: r.heartbeat === null ? null : Number(r.heartbeat), hasJob: Number(r.has_job) === 1 };
}

/** A conditional write found the row no longer as the rule saw it (cannot happen while the row is locked: a safety net). */
export function changedMeanwhile(reservationId: number): EngineError {
  return new EngineError('Conflict', `Reservation ${reservationId} changed while it was being closed; nothing was written.`, { details: { reservationId } });
}

/** The database was written by a newer dispatchkit: refused, untouched. */
export function newerDatabase(location: string, version: number): EngineError {
  return new EngineError(
    'Storage',
    `The database ${location} is at schema version ${version}, written by a newer dispatchkit; this version supports up to ${SCHEMA_VERSION}. Upgrade dispatchkit (the database was left untouched).`,
    { details: { version, supported: SCHEMA_VERSION } },
  );
}

/** createJob with an id already taken. */
export function jobExists(cause: unknown): EngineError {
  return new EngineError('Conflict', 'A job with this id exists.', { cause });
}

export function closedError(location: string): EngineError {
  return new EngineError('Storage', `The database ${location} is closed.`, { details: { closed: true } });
}

/**
 * A failure of the database that may pass (it is away, restarting, a connection was cut): a
 * Storage error other than a store closed by its owner. Worth trying the write again a little later.
 */
export function isTransientStorage(e: unknown): boolean {
  return e instanceof EngineError && e.code === 'Storage' && (e.details as { closed?: unknown } | undefined)?.closed !== true;
}

/** Errors that are bugs of the caller or of this code, not failures of the database: passed through. */
export function isProgrammingError(e: unknown): boolean {
  return e instanceof EngineError || e instanceof ReferenceError || e instanceof SyntaxError || e instanceof RangeError;
}
