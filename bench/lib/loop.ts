/**
 * How long work holds the calling thread's event loop: a 1 ms timer on this thread records the
 * longest gap between its ticks while `work` runs (and the last stretch up to its end). Used by
 * bench/no-stall.ts and the tests that bound a hold (test/engine/no-stall.test.ts and others).
 */
import { readFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';

/**
 * How long this thread has waited, runnable, for a CPU so far (ms): the second field of Linux's
 * /proc/thread-self/schedstat (nanoseconds, counted when the thread gets a CPU back, so exact by
 * the time the thread reads it); null where that file is not there.
 */
function threadWaitMs(): number | null {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[1]) / 1e6;
  } catch {
    return null;
  }
}

export async function longestGap(work: () => Promise<unknown> | unknown): Promise<number> {
  return (await loopHolds(work)).gap;
}

/** What held the loop while `work` ran. */
export interface LoopHolds {
  /** The longest gap between ticks (ms): the work's own holds and the garbage collector's pauses. */
  gap: number;
  /** The longest garbage-collection pause of this thread meanwhile (ms): V8's scavenger copies every young object still alive, so an answer of many megabytes costs its receiver pauses of that size. */
  gc: number;
  /**
   * The work's own longest hold (ms): the longest gap less the collector's pauses inside it and,
   * on Linux, less the time this thread waited for a CPU in it (on a machine whose cores are all
   * busy the system takes the thread's CPU away for tens of milliseconds; no code holds the loop then).
   */
  own: number;
  /** The longest time this thread waited for a CPU inside one gap (ms; 0 where it cannot be told). */
  offCpu: number;
}

export async function loopHolds(work: () => Promise<unknown> | unknown): Promise<LoopHolds> {
  let last = performance.now();
  // read when the measure starts (the ticks before it record nothing)
  let lastWait: number | null = null;
  let worst = 0;
  let measuring = false;
  const pauses: [number, number][] = [];
  /** Each gap over 2 ms: its start and end, and how long this thread waited for a CPU in it. */
  const gaps: [number, number, number][] = [];
  const waitIn = (from: number | null, to: number | null): number => (to === null || from === null ? 0 : to - from);
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push([e.startTime, e.startTime + e.duration]);
  });
  obs.observe({ entryTypes: ['gc'] });
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    const wait = measuring ? threadWaitMs() : null;
    if (measuring && now - last > 2) gaps.push([last, now, waitIn(lastWait, wait)]);
    last = now;
    lastWait = wait;
  }, 1);
  try {
    await new Promise((r) => setTimeout(r, 5));
    last = performance.now();
    lastWait = threadWaitMs();
    worst = 0;
    const from = last;
    measuring = true;
    await work();
    const end = performance.now();
    const gap = Math.max(worst, end - last);
    gaps.push([last, end, waitIn(lastWait, threadWaitMs())]);
    // gc entries are delivered on a later turn
    await new Promise((r) => setImmediate(r));
    const mine = pauses.filter(([a, b]) => b > from && a < end);
    const gc = mine.reduce((m, [a, b]) => Math.max(m, b - a), 0);
    let own = 0;
    let offCpu = 0;
    for (const [a, b, wait] of gaps) {
      const inGc = mine.reduce((t, [p, q]) => t + Math.max(0, Math.min(b, q) - Math.max(a, p)), 0);
      own = Math.max(own, b - a - inGc - wait);
      offCpu = Math.max(offCpu, wait);
    }
    return { gap, gc, own, offCpu };
  } finally {
    clearInterval(timer);
    obs.disconnect();
  }
}
