/**
 * Contraction-hierarchy benchmark (issue #26): in ONE run, on the same graphs and the same query
 * pairs, our CH as it is now, the previous build of src/ch (exported from git, default
 * {@link PREV_REF}), Dijkstra, and RoutingKit (a same-run driver, bench/routingkit/). Each
 * (implementation, graph) runs as its own process, one build per process; the processes
 * alternate round by round (the order rotates), so all columns see the same load. RoutingKit is
 * skipped, and the table says so, when its driver is not built (bench/routingkit/build.sh).
 *
 *   node --import tsx bench/ch.ts              # Porto and Moscow, writes the `ch` section of bench/README.md
 *   node --import tsx bench/ch.ts all          # every graph of GRAPHS (also the DIMACS ones)
 *   node --import tsx bench/ch.ts porto        # one graph, prints the tables (no README change)
 *
 * Environment: ROUNDS (processes per implementation and graph, default 3), CH_PREV_REF (git ref
 * of the previous build), RK_BIN (default /tmp/routingkit/rk_ch), CH_BENCH_DIR (scratch, default
 * /tmp/dispatchkit-ch-bench: pair files and the exported previous src/).
 *
 * Protocol of `shared/research/routingkit-measured.md`: pairs from the largest SCC (project `Rng`,
 * seed 42), 1,000 warm-up queries, 5 timed passes over 10,000 `reset().addSource(s).addTarget(t).run()`,
 * 3 passes with the node path (`nodePath()` / RoutingKit `get_node_path()`), Dijkstra (ours: 4-ary
 * heap, RoutingKit's: its `Dijkstra` class; early stop) on 100 pairs. Times are wall-clock
 * medians over all passes of all rounds, plus the minimum CPU time (process CPU for Node, which
 * runs the timed code on one thread; thread CPU for RoutingKit). Peak RSS is the process's
 * (graph + Dijkstra + CH + queries), the maximum over rounds; "base" is a Node process's RSS
 * before it loads anything but Node + tsx. The three CHs must give the same distance sum over
 * the 10,000 pairs, and each CH equals its Dijkstra on the 100 pairs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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

/** The graphs of a plain run (issue #26 names them). */
const DEFAULT_KEYS = ['porto', 'moscow'];

/**
 * RoutingKit figures measured earlier on this machine (routingkit-measured.md): thread-CPU minimum
 * over 8 runs, wall median in parentheses. Kept for bench/matrix.ts; this benchmark measures
 * RoutingKit again in the same run.
 */
export const RK: Record<string, { build: string; query: string; path: number; matrix: string; dijkstra: string; speedup: string; rss: number; arcs: number }> = {
  rome99: { build: '0.09 (0.14)', query: '6.7 (9.4)', path: 7.41, matrix: '14 (22)', dijkstra: '0.12 (0.20)', speedup: '18×', rss: 9.8, arcs: 19_822 },
  bremen_time: { build: '0.71 (1.12)', query: '7.2 (11.1)', path: 10.28, matrix: '23 (40)', dijkstra: '1.95 (3.11)', speedup: '296×', rss: 21.3, arcs: 132_348 },
  bremen_dist: { build: '0.34 (0.54)', query: '7.6 (11.2)', path: 10.45, matrix: '26 (38)', dijkstra: '1.32 (2.15)', speedup: '203×', rss: 20.8, arcs: 141_040 },
  south_seattle_car: { build: '1.74 (2.72)', query: '18.7 (28.5)', path: 21.95, matrix: '54 (82)', dijkstra: '1.02 (1.67)', speedup: '58×', rss: 18.3, arcs: 136_176 },
  porto: { build: '1.52 (3.10)', query: '14.1 (27.7)', path: 17.9, matrix: '52 (113)', dijkstra: '4.50 (8.54)', speedup: '314×', rss: 35.4, arcs: 291_790 },
  moscow: { build: '6.59 (10.37)', query: '24.3 (36.8)', path: 41.56, matrix: '130 (207)', dijkstra: '32.08 (49.39)', speedup: '1,250×', rss: 175.4, arcs: 1_676_269 },
};

