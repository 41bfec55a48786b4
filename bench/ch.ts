/**
 * Contraction-hierarchy benchmark, following the RoutingKit measurement protocol of
 * shared/research/routingkit-measured.md on the same graphs: build time and peak RSS, CH size,
 * p2p query mean / p99 (10,000 seeded pairs from the largest SCC after 1,000 warm-up queries),
 * query + node path, Dijkstra (100 SCC pairs, early stop) and the speed-up measured in the same
 * process, and CH-vs-Dijkstra mismatches. Each graph runs in its own child process (peak RSS is
 * that process's, like RoutingKit's per-run process).
 *
 *   node --import tsx bench/ch.ts            # all graphs, writes the `ch` section of bench/README.md
 *   node --import tsx bench/ch.ts porto      # one graph, prints JSON (no README change)
 *
 * Timings are wall-clock medians of several passes plus process CPU time (the benchmark is
 * single-threaded, so CPU time is the thread's and comparable with RoutingKit's thread-CPU
 * minima). The box is shared: the 1-minute load average is recorded per graph.
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import { buildContractionHierarchyWithStats, ChQuery, type ContractionHierarchy } from '../src/ch/index.js';
import { Dijkstra } from '../src/graph/dijkstra.js';
import { buildCsr, type ArcGraph } from '../src/graph/formats/arcs.js';
import { readDimacsGr } from '../src/graph/formats/dimacs.js';
import { readNgraph } from '../src/graph/formats/ngraph.js';
import { Rng } from '../src/core/rng.js';
import { median, percentile, sharedData, table, writeSection } from './lib/report.js';

export interface BenchGraph {
  key: string;
  label: string;
  /** Paths relative to shared/data. */
  files: string[];
}

export const GRAPHS: BenchGraph[] = [
  { key: 'rome99', label: 'DIMACS rome99.gr (m)', files: ['dimacs/rome99.gr'] },
  { key: 'bremen_time', label: 'DIMACS bremen_time.gr', files: ['dimacs/bremen_time.gr'] },
  { key: 'bremen_dist', label: 'DIMACS bremen_dist.gr (m)', files: ['dimacs/bremen_dist.gr'] },
  { key: 'south_seattle_car', label: 'DIMACS south_seattle_car.gr', files: ['dimacs/south_seattle_car.gr'] },
  { key: 'porto', label: 'porto_portugal.gr (RK car graph, ms)', files: ['dimacs/porto_portugal.gr'] },
  { key: 'moscow', label: 'moscow-roads ngraph (Euclid., both dirs)', files: ['osm/moscow-roads.co.bin', 'osm/moscow-roads.gr.bin'] },
];

/**
 * RoutingKit figures measured on this machine (routingkit-measured.md): thread-CPU minimum over
 * 8 runs, wall median in parentheses where given.
 */
export const RK: Record<string, { build: string; query: string; path: number; matrix: string; dijkstra: string; speedup: string; rss: number; arcs: number }> = {
  rome99: { build: '0.09 (0.14)', query: '6.7 (9.4)', path: 7.41, matrix: '14 (22)', dijkstra: '0.12 (0.20)', speedup: '18×', rss: 9.8, arcs: 19_822 },
  bremen_time: { build: '0.71 (1.12)', query: '7.2 (11.1)', path: 10.28, matrix: '23 (40)', dijkstra: '1.95 (3.11)', speedup: '296×', rss: 21.3, arcs: 132_348 },
  bremen_dist: { build: '0.34 (0.54)', query: '7.6 (11.2)', path: 10.45, matrix: '26 (38)', dijkstra: '1.32 (2.15)', speedup: '203×', rss: 20.8, arcs: 141_040 },
  south_seattle_car: { build: '1.74 (2.72)', query: '18.7 (28.5)', path: 21.95, matrix: '54 (82)', dijkstra: '1.02 (1.67)', speedup: '58×', rss: 18.3, arcs: 136_176 },
  porto: { build: '1.52 (3.10)', query: '14.1 (27.7)', path: 17.9, matrix: '52 (113)', dijkstra: '4.50 (8.54)', speedup: '314×', rss: 35.4, arcs: 291_790 },
  moscow: { build: '6.59 (10.37)', query: '24.3 (36.8)', path: 41.56, matrix: '130 (207)', dijkstra: '32.08 (49.39)', speedup: '1,250×', rss: 175.4, arcs: 1_676_269 },
};

