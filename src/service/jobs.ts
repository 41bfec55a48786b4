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
import type { Account, JobRecord, JobState, Store } from '../store/types.js';
import { SERVICE_OPERATIONS, type ServiceOperationName } from './operations.js';
import type { Refusal, Service } from './service.js';

/** The operations a job may run. */
export const JOB_OPERATIONS = ['Dispatch', 'Geocode', 'CalculateRoutes'] as const;
export type JobOperation = (typeof JOB_OPERATIONS)[number];

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
  /** completed: the operation's result record (enum names; encode it with the operation's result schema). */
  Result?: Record<string, unknown>;
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
  /** Hands a job (its row already written) to a runner. */
  enqueue(id: string): Promise<void>;
  /** Stops a job that may be running (its row already says cancelled). */
  cancel(id: string): Promise<void>;
  /** The live progress of a running job, when known. */
  progress(id: string): Promise<JobProgress | null>;
  close(): Promise<void>;
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function jobView(j: JobRecord, progress: JobProgress | null): JobView {
  return {
    JobID: j.id, Operation: j.operation, State: j.state, Progress: j.state === 'completed' ? null : progress,
    ...(j.result !== null ? { Result: JSON.parse(j.result) as Record<string, unknown> } : {}),
    ...(j.error !== null ? { Error: j.error } : {}),
    ...(j.routeId !== null ? { RouteID: j.routeId } : {}),
    Cost: j.cost, Attempts: j.attempts, Created: iso(j.createdAt), Updated: iso(j.updatedAt),
  };
}

export class Jobs {
  constructor(readonly service: Service, readonly backend: JobBackend) {}

  private get store(): Store {
    return this.service.store;
  }

  /** Submits a job: its credit reserved, its row written, then queued. A refusal (403) when the credit does not cover it. */
  async submit(account: Account, operation: string, spec: unknown): Promise<{ JobID: string } | Refusal | { invalid: string }> {
    const op = JOB_OPERATIONS.find((o) => o.toLowerCase() === String(operation ?? '').toLowerCase());
    if (!op) return { invalid: `Operation: must be one of ${JOB_OPERATIONS.join(', ')} (got ${JSON.stringify(operation ?? null)})` };
    if (spec === undefined || spec === null || typeof spec !== 'object') return { invalid: `Specification: the ${SERVICE_OPERATIONS[op].spec!.name} of the job is required` };
    const id = randomUUID();
    const r = await this.service.reserveFor(account, op, spec, `job:${id}`);
    if ('kind' in r) return r;
    const now = Date.now();
    await this.store.createJob({ id, accountId: account.id, operation: op, spec: JSON.stringify(spec), reservationId: r.reservation, now });
    await this.backend.enqueue(id);
    return { JobID: id };
  }

  /** The account's job, or null (unknown, or another account's). */
  async get(account: Account, id: string): Promise<JobView | null> {
    const j = await this.store.getJob(id);
    if (!j || j.accountId !== account.id) return null;
    const finished = j.state === 'completed' || j.state === 'failed' || j.state === 'cancelled';
    return jobView(j, finished ? null : await this.backend.progress(id).catch(() => null));
  }

  /** Cancels the account's job: its credit refunded, its run stopped. False when unknown; a finished job stays as it ended. */
  async cancel(account: Account, id: string): Promise<JobView | null> {
    const j = await this.store.getJob(id);
    if (!j || j.accountId !== account.id) return null;
    const r = await this.store.finishJob({ id, state: 'cancelled', cost: 0, error: 'Cancelled by the caller.', now: Date.now() });
    if (r.finished) await this.backend.cancel(id);
    return this.get(account, id);
  }

  close(): Promise<void> {
    return this.backend.close();
  }
}

/**
 * Runs one job to its end, wherever it runs: the run begins (unless the job already ended or has
 * used up its attempts), the operation runs with progress and cancellation (the job's row is
 * polled: a cancelled job is stopped within a second), and the job ends exactly once with its
 * result and credit. Returns how it ended ('skipped': there was nothing to run).
 */