/**
 * The previous build: src/ch before the shortcut entries were laid out depth first (issue #26 item 2).
 * After the new code is committed, set CH_PREV_REF to compare against another commit.
 */
export const PREV_REF = '405282150a1085f2ed81b17ef9fc6fc6d5131ba2';

/** Issue #26 item 2: ratios to RoutingKit measured in the same run. */
const TARGET = { query: 1.2, path: 1.4, build: 1.0, rssTimes: 2 };

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

/** One child process's measurements (ours or RoutingKit's driver; same JSON shape). */
interface RunResult {
  impl: string;
  nodes: number;
  arcs: number;
  chArcs: number;
  buildWallS: number[];
  buildCpuS: number[];
  queryWallUs: number[];
  queryCpuUs: number[];
  /** Per-query timer p99 (ours only). */
  queryP99Us?: number;
  pathWallUs: number[];
  pathCpuUs: number[];
  dijkstraWallMs: number[];
  dijkstraCpuMs: number[];
  distSum: number;
  unreachable: number;
  pathNodes: number;
  settledPerQuery?: number;
  mismatches: number;
  checked: number;
  baseRssMB: number;
  rssMB: number;
  loadStart?: number;
  loadEnd?: number;
}

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = join(HERE, '..');
const SCRATCH = process.env.CH_BENCH_DIR ?? '/tmp/dispatchkit-ch-bench';
const RK_BIN = process.env.RK_BIN ?? '/tmp/routingkit/rk_ch';

const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Pair file: uint32 P, P (s,t) pairs, D, D (s,t) pairs — read by our children and by rk_ch. */
function readPairs(path: string): { pairs: Uint32Array; dPairs: Uint32Array } {
  const b = readFileSync(path);
  const u = new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  const p = u[0];
  const pairs = u.subarray(1, 1 + 2 * p);
  const d = u[1 + 2 * p];
  return { pairs, dPairs: u.subarray(2 + 2 * p, 2 + 2 * p + 2 * d) };
}

function writePairs(spec: BenchGraph, g: ArcGraph, path: string): void {
  const scc = largestScc(g);
  const rng = new Rng(42);
  const pick = (): number => scc[rng.int(scc.length)];
  const P = 10_000;
  const D = 100;
  const u = new Uint32Array(2 + 2 * P + 2 * D);
  let i = 0;
  u[i++] = P;
  for (let k = 0; k < 2 * P; k++) u[i++] = pick();
  u[i++] = D;
  for (let k = 0; k < 2 * D; k++) u[i++] = pick();
  writeFileSync(path, u);
  console.log(`${spec.key}: ${g.numNodes} nodes, ${g.tail.length} arcs, largest SCC ${scc.length}; pairs in ${path}`);
}

/** The CH module an implementation runs (its public API: buildContractionHierarchyWithStats, ChQuery). */
interface ChModule {
  buildContractionHierarchyWithStats(g: ArcGraph): { ch: unknown; stats: { chArcs: number } };
  ChQuery: new (ch: never) => {
    reset(): { addSource(s: number): { addTarget(t: number): { run(): unknown } } };
    distance(): number;
    nodePath(): number[];
    settled: number;
  };
}

