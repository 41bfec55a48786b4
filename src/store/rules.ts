/**
 * The store's rules, once, as pure decisions: each takes the rows a backend fetched inside its
 * transaction (an account's state and balance, a reservation's state and amount, a job's state)
 * and the request, and returns either what to write ({@link Writes}: ledger entries, a new or
 * changed reservation, a usage record, a route, a job's end) or a {@link Refusal}. A backend
 * (`sqlite.ts`, `postgres.ts`) only fetches, calls the rule, and applies the writes with its own
 * SQL; it never decides. See docs/store.md.
 *
 * Invariants the rules keep (tested in test/store/rules.test.ts, on both backends by the suite):
 * - A decision writes at most one ledger entry and changes at most one reservation (and so at most
 *   one balance); releasing several stale reservations is one decision each.
 * - An account's balance changes only by the sum of the deltas of the entries written with it
 *   ({@link balanceChanges}; each backend applies exactly that), so balance = Σ ledger.
 * - A reservation settles once; its cost never exceeds its amount.
 * - The balance never goes below zero, except (a) a grant with `allowDebt`, and (b) the late
 *   settlement of a reservation released as stale (its amount was refunded when its instance
 *   looked dead; the operation did finish, so its cost is charged whatever the balance is then).
 */
import { EngineError, invalidInput } from '../core/errors.js';
import type { JobState, LedgerKind, NewRoute } from './types.js';

// ------------------------------------------------------------------ what the rules read

export type ReservationState = 'open' | 'settled' | 'released';

/** An account as the credit rules see it. */
export interface AccountFacts {
  id: number;
  balance: number;
  blocked: boolean;
  expiresAt: number | null;
}

export interface ReservationFacts {
  id: number;
  accountId: number;
  amount: number;
  operation: string;
  state: ReservationState;
  /** Set once settled. */
  cost: number | null;
}

/** An open reservation of another instance, with that instance's last heartbeat (null: none). */
export interface StaleCandidate extends ReservationFacts {
  instance: string;
  createdAt: number;
  heartbeat: number | null;
  /** For a job's reservation (`job:<id>`): whether the job's row exists. */
  hasJob?: boolean;
}

export interface JobFacts {
  id: string;
  accountId: number;
  state: JobState;
  reservationId: number | null;
}

/** What an operation used, recorded with its charge: `cost = units × unitPrice`. */
export interface Usage {
  operation: string;
  units: number;
  unitPrice: number;
}

// ------------------------------------------------------------------ what the rules write

/** An entry's reservation is the one this same write creates. */
export const NEW_RESERVATION = 'new' as const;

export interface EntryWrite {
  accountId: number;
  kind: LedgerKind;
  delta: number;
  note: string;
  reservationId: number | typeof NEW_RESERVATION | null;
}

/** A reservation moves from `from` to `to` (the backend's update is conditional on `from`). */
export interface ReservationWrite {
  id: number;
  from: ReservationState;
  to: 'settled' | 'released';
  cost: number | null;
}

export interface UsageWrite extends Usage {
  accountId: number;
  cost: number;
  reservationId: number | null;
}

export interface JobEndWrite {
  id: string;
  state: 'completed' | 'failed' | 'cancelled';
  cost: number;
  result: string | null;
  error: string | null;
}

/**
 * Everything one decision writes, in one transaction. The balance of each account changes by the
 * sum of its entries' deltas ({@link balanceChanges}) — never otherwise.
 */
export interface Writes {
  /** What the decision relied on about one account, for a backend that writes without holding the row locked since it read it. */
  guard?: AccountGuard;
  newReservation?: { accountId: number; amount: number; operation: string; instance: string };
  reservations: ReservationWrite[];
  entries: EntryWrite[];
  usage?: UsageWrite;
  /** A route stored with the settlement (its id goes to the job, when there is one). */
  route?: { accountId: number; route: NewRoute };
  job?: JobEndWrite;
}

