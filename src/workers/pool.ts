/**
 * The {@link Executor} on worker threads (piscina). Tasks travel as `{ kind, payload }`; the
 * worker looks the handler up in `tasks.ts`. Large inputs travel as SharedArrayBuffers (the
 * dataset is handed over once, as shared data in workerData); results come back as transferable
 * typed arrays. Errors cross as plain ErrorRecords (see core/errors.ts); progress events cross
 * on a MessagePort made per task when the caller listens.
 *
 * Fair sharing: each thread runs up to {@link PoolOptions.tasksPerThread} tasks at once, and long
 * tasks hand their thread back every few milliseconds (the solver's searches in slices, matrices
 * between row chunks), so a short task that arrives while a long dispatch searches waits at most
 * one slice instead of the whole search (docs/service.md, "Fair sharing"; bench/fairness.ts).
 * Cancellation is therefore cooperative: a running task is never killed (that would kill the
 * tasks sharing its thread); the caller's promise rejects with Cancelled at once, and the task
 * sees `env.signal` aborted at its next check (a flag on shared memory, read synchronously).
 *
 * From the built package the worker is plain JS; from the TypeScript sources (tests, tsx) see
 * {@link workerEntry}.
 */
import { Piscina } from 'piscina';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { getMaxListeners, setMaxListeners } from 'node:events';
import v8 from 'node:v8';
import vm from 'node:vm';
import { EngineError, toErrorRecord, type ErrorRecord } from '../core/errors.js';
import { backingOf, releaseUnfinishedReads, type FileBacking } from '../core/binfile.js';
import { asCallerSees, cancelledBy, type ProgressEvent } from '../core/cancel.js';
import type { Executor, RunOptions, TaskKind, TaskPayload, TaskResult } from '../core/executor.js';

export interface PoolOptions {
  /** Worker threads; default: one per core. */
  threads?: number;
  /** Shared data every worker can reach (`env.shared`), e.g. the dataset buffer. */
  shared?: Record<string, unknown>;
  /** Tasks one thread runs at once, interleaved where they yield (default {@link TASKS_PER_THREAD}). */
  tasksPerThread?: number;
  /** Each thread's young generation, MB (default {@link WORKER_YOUNG_MB}). */
  youngGenerationMb?: number;
  /** Each thread's old generation ceiling, MB (default {@link workerOldGenerationMb}). */
  oldGenerationMb?: number;
}

/** Default of {@link PoolOptions.tasksPerThread}. */
export const TASKS_PER_THREAD = 4;

/**
 * Default of {@link PoolOptions.youngGenerationMb}. V8 lets a young generation grow to tens of
 * megabytes per isolate, which each worker thread then keeps resident; the kernels' hot data lives
 * in typed arrays, so a small nursery costs them no measurable time (X-n298-k31 on 2 threads,
 * equal work: 5.6-5.9 s wall with V8's default, 4 or 8 MB; a 1,000-stop Porto solve, 2 threads, equal
 * work, 7 alternating runs: CPU median 26.8 s at 4 MB, 27.7 s at 8 MB) and takes ~15 MB a thread off
 * a dispatch's peak at 8 MB, ~4 MB more at 4 (peak RSS median 153 against 160 MB; 2 MB was ~6 %
 * slower). Issue #26 item 4, bench/dispatch-memory.ts.
 */
export const WORKER_YOUNG_MB = 4;

/**
 * Ceiling of {@link workerOldGenerationMb}. V8 sizes the room a heap may grow into before its next
 * full collection by a factor of its live size, up to 4 when the heap's limit is 2 GB or more —
 * which a worker thread inherits from the process (4,096 MB on a machine with 16 GB or more) —
 * and up to about 2 below it. A thread's own heap holds the solver's and the operations' objects
 * (the large data is typed arrays and shared buffers, outside it): well under this ceiling even
 * at 10,000 stops (0.72 GB for the whole process, bench/dispatch-scale.ts), and the lower factor
 * takes ~10 MB off a 1,000-stop Porto dispatch's peak (median of 5 alternating runs, 2 threads:
 * 176 against 186 MB, bench/dispatch-memory.ts) with the same plans and no measurable CPU
 * (X-n936-k151, equal work, 2 threads). Issue #26 item 4.
 */