/** Loads a benchmark graph, or null when the shared data is absent. */
export function loadGraph(g: BenchGraph): ArcGraph | null {
  const paths = g.files.map((f) => sharedData(f));
  if (paths.some((p) => p === null)) return null;
  return g.files.length === 2 ? readNgraph(paths[0]!, paths[1]!) : readDimacsGr(paths[0]!);
}

/** Nodes of the largest strongly connected component (Kosaraju, iterative). */
export function largestScc(g: ArcGraph): Uint32Array {
  const n = g.numNodes;
  const all = new Uint32Array(g.tail.length);
  for (let i = 0; i < all.length; i++) all[i] = i;
  const f = buildCsr(g, { arcs: all });
  const r = buildCsr(g, { arcs: all, reverse: true });
  const order = new Int32Array(n);
  let oc = 0;
  const visited = new Uint8Array(n);
  const stack = new Int32Array(n);
  const iter = new Uint32Array(n);
  for (let s = 0; s < n; s++) {
    if (visited[s]) continue;
    let sp = 0;
    stack[sp++] = s;
    visited[s] = 1;
    iter[s] = f.firstOut[s];
    while (sp > 0) {
      const x = stack[sp - 1];
      if (iter[x] < f.firstOut[x + 1]) {
        const y = f.adj[iter[x]++];
        if (!visited[y]) {
          visited[y] = 1;
          iter[y] = f.firstOut[y];
          stack[sp++] = y;
        }
      } else {
        order[oc++] = x;
        sp--;
      }
    }
  }
  const comp = new Int32Array(n).fill(-1);
  let best = -1;
  let bestSize = 0;
  let c = 0;
  for (let i = n - 1; i >= 0; i--) {
    const s = order[i];
    if (comp[s] >= 0) continue;
    let sp = 0;
    let size = 0;
    stack[sp++] = s;
    comp[s] = c;
    while (sp > 0) {
      const x = stack[--sp];
      size++;
      for (let a = r.firstOut[x]; a < r.firstOut[x + 1]; a++) {
        const y = r.adj[a];
        if (comp[y] < 0) {
          comp[y] = c;
          stack[sp++] = y;
        }
      }
    }
    if (size > bestSize) {
      bestSize = size;
      best = c;
    }
    c++;
  }
  const out = new Uint32Array(bestSize);
  let k = 0;
  for (let v = 0; v < n; v++) if (comp[v] === best) out[k++] = v;
  return out;
}

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

export interface ChBenchResult {
  key: string;
  nodes: number;
  arcs: number;
  scc: number;
  buildWallS: number[];
  buildCpuS: number[];
  chArcs: number;
  shortcuts: number;
  rssMB: number;
  /** RSS of the child before loading anything (Node + tsx). */
  baseRssMB: number;
  queryMeanUs: number[];
  queryCpuUs: number[];
  queryP99Us: number;
  pathMeanUs: number[];
  dijkstraMs: number[];
  dijkstraCpuMs: number[];
  settledPerQuery: number;
  mismatches: number;
  checked: number;
  loadStart: number;
  loadEnd: number;
}

