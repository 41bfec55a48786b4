/**
 * The piscina worker entry: looks the task's handler up (`tasks.ts`), runs it with the shared
 * data and a progress relay, and wraps the outcome so that errors cross the thread boundary as
 * plain records and top-level typed arrays of the result are moved, not copied.
 */
import { workerData } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { toErrorRecord } from '../core/errors.js';
import type { ProgressEvent } from '../core/cancel.js';
import type { TaskEnvelope, TaskReply } from './pool.js';
import { handlerOf } from './tasks.js';

const noProgress = (): void => {};

export default async function run(task: TaskEnvelope): Promise<unknown> {
  try {
    const h = handlerOf(task.kind);
    const port = task.port;
    const progress = port ? (e: ProgressEvent) => port.postMessage(e) : noProgress;
    let value: unknown;
    try {
      value = await h(task.payload, { shared: (workerData ?? {}) as Record<string, unknown>, progress });
    } finally {
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
  }
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
