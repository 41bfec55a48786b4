/** Shared helpers of the corrupt-input tests: run a reader and report its coded outcome. */
import { expect } from 'vitest';
import { isEngineError, type EngineError } from '../../src/core/errors.js';

export type Outcome = { ok: true } | { ok: false; code: string; error: EngineError };

/**
 * Runs `fn`; a thrown value must be an EngineError (anything else — a RangeError, a zlib error,
 * a TypeError — fails the test, showing the stray error).
 */
export function outcome(fn: () => unknown): Outcome {
  try {
    fn();
    return { ok: true };
  } catch (e) {
    if (!isEngineError(e)) return expect.fail(`expected an EngineError, got ${String((e as Error)?.stack ?? e)}`);
    return { ok: false, code: e.code, error: e };
  }
}

/** The code `fn` throws ('none' when it does not throw). */
export function codeOf(fn: () => unknown): string {
  const o = outcome(fn);
  return o.ok ? 'none' : o.code;
}

/** The EngineError `fn` throws (fails when it does not throw). */
export function errorOf(fn: () => unknown): EngineError {
  const o = outcome(fn);
  if (o.ok) return expect.fail('expected an error, the call succeeded');
  return o.error;
}