function runOne(spec: BenchGraph, builds: number): ChBenchResult | null {
  const loadStart = loadavg()[0];
  const baseRssMB = process.memoryUsage().rss / 2 ** 20;
  const g = loadGraph(spec);
  if (!g) return null;
  const scc = largestScc(g);
  const rng = new Rng(42);
  const pick = (): number => scc[rng.int(scc.length)];
  const pairs = Array.from({ length: 10_000 }, () => [pick(), pick()] as const);
  const dPairs = Array.from({ length: 100 }, () => [pick(), pick()] as const);
  const buildWallS: number[] = [];
  const buildCpuS: number[] = [];
  let ch: ContractionHierarchy | null = null;
  let chArcs = 0;
  let shortcuts = 0;
  for (let b = 0; b < builds; b++) {
    ch = null;
    const c0 = cpuMs();
    const t0 = performance.now();
    const r = buildContractionHierarchyWithStats(g);
    buildWallS.push((performance.now() - t0) / 1000);
    buildCpuS.push((cpuMs() - c0) / 1000);
    ch = r.ch;
    chArcs = r.stats.chArcs;
    shortcuts = r.stats.shortcuts;
  }
  const q = new ChQuery(ch!);
  // Warm-up.
  for (let i = 0; i < 1000; i++) q.reset().addSource(pairs[i][0]).addTarget(pairs[i][1]).run();
  const queryMeanUs: number[] = [];
  const queryCpuUs: number[] = [];
  let settled = 0;
  for (let pass = 0; pass < 5; pass++) {
    settled = 0;
    const c0 = cpuMs();
    const t0 = performance.now();
    for (const [s, t] of pairs) {
      q.reset().addSource(s).addTarget(t).run();
      settled += q.settled;
    }
    queryMeanUs.push(((performance.now() - t0) * 1000) / pairs.length);
    queryCpuUs.push(((cpuMs() - c0) * 1000) / pairs.length);
  }
  const single: number[] = [];
  for (const [s, t] of pairs) {
    const t0 = performance.now();
    q.reset().addSource(s).addTarget(t).run();
    single.push((performance.now() - t0) * 1000);
  }
  const pathMeanUs: number[] = [];
  for (let pass = 0; pass < 3; pass++) {
    const t0 = performance.now();
    for (const [s, t] of pairs) {
      q.reset().addSource(s).addTarget(t).run();
      q.nodePath();
    }
    pathMeanUs.push(((performance.now() - t0) * 1000) / pairs.length);
  }
  const dj = new Dijkstra(g);
  const dijkstraMs: number[] = [];
  const dijkstraCpuMs: number[] = [];
  let mismatches = 0;
  for (let pass = 0; pass < 3; pass++) {
    const c0 = cpuMs();
    const t0 = performance.now();
    for (const [s, t] of dPairs) dj.oneToOne(s, t);
    dijkstraMs.push((performance.now() - t0) / dPairs.length);
    dijkstraCpuMs.push((cpuMs() - c0) / dPairs.length);
  }
  for (const [s, t] of dPairs) {
    const want = dj.oneToOne(s, t);
    q.reset().addSource(s).addTarget(t).run();
    if (q.distance() !== want) mismatches++;
  }
  const rssMB = process.resourceUsage().maxRSS / 1024;
  return {
    key: spec.key, nodes: g.numNodes, arcs: g.tail.length, scc: scc.length,
    buildWallS, buildCpuS, chArcs, shortcuts, rssMB, baseRssMB,
    queryMeanUs, queryCpuUs, queryP99Us: percentile(single, 99), pathMeanUs,
    dijkstraMs, dijkstraCpuMs, settledPerQuery: settled / pairs.length,
    mismatches, checked: dPairs.length, loadStart, loadEnd: loadavg()[0],
  };
}

const f1 = (x: number): string => x.toFixed(1);
const f2 = (x: number): string => x.toFixed(2);
const int = (x: number): string => Math.round(x).toLocaleString('en-US');
const minOf = (xs: number[]): number => Math.min(...xs);

