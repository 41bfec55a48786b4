/**
 * The {@link Executor} on worker threads (piscina). Tasks travel as `{ kind, payload }`; the
 * worker looks the handler up in `tasks.ts`. Large inputs travel as SharedArrayBuffers (the
 * dataset is handed over once, as shared data in workerData); results come back as transferable
 * typed arrays. Errors cross as plain ErrorRecords (see core/errors.ts); progress events cross
 * on a MessagePort made per task when the caller listens.
 *
 * Running from TypeScript sources (tests, tsx) the worker is the `.ts` file and node is told to
 * load it through tsx; from the built package it is plain JS.
 */
import { Piscina } from 'piscina';
import { availableParallelism } from 'node:os';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { EngineError, toErrorRecord, type ErrorRecord } from '../core/errors.js';
import type { ProgressEvent } from '../core/cancel.js';
import type { Executor, RunOptions, TaskKind, TaskPayload, TaskResult } from '../core/executor.js';

export interface PoolOptions {
  /** Worker threads; default: one per core. */
  threads?: number;
  /** Shared data every worker can reach (`env.shared`), e.g. the dataset buffer. */
  shared?: Record<string, unknown>;
}

/** What crosses to the worker. */
export interface TaskEnvelope {
  kind: string;
  payload: unknown;
  port?: MessagePort;
}

export type TaskReply = { ok: true; value: unknown } | { ok: false; error: ErrorRecord };

const HERE = new URL('.', import.meta.url);
const IS_TS = import.meta.url.endsWith('.ts');

export class WorkerPool implements Executor {
  private readonly piscina: Piscina;
  readonly threads: number;
  readonly offThread = true;
  readonly shared: Readonly<Record<string, unknown>>;

  constructor(opts: PoolOptions = {}) {
    this.threads = Math.max(1, opts.threads ?? availableParallelism());
    this.shared = opts.shared ?? {};
    this.piscina = new Piscina({
      filename: new URL(IS_TS ? 'worker.ts' : 'worker.js', HERE).href,
      minThreads: this.threads,
      maxThreads: this.threads,
      idleTimeout: 60_000,
      workerData: this.shared,
      execArgv: IS_TS ? ['--import', 'tsx'] : [],
    });
  }

  /**
   * Runs one task on a worker. Rejects with an EngineError (code preserved across the thread
   * boundary); an aborted signal rejects with Cancelled.
   */
  async run<K extends TaskKind>(kind: K, payload: TaskPayload<K>, opts: RunOptions = {}): Promise<TaskResult<K>> {
    let port1: MessagePort | undefined;
    let ended: Promise<void> | undefined;
    const envelope: TaskEnvelope = { kind, payload };
    const transfer: (ArrayBuffer | MessagePort)[] = [...(opts.transfer ?? [])];
    if (opts.onProgress) {
      const ch = new MessageChannel();
      const port = (port1 = ch.port1);
      const cb = opts.onProgress;
      // The worker ends its progress stream with `null`; events are delivered before the task settles.
      ended = new Promise<void>((resolve) => {
        port.on('message', (e: ProgressEvent | null) => (e === null ? resolve() : cb(e)));
        port.on('close', resolve);
      });
      envelope.port = ch.port2;
      transfer.push(ch.port2);
    }
    let reply: TaskReply;
    try {
      reply = (await this.piscina.run(envelope, { signal: opts.signal ?? null, transferList: transfer as never })) as TaskReply;
      if (ended) await Promise.race([ended, new Promise((r) => setTimeout(r, 1000).unref())]);
    } catch (e) {
      if (opts.signal?.aborted) throw new EngineError('Cancelled', 'The operation was cancelled.');
      throw EngineError.fromRecord(toErrorRecord(e));
    } finally {
      port1?.close();
    }
    if (!reply.ok) throw EngineError.fromRecord(reply.error);
    return reply.value as TaskResult<K>;
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}
