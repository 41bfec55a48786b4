/**
 * The piscina worker entry: looks the task's handler up (`handlers.ts`, which loads it on the
 * thread's first task of its kind), runs it with the shared data and a progress relay, and wraps
 * the outcome so that errors cross the thread boundary as plain records and top-level typed
 * arrays of the result are moved, not copied.
 */
import { workerData } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { toErrorRecord } from '../core/errors.js';
import { cancelledError, type ProgressEvent } from '../core/cancel.js';
import { fullCollection, LOADED_KEY, type TaskEnvelope, type TaskReply } from './pool.js';
import { loadHandler, requireHandler } from './handlers.js';
import { adoptBackings } from '../core/binfile.js';

// shared buffers read on demand from their files (a dataset opened by path): see core/binfile.ts
adoptBackings((workerData as { backings?: unknown } | null)?.backings);

// this thread's modules are loaded (every import above has run): the pool waits for that before
// ending a thread it has just started (WorkerPool.close)
const loaded = (workerData as Record<string, unknown> | null)?.[LOADED_KEY];
if (loaded instanceof SharedArrayBuffer) Atomics.add(new Int32Array(loaded), 0, 1);

const noProgress = (): void => {};

/** This thread runs the TypeScript sources through tsx (tests without a current build): see handlers.ts. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');

/**
 * Memory given back when the thread falls idle: a task's large data often lives on shared memory
 * (a dispatch's matrices, hundreds of megabytes) whose last reference here is garbage the thread
 * would otherwise keep — an idle isolate with a small heap of its own sees no reason to collect,
 * and a SharedArrayBuffer's memory is freed only when every thread holding it has. So a full
 * collection runs once the thread has been idle a moment after work (on this thread only: the
 * server's event loop is not touched).
 */
let running = 0;
let idleGc: ReturnType<typeof setTimeout> | null = null;
function collectWhenIdle(): void {
  if (idleGc) clearTimeout(idleGc);
  idleGc = setTimeout(() => {
    idleGc = null;
    if (running === 0) fullCollection();
  }, IDLE_GC_MS);
  idleGc.unref();
}
const IDLE_GC_MS = 1000;

export default async function run(task: TaskEnvelope): Promise<unknown> {
  running++;
  try {
    const h = FROM_SOURCES ? requireHandler(task.kind) : await loadHandler(task.kind);
    const port = task.port;
    const progress = port ? (e: ProgressEvent) => port.postMessage(e) : noProgress;
    const cancel = task.cancel ? flagSignal(new Int32Array(task.cancel)) : undefined;
    let value: unknown;
    try {
      // cancelled while it waited in the queue: no work at all
      if (cancel?.signal.aborted) throw cancelledError();
      value = await h(task.payload, { shared: (workerData ?? {}) as Record<string, unknown>, progress, ...(cancel ? { signal: cancel.signal } : {}) });
    } finally {
      cancel?.stop();
      if (port) {
        port.postMessage(null);
        port.close();
      }
    }
    const transfer = collectTransferables(value);
    const reply: TaskReply = { ok: true, value };
    if (transfer.length === 0) return reply;
    // Piscina's Transferable protocol: the reply travels with its buffers moved, not copied.
    return Piscina.move({
      get [Piscina.transferableSymbol]() { return transfer; },
      get [Piscina.valueSymbol]() { return reply; },
    } as never);
  } catch (e) {
    const reply: TaskReply = { ok: false, error: toErrorRecord(e) };
    return reply;
  } finally {
    if (--running === 0) collectWhenIdle();
  }
}

/**
 * An AbortSignal over the caller's cancel flag (an Int32 on shared memory): `aborted` reads the
 * flag itself, so synchronous kernels see a cancellation at their next check; an 'abort' event
 * follows within ~20 ms for code that listens (while the thread's event loop runs).
 */
function flagSignal(flag: Int32Array): { signal: AbortSignal; stop(): void } {
  const ac = new AbortController();
  const signal = ac.signal;
  const raised = (): boolean => Atomics.load(flag, 0) !== 0;
  Object.defineProperty(signal, 'aborted', { get: () => raised() || ac.signal.reason !== undefined });
  const poll = setInterval(() => {
    if (raised()) {
      clearInterval(poll);
      ac.abort(cancelledError());
    }
  }, 20);
  poll.unref();
  return { signal, stop: () => clearInterval(poll) };
}

/** Moves the (non-shared) ArrayBuffers behind top-level typed arrays of a result. */
function collectTransferables(value: unknown): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  const visit = (v: unknown): void => {
    if (ArrayBuffer.isView(v) && v.buffer instanceof ArrayBuffer && v.byteOffset === 0 && v.byteLength === v.buffer.byteLength) out.add(v.buffer);
  };
  if (value && typeof value === 'object') {
    if (ArrayBuffer.isView(value)) visit(value);
    else for (const v of Object.values(value)) visit(v);
  }
  return [...out];
}
