/**
 * The store's deciding write methods once, as flows: each reads the rows its rule needs, calls the
 * rule (`rules.ts`), and asks for the rule's writes — as {@link Step}s that a backend carries out
 * with its own SQL. SQLite runs a flow synchronously inside one group-committed write; PostgreSQL
 * runs it without a transaction first and, when the write's gate finds the rows changed since they
 * were read, once more in a transaction that reads them locked. Arguments that need no row are
 * checked before the flow starts, so a bad one is refused before any transaction.
 *
 * {@link FlowStore} is the base class of both backends: the Store methods that are flows, written
 * once; a backend supplies {@link FlowStore.run}.
 */
import {
  checkGrant, checkJobEnd, checkSettle, checkSpend, checkStale,
} from './common.js';
import * as rules from './rules.js';
import { refusalError, type AccountFacts, type Decision, type ReservationFacts, type StaleCandidate, type Usage, type Writes } from './rules.js';
import type { JobRecord, NewRoute } from './types.js';

/** What a flow asks of its backend. */
export type Step =
  /** Facts the backend remembers from earlier (PostgreSQL), or undefined: a flow decides on them only when its rule accepts. */
  | { recall: 'account' | 'reservation'; id: number }
  | { read: 'account' | 'reservation'; id: number }
  | { read: 'job'; id: string }
  /** The open reservations of instances other than `instance`, with those instances' last heartbeats. */
  | { read: 'stale'; instance: string }
  | { apply: Writes; now: number };

/** What a backend's apply wrote: the ids the callers want. */
export interface Applied {
  reservationId: number | null;
  entryIds: number[];
  routeId: number | null;
  job: JobRecord | null;
}

export type Flow<T> = Generator<Step, T, unknown>;
/** A flow, ready to start (again: PostgreSQL's locked retry starts it anew). */
export type FlowFn<T> = () => Flow<T>;

// Steps are yielded directly (no `yield*` helpers: each delegation costs V8 an iterator round per
// step, and these run on every paid request).
const recall = (what: 'account' | 'reservation', id: number): Step => ({ recall: what, id });
const read = (what: 'account' | 'reservation', id: number): Step => ({ read: what, id });

type GrantP = { accountId: number; amount: number; note: string; allowDebt?: boolean; now: number };
type ReserveP = { accountId: number; amount: number; operation: string; instance: string; now: number };
type ChargeP = { accountId: number; amount: number; operation: string; now: number; usage?: Usage };
type SettleP = { reservationId: number; cost: number; now: number; route?: NewRoute; usage?: Usage };
type StaleP = { instance: string; now: number; staleMs: number };
type FinishP = { id: string; state: 'completed' | 'failed' | 'cancelled'; cost: number; result?: string; error?: string; route?: NewRoute; usage?: Usage; now: number };

// Each flow is a generator function at module level, started by a small arrow: a generator
// function made per call (a closure) costs V8 far more, and these run on every paid request.

/** grantCredit: on the account as read now (its balance is what the grant reports). */
export function grant(p: GrantP): FlowFn<number | null> {
  checkGrant(p);
  return () => grantFlow(p);
}

function* grantFlow(p: GrantP): Flow<number | null> {
  const a = (yield read('account', p.accountId)) as AccountFacts | null;
  const d = rules.grant(a, { accountId: p.accountId, amount: p.amount, note: String(p.note ?? ''), allowDebt: p.allowDebt === true });
  if (!d.ok) {
    if (d.refusal.reason === 'no-account') return null;
    throw refusalError(d.refusal);
  }
  yield { apply: d.writes, now: p.now };
  return d.balance;
}

export function reserve(p: ReserveP): FlowFn<number | null> {
  checkSpend(p);
  return () => reserveFlow(p);
}

function* reserveFlow(p: ReserveP): Flow<number | null> {
  // decided on the account as remembered when the rule accepts it, else as read now (never refused on remembered facts)
  const seen = (yield recall('account', p.accountId)) as AccountFacts | undefined;
  let d: Decision | undefined = seen && rules.reserve(seen, p);
  if (!d?.ok) d = rules.reserve((yield read('account', p.accountId)) as AccountFacts | null, p);
  return d.ok ? ((yield { apply: d.writes, now: p.now }) as Applied).reservationId : null;
}

export function charge(p: ChargeP): FlowFn<number | null> {
  const q = { accountId: p.accountId, amount: p.amount, operation: p.operation, now: p.now, usage: checkSpend(p) };
  return () => chargeFlow(q);
}