/** Child: one implementation on one graph, one build; prints a RunResult line. */
async function child(impl: string, key: string, pairsPath: string, modulePath: string): Promise<void> {
  const baseRssMB = process.memoryUsage().rss / 2 ** 20;
  const loadStart = loadavg()[0];
  const spec = GRAPHS.find((g) => g.key === key)!;
  const mod = (await import(pathToFileURL(modulePath).href)) as ChModule;
  const g = loadGraph(spec)!;
  const { pairs, dPairs } = readPairs(pairsPath);
  const P = pairs.length / 2;
  const c0 = cpuMs();
  const t0 = performance.now();
  const built = mod.buildContractionHierarchyWithStats(g);
  const buildWallS = [(performance.now() - t0) / 1000];
  const buildCpuS = [(cpuMs() - c0) / 1000];
  const q = new mod.ChQuery(built.ch as never);
  for (let i = 0; i < 1000; i++) q.reset().addSource(pairs[2 * i]).addTarget(pairs[2 * i + 1]).run();
  const queryWallUs: number[] = [];
  const queryCpuUs: number[] = [];
  let distSum = 0;
  let unreachable = 0;
  let settled = 0;
  for (let pass = 0; pass < 5; pass++) {
    let sum = 0;
    let unr = 0;
    settled = 0;
    const c = cpuMs();
    const t = performance.now();
    for (let i = 0; i < P; i++) {
      q.reset().addSource(pairs[2 * i]).addTarget(pairs[2 * i + 1]).run();
      const d = q.distance();
      if (d === Infinity) unr++;
      else sum += d;
      settled += q.settled;
    }
    queryWallUs.push(((performance.now() - t) * 1000) / P);
    queryCpuUs.push(((cpuMs() - c) * 1000) / P);
    distSum = sum;
    unreachable = unr;
  }
  const single = new Float64Array(P);
  for (let i = 0; i < P; i++) {
    const t = performance.now();
    q.reset().addSource(pairs[2 * i]).addTarget(pairs[2 * i + 1]).run();
    single[i] = (performance.now() - t) * 1000;
  }
  const pathWallUs: number[] = [];
  const pathCpuUs: number[] = [];
  let pathNodes = 0;
  for (let pass = 0; pass < 3; pass++) {
    let nodes = 0;
    const c = cpuMs();
    const t = performance.now();
    for (let i = 0; i < P; i++) {
      q.reset().addSource(pairs[2 * i]).addTarget(pairs[2 * i + 1]).run();
      nodes += q.nodePath().length;
    }
    pathWallUs.push(((performance.now() - t) * 1000) / P);
    pathCpuUs.push(((cpuMs() - c) * 1000) / P);
    pathNodes = nodes;
  }
  const dj = new Dijkstra(g);
  const D = dPairs.length / 2;
  const want = new Float64Array(D);
  const c = cpuMs();
  const t = performance.now();
  for (let i = 0; i < D; i++) want[i] = dj.oneToOne(dPairs[2 * i], dPairs[2 * i + 1]);
  const dijkstraWallMs = [(performance.now() - t) / D];
  const dijkstraCpuMs = [(cpuMs() - c) / D];
  let mismatches = 0;
  for (let i = 0; i < D; i++) {
    q.reset().addSource(dPairs[2 * i]).addTarget(dPairs[2 * i + 1]).run();
    if (q.distance() !== want[i]) mismatches++;
  }
  const r: RunResult = {
    impl, nodes: g.numNodes, arcs: g.tail.length, chArcs: built.stats.chArcs, buildWallS, buildCpuS,
    queryWallUs, queryCpuUs, queryP99Us: percentile(Array.from(single), 99), pathWallUs, pathCpuUs,
    dijkstraWallMs, dijkstraCpuMs, distSum, unreachable, pathNodes, settledPerQuery: settled / P,
    mismatches, checked: D, baseRssMB, rssMB: process.resourceUsage().maxRSS / 1024,
    loadStart, loadEnd: loadavg()[0],
  };
  console.log(JSON.stringify(r));
}

/** Exports src/ at `ref` into the scratch directory (once per commit); returns its src/ch/index.ts. */
function exportPrevious(ref: string): { commit: string; module: string } {
  const commit = execFileSync('git', ['rev-parse', `${ref}^{commit}`], { cwd: REPO, encoding: 'utf8' }).trim();
  const dir = join(SCRATCH, `prev-${commit.slice(0, 12)}`);
  const module = join(dir, 'src', 'ch', 'index.ts');
  if (!existsSync(module)) {
    mkdirSync(dir, { recursive: true });
    const tar = spawnSync('sh', ['-c', `git archive ${commit} src | tar -x -C '${dir}'`], { cwd: REPO, encoding: 'utf8' });
    if (tar.status !== 0) throw new Error(`exporting ${commit}: ${tar.stderr}`);
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  }
  return { commit, module };
}