export const WORKER_OLD_MB = 2047;

/**
 * Default of {@link PoolOptions.oldGenerationMb}: {@link WORKER_OLD_MB}, or the process's own heap
 * limit where that is lower (`--max-old-space-size`, read with its young generation, a few MB more),
 * so that a process given a small heap does not get threads with a larger one.
 */
export function workerOldGenerationMb(): number {
  return Math.min(WORKER_OLD_MB, Math.floor(v8.getHeapStatistics().heap_size_limit / 2 ** 20));
}

/** What crosses to the worker. */
export interface TaskEnvelope {
  kind: string;
  payload: unknown;
  port?: MessagePort;
  /** Int32 cancel flag on shared memory (1 = cancelled), when the caller can cancel. */
  cancel?: SharedArrayBuffer;
}

export type TaskReply = { ok: true; value: unknown } | { ok: false; error: ErrorRecord };

const HERE = new URL('.', import.meta.url);
const IS_TS = import.meta.url.endsWith('.ts');

/**
 * The worker's entry and how node loads it. From the built package: `entry.cjs`, which imports the
 * plain ESM `worker.js` (why not the worker itself: entry.cts). From
 * the TypeScript sources (tests, benches under tsx), tsx reaches a worker thread's modules only
 * through its CommonJS transform on Node 20 (its ESM hooks do not apply in workers: piscina
 * `require`s the entry), where every imported binding is read through a getter call — the
 * solver's searches then take ~1.5× the CPU time of the built code (X-n101-k25, 2 threads, same
 * iterations and plan: 36.4 → 23.3 s). So when the built package is up to date with the sources
 * (`dist/workers/entry.cjs` no older than any file under `src/`), the worker is the built one — the
 * code users run; otherwise the `.ts` file through tsx. `DK_WORKERS=ts` or `dist` forces either.
 */
export function workerEntry(): { filename: string; execArgv: string[]; built: boolean } {
  const ts = { filename: new URL('worker.ts', HERE).href, execArgv: ['--import', 'tsx'], built: false };
  if (!IS_TS) return { filename: new URL('entry.cjs', HERE).href, execArgv: [], built: true };
  const built = new URL('../../dist/workers/entry.cjs', HERE);
  const dist = { filename: built.href, execArgv: [], built: true };
  const forced = process.env.DK_WORKERS;
  if (forced === 'ts') return ts;
  if (forced === 'dist') return dist;
  currentCache ??= builtIsCurrent(fileURLToPath(built), fileURLToPath(new URL('..', HERE)));
  return currentCache ? dist : ts;
}

/** {@link builtIsCurrent} of this checkout, decided once per process. */
let currentCache: boolean | null = null;

/** Whether the built worker exists and is no older than every file under `srcDir`. */
export function builtIsCurrent(builtWorker: string, srcDir: string): boolean {
  try {
    if (!existsSync(builtWorker)) return false;
    const builtAt = statSync(builtWorker).mtimeMs;
    for (const f of readdirSync(srcDir, { recursive: true, withFileTypes: true })) {
      if (f.isFile() && statSync(`${f.parentPath ?? f.path}/${f.name}`).mtimeMs > builtAt) return false;
    }
    return true;
  } catch {
    return false;
  }
}

export class WorkerPool implements Executor {
  private readonly piscina: Piscina;
  readonly threads: number;
  readonly offThread = true;
  readonly shared: Readonly<Record<string, unknown>>;

