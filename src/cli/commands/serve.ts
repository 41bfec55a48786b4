/**
 * `dispatchkit serve`: the service over HTTP (REST, the OpenAPI document, the schema browser) on
 * a dataset and a database. Stops gracefully on SIGTERM/SIGINT: no new requests, running ones
 * finish (a dispatch within its time limit), then the pool and the database close.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { EngineError } from '../../core/errors.js';
import { Engine } from '../../engine.js';
import { openStore } from '../../store/index.js';
import { hashPassword, keyHash, newApiKey } from '../../store/hash.js';
import type { Store } from '../../store/types.js';
import { DISPATCH_TIME_LIMIT_MS, JOB_TIME_LIMIT_MS, Service } from '../../service/service.js';
import { loadPrices } from '../../service/prices.js';
import { buildServer } from '../../server/http.js';
import { Jobs, LocalJobBackend } from '../../service/jobs.js';
import { RedisJobBackend } from '../../service/redis.js';
import { parseCommandArgs, parseThreads } from '../io.js';
import { ensureDemoDataset } from './demo.js';
import { defaultDbFor } from './accounts.js';

const version: string = createRequire(import.meta.url)('../../../package.json').version;

function int(s: string | undefined, fallback: number, option: string, min: number, max: number): number {
  if (s === undefined) return fallback;
  const n = Number(s);
  if (!Number.isFinite(n) || n < min || n > max) throw new EngineError('InvalidInput', `${option} must be a number from ${min} to ${max} (got ${JSON.stringify(s)})`, { path: option.replace(/^-+/, '') });
  return n;
}

/**
 * The demo account (name and password `demo`, a million credits), created on first start; its
 * API key is kept in `<keyFile>` (mode 0600) so every start can print it. Returns the key.
 */