/**
 * The facts of an account a decision relied on: its `blocked` and `expiresAt` as read (when given),
 * a balance of at least `minBalance`, or exactly `balance` (when given). Whenever they hold, the rule decides the
 * same writes ({@link guardHolds}; tested), so a backend may read without a lock and make its
 * write conditional on the guard (PostgreSQL does), doing it again when the guard no longer holds.
 */
export interface AccountGuard {
  accountId: number;
  blocked?: boolean;
  expiresAt?: number | null;
  minBalance?: number;
  balance?: number;
}

/** Whether the account `a` still satisfies `g`. */
export function guardHolds(g: AccountGuard, a: AccountFacts | null): boolean {
  return a !== null && a.id === g.accountId && (g.blocked === undefined || a.blocked === g.blocked)
    && (g.expiresAt === undefined || a.expiresAt === g.expiresAt) && (g.minBalance === undefined || a.balance >= g.minBalance)
    && (g.balance === undefined || a.balance === g.balance);
}

/** Why a rule refused: nothing is written. */
export type Refusal =
  | { reason: 'no-account'; accountId: number }
  | { reason: 'blocked'; accountId: number }
  | { reason: 'expired'; accountId: number; expiresAt: number }
  | { reason: 'short'; accountId: number; balance: number; amount: number }
  | { reason: 'debt'; accountId: number; balance: number; amount: number }
  | { reason: 'no-reservation'; reservationId: number }
  | { reason: 'settled'; reservationId: number }
  | { reason: 'over-amount'; reservationId: number; cost: number; amount: number }
  | { reason: 'no-reservation-cost'; cost: number }
  | { reason: 'reservation-account'; reservationId: number }
  | { reason: 'reservation-closed'; reservationId: number; state: ReservationState };

export type Decision<T extends object = object> = ({ ok: true; writes: Writes } & T) | { ok: false; refusal: Refusal };

const refuse = (refusal: Refusal): { ok: false; refusal: Refusal } => ({ ok: false, refusal });
const nothing = (): Writes => ({ reservations: [], entries: [] });

/** The error a refusal becomes where the Store throws (settle, finishJob, createJob, grantCredit). */
export function refusalError(r: Refusal): EngineError {
  switch (r.reason) {
    case 'no-reservation':
      return new EngineError('Conflict', `There is no reservation ${r.reservationId}.`, { details: { reservationId: r.reservationId } });
    case 'settled':
      return new EngineError('Conflict', `Reservation ${r.reservationId} is already settled.`, { details: { reservationId: r.reservationId } });
    case 'over-amount':
      return invalidInput('cost', `must be at most the reserved amount ${r.amount} (got ${r.cost})`);
    case 'no-reservation-cost':
      return invalidInput('cost', `must be 0 for a job without a reservation (got ${r.cost})`);
    case 'reservation-account':
      return invalidInput('reservationId', `reservation ${r.reservationId} belongs to another account`);
    case 'reservation-closed':
      return invalidInput('reservationId', `reservation ${r.reservationId} is not open (${r.state})`);
    case 'debt':
      return new EngineError(
        'Conflict',
        `Taking ${-r.amount} credits would leave a balance of ${r.balance + r.amount} (the balance is ${r.balance}); a negative balance needs allowDebt.`,
        { details: { accountId: r.accountId, balance: r.balance, amount: r.amount } },
      );
    case 'short':
      return new EngineError('Forbidden', `Not enough credit: ${r.amount} needed, the balance is ${r.balance}.`, { details: { balance: r.balance, amount: r.amount } });
    case 'blocked':
      return new EngineError('Forbidden', 'The account is blocked.');
    case 'expired':
      return new EngineError('Forbidden', 'The account has expired.');
    case 'no-account':
      return invalidInput('accountId', `there is no account ${r.accountId}`);
  }
}

