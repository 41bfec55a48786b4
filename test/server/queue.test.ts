/**
 * Jobs on a real queue: BullMQ on Redis, `dispatchkit worker` processes, one database shared by
 * the server and the workers. The faults of issue #13: a worker killed with SIGKILL mid-job (the
 * job is retried and ends exactly once: one stored result, one settlement), Redis restarted
 * mid-run (no job lost), 1,000 queued jobs drained (none lost or duplicated), a poison job (one
 * that kills every worker that takes it) failed after a bounded number of attempts with the reason
 * stored. Needs REDIS_URL (set by .ci/run; skipped without it, saying so); the restart test starts
 * its own redis-server (skipped when there is none). The database is PostgreSQL when DATABASE_URL
 * is set (several machines share one), else a SQLite file (processes on one machine share it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Engine } from '../../src/engine.js';
import { openStore } from '../../src/store/index.js';
import { keyHash, newApiKey } from '../../src/store/hash.js';
import type { Account, Store } from '../../src/store/types.js';
import { Service } from '../../src/service/service.js';
import { Jobs } from '../../src/service/jobs.js';
import { RedisJobBackend, startWorker } from '../../src/service/redis.js';
import { EXAMPLES } from '../../src/server/openapi.js';
import { fixtureDataset, fixtureDatasetFile } from '../helpers/datasets.js';
import { reachablePool } from '../helpers/monaco-stops.js';
import { CLI, ROOT } from '../helpers/cli.js';

const REDIS = process.env.REDIS_URL;
const HAS_REDIS_SERVER = spawnSync('redis-server', ['--version']).status === 0;
const tmp = mkdtempSync(join(tmpdir(), 'dk-queue-'));

let data: string;
let engine: Engine;
let store: Store;
let service: Service;
let db: string;

function pgUrl(): string {
  const u = new URL(process.env.DATABASE_URL!);
  u.searchParams.set('schema', `dk_test_${randomBytes(6).toString('hex')}`);
  return u.toString();
}

beforeAll(async () => {
  if (!REDIS) return;
  data = await fixtureDatasetFile('monaco');
  db = process.env.DATABASE_URL ? pgUrl() : `sqlite:${join(tmp, 'queue.db')}`;
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 1, offload: true });
  store = await openStore(db);
  service = new Service(engine, store, { rateLimit: { perSecond: 0 } });
}, 120_000);
afterAll(async () => {
  await service?.close();
  await (store as unknown as { dropSchema?: () => Promise<void> })?.dropSchema?.();
  await store?.close();
  await engine?.close();
  rmSync(tmp, { recursive: true, force: true });
});

interface WorkerProcess { child: ChildProcess; exited: Promise<number | null>; kill: (signal?: NodeJS.Signals) => Promise<void>; stderr: () => string }

/** `dispatchkit worker` in a child process; resolves once it takes jobs. */
function worker(redis: string, prefix: string, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [...CLI, 'worker', '--redis', redis, '--prefix', prefix, '--db', db, '--data', data, '--lock-ms', '2000', '--threads', '1'], {
    cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`worker did not start: ${err}`)); }, 90_000);
    child.stderr!.on('data', (d: Buffer) => {
      err += d;
      if (err.includes('taking jobs from')) {
        clearTimeout(t);
        resolve({ child, exited, kill: async (signal = 'SIGKILL') => { child.kill(signal); await exited; }, stderr: () => err.slice(-2000) });
      }
    });
    child.once('exit', (c) => { clearTimeout(t); reject(new Error(`worker exited (${c}) before starting: ${err}`)); });
  });
}

async function account(credit: number): Promise<Account> {
  const name = `q${randomBytes(4).toString('hex')}`;
  return store.createAccount({ name, keyHash: keyHash(newApiKey()), passwordHash: null, credit, now: Date.now() });
}

