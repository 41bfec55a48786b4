/** Helpers for the service and server tests: Monaco stops, and `dispatchkit serve` in a child process. */
import { spawn, type ChildProcess } from 'node:child_process';
import { DEMO_PLACES } from '../../src/cli/commands/demo.js';
import { CLI, ROOT } from './cli.js';

/** Seven named stops on the Monaco fixture (they snap and reach each other). */
export const MONACO_STOPS = DEMO_PLACES.map((p) => ({ Name: p.name, LatLong: { Latitude: p.lat, Longitude: p.lon }, Weight: 1, Wait: 120 }));

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM and wait for the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait. */
  kill(): Promise<void>;
}

/** Starts `dispatchkit serve <args> --port 0` from the sources; resolves once it listens. */
export function startServer(args: string[], env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...CLI, 'serve', '--port', '0', '--log-level', 'warn', ...args], {
    cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stdout!.resume();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`server did not start:\n${err}`)); }, 60_000);
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /serving .* on (http:\/\/[^\s]+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({
          child, url: m[1], stderr: () => err,
          stop: async () => { child.kill('SIGTERM'); return exited; },
          kill: async () => { child.kill('SIGKILL'); await exited; },
        });
      }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited (${code}) before listening:\n${err}`)); });
  });
}

/** POST a JSON body to the REST face. */
export async function post(url: string, path: string, body: unknown, key?: string, headers: Record<string, string> = {}): Promise<{ status: number; json: any; headers: Headers; text: string }> {
  const r = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(key !== undefined ? { 'X-API-Key': key } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await r.text();
  let json: unknown = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: r.status, json, headers: r.headers, text };
}

// ------------------------------------------------------------------------------------------------
// An in-process server on the Monaco fixture (what the HTTP tests share)

import type { FastifyInstance } from 'fastify';
import { Engine } from '../../src/engine.js';
import { openStore } from '../../src/store/index.js';
import { hashPassword, keyHash, newApiKey } from '../../src/store/hash.js';
import type { Store } from '../../src/store/types.js';
import { Service, type ServiceOptions } from '../../src/service/service.js';
import type { Jobs } from '../../src/service/jobs.js';
import { buildServer, type ServerOptions } from '../../src/server/http.js';
import { fixtureDataset } from './datasets.js';

export interface TestServer {
  engine: Engine;
  store: Store;
  service: Service;
  app: FastifyInstance;
  url: string;
  /** API key per account name. */
  keys: Record<string, string>;
  /** Creates an account (with a Login password when given); its API key. */
  account(name: string, credit: number, password?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The engine on the Monaco fixture (2 threads, offloading as a server does), an in-memory SQLite
 * store, a Service (no rate limit unless given) and the HTTP server on a free port, with accounts.
 */
export async function inProcessServer(o: {
  accounts?: { name: string; credit: number; password?: string }[];
  service?: ServiceOptions;
  server?: ServerOptions;
  jobs?: (service: Service) => Jobs;
} = {}): Promise<TestServer> {
  const engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 2, offload: true });
  const store = await openStore('sqlite::memory:');
  const service = new Service(engine, store, { rateLimit: { perSecond: 0 }, ...o.service });
  await service.start();
  const keys: Record<string, string> = {};
  const account = async (name: string, credit: number, password?: string): Promise<string> => {
    const key = newApiKey();
    await store.createAccount({ name, keyHash: keyHash(key), passwordHash: password ? await hashPassword(password) : null, credit, now: Date.now() });
    keys[name] = key;
    return key;
  };
  for (const a of o.accounts ?? []) await account(a.name, a.credit, a.password);
  const jobs = o.jobs?.(service);
  const app = buildServer(service, { logger: false, ...o.server, ...(jobs ? { jobs } : {}) });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    engine, store, service, app, url, keys, account,
    close: async () => {
      await app.close();
      await jobs?.close();
      await service.close();
      await store.close();
      await engine.close();
    },
  };
}
