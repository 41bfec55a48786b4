import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // PostgreSQL and Redis suites run whenever the services answer (DATABASE_URL / REDIS_URL set from a probe)
    globalSetup: ['test/setup/services.ts'],
  },
});
