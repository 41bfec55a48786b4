/**
 * No stall by default (issue #26 item 1, docs/no-stall.md): the longest hold on the caller's event
 * loop per operation, for an engine opened without options (offload by default) and, in the same
 * run, with `offload: false`. Porto (`bench/out/porto.dkds`), 2 worker threads; each operation
 * once to warm up, then 3 measured calls; the median and the worst of the longest gaps between
 * 1 ms ticks of the calling thread, and the longest garbage-collection pause meanwhile
 * (bench/lib/loop.ts).
 *
 *   node --import tsx bench/no-stall.ts        # writes the `no-stall` section of bench/README.md
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Rng } from '../src/core/rng.js';
import { Engine } from '../src/engine.js';
import type { DispatchResult } from '../src/records/index.js';
import { loopHolds } from './lib/loop.js';
import { makePortoSpec } from './lib/porto-spec.js';
import { median, table, writeSection } from './lib/report.js';

const DATASET = fileURLToPath(new URL('out/porto.dkds', import.meta.url));
if (!existsSync(DATASET)) {
  console.log(`bench/no-stall: ${DATASET} is missing (build it: see bench/directions.ts); skipped.`);
  process.exit(0);
}

type Case = [string, (e: Engine) => Promise<unknown> | unknown];

async function cases(engine: Engine): Promise<Case[]> {
  const rng = new Rng(26);
  const bb = engine.dataset.meta.bbox;
  const pt = () => ({ Latitude: bb.minLat + (bb.maxLat - bb.minLat) * (0.3 + 0.4 * rng.next()), Longitude: bb.minLon + (bb.maxLon - bb.minLon) * (0.3 + 0.4 * rng.next()) });
  const d1000 = makePortoSpec(engine, { name: 'd', stops: 1000, vehicles: 20, timeLimitS: 0, waitS: 300 }, 7);
  const d300 = makePortoSpec(engine, { name: 'e', stops: 300, vehicles: 10, timeLimitS: 0, waitS: 300 }, 8);
  const solved = await engine.dispatch({ ...d300, MinimumOptimization: 1 }, { seed: 1 }) as DispatchResult;
  const plan = (solved.Items ?? []).map((it) => ({ Vehicle: it.Vehicle!.Name!, Locations: (it.Locations ?? []).filter((l) => l.LocationType !== 'Start' && l.LocationType !== 'Finish').map((l) => l.Name!) }));
  let minute = 0;
  const streets = ['Rua de Santa Catarina', 'Avenida da Boavista', 'Rua do Almada', 'Rua de Cedofeita', 'Rua Formosa'];
  return [
    ['Dispatch 1,000 stops (time limit 5 s)', (e) => e.dispatch(d1000, { seed: 1, timeLimitMs: 5000 })],
    ['Dispatch 20 stops', (e) => e.dispatch(makePortoSpec(engine, { name: 's', stops: 20, vehicles: 2, timeLimitS: 0, waitS: 300 }, 9), { seed: 1 })],
    ['CalculateRoute 1,000 locations', (e) => e.calculateRoute({ Locations: Array.from({ length: 1000 }, pt).map((LatLong) => ({ LatLong })) })],
    ['CalculateRoute 100 locations with an 800×600 map', (e) => e.calculateRoute({ Locations: Array.from({ length: 100 }, pt).map((LatLong) => ({ LatLong })), RouteOptions: { MapSize: { Width: 800, Height: 600 } } })],
    ['CalculateRoutes 250 × 4', (e) => e.calculateRoutes({ Specifications: Array.from({ length: 250 }, () => ({ Locations: Array.from({ length: 4 }, pt).map((LatLong) => ({ LatLong })) })) })],
    ['Geocode 5,000 addresses', (e) => e.geocode({ Addresses: Array.from({ length: 5000 }, (_, i) => ({ Street: `${1 + (i % 200)} ${streets[i % streets.length]}`, City: 'Porto' })) })],
    ['CalculateDistance × 1,000 (one per macrotask)', async (e) => { for (let i = 0; i < 1000; i++) { e.calculateDistance({ StartLocation: { LatLong: pt() }, FinishLocation: { LatLong: pt() } }); await new Promise((r) => setImmediate(r)); } }],
    // a specification the engine has not seen (another CurrentTime each call): its model is built
    ['EvaluatePlan 300 stops, first check', (e) => e.evaluatePlan({ Specification: { ...d300, CurrentTime: `2026-12-01T07:${String(minute++ % 60).padStart(2, '0')}:00` }, Routes: plan })],
    ['EvaluatePlan 300 stops, a move', (e) => {
      if (plan.length > 1 && plan[0].Locations.length > 0) plan[1].Locations.push(plan[0].Locations.shift()!);
      return e.evaluatePlan({ Specification: d300, Routes: plan });
    }],
  ];
}

const rows: (string | number)[][] = [];
const results = new Map<string, Record<string, { gaps: number[]; own: number[]; gc: number }>>();
for (const offload of [undefined, false] as const) {
  const engine = await Engine.open(DATASET, { threads: 2, ...(offload === false ? { offload } : {}) });
  for (const [name, work] of await cases(engine)) {
    await work(engine);
    const gaps: number[] = [];
    const own: number[] = [];
    let gc = 0;
    for (let k = 0; k < 3; k++) {
      const h = await loopHolds(() => work(engine));
      gaps.push(h.gap);
      own.push(h.own);
      gc = Math.max(gc, h.gc);
    }
    const r = results.get(name) ?? {};
    r[offload === false ? 'off' : 'on'] = { gaps, own, gc };
    results.set(name, r);
    console.log(`offload: ${offload ?? 'default'} · ${name}: ${gaps.map((g) => g.toFixed(1)).join(' / ')} ms, GC ≤ ${gc.toFixed(1)} ms`);
  }
  await engine.close();
}
for (const [name, r] of results) {
  const d = r.on?.gaps ?? [], o = r.off?.gaps ?? [];
  const own = r.on?.own ?? [];
  rows.push([name, `${median(d).toFixed(1)} / ${Math.max(...d).toFixed(1)}`, (r.on?.gc ?? 0).toFixed(1), `**${median(own).toFixed(1)}**`, median(own) <= 20 ? 'yes' : 'no', `${median(o).toFixed(1)} / ${Math.max(...o).toFixed(1)}`]);
}
writeSection('no-stall', 'The longest hold on the caller\'s loop per operation (`bench/no-stall.ts`, issue #26 item 1)', [
  '`node --import tsx bench/no-stall.ts`. Porto, `Engine.open(dataset, { threads: 2 })` (the default: small work in the calling thread,',
  'heavy stages on the worker pool, answers rebuilt in slices — docs/no-stall.md) against `offload: false`, in the same run. Each operation once',
  'to warm up (the pool starts, code paths compile), then 3 calls; the longest gap between 1 ms ticks of the calling thread during each call',
  '(bench/lib/loop.ts), median / worst of the 3; the longest garbage-collection pause of the calling thread meanwhile (a gap includes it); and',
  'the engine\'s own hold: each gap less the collector\'s pauses and the thread\'s waits for a CPU inside it (median of the 3) — what the rule is about (docs/no-stall.md says why).',
  'EvaluatePlan\'s first check is on a specification the engine has not seen (its model is built). Target (issue #26): ≤ 20 ms by default.',
  '',
  table(['operation', 'default: longest gap, median / worst (ms)', 'longest GC pause (ms)', 'own hold, median (ms)', '≤ 20 ms', 'offload: false: longest gap, median / worst (ms)'], rows),
].join('\n'));
