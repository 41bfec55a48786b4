import { afterAll, describe, expect, it } from 'vitest';
import { WorkerPool } from '../../src/workers/pool.js';
import { InlineExecutor } from '../../src/workers/inline.js';
import { EngineError } from '../../src/core/errors.js';
import type { Executor } from '../../src/core/executor.js';
import type { ProgressEvent } from '../../src/core/cancel.js';

const shared = new SharedArrayBuffer(8 * 4);
new Float64Array(shared).set([1, 2, 3, 4]);
const pool = new WorkerPool({ threads: 2, shared: { data: shared } });
const inline = new InlineExecutor({ shared: { data: shared } });
afterAll(() => pool.close());

describe.each<[string, Executor]>([['WorkerPool', pool], ['InlineExecutor', inline]])('%s', (_name, ex) => {
  it('runs a task and returns typed arrays', async () => {
    const r = await ex.run('echo', { value: 7 });
    expect(r.value).toBe(7);
    expect(Array.from(r.squares!)).toEqual([1, 4, 9]);
  });

  it('reads the shared data in the task', async () => {
    const r = await ex.run('echo', { sharedKey: 'data' });
    expect(r.sum).toBe(10);
  });

  it('relays the task\'s progress events', async () => {
    const events: ProgressEvent[] = [];
    await ex.run('echo', { progressSteps: 3 }, { onProgress: (e) => events.push(e) });
    expect(events.map((e) => e.done)).toEqual([1, 2, 3]);
    expect(events.every((e) => e.phase === 'echo' && e.total === 3)).toBe(true);
  });

  it('rethrows task errors with their code and path', async () => {
    const err: any = await ex.run('echo', { fail: 'bad value' }).catch((e: any) => e as any);
    expect(err).toBeInstanceOf(EngineError);
    expect(err.code).toBe('InvalidInput');
    expect(err.path).toBe('value');
  });

  it('refuses unknown task kinds with a coded error, not a crash', async () => {
    // The type system already refuses the kind; this is what a bad message from elsewhere gets.
    const err: any = await ex.run('no-such-task' as never, {} as never).catch((e: any) => e as any);
    expect(err).toBeInstanceOf(EngineError);
    expect(err.code).toBe('Internal');
  });

  it('refuses a task whose signal is already aborted', async () => {
    const err: any = await ex.run('echo', { value: 1 }, { signal: AbortSignal.abort() }).catch((e: any) => e as any);
    expect(err).toBeInstanceOf(EngineError);
    expect(err.code).toBe('Cancelled');
  });
});
