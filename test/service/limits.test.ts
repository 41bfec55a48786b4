/**
 * Time limits that always hold. `CallLimit` (core/cancel.ts) is held for the whole call, so the
 * limit fires whatever the garbage collector does (`AbortSignal.timeout()` joined through
 * `AbortSignal.any()` is weakly held on Node 20 and could be collected before it fired). Checked
 * in child processes run with --expose-gc, collections forced every few milliseconds: bare
 * limits, then a Service whose heavy dispatches (the highest MinimumOptimization) and jobs must
 * each answer within their limit + 5 % + 1 s.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { CallLimit } from '../../src/core/cancel.js';
import { ROOT } from '../helpers/cli.js';

const TSX = ['--expose-gc', '--import', 'tsx'];

describe('CallLimit', () => {
  it('fires at its limit, says why, and a caller that cancels first wins; dispose lets go of the timer', async () => {
    const a = new CallLimit(50);
    const t = performance.now();
    await new Promise((r) => a.signal.addEventListener('abort', r));
    expect(performance.now() - t).toBeGreaterThanOrEqual(45);
    expect(a.timedOut).toBe(true);
    expect(a.cancelledByCaller).toBe(false);
    expect(String((a.signal.reason as Error).message)).toMatch(/time limit \(0\.05 s\)/);

    const ac = new AbortController();
    const b = new CallLimit(10_000, ac.signal);
    ac.abort();
    expect(b.signal.aborted).toBe(true);
    expect(b.cancelledByCaller).toBe(true);
    expect(b.timedOut).toBe(false);
    b.dispose();

    const c = new CallLimit(30);
    c.dispose();
    await new Promise((r) => setTimeout(r, 60));
    expect(c.signal.aborted).toBe(false);
    expect(new CallLimit(Infinity).signal.aborted).toBe(false);
  });

  it('fires under forced garbage collection when nothing but the call holds it (200 limits, a child process with --expose-gc)', () => {
    const script = `
      import { CallLimit } from './src/core/cancel.ts';
      const late = [];
      const churn = setInterval(() => { gc(); void new Array(20000).fill(0).map((x, i) => ({ x, i })); }, 5);
      async function call(ms) {
        // what a service call holds: the limit's signal, awaited; no other reference
        const signal = new CallLimit(ms).signal;
        const t = performance.now();
        await new Promise((resolve) => { signal.addEventListener('abort', resolve); setTimeout(resolve, ms + 2000).unref(); });
        return performance.now() - t - ms;
      }
      const overs = await Promise.all(Array.from({ length: 200 }, (_, i) => call(20 + (i % 40) * 5)));
      clearInterval(churn);
      console.log(JSON.stringify({ max: Math.max(...overs), never: overs.filter((o) => o > 1500).length }));
    `;
    const r = spawnSync(process.execPath, [...TSX, '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { max: number; never: number };
    expect(out.never).toBe(0);
    expect(out.max).toBeLessThan(500);
  });
});

describe('a Service under forced garbage collection', () => {
  it('every heavy dispatch (MinimumOptimization 10) and every job answers within its limit + 5 % + 1 s, with a plan', () => {
    const r = spawnSync(process.execPath, [...TSX, 'test/service/scripts/limits-under-gc.ts'], {
      cwd: ROOT, encoding: 'utf8', timeout: 180_000, env: { ...process.env, DK_LIMIT_CALLS: '5', DK_LIMIT_MS: '2000', DK_JOB_LIMIT_MS: '2500' },
    });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { limitMs: number; jobLimitMs: number; calls: { kind: string; ms: number; status: string }[] };
    console.log(`limits under GC: ${out.calls.map((c) => `${c.kind} ${Math.round(c.ms)} ms ${c.status}`).join(', ')}`);
    expect(out.calls.filter((c) => c.kind === 'Dispatch')).toHaveLength(5);
    expect(out.calls.filter((c) => c.kind === 'job')).toHaveLength(2);
    for (const c of out.calls) {
      const limit = c.kind === 'job' ? out.jobLimitMs : out.limitMs;
      // a job's time counts from its submission: its queueing is inside the bound too
      expect(c.ms, `${c.kind} ${c.status}`).toBeLessThanOrEqual(limit * 1.05 + 1000);
      expect(c.status, c.kind).toMatch(/Success/);
    }
  });
});
