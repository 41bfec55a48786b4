/**
 * How long work holds the calling thread's event loop: a 1 ms timer on this thread records the
 * longest gap between its ticks while `work` runs (and the last stretch up to its end). Used by
 * bench/no-stall.ts and test/engine/no-stall.test.ts.
 */
import { PerformanceObserver } from 'node:perf_hooks';

export async function longestGap(work: () => Promise<unknown> | unknown): Promise<number> {
  return (await loopHolds(work)).gap;
}

/** What held the loop while `work` ran. */
export interface LoopHolds {
  /** The longest gap between ticks (ms): the work's own holds and the garbage collector's pauses. */
  gap: number;
  /** The longest garbage-collection pause of this thread meanwhile (ms): V8's scavenger copies every young object still alive, so an answer of many megabytes costs its receiver pauses of that size. */
  gc: number;
  /** The longest gap less the collector's pauses inside it (ms): the work's own longest hold. */
  own: number;
}

export async function loopHolds(work: () => Promise<unknown> | unknown): Promise<LoopHolds> {
  let last = performance.now();
  let worst = 0;
  let measuring = false;
  const pauses: [number, number][] = [];
  const gaps: [number, number][] = [];
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push([e.startTime, e.startTime + e.duration]);
  });
  obs.observe({ entryTypes: ['gc'] });
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    if (measuring && now - last > 2) gaps.push([last, now]);
    last = now;
  }, 1);
  try {
    await new Promise((r) => setTimeout(r, 5));
    last = performance.now();
    worst = 0;
    const from = last;
    measuring = true;
    await work();
    const end = performance.now();
    const gap = Math.max(worst, end - last);
    gaps.push([last, end]);
    // gc entries are delivered on a later turn
    await new Promise((r) => setImmediate(r));
    const mine = pauses.filter(([a, b]) => b > from && a < end);
    const gc = mine.reduce((m, [a, b]) => Math.max(m, b - a), 0);
    const own = gaps.reduce((m, [a, b]) => {
      const inGc = mine.reduce((t, [p, q]) => t + Math.max(0, Math.min(b, q) - Math.max(a, p)), 0);
      return Math.max(m, b - a - inGc);
    }, 0);
    return { gap, gc, own };
  } finally {
    clearInterval(timer);
    obs.disconnect();
  }
}
