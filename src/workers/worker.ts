/**
 * The piscina worker entry. Each task kind lives in `./tasks/<kind>.ts`, default-exports
 * `(task, workerData) => result | Promise<result>`, and is listed in `./tasks/index.ts`. Results are wrapped so that errors cross the
 * thread boundary as plain records.
 */
import { workerData } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { toErrorRecord } from '../core/errors.js';
import type { TaskEnvelope } from './pool.js';
import { TASKS, type TaskFn } from './tasks/index.js';

function handler(kind: string): TaskFn {
  const h = Object.prototype.hasOwnProperty.call(TASKS, kind) ? TASKS[kind] : undefined;
  if (!h) throw new Error(`Unknown worker task kind "${kind}"`);
  return h;
}

export default async function run(task: TaskEnvelope): Promise<unknown> {
  try {
    const h = handler(task.kind);
    const value = await h(task, (workerData ?? {}) as Record<string, unknown>);
    const transfer = collectTransferables(value);
    const reply = { ok: true, value };
    if (transfer.length === 0) return reply;
    // Piscina's Transferable protocol: the reply travels with its buffers moved, not copied.
    return Piscina.move({
      get [Piscina.transferableSymbol]() { return transfer; },
      get [Piscina.valueSymbol]() { return reply; },
    } as any);
  } catch (e) {
    return { ok: false, error: toErrorRecord(e) };
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