function main(): void {
  const only = process.argv[2];
  if (only) {
    const spec = GRAPHS.find((g) => g.key === only);
    if (!spec) throw new Error(`unknown graph ${only}; one of ${GRAPHS.map((g) => g.key).join(', ')}`);
    const builds = Number(process.env.BUILDS ?? (spec.key === 'moscow' ? 2 : 3));
    console.log(JSON.stringify(runOne(spec, builds)));
    return;
  }
  const results: ChBenchResult[] = [];
  const missing: string[] = [];
  for (const spec of GRAPHS) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, spec.key], { encoding: 'utf8', maxBuffer: 1 << 26 });
    if (child.status !== 0) throw new Error(`bench child for ${spec.key} failed:\n${child.stderr}`);
    const r = JSON.parse(child.stdout.trim().split('\n').pop()!) as ChBenchResult | null;
    if (!r) {
      missing.push(spec.key);
      console.log(`${spec.key}: shared data absent, skipped`);
      continue;
    }
    console.log(`${spec.key}: build ${f2(median(r.buildWallS))} s, query ${f1(median(r.queryMeanUs))} µs, Dijkstra ${f2(median(r.dijkstraMs))} ms, mismatches ${r.mismatches}`);
    results.push(r);
  }
  const label = (k: string): string => GRAPHS.find((g) => g.key === k)!.label;
  const buildRows = results.map((r) => [
    label(r.key), int(r.nodes), int(r.arcs), int(r.scc),
    `**${f2(median(r.buildWallS))}** (min ${f2(minOf(r.buildWallS))}; CPU min ${f2(minOf(r.buildCpuS))})`, RK[r.key].build,
    `${f1(r.rssMB)} (${f1(r.baseRssMB)})`, `${RK[r.key].rss}`,
    `${int(r.chArcs)}`, int(RK[r.key].arcs),
  ]);
  const queryRows = results.map((r) => {
    const q = median(r.queryMeanUs);
    const d = median(r.dijkstraMs);
    return [
      label(r.key),
      `**${f1(q)}** (CPU min ${f1(minOf(r.queryCpuUs))})`, f1(r.queryP99Us), RK[r.key].query,
      `${f1(median(r.pathMeanUs))}`, `${RK[r.key].path}`,
      f1(r.settledPerQuery),
      `${f2(d)} (CPU min ${f2(minOf(r.dijkstraCpuMs))})`, RK[r.key].dijkstra,
      `**${int((d * 1000) / q)}×** (CPU ${int((minOf(r.dijkstraCpuMs) * 1000) / minOf(r.queryCpuUs))}×)`, RK[r.key].speedup,
      `${r.mismatches}/${r.checked}`, `${f1(r.loadStart)}–${f1(r.loadEnd)}`,
    ];
  });
  const body = [
    'Protocol of `shared/research/routingkit-measured.md` on the same graphs: pairs from the largest SCC drawn with the',
    'project `Rng` (seed 42; RoutingKit used mt19937), 1,000 warm-up queries, then 10,000 timed',
    '`reset().addSource(s).addTarget(t).run()`; Dijkstra = `src/graph/dijkstra.ts` (4-ary heap, early stop) on 100 SCC pairs;',
    'speed-up = Dijkstra / CH query, both wall medians of this run (and both CPU minima). Our times: wall-clock median of passes (builds: 3, Moscow 2;',
    'queries: 5 passes over the 10,000 pairs), plus the minimum process-CPU figure (single-threaded, so comparable with',
    "RoutingKit's thread-CPU minima). RoutingKit: thread-CPU min over 8 runs (wall median). Each graph runs in its own",
    'process; peak RSS = that process (graph + Dijkstra + CH + queries). p99 from per-query timers. Mismatches: CH vs',
    'Dijkstra distance on the 100 Dijkstra pairs.',
    '',
    '### Build',
    '',
    table(['graph', 'nodes', 'arcs', 'largest SCC', 'CH build s, median', 'RoutingKit s', 'peak RSS MB (Node + tsx at start)', 'RK RSS MB', 'CH arcs (up+down)', 'RK CH arcs'], buildRows),
    '',
    '### Queries',
    '',
    table(['graph', 'CH query µs, mean (median of passes)', 'p99 µs', 'RK query µs', 'query + node path µs', 'RK + path µs', 'settled / query', 'Dijkstra ms/query', 'RK Dijkstra ms', 'speed-up', 'RK speed-up', 'CH ≠ Dijkstra', 'load avg'], queryRows),
    missing.length ? `\nSkipped (shared data absent): ${missing.join(', ')}.` : '',
  ].join('\n');
  writeSection('ch', 'Contraction hierarchy (`bench/ch.ts`)', body);
  console.log('bench/README.md: section "ch" written');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
