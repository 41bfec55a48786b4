/**
 * Many-to-many benchmark: 1000×1000 matrices (1,000 sources and 1,000 targets from the largest
 * SCC, seeded) on the RoutingKit graphs — the single-thread kernels (restricted-PHAST sweep, the
 * default, and the bucket kernel) and `computeMatrix` on a 2-thread WorkerPool executor (CH read by the
 * workers from a shared dataset buffer), with process CPU time to show both cores working.
 * Correctness as in RoutingKit's protocol: 5 rows against full Dijkstra trees and 1,000 random
 * cells against p2p queries. A benny suite compares the variants on Porto.
 *
 *   node --import tsx bench/matrix.ts            # all graphs, writes the `matrix` section of bench/README.md
 *   node --import tsx bench/matrix.ts porto      # one graph, prints JSON
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import b from 'benny';
import { buildContractionHierarchy, ChQuery, ContractionHierarchy } from '../src/ch/index.js';
import { Dijkstra } from '../src/graph/dijkstra.js';
import { BinFile, BinWriter } from '../src/core/binfile.js';
import { Rng } from '../src/core/rng.js';
import { WorkerPool } from '../src/workers/pool.js';
import { BucketManyToMany, computeMatrix, endpointsFromNodes, SweepManyToMany, UNREACHABLE, type EndpointEntries } from '../src/matrix/index.js';
import { GRAPHS, largestScc, loadGraph, RK, type BenchGraph } from './ch.js';
import { median, table, writeSection } from './lib/report.js';

interface MatrixBenchResult {
  key: string;
  selectedNodes: number;
  selectedArcs: number;
  sweepMs: number[];
  sweepCpuMs: number[];
  sweepAuxMs: number[];
  bucketMs: number[];
  poolMs: number[];
  poolCpuRatio: number[];
  /** CPU ms of the two busiest threads over the timed pool runs (per-thread, from /proc). */
  poolThreadCpuMs: number[];
  mismatches: number;
  checked: number;
  loadStart: number;
  loadEnd: number;
}

