import { EngineError } from './errors.js';

/** A progress report from long work. `done`/`total` are in the phase's own units. */
export interface ProgressEvent {
  phase: string;
  done: number;
  total: number;
  /** Free-form extra figures (e.g. best cost so far). */
  info?: Record<string, number | string>;
}

export type ProgressCallback = (e: ProgressEvent) => void;

/** Options every long-running operation accepts. */
export interface LongWorkOptions {
  signal?: AbortSignal;
  onProgress?: ProgressCallback;
}

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new EngineError('Cancelled', 'The operation was cancelled.');
}

/**
 * A wall-clock budget combined with an optional AbortSignal. `expired()` is cheap enough to call
 * in inner loops every few hundred iterations.
 */
export class Deadline {
  readonly start: number;
  readonly end: number;
  constructor(readonly timeLimitMs: number = Infinity, readonly signal?: AbortSignal) {
    this.start = performance.now();
    this.end = this.start + timeLimitMs;
  }
  expired(): boolean {
    return (this.signal !== undefined && this.signal.aborted) || performance.now() >= this.end;
  }
  cancelled(): boolean {
    return this.signal !== undefined && this.signal.aborted;
  }
  elapsedMs(): number {
    return performance.now() - this.start;
  }
  remainingMs(): number {
    return Math.max(0, this.end - performance.now());
  }
}

/** Calls `cb` at most every `intervalMs` (plus always on the final call with force=true). */
export function throttleProgress(cb: ProgressCallback | undefined, intervalMs = 100): (e: ProgressEvent, force?: boolean) => void {
  if (!cb) return () => {};
  let last = -Infinity;
  return (e, force = false) => {
    const now = performance.now();
    if (force || now - last >= intervalMs) {
      last = now;
      cb(e);
    }
  };
}
