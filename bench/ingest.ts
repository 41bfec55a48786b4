/**
 * Track ingestion with live estimates (issue #24): 1,000 vehicles sending a point every 10 s
 * (100 TrackPoints requests a second, one point each) to one server over HTTP for a minute, with
 * SQLite and with PostgreSQL; meanwhile, once a second, one of a stored route's 10 vans sends a
 * point and its live state is asked for at once — the time from sending the point to an answer
 * that shows the van there is how soon estimates are renewed after a point.
 *
 *   node --import tsx bench/ingest.ts [--seconds 60] [--vehicles 1000]
 *
 * The load comes from a child process (its own event loop); the server is the real one
 * (buildServer) on the Porto dataset. Needs ../shared/data/osm/porto_portugal.osm.pbf (built into
 * bench/out/porto.dkds by bench/live.ts) and PostgreSQL at DATABASE_URL (default the test database)
 * for the second row; says so when either is absent.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { spawn } from 'node:child_process';
import { Engine } from '../src/engine.js';
import { openStore } from '../src/store/index.js';
import { keyHash, newApiKey } from '../src/store/hash.js';
import { Service } from '../src/service/service.js';
import { buildServer } from '../src/server/http.js';
import { table, writeSection } from './lib/report.js';
import { makePortoSpec } from './lib/porto-spec.js';

const DATASET = fileURLToPath(new URL('out/porto.dkds', import.meta.url));
const PG = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN;
}
const iso = (ms: number): string => new Date(ms).toISOString().slice(0, 19) + 'Z';

/** The load (a child process: its own event loop and core): `rate` requests a second, one point each, vehicles in turn; latencies as JSON on stdout. */
async function load(): Promise<void> {
  const { url, key, vehicles, rate, seconds } = JSON.parse(process.argv[process.argv.indexOf('--load') + 1]) as { url: string; key: string; vehicles: number; rate: number; seconds: number };
  const lat: number[] = [];
  let errors = 0, sent = 0;
  const start = performance.now();
  const inflight = new Set<Promise<void>>();
  for (let i = 0; i < rate * seconds; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const v = i % vehicles;
    const t0 = performance.now();
    const p = fetch(`${url}/rest/trackpoints`, {
      method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
      body: JSON.stringify({ Account: `truck-${v}`, TrackPoints: [{ Latitude: 41.15 + (v % 100) * 1e-4, Longitude: -8.61 + Math.floor(v / 100) * 1e-4, TimeStamp: iso(Date.now() - 1000) }] }),
    }).then(async (r) => { await r.text(); if (r.status !== 200) errors++; lat.push(performance.now() - t0); sent++; }, () => { errors++; });
    inflight.add(p);
    void p.finally(() => inflight.delete(p));
  }
  await Promise.all(inflight);
  process.stdout.write(JSON.stringify({ lat, errors, sent, seconds: (performance.now() - start) / 1000 }));
}

