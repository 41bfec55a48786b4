/**
 * Jobs on a real queue: BullMQ on Redis carries job ids from the servers (`serve --redis`) to
 * worker processes on any number of machines (`dispatchkit worker --redis`). The queue only
 * carries ids: specifications, states and results live in the service's database (jobs.ts), so
 *
 * - a worker killed mid-job: its lock lapses, BullMQ hands the job to another worker (a stalled
 *   job), which runs it again; the job ends exactly once (`Store.finishJob`);
 * - Redis restarted (it may keep nothing): the servers' reconciler enqueues again every job the
 *   database says is pending and the queue no longer holds;
 * - a poison job (one that kills its worker every time) ends failed after {@link MAX_ATTEMPTS}
 *   runs (BullMQ's stalled limit, and `runJob`'s own count of attempts), its reason stored;
 * - cancellation: the job's row says cancelled; the running worker sees it within a second
 *   (runJob polls the row) and stops;
 * - the database away: a run holds its result and tries to write its end for a minute
 *   (`writeJobEnd`); a run that cannot begin or end for that is put back in the queue, delayed
 *   {@link STORAGE_RETRY_MS}, without using an attempt (BullMQ's attempts are for runs that fail).
 */
import { DelayedError, Queue, QueueEvents, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Service } from './service.js';
import { MAX_ATTEMPTS, runJob, type JobBackend, type JobProgress } from './jobs.js';
import type { JobRecord } from '../store/types.js';
import { isTransientStorage } from '../store/common.js';

/**
 * How long a job waits in the queue when its run could not reach the database (away, restarting):
 * it is put back, delayed, without using one of its attempts — an outage of any length fails no job.
 */
export const STORAGE_RETRY_MS = 5000;

export const QUEUE_NAME = 'dispatchkit-jobs';

export interface RedisOptions {
  /** redis://host:port[/db] */
  url: string;
  /** Key prefix (default `dk`): several deployments can share one Redis. */
  prefix?: string;
}

/**
 * A connection for BullMQ. Blocking commands (a worker's, the queue events') need
 * maxRetriesPerRequest: null — they wait for Redis however long it is away. The server's queue
 * connection (`failFast`) gives up on a command after one reconnection attempt instead: with
 * null, a submission, a job's progress or a cancel waited for ever while Redis was away (the
 * request hung, its credit reserved).
 */
export function redisConnection(url: string, opts: { failFast?: boolean } = {}): Redis {
  const r = new Redis(url, { maxRetriesPerRequest: opts.failFast ? 1 : null, enableReadyCheck: true, lazyConnect: false });
  r.on('error', () => { /* ioredis reconnects by itself; the queue's users see the outage as delays */ });
  return r;
}

/** BullMQ's lowest priority (2^21). */
const MAX_PRIORITY = 2 ** 21;

/** How long cancelling a job waits for its removal from the queue. */
const CANCEL_WAIT_MS = 1500;

/** How long a BullMQ close may wait for its connections to end once its own work is done. */
export const CONNECTION_CLOSE_MS = 2000;

/**
 * Waits for a BullMQ `close()` at most `ms`; true when it finished in time. BullMQ's close waits
 * for its blocking connection's 'end' event, and ioredis never emits it for a connection that is
 * between two reconnect attempts (Redis went away or restarted a moment ago): without a bound the
 * close hangs for ever (test/service/redis-close.test.ts shows it). The connection is disconnected
 * either way; nothing keeps the process alive after the bound.
 */
export async function closeWithin(closing: Promise<unknown>, ms = CONNECTION_CLOSE_MS): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const done = await Promise.race([
    closing.then(() => true, () => true),
    new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), ms); }),
  ]);
  clearTimeout(timer);
  return done;
}

/** How long a server's presence on its queue lasts without being renewed (it renews it every few seconds). */
export const PRESENCE_TTL_MS = 15_000;
const presenceKey = (prefix: string | undefined): string => `${prefix ?? 'dk'}:${QUEUE_NAME}:server-seen`;

