/**
 * Datasets from OSM extracts, end to end: import + both CH builds (time, peak RSS, measured in a
 * child process each), dataset size and load time, CH query mean/p99 against a plain typed-array
 * Dijkstra in the same run, CalculateDistance end to end (records in and out, two snaps, CH query)
 * and a 1000×1000 travel matrix through the engine (worker pool).
 *
 *   node --import tsx bench/dataset.ts [--quick] [monaco andorra porto]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import b from 'benny';
import { buildDatasetFile } from '../src/dataset/build.js';
import { Dataset } from '../src/dataset/dataset.js';
import { Engine } from '../src/engine.js';
import { ChQuery } from '../src/ch/index.js';
import { Dijkstra } from '../src/graph/dijkstra.js';
import { Rng } from '../src/core/rng.js';
import { WorkerPool } from '../src/workers/pool.js';
import { median, percentile, sharedData, table, writeSection } from './lib/report.js';

const ROOT = new URL('../', import.meta.url);
const OUT = fileURLToPath(new URL('bench/out/', ROOT));

const EXTRACTS: Record<string, () => string | null> = {
  monaco: () => fileURLToPath(new URL('fixtures/monaco-latest.osm.pbf', ROOT)),
  andorra: () => fileURLToPath(new URL('fixtures/andorra.osm.pbf', ROOT)),
  porto: () => sharedData('osm/porto_portugal.osm.pbf'),
};

// ---- child mode: one build in a fresh process, so peak RSS is the build's own ----------------
if (process.argv[2] === '--child-build') {
  const [, , , extract, out] = process.argv;
  const pool = new WorkerPool({ threads: 2 });
  const r = await buildDatasetFile(extract, out, { executor: pool });
  await pool.close();
  const maxRssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify({ totalMs: r.totalMs, timings: r.meta.timingsMs, bytes: r.bytes, counts: r.meta.counts, maxRssMb }) + '\n');
  process.exit(0);
}

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const names = args.filter((a) => !a.startsWith('--'));
const which = names.length ? names : Object.keys(EXTRACTS);
mkdirSync(OUT, { recursive: true });

interface Row { name: string; cells: (string | number)[] }
const buildRows: Row[] = [];
const queryRows: Row[] = [];
const notes: string[] = [];

function timeIt(fn: () => void, reps: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    fn();
    out.push(performance.now() - t);
  }
  return out;
}

for (const name of which) {
  const extract = EXTRACTS[name]?.();
  if (!extract || !existsSync(extract)) {
    notes.push(`${name}: extract not available (../shared/data absent) — skipped.`);
    continue;
  }
  const out = `${OUT}${name}.dkds`;
  // 1. Import + CH builds, each run in a child process (median of 3, or 1 with --quick).
  const runs: { totalMs: number; timings: Record<string, number>; bytes: number; counts: Record<string, number>; maxRssMb: number }[] = [];
  for (let i = 0; i < (quick ? 1 : 3); i++) {
    const json = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child-build', extract, out], { encoding: 'utf8', maxBuffer: 1 << 24 });
    runs.push(JSON.parse(json.trim().split('\n').pop()!));
  }
  const mid = runs.sort((a, b) => a.totalMs - b.totalMs)[Math.floor(runs.length / 2)];
  // every part read (a dataset opened from its file reads the parts beyond the routing core on first use)
  const loads = timeIt(() => Dataset.open(out).openAll(), 7);
  buildRows.push({
    name,
    cells: [
      `${(statSync(extract).size / 2 ** 20).toFixed(1)} MiB`,
      mid.counts.nodes.toLocaleString('en-US'),
      mid.counts.arcs.toLocaleString('en-US'),
      `${(mid.timings.graph / 1000).toFixed(2)} s`,
      `${(mid.timings.ch / 1000).toFixed(2)} s`,
      `**${(mid.totalMs / 1000).toFixed(2)} s**`,
      `${Math.max(...runs.map((r) => r.maxRssMb)).toFixed(0)} MB`,
      `${(mid.bytes / 2 ** 20).toFixed(1)} MiB`,
      `**${median(loads).toFixed(1)} ms**`,
    ],
  });

  // 2. Queries on the loaded dataset: CH vs Dijkstra, same pairs, same run.
  const ds = Dataset.open(out);
  const g = ds.graph;
  const rng = new Rng(42);
  const pairs: [number, number][] = [];
  for (let i = 0; i < 10_000; i++) pairs.push([rng.int(g.numNodes), rng.int(g.numNodes)]);
  const q = new ChQuery(ds.chTime);
  for (let i = 0; i < 2000; i++) q.reset().addSource(pairs[i][0]).addTarget(pairs[i][1]).run();
  const qTimes: number[] = [];
  let checksum = 0;
  for (const [s, t] of pairs) {
    const t0 = performance.now();
    q.reset().addSource(s).addTarget(t).run();
    qTimes.push((performance.now() - t0) * 1000);
    checksum += q.found() ? q.distance() : 0;
  }
  const dij = new Dijkstra({ numNodes: g.numNodes, tail: g.tail, head: g.head, weight: g.timeMs });
  const dTimes = pairs.slice(0, 100).map(([s, t]) => {
    const t0 = performance.now();
    dij.reset().addSource(s).run(t);
    return performance.now() - t0;
  });
  let mismatches = 0;
  for (const [s, t] of pairs.slice(0, 100)) {
    if (dij.reset().addSource(s).run(t).distance(t) !== q.reset().addSource(s).addTarget(t).run().distance()) mismatches++;
  }
  const chMean = qTimes.reduce((a, x) => a + x, 0) / qTimes.length;
  const dijMean = dTimes.reduce((a, x) => a + x, 0) / dTimes.length;

  // 3. CalculateDistance end to end (benny: ops/s of the whole record call).
  const engine = await Engine.open(out, { threads: 2 });
  const bb = ds.meta.bbox;
  const specs: unknown[] = [];
  while (specs.length < 1000) {
    const p = () => ({ Latitude: bb.minLat + rng.next() * (bb.maxLat - bb.minLat), Longitude: bb.minLon + rng.next() * (bb.maxLon - bb.minLon) });
    const a = p(), c = p();
    if (!ds.snapper.trySnap(a.Latitude, a.Longitude) || !ds.snapper.trySnap(c.Latitude, c.Longitude)) continue;
    specs.push({ StartLocation: { LatLong: a }, FinishLocation: { LatLong: c }, DistanceUnit: 'Kilometer', RouteOptimize: 'MinimizeTime' });
  }
  let k = 0;
  let failed = 0;
  const summary = await b.suite(
    `calculateDistance ${name}`,
    b.add('calculateDistance', () => {
      const r = engine.calculateDistance(specs[k++ % specs.length]);
      if (r.Status !== 'Success') failed++;
    }),
    b.cycle(() => {}),
  );
  const ops = summary.results[0].ops;
  const cdUs = 1e6 / ops;

  // 4. 1000×1000 through the engine (snaps + pool), median of 3.
  const places = specs.slice(0, 500).flatMap((s: any) => [s.StartLocation, s.FinishLocation]).map((l: any, i: number) => engine.placeLocation(l, `p${i}`));
  await engine.travelMatrix(places); // warm-up: starts the pool and JITs the kernel
  await engine.travelMatrix(places);
  const mTimes: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    await engine.travelMatrix(places);
    mTimes.push(performance.now() - t0);
  }
  await engine.close();
  queryRows.push({
    name,
    cells: [
      `${chMean.toFixed(1)} µs`,
      `${percentile(qTimes, 99).toFixed(1)} µs`,
      `${dijMean.toFixed(2)} ms`,
      `**${(dijMean * 1000 / chMean).toFixed(0)}×**`,
      `${mismatches}/100`,
      `**${cdUs.toFixed(1)} µs**${failed ? ` (${failed} failed)` : ''}`,
      `**${median(mTimes).toFixed(0)} ms**`,
    ],
  });
  process.stderr.write(`${name}: done (checksum ${checksum})\n`);
}

const body = [
  'Import + both contraction hierarchies (built side by side on 2 worker threads), each build in a fresh',
  'process; median of 3 builds, peak RSS the maximum. Load = `Dataset.open(file).openAll()`, every part read and verified (median of 7).',
  '',
  table(['extract', 'PBF', 'junctions', 'arcs', 'graph import', 'CH ×2', 'import total', 'peak RSS', 'dataset', 'load'], buildRows.map((r) => [r.name, ...r.cells])),
  '',
  'Queries on the loaded dataset (fastest-path CH): 10,000 random node pairs after 2,000 warm-up queries; the',
  'plain typed-array Dijkstra (early stop) runs 100 of the same pairs in the same process; mismatches = CH ≠ Dijkstra.',
  '`calculateDistance` = the whole record operation (validation, two snaps, phantom-node CH query, result record),',
  'benny ops/s inverted, random points in the bbox that snap. Matrix = `engine.travelMatrix` of 1000 snapped',
  'points (both cores), median of 3.',
  '',
  table(['extract', 'CH query mean', 'CH query p99', 'Dijkstra', 'speed-up', 'CH = Dijkstra', 'calculateDistance', '1000×1000 matrix'], queryRows.map((r) => [r.name, ...r.cells])),
  '',
  'Targets (issue #2): Porto import ≤ 15 s end to end, load ≤ 100 ms, calculateDistance ≤ 100 µs, CH speed-up ≥ 200×.',
  ...notes.map((n) => `\n_${n}_`),
].join('\n');
writeSection('dataset', 'Datasets from OSM extracts (`bench/dataset.ts`)', body);
process.stderr.write(body + '\n');
