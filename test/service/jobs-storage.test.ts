/**
 * Jobs while the database is away, and large job results (issue #26's jobs trial, its two open
 * defects):
 * - a run holds its result and writes its end again while the database is away (`writeJobEnd`);
 *   on BullMQ a run that cannot reach the database goes back to the queue, delayed, without using
 *   an attempt — it was failed after BullMQ's three quick attempts (500 ms apart), its work lost;
 * - GET of a job with a result of megabytes answers without holding the event loop (the stored
 *   text is written as it is, or converted in slices): a plain parse + validation + encoding held
 *   it ~170 ms for 3 MB.
 * The BullMQ case needs REDIS_URL (skipped without it, saying so).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineError } from '../../src/core/errors.js';
import { closedError } from '../../src/store/common.js';
import type { Store } from '../../src/store/types.js';
import { Jobs, LocalJobBackend, runJob, writeJobEnd, type JobBackend } from '../../src/service/jobs.js';
import { Service } from '../../src/service/service.js';
import { pricesFrom } from '../../src/service/prices.js';
import { RedisJobBackend, startWorker } from '../../src/service/redis.js';
import { operationNamed } from '../../src/service/operations.js';
import { inProcessServer, type TestServer } from '../helpers/service.js';
import { loopHolds } from '../../bench/lib/loop.js';

const REDIS = process.env.REDIS_URL;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const away = (): EngineError => new EngineError('Storage', 'PostgreSQL database test: connection terminated (57P01)');

/** Makes `store[method]` throw a transient Storage error while `failing()` says so; counts the calls. */
function flaky<K extends 'finishJob' | 'startJob'>(store: Store, method: K, failing: () => boolean): { calls: number; failed: number; restore: () => void } {
  const orig = store[method].bind(store) as (...a: unknown[]) => Promise<unknown>;
  const c = { calls: 0, failed: 0, restore: () => { (store as unknown as Record<string, unknown>)[method] = orig; } };
  (store as unknown as Record<string, unknown>)[method] = async (...a: unknown[]) => {
    c.calls++;
    if (failing()) { c.failed++; throw away(); }
    return orig(...a);
  };
  return c;
}

describe('writeJobEnd: a job\'s end written again while the database is away', () => {
  const fake = (fail: (n: number) => EngineError | null) => {
    let n = 0;
    return { store: { finishJob: async () => { const e = fail(n++); if (e) throw e; return { finished: true, job: null }; } } as unknown as Store, calls: () => n };
  };
  it('retries a transient Storage error until it is written', async () => {
    const f = fake((n) => (n < 3 ? away() : null));
    const t = performance.now();
    expect((await writeJobEnd(f.store, { id: 'j', state: 'failed', cost: 0, now: 0 }, 10_000)).finished).toBe(true);
    expect(f.calls()).toBe(4);
    expect(performance.now() - t).toBeGreaterThan(250 + 500 + 1000 - 50); // 250 ms, doubling
  });
  it('does not retry a store closed by its owner, nor a programming error', async () => {
    const closed = fake(() => closedError('test.db'));
    await expect(writeJobEnd(closed.store, { id: 'j', state: 'failed', cost: 0, now: 0 }, 10_000)).rejects.toThrow(/closed/);
    expect(closed.calls()).toBe(1);
    const conflict = fake(() => new EngineError('Conflict', 'changed meanwhile'));
    await expect(writeJobEnd(conflict.store, { id: 'j', state: 'failed', cost: 0, now: 0 }, 10_000)).rejects.toThrow(/changed/);
    expect(conflict.calls()).toBe(1);
  });
  it('gives up after its bound (the job stays pending; its backend runs it again)', async () => {
    const f = fake(() => away());
    await expect(writeJobEnd(f.store, { id: 'j', state: 'failed', cost: 0, now: 0 }, 600)).rejects.toThrow(/terminated/);
    expect(f.calls()).toBeGreaterThanOrEqual(2);
    expect(f.calls()).toBeLessThanOrEqual(3);
  });
});

