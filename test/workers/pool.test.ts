import { afterAll, describe, expect, it } from 'vitest';
import { WorkerPool } from '../../src/workers/pool.js';
import { EngineError } from '../../src/core/errors.js';

const shared = new SharedArrayBuffer(8 * 4);
new Float64Array(shared).set([1, 2, 3, 4]);
const pool = new WorkerPool({ threads: 2, shared: { data: shared } });
afterAll(() => pool.close());

describe('WorkerPool', () => {
  it('runs a task and moves typed arrays back', async () => {
    const r = await pool.run<{ value: number; squares: Float64Array }>({ kind: 'echo', value: 7 });
    expect(r.value).toBe(7);
    expect(Array.from(r.squares)).toEqual([1, 4, 9]);
  });

  it('reads the shared buffer in the worker', async () => {
    const r = await pool.run<{ sum: number }>({ kind: 'echo', sharedKey: 'data' });
    expect(r.sum).toBe(10);
  });

  it('rethrows worker errors with their code and path', async () => {
    const err: any = await pool.run({ kind: 'echo', fail: 'bad value' }).catch((e: any) => e as any);
    expect(err).toBeInstanceOf(EngineError);
    expect(err.code).toBe('InvalidInput');
    expect(err.path).toBe('value');
  });

  it('reports unknown task kinds as errors, not crashes', async () => {
    const err: any = await pool.run({ kind: 'no-such-task' }).catch((e: any) => e as any);
    expect(err).toBeInstanceOf(EngineError);
    expect(err.code).toBe('Internal');
  });
});