function* chargeFlow(q: { accountId: number; amount: number; operation: string; now: number; usage: Usage | null }): Flow<number | null> {
  const seen = (yield recall('account', q.accountId)) as AccountFacts | undefined;
  let d: Decision | undefined = seen && rules.charge(seen, q);
  if (!d?.ok) d = rules.charge((yield read('account', q.accountId)) as AccountFacts | null, q);
  return d.ok ? ((yield { apply: d.writes, now: q.now }) as Applied).entryIds[0] : null;
}

export function settle(p: SettleP): FlowFn<{ routeId: number | null }> {
  const q = { reservationId: p.reservationId, cost: p.cost, route: p.route, usage: checkSettle(p) };
  return () => settleFlow(q, p.now);
}

function* settleFlow(q: { reservationId: number; cost: number; route?: NewRoute; usage: Usage | null }, now: number): Flow<{ routeId: number | null }> {
  const seen = (yield recall('reservation', q.reservationId)) as ReservationFacts | undefined;
  let d = seen && rules.settle(seen, q);
  if (!d?.ok) d = rules.settle((yield read('reservation', q.reservationId)) as ReservationFacts | null, q);
  if (!d.ok) throw refusalError(d.refusal);
  return { routeId: ((yield { apply: d.writes, now }) as Applied).routeId };
}

export function releaseStale(p: StaleP): FlowFn<number> {
  checkStale(p);
  const count = { released: 0 }; // over the attempts: each release is its own write, and a retry goes on where a changed row stopped the first
  return () => releaseStaleFlow(p, count);
}

function* releaseStaleFlow(p: StaleP, count: { released: number }): Flow<number> {
  const d = rules.releaseStale((yield { read: 'stale', instance: p.instance }) as StaleCandidate[], p);
  for (const w of d.writes) {
    yield { apply: w, now: p.now };
    count.released++;
  }
  return count.released;
}

export function finishJob(p: FinishP): FlowFn<{ finished: boolean; job: JobRecord | null }> {
  const usage = checkJobEnd(p);
  return () => finishJobFlow(p, usage);
}

function* finishJobFlow(p: FinishP, usage: Usage | null): Flow<{ finished: boolean; job: JobRecord | null }> {
  const job = (yield { read: 'job', id: p.id }) as JobRecord | null;
  const pending = job !== null && (job.state === 'queued' || job.state === 'active');
  const r = pending && job.reservationId !== null ? ((yield read('reservation', job.reservationId)) as ReservationFacts | null) : null;
  const d = rules.finishJob(job, r, { ...p, usage });
  if (!d.ok) throw refusalError(d.refusal);
  if (!d.finished) return { finished: false, job };
  return { finished: true, job: ((yield { apply: d.writes, now: p.now }) as Applied).job };
}

/** The Store methods that are flows, once; `run` carries a flow out (see the backends). */
export abstract class FlowStore {
  /** Runs the flow `make` returns (its argument checks throw: a rejected promise). */
  protected abstract run<T>(make: () => FlowFn<T>): Promise<T>;

  /** {@inheritDoc Store.grantCredit} */
  grantCredit(p: GrantP): Promise<number | null> {
    return this.run(() => grant(p));
  }

  /** {@inheritDoc Store.reserve} */
  reserve(p: ReserveP): Promise<number | null> {
    return this.run(() => reserve(p));
  }

  /** {@inheritDoc Store.charge} */
  charge(p: ChargeP): Promise<number | null> {
    return this.run(() => charge(p));
  }

  /**
   * {@inheritDoc Store.settle}
   * An unknown reservation is Conflict too; a cost above the reservation's amount is InvalidInput.
   */
  settle(p: SettleP): Promise<{ routeId: number | null }> {
    return this.run(() => settle(p));
  }

  /**
   * {@inheritDoc Store.releaseStale}
   * Stale: the instance's last heartbeat is at least `staleMs` old (`heartbeat ≤ now − staleMs`);
   * an instance that never sent one counts from the reservation's creation (rules.isStale).
   */
  releaseStale(p: StaleP): Promise<number> {
    return this.run(() => releaseStale(p));
  }

  /**
   * {@inheritDoc Store.finishJob}
   * Exactly once (rules.finishJob): of concurrent endings, the later ones read the job finished.
   * A cost above the reservation's amount, or above 0 without one, is InvalidInput; an unknown job
   * `{ finished: false, job: null }`.
   */
  finishJob(p: FinishP): Promise<{ finished: boolean; job: JobRecord | null }> {
    return this.run(() => finishJob(p));
  }
}