  constructor(opts: PoolOptions = {}) {
    this.threads = opts.threads === undefined ? availableParallelism() : checkThreads(opts.threads);
    this.shared = opts.shared ?? {};
    // a shared buffer read on demand from its file (a dataset opened by path) goes with its file's
    // record, so that the threads read the sections they take (core/binfile.ts)
    const backings = (this.backings = Object.values(this.shared).map((v) => (v instanceof SharedArrayBuffer ? backingOf(v) : undefined)).filter((b): b is FileBacking => b !== undefined));
    const entry = workerEntry();
    this.piscina = new Piscina({
      filename: entry.filename,
      minThreads: this.threads,
      maxThreads: this.threads,
      idleTimeout: 60_000,
      concurrentTasksPerWorker: Math.max(1, Math.floor(opts.tasksPerThread ?? TASKS_PER_THREAD)),
      // an idle thread waits on its event loop, not blocked in Atomics.wait: V8 then collects its
      // garbage and gives the memory back (a large dispatch's 1+ GB within seconds, where a blocked
      // thread kept it until its next task)
      atomics: 'disabled',
      // piscina's run- and wait-time histograms (0.3 MB of native memory each) are never read here
      recordTiming: false,
      workerData: { ...this.shared, ...(backings.length ? { backings } : {}), [LOADED_KEY]: this.loaded.buffer },
      resourceLimits: { maxYoungGenerationSizeMb: opts.youngGenerationMb ?? WORKER_YOUNG_MB, maxOldGenerationSizeMb: opts.oldGenerationMb ?? workerOldGenerationMb() },
      execArgv: entry.execArgv,
    });
    this.piscina.on('workerCreate', () => { this.created++; });
    // a thread that fails with no task of its own (its modules cannot load: EMFILE, a damaged
    // install) must not end the process: piscina replaces it, and tasks sent to a failing thread fail
    this.piscina.on('error', (e: unknown) => { this.lastError = e; });
  }

  /** Threads started, and threads whose modules have loaded (worker.ts counts itself in `loaded`). */
  private created = 0;
  private readonly loaded = new Int32Array(new SharedArrayBuffer(4));
  private readonly backings: FileBacking[];
  private closing: Promise<void> | null = null;
  /** The last error of a thread that failed outside any task (for diagnosis; the process goes on). */
  lastError: unknown = undefined;

  /**
   * Runs one task on a worker. Rejects with an EngineError (code preserved across the thread
   * boundary); an aborted signal rejects with Cancelled at once (the task itself stops at its next
   * check of `env.signal`; a task still queued never starts its work).
   */
  async run<K extends TaskKind>(kind: K, payload: TaskPayload<K>, opts: RunOptions = {}): Promise<TaskResult<K>> {
    const signal = opts.signal;
    if (signal?.aborted) throw cancelledBy(signal);
    let port1: MessagePort | undefined;
    let ended: Promise<void> | undefined;
    const envelope: TaskEnvelope = { kind, payload };
    const transfer: (ArrayBuffer | MessagePort)[] = [...(opts.transfer ?? [])];
    // the task stops (its cancel flag) and the caller's promise settles at once when the caller's
    // signal aborts, or when the caller's own progress callback throws (that error, as the same
    // callback throwing inside an in-thread task would give it)
    let stop: ((why: EngineError) => void) | undefined;
    let stopped: EngineError | undefined;
    let aborted: Promise<never> | undefined;
    if (signal || opts.onProgress) {
      envelope.cancel = new SharedArrayBuffer(4);
      const f = new Int32Array(envelope.cancel);
      aborted = new Promise<never>((_, reject) => {
        stop = (why) => {
          if (stopped) return;
          stopped = why;
          Atomics.store(f, 0, 1);
          reject(why);
        };
      });
      aborted.catch(() => { /* observed through the race below */ });
    }
    if (opts.onProgress) {
      const ch = new MessageChannel();
      const port = (port1 = ch.port1);
      const cb = opts.onProgress;
      // The worker ends its progress stream with `null`; events are delivered before the task settles.
      ended = new Promise<void>((resolve) => {
        port.on('message', (e: ProgressEvent | null) => {
          if (e === null) return resolve();
          if (stopped) return;
          try {
            cb(e);
          } catch (err) {
            stop!(EngineError.fromRecord(toErrorRecord(err)));
          }
        });
        port.on('close', resolve);
      });
      envelope.port = ch.port2;
      transfer.push(ch.port2);
    }
    const onAbort = signal ? () => stop!(cancelledBy(signal)) : undefined;
    if (signal) {
      // one operation's signal is shared by its many tasks (tiles, chunks): no leak warning for them
      if (getMaxListeners(signal) < 1000) setMaxListeners(1000, signal);
      signal.addEventListener('abort', onAbort!, { once: true });
    }
    let reply: TaskReply;
    try {
      const task = this.piscina.run(envelope, { transferList: transfer as never }) as Promise<TaskReply>;
      if (aborted) task.catch(() => { /* a cancelled task's own end is not waited for */ });
      reply = await (aborted ? Promise.race([task, aborted]) : task);
      if (ended) await Promise.race([ended, new Promise((r) => setTimeout(r, 1000).unref())]);
      if (stopped) throw stopped;
    } catch (e) {
      if (stopped) throw stopped;
      if (signal?.aborted) throw cancelledBy(signal);
      throw EngineError.fromRecord(toErrorRecord(e));
    } finally {
      if (onAbort) signal!.removeEventListener('abort', onAbort);
      port1?.close();
    }
    if (!reply.ok) throw asCallerSees(EngineError.fromRecord(reply.error), signal);
    return reply.value as TaskResult<K>;
  }

