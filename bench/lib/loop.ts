/**
 * How long work holds the calling thread's event loop: a 1 ms timer on this thread records the
 * longest gap between its ticks while `work` runs (and the last stretch up to its end). Used by
 * bench/no-stall.ts and test/engine/no-stall.test.ts.
 */
export async function longestGap(work: () => Promise<unknown> | unknown): Promise<number> {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 1);
  try {
    await new Promise((r) => setTimeout(r, 5));
    last = performance.now();
    worst = 0;
    await work();
    return Math.max(worst, performance.now() - last);
  } finally {
    clearInterval(timer);
  }
}
