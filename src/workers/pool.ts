/**
 * One piscina pool per engine. Tasks are plain records `{ kind, ... }`; the worker imports
 * `./tasks/<kind>.js` on first use and calls its default export. Large inputs travel as
 * SharedArrayBuffers (the dataset is handed over once, in workerData); results come back as
 * transferable typed arrays. Errors cross as plain ErrorRecords (see core/errors.ts).
 *
 * Running from TypeScript sources (tests, tsx) the worker is the `.ts` file and node is told to
 * load it through tsx; from the built package it is plain JS.
 */
import { Piscina } from 'piscina';
import { availableParallelism } from 'node:os';
import type { MessagePort } from 'node:worker_threads';
import { EngineError, toErrorRecord, type ErrorRecord } from '../core/errors.js';

export interface PoolOptions {
  /** Worker threads; default: one per core. */
  threads?: number;
  /** Shared data every worker can reach through `workerData` (e.g. the dataset buffer). */
  shared?: Record<string, unknown>;
}

export interface TaskEnvelope {
  kind: string;
  [k: string]: unknown;
}

type TaskReply = { ok: true; value: unknown } | { ok: false; error: ErrorRecord };

const HERE = new URL('.', import.meta.url);
const IS_TS = import.meta.url.endsWith('.ts');

export class WorkerPool {
  private readonly piscina: Piscina;
  readonly threads: number;

  constructor(opts: PoolOptions = {}) {
    this.threads = Math.max(1, opts.threads ?? availableParallelism());
    this.piscina = new Piscina({
      filename: new URL(IS_TS ? 'worker.ts' : 'worker.js', HERE).href,
      minThreads: this.threads,
      maxThreads: this.threads,
      idleTimeout: 60_000,
      workerData: opts.shared ?? {},
      execArgv: IS_TS ? ['--import', 'tsx'] : [],
    });
  }

  /**
   * Runs one task on a worker. `transfer` lists buffers to move (not copy) to the worker.
   * Rejects with an EngineError (code preserved across the thread boundary).
   */
  async run<T>(task: TaskEnvelope, opts: { signal?: AbortSignal; transfer?: (ArrayBuffer | MessagePort)[] } = {}): Promise<T> {
    let reply: TaskReply;
    try {
      reply = (await this.piscina.run(task, { signal: opts.signal ?? null, transferList: opts.transfer as any })) as TaskReply;
    } catch (e) {
      if (opts.signal?.aborted) throw new EngineError('Cancelled', 'The operation was cancelled.');
      throw EngineError.fromRecord(toErrorRecord(e));
    }
    if (!reply.ok) throw EngineError.fromRecord(reply.error);
    return reply.value as T;
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}