describe('jobs in this process while the database is away, and large results', () => {
  let server: TestServer;
  let jobs: Jobs;
  beforeAll(async () => {
    server = await inProcessServer({
      accounts: [{ name: 'demo', credit: 10_000_000 }],
      jobs: (s) => (jobs = new Jobs(s, new LocalJobBackend(s))),
    });
  });
  afterAll(() => server?.close());

  /** The answer's bytes (the test's own parse of them comes after the measurement). */
  const getJob = async (id: string, q = ''): Promise<{ body: Buffer; ms: number }> => {
    const t = performance.now();
    const r = await fetch(`${server.url}/rest/jobs/${id}${q}`, { headers: { 'X-API-Key': server.keys.demo } });
    const body = Buffer.from(await r.arrayBuffer());
    return { body, ms: performance.now() - t };
  };
  const final = async (id: string): Promise<any> => {
    for (let i = 0; i < 1200; i++) {
      const j = await jobs.get((await server.store.accountByName('demo'))!, id);
      if (j && ['completed', 'failed', 'cancelled'].includes(j.State)) return j;
      await sleep(50);
    }
    throw new Error(`job ${id} did not end`);
  };

  it('a result whose end cannot be written for a few seconds is kept and written: completed once, charged once', async () => {
    const account = (await server.store.accountByName('demo'))!;
    let down = true;
    const f = flaky(server.store, 'finishJob', () => down);
    try {
      const r = await jobs.submit(account, 'Geocode', { Addresses: [{ Street: 'Boulevard des Moulins', City: 'Monaco' }] });
      if ('kind' in r) throw new Error(r.message);
      while (f.failed < 3) await sleep(20);
      down = false;
      const j = await final(r.JobID);
      expect(j.State).toBe('completed');
      expect(j.Attempts).toBe(1);
      expect(j.Cost).toBeGreaterThan(0);
      expect((await j.Result.value()).Status).toBe('Success');
      expect(f.failed).toBeGreaterThanOrEqual(3);
    } finally {
      f.restore();
    }
  });

  it('a job is charged at the price quoted when it was submitted, whatever the price list of the process that runs it', async () => {
    const account = (await server.store.accountByName('demo'))!;
    const held: JobBackend = { kind: 'redis', enqueue: async () => {}, cancel: async () => {}, progress: async () => null, close: async () => {} };
    const submitter = new Service(server.engine, server.store, { rateLimit: { perSecond: 0 }, prices: pricesFrom({ Geocode: 2 }) });
    const runner = new Service(server.engine, server.store, { rateLimit: { perSecond: 0 }, prices: pricesFrom({ Geocode: 7 }) });
    const r = await new Jobs(submitter, held).submit(account, 'Geocode', { Addresses: [{ Street: 'Boulevard des Moulins', City: 'Monaco' }, { Street: 'Avenue Princesse Grace', City: 'Monaco' }] });
    if ('kind' in r) throw new Error(r.message);
    expect((await server.store.getJob(r.JobID))!.unitPrice).toBe(2);
    const before = (await server.store.accountByName('demo'))!.balance;
    expect(await runJob(runner, r.JobID)).toBe('completed');
    const j = (await server.store.getJob(r.JobID))!;
    expect(j.cost).toBe(4); // 2 addresses × 2 (7 at the runner's prices)
    // the reservation (2 × 2) was taken at submission; the end settles it at that price: nothing more
    expect((await server.store.accountByName('demo'))!.balance).toBe(before);
    expect((await server.store.usage(account.id, 1))[0]).toMatchObject({ operation: 'Geocode', units: 2, unitPrice: 2, cost: 4 });
  });

  it('a job\'s times are the service\'s clock (the ledger\'s), not the machine\'s', async () => {
    const account = (await server.store.accountByName('demo'))!;
    const T = Date.UTC(2031, 0, 2, 3, 4, 5);
    const held: JobBackend = { kind: 'redis', enqueue: async () => {}, cancel: async () => {}, progress: async () => null, close: async () => {} };
    const svc = new Service(server.engine, server.store, { rateLimit: { perSecond: 0 }, clock: () => T });
    const r = await new Jobs(svc, held).submit(account, 'Geocode', { Addresses: [{ Street: 'Boulevard des Moulins', City: 'Monaco' }] });
    if ('kind' in r) throw new Error(r.message);
    expect((await server.store.getJob(r.JobID))!.createdAt).toBe(T);
    expect(await runJob(svc, r.JobID)).toBe('completed');
    expect(await server.store.getJob(r.JobID)).toMatchObject({ createdAt: T, updatedAt: T, finishedAt: T });
  });

  it('GET of a job with a 3 MB result: the same answer as the call, enums as integers or names, without holding the event loop', async () => {
    const account = (await server.store.accountByName('demo'))!;
    const streets = ['Boulevard des Moulins', 'Avenue Princesse Grace', 'Boulevard Albert 1er', 'Avenue de la Costa'];
    const spec = { Addresses: Array.from({ length: 1500 }, (_, i) => ({ Number: String(1 + (i % 40)), Street: streets[i % streets.length], City: 'Monaco' })) };
    const r = await jobs.submit(account, 'Geocode', spec);
    if ('kind' in r) throw new Error(r.message);
    const j = await final(r.JobID);
    expect(j.State).toBe('completed');
    expect(j.Result.text.length).toBeGreaterThan(2_000_000);
    // the synchronous call's answer, for comparison
    const sync = await fetch(`${server.url}/rest/Geocode`, { method: 'POST', headers: { 'X-API-Key': server.keys.demo, 'Content-Type': 'application/json' }, body: JSON.stringify(spec) }).then((x) => x.json() as Promise<any>);
    const sameButTime = (a: any) => ({ ...a, Results: a.Results?.length, Errors: a.Errors });
    for (const q of ['', '?enums=name']) {
      // the longest the event loop is held while the GET is answered: the server's own holds (the
      // gaps less the garbage collector's pauses inside them: a collection of the test's own 3 MB
      // of strings can land in any gap, and on a slow machine made one 113 ms once)
      const oneGet = async () => {
        let g!: Awaited<ReturnType<typeof getJob>>;
        const h = await loopHolds(async () => { g = await getJob(r.JobID, q); });
        return { g, h };
      };
      let { g, h } = await oneGet();
      const json = JSON.parse(g.body.toString('utf8'));
      expect(json.State).toBe('completed');
      expect(json.Result.Status).toBe(q ? 'Success' : 1);
      if (!q) {
        expect(sameButTime(json.Result)).toEqual(sameButTime(sync));
        expect(json.Result.Results).toEqual(sync.Results);
      }
      // what answering it in one go holds the loop for, measured now (the machine's load scales both)
      const t = performance.now();
      const row = operationNamed('Geocode')!;
      JSON.stringify({ ...json, Result: row.result.encode((row.result.safeParse(JSON.parse(j.Result.text)) as { value: unknown }).value as never, { enums: q ? 'name' : 'int' }) });
      const whole = performance.now() - t;
      const limit = Math.max(40, 0.5 * whole);
      // a hold of the code's own shows in every GET; the thread taken off its core by the other test
      // files on a loaded 2-core machine shows in one: the best of up to three GETs is the code's
      for (let again = 0; again < 2 && h.own >= limit; again++) {
        const next = await oneGet();
        if (next.h.own < h.own) ({ g, h } = next);
      }
      console.log(`GET ${q || '(integer enums)'} of a ${(j.Result.text.length / 1e6).toFixed(1)} MB result: ${g.ms.toFixed(0)} ms, longest hold of the event loop ${h.own.toFixed(0)} ms (${h.gap.toFixed(0)} ms with the collector's pauses, the longest ${h.gc.toFixed(0)} ms; in one go: ${whole.toFixed(0)} ms)`);
      expect(h.own).toBeLessThan(limit);
    }
  }, 120_000);
});