/** Each account's balance change: the sum of its entries' deltas (accounts whose sum is 0 included when they have entries). */
export function balanceChanges(w: Writes): Map<number, number> {
  const m = new Map<number, number>();
  for (const e of w.entries) m.set(e.accountId, (m.get(e.accountId) ?? 0) + e.delta);
  return m;
}

// ------------------------------------------------------------------ argument checks that need no rows

function wholeAtLeast(path: string, v: unknown, min: number): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) throw invalidInput(path, `must be a whole number ≥ ${min} (got ${String(v)})`);
  return v;
}

/**
 * A usage record given with a cost: units and unitPrice whole numbers ≥ 0, a non-empty operation,
 * and `cost = units × unitPrice` (InvalidInput otherwise). Undefined/null: no usage.
 */
export function checkUsage(usage: Usage | undefined | null, cost: number, costPath = 'cost'): Usage | null {
  if (usage === undefined || usage === null) return null;
  if (typeof usage !== 'object') throw invalidInput('usage', 'must be { operation, units, unitPrice }');
  if (typeof usage.operation !== 'string' || usage.operation.length === 0) throw invalidInput('usage.operation', 'must be a non-empty string');
  const units = wholeAtLeast('usage.units', usage.units, 0);
  const unitPrice = wholeAtLeast('usage.unitPrice', usage.unitPrice, 0);
  if (!Number.isSafeInteger(units * unitPrice) || units * unitPrice !== cost) {
    throw invalidInput(costPath, `must equal usage.units × usage.unitPrice = ${units} × ${unitPrice} = ${units * unitPrice} (got ${cost})`);
  }
  return { operation: usage.operation, units, unitPrice };
}

// ------------------------------------------------------------------ credit

/**
 * An operator's grant (negative: credit taken back): one 'grant' entry. Refused when the account
 * does not exist, or when it would take the balance below zero — unless `allowDebt`. Blocked or
 * expired accounts can be granted credit. A grant that raises a negative balance is always allowed.
 * It reports the new balance, so it relies on the balance read (its guard: exactly that balance).
 */
export function grant(account: AccountFacts | null, p: { accountId: number; amount: number; note: string; allowDebt?: boolean }): Decision<{ balance: number }> {
  if (!account) return refuse({ reason: 'no-account', accountId: p.accountId });
  const balance = account.balance + p.amount;
  if (p.amount < 0 && !p.allowDebt && balance < 0) return refuse({ reason: 'debt', accountId: account.id, balance: account.balance, amount: p.amount });
  return {
    ok: true,
    balance,
    writes: {
      reservations: [],
      guard: { accountId: account.id, balance: account.balance },
      entries: [{ accountId: account.id, kind: 'grant', delta: p.amount, note: p.note, reservationId: null }],
    },
  };
}

/** Whether the account may spend `amount` at `now`: it exists, is not blocked or expired, and its balance covers it. */
export function maySpend(account: AccountFacts | null, p: { accountId: number; amount: number; now: number }): Refusal | null {
  const { amount, now } = p;
  if (!account) return { reason: 'no-account', accountId: p.accountId };
  if (account.blocked) return { reason: 'blocked', accountId: account.id };
  if (account.expiresAt !== null && account.expiresAt <= now) return { reason: 'expired', accountId: account.id, expiresAt: account.expiresAt };
  if (account.balance < amount) return { reason: 'short', accountId: account.id, balance: account.balance, amount };
  return null;
}

/** What {@link maySpend} relied on. */
function spendGuard(a: AccountFacts, amount: number): AccountGuard {
  return { accountId: a.id, blocked: a.blocked, expiresAt: a.expiresAt, minBalance: amount };
}

/** Credit taken before an operation: an open reservation and its 'reserve' entry. */
export function reserve(account: AccountFacts | null, p: { accountId: number; amount: number; operation: string; instance: string; now: number }): Decision {
  const no = maySpend(account, p);
  if (no) return refuse(no);
  const accountId = account!.id;
  return {
    ok: true,
    writes: {
      guard: spendGuard(account!, p.amount),
      newReservation: { accountId, amount: p.amount, operation: p.operation, instance: p.instance },
      reservations: [],
      entries: [{ accountId, kind: 'reserve', delta: -p.amount, note: p.operation, reservationId: NEW_RESERVATION }],
    },
  };
}