/** CPU ms per thread of this process (Linux /proc; clock ticks of 10 ms), keyed by thread id. */
function threadCpu(): Map<string, number> {
  const out = new Map<string, number>();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(tid, (Number(f[11]) + Number(f[12])) * 10);
    }
  } catch {
    // not Linux: no per-thread figures
  }
  return out;
}

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function runOne(spec: BenchGraph): Promise<MatrixBenchResult | null> {
  const loadStart = loadavg()[0];
  const g = loadGraph(spec);
  if (!g) return null;
  // A second metric to carry (aux): the weight itself, as time and length would be on a road graph.
  g.aux = g.weight;
  const scc = largestScc(g);
  const rng = new Rng(42);
  const pick = (): number => scc[rng.int(scc.length)];
  const src = endpointsFromNodes(Array.from({ length: 1000 }, pick));
  const tgt = endpointsFromNodes(Array.from({ length: 1000 }, pick));
  const ch0 = buildContractionHierarchy(g);
  const w = new BinWriter(0x4d415458, 1);
  ch0.toSections(w, 'ch.');
  const dataset = w.toBuffer(true);
  const ch = ContractionHierarchy.fromSections(BinFile.from(dataset), 'ch.');
  const cells = 1000 * 1000;
  const cost = new Uint32Array(cells);
  const aux = new Uint32Array(cells);
  const sweep = new SweepManyToMany(ch);
  const bucket = new BucketManyToMany(ch);
  const time = (fn: () => void, runs: number): { wall: number[]; cpu: number[] } => {
    fn(); // warm-up
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let r = 0; r < runs; r++) {
      const c0 = cpuMs();
      const t0 = performance.now();
      fn();
      wall.push(performance.now() - t0);
      cpu.push(cpuMs() - c0);
    }
    return { wall, cpu };
  };
  const s = time(() => sweep.run(src, tgt, { cost, aux: null }), 7);
  const sa = time(() => sweep.run(src, tgt, { cost, aux }), 5);
  const bu = time(() => bucket.run(src, tgt, { cost, aux: null }), 5);
  // Correctness of the default kernel (cost only, as RoutingKit's check).
  sweep.run(src, tgt, { cost, aux: null });
  let mismatches = 0;
  let checked = 0;
  const dj = new Dijkstra(g);
  for (let i = 0; i < 5; i++) {
    const row = rng.int(1000);
    const all = dj.oneToAll(src.node[row]);
    for (let j = 0; j < 1000; j++) {
      const d = all[tgt.node[j]];
      if (cost[row * 1000 + j] !== (d === Infinity ? UNREACHABLE : d)) mismatches++;
      checked++;
    }
  }
  const q = new ChQuery(ch);
  for (let k = 0; k < 1000; k++) {
    const i = rng.int(1000);
    const j = rng.int(1000);
    q.reset().addSource(src.node[i]).addTarget(tgt.node[j]).run();
    const d = q.distance();
    if (cost[i * 1000 + j] !== (d === Infinity ? UNREACHABLE : d)) mismatches++;
    checked++;
  }
  // The pool: 2 threads, CH opened by each worker from the shared buffer.
  const pool = new WorkerPool({ threads: 2, shared: { dataset } });
  const poolMs: number[] = [];
  const poolCpuRatio: number[] = [];
  const poolThreadCpuMs: number[] = [];
  try {
    await computeMatrix(ch, src, tgt, { executor: pool, prefix: 'ch.', withAux: false });
    const before = threadCpu();
    for (let r = 0; r < 7; r++) {
      const c0 = cpuMs();
      const t0 = performance.now();
      const res = await computeMatrix(ch, src, tgt, { executor: pool, prefix: 'ch.', withAux: false });
      const wall = performance.now() - t0;
      poolMs.push(wall);
      poolCpuRatio.push((cpuMs() - c0) / wall);
      if (res.tiles < 2) throw new Error('expected the pool to be used');
      for (let i = 0; i < cells; i += 997) if (res.cost[i] !== cost[i]) mismatches++;
    }
    const after = threadCpu();
    poolThreadCpuMs.push(...[...after].map(([tid, ms]) => ms - (before.get(tid) ?? 0)).sort((x, y) => y - x).slice(0, 3));
  } finally {
    await pool.close();
  }
  return {
    key: spec.key, selectedNodes: sweep.selectedNodes, selectedArcs: sweep.selectedArcs,
    sweepMs: s.wall, sweepCpuMs: s.cpu, sweepAuxMs: sa.wall, bucketMs: bu.wall,
    poolMs, poolCpuRatio, poolThreadCpuMs, mismatches, checked, loadStart, loadEnd: loadavg()[0],
  };
}

/** benny suite on one graph: the kernels and the pool side by side (ops/s = matrices per second). */
async function bennySuite(spec: BenchGraph): Promise<string> {
  const g = loadGraph(spec);
  if (!g) return '';
  const scc = largestScc(g);
  const rng = new Rng(7);
  const pick = (): number => scc[rng.int(scc.length)];
  const src: EndpointEntries = endpointsFromNodes(Array.from({ length: 1000 }, pick));
  const tgt: EndpointEntries = endpointsFromNodes(Array.from({ length: 1000 }, pick));
  const ch0 = buildContractionHierarchy(g);
  const w = new BinWriter(0x4d415458, 1);
  ch0.toSections(w, 'ch.');
  const dataset = w.toBuffer(true);
  const ch = ContractionHierarchy.fromSections(BinFile.from(dataset), 'ch.');
  const cost = new Uint32Array(1000 * 1000);
  const sweep = new SweepManyToMany(ch);
  const bucket = new BucketManyToMany(ch);
  const pool = new WorkerPool({ threads: 2, shared: { dataset } });
  await computeMatrix(ch, src, tgt, { executor: pool, prefix: 'ch.' });
  try {
    const summary = await b.suite(
      `1000×1000 on ${spec.key}`,
      b.add('sweep kernel, 1 thread', () => sweep.run(src, tgt, { cost, aux: null })),
      b.add('bucket kernel, 1 thread', () => bucket.run(src, tgt, { cost, aux: null })),
      b.add('computeMatrix, 2-thread pool', async () => {
        await computeMatrix(ch, src, tgt, { executor: pool, prefix: 'ch.' });
      }),
      b.cycle(),
    );
    return table(['variant (benny)', 'matrices/s', '± %', 'ms per matrix'], summary.results.map((r) => [r.name, r.ops.toFixed(1), r.margin.toFixed(1), (1000 / r.ops).toFixed(1)]));
  } finally {
    await pool.close();
  }
}

