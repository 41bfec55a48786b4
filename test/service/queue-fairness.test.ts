/**
 * Accounts share the workers on Redis too: a job is queued by its turn among its account's pending
 * jobs (BullMQ's priority, low first; the same turn first in, first out), so one account's
 * backlog waits behind another account's first jobs instead of holding them (the queue was first
 * in, first out across accounts: the jobs trial's finding). Needs REDIS_URL (skipped without it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Jobs } from '../../src/service/jobs.js';
import { RedisJobBackend, startWorker } from '../../src/service/redis.js';
import { inProcessServer, type TestServer } from '../helpers/service.js';

const REDIS = process.env.REDIS_URL;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!REDIS)('jobs on Redis are shared between accounts', () => {
  let server: TestServer;
  beforeAll(async () => { server = await inProcessServer({ accounts: [{ name: 'big', credit: 1_000_000 }, { name: 'small', credit: 1_000_000 }] }); });
  afterAll(() => server?.close());

  it('one account\'s 6 queued jobs and another\'s 2 run in turns (1, 1, 2, 2, then the rest); each account\'s own in order', async () => {
    const prefix = `dk-fair-${Date.now()}`;
    const backend = new RedisJobBackend(server.service, { url: REDIS!, prefix });
    const jobs = new Jobs(server.service, backend);
    const big = (await server.store.accountByName('big'))!;
    const small = (await server.store.accountByName('small'))!;
    const names = new Map<string, string>();
    const submit = async (who: typeof big, label: string) => {
      const r = await jobs.submit(who, 'Geocode', { Addresses: [{ Street: 'Boulevard des Moulins', City: 'Monaco' }] });
      if ('kind' in r) throw new Error(r.message);
      names.set(r.JobID, label);
    };
    // all queued before any worker takes one: the order is the queue's alone
    for (let i = 1; i <= 6; i++) await submit(big, `big${i}`);
    for (let i = 1; i <= 2; i++) await submit(small, `small${i}`);
    const started: string[] = [];
    const w = startWorker(server.service, { url: REDIS!, prefix, concurrency: 1, onStart: (j) => started.push(names.get(j.id)!) });
    try {
      for (let i = 0; i < 400 && started.length < 8; i++) await sleep(50);
      expect(started).toEqual(['big1', 'small1', 'big2', 'small2', 'big3', 'big4', 'big5', 'big6']);
      for (const id of names.keys()) {
        for (let i = 0; i < 100 && (await server.store.getJob(id))!.state !== 'completed'; i++) await sleep(50);
        expect((await server.store.getJob(id))!.state).toBe('completed');
      }
    } finally {
      await w.close();
      await jobs.close();
      await backend.queue.obliterate({ force: true }).catch(() => {});
    }
  }, 60_000);
});
if (!REDIS) console.log('jobs on Redis are shared between accounts: skipped (no REDIS_URL)');
