/**
 * Jobs: Dispatch, Geocode and CalculateRoutes run asynchronously — submitted, watched (state and
 * progress), cancelled — in this process, or on worker processes on any number of machines behind
 * a Redis queue (`redis.ts`). The database is the source of truth: a job's row holds its
 * specification, state and result, so that a queue that loses its data (a Redis restart) loses no
 * job (the reconciler enqueues again what the database says is pending), and a job ends exactly
 * once (`Store.finishJob`: one result, one settlement in the ledger, whatever the retries).
 *
 * Credit: the most the job can cost is reserved at submission (refused with 403 otherwise) under
 * the instance `job:<id>`, which no stale sweep releases; the job's end settles it — the cost of
 * the work done when it completes, nothing when it fails or is cancelled.
 */
import { randomUUID } from 'node:crypto';
import type { ProgressEvent } from '../core/cancel.js';
import { toErrorRecord } from '../core/errors.js';
import { failedFromIssues, joined, jsonSliced, parseJsonSliced, RawJson, safeParseSliced } from '../records/index.js';
import type { Account, JobRecord, JobState, Store } from '../store/types.js';
import { isPending, isTransientStorage } from '../store/common.js';
import { jobOperations, operationNamed, parseRequest, type ServiceOperation } from './operations.js';
import { quote } from './prices.js';
import { isRefusal, refuse, type Refusal } from './refusals.js';
import type { Service } from './service.js';

/** The operations a job may run (the rows marked `job` in the operation table). */
export const JOB_OPERATIONS = jobOperations().map((o) => o.name);

/** A run is abandoned after this many attempts (each a worker that died or failed mid-run). */
export const MAX_ATTEMPTS = 3;

export interface JobProgress {
  phase: string;
  done: number;
  total: number;
  info?: Record<string, unknown>;
}

/** What GET /rest/jobs/{id} answers. */
export interface JobView {
  JobID: string;
  Operation: string;
  State: JobState;
  Progress: JobProgress | null;
  /** completed: the operation's result record, as JSON text (see {@link JobResult}). */
  Result?: JobResult;
  Error?: string;
  RouteID?: number;
  /** Credits taken (once finished). */
  Cost: number;
  Attempts: number;
  Created: string;
  Updated: string;
}

/** Where jobs run. */
export interface JobBackend {
  readonly kind: 'local' | 'redis';
  /**
   * Hands a job (its row already written) to a runner. `priority`: the job's turn among its
   * account's ({@link JobRecord.priority}; a queue serves low turns first, so accounts share it).
   */
  enqueue(id: string, accountId: number, priority?: number | null): Promise<void>;
  /** Stops a job that may be running (its row already says cancelled). */
  cancel(id: string): Promise<void>;
  /** The live progress of a running job, when known. */
  progress(id: string): Promise<JobProgress | null>;
  close(): Promise<void>;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * A completed job's result as JSON text, in one enum form: as stored (enum names), or converted
 * for a face that writes integers ({@link JobResult.inForm}). It is written into answers as the
 * text it is (records/json-sliced.ts), never parsed to be answered: a result can be megabytes,
 * and a plain `JSON.parse` + validation + encoding of 3 MB held a server's event loop ~170 ms.
 */
export class JobResult extends RawJson {
  constructor(text: string, readonly enums: 'int' | 'name', readonly operation: string) { super(text); }

  /** The result record's JSON value (parsed in slices). */
  value(): Promise<Record<string, unknown>> {
    return parseJsonSliced(this.text) as Promise<Record<string, unknown>>;
  }

  /**
   * This result with its enums as integers or names: parsed, validated and written again by its
   * operation's result record, in slices. One that no longer validates (stored before a bound was
   * set on a field) is given as it was stored.
   */
  async inForm(enums: 'int' | 'name'): Promise<JobResult> {
    if (enums === this.enums) return this;
    const row = operationNamed(this.operation);
    if (!row) return this;
    const parsed = await safeParseSliced(row.result, await this.value());
    if (!parsed.ok) return this;
    return new JobResult(joined(await jsonSliced(row.result, parsed.value, { enums })), enums, this.operation);
  }

