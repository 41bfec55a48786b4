/**
 * Load bench of the HTTP server (`dispatchkit serve`) on the Monaco dataset: REST
 * CalculateDistance and Geocode and SOAP 1.1 CalculateDistance throughput and latency with
 * autocannon (50 connections), and dispatch requests per minute. The server runs in its own process (built JS when present, else
 * tsx) on a fresh SQLite database with one account; autocannon runs in this process — both on the
 * same 2 cores, so the figures include the load generator's share of the machine.
 *
 *   node --import tsx bench/server.ts [--seconds 10] [--connections 50] [--only distance,soap,geocode,dispatch]
 *                                     [--baseline <an earlier build's dist/>]
 *
 * With --baseline, the same cases run against a server of that build too (git worktree add ../old
 * <rev>; cd ../old; npx tsc -p tsconfig.build.json), interleaved in every round: the ratio of the
 * two, measured in the same run, is what to compare.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { median, table, writeSection } from './lib/report.js';
import { ensureDemoDataset, DEMO_PLACES } from '../src/cli/commands/demo.js';
import { startServer } from './lib/server.js';
import { openStore } from '../src/store/index.js';
import { keyHash, newApiKey } from '../src/store/hash.js';


interface Row { name: string; connections: number; seconds: number; rps: number; p50: number; p99: number; max: number; ok: number; errors: number; non2xx: number }

async function load(name: string, url: string, path: string, body: unknown, key: string, connections: number, seconds: number, headers?: Record<string, string>): Promise<Row> {
  const r = await autocannon({
    url: `${url}${path}`, method: 'POST', connections, duration: seconds, pipelining: 1,
    headers: headers ?? { 'content-type': 'application/json', 'x-api-key': key }, body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return {
    name, connections, seconds, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, max: r.latency.max,
    ok: r['2xx'], errors: r.errors + r.timeouts, non2xx: r.non2xx,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' }, only: { type: 'string' }, rounds: { type: 'string', default: '3' }, baseline: { type: 'string' } } });
  const seconds = Number(values.seconds), connections = Number(values.connections), nRounds = Number(values.rounds);
  const only = values.only ? new Set(values.only.split(',')) : null;
  const data = await ensureDemoDataset(true);
  const dir = mkdtempSync(join(tmpdir(), 'dk-bench-server-'));
  const key = newApiKey();
  /** A server of this build or of the baseline's, on a fresh database made by that build's own store. */
  const serverOf = async (label: string, dist: string | null): Promise<{ label: string; url: string; stop: () => Promise<void> }> => {
    const db = `sqlite:${join(dir, `${label}.db`)}`;
    const open = dist ? ((await import(join(dist, 'store/index.js'))) as { openStore: typeof openStore }).openStore : openStore;
    const store = await open(db);
    await store.createAccount({ name: 'bench', keyHash: keyHash(key), passwordHash: null, credit: 1e12, now: Date.now() });
    await store.close();
    return { label, ...(await startServer(data, db, [], dist ? { main: join(dist, 'cli/main.js') } : {})) };
  };
  const servers = [await serverOf('this build', null), ...(values.baseline ? [await serverOf('baseline', values.baseline)] : [])];
  const runs = new Map<string, Row[]>();
  try {
    const p = (i: number) => ({ LatLong: { Latitude: DEMO_PLACES[i].lat, Longitude: DEMO_PLACES[i].lon } });
    const a = p(0).LatLong, b = p(3).LatLong;
    const env = '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">' +
      `<soap:Header><SessionIDHeader xmlns="http://TrackService.TrackRoad.com/"><SessionID>${key}</SessionID></SessionIDHeader></soap:Header>` +
      '<soap:Body><CalculateDistance xmlns="http://TrackService.TrackRoad.com/"><specification>' +
      `<StartLocation><LatLong><Latitude>${a.Latitude}</Latitude><Longitude>${a.Longitude}</Longitude></LatLong></StartLocation>` +
      `<FinishLocation><LatLong><Latitude>${b.Latitude}</Latitude><Longitude>${b.Longitude}</Longitude></LatLong></FinishLocation>` +
      '<DistanceUnit>Kilometer</DistanceUnit></specification></CalculateDistance></soap:Body></soap:Envelope>';
    const spec = {
      CurrentTime: '2026-12-01T09:00:00', DistanceUnit: 1, MinimumOptimization: 4,
      Vehicles: [{ Name: 'V1', StartLocation: p(1) }, { Name: 'V2', StartLocation: p(1) }],
      Locations: DEMO_PLACES.map((q, i) => ({ Name: `S${i}`, LatLong: { Latitude: q.lat, Longitude: q.lon }, Wait: 120 })),
    };
    const cases: { id: string; run: (url: string) => Promise<Row> }[] = [
      { id: 'distance', run: (url) => load('REST CalculateDistance', url, '/rest/distance', { StartLocation: p(0), FinishLocation: p(3), DistanceUnit: 1 }, key, connections, seconds) },
      { id: 'soap', run: (url) => load('SOAP 1.1 CalculateDistance', url, '/TrackService.asmx', env, key, connections, seconds, { 'content-type': 'text/xml; charset=utf-8', soapaction: '"http://TrackService.TrackRoad.com/CalculateDistance"' }) },
      { id: 'geocode', run: (url) => load('REST Geocode (1 address)', url, '/rest/geocode', { Addresses: [{ Street: 'Boulevard des Moulins', City: 'Monaco' }] }, key, connections, seconds) },
      { id: 'dispatch', run: (url) => load('REST Dispatch (7 stops, 2 vehicles)', url, '/rest/dispatch', spec, key, 4, Math.max(seconds, 20)) },
    ];
    // warm-up (JIT, worker threads)
    for (const server of servers) await load('warm-up', server.url, '/rest/distance', { StartLocation: p(0), FinishLocation: p(3), DistanceUnit: 1 }, key, connections, 2);
    // rounds, the cases (and the servers) interleaved within each, so that a noisy minute does not fall on one only
    for (let round = 1; round <= nRounds; round++) {
      for (const c of cases) {
        if (only && !only.has(c.id)) continue;
        for (const server of servers) {
          const r = await c.run(server.url);
          const k = `${r.name}\u0000${server.label}`;
          if (!runs.has(k)) runs.set(k, []);
          runs.get(k)!.push(r);
          console.log(`round ${round} ${server.label} ${r.name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, max ${r.max} ms, ${r.ok} ok, ${r.non2xx} non-2xx, ${r.errors} errors`);
        }
      }
    }
  } finally {
    for (const server of servers) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const rows = [...runs].map(([k, rs]) => {
    const label = k.split('\u0000')[1];
    const m = (f: (r: Row) => number): number => median(rs.map(f));
    const rps = (x: number): string => (rs[0].name.includes('Dispatch') ? `${x.toFixed(1)} (${(x * 60).toFixed(0)}/min)` : x.toFixed(0));
    const base = servers.length > 1 && label === servers[0].label ? runs.get(`${rs[0].name}\u0000baseline`) : undefined;
    const ratio = base ? `${(m((r) => r.rps) / median(base.map((r) => r.rps))).toFixed(2)}×` : '';
    return [rs[0].name, label, rs[0].connections, rs[0].seconds, `**${rps(m((r) => r.rps))}**`, m((r) => r.p50), `**${m((r) => r.p99)}**`, m((r) => r.max),
      rs.map((r) => `${rps(r.rps)} / ${r.p99}`).join(', '), ratio, rs.reduce((x, r) => x + r.ok, 0), rs.reduce((x, r) => x + r.non2xx, 0), rs.reduce((x, r) => x + r.errors, 0)];
  });
  const body = [
    `\`node --import tsx bench/server.ts${values.baseline ? ' --baseline <the baseline\'s dist>' : ''}\`: \`dispatchkit serve\` (own process, SQLite with synchronous=FULL, every call authenticated and charged — a reservation and a settlement, or one charge for an instant call, with its usage record — group-committed) on the Monaco dataset; autocannon in the bench process on the same 2 cores. ${nRounds} rounds, the cases${servers.length > 1 ? ' and the two servers' : ''} interleaved in each; requests/s (autocannon's mean over a run) and latencies (ms) are medians over the rounds.${values.baseline ? ` Baseline: ${process.env.DK_BASELINE_NAME ?? 'an earlier build'}, its own server on its own database, in the same run; "vs baseline" is the ratio of the medians.` : ''}`,
    '',
    table(['case', 'server', 'connections', 's', 'requests/s', 'p50 ms', 'p99 ms', 'max ms', 'each round: req/s / p99', 'vs baseline', '2xx', 'non-2xx', 'errors'], rows),
    '',
    `Targets: REST CalculateDistance ≥ 3,000 requests/s with p99 ≤ 20 ms, Geocode ≥ 1,500/s (issue #11); SOAP 1.1 CalculateDistance ≥ 1,500/s with p99 ≤ 30 ms (issue #12). Load average at end: ${loadavg()[0].toFixed(2)}.`,
  ].join('\n');
  if (!only) writeSection('server', 'HTTP server under load (`bench/server.ts`)', body);
}

main().catch((e) => { console.error(e); process.exit(1); });
