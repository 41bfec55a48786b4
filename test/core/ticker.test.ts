/**
 * The thread's shared slice (src/core/cancel.ts, Ticker / sliced): any number of sliced loops
 * running at once hold the event loop one slice at a time, take turns, and stop when cancelled.
 */
import { describe, expect, it } from 'vitest';
import { sliced, Ticker } from '../../src/core/cancel.js';
import { loopHolds } from '../../bench/lib/loop.js';

const FACTOR = Number(process.env.DK_TIME_FACTOR ?? 1.5);
const SLICE = 4;

const busy = (ms: number) => { const end = performance.now() + ms; while (performance.now() < end); };

async function loop(items: number, done?: string[], name = '', signal?: AbortSignal): Promise<void> {
  const t = new Ticker(SLICE, signal);
  for (let i = 0; i < items; i++) {
    busy(0.2);
    await t.tick();
  }
  done?.push(name);
}

describe('the shared slice', () => {
  it('eight loops at once hold the event loop about one slice at a time, not eight', async () => {
    await loopHolds(() => Promise.all(Array.from({ length: 8 }, () => loop(40))));
    const h = await loopHolds(() => Promise.all(Array.from({ length: 8 }, () => loop(200))));
    console.log(`ticker: 8 loops of 200 × 0.2 ms with a ${SLICE}-ms slice: longest hold ${h.own.toFixed(1)} ms (with GC ${h.gap.toFixed(1)} ms)`);
    // each loop with a slice of its own per turn would hold it 8 × 4 = 32 ms
    expect(h.own).toBeLessThan(3 * SLICE * FACTOR);
  });

  it('loops take turns: a short loop started beside a long one ends first', async () => {
    const done: string[] = [];
    await Promise.all([loop(400, done, 'long'), loop(40, done, 'short'), loop(20, done, 'shorter')]);
    expect(done).toEqual(['shorter', 'short', 'long']);
  });

  it('sliced maps in order across slices; a cancelled loop stops at its next turn', async () => {
    const items = Array.from({ length: 300 }, (_, i) => i);
    expect(await sliced(items, (x) => { busy(0.05); return 2 * x; }, undefined, 2)).toEqual(items.map((x) => 2 * x));
    const ac = new AbortController();
    const other = loop(200);
    const stopped = loop(10_000, undefined, '', ac.signal);
    setTimeout(() => ac.abort(), 20);
    await expect(stopped).rejects.toMatchObject({ code: 'Cancelled' });
    await other;
  });
});
