/**
 * Dispatch on roads: random stops on the Porto dataset (weights, service times, a share with
 * closed time windows, vehicles at a few depots with shifts and capacities), through the whole
 * operation — validation, snapping, the travel matrix on the worker pool, the solver, result
 * records. Each case runs in a fresh process so its peak RSS is its own. The result records are
 * re-checked here: every stop served at most once, unserved ones reported, capacities, windows,
 * shifts, and leg times consistent with arrival times.
 *
 *   node --import tsx bench/dispatch-roads.ts [--quick]
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Engine } from '../src/engine.js';
import { sharedData, table, writeSection } from './lib/report.js';
import { checkPortoResult as checkResult, makePortoSpec as makeSpec, type PortoCase as Case } from './lib/porto-spec.js';

const DATASET = fileURLToPath(new URL('out/porto.dkds', import.meta.url));

const CASES: Case[] = [
  { name: '1,000 stops / 20 vehicles', stops: 1000, vehicles: 20, timeLimitS: 20, waitS: 300 },
  { name: '5,000 stops / 50 vehicles', stops: 5000, vehicles: 50, timeLimitS: 140, waitS: 120 },
];

// ---- child: one case --------------------------------------------------------------------------
if (process.argv[2] === '--child') {
  const c = CASES[Number(process.argv[3])];
  const timeLimitS = Number(process.argv[4]);
  const engine = await Engine.open(DATASET, { threads: 2 });
  const spec = makeSpec(engine, c, 2026);
  const t0 = performance.now();
  let matrixMs = 0;
  const r = await engine.dispatch(spec, {
    seed: 1,
    timeLimitMs: timeLimitS * 1000,
    onProgress: (e) => { if (e.phase === 'matrix' && e.done >= e.total && matrixMs === 0) matrixMs = performance.now() - t0; },
  });
  const wallS = (performance.now() - t0) / 1000;
  const problems = checkResult(spec, r);
  let km = 0, hours = 0, used = 0, served = 0;
  for (const it of r.Items ?? []) {
    used++;
    for (const l of it.Locations ?? []) { km += l.Distance; hours += l.Time / 3600; if (!String(l.Name).startsWith('Depot')) served++; }
  }
  await engine.close();
  process.stdout.write(JSON.stringify({ status: r.Status, wallS, matrixS: matrixMs / 1000, km, hours, used, served, errors: (r.Errors ?? []).length, problems: problems.slice(0, 5), problemCount: problems.length, maxRssMb: process.resourceUsage().maxRSS / 1024 }) + '\n');
  process.exit(0);
}

// ---- parent --------------------------------------------------------------------------------
const quick = process.argv.includes('--quick');
if (!existsSync(DATASET)) {
  const pbf = sharedData('osm/porto_portugal.osm.pbf');
  if (!pbf) {
    writeSection('dispatch-roads', 'Dispatch on roads (`bench/dispatch-roads.ts`)', '_The Porto extract (../shared/data/osm/porto_portugal.osm.pbf) is not available here; nothing was measured._');
    process.exit(0);
  }
  process.stderr.write('building bench/out/porto.dkds …\n');
  execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../src/cli/main.ts', import.meta.url)), 'build', pbf, '-o', DATASET, '--quiet'], { stdio: 'inherit' });
}
const rows: (string | number)[][] = [];
for (let i = 0; i < CASES.length; i++) {
  const c = CASES[i];
  const limit = quick ? Math.max(2, Math.round(c.timeLimitS / 10)) : c.timeLimitS;
  process.stderr.write(`${c.name}, solver limit ${limit} s …\n`);
  const out = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', String(i), String(limit)], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const r = JSON.parse(out.trim().split('\n').pop()!);
  process.stderr.write(JSON.stringify(r) + '\n');
  rows.push([c.name, `${limit} s`, `**${r.wallS.toFixed(1)} s**`, `${r.matrixS.toFixed(1)} s`, r.status, `${r.served} / ${c.stops}`, `${r.used} / ${c.vehicles}`, r.km.toFixed(0), r.hours.toFixed(1), r.problemCount === 0 ? 'ok' : `${r.problemCount}: ${r.problems.join('; ')}`, `**${(r.maxRssMb / 1024).toFixed(2)} GB**`]);
}
writeSection('dispatch-roads', 'Dispatch on roads (`bench/dispatch-roads.ts`)', [
  'Porto dataset (`porto_portugal.osm.pbf`); stops drawn around the centre (snapping within 300 m), weights 1–10, 30 % with a',
  'closed 2-hour window (CanArriveEarly false), service time per stop; vehicles at 4 depots, shift 07:30–19:00, capacity 1.25× the',
  'mean demand. `engine.dispatch` end to end (validation, snapping, the full travel matrix on 2 worker threads, the solver with',
  'the given time limit on 2 workers, result records), one fresh process per case. "check" re-validates the result records',
  'independently (each stop once, unserved ones reported, capacity, windows, shift end, leg times).',
  '',
  table(['case', 'solver limit', 'total wall', 'matrix', 'status', 'served', 'vehicles used', 'km', 'drive h', 'check', 'peak RSS'], rows),
  '',
  'Targets (issue #3): 1,000 stops / 20 vehicles ≤ 30 s and 5,000 stops / 50 vehicles ≤ 3 min, matrix included, peak RSS ≤ 4 GB.',
].join('\n'));
