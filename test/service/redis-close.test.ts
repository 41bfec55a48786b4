/**
 * Closing the queue's clients while Redis is away. BullMQ's close() waits for its blocking
 * connection's 'end' event, which ioredis never emits for a connection between two reconnect
 * attempts; the server's backend and the worker bound that wait (closeWithin), so a server or a
 * worker stopping during a Redis outage or just after a restart still stops. (Seen in CI: the
 * Redis-restart test of test/server/queue.test.ts hung in its cleanup until its timeout.)
 * Starts its own redis-server on a free port; skipped when there is none.
 */
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { QueueEvents } from 'bullmq';
import { closeWithin, CONNECTION_CLOSE_MS, redisConnection, RedisJobBackend, startWorker } from '../../src/service/redis.js';
import type { Service } from '../../src/service/service.js';

const HAS_REDIS_SERVER = spawnSync('redis-server', ['--version']).status === 0;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function freePort(): Promise<number> {
  return new Promise((resolve) => { const s = createServer().listen(0, () => { const p = (s.address() as { port: number }).port; s.close(() => resolve(p)); }); });
}

async function redisServer(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const probe = redisConnection(`redis://127.0.0.1:${port}`);
  try {
    for (let i = 0; i < 100 && probe.status !== 'ready'; i++) await sleep(50);
    expect(probe.status).toBe('ready');
  } finally {
    probe.disconnect();
  }
  return child;
}

async function killed(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

/** The service is touched only when BullMQ reports a failed job, which these tests never make. */
const service = { store: {} } as unknown as Service;

describe.skipIf(!HAS_REDIS_SERVER)('closing the queue\'s clients while Redis is away', () => {
  it('with Redis away, the server\'s queue answers within seconds: enqueue fails (the submission stands, the reconciler enqueues later), progress is none, cancel returns', async () => {
    // with maxRetriesPerRequest: null on the queue's connection these waited for ever (POST /rest/jobs hung, its credit reserved)
    const port = await freePort();
    const redis = await redisServer(port);
    const backend = new RedisJobBackend(service, { url: `redis://127.0.0.1:${port}`, prefix: 'away' });
    try {
      await backend.queue.waitUntilReady();
      await killed(redis);
      await sleep(200);
      const within = async <T>(what: string, p: Promise<T>): Promise<number> => {
        const t0 = performance.now();
        const r = await Promise.race([p.then(() => 'settled', () => 'settled'), sleep(8000).then(() => 'hung')]);
        expect(r, what).toBe('settled');
        return performance.now() - t0;
      };
      const ms = [
        await within('enqueue', backend.enqueue('away-1')),
        await within('progress', backend.progress('away-1')),
        await within('cancel', backend.cancel('away-1')),
      ];
      console.log(`Redis away: enqueue ${ms[0].toFixed(0)} ms, progress ${ms[1].toFixed(0)} ms, cancel ${ms[2].toFixed(0)} ms`);
      expect(await backend.progress('away-1')).toBeNull();
    } finally {
      await closeWithin(backend.close(), 5000);
    }
  });

  it('closeWithin: true when the close ends in time, false at the bound', async () => {
    expect(await closeWithin(sleep(10), 500)).toBe(true);
    expect(await closeWithin(Promise.reject(new Error('x')), 500)).toBe(true);
    const t0 = performance.now();
    expect(await closeWithin(new Promise(() => {}), 200)).toBe(false);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190);
  });

  it('the server\'s backend and a worker close within the bound while their connections reconnect, and while Redis is up again', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    let redis = await redisServer(port);
    const rounds: { when: string; backendMs: number; workerMs: number; rawEventsClosed: boolean }[] = [];
    try {
      for (const when of ['Redis down', 'Redis down', 'Redis restarted'] as const) {
        const backend = new RedisJobBackend(service, { url, prefix: 'dkclose' });
        const w = startWorker(service, { url, prefix: 'dkclose', lockDurationMs: 2000 });
        const raw = new QueueEvents('dkclose-raw', { connection: { host: '127.0.0.1', port, maxRetriesPerRequest: null } });
        raw.on('error', () => {});
        await backend.enqueue('a');
        await w.worker.waitUntilReady();
        await sleep(300);
        await killed(redis);
        await sleep(1200); // every connection has failed at least once and waits to retry
        if (when === 'Redis restarted') redis = await redisServer(port);
        const rawClosed = closeWithin(raw.close(), CONNECTION_CLOSE_MS + 1000);
        let t0 = performance.now();
        await backend.close();
        const backendMs = performance.now() - t0;
        t0 = performance.now();
        await w.close();
        const workerMs = performance.now() - t0;
        rounds.push({ when, backendMs: Math.round(backendMs), workerMs: Math.round(workerMs), rawEventsClosed: await rawClosed });
        expect(backendMs, when).toBeLessThan(CONNECTION_CLOSE_MS + 1500);
        expect(workerMs, when).toBeLessThan(CONNECTION_CLOSE_MS + 1500);
        if (when !== 'Redis restarted') redis = await redisServer(port);
      }
    } finally {
      await killed(redis);
    }
    // BullMQ's own close, unbounded, for the record (it ends only when the 'end' event comes)
    console.log(`closing while Redis is away: ${JSON.stringify(rounds)}`);
  }, 60_000);
});