function rkArgs(spec: BenchGraph, pairsPath: string): string[] {
  const paths = spec.files.map((f) => sharedData(f)!);
  return spec.files.length === 2 ? ['ngraph', paths[0], paths[1], pairsPath, '1'] : ['gr', paths[0], pairsPath, '1'];
}

type Impl = 'now' | 'prev' | 'rk';

function runChild(impl: Impl, spec: BenchGraph, pairsPath: string, prevModule: string): RunResult {
  let out: ReturnType<typeof spawnSync>;
  const loadStart = loadavg()[0];
  if (impl === 'rk') {
    out = spawnSync(RK_BIN, rkArgs(spec, pairsPath), { encoding: 'utf8', maxBuffer: 1 << 26 });
  } else {
    const module = impl === 'now' ? join(REPO, 'src', 'ch', 'index.ts') : prevModule;
    out = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', impl, spec.key, pairsPath, module], { encoding: 'utf8', maxBuffer: 1 << 26, cwd: REPO });
  }
  if (out.status !== 0) throw new Error(`${impl} on ${spec.key} failed:\n${String(out.stderr)}`);
  const r = JSON.parse(String(out.stdout).trim().split('\n').pop()!) as RunResult;
  r.impl = impl;
  r.loadStart ??= loadStart;
  r.loadEnd ??= loadavg()[0];
  return r;
}

const f1 = (x: number): string => x.toFixed(1);
const f2 = (x: number): string => x.toFixed(2);
const int = (x: number): string => Math.round(x).toLocaleString('en-US');
const all = (rs: RunResult[], k: keyof RunResult): number[] => rs.flatMap((r) => r[k] as number[]);
const minOf = (xs: number[]): number => Math.min(...xs);
const maxOf = (xs: number[]): number => Math.max(...xs);

interface Summary {
  build: number; buildCpu: number; query: number; queryCpu: number; path: number; pathCpu: number;
  dijkstra: number; dijkstraCpu: number; rss: number; base: number; chArcs: number; settled: number;
  p99: number; distSums: Set<number>; mismatches: number; checked: number; runs: number;
}

function summarize(rs: RunResult[]): Summary {
  return {
    build: median(all(rs, 'buildWallS')), buildCpu: minOf(all(rs, 'buildCpuS')),
    query: median(all(rs, 'queryWallUs')), queryCpu: minOf(all(rs, 'queryCpuUs')),
    path: median(all(rs, 'pathWallUs')), pathCpu: minOf(all(rs, 'pathCpuUs')),
    dijkstra: median(all(rs, 'dijkstraWallMs')), dijkstraCpu: minOf(all(rs, 'dijkstraCpuMs')),
    rss: maxOf(rs.map((r) => r.rssMB)), base: median(rs.map((r) => r.baseRssMB)),
    chArcs: rs[0].chArcs, settled: median(rs.map((r) => r.settledPerQuery ?? NaN)),
    p99: median(rs.map((r) => r.queryP99Us ?? NaN)),
    distSums: new Set(rs.map((r) => r.distSum)), mismatches: rs.reduce((s, r) => s + r.mismatches, 0),
    checked: rs.reduce((s, r) => s + r.checked, 0), runs: rs.length,
  };
}

interface GraphOutcome {
  spec: BenchGraph;
  s: Partial<Record<Impl, Summary>>;
  load: [number, number];
  rounds: number;
}

