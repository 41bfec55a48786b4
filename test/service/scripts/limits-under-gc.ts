/**
 * Run by test/service/limits.test.ts under `node --expose-gc --import tsx`: heavy calls (Dispatch
 * at the highest MinimumOptimization, jobs, CalculateRoutes) on a Service with short time limits
 * while the garbage collector is forced every few milliseconds. Prints one JSON line:
 * { limitMs, jobLimitMs, calls: [{ kind, ms, status }] }.
 */
import { Engine } from '../../../src/engine.js';
import { openStore } from '../../../src/store/index.js';
import { keyHash, newApiKey } from '../../../src/store/hash.js';
import { Service } from '../../../src/service/service.js';
import { Jobs, LocalJobBackend } from '../../../src/service/jobs.js';
import { Rng } from '../../../src/core/rng.js';
import { fixtureDataset } from '../../helpers/datasets.js';
import { reachablePool } from '../../helpers/monaco-stops.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const N = Number(process.env.DK_LIMIT_CALLS ?? 6);
const LIMIT = Number(process.env.DK_LIMIT_MS ?? 2000);
const JOB_LIMIT = Number(process.env.DK_JOB_LIMIT_MS ?? 2500);
const STOPS = Number(process.env.DK_LIMIT_STOPS ?? 60);

const engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 2, offload: true });
const store = await openStore('sqlite::memory:');
const service = new Service(engine, store, { rateLimit: { perSecond: 0 }, dispatchTimeLimitMs: LIMIT, operationTimeoutMs: LIMIT, jobTimeLimitMs: JOB_LIMIT });
await service.start();
const jobs = new Jobs(service, new LocalJobBackend(service));
const key = newApiKey();
const account = await store.createAccount({ name: 'gc', keyHash: keyHash(key), passwordHash: null, credit: 1e9, now: Date.now() });
const pool = reachablePool(engine);
const rng = new Rng(7);
const spec = (): Record<string, unknown> => ({
  MinimumOptimization: 10, DispatchMode: 'Optima', CurrentTime: '2026-12-01T08:00:00',
  Vehicles: [1, 2, 3].map((v) => ({ Name: `V${v}`, StartLocation: { Name: 'Depot', LatLong: pool[0] } })),
  Locations: Array.from({ length: STOPS }, (_, i) => {
    const p = pool[rng.int(pool.length)];
    return { Name: `S${i}`, LatLong: { Latitude: p.Latitude + (rng.next() - 0.5) * 1e-4, Longitude: p.Longitude + (rng.next() - 0.5) * 1e-4 }, Wait: 60 };
  }),
});
// the worker threads start (as `serve` starts them before it listens)
await service.call('Dispatch', { ...spec(), MinimumOptimization: 1, Locations: spec().Locations }, { key });
// garbage, and forced collections all along
const churn = setInterval(() => { gc(); void new Array(50_000).fill(0).map((x, i) => ({ x, i })); }, 15);
const calls: { kind: string; ms: number; status: string }[] = [];
for (let i = 0; i < N; i++) {
  const t = performance.now();
  const o = await service.call('Dispatch', spec(), { key });
  calls.push({ kind: 'Dispatch', ms: performance.now() - t, status: o.kind === 'result' ? String(o.result.Status) + (o.result.Status === 'Failed' ? ' ' + JSON.stringify(o.result.Errors) : '') : o.code });
}
for (let i = 0; i < 2; i++) {
  const r = await jobs.submit(account, 'Dispatch', spec());
  if ('kind' in r) throw new Error(r.message);
  const t = performance.now();
  for (;;) {
    const v = await jobs.get(account, r.JobID);
    if (v && (v.State === 'completed' || v.State === 'failed' || v.State === 'cancelled')) {
      calls.push({ kind: 'job', ms: performance.now() - t, status: `${v.State}/${String((await v.Result?.value())?.Status)}` });
      break;
    }
    await new Promise((res) => setTimeout(res, 20));
  }
}
clearInterval(churn);
process.stdout.write(`${JSON.stringify({ limitMs: LIMIT, jobLimitMs: JOB_LIMIT, calls })}\n`);
await jobs.close();
await service.close();
await store.close();
await engine.close();