async function measure(storeUrl: string, vehicles: number, seconds: number): Promise<(string | number)[]> {
  const engine = await Engine.open(DATASET, { threads: 2, offload: true });
  const store = await openStore(storeUrl);
  const service = new Service(engine, store, { rateLimit: { perSecond: 0 } });
  await service.start();
  const key = newApiKey();
  const name = `ingest-${Date.now()}`;
  await store.createAccount({ name, keyHash: keyHash(key), passwordHash: null, credit: 1e9, now: Date.now() });
  const app = buildServer(service, { logger: false });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    // a stored route of 200 stops on 10 vans, planned an hour ago
    const spec = JSON.parse(JSON.stringify(makePortoSpec(engine, { name: 'ingest', stops: 200, vehicles: 10, timeLimitS: 0, waitS: 300 }, 1)).replaceAll('2026-12-01T', `${iso(Date.now() - 3_600_000).slice(0, 10)}T`));
    spec.CurrentTime = iso(Date.now() - 3_600_000);
    for (const v of spec.Vehicles) v.Tin = spec.CurrentTime;
    spec.MinimumOptimization = 2;
    const d = await fetch(`${url}/rest/dispatch`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': key }, body: JSON.stringify(spec) });
    const routeId = Number(d.headers.get('x-route-id'));
    const plan = await d.json() as any;
    // each van stands on the road by its first stop
    const vans = plan.Items.map((i: any) => {
      const ll = i.Locations[1]?.LatLong ?? i.Locations[0].LatLong;
      const snap = engine.context().travel.place({ lat: ll.Latitude, lon: ll.Longitude }, 'van').snap;
      return { name: i.Vehicle.Name, at: { Latitude: snap.lat, Longitude: snap.lon } };
    });
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--load', JSON.stringify({ url, key, vehicles, rate: vehicles / 10, seconds })], { stdio: ['ignore', 'pipe', 'inherit'] });
    let outText = '';
    child.stdout!.on('data', (d: Buffer) => { outText += d.toString(); });
    const done = new Promise<{ lat: number[]; errors: number; sent: number; seconds: number }>((res, rej) => {
      child.once('exit', (code) => (code === 0 ? res(JSON.parse(outText)) : rej(new Error(`load process exited ${code}`))));
    });
    // once a second: a van's point, then its live state
    const renew: number[] = [];
    const liveMs: number[] = [];
    let k = 0;
    const until = performance.now() + seconds * 1000;
    while (performance.now() < until) {
      const v = vans[k++ % vans.length];
      const ts = iso(Date.now());
      const t0 = performance.now();
      await (await fetch(`${url}/rest/trackpoints`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': key }, body: JSON.stringify({ Account: v.name, TrackPoints: [{ Latitude: v.at.Latitude, Longitude: v.at.Longitude, TimeStamp: ts }] }) })).text();
      const t1 = performance.now();
      const live = await (await fetch(`${url}/rest/routes/${routeId}/live?enums=name`, { headers: { 'X-API-Key': key } })).json() as any;
      const t2 = performance.now();
      const mine = live.Vehicles?.find((x: any) => x.Name === v.name);
      if (mine?.Position?.TimeStamp === ts) renew.push(t2 - t0);
      liveMs.push(t2 - t1);
      const rest = 1000 - (performance.now() - t0);
      if (rest > 0) await new Promise((r) => setTimeout(r, rest));
    }
    const w = await done;
    return [
      storeUrl.startsWith('sqlite') ? 'SQLite (file)' : 'PostgreSQL', vehicles, (w.sent / w.seconds).toFixed(1), w.errors,
      `${pct(w.lat, 0.5).toFixed(1)} / ${pct(w.lat, 0.95).toFixed(1)} / ${pct(w.lat, 0.99).toFixed(1)}`,
      `${pct(liveMs, 0.5).toFixed(0)} / ${pct(liveMs, 0.95).toFixed(0)}`,
      `${renew.length}/${liveMs.length}: ${pct(renew, 0.5).toFixed(0)} / ${pct(renew, 0.95).toFixed(0)} / ${Math.max(...renew).toFixed(0)}`,
    ];
  } finally {
    await app.close();
    await service.close();
    await store.close();
    await engine.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '60' }, vehicles: { type: 'string', default: '1000' } } });
  if (!existsSync(DATASET)) {
    writeSection('ingest', 'Track ingestion with live estimates (`bench/ingest.ts`)', '_bench/out/porto.dkds is not built here (run bench/live.ts first, with ../shared/data); nothing was measured._');
    return;
  }
  const seconds = Number(values.seconds), vehicles = Number(values.vehicles);
  const dir = mkdtempSync(join(tmpdir(), 'dk-ingest-'));
  const rows: (string | number)[][] = [];
  try {
    rows.push(await measure(`sqlite:${join(dir, 'ingest.db')}`, vehicles, seconds));
    process.stderr.write(`${rows.at(-1)!.join(' | ')}\n`);
    try {
      rows.push(await measure(PG, vehicles, seconds));
      process.stderr.write(`${rows.at(-1)!.join(' | ')}\n`);
    } catch (e) {
      rows.push(['PostgreSQL', vehicles, `not measured: ${(e as Error).message.slice(0, 80)}`, '', '', '', '']);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  writeSection('ingest', 'Track ingestion with live estimates (`bench/ingest.ts`)', [
    `\`node --import tsx bench/ingest.ts --seconds ${seconds} --vehicles ${vehicles}\`: the server (buildServer, Porto, 2 worker threads) takes ${vehicles.toLocaleString('en-US')} vehicles' points — one TrackPoints request of one point per vehicle every 10 s, ${vehicles / 10} requests a second, from a child process — for ${seconds} s; meanwhile once a second one of a stored route's 10 vans (200 stops) sends a point and its live state (GET /rest/routes/{RouteID}/live) is asked for at once. "Renewed" is from sending that point to the answer that shows the van at it (how soon estimates follow a point).`,
    '',
    table(['store', 'vehicles', 'points/s sustained', 'errors', 'TrackPoints p50 / p95 / p99 ms', 'live state p50 / p95 ms', 'renewed after a point: n, p50 / p95 / max ms'], rows),
    '',
    'Target (issue #24): 1,000 vehicles at a point every 10 s (100 points/s) sustained on one server with SQLite and with PostgreSQL; estimates renewed within 2 s of a point.',
  ].join('\n'));
}

if (process.argv.includes('--load')) void load();
else main().catch((e) => { console.error(e); process.exit(1); });
