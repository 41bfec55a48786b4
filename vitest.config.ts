import { defineConfig } from 'vitest/config';

/**
 * Files that must run alone: they time things (event-loop holds, cancellation latency, page
 * interactions, rate limits), drive a browser, or share PostgreSQL / Redis databases. Everything
 * else runs two files at a time (the machine has 2 cores; much of a test file's time is spent
 * waiting on child processes, servers and the worker pool), and these after it, one at a time.
 */
const ALONE = [
  'test/ui/**/*.test.ts',
  'test/core/ticker.test.ts',
  'test/engine/no-stall.test.ts',
  'test/engine/dispatch.test.ts',
  'test/ops/limits.test.ts',
  'test/records/json-sliced.test.ts',
  'test/server/hostile.test.ts',
  'test/server/live.test.ts',
  'test/server/page-input.test.ts',
  'test/server/queue.test.ts',
  'test/server/soap-fuzz.test.ts',
  'test/server/soap/xml.test.ts',
  'test/service/fairness.test.ts',
  'test/service/jobs-cancel-large.test.ts',
  'test/service/limits.test.ts',
  'test/service/redis-close.test.ts',
  'test/setup/services.test.ts',
  'test/store/postgres.test.ts',
  'test/vrp/solve.test.ts',
  'test/workers/pool.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // PostgreSQL and Redis suites run whenever the services answer (DATABASE_URL / REDIS_URL set from a probe)
    // ... and the fixture datasets are built once for the whole run (test/setup/datasets.ts)
    globalSetup: ['test/setup/services.ts', 'test/setup/datasets.ts'],
    projects: [
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ALONE, maxWorkers: 2, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'alone', include: ALONE, maxWorkers: 1, sequence: { groupOrder: 1 } } },
    ],
  },
});
