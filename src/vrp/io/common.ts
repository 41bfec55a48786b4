/** What a benchmark reader returns: the model input plus what the harness needs to report. */
import { EngineError } from '../../core/errors.js';
import type { VrpInput } from '../model.js';

export interface BenchInstance {
  name: string;
  input: VrpInput;
  /** Identifier of each stop as the file numbers it (Solomon CUST NO., VRPLIB node id). */
  ids: number[];
  /** Internal units per reported unit of distance (reported = internal / scale, or exact recomputation). */
  scale: number;
  /**
   * Exact (unrounded) travel between places in internal units, for the independent checker and
   * for reporting distances in double precision (Solomon). Absent when the matrix is exact.
   */
  exact?: (a: number, b: number) => number;
  /** Reported distance between two places (file units, double precision). */
  reportDist: (a: number, b: number) => number;
}

/** Options of the instance readers. */
export interface InstanceReadOptions {
  /** Name of the file the text comes from, for error messages. */
  file?: string;
}

/**
 * The error for a malformed instance file: `InvalidInput` (or `Unsupported` for a valid feature
 * the reader lacks) with `path: 'instance'`, naming the file (when known), the 1-based line and
 * the field, also as `details: { file, line, field }`.
 */
export function instanceError(file: string | undefined, line: number | undefined, message: string, field?: string, code: 'InvalidInput' | 'Unsupported' = 'InvalidInput'): EngineError {
  const where = (file === undefined ? 'instance' : `instance file "${file}"`) + (line === undefined ? '' : `, line ${line}`);
  const details: Record<string, unknown> = {};
  if (file !== undefined) details.file = file;
  if (line !== undefined) details.line = line;
  if (field !== undefined) details.field = field;
  return new EngineError(code, `${where}: ${message}`, { path: 'instance', details });
}

/** Shortens a line for quoting in a message. */
export function quoteLine(text: string): string {
  const t = text.trim();
  return JSON.stringify(t.length > 80 ? `${t.slice(0, 77)}...` : t);
}

/** An n × n Int32 matrix in shared memory; `TooBig` when it cannot be allocated. */
export function sharedMatrix(n: number, file: string | undefined): Int32Array {
  try {
    return new Int32Array(new SharedArrayBuffer(n * n * 4));
  } catch (e) {
    throw new EngineError('TooBig', `${file === undefined ? 'instance' : `instance file "${file}"`}: ${n} places need a ${n} × ${n} matrix (${Math.round((n * n * 4) / 2 ** 20)} MiB), which cannot be allocated.`, { path: 'instance', cause: e });
  }
}
