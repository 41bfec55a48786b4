/**
 * Limits that always hold: 200 heavy dispatches (MinimumOptimization 10, the highest allowed; each
 * would search for minutes) against a server (`dispatchkit serve`, its own process) started with a
 * 5 s dispatch limit, two clients at a time. Every answer must come back within the limit + 5 %
 * (5.25 s) with a plan. (The GC-proof CallLimit is also tested under --expose-gc:
 * test/service/limits.test.ts.)
 *
 *   node --import tsx bench/limits.ts [--calls 200] [--limit 5] [--clients 2]
 */
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Engine } from '../src/engine.js';
import { makePortoSpec } from './lib/porto-spec.js';
import { benchServer } from './lib/server.js';
import { median, percentile, table, writeSection } from './lib/report.js';

const DATASET = fileURLToPath(new URL('out/porto.dkds', import.meta.url));

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { calls: { type: 'string', default: '200' }, limit: { type: 'string', default: '5' }, clients: { type: 'string', default: '2' } } });
  const calls = Number(values.calls), limitS = Number(values.limit), clients = Number(values.clients);
  if (!existsSync(DATASET)) {
    writeSection('limits', 'Limits that always hold (`bench/limits.ts`)', '_bench/out/porto.dkds is missing: build it with `dispatchkit build ../shared/data/osm/porto_portugal.osm.pbf -o bench/out/porto.dkds`; nothing was measured._');
    return;
  }
  const engine = await Engine.open(DATASET, { threads: 1 });
  const specs = Array.from({ length: 8 }, (_, i) => ({ ...makePortoSpec(engine, { name: 'heavy', stops: 200, vehicles: 8, timeLimitS: limitS, waitS: 300 }, 100 + i), MinimumOptimization: 10 }));
  await engine.close();
  const server = await benchServer(DATASET, ['--threads', '2', '--dispatch-time-limit', String(limitS)]);
  const key = server.key;
  const times: number[] = [];
  const statuses = new Map<string, number>();
  let next = 0;
  try {
    // warm-up
    await fetch(`${server.url}/rest/dispatch`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify({ ...specs[0], MinimumOptimization: 1 }) });
    const worker = async (): Promise<void> => {
      for (;;) {
        const i = next++;
        if (i >= calls) return;
        const t = performance.now();
        const r = await fetch(`${server.url}/rest/dispatch?enums=name`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(specs[i % specs.length]) });
        const j = await r.json() as { Status?: string; Items?: unknown[] };
        const ms = performance.now() - t;
        times.push(ms);
        const k = `HTTP ${r.status} ${j.Status}${j.Items && j.Items.length > 0 ? ' with a plan' : ''}`;
        statuses.set(k, (statuses.get(k) ?? 0) + 1);
        if ((i + 1) % 20 === 0) console.log(`${i + 1}/${calls}: last ${ms.toFixed(0)} ms, worst so far ${Math.max(...times).toFixed(0)} ms`);
      }
    };
    await Promise.all(Array.from({ length: clients }, worker));
  } finally {
    await server.stop();
  }
  const bound = limitS * 1000 * 1.05;
  const over = times.filter((t) => t > bound).length;
  writeSection('limits', 'Limits that always hold (`bench/limits.ts`)', [
    `\`node --import tsx bench/limits.ts --calls ${calls} --limit ${limitS} --clients ${clients}\`: \`dispatchkit serve --dispatch-time-limit ${limitS}\` (own process, 2 worker threads) on Porto; ${calls} Dispatches of 200 stops / 8 vehicles (8 different specifications) at MinimumOptimization 10 — each would search for minutes — from ${clients} clients at a time. Each must answer within the limit + 5 % (${(bound / 1000).toFixed(2)} s), with its best plan.`,
    '',
    table(['calls', 'median', 'p95', 'p99', 'max', `over ${(bound / 1000).toFixed(2)} s`, 'answers'], [[
      times.length, `${(median(times) / 1000).toFixed(2)} s`, `${(percentile(times, 95) / 1000).toFixed(2)} s`, `${(percentile(times, 99) / 1000).toFixed(2)} s`,
      `**${(Math.max(...times) / 1000).toFixed(2)} s**`, over, [...statuses].map(([k, v]) => `${v} × ${k}`).join(', '),
    ]]),
    '',
    `The limit is one CallLimit per call (core/cancel.ts), and the dispatch gets it as its deadline: its search ends early enough to write the records inside it (docs/service.md, "Time limits that always hold"). Load average at end: ${loadavg()[0].toFixed(2)}.`,
  ].join('\n'));
  console.log(`${over} of ${times.length} over ${bound} ms; worst ${Math.max(...times).toFixed(0)} ms`);
}

main().catch((e) => { console.error(e); process.exit(1); });