  /** The same conversion in one go, for a face that cannot wait (small results; {@link inForm} otherwise). */
  inFormNow(enums: 'int' | 'name'): JobResult {
    if (enums === this.enums) return this;
    const row = operationNamed(this.operation);
    const parsed = row?.result.safeParse(JSON.parse(this.text));
    if (!row || !parsed?.ok) return this;
    return new JobResult(JSON.stringify(row.result.encode(parsed.value as never, { enums })), enums, this.operation);
  }
}

export function jobView(j: JobRecord, progress: JobProgress | null): JobView {
  return {
    JobID: j.id, Operation: j.operation, State: j.state, Progress: j.state === 'completed' ? null : progress,
    ...(j.result !== null ? { Result: new JobResult(j.result, 'name', j.operation) } : {}),
    ...(j.error !== null ? { Error: j.error } : {}),
    ...(j.routeId !== null ? { RouteID: j.routeId } : {}),
    Cost: j.cost, Attempts: j.attempts, Created: iso(j.createdAt), Updated: iso(j.updatedAt),
  };
}

/**
 * How long a run keeps trying to write its end while the database is away (a restart, a cut
 * connection): the result is held in memory meanwhile, so a short outage loses no work. Past it
 * the run throws; the job stays pending and its backend runs it again later.
 */
export const END_RETRY_MS = 60_000;

/** {@link Store.finishJob}, tried again (250 ms, doubling to 5 s) while the database is away, for up to `retryMs`. */
export async function writeJobEnd(store: Store, p: Parameters<Store['finishJob']>[0], retryMs = END_RETRY_MS, clock: () => number = Date.now): Promise<Awaited<ReturnType<Store['finishJob']>>> {
  const deadline = Date.now() + retryMs;
  let wait = 250;
  for (;;) {
    try {
      return await store.finishJob({ ...p, now: clock() });
    } catch (e) {
      if (!isTransientStorage(e) || Date.now() + wait > deadline) throw e;
      await new Promise((r) => setTimeout(r, wait));
      wait = Math.min(wait * 2, 5000);
    }
  }
}

const isFinished = (s: JobState): boolean => !isPending(s);

export class Jobs {
  constructor(readonly service: Service, readonly backend: JobBackend) {
    service.jobs = this;
  }

  private get store(): Store {
    return this.service.store;
  }

  /**
   * Submits a job: the specification validated and priced by its row (the most it can cost
   * reserved under the instance `job:<id>` — 403 when the credit does not cover it), its row
   * written, then queued. An invalid specification is a job too: it completes at once with the
   * operation's Failed result, costing nothing (the same answer as the synchronous call).
   */
  async submit(account: Account, operation: string, spec: unknown): Promise<{ JobID: string } | Refusal> {
    const row = operationNamed(String(operation ?? ''));
    if (!row || !row.faces.job) return refuse('BadRequest', `Operation: must be one of ${JOB_OPERATIONS.join(', ')} (got ${JSON.stringify(operation ?? null)})`);
    if (spec === undefined || spec === null || typeof spec !== 'object' || Array.isArray(spec)) return refuse('BadRequest', `Specification: the ${row.spec!.name} of the job is required (an object)`);
    const id = randomUUID();
    const parsed = await parseRequest(row, spec);
    let reservation: number | null = null;
    let unitPrice: number | null = null;
    if (parsed.ok) {
      const q = quote(row, this.service.prices, parsed.value);
      unitPrice = q.unitPrice;
      if (q.amount > 0) {
        const r = await this.service.reserveFor(account, row, q, `job:${id}`);
        if (isRefusal(r)) return r;
        reservation = r.reservation;
      }
    }
    const now = this.service.clock();
    // the price quoted now travels with the job: whichever process runs it charges at it
    const job = await this.store.createJob({ id, accountId: account.id, operation: row.name, spec: JSON.stringify(spec), reservationId: reservation, unitPrice, now });
    // the job is recorded: a queue that cannot take it now (Redis away) gets it from the
    // reconciler once it is back (a pending job with no sign of life), so the submission stands
    await this.backend.enqueue(id, account.id, job.priority).catch(() => {});
    return { JobID: id };
  }

  /** The account's job, or null (unknown, or another account's). */
  async get(account: Account, id: string): Promise<JobView | null> {
    const j = await this.store.getJob(id);
    if (!j || j.accountId !== account.id) return null;
    return jobView(j, isFinished(j.state) ? null : await this.backend.progress(id).catch(() => null));
  }

  /** Cancels the account's job: its credit refunded, its run stopped. Null when unknown; a finished job stays as it ended. */
  async cancel(account: Account, id: string): Promise<JobView | null> {
    const j = await this.store.getJob(id);
    if (!j || j.accountId !== account.id) return null;
    const r = await this.store.finishJob({ id, state: 'cancelled', cost: 0, error: 'Cancelled by the caller.', now: this.service.clock() });
    if (r.finished) await this.backend.cancel(id);
    return this.get(account, id);
  }