export async function ensureDemoAccount(store: Store, keyFile: string): Promise<{ key: string; created: boolean }> {
  const existing = await store.accountByName('demo');
  let key = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : '';
  if (existing && key && (await store.accountByKeyHash(keyHash(key)))?.id === existing.id) return { key, created: false };
  key = newApiKey();
  if (existing) await store.updateAccount('demo', { keyHash: keyHash(key) });
  else await store.createAccount({ name: 'demo', keyHash: keyHash(key), passwordHash: await hashPassword('demo'), credit: 1_000_000, now: Date.now() });
  writeFileSync(keyFile, key + '\n', { mode: 0o600 });
  return { key, created: !existing };
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'Run the service over HTTP: REST operations with accounts, credit, stored routes and tracks (SQLite or PostgreSQL)',
  usage: 'dispatchkit serve [--data <dataset.dkds>] [--db sqlite:<file> | postgres://…] [--port 8080] [--host 127.0.0.1]',
  options: [
    { flag: '--data <dataset.dkds>', description: 'the dataset to answer on', default: 'data/monaco-latest.dkds, built from the embedded extract on first run' },
    { flag: '--db <sqlite:file | postgres://…>', description: 'the database (created and migrated on start)', default: 'sqlite:<dataset>.db beside the dataset' },
    { flag: '--port N', description: 'TCP port (0 = any free port)', default: '8080' },
    { flag: '--host ADDR', description: 'address to listen on', default: '127.0.0.1' },
    { flag: '--threads N', description: 'worker threads for matrices, dispatch and geocoding', default: 'one per core' },
    { flag: '--demo', description: "create the demo account (user 'demo', password 'demo', 1,000,000 credits) on first start and print its API key" },
    { flag: '--prices <file.json>', description: 'credits per unit of work, e.g. {"Dispatch": 2, "Geocode": 1}', default: 'docs/service.md' },
    { flag: '--rate-limit N', description: 'requests per second per account (bursts of 2N; 0 = no limit)', default: '1000' },
    { flag: '--dispatch-time-limit S', description: 'a synchronous dispatch returns its best plan within this many seconds (keep it under your clients\' timeouts: .NET HttpClient waits 100 s; longer work runs as a job)', default: '85' },
    { flag: '--timeout S', description: 'other operations are cancelled after this many seconds (Status Failed)', default: '60' },
    { flag: '--body-limit MB', description: 'largest request body (413 past it)', default: '16' },
    { flag: '--stale-after S', description: 'refund the open reservations of instances silent for this long (crashed)', default: '30' },
    { flag: '--cors <origin,…>', description: 'browser origins allowed to call the API (exact matches)', default: 'none' },
    { flag: '--soap-path PATH', description: 'where the SOAP endpoint answers (its WSDL at PATH?WSDL)', default: '/TrackService.asmx' },
    { flag: '--soap-namespace URI', description: 'the XML namespace of the SOAP records', default: 'http://TrackService.TrackRoad.com/ (the original service\'s)' },
    { flag: '--redis <url>', description: 'run jobs (POST /rest/jobs) on worker processes (`dispatchkit worker`) through this Redis instead of in this process' },
    { flag: '--prefix P', description: 'Redis key prefix (deployments sharing one Redis): the same as the workers\' `worker --prefix`', default: 'dk' },
    { flag: '--keep-routes-days D', description: 'stored routes are forgotten after D days (0 = the same day; "forever" keeps them)', default: '90' },
    { flag: '--keep-jobs-days D', description: 'finished jobs are forgotten after D days', default: '30' },
    { flag: '--keep-tracks-days D', description: 'GPS points are forgotten D days after their time stamp', default: '90' },
    { flag: '--tasks-per-thread N', description: 'tasks a worker thread interleaves (fair sharing: a long dispatch never holds short requests back; 1 = one at a time)', default: '4' },
    { flag: '--job-time-limit S', description: 'seconds a job may run (longer work than a synchronous call allows)', default: '600' },
    { flag: '--log-level LEVEL', description: 'fatal, error, warn, info, debug (keys are never logged)', default: 'info' },
  ],
  examples: [
    'dispatchkit serve --demo',
    'dispatchkit serve --data porto.dkds --db postgres://localhost/dispatch --port 8080 --host 0.0.0.0',
    'dispatchkit serve --data porto.dkds --prices prices.json --rate-limit 200 --dispatch-time-limit 60',
  ],
  async run(argv) {
    const { values } = parseCommandArgs(argv, {
      data: { type: 'string', short: 'd' }, db: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' },
      threads: { type: 'string' }, demo: { type: 'boolean' }, prices: { type: 'string' }, 'rate-limit': { type: 'string' },
      'dispatch-time-limit': { type: 'string' }, timeout: { type: 'string' }, 'body-limit': { type: 'string' },
      cors: { type: 'string' }, 'log-level': { type: 'string' }, 'stale-after': { type: 'string' },
      'soap-path': { type: 'string' }, 'soap-namespace': { type: 'string' }, redis: { type: 'string' }, prefix: { type: 'string' },
      'job-time-limit': { type: 'string' }, 'tasks-per-thread': { type: 'string' },
      'keep-routes-days': { type: 'string' }, 'keep-jobs-days': { type: 'string' }, 'keep-tracks-days': { type: 'string' },
    });
    // every option is checked before any work starts
    const port = int(values.port, 8080, '--port', 0, 65535);
    const host = values.host ?? '127.0.0.1';
    const threads = values.threads !== undefined ? parseThreads(values.threads, 2) : undefined;
    const tasksPerThread = values['tasks-per-thread'] !== undefined ? int(values['tasks-per-thread'], 4, '--tasks-per-thread', 1, 64) : undefined;
    const prices = values.prices ? loadPrices(values.prices) : undefined;
    const rate = int(values['rate-limit'], 1000, '--rate-limit', 0, 1e9);
    const dispatchLimit = int(values['dispatch-time-limit'], DISPATCH_TIME_LIMIT_MS / 1000, '--dispatch-time-limit', 1, 86400);
    const jobLimit = int(values['job-time-limit'], JOB_TIME_LIMIT_MS / 1000, '--job-time-limit', 1, 7 * 86400);
    if (values.prefix !== undefined && !/^[A-Za-z0-9._:-]{1,64}$/.test(values.prefix)) throw new EngineError('InvalidInput', `--prefix: 1 to 64 characters among A-Z a-z 0-9 . _ : - (got ${JSON.stringify(values.prefix)})`, { path: 'prefix' });
    if (values.prefix !== undefined && !values.redis) throw new EngineError('InvalidInput', '--prefix names the Redis keys of --redis: give --redis too', { path: 'prefix' });
    const timeout = int(values.timeout, 60, '--timeout', 1, 86400);
    const staleS = int(values['stale-after'], 30, '--stale-after', 0, 86400);
    const bodyMb = int(values['body-limit'], 16, '--body-limit', 0.001, 1024);
    const level = values['log-level'] ?? 'info';
    const soapPath = values['soap-path'];
    if (values.redis !== undefined && !/^rediss?:\/\//.test(values.redis)) throw new EngineError('InvalidInput', `--redis: a redis://host:port URL (got ${JSON.stringify(values.redis)})`, { path: 'redis' });
    if (soapPath !== undefined && !/^\/[A-Za-z0-9._~\/-]+$/.test(soapPath)) throw new EngineError('InvalidInput', `--soap-path: a path like /TrackService.asmx (got ${JSON.stringify(soapPath)})`, { path: 'soap-path' });
    if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(level)) throw new EngineError('InvalidInput', `--log-level: one of fatal, error, warn, info, debug, silent (got ${level})`, { path: 'log-level' });

    const days = (flag: string, v: string | undefined): number | null | undefined => {
      if (v === undefined) return undefined;
      if (v === 'forever') return null;
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0 || n > 36500) throw new EngineError('InvalidInput', `${flag}: a number of days from 0 to 36500, or "forever" (got ${JSON.stringify(v)})`, { path: flag.replace(/^-+/, '') });
      return n;
    };
    const retention = {
      routes: days('--keep-routes-days', values['keep-routes-days']),
      jobs: days('--keep-jobs-days', values['keep-jobs-days']),
      tracks: days('--keep-tracks-days', values['keep-tracks-days']),
    };

    const dataPath = values.data ?? (await ensureDemoDataset());
    const engine = await Engine.open(dataPath, { offload: true, ...(threads ? { threads } : {}), ...(tasksPerThread ? { tasksPerThread } : {}) });
    const dbSpec = values.db ?? defaultDbFor(dataPath);
    let store: Store;
    try {
      store = await openStore(dbSpec);
    } catch (e) {
      await engine.close();
      throw e;
    }
    const service = new Service(engine, store, {
      ...(prices ? { prices } : {}), rateLimit: { perSecond: rate }, dispatchTimeLimitMs: dispatchLimit * 1000, operationTimeoutMs: timeout * 1000, jobTimeLimitMs: jobLimit * 1000, staleMs: staleS * 1000, retention,
    });
    await service.start();
    const demo = values.demo ? await ensureDemoAccount(store, `${dataPath}.demo-key`) : null;
    let jobs: Jobs;
    if (values.redis) {
      const backend = new RedisJobBackend(service, { url: values.redis, ...(values.prefix ? { prefix: values.prefix } : {}) });
      backend.start();
      jobs = new Jobs(service, backend);
    } else {
      const backend = new LocalJobBackend(service);
      jobs = new Jobs(service, backend);
      backend.start(); // jobs a previous run left pending, or whose run could not write its end, after a grace
    }
    const app = buildServer(service, {
      jobs,
      bodyLimit: Math.round(bodyMb * 1024 * 1024), version,
      corsOrigins: values.cors ? values.cors.split(',').map((s) => s.trim()).filter(Boolean) : [],
      logger: level === 'silent' ? false : { level },
      ...(soapPath ? { soapPath } : {}), ...(values['soap-namespace'] ? { soapNamespace: values['soap-namespace'] } : {}),
    });
    // start the threads now, not on the first request: the server says it listens once they run
    const workers = engine.workers();
    await Promise.all(Array.from({ length: 2 * workers.threads }, () => workers.run('echo', { value: 0 })));
    let address: string;
    try {
      address = await app.listen({ port, host });
    } catch (e) {
      await service.close();
      await Promise.all([engine.close(), store.close()]);
      throw new EngineError('InvalidInput', `cannot listen on ${host}:${port}: ${(e as Error).message}`, { path: 'port' });
    }
    const m = engine.dataset.meta;
    process.stderr.write([
      `dispatchkit ${version} serving ${m.name} on ${address}`,
      `  database: ${store.location}`,
      `  REST: POST ${address}/rest/<operation> with X-API-Key · API browser: ${address}/docs · OpenAPI: ${address}/openapi.json`,
      `  page: ${address}/ · jobs: ${values.redis ? `on workers through ${values.redis.replace(/\/\/[^@]*@/, '//***@')} (dispatchkit worker --redis …)` : 'in this process'}`,
      `  SOAP 1.1/1.2: ${address}${soapPath ?? '/TrackService.asmx'} · WSDL: ${address}${soapPath ?? '/TrackService.asmx'}?WSDL`,
      ...(demo ? [`  demo account: user 'demo', password 'demo'${demo.created ? ' (created now)' : ''}; API key: ${demo.key}`] : []),
      '',
    ].join('\n'));

    return await new Promise<number>((resolve) => {
      let stopping = false;
      const stop = (signal: string): void => {
        if (stopping) { process.stderr.write(`${signal} again: exiting now.\n`); process.exit(EXIT.failed); }
        stopping = true;
        process.stderr.write(`${signal}: finishing ${service.inFlight} running request(s) …\n`);
        (async () => {
          await app.close();
          await jobs.close();
          await service.close();
          await Promise.all([engine.close(), store.close()]);
        })().then(() => resolve(EXIT.ok), (e) => { process.stderr.write(`error while stopping: ${(e as Error).message}\n`); resolve(EXIT.failed); });
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
  },
};
