/** The CLI's progress printer when stderr is not a terminal: live lines while a phase runs, one "done" per phase. */
import { describe, expect, it } from 'vitest';
import { ProgressPrinter } from '../../src/cli/progress.js';

function sink(): { out: NodeJS.WriteStream; text: () => string } {
  let buf = '';
  const out = { isTTY: false, write: (s: string) => { buf += s; return true; } } as unknown as NodeJS.WriteStream;
  return { out, text: () => buf };
}

describe('ProgressPrinter (plain output)', () => {
  it('prints progress while a phase runs and "done" once, ignoring late reports of a finished phase', () => {
    const saved = ProgressPrinter.PLAIN_INTERVAL_MS;
    ProgressPrinter.PLAIN_INTERVAL_MS = 0;
    try {
      const s = sink();
      const p = new ProgressPrinter(s.out);
      p.onProgress({ phase: 'matrix', done: 1, total: 4 });
      p.onProgress({ phase: 'matrix', done: 4, total: 4 });
      p.onProgress({ phase: 'dispatch', done: 10, total: 100, info: { bestCost: 123.456, iterations: 7 } });
      p.onProgress({ phase: 'dispatch', done: 50, total: 100, info: { bestCost: 120, iterations: 30 } });
      for (let i = 0; i < 40; i++) p.onProgress({ phase: 'dispatch', done: 100, total: 100 });
      p.end();
      const lines = s.text().trim().split('\n');
      expect(lines.filter((l) => l.startsWith('dispatch done'))).toHaveLength(1);
      expect(lines.filter((l) => l.startsWith('matrix done'))).toHaveLength(1);
      expect(lines).toContain('dispatch 50% ' + lines.find((l) => l.startsWith('dispatch 50%'))!.slice('dispatch 50% '.length));
      expect(lines.find((l) => l.startsWith('dispatch 50%'))).toMatch(/bestCost 120 iterations 30$/);
      expect(lines.length).toBeLessThan(10);
    } finally {
      ProgressPrinter.PLAIN_INTERVAL_MS = saved;
    }
  });

  it('says nothing when quiet', () => {
    const s = sink();
    const p = new ProgressPrinter(s.out, true);
    p.onProgress({ phase: 'x', done: 1, total: 2 });
    p.onProgress({ phase: 'x', done: 2, total: 2 });
    expect(s.text()).toBe('');
  });
});