async function until<T>(what: string, f: () => Promise<T | null | undefined | false>, ms = 120_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function ledgerOk(a: Account): Promise<number> {
  const now = (await store.accountById(a.id))!;
  expect(await store.ledgerSum(a.id)).toBe(now.balance);
  return now.balance;
}

function dispatchSpec(n: number, effort: number): Record<string, unknown> {
  const pool = reachablePool(engine);
  return {
    CurrentTime: '2026-12-01T09:00:00', DistanceUnit: 1, MinimumOptimization: effort,
    Vehicles: [{ Name: 'V1', StartLocation: { LatLong: pool[0] } }, { Name: 'V2', StartLocation: { LatLong: pool[0] } }],
    Locations: Array.from({ length: n }, (_, i) => ({ Name: `S${i}`, LatLong: pool[1 + (i % (pool.length - 1))], Wait: 60 })),
  };
}

const prefixOf = (): string => `dkt${randomBytes(4).toString('hex')}`;

describe.skipIf(!REDIS)(`jobs on Redis with worker processes${REDIS ? '' : ' (skipped: REDIS_URL is not set)'}`, () => {
  it('a worker given a job its database does not hold says so (a worker on another database than its servers\' left jobs queued for ever, silently)', async () => {
    const prefix = `dkt${randomBytes(4).toString('hex')}`;
    const other = await openStore(`sqlite:${join(tmp, `other-${prefix}.db`)}`);
    const otherService = new Service(engine, other, { rateLimit: { perSecond: 0 } });
    const backend = new RedisJobBackend(service, { url: REDIS!, prefix });
    const seen: string[] = [];
    const w = startWorker(otherService, { url: REDIS!, prefix, onUnknown: (id) => seen.push(id) });
    try {
      await backend.enqueue('not-in-that-database');
      await until('the worker to say it', async () => seen.length > 0, 30_000);
      expect(seen[0]).toBe('not-in-that-database');
    } finally {
      await w.close();
      await backend.close();
      await otherService.close();
      await other.close();
    }
  });

  it('1,000 queued jobs drain over 2 workers: none lost, none run twice, the ledger exact', async () => {
    const prefix = prefixOf();
    const backend = new RedisJobBackend(service, { url: REDIS!, prefix });
    const jobs = new Jobs(service, backend);
    const a = await account(10_000);
    const ids: string[] = [];
    for (let i = 0; i < 1000; i++) {
      const r = await jobs.submit(a, 'Geocode', { Addresses: [{ Street: i % 2 ? 'Boulevard des Moulins' : 'Avenue Princesse Grace', City: 'Monaco' }] });
      if (!('JobID' in r)) throw new Error(JSON.stringify(r));
      ids.push(r.JobID);
    }
    expect(await ledgerOk(a)).toBe(9000); // all reserved at submission
    const ws = await Promise.all([worker(REDIS!, prefix), worker(REDIS!, prefix)]);
    try {
      const t0 = Date.now();
      await until('1,000 jobs', async () => (await store.pendingJobs({ before: Date.now() + 1, limit: 1 })).length === 0, 300_000);
      const seconds = (Date.now() - t0) / 1000;
      const rows = await Promise.all(ids.map((id) => store.getJob(id)));
      expect(rows.filter((j) => j?.state === 'completed').length).toBe(1000);
      expect(rows.every((j) => j!.attempts === 1)).toBe(true);
      expect(await ledgerOk(a)).toBe(9000);
      const entries = await store.ledger(a.id, 100_000);
      expect(entries.filter((e) => e.kind === 'reserve').length).toBe(1000);
      expect(entries.filter((e) => e.kind === 'charge').length).toBe(0);
      console.log(`1,000 Geocode jobs drained by 2 workers in ${seconds.toFixed(1)} s`);
    } finally {
      await Promise.all(ws.map((w) => w.kill('SIGTERM')));
      await jobs.close();
    }
  }, 400_000);

  it('a worker killed with SIGKILL mid-job: another takes the job over; it completes exactly once (one result, one route, one settlement)', async () => {
    const prefix = prefixOf();
    const backend = new RedisJobBackend(service, { url: REDIS!, prefix });
    const jobs = new Jobs(service, backend);
    const a = await account(1000);
    const w1 = await worker(REDIS!, prefix);
    const r = await jobs.submit(a, 'Dispatch', dispatchSpec(40, 7));
    if (!('JobID' in r)) throw new Error(JSON.stringify(r));
    await until('the job to run', async () => (await store.getJob(r.JobID))?.state === 'active');
    await new Promise((res) => setTimeout(res, 300));
    await w1.kill('SIGKILL');
    expect((await store.getJob(r.JobID))!.state).toBe('active'); // died mid-job
    const w2 = await worker(REDIS!, prefix);
    try {
      const j = await until('the job to end', async () => { const x = await store.getJob(r.JobID); return x && x.state !== 'active' && x.state !== 'queued' ? x : null; });
      expect(j.state).toBe('completed');
      expect(j.attempts).toBe(2);
      expect(j.cost).toBe(40);
      const routes = await store.listRoutes(a.id);
      expect(routes.map((x) => x.routeId)).toEqual([j.routeId]);
      expect(await ledgerOk(a)).toBe(960);
      const entries = await store.ledger(a.id, 100);
      expect(entries.filter((e) => e.reservationId === j.reservationId).map((e) => e.kind).sort()).toEqual(['reserve']); // reserved 40, cost 40: nothing refunded, nothing charged twice
    } finally {
      await w2.kill('SIGTERM');
      await jobs.close();
    }
  }, 300_000);

  it('a poison job (it kills every worker that takes it) ends failed after a bounded number of attempts, its reason stored, its credit refunded', async () => {
    const prefix = prefixOf();
    const backend = new RedisJobBackend(service, { url: REDIS!, prefix });
    backend.start(500, 3000);
    const jobs = new Jobs(service, backend);
    const a = await account(100);
    const r = await jobs.submit(a, 'Geocode', { Addresses: [{ Street: 'POISON-7f3a', City: 'Monaco' }] });
    if (!('JobID' in r)) throw new Error(JSON.stringify(r));
    let deaths = 0;
    let w: WorkerProcess | null = null;
    try {
      const j = await until('the poison job to fail', async () => {
        const x = await store.getJob(r.JobID);
        if (x && x.state === 'failed') return x;
        if (w === null || w.child.exitCode !== null || w.child.signalCode !== null) {
          if (w !== null) deaths++;
          if (deaths > 6) throw new Error('the poison job was retried without bound');
          w = await worker(REDIS!, prefix, { DK_FAULT_CRASH_MARKER: 'POISON-7f3a' });
        }
        return null;
      }, 240_000);
      expect(j.error).toMatch(/Gave up after 3 attempts|stalled|failed/i);
      expect(j.attempts).toBeGreaterThanOrEqual(2);
      expect(j.attempts).toBeLessThanOrEqual(4);
      expect(deaths).toBeLessThanOrEqual(4);
      expect(await ledgerOk(a)).toBe(100);
    } finally {
      if (w) await (w as WorkerProcess).kill('SIGKILL');
      await jobs.close();
    }
  }, 300_000);

  it.skipIf(!HAS_REDIS_SERVER)('Redis restarted mid-run (it keeps nothing): no job lost, none run twice', async () => {
    const port = await new Promise<number>((resolve) => { const s = createServer().listen(0, () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); }); });
    const startRedis = (): ChildProcess => spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    let redis = startRedis();
    const url = `redis://127.0.0.1:${port}`;
    await new Promise((r) => setTimeout(r, 500));
    const prefix = prefixOf();
    const backend = new RedisJobBackend(service, { url, prefix });
    backend.start(500, 2000);
    const jobs = new Jobs(service, backend);
    const a = await account(10_000);
    let ws: WorkerProcess[] = [];
    try {
      // all queued first, then the workers: Redis is killed with most of the jobs still waiting
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) {
        const r = i % 10 === 0 ? await jobs.submit(a, 'Dispatch', dispatchSpec(20, 5)) : await jobs.submit(a, 'Geocode', { Addresses: [{ Street: 'Boulevard des Moulins', City: 'Monaco' }] });
        if (!('JobID' in r)) throw new Error(JSON.stringify(r));
        ids.push(r.JobID);
      }
      ws = await Promise.all([worker(url, prefix), worker(url, prefix)]);
      await until('a job done', async () => (await Promise.all(ids.map((id) => store.getJob(id)))).some((j) => j?.state === 'completed'));
      redis.kill('SIGKILL');
      // the restart must catch work in flight, or the test shows nothing
      const atKill = (await Promise.all(ids.map((id) => store.getJob(id)))).filter((j) => j?.state !== 'completed').length;
      expect(atKill, 'jobs not yet completed when Redis was killed').toBeGreaterThan(0);
      await new Promise((r) => setTimeout(r, 1000));
      redis = startRedis();

      await until('every job', async () => (await Promise.all(ids.map((id) => store.getJob(id)))).every((j) => j?.state === 'completed'), 200_000)
        .catch(async (e: Error) => {
          // say which jobs did not end, and where each stands in the database and in the queue
          const rows = await Promise.all(ids.map((id) => store.getJob(id)));
          const open = await Promise.all(rows.filter((j) => j?.state !== 'completed').map(async (j) => {
            const q = await backend.queue.getJob(j!.id).then((x) => x?.getState() ?? 'absent', (err: Error) => `error ${err.message}`);
            return `${j!.id} ${j!.operation} ${j!.state} attempts ${j!.attempts} idle ${Date.now() - j!.updatedAt} ms, queue: ${q}`;
          }));
          const alive = ws.map((w) => (w.child.exitCode === null ? 'alive' : `exited ${w.child.exitCode}`)).join(', ');
          throw new Error(`${e.message}: ${open.length} not completed (workers ${alive}):\n${open.join('\n')}\n${ws.map((w, i) => `worker ${i}: ${w.stderr()}`).join('\n')}`);
        });
      // the new Redis knew nothing: what it holds, the reconciler put there (all but the ≤ 2 jobs the workers were running)
      const counts = await backend.queue.getJobCounts('completed', 'active', 'waiting', 'delayed', 'failed');
      const inNew = Object.values(counts).reduce((a, b) => a + b, 0);
      console.log(`Redis restart: ${atKill} of ${ids.length} jobs not completed when Redis was killed; ${inNew} enqueued again in the new Redis`);
      expect(inNew).toBeGreaterThanOrEqual(atKill - 2);
      const rows = await Promise.all(ids.map((id) => store.getJob(id)));
      expect(rows.filter((j) => j!.operation === 'Dispatch').every((j) => j!.routeId !== null)).toBe(true);
      expect((await store.listRoutes(a.id)).length).toBe(4); // one per dispatch job, none twice
      await ledgerOk(a);
      const entries = await store.ledger(a.id, 100_000);
      expect(entries.filter((e) => e.kind === 'reserve').length).toBe(40);
      expect(entries.filter((e) => e.kind === 'charge').length).toBe(0);
    } finally {
      await Promise.all(ws.map((w) => w.kill('SIGKILL')));
      await jobs.close();
      redis.kill('SIGKILL');
    }
  }, 480_000);
});

void EXAMPLES;