export async function runJob(
  service: Service, id: string,
  opts: { signal?: AbortSignal; onProgress?: (p: JobProgress) => void; pollMs?: number; onStart?: (job: JobRecord) => void } = {},
): Promise<JobState | 'skipped'> {
  const store = service.store;
  const job = await store.startJob(id, Date.now());
  if (!job) return 'skipped';
  opts.onStart?.(job);
  if (job.attempts > MAX_ATTEMPTS) {
    await store.finishJob({ id, state: 'failed', cost: 0, error: `Gave up after ${MAX_ATTEMPTS} attempts: each run ended without a result (a worker died or failed).`, now: Date.now() });
    return 'failed';
  }
  const account = await store.accountById(job.accountId);
  if (!account) {
    await store.finishJob({ id, state: 'failed', cost: 0, error: 'The account no longer exists.', now: Date.now() });
    return 'failed';
  }
  const name = job.operation as ServiceOperationName;
  const op = SERVICE_OPERATIONS[name];
  const spec = JSON.parse(job.spec) as unknown;
  const ac = new AbortController();
  const onOuter = (): void => ac.abort();
  opts.signal?.addEventListener('abort', onOuter);
  let cancelled = false;
  // heartbeat and cancellation: the row says whether the job is still wanted
  const poll = setInterval(() => {
    store.touchJob(id, Date.now())
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
  try {
    let result: Record<string, unknown>;
    try {
      result = (await service.engine.run(op.engine!, spec, { signal: service.limitSignal(name, ac.signal), onProgress, offload: true })) as Record<string, unknown>;
    } catch (e) {
      if (cancelled || ac.signal.aborted) {
        await store.finishJob({ id, state: 'cancelled', cost: 0, error: 'Cancelled.', now: Date.now() });
        return 'cancelled';
      }
      const r = toErrorRecord(e);
      await store.finishJob({ id, state: 'failed', cost: 0, error: `${r.message} [${r.code}]`, now: Date.now() });
      return 'failed';
    }
    if (cancelled || ac.signal.aborted) {
      await store.finishJob({ id, state: 'cancelled', cost: 0, error: 'Cancelled.', now: Date.now() });
      return 'cancelled';
    }
    const amount = job.reservationId === null ? 0 : Number.MAX_SAFE_INTEGER;
    const { cost, route } = service.settlement(name, account, spec, result, amount);
    const encoded = JSON.stringify(op.result.encode(result as never, { enums: 'name' }));
    const r = await store.finishJob({ id, state: 'completed', cost: job.reservationId === null ? 0 : cost, result: encoded, ...(route ? { route } : {}), now: Date.now() });
    return r.job?.state ?? 'completed';
  } finally {
    clearInterval(poll);
    opts.signal?.removeEventListener('abort', onOuter);
  }
}

/** Jobs in this process, one at a time in submission order (the engine's worker threads do the heavy work). */
export class LocalJobBackend implements JobBackend {
  readonly kind = 'local';
  private readonly queue: string[] = [];
  private readonly progressOf = new Map<string, JobProgress>();
  private readonly running = new Map<string, AbortController>();
  private closed = false;

  constructor(private readonly service: Service, private readonly concurrency = 1) {}

  async enqueue(id: string): Promise<void> {
    this.queue.push(id);
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.running.size < this.concurrency && this.queue.length > 0) {
      const id = this.queue.shift()!;
      const ac = new AbortController();
      this.running.set(id, ac);
      void runJob(this.service, id, { signal: ac.signal, onProgress: (p) => this.progressOf.set(id, p) })
        .catch(() => { /* the job's row records failures; a database that is away leaves it pending */ })
        .finally(() => {
          this.running.delete(id);
          this.progressOf.delete(id);
          this.pump();
        });
    }
  }

  async cancel(id: string): Promise<void> {
    this.running.get(id)?.abort();
    const i = this.queue.indexOf(id);
    if (i >= 0) this.queue.splice(i, 1);
  }

  async progress(id: string): Promise<JobProgress | null> {
    return this.progressOf.get(id) ?? null;
  }

  /** Jobs the database says are pending but this process does not hold (after a restart): run them. */
  async recover(): Promise<number> {
    const pending = await this.service.store.pendingJobs({ before: Date.now() });
    let n = 0;
    for (const j of pending) if (!this.running.has(j.id) && !this.queue.includes(j.id)) { this.queue.push(j.id); n++; }
    this.pump();
    return n;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const ac of this.running.values()) ac.abort();
  }
}
