/**
 * `dispatchkit worker`: runs jobs (Dispatch, Geocode, CalculateRoutes) from the Redis queue the
 * servers (`serve --redis`) fill, on this machine's dataset and the service's database — as many
 * worker processes on as many machines as needed. Stops gracefully on SIGTERM/SIGINT (the running
 * job finishes; a killed worker's job is taken over by another after its lock lapses).
 */
import { loadPrices } from '../../service/prices.js';
import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { EngineError } from '../../core/errors.js';
import { Engine } from '../../engine.js';
import { openStore } from '../../store/index.js';
import { Service } from '../../service/service.js';
import { PRESENCE_TTL_MS, serverSeen, startWorker } from '../../service/redis.js';
import { parseCommandArgs, parseThreads } from '../io.js';
import { ensureDemoDataset } from './demo.js';
import { defaultDbFor } from './accounts.js';

export const workerCommand: Command = {
  name: 'worker',
  summary: 'Run queued jobs (Dispatch, Geocode, CalculateRoutes) from Redis, for the servers started with --redis',
  usage: 'dispatchkit worker --redis redis://host:6379 [--data <dataset.dkds>] [--db sqlite:<file> | postgres://…]',
  options: [
    { flag: '--redis <url>', description: 'the Redis the servers queue jobs on (required)' },
    { flag: '--data <dataset.dkds>', description: 'the dataset (the same as the servers\')', default: 'data/monaco-latest.dkds' },
    { flag: '--db <sqlite:file | postgres://…>', description: 'the service\'s database (PostgreSQL when workers run on other machines)', default: 'sqlite:<dataset>.db' },
    { flag: '--concurrency N', description: 'jobs at once in this process', default: '1' },
    { flag: '--threads N', description: 'worker threads of the engine', default: 'one per core' },
    { flag: '--prefix P', description: 'Redis key prefix (deployments sharing one Redis): the same as the servers\' `serve --prefix`', default: 'dk' },
    { flag: '--lock-ms MS', description: 'a job whose worker is silent this long goes to another worker', default: '10000' },
    { flag: '--prices <file.json>', description: 'the servers\' price list (`serve --prices`), for jobs submitted before prices were stored with them: a job is charged at the price quoted when it was submitted', default: 'docs/service.md' },
  ],
  examples: [
    'dispatchkit worker --redis redis://127.0.0.1:6379 --db postgres://db.internal/dispatch --data porto.dkds',
  ],
  async run(argv) {
    const { values } = parseCommandArgs(argv, {
      redis: { type: 'string' }, data: { type: 'string', short: 'd' }, db: { type: 'string' }, concurrency: { type: 'string' },
      threads: { type: 'string' }, prefix: { type: 'string' }, 'lock-ms': { type: 'string' }, prices: { type: 'string' },
    });
    const lockMs = values['lock-ms'] !== undefined ? Number(values['lock-ms']) : 10_000;
    if (!(Number.isInteger(lockMs) && lockMs >= 500 && lockMs <= 600_000)) throw new EngineError('InvalidInput', `--lock-ms: whole milliseconds from 500 to 600000 (got ${values['lock-ms']})`, { path: 'lock-ms' });
    // Fault injection for the queue's tests: a job whose specification holds this marker kills its worker (as an out-of-memory kill would).
    const crashMarker = process.env.DK_FAULT_CRASH_MARKER;
    if (!values.redis || !/^rediss?:\/\//.test(values.redis)) throw new EngineError('InvalidInput', '--redis redis://host:port is required', { path: 'redis' });
    const concurrency = parseThreads(values.concurrency, 1, '--concurrency');
    const threads = values.threads !== undefined ? parseThreads(values.threads, 2) : undefined;
    const dataPath = values.data ?? (await ensureDemoDataset());
    const engine = await Engine.open(dataPath, { offload: true, ...(threads ? { threads } : {}) });
    const store = await openStore(values.db ?? defaultDbFor(dataPath));
    const service = new Service(engine, store, values.prices ? { prices: loadPrices(values.prices) } : {});
    await service.start();
    const workers = engine.workers();
    await Promise.all(Array.from({ length: 2 * workers.threads }, () => workers.run('echo', { value: 0 })));
    let unknownSaid = 0;
    const w = startWorker(service, {
      url: values.redis, concurrency, lockDurationMs: lockMs, ...(values.prefix ? { prefix: values.prefix } : {}),
      // jobs left queued for ever otherwise, silently: say so (at most once a minute)
      onUnknown: (id) => {
        if (Date.now() - unknownSaid < 60_000) return;
        unknownSaid = Date.now();
        process.stderr.write(`warning: job ${id} from the queue is not in this worker's database (${store.location}): a worker must use its servers' database (--db)\n`);
      },
      ...(crashMarker ? { onStart: (job: { spec: string }) => { if (job.spec.includes(crashMarker)) process.kill(process.pid, 'SIGKILL'); } } : {}),
    });
    await w.worker.waitUntilReady();
    const where = `${values.redis.replace(/\/\/[^@]*@/, '//***@')} prefix '${values.prefix ?? 'dk'}'`;
    process.stderr.write(`dispatchkit worker ${process.pid} taking jobs from ${where} (dataset ${engine.dataset.meta.name}, database ${store.location})\n`);
    // a worker on a queue no server fills waits for ever: say so (checked now and while no server shows up)
    let warned = false;
    const lookForServer = async (): Promise<void> => {
      if (await serverSeen(values.redis!, values.prefix)) { if (warned) process.stderr.write(`a server now uses ${where}\n`); clearInterval(looking); return; }
      if (!warned) process.stderr.write(`warning: no server has used ${where} in the last ${PRESENCE_TTL_MS / 1000} s: start it with \`serve --redis … --prefix ${values.prefix ?? 'dk'}\` (a worker and its servers must use the same prefix)\n`);
      warned = true;
    };
    const looking = setInterval(() => { void lookForServer(); }, PRESENCE_TTL_MS);
    looking.unref();
    void lookForServer();
    return await new Promise<number>((resolve) => {
      let stopping = false;
      const stop = (signal: string): void => {
        if (stopping) process.exit(EXIT.failed);
        stopping = true;
        process.stderr.write(`${signal}: finishing the running job …\n`);
        clearInterval(looking);
        (async () => {
          await w.close();
          await service.close();
          await Promise.all([engine.close(), store.close()]);
        })().then(() => resolve(EXIT.ok), () => resolve(EXIT.failed));
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
  },
};
