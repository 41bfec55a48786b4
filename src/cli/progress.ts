/**
 * Progress on stderr for long CLI work. Several phases may run at once (e.g. the two hierarchies
 * build side by side): on a TTY one live line shows every active phase with a bar; otherwise a
 * plain line is printed when a phase starts, every few seconds while it runs (percent, elapsed,
 * its figures), and when it ends — once: later reports of a finished phase are ignored. Data
 * never goes to stderr.
 */
import type { ProgressEvent } from '../core/cancel.js';

interface PhaseState { start: number; done: number; total: number; info?: ProgressEvent['info']; finished: boolean; lastLine: number }

export class ProgressPrinter {
  private readonly active = new Map<string, PhaseState>();
  private lastDraw = 0;
  private readonly ended = new Set<string>();
  /** Seconds between plain progress lines when stderr is not a terminal. */
  static PLAIN_INTERVAL_MS = 2000;
  readonly phases: { phase: string; ms: number }[] = [];
  private readonly tty: boolean;

  constructor(private readonly out: NodeJS.WriteStream = process.stderr, private readonly quiet = false) {
    this.tty = !!out.isTTY;
  }

  readonly onProgress = (e: ProgressEvent): void => {
    const now = performance.now();
    let st = this.active.get(e.phase);
    if (!st) {
      if (this.ended.has(e.phase) && e.total > 0 && e.done >= e.total) return; // a late report of a finished phase
      this.ended.delete(e.phase);
      st = { start: now, done: 0, total: 0, finished: false, lastLine: now };
      this.active.set(e.phase, st);
      if (!this.quiet && !this.tty) this.out.write(`${e.phase} …\n`);
    }
    st.done = e.done;
    st.total = e.total;
    st.info = e.info;
    if (e.total > 0 && e.done >= e.total) this.finish(e.phase, now);
    else if (!this.quiet && !this.tty && now - st.lastLine >= ProgressPrinter.PLAIN_INTERVAL_MS) {
      st.lastLine = now;
      this.out.write(`${this.describe(e.phase, st, now)}\n`);
    }
    if (!this.quiet && this.tty && now - this.lastDraw > 80) {
      this.lastDraw = now;
      this.draw(now);
    }
  };

  private describe(phase: string, st: PhaseState, now: number): string {
    const frac = st.total > 0 ? Math.min(1, st.done / st.total) : 0;
    const info = st.info ? ' ' + Object.entries(st.info).map(([k, v]) => `${k} ${typeof v === 'number' && !Number.isInteger(v) ? v.toFixed(1) : v}`).join(' ') : '';
    return `${phase} ${(frac * 100).toFixed(0)}% ${((now - st.start) / 1000).toFixed(1)}s${info}`;
  }

  private draw(now: number): void {
    const parts: string[] = [];
    for (const [phase, st] of this.active) {
      const frac = st.total > 0 ? Math.min(1, st.done / st.total) : 0;
      const width = 16;
      const full = Math.round(frac * width);
      const info = st.info ? ' ' + Object.entries(st.info).map(([k, v]) => `${k} ${v}`).join(' ') : '';
      parts.push(`${phase} ${'█'.repeat(full)}${'░'.repeat(width - full)} ${(frac * 100).toFixed(0)}% ${((now - st.start) / 1000).toFixed(1)}s${info}`);
    }
    this.out.write(`\r\x1b[K${parts.join('   ')}`);
  }

  private finish(phase: string, now: number): void {
    const st = this.active.get(phase);
    if (!st || st.finished) return;
    st.finished = true;
    this.active.delete(phase);
    this.ended.add(phase);
    const ms = now - st.start;
    this.phases.push({ phase, ms });
    if (this.quiet) return;
    this.out.write(`${this.tty ? '\r\x1b[K' : ''}${phase} done in ${(ms / 1000).toFixed(2)} s\n`);
    if (this.tty && this.active.size > 0) this.draw(now);
  }

  /** Closes every phase still open. */
  end(): void {
    const now = performance.now();
    for (const phase of [...this.active.keys()]) this.finish(phase, now);
  }
}