describe.skipIf(!REDIS)('jobs on BullMQ while the database is away', () => {
  let server: TestServer;
  beforeAll(async () => { server = await inProcessServer({ accounts: [{ name: 'demo', credit: 1_000_000 }] }); });
  afterAll(() => server?.close());

  it('a run that cannot reach the database goes back to the queue without using an attempt: the job completes once it is back (it was failed after three quick attempts)', async () => {
    const prefix = `dk-storage-${Date.now()}`;
    const backend = new RedisJobBackend(server.service, { url: REDIS!, prefix });
    const jobs = new Jobs(server.service, backend);
    let down = true;
    const f = flaky(server.store, 'startJob', () => down);
    const w = startWorker(server.service, { url: REDIS!, prefix, storageRetryMs: 300 });
    try {
      const account = (await server.store.accountByName('demo'))!;
      const r = await jobs.submit(account, 'Geocode', { Addresses: [{ Street: 'Avenue Princesse Grace', City: 'Monaco' }] });
      if ('kind' in r) throw new Error(r.message);
      // more runs than BullMQ's attempts (3) meet the database away
      for (let i = 0; i < 200 && f.failed < 5; i++) await sleep(50);
      const q = await backend.queue.getJob(r.JobID);
      expect(await q?.getState()).not.toBe('failed');
      expect(f.failed).toBeGreaterThanOrEqual(5);
      expect(q?.attemptsMade ?? 0).toBe(0);
      expect((await server.store.getJob(r.JobID))!.state).toBe('queued');
      down = false;
      let j = await jobs.get(account, r.JobID);
      for (let i = 0; i < 200 && j && j.State !== 'completed' && j.State !== 'failed'; i++) { await sleep(50); j = await jobs.get(account, r.JobID); }
      expect(j!.State).toBe('completed');
      expect(j!.Attempts).toBe(1);
      expect((await j!.Result!.value()).Status).toBe('Success');
    } finally {
      f.restore();
      await w.close();
      await jobs.close();
      await backend.queue.obliterate({ force: true }).catch(() => {});
    }
  }, 60_000);
});
if (!REDIS) console.log('jobs on BullMQ while the database is away: skipped (no REDIS_URL)');