/** A known cost taken after the work, with no reservation: one 'charge' entry (and its usage). */
export function charge(account: AccountFacts | null, p: { accountId: number; amount: number; operation: string; now: number; usage?: Usage | null }): Decision {
  const no = maySpend(account, p);
  if (no) return refuse(no);
  const accountId = account!.id;
  const w: Writes = { reservations: [], guard: spendGuard(account!, p.amount), entries: [{ accountId, kind: 'charge', delta: -p.amount, note: p.operation, reservationId: null }] };
  if (p.usage) w.usage = { ...p.usage, accountId, cost: p.amount, reservationId: null };
  return { ok: true, writes: w };
}

/**
 * A reservation closed at `cost`. Open: the rest (amount − cost) refunded, when any. Released as
 * stale meanwhile (its amount was refunded then): the cost is charged again (a 'charge' entry
 * with the reservation; the balance may go below zero). Settled already: refused ('settled'),
 * or with `settledOk` (a job's end) left alone — nothing written, the cost it was settled at
 * returned. Unknown: refused. A cost above the amount: refused ('over-amount').
 * With `usage`, the usage is recorded when this settlement writes (open or released); with
 * `route`, the route is stored under the reservation's account.
 */
export function settle(
  r: ReservationFacts | null,
  p: { reservationId: number; cost: number; usage?: Usage | null; route?: NewRoute | null; settledOk?: boolean },
): Decision<{ accountId: number; cost: number; was: ReservationState }> {
  if (!r) return refuse({ reason: 'no-reservation', reservationId: p.reservationId });
  if (r.state === 'settled' && !p.settledOk) return refuse({ reason: 'settled', reservationId: r.id });
  if (p.cost > r.amount) return refuse({ reason: 'over-amount', reservationId: r.id, cost: p.cost, amount: r.amount });
  if (r.state === 'settled') return { ok: true, accountId: r.accountId, cost: r.cost ?? 0, was: r.state, writes: nothing() };
  const w: Writes = { reservations: [{ id: r.id, from: r.state, to: 'settled', cost: p.cost }], entries: [] };
  if (r.state === 'open') {
    if (r.amount > p.cost) w.entries.push({ accountId: r.accountId, kind: 'refund', delta: r.amount - p.cost, note: r.operation, reservationId: r.id });
  } else if (p.cost > 0) {
    w.entries.push({ accountId: r.accountId, kind: 'charge', delta: -p.cost, note: r.operation, reservationId: r.id });
  }
  if (p.usage) w.usage = { ...p.usage, accountId: r.accountId, cost: p.cost, reservationId: r.id };
  if (p.route) w.route = { accountId: r.accountId, route: p.route };
  return { ok: true, accountId: r.accountId, cost: p.cost, was: r.state, writes: w };
}

/**
 * Whether an open reservation is stale for `p.instance` at `p.now`: another instance's, and that
 * instance silent for at least `staleMs` (its last heartbeat ≤ now − staleMs; one that never sent
 * any counts from the reservation's creation). A job's (instance `job:…`, case-sensitive) is closed
 * by its job's end, never released — unless its job row was never written (the server died between
 * the reservation and the row: the credit was lost for good) and `staleMs` has passed since it was made.
 */
export function isStale(c: StaleCandidate, p: { instance: string; now: number; staleMs: number }): boolean {
  if (c.state !== 'open' || c.instance === p.instance) return false;
  if (c.instance.startsWith('job:')) return c.hasJob === false && c.createdAt <= p.now - p.staleMs;
  return (c.heartbeat ?? c.createdAt) <= p.now - p.staleMs;
}

