import { afterAll, describe, expect, it } from 'vitest';
import { HANDLER_LOADERS, loadHandler } from '../../src/workers/handlers.js';
import { TASK_HANDLERS } from '../../src/workers/tasks.js';
import { WorkerPool } from '../../src/workers/pool.js';

describe('handlers loaded on first use (workers/handlers.ts)', () => {
  it('names a loader for every kind of the static table, and each loads the very same handler', async () => {
    expect(Object.keys(HANDLER_LOADERS).sort()).toEqual(Object.keys(TASK_HANDLERS).sort());
    for (const kind of Object.keys(TASK_HANDLERS) as (keyof typeof TASK_HANDLERS)[]) {
      const h = await HANDLER_LOADERS[kind]();
      expect(h, kind).toBe(TASK_HANDLERS[kind]);
    }
  });

  it('refuses an unknown kind with a coded error', async () => {
    const err = (await loadHandler('no-such-task').then(() => null, (e: unknown) => e)) as { code?: string; message?: string } | null;
    expect(err).toMatchObject({ code: 'Internal' });
    expect(String(err?.message)).toMatch(/no-such-task/);
  });

  describe('a worker thread from the TypeScript sources (tsx: the static table through require)', () => {
    const before = process.env.DK_WORKERS;
    process.env.DK_WORKERS = 'ts';
    const pool = new WorkerPool({ threads: 1 });
    if (before === undefined) delete process.env.DK_WORKERS;
    else process.env.DK_WORKERS = before;
    afterAll(() => pool.close());

    it('runs tasks and refuses an unknown kind', async () => {
      expect((await pool.run('echo', { value: 3 })).value).toBe(3);
      const err = await pool.run('no-such-task' as never, {} as never).catch((e: unknown) => e as { code?: string });
      expect(err).toMatchObject({ code: 'Internal' });
    }, 60_000);
  });
});
