/**
 * vitest globalSetup (vitest.config.ts): the service suites run whenever their services answer.
 *
 * Tests that need PostgreSQL read DATABASE_URL, those that need Redis REDIS_URL, and skip their
 * parts (saying so) when it is unset. This setup runs once, in vitest's main process, before the
 * test processes are forked: for each variable that is unset it probes the default local address
 * (PostgreSQL: postgres://postgres@127.0.0.1:5432/test, a connection and `SELECT 1` within 2 s;
 * Redis: a PING at 127.0.0.1:6379 answered PONG within 2 s) and, when it answers, sets the
 * variable in this process's environment — which vitest copies into every forked test process
 * (test/setup/services.test.ts checks that they see it). It prints, once, which service suites
 * run and which are skipped, and why. A variable already set is used as given; set it empty
 * (`DATABASE_URL= npm test`) to skip those suites although the service answers.
 * DK_PROBE_DATABASE_URL / DK_PROBE_REDIS_URL replace the addresses probed (another port, or a
 * closed one to see the suites skip as on a machine without the services).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join, relative } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
const PROBE_MS = 2000;

/** What the setup decided, for the tests (`inject('services')`). */
export interface ServicesDecision {
  DATABASE_URL: string | null;
  REDIS_URL: string | null;
}

declare module 'vitest' {
  export interface ProvidedContext {
    services: ServicesDecision;
  }
}

/** Null when PostgreSQL at `url` answers a query; else why not. */
export async function probePostgres(url: string, timeoutMs = PROBE_MS): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (e) {
    return (e as Error)?.message || String(e);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Null when Redis at `url` (redis://host:port) answers PING with PONG; else why not. */
export function probeRedis(url: string, timeoutMs = PROBE_MS): Promise<string | null> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: u.hostname || '127.0.0.1', port: Number(u.port || 6379) });
    let answer = '';
    const done = (why: string | null): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(why);
    };
    const timer = setTimeout(() => done(`no answer within ${timeoutMs} ms`), timeoutMs);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      answer += d.toString('latin1');
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG') ? null : `it answered ${JSON.stringify(answer.trim().slice(0, 80))}`);
    });
    socket.on('error', (e) => done(e.message));
    socket.on('close', () => done('the connection closed without an answer'));
  });
}

/** The test files (relative to the repository) whose text reads `process.env.<name>`. */
export function filesReading(name: string, root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'setup') walk(p);
      } else if (e.name.endsWith('.test.ts') && readFileSync(p, 'utf8').includes(`process.env.${name}`)) {
        out.push(relative(root, p));
      }
    }
  };
  walk(join(root, 'test'));
  return out.sort();
}

const hostOf = (url: string): string => {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || (u.protocol.startsWith('redis') ? 6379 : 5432)}`;
  } catch {
    return url;
  }
};

const masked = (url: string): string => url.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:xxxxx@');

async function decide(
  name: 'DATABASE_URL' | 'REDIS_URL', service: string, fallback: string, probe: (url: string) => Promise<string | null>, root: string,
): Promise<{ value: string | null; line: string }> {
  const readers = filesReading(name, root);
  const list = readers.length ? readers.join(', ') : 'no test file';
  const given = process.env[name];
  if (given !== undefined) {
    return given === ''
      ? { value: null, line: `${service}: ${name} is set empty — skipped: the ${service} parts of ${list}.` }
      : { value: given, line: `${service}: ${name}=${masked(given)} (set by the environment) — runs: ${list}.` };
  }
  const why = await probe(fallback);
  if (why === null) {
    process.env[name] = fallback;
    return { value: fallback, line: `${service}: answering at ${hostOf(fallback)}, ${name}=${fallback} for the tests — runs: ${list}.` };
  }
  return { value: null, line: `${service}: not answering at ${hostOf(fallback)} (${why}) — skipped: the ${service} parts of ${list}. Start it, or set ${name}.` };
}

/**
 * The decision, made once per vitest process: the setup runs for the root and for each project
 * (vitest.config.ts), each with its own copy of this module — so it is kept on the process.
 */
const DECIDED = Symbol.for('dispatchkit.test.services');
type Holder = { [DECIDED]?: Promise<ServicesDecision> };

export default async function setup(project: TestProject): Promise<void> {
  const root = project.config.root;
  const holder = globalThis as Holder;
  holder[DECIDED] ??= (async () => {
    const [db, redis] = await Promise.all([
      decide('DATABASE_URL', 'PostgreSQL', process.env.DK_PROBE_DATABASE_URL || DEFAULT_DATABASE_URL, probePostgres, root),
      decide('REDIS_URL', 'Redis', process.env.DK_PROBE_REDIS_URL || DEFAULT_REDIS_URL, probeRedis, root),
    ]);
    process.stdout.write(`\nService suites (test/setup/services.ts):\n  ${db.line}\n  ${redis.line}\n\n`);
    return { DATABASE_URL: db.value, REDIS_URL: redis.value };
  })();
  project.provide('services', await holder[DECIDED]);
}