  close(): Promise<void> {
    return this.backend.close();
  }
}

/**
 * Runs one job to its end, wherever it runs: the run begins (unless the job already ended or has
 * used up its attempts), the operation runs through the service's own pipeline (validated and
 * priced by its row, under the job time limit) with progress and cancellation (the job's row is
 * polled: a cancelled job is stopped within a second), and the job ends exactly once with its
 * result, its credit and its usage record. Returns how it ended ('skipped': nothing to run).
 */
export async function runJob(
  service: Service, id: string,
  opts: { signal?: AbortSignal; onProgress?: (p: JobProgress) => void; pollMs?: number; onStart?: (job: JobRecord) => void; endRetryMs?: number } = {},
): Promise<JobState | 'skipped'> {
  const store = service.store;
  // the service's clock for every time written (the ledger's, in tests a fake one)
  const clock = service.clock;
  const job = await store.startJob(id, clock());
  if (!job) return 'skipped';
  opts.onStart?.(job);
  if (job.attempts > MAX_ATTEMPTS) {
    await store.finishJob({ id, state: 'failed', cost: 0, error: `Gave up after ${MAX_ATTEMPTS} attempts: each run ended without a result (a worker died or failed).`, now: clock() });
    return 'failed';
  }
  const account = await store.accountById(job.accountId);
  const row = operationNamed(job.operation);
  if (!account || !row) {
    await store.finishJob({ id, state: 'failed', cost: 0, error: !account ? 'The account no longer exists.' : `No operation ${job.operation}.`, now: clock() });
    return 'failed';
  }
  const ac = new AbortController();
  const onOuter = (): void => ac.abort();
  opts.signal?.addEventListener('abort', onOuter);
  // cancelled while the run began (its 'abort' event is gone)
  if (opts.signal?.aborted) ac.abort();
  let cancelled = false;
  // heartbeat and cancellation: the row says whether the job is still wanted
  const poll = setInterval(() => {
    store.touchJob(id, clock())
      .then(() => store.getJob(id))
      .then((j) => { if (j && j.state === 'cancelled') { cancelled = true; ac.abort(); } })
      .catch(() => { /* the database is away: the run goes on */ });
  }, opts.pollMs ?? 1000);
  let lastProgress = 0;
  const onProgress = (e: ProgressEvent): void => {
    const now = performance.now();
    if (now - lastProgress < 200 && e.done < e.total) return;
    lastProgress = now;
    opts.onProgress?.({ phase: e.phase, done: e.done, total: e.total, ...(e.info ? { info: e.info } : {}) });
  };
  const end = async (state: 'cancelled' | 'failed', error: string): Promise<JobState> => {
    await writeJobEnd(store, { id, state, cost: 0, error, now: clock() }, opts.endRetryMs, clock);
    return state;
  };
  try {
    const spec = JSON.parse(job.spec) as unknown;
    let parsed;
    try {
      // a long specification is validated in slices (a second at 10,000 stops): a cancel stops that too
      parsed = await parseRequest(row, spec, ac.signal);
    } catch (e) {
      if (ac.signal.aborted) return await end('cancelled', 'Cancelled.');
      throw e;
    }
    let result: Record<string, unknown>;
    let units = 0, cost = 0, unitPrice = 0;
    let route;
    if (!parsed.ok) result = failedFromIssues(parsed.issues, row.failed);
    else {
      const q = quote(row, service.prices, parsed.value, job.unitPrice);
      let w;
      try {
        w = await service.work(row, parsed.value, account, { signal: ac.signal, onProgress }, q, false, true);
      } catch (e) {
        if (cancelled || ac.signal.aborted) return await end('cancelled', 'Cancelled.');
        const r = toErrorRecord(e);
        return await end('failed', `${r.message} [${r.code}]`);
      }
      if (isRefusal(w)) return await end('failed', w.message);
      ({ result, units, cost, route } = w);
      unitPrice = q.unitPrice;
    }
    if (cancelled || ac.signal.aborted) return await end('cancelled', 'Cancelled.');
    const charged = job.reservationId === null ? 0 : cost;
    // a large result (megabytes) is written in slices: a server running jobs in-process keeps answering
    const encoded = joined(await jsonSliced(row.result, result as never, { enums: 'name' }));
    const r = await writeJobEnd(store, {
      id, state: 'completed', cost: charged, result: encoded, ...(route ? { route } : {}), now: clock(),
      ...(charged > 0 ? { usage: { operation: row.name, units, unitPrice } } : {}),
    }, opts.endRetryMs, clock);
    return r.job?.state ?? 'completed';
  } finally {
    clearInterval(poll);
    opts.signal?.removeEventListener('abort', onOuter);
  }
}

/**
 * Jobs in this process, shared fairly between accounts: at most `slots` jobs run at once (their
 * heavy work interleaves on the engine's worker threads, see workers/pool.ts), at most
 * `perAccount` of them for one account, and a free slot goes to the waiting account that started
 * a job least recently (round robin). So one account's long jobs never hold another account's
 * job queued: it starts as soon as a slot is free, and the two share the machine.
 */
export class LocalJobBackend implements JobBackend {
  readonly kind = 'local';
  /** Waiting job ids per account, in submission order. */
  private readonly waiting = new Map<number, string[]>();
  private readonly lastStart = new Map<number, number>();
  private readonly runningOf = new Map<number, number>();
  private readonly progressOf = new Map<string, JobProgress>();
  private readonly running = new Map<string, AbortController>();
  private readonly slots: number;
  private readonly perAccount: number;
  private starts = 0;
  private closed = false;

