/**
 * Parallel work without threads in the kernels: a kernel that can split its work into tasks
 * declares the task kinds it offers (payload and result types) by augmenting {@link TaskMap},
 * exports a handler per kind, and runs tasks through whatever {@link Executor} its caller hands
 * it. `workers/` implements the interface with a piscina thread pool and in the calling thread;
 * kernels never know which.
 *
 *   // in a kernel module
 *   declare module '../core/executor.js' {
 *     interface TaskMap { 'matrix-tile': TaskTypes<MatrixTask, MatrixTaskResult> }
 *   }
 *   const tile = await executor.run('matrix-tile', task);   // typed payload and result
 *
 * Kinds are checked at compile time (an unknown kind or a wrong payload does not type-check) and
 * at run time (the worker refuses a kind it has no handler for, with a coded error).
 */
import type { ProgressCallback } from './cancel.js';

/** Payload and result of one task kind. */
export interface TaskTypes<Payload, Result> {
  payload: Payload;
  result: Result;
}

/**
 * Every task kind, mapped to its {@link TaskTypes}. Empty here: each kernel adds its own kinds by
 * declaration merging, next to the code that runs them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface TaskMap {}

export type TaskKind = keyof TaskMap & string;
export type TaskPayload<K extends TaskKind> = TaskMap[K] extends TaskTypes<infer P, unknown> ? P : never;
export type TaskResult<K extends TaskKind> = TaskMap[K] extends TaskTypes<unknown, infer R> ? R : never;

/** What a task handler can reach besides its payload: data shared once with every thread (e.g. the dataset buffer). */
export interface TaskEnv {
  shared: Readonly<Record<string, unknown>>;
  /** Progress of the task, relayed to the caller's `RunOptions.onProgress` (a no-op when none). */
  progress: ProgressCallback;
  /**
   * The caller's cancellation (`RunOptions.signal`), when it gave one. Long handlers pass it down
   * and check it: a running task is never killed, it stops at its next check.
   */
  signal?: AbortSignal;
}

export type TaskHandler<K extends TaskKind> = (payload: TaskPayload<K>, env: TaskEnv) => TaskResult<K> | Promise<TaskResult<K>>;

/** One handler per task kind (a missing kind is a compile error where the table is written). */
export type TaskHandlers = { [K in TaskKind]: TaskHandler<K> };

export interface RunOptions {
  signal?: AbortSignal;
  /** ArrayBuffers to move (not copy) with the payload. */
  transfer?: ArrayBuffer[];
  /** Receives the task's progress events (see {@link TaskEnv.progress}). */
  onProgress?: ProgressCallback;
}

export interface Executor {
  /** How many tasks make progress at once (1 for the in-thread executor). */
  readonly threads: number;
  /** True when tasks run off the calling thread (the caller's event loop stays free). */
  readonly offThread: boolean;
  /** Data shared with every task (`env.shared`), e.g. `{ dataset: SharedArrayBuffer }`. */
  readonly shared: Readonly<Record<string, unknown>>;
  /** Runs one task; rejects with an EngineError (codes survive the thread boundary). */
  run<K extends TaskKind>(kind: K, payload: TaskPayload<K>, opts?: RunOptions): Promise<TaskResult<K>>;
}

/** Options of long work that may run on an executor. */
export interface ExecutorOptions {
  executor?: Executor;
  signal?: AbortSignal;
  onProgress?: ProgressCallback;
}
