/**
 * The {@link Executor} in the calling thread: the same handlers as the worker threads, run one
 * at a time. For tests, tiny inputs and environments without threads. Results are structurally
 * cloned like the pool's (so a caller cannot come to rely on sharing), and errors are the same
 * coded EngineErrors.
 */
import { EngineError, toErrorRecord } from '../core/errors.js';
import type { Executor, RunOptions, TaskKind, TaskPayload, TaskResult } from '../core/executor.js';
import { asCallerSees, cancelledBy } from '../core/cancel.js';
import { handlerOf } from './tasks.js';

export class InlineExecutor implements Executor {
  readonly threads = 1;
  readonly offThread = false;
  readonly shared: Readonly<Record<string, unknown>>;

  constructor(opts: { shared?: Record<string, unknown> } = {}) {
    this.shared = opts.shared ?? {};
  }

  async run<K extends TaskKind>(kind: K, payload: TaskPayload<K>, opts: RunOptions = {}): Promise<TaskResult<K>> {
    if (opts.signal?.aborted) throw cancelledBy(opts.signal);
    try {
      const h = handlerOf(kind);
      const value = await h(structuredClone(payload), { shared: this.shared, progress: opts.onProgress ?? (() => {}), ...(opts.signal ? { signal: opts.signal } : {}) });
      return structuredClone(value) as TaskResult<K>;
    } catch (e) {
      throw asCallerSees(EngineError.fromRecord(toErrorRecord(e)), opts.signal);
    }
  }

  async close(): Promise<void> {}
}