  constructor(private readonly service: Service, opts: { slots?: number; perAccount?: number } = {}) {
    this.slots = Math.max(1, opts.slots ?? 4);
    this.perAccount = Math.max(1, opts.perAccount ?? 1);
  }

  async enqueue(id: string, accountId: number): Promise<void> {
    const q = this.waiting.get(accountId);
    if (q) q.push(id);
    else this.waiting.set(accountId, [id]);
    this.pump();
  }

  /** The account whose turn it is: waiting jobs, under its cap, least recently started. */
  private next(): number | null {
    let best: number | null = null;
    for (const [account, q] of this.waiting) {
      if (q.length === 0 || (this.runningOf.get(account) ?? 0) >= this.perAccount) continue;
      if (best === null || (this.lastStart.get(account) ?? -1) < (this.lastStart.get(best) ?? -1)) best = account;
    }
    return best;
  }

  private pump(): void {
    while (!this.closed && this.running.size < this.slots) {
      const account = this.next();
      if (account === null) return;
      const q = this.waiting.get(account)!;
      const id = q.shift()!;
      if (q.length === 0) this.waiting.delete(account);
      this.lastStart.set(account, ++this.starts);
      this.runningOf.set(account, (this.runningOf.get(account) ?? 0) + 1);
      const ac = new AbortController();
      this.running.set(id, ac);
      void runJob(this.service, id, { signal: ac.signal, onProgress: (p) => this.progressOf.set(id, p) })
        .catch(() => { /* the job's row records failures; a database that is away leaves it pending */ })
        .finally(() => {
          this.running.delete(id);
          this.progressOf.delete(id);
          const n = (this.runningOf.get(account) ?? 1) - 1;
          if (n > 0) this.runningOf.set(account, n);
          else this.runningOf.delete(account);
          this.pump();
        });
    }
  }

  async cancel(id: string): Promise<void> {
    this.running.get(id)?.abort();
    for (const [account, q] of this.waiting) {
      const i = q.indexOf(id);
      if (i >= 0) {
        q.splice(i, 1);
        if (q.length === 0) this.waiting.delete(account);
      }
    }
  }

  async progress(id: string): Promise<JobProgress | null> {
    return this.progressOf.get(id) ?? null;
  }

  private holds(id: string): boolean {
    if (this.running.has(id)) return true;
    for (const q of this.waiting.values()) if (q.includes(id)) return true;
    return false;
  }

  /**
   * Jobs the database says are pending, with no sign of life for `graceMs`, that this process does
   * not hold: run them (a previous run of this server left them, or a run here ended without being
   * able to write its end — the database was away). The grace is the Redis reconciler's: another
   * server on the same database touches the jobs it runs every second and those it holds waiting
   * every few ({@link start}), so they are never taken from it.
   */
  async recover(graceMs = RECOVER_GRACE_MS): Promise<number> {
    const pending = await this.service.store.pendingJobs({ before: this.service.clock() - graceMs });
    let n = 0;
    for (const j of pending) {
      if (this.holds(j.id)) continue;
      const q = this.waiting.get(j.accountId);
      if (q) q.push(j.id);
      else this.waiting.set(j.accountId, [j.id]);
      n++;
    }
    this.pump();
    return n;
  }

  private timer: ReturnType<typeof setInterval> | null = null;

  /**
   * Every `everyMs`: the jobs held waiting here show a sign of life (their rows touched), then
   * {@link recover} runs — at once, then on every tick.
   */
  start(everyMs = 3000, graceMs = RECOVER_GRACE_MS): void {
    if (this.timer) return;
    const tick = async (): Promise<void> => {
      const now = this.service.clock();
      for (const q of this.waiting.values()) for (const id of q) await this.service.store.touchJob(id, now);
      await this.recover(graceMs);
    };
    void tick().catch(() => { /* the database is away: the next tick tries again */ });
    this.timer = setInterval(() => { void tick().catch(() => {}); }, everyMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const ac of this.running.values()) ac.abort();
  }
}

/** How long a pending job shows no sign of life before a server takes it over (as the Redis reconciler's grace). */
export const RECOVER_GRACE_MS = 10_000;