const f1 = (x: number): string => x.toFixed(1);
const int = (x: number): string => Math.round(x).toLocaleString('en-US');

async function main(): Promise<void> {
  const only = process.argv[2];
  if (only === 'benny') {
    console.log(await bennySuite(GRAPHS.find((g) => g.key === 'porto')!));
    return;
  }
  if (only) {
    const spec = GRAPHS.find((g) => g.key === only);
    if (!spec) throw new Error(`unknown graph ${only}`);
    console.log(JSON.stringify(await runOne(spec)));
    return;
  }
  const results: MatrixBenchResult[] = [];
  for (const spec of GRAPHS) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, spec.key], { encoding: 'utf8', maxBuffer: 1 << 26 });
    if (child.status !== 0) throw new Error(`bench child for ${spec.key} failed:\n${child.stderr}`);
    const r = JSON.parse(child.stdout.trim().split('\n').pop()!) as MatrixBenchResult | null;
    if (!r) {
      console.log(`${spec.key}: shared data absent, skipped`);
      continue;
    }
    console.log(`${spec.key}: sweep ${f1(median(r.sweepMs))} ms, bucket ${f1(median(r.bucketMs))} ms, pool ${f1(median(r.poolMs))} ms, mismatches ${r.mismatches}`);
    results.push(r);
  }
  const bennyChild = spawnSync(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, 'benny'], { encoding: 'utf8', maxBuffer: 1 << 26 });
  const bennyTable = bennyChild.status === 0 ? bennyChild.stdout.split('\n').filter((l) => l.startsWith('|')).join('\n') : '';
  const label = (k: string): string => GRAPHS.find((g) => g.key === k)!.label;
  const rows = results.map((r) => [
    label(r.key), `${int(r.selectedNodes)} / ${int(r.selectedArcs)}`,
    `**${f1(median(r.sweepMs))}** (CPU min ${f1(Math.min(...r.sweepCpuMs))})`, f1(median(r.sweepAuxMs)), f1(median(r.bucketMs)),
    `**${f1(median(r.poolMs))}**`, `${median(r.poolCpuRatio).toFixed(2)}`, r.poolThreadCpuMs.map((x) => int(x)).join(' / '),
    RK[r.key].matrix, `${r.mismatches}/${r.checked}`, `${f1(r.loadStart)}–${f1(r.loadEnd)}`,
  ]);
  const body = [
    '1,000 sources × 1,000 targets drawn from the largest SCC (project `Rng`, seed 42), one entry each. Wall-clock',
    'medians (7 runs after a warm-up; aux and bucket 5). *Sweep* = `SweepManyToMany` (pinned targets, union of the',
    "targets' stalled backward search trees, batches of 32 sources swept over int32 tables); *bucket* = `BucketManyToMany`",
    '(Knopp et al.); *pool* = `computeMatrix` on a 2-thread `WorkerPool`, CH read from the shared dataset buffer, row tiles,',
    'targets pinned once (a `matrix-pin` task on a worker) and shipped with the tiles; *CPU/wall* = process CPU / wall (2 = both cores',
    'busy the whole time; the',
    'box is shared, so less when other jobs run); *busiest threads* = CPU of the three busiest threads over the 7 timed',
    'runs, from /proc (two workers of about equal CPU = both cores used). The aux column carries a second',
    'metric (here the weight again) through every cell. RoutingKit: `pin_targets` + `run_to_pinned_targets`, one',
    'thread, thread-CPU min (wall median). Check: 5 rows vs full Dijkstra trees + 1,000 cells vs p2p CH queries',
    '(plus every 997th pool cell vs the kernel).',
    '',
    table(['graph', 'selection nodes / arcs', 'sweep ms, 1 thread', 'sweep + aux ms', 'bucket ms', 'pool ms, 2 threads', 'pool CPU/wall', 'busiest threads CPU ms (7 runs)', 'RoutingKit ms', 'mismatches', 'load avg'], rows),
    '',
    bennyTable ? `benny suite on Porto (\`node --import tsx bench/matrix.ts benny\`):\n\n${bennyTable}` : '',
  ].join('\n');
  writeSection('matrix', 'Distance matrices (`bench/matrix.ts`)', body);
  console.log('bench/README.md: section "matrix" written');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