/** Whether a server (`serve --redis`) used this queue prefix in the last {@link PRESENCE_TTL_MS}. */
export async function serverSeen(url: string, prefix?: string): Promise<boolean> {
  const r = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  r.on('error', () => {});
  try {
    await r.connect();
    return (await r.exists(presenceKey(prefix))) === 1;
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

/** The servers' side: enqueue, progress, removal of cancelled waiting jobs, and the reconciler. */
export class RedisJobBackend implements JobBackend {
  readonly kind = 'redis';
  readonly queue: Queue;
  private readonly events: QueueEvents;
  private readonly conn: Redis;
  private readonly eventsConn: Redis;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly service: Service, readonly opts: RedisOptions) {
    this.conn = redisConnection(opts.url, { failFast: true });
    this.eventsConn = redisConnection(opts.url);
    const prefix = opts.prefix ?? 'dk';
    this.queue = new Queue(QUEUE_NAME, { connection: this.conn, prefix });
    this.events = new QueueEvents(QUEUE_NAME, { connection: this.eventsConn, prefix });
    // a job BullMQ gave up on (its worker died too often, or it kept throwing): record why
    this.events.on('failed', ({ jobId, failedReason }) => {
      void Promise.resolve()
        .then(() => this.service.store.finishJob({ id: jobId, state: 'failed', cost: 0, error: `The job failed: ${failedReason}`, now: this.service.clock() }))
        .catch(() => { /* the database is away: the reconciler records it later */ });
    });
    this.events.on('error', () => { /* reconnects by itself */ });
    this.queue.on('error', () => { /* reconnects by itself */ });
  }

  /**
   * Starts the reconciler (every `everyMs`, jobs pending for `graceMs` without a sign of life) and
   * the server's presence on its queue (workers look for it, see {@link serverSeen}).
   */
  start(everyMs = 3000, graceMs = 10_000): void {
    const beat = (): void => { void this.conn.set(presenceKey(this.opts.prefix), String(Date.now()), 'PX', PRESENCE_TTL_MS).catch(() => {}); };
    beat();
    this.timer = setInterval(() => { beat(); void this.reconcile(graceMs).catch(() => {}); }, everyMs);
    this.timer.unref();
  }

  /**
   * Queues a job by its turn among its account's pending jobs (BullMQ's priority: low first, the
   * same turn first in, first out): an account's backlog waits behind the others' first jobs, so
   * accounts share the workers — one account's 100 jobs no longer hold another's single one.
   */
  async enqueue(id: string, _accountId?: number, priority?: number | null): Promise<void> {
    await this.queue.add('run', { id }, {
      jobId: id,
      priority: Math.min(MAX_PRIORITY, Math.max(1, Math.floor(priority ?? 1))),
      attempts: MAX_ATTEMPTS,
      backoff: { type: 'fixed', delay: 500 },
      removeOnComplete: { age: 3600, count: 10_000 },
      removeOnFail: { age: 24 * 3600, count: 10_000 },
    });
  }

  async cancel(id: string): Promise<void> {
    // a waiting job leaves the queue; an active one stops by itself (runJob sees the row). Best
    // effort within CANCEL_WAIT_MS: the row says cancelled already, and a worker that still takes
    // the job ends it at once (Redis away, the commands would each wait for a reconnection)
    const removal = (async () => {
      const j = await this.queue.getJob(id);
      if (j && (await j.getState()) !== 'active') await j.remove();
    })().catch(() => { /* locked by a worker: it will stop */ });
    await Promise.race([removal, new Promise((r) => setTimeout(r, CANCEL_WAIT_MS).unref())]);
  }

  async progress(id: string): Promise<JobProgress | null> {
    const j = await this.queue.getJob(id).catch(() => null); // Redis away: no progress to show
    const p = j?.progress;
    return p && typeof p === 'object' && 'done' in (p as object) ? (p as JobProgress) : null;
  }

  /**
   * Jobs the database says are pending, with no sign of life for `graceMs`: enqueued again when
   * the queue lost them (a Redis restart), recorded as failed when BullMQ gave up on them.
   * How many were enqueued again.
   */
  async reconcile(graceMs: number): Promise<number> {
    const pending = await this.service.store.pendingJobs({ before: this.service.clock() - graceMs, limit: 500 });
    let n = 0;
    for (const job of pending) {
      const j = await this.queue.getJob(job.id);
      if (!j) {
        await this.enqueue(job.id, job.accountId, job.priority);
        n++;
        continue;
      }
      const state = await j.getState();
      if (state === 'failed') {
        await this.service.store.finishJob({ id: job.id, state: 'failed', cost: 0, error: `The job failed: ${j.failedReason}`, now: this.service.clock() });
      } else if (state === 'completed') {
        // the run ended but its result never reached the database (it was down): run it again
        await j.remove().catch(() => {});
        await this.enqueue(job.id, job.accountId, job.priority);
        n++;
      }
    }
    return n;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await Promise.all([closeWithin(this.events.close()), closeWithin(this.queue.close())]);
    this.conn.disconnect();
    this.eventsConn.disconnect();
  }
}

export interface WorkerOptions extends RedisOptions {
  /** Jobs at once in this process (default 1: the engine's threads do the heavy work). */
  concurrency?: number;
  /** A worker that has not renewed its lock for this long is presumed dead (default 10 s). */
  lockDurationMs?: number;
  /** Called when a run begins (after its attempt is counted). */
  onStart?: (job: JobRecord) => void;
  /** Called with a job id from the queue that the database does not hold (a worker on another database than its servers'). */
  onUnknown?: (id: string) => void;
  /** How long a run tries to write its end while the database is away (default `END_RETRY_MS`, a minute). */
  endRetryMs?: number;
  /** How long a job whose run could not reach the database waits in the queue (default {@link STORAGE_RETRY_MS}). */
  storageRetryMs?: number;
}

/** The workers' side: takes job ids from the queue and runs them (`dispatchkit worker`). */
export function startWorker(service: Service, opts: WorkerOptions): { worker: Worker; close: () => Promise<void> } {
  const conn = redisConnection(opts.url);
  const lockDuration = opts.lockDurationMs ?? 10_000;
  // the runs in progress: a close waits for them without a bound, then for the connections with one
  const running = new Set<Promise<unknown>>();
  const worker = new Worker(QUEUE_NAME, async (job: Job<{ id: string }>, token?: string, signal?: AbortSignal) => {
    const id = job.data.id;
    const run = runJob(service, id, {
      signal, onStart: opts.onStart, ...(opts.endRetryMs !== undefined ? { endRetryMs: opts.endRetryMs } : {}),
      onProgress: (p) => { void job.updateProgress(p).catch(() => {}); },
    });
    running.add(run);
    try {
      const outcome = await run;
      if (outcome === 'skipped') opts.onUnknown?.(id);
      return { outcome };
    } catch (e) {
      if (!isTransientStorage(e)) throw e;
      // the database is away: back to the queue for later, no attempt used
      await job.moveToDelayed(Date.now() + (opts.storageRetryMs ?? STORAGE_RETRY_MS), token);
      throw new DelayedError();
    } finally {
      running.delete(run);
    }
  }, {
    connection: conn, prefix: opts.prefix ?? 'dk', concurrency: opts.concurrency ?? 1,
    lockDuration, stalledInterval: Math.max(1000, Math.round(lockDuration / 2)), maxStalledCount: MAX_ATTEMPTS - 1,
  });
  worker.on('error', () => { /* reconnects by itself */ });
  return {
    worker,
    close: async () => {
      const closing = worker.close();
      await Promise.allSettled([...running]);
      await closeWithin(closing);
      conn.disconnect();
    },
  };
}
