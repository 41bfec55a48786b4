/**
 * The global setup of the test run (test/setup/services.ts): what it decided reaches the forked
 * test processes, its probes tell a service that answers from one that does not, and it finds
 * the test files that read each variable.
 */
import { createServer, type Server } from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import { DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, filesReading, probePostgres, probeRedis } from './services.js';

const ROOT = new URL('../../', import.meta.url).pathname;

/** A TCP server on a free port answering every connection with `reply` (null: closes it at once). */
async function fakeServer(reply: string | null): Promise<{ server: Server; url: (scheme: string) => string }> {
  const server = createServer((s) => {
    if (reply === null) s.destroy();
    else s.on('data', () => s.write(reply));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return { server, url: (scheme) => `${scheme}://postgres@127.0.0.1:${port}/test` };
}

describe('test/setup/services', () => {
  it('the forked test process sees the environment the global setup decided', () => {
    const s = inject('services');
    expect(typeof process.send).toBe('function'); // a child process forked by vitest (pool: forks)
    expect(process.env.DATABASE_URL || null).toBe(s.DATABASE_URL);
    expect(process.env.REDIS_URL || null).toBe(s.REDIS_URL);
  });

  it('probes: a service that answers is null; a closed port, a silent or wrong server say why, quickly', async () => {
    const s = inject('services');
    if (s.DATABASE_URL === DEFAULT_DATABASE_URL) expect(await probePostgres(DEFAULT_DATABASE_URL)).toBeNull();
    if (s.REDIS_URL === DEFAULT_REDIS_URL) expect(await probeRedis(DEFAULT_REDIS_URL)).toBeNull();
    const t0 = Date.now();
    expect(await probePostgres('postgres://postgres@127.0.0.1:9/test', 1000)).toMatch(/ECONNREFUSED|connect/i);
    expect(await probeRedis('redis://127.0.0.1:9', 1000)).toMatch(/ECONNREFUSED/);
    const wrong = await fakeServer('-NOAUTH Authentication required.\r\n');
    const silent = await fakeServer('');
    const closing = await fakeServer(null);
    try {
      expect(await probeRedis(wrong.url('redis'), 1000)).toMatch(/NOAUTH/);
      expect(await probeRedis(silent.url('redis'), 300)).toMatch(/no answer within 300 ms/);
      expect(await probeRedis(closing.url('redis'), 1000)).toMatch(/closed|ECONNRESET/);
      expect(await probePostgres(silent.url('postgres'), 300)).not.toBeNull();
      expect(await probePostgres(closing.url('postgres'), 1000)).not.toBeNull();
    } finally {
      for (const f of [wrong, silent, closing]) f.server.close();
    }
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('finds the test files that read each variable', () => {
    const db = filesReading('DATABASE_URL', ROOT);
    expect(db).toContain('test/store/postgres.test.ts');
    expect(db).toContain('test/cli/accounts.test.ts');
    expect(db.every((f) => f.startsWith('test/') && f.endsWith('.test.ts') && !f.startsWith('test/setup/'))).toBe(true);
    expect(filesReading('REDIS_URL', ROOT)).toContain('test/server/queue.test.ts');
  });
});