/** The stale ones among `candidates` released: each refunded in full ('refund' entry), one decision each. */
export function releaseStale(candidates: readonly StaleCandidate[], p: { instance: string; now: number; staleMs: number }): { released: number[]; writes: Writes[] } {
  const stale = candidates.filter((c) => isStale(c, p));
  return {
    released: stale.map((c) => c.id),
    writes: stale.map((c) => ({
      reservations: [{ id: c.id, from: 'open', to: 'released', cost: null }],
      entries: [{ accountId: c.accountId, kind: 'refund', delta: c.amount, note: c.operation, reservationId: c.id }],
    })),
  };
}

// ------------------------------------------------------------------ jobs

/** The reservation given to createJob must be an open one of the job's account. */
export function jobReservation(r: { accountId: number; state: ReservationState } | null, p: { reservationId: number; accountId: number }): Refusal | null {
  if (!r) return { reason: 'no-reservation', reservationId: p.reservationId };
  if (r.accountId !== p.accountId) return { reason: 'reservation-account', reservationId: p.reservationId };
  if (r.state !== 'open') return { reason: 'reservation-closed', reservationId: p.reservationId, state: r.state };
  return null;
}

/** createJob's refusals are all InvalidInput (the caller named a reservation it cannot use). */
export function jobReservationError(r: Refusal): EngineError {
  if (r.reason === 'no-reservation') return invalidInput('reservationId', `there is no reservation ${r.reservationId}`);
  return refusalError(r);
}

/**
 * A job's end, once. Unknown or already finished: `finished: false` and no writes (the first
 * ending stands). Otherwise the job's state, result or error and cost are written, with its
 * reservation settled by {@link settle}'s rule at `cost` (completed) or 0 (failed, cancelled;
 * refunded in full) — a reservation settled already by someone else is left alone and the job's
 * cost is what it was settled at (0 unless completed) — and the route, when given. A job without
 * a reservation is free (a cost above 0 refused).
 */
export function finishJob(
  job: JobFacts | null,
  r: ReservationFacts | null,
  p: { state: 'completed' | 'failed' | 'cancelled'; cost: number; result?: string | null; error?: string | null; route?: NewRoute | null; usage?: Usage | null },
): { ok: true; finished: false } | Decision<{ finished: true; cost: number }> {
  if (!job || (job.state !== 'queued' && job.state !== 'active')) return { ok: true, finished: false };
  let cost = p.cost;
  let w: Writes;
  if (job.reservationId === null) {
    if (p.cost !== 0) return refuse({ reason: 'no-reservation-cost', cost: p.cost });
    w = nothing();
    if (p.usage) w.usage = { ...p.usage, accountId: job.accountId, cost: 0, reservationId: null };
  } else {
    const d = settle(r, { reservationId: job.reservationId, cost: p.cost, usage: p.usage, settledOk: true });
    if (!d.ok) return d;
    if (d.was === 'settled') cost = p.state === 'completed' ? d.cost : 0;
    w = d.writes;
  }
  if (p.route) w.route = { accountId: job.accountId, route: p.route };
  w.job = { id: job.id, state: p.state, cost, result: p.result ?? null, error: p.error ?? null };
  return { ok: true, finished: true, cost, writes: w };
}

// ------------------------------------------------------------------ audit

/** Sums a backend reads for one account's audit, split at the moment usage began to be recorded. */
export interface AuditFacts {
  accountId: number;
  name: string;
  balance: number;
  ledgerSum: number;
  /** −Σ delta of reserve, refund and charge entries: `recorded` those after usage recording began, `before` the others. */
  taken: { recorded: number; before: number };
  /** Σ amount of reservations still open, split the same way. */
  open: { recorded: number; before: number };
  /** Σ cost of usage records, split the same way (a settlement of an older reservation counts as `before`). */
  usage: { recorded: number; before: number };
}