  /**
   * Ends the threads (tasks still running are dropped: cancel them first to have them settle as
   * Cancelled). Closing twice, or again while closing, is the same close. Threads still loading
   * their modules are given up to {@link CLOSE_LOAD_WAIT_MS} to finish first: Node 20 keeps the
   * files of a module graph open when a thread is terminated while importing it (a pool closed as
   * it starts leaked ~40 descriptors a time). A section a terminated thread was reading is marked
   * unread again, so the next reader does not wait for it (core/binfile.ts).
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const deadline = Date.now() + CLOSE_LOAD_WAIT_MS;
      while (Atomics.load(this.loaded, 0) < this.created && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await this.piscina.destroy();
      for (const b of this.backings) releaseUnfinishedReads(b);
    })();
    return this.closing;
  }
}

/** How long {@link WorkerPool.close} waits for threads still loading their modules. */
export const CLOSE_LOAD_WAIT_MS = 5000;

/** Where a worker thread finds the counter of threads whose modules have loaded (workerData). */
export const LOADED_KEY = '__dkThreadsLoaded';

/** The most worker threads a pool (and the engine, the CLI) accepts: 4 × the machine's available parallelism. */
export const MAX_THREADS = 4 * availableParallelism();

/**
 * A thread count: a whole number from 1 to {@link MAX_THREADS}, else InvalidInput at `path`
 * (`label` names it in the message, e.g. the CLI's `--threads`). A string is read as a number.
 */
export function checkThreads(value: unknown, path = 'threads', label = path): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_THREADS) {
    throw new EngineError('InvalidInput', `${label} must be a whole number from 1 to ${MAX_THREADS} (4 × the ${availableParallelism()} available cores); got ${typeof value === 'string' ? `"${value}"` : String(value)}.`, { path });
  }
  return n;
}

let gcFn: (() => void) | null | undefined;
/**
 * A full garbage collection of the calling thread, where V8 lets one be asked for (a process not
 * started with --expose-gc gets it through the flag set at run time); a no-op where it cannot.
 * For giving memory back after heavy work (Engine, workers/worker.ts), never on a busy thread.
 */
export function fullCollection(): void {
  if (gcFn === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc');
      gcFn = vm.runInNewContext('gc') as () => void;
    } catch {
      gcFn = null;
    }
  }
  gcFn?.();
}
