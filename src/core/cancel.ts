import { CANCELLED_MESSAGE, EngineError } from './errors.js';

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
  if (signal?.aborted) throw cancelledBy(signal);
}

/** The Cancelled error of an aborted signal: its reason when that is one (e.g. "The engine was closed."), else the common one. */
export function cancelledBy(signal: AbortSignal): EngineError {
  const r: unknown = signal.reason;
  return r instanceof EngineError && r.code === 'Cancelled' ? r : cancelledError();
}

/**
 * The Cancelled error of work that stopped on a flag or a signal: the caller's own reason when its
 * signal was aborted ({@link cancelledBy}), else the common one — so a dispatch cut short by
 * `Engine.close` says "The engine was closed." whichever way its work learnt of it.
 */
export function cancelledError(signal?: AbortSignal): EngineError {
  return signal?.aborted ? cancelledBy(signal) : new EngineError('Cancelled', CANCELLED_MESSAGE);
}

/** An error from a task, as its caller reports it: a Cancelled one carries the caller's reason when its signal was aborted. */
export function asCallerSees(err: EngineError, signal?: AbortSignal): EngineError {
  return err.code === 'Cancelled' && signal?.aborted ? cancelledBy(signal) : err;
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

/** How long synchronous work may hold a thread before it hands it back ({@link sliced}). */
export const SLICE_MS = 10;

const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/** One turn of the event loop (timers, I/O, other work) before the caller goes on. */
export const yieldTurn = nextTurn;

/**
 * The end of the thread's current slice: every sliced loop of the thread (any number may be
 * running, each resumed in its turn of the event loop) shares it, so that together they hold the
 * thread one slice at a time — loops each with a slice of their own, resumed one after another
 * in the same turn, would hold it for the sum.
 */
let sliceEnd = 0;
/** Turns of the event loop seen by the sliced loops ({@link nextTurnFor}), and the one in which the current slice opened. */
let turnNo = 0;
let sliceTurn = -1;
/**
 * Loops waiting for the next turn, resumed in this order: first those that found the last turn's
 * slice spent by another (in their order), then those that spent a slice — round and round, so
 * that no loop keeps the thread from the others.
 */
let front: (() => void)[] = [];
let back: (() => void)[] = [];
let turnQueued = false;

function queueTurn(): void {
  if (turnQueued) return;
  turnQueued = true;
  setImmediate(() => {
    turnQueued = false;
    turnNo++;
    const order = front.concat(back);
    front = [];
    back = [];
    for (const resume of order) resume();
  });
}

/** The next turn of the event loop for a loop that spent a slice (to the back) or found it spent (kept in front). */
function nextTurnFor(spent: boolean): Promise<void> {
  return new Promise<void>((resolve) => {
    (spent ? back : front).push(resolve);
    queueTurn();
  });
}

/** Opens the thread's slice in this turn (and marks where the turn ends, so that a slice is opened at most once a turn). */
function openSlice(now: number, ms: number): void {
  sliceEnd = now + ms;
  sliceTurn = turnNo;
  queueTurn();
}

/**
 * Hands the thread back to its event loop when the thread's slice (shared by every sliced loop
 * of the thread, {@link sliceEnd}) is used up: call {@link tick} between items of a long loop (it
 * resolves at once while the slice lasts). At most one slice is opened per turn of the event loop,
 * however many loops run: a loop that finds this turn's slice spent waits for the next turn, ahead
 * of the one that spent it.
 */
export class Ticker {
  constructor(private readonly sliceMs = SLICE_MS, private readonly signal?: AbortSignal) {
    const now = performance.now();
    if (sliceEnd < now && sliceTurn !== turnNo) openSlice(now, sliceMs);
  }
  async tick(): Promise<void> {
    if (performance.now() < sliceEnd) return;
    for (let spent = true; ; spent = false) {
      await nextTurnFor(spent);
      throwIfAborted(this.signal);
      // the first loop to resume in a turn opens its slice; the others share it, or wait for the next turn
      const now = performance.now();
      if (now < sliceEnd) return;
      if (sliceTurn !== turnNo) {
        openSlice(now, this.sliceMs);
        return;
      }
    }
  }
}

/**
 * Maps `items` through `fn` in slices of about {@link SLICE_MS} (the thread's shared slice,
 * {@link Ticker}): between slices the thread's event loop runs (other tasks sharing the thread,
 * timers, an abort), and `signal` is checked (Cancelled). The same results as a plain map, in order.
 */
export async function sliced<T, R>(items: readonly T[], fn: (item: T, index: number) => R, signal?: AbortSignal, sliceMs = SLICE_MS): Promise<R[]> {
  const out: R[] = new Array(items.length);
  const ticker = new Ticker(sliceMs, signal);
  for (let i = 0; i < items.length; i++) {
    if (i > 0) await ticker.tick();
    out[i] = fn(items[i], i);
  }
  return out;
}

/**
 * An operation's time limit joined with its caller's cancellation, as one object held for the
 * whole call. `AbortSignal.timeout()` and `AbortSignal.any()` keep their sources only weakly on
 * Node 20: a timeout signal nothing else references can be garbage-collected before it fires,
 * and the operation then never stops. Here the timer (rooted by the event loop until it fires or
 * is cleared) holds the controller, and the caller's signal holds its listener, so `signal`
 * fires at the limit whatever the GC does. Call {@link dispose} when the call ends.
 */
export class CallLimit {
  readonly startedAt = performance.now();
  private readonly ac = new AbortController();
  private timer: ReturnType<typeof setTimeout> | null;
  private why: 'time' | 'caller' | null = null;
  private readonly onCaller: (() => void) | null = null;

  constructor(readonly limitMs: number, private readonly caller?: AbortSignal) {
    this.timer = Number.isFinite(limitMs)
      ? setTimeout(() => this.abort('time'), Math.max(0, limitMs))
      : null;
    if (caller) {
      if (caller.aborted) this.abort('caller');
      else {
        this.onCaller = () => this.abort('caller');
        caller.addEventListener('abort', this.onCaller, { once: true });
      }
    }
  }

  private abort(why: 'time' | 'caller'): void {
    if (this.why !== null) return;
    this.why = why;
    this.ac.abort(new EngineError('Cancelled', why === 'time' ? `The time limit (${fmtSeconds(this.limitMs)}) was reached.` : CANCELLED_MESSAGE));
  }

  /** Aborted at the limit or when the caller cancels. */
  get signal(): AbortSignal {
    return this.ac.signal;
  }

  /** The limit fired (not the caller). */
  get timedOut(): boolean {
    return this.why === 'time';
  }

  /** The caller cancelled (before the limit). */
  get cancelledByCaller(): boolean {
    return this.why === 'caller';
  }

  elapsedMs(): number {
    return performance.now() - this.startedAt;
  }

  /** Ends the limit: the timer is cleared and the caller's signal let go of. */
  dispose(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.onCaller) this.caller!.removeEventListener('abort', this.onCaller);
  }
}

/** Milliseconds as a short text of seconds ("5 s", "0.25 s"). */
export function fmtSeconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : Number(s.toFixed(2))} s`;
}