function main(): void {
  const arg = process.argv[2];
  if (arg === '--child') {
    const [impl, key, pairs, module] = process.argv.slice(3);
    void child(impl, key, pairs, module);
    return;
  }
  const keys = arg === 'all' ? GRAPHS.map((g) => g.key) : arg ? [arg] : DEFAULT_KEYS;
  for (const k of keys) if (!GRAPHS.some((g) => g.key === k)) throw new Error(`unknown graph ${k}; one of ${GRAPHS.map((g) => g.key).join(', ')}`);
  const rounds = Number(process.env.ROUNDS ?? 3);
  mkdirSync(SCRATCH, { recursive: true });
  const prev = exportPrevious(process.env.CH_PREV_REF ?? PREV_REF);
  const haveRk = existsSync(RK_BIN);
  const rkCommit = haveRk && existsSync(join(dirname(RK_BIN), 'commit')) ? readFileSync(join(dirname(RK_BIN), 'commit'), 'utf8').trim() : 'unknown';
  console.log(`previous build: src/ch at ${prev.commit}; RoutingKit: ${haveRk ? `${RK_BIN} (${rkCommit})` : `not built (${RK_BIN} missing): its column is skipped; run bench/routingkit/build.sh`}`);
  const impls: Impl[] = haveRk ? ['now', 'prev', 'rk'] : ['now', 'prev'];
  const outcomes: GraphOutcome[] = [];
  const missing: string[] = [];
  for (const key of keys) {
    const spec = GRAPHS.find((g) => g.key === key)!;
    const g = loadGraph(spec);
    if (!g) {
      missing.push(key);
      console.log(`${key}: shared data absent, skipped`);
      continue;
    }
    const pairsPath = join(SCRATCH, `${key}.pairs`);
    writePairs(spec, g, pairsPath);
    const runs: Record<Impl, RunResult[]> = { now: [], prev: [], rk: [] };
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < impls.length; i++) {
        const impl = impls[(i + r) % impls.length];
        const res = runChild(impl, spec, pairsPath, prev.module);
        runs[impl].push(res);
        console.log(`${key} round ${r + 1} ${impl}: build ${f2(res.buildWallS[0])} s, query ${f1(median(res.queryWallUs))} µs, +path ${f1(median(res.pathWallUs))} µs, RSS ${f1(res.rssMB)} MB, load ${f1(res.loadStart!)}–${f1(res.loadEnd!)}`);
      }
    }
    const every = [...runs.now, ...runs.prev, ...runs.rk];
    const s: Partial<Record<Impl, Summary>> = {};
    for (const impl of impls) s[impl] = summarize(runs[impl]);
    outcomes.push({ spec, s, load: [minOf(every.map((r) => r.loadStart!)), maxOf(every.map((r) => r.loadEnd!))], rounds });
  }
  const body = report(outcomes, prev.commit, haveRk, rkCommit, missing);
  console.log(body);
  if (!arg || arg === 'all') {
    writeSection('ch', 'Contraction hierarchy (`bench/ch.ts`)', body);
    console.log('bench/README.md: section "ch" written');
  }
}