/** One account's audit (see {@link audit}). */
export interface AccountAudit {
  accountId: number;
  name: string;
  balance: number;
  ledgerSum: number;
  /** Credits charged for operations since usage was recorded: −Σ(reserve, refund, charge) less the still-open reservations' amounts. */
  netCharged: number;
  /** Σ cost of the usage recorded over the same entries. */
  usageCost: number;
  /** Amounts of reservations still open (not charged yet, not in netCharged). */
  openReserved: number;
  /** The same two sums for entries written before usage was recorded: reported, never an error. */
  beforeUsage: { netCharged: number; usageCost: number };
  ok: boolean;
  /** Human-readable, empty when ok. */
  problems: string[];
  /** Facts worth knowing that are not errors (charges before usage was recorded, a negative balance). */
  notes: string[];
}

/** The audit of one account: ok when balance = Σ ledger and, since usage was recorded, net charged = Σ usage cost. */
export function audit(f: AuditFacts): AccountAudit {
  const netCharged = f.taken.recorded - f.open.recorded;
  const before = { netCharged: f.taken.before - f.open.before, usageCost: f.usage.before };
  const problems: string[] = [];
  const notes: string[] = [];
  if (f.balance !== f.ledgerSum) problems.push(`balance ${f.balance} ≠ ledger sum ${f.ledgerSum} (${signed(f.balance - f.ledgerSum)})`);
  if (netCharged !== f.usage.recorded) {
    problems.push(netCharged > f.usage.recorded
      ? `charged ${netCharged} credit(s) for operations but usage records account for ${f.usage.recorded}: ${netCharged - f.usage.recorded} charged without a usage record`
      : `usage records account for ${f.usage.recorded} credit(s) but only ${netCharged} were charged: ${f.usage.recorded - netCharged} recorded without a charge`);
  }
  if (before.netCharged !== 0 || before.usageCost !== 0) {
    notes.push(`before usage was recorded: ${before.netCharged} credit(s) charged${before.usageCost ? ` (${before.usageCost} of them with a usage record)` : ''}; not checked`);
  }
  if (f.balance < 0) notes.push(`the balance is negative (${f.balance})`);
  const openReserved = f.open.recorded + f.open.before;
  if (openReserved > 0) notes.push(`${openReserved} credit(s) reserved by operations still running`);
  return {
    accountId: f.accountId, name: f.name, balance: f.balance, ledgerSum: f.ledgerSum,
    netCharged, usageCost: f.usage.recorded, openReserved, beforeUsage: before, ok: problems.length === 0, problems, notes,
  };
}

const signed = (n: number): string => (n > 0 ? `+${n}` : String(n));

// ------------------------------------------------------------------ retention

const DAY_MS = 86_400_000;

/** Suggested retention, in days, of what {@link Store.prune} deletes (the service's defaults). */
export const SUGGESTED_RETENTION_DAYS = { routes: 90, jobs: 30, tracks: 90 } as const;

/** Job states {@link Store.prune} may delete (a queued or active job is never deleted). */
export const FINISHED_JOB_STATES = ['completed', 'failed', 'cancelled'] as const;

/** prune's instants for retention periods in days (a kind left out, or null, is kept forever). */
export function retentionCutoffs(now: number, days: { routes?: number | null; jobs?: number | null; tracks?: number | null }): { now: number; routesBefore?: number; jobsBefore?: number; tracksBefore?: number } {
  const at = (d: number | null | undefined, path: string): number | undefined => {
    if (d === undefined || d === null) return undefined;
    if (typeof d !== 'number' || !Number.isFinite(d) || d < 0) throw invalidInput(path, `must be a number of days ≥ 0 (got ${String(d)})`);
    return now - Math.round(d * DAY_MS);
  };
  const out: { now: number; routesBefore?: number; jobsBefore?: number; tracksBefore?: number } = { now };
  const r = at(days.routes, 'routes'), j = at(days.jobs, 'jobs'), t = at(days.tracks, 'tracks');
  if (r !== undefined) out.routesBefore = r;
  if (j !== undefined) out.jobsBefore = j;
  if (t !== undefined) out.tracksBefore = t;
  return out;
}