function report(outcomes: GraphOutcome[], prevCommit: string, haveRk: boolean, rkCommit: string, missing: string[]): string {
  const ratio = (a: number, b: number): string => `${f2(a / b)}×`;
  /** Met only when both the wall-median and the CPU-minimum ratios are within the target. */
  const verdict = (wall: number, cpu: number, limit: number): string =>
    wall <= limit && cpu <= limit ? 'met' : wall <= limit ? '**not met** (CPU)' : cpu <= limit ? '**not met** (wall)' : '**not met**';
  const targetRows: string[][] = [];
  const detailRows: string[][] = [];
  for (const o of outcomes) {
    const { now, prev, rk } = o.s;
    const label = o.spec.label;
    if (now && rk) {
      const m = (now.rss - now.base) / rk.rss;
      const line = (measure: string, target: number, a: number, b: number, c: number, aCpu: number, cCpu: number, fmt: (x: number) => string): string[] =>
        [label, measure, `≤ ${target}×`, fmt(a), Number.isNaN(b) ? '–' : fmt(b), fmt(c), ratio(a, c), ratio(aCpu, cCpu), verdict(a / c, aCpu / cCpu, target)];
      targetRows.push(
        line('query µs', TARGET.query, now.query, prev?.query ?? NaN, rk.query, now.queryCpu, rk.queryCpu, f1),
        line('query + node path µs', TARGET.path, now.path, prev?.path ?? NaN, rk.path, now.pathCpu, rk.pathCpu, f1),
        line('build s', TARGET.build, now.build, prev?.build ?? NaN, rk.build, now.buildCpu, rk.buildCpu, f2),
        [label, 'peak RSS − Node base, MB', `≤ ${TARGET.rssTimes}× RK`, `${f1(now.rss)} − ${f1(now.base)}`, prev ? `${f1(prev.rss)} − ${f1(prev.base)}` : '–', f1(rk.rss), ratio(now.rss - now.base, rk.rss), '', m <= TARGET.rssTimes ? 'met' : '**not met**'],
      );
    }
    const same = (x?: Summary): string => {
      if (!x) return '–';
      const sums = new Set([...(now?.distSums ?? []), ...(x.distSums)]);
      return sums.size === 1 ? 'same' : `**differs** (${[...x.distSums].join(', ')})`;
    };
    const row = (name: string, x: Summary | undefined, settled: boolean): string[] => x ? [
      label, name,
      `${f2(x.build)} (CPU min ${f2(x.buildCpu)})`,
      `${f1(x.query)} (CPU min ${f1(x.queryCpu)})`,
      Number.isNaN(x.p99) ? '–' : f1(x.p99),
      `${f1(x.path)} (CPU min ${f1(x.pathCpu)})`,
      settled ? f1(x.settled) : '–',
      int(x.chArcs),
      `${f1(x.rss)}${x.base > 20 ? ` (base ${f1(x.base)})` : ''}`,
      `${f2(x.dijkstra)} (CPU min ${f2(x.dijkstraCpu)})`,
      `${x.mismatches}/${x.checked}`, same(x), `${x.runs}`,
    ] : [label, name, ...Array(11).fill('–')];
    detailRows.push(row('CH now', now, true), row(`CH previous (${prevCommit.slice(0, 7)})`, prev, true));
    if (haveRk) detailRows.push(row('RoutingKit', rk, false));
    detailRows.push([label, 'load average (1 min)', `${f1(o.load[0])}–${f1(o.load[1])}`, ...Array(10).fill(''), `${o.rounds} rounds`]);
  }
  return [
    `One run: for each graph, ${outcomes[0]?.rounds ?? 0} rounds (\`ROUNDS\`) of separate processes — our CH now, the previous build of \`src/ch\``,
    `(commit ${prevCommit.slice(0, 12)}, exported with \`git archive\`), RoutingKit (${haveRk ? `\`bench/routingkit/rk_ch\` on RoutingKit ${rkCommit.slice(0, 12)}, built by \`bench/routingkit/build.sh\` with its own flags` : '**not built: RoutingKit columns skipped**'}) —`,
    'the order rotating each round. One build per process. Identical pairs for all (10,000 from the largest SCC, project `Rng`',
    'seed 42, written to a file every process reads), 1,000 warm-up queries, 5 timed passes; + node path: 3 passes with',
    '`nodePath()` / `get_node_path()`. Times: wall-clock median over all passes of all rounds, and the minimum CPU time',
    '(Node: process CPU, single-threaded code; RoutingKit: thread CPU). Dijkstra: ours (`src/graph/dijkstra.ts`) in our',
    "processes, RoutingKit's `Dijkstra` in its driver, 100 SCC pairs, early stop; it is also the check (CH ≠ Dijkstra).",
    'Peak RSS: the process (graph + Dijkstra + CH + queries), max over rounds; base = RSS of a Node + tsx process before it',
    "loads the graph. Distances: the sum over the 10,000 pairs must be the same for every implementation. The box has 2",
    'cores shared with other jobs: the load average is given, and only same-run ratios are meaningful.',
    '',
    '### Targets (issue #26 item 2): ratio to RoutingKit in this run',
    '',
    haveRk
      ? table(['graph', 'measure', 'target', 'CH now', 'CH previous', 'RoutingKit', 'now / RK (wall median)', 'now / RK (CPU min)', 'verdict (both ratios)'], targetRows)
      : '_RoutingKit not built (`bench/routingkit/build.sh`): no ratios._',
    '',
    '### Detail (µs per query, s per build, MB)',
    '',
    table(['graph', 'implementation', 'build s', 'query µs', 'p99 µs', 'query + node path µs', 'settled / query', 'CH arcs', 'peak RSS MB', 'Dijkstra ms / query', 'CH ≠ Dijkstra', 'distance sum vs now', 'processes'], detailRows),
    missing.length ? `\nSkipped (shared data absent): ${missing.join(', ')}.` : '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
