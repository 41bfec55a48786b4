/**
 * Dispatch solver benchmark: Solomon C1/R1/RC1, Gehring & Homberger and CVRPLIB X instances from
 * ../shared/data/vrp, gaps to bks.csv, VROOM's figures (measured on this machine, see
 * ../shared/research/vroom-measured.md) beside them.
 *
 *   node --import tsx bench/vrp.ts [--sets solomon,x,homberger,augerat,scale] [--only R101,X-n101-k25|regex]
 *        [--time-limit 10[,2]] [--iterations N] [--workers 1] [--seed 1] [--wall-clock] [--hard-limit 10] [--report-only] [--no-sync] [--no-crossover]
 *
 * --hard-limit: the wall-clock safety net of the deterministic mode, as a multiple of the limit
 * (the shared machine can be loaded several times over; when the net is hit the record says so).
 *
 * Objective: total distance. Solomon / Homberger: double-precision Euclidean, gap to the
 * distance-only BKS (bks.csv column distance_only_bks; for the 1000-customer G&H that value uses
 * the DIMACS 1-decimal truncation, which slightly favours the BKS); fleet ≤ the file's NUMBER.
 * X: nint EUC_2D, gap to the CVRPLIB BKS, fleet free.
 *
 * Each run appends per-instance records to bench/out/vrp/<set>-<limit>.jsonl (so runs can be split
 * over several invocations); the README section is rebuilt from every record file present, the
 * newest record per (instance, limit) winning. Every solution is validated by the independent
 * checker; a failure is reported in the table.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg, availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { median, sharedData, table, writeSection } from './lib/report.js';
import { readInstance, benchOutput } from '../src/cli/commands/solve.js';
import { solve } from '../src/vrp/solve.js';
import { validateSolution } from '../src/vrp/validate.js';
import { WorkerPool } from '../src/workers/pool.js';
import { roadInstance } from './vrp/road.js';

const OUT = new URL('./out/vrp/', import.meta.url).pathname;

/** VROOM v1.14 `-x 5 -t 2` on this machine (shared/research/vroom-measured.md). */
const VROOM_X: Record<string, [number, number]> = {
  'X-n101-k25': [0.50, 2.7], 'X-n129-k18': [0.86, 6.6], 'X-n157-k13': [0.41, 10.1], 'X-n186-k15': [0.72, 16.5],
  'X-n214-k11': [3.12, 24.4], 'X-n242-k48': [1.29, 27.4], 'X-n270-k35': [1.55, 28.6], 'X-n298-k31': [3.27, 38.0],
  'X-n327-k20': [2.14, 84.5], 'X-n367-k17': [2.94, 111.6], 'X-n420-k130': [1.74, 66.4], 'X-n480-k70': [2.03, 52.6],
  'X-n548-k50': [0.95, 74.6], 'X-n627-k43': [2.06, 146.7], 'X-n716-k35': [2.79, 140.1], 'X-n819-k171': [2.40, 215.2],
  'X-n936-k151': [2.56, 315.0],
};
const VROOM_SOLOMON_CLASS: Record<string, number> = { C1: 0.0, R1: 1.36, RC1: 1.17 };
const VROOM_GH: Record<string, [number, number]> = { r1_10_1: [5.44, 273], rc1_10_1: [5.396, 395] };

interface Bks { instance: string; source: string; customers: number; distance: number; distanceOnly: number | null; file: string; exactTrunc: number | null }
interface ScaleRec {
  instance: string; stops: number; vehicles: number; workers: number; seconds: number; cpuSeconds: number; constructionCost: number; cost: number;
  unassignedConstruction: number; unassigned: number; iterations: number; valid: boolean; load: number; date: string; rssMb: number;
}

interface Rec {
  instance: string; set: string; cls: string; limit: string; seed: number; workers: number;
  distance: number; gap: number; vehicles: number; fleet: number; served: boolean; valid: boolean; violations: string[];
  seconds: number; cpuSeconds: number; iterations: number; load: number; date: string; vroomGap?: number; vroomSeconds?: number;
  stoppedBy?: string;
}

function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [], cell = '', q = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (q) { if (ch === '"') { if (text[i + 1] === '"') { cell += '"'; i++; } else q = false; } else cell += ch; continue; }
    if (ch === '"') q = true;
    else if (ch === ',') { row.push(cell); cell = ''; }
    else if (ch === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; }
    else if (ch !== '\r') cell += ch;
  }
  if (cell !== '' || row.length) { row.push(cell); rows.push(row); }
  const [h, ...rest] = rows;
  return rest.filter((r) => r.length === h.length).map((r) => Object.fromEntries(h.map((k, i) => [k, r[i]])));
}

function loadBks(dir: string): Bks[] {
  return parseCsv(readFileSync(join(dir, 'bks.csv'), 'utf8')).map((r) => ({
    instance: r.instance, source: r.source, customers: Number(r.customers), distance: Number(r.distance_bks),
    distanceOnly: r.distance_only_bks ? Number(r.distance_only_bks) : null, file: r.file,
    exactTrunc: ((m) => (m ? Number(m[1]) : null))(/Exact optimum with distances truncated to 1 decimal[^:]*: ([0-9.]+)/.exec(r.distance_only_note ?? '')),
  }));
}

function setOf(b: Bks): string {
  if (b.source.startsWith('Solomon')) return 'solomon';
  if (b.source.startsWith('CVRPLIB X')) return 'x';
  if (b.source.startsWith('Gehring')) return 'homberger';
  return 'augerat';
}
function classOf(b: Bks): string {
  if (b.source.startsWith('Solomon')) return b.source.replace('Solomon ', '');
  if (b.source.startsWith('Gehring')) return b.source.replace('Gehring&Homberger ', 'G&H ');
  if (b.source.startsWith('CVRPLIB X')) return 'X';
  return 'A';
}
function bksFor(b: Bks): number {
  const s = setOf(b);
  if ((s === 'solomon' || s === 'homberger') && b.distanceOnly !== null) return b.distanceOnly;
  return b.distance;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sets: { type: 'string', default: 'solomon,x,homberger' },
      only: { type: 'string' },
      'time-limit': { type: 'string', default: '10' },
      iterations: { type: 'string' },
      workers: { type: 'string', default: '1' },
      seed: { type: 'string', default: '1' },
      'wall-clock': { type: 'boolean', default: false },
      'hard-limit': { type: 'string', default: '10' },
      'report-only': { type: 'boolean', default: false },
      'no-sync': { type: 'boolean', default: false },
      'no-crossover': { type: 'boolean', default: false },
      /** A search parameter for experiments, `--param routeRuin=0.1` (repeatable; SearchParams in src/vrp/search.ts). */
      param: { type: 'string', multiple: true },
    },
  });
  const dir = sharedData('vrp');
  if (!dir) {
    console.log('bench/vrp: ../shared/data/vrp is absent — nothing to run (the section is left unchanged).');
    return;
  }
  const bks = loadBks(dir);
  mkdirSync(OUT, { recursive: true });
  if (!values['report-only']) {
    const sets = new Set(values.sets!.split(','));
    const only = values.only ? (values.only.includes(',') || /^[\w-]+$/.test(values.only) ? new Set(values.only.split(',')) : new RegExp(values.only)) : null;
    const match = (name: string): boolean => only === null || (only instanceof Set ? only.has(name) : only.test(name));
    const list = bks.filter((b) => sets.has(setOf(b)) && match(b.instance) && !(setOf(b) === 'homberger' && b.distanceOnly === null && !only));
    const limits = values.iterations ? [`it${values.iterations}`] : values['time-limit']!.split(',').map((x) => x.trim());
    const workers = Math.max(1, Number(values.workers));
    const seed = Number(values.seed);
    const pool = workers > 1 ? new WorkerPool({ threads: Math.min(workers, availableParallelism()) }) : undefined;
    try {
      if (sets.has('scale')) await runScale(workers, pool, seed, only === null ? null : (x: string) => match(x));
      for (const limit of limits) {
        for (const b of list) {
          const inst = readInstance(join(dir, b.file));
          const cpu0 = process.cpuUsage();
          const t0 = performance.now();
          const sol = await solve(inst.input, {
            seed, workers, executor: pool,
            iterations: limit.startsWith('it') ? Number(limit.slice(2)) : undefined,
            timeLimitMs: limit.startsWith('it') ? undefined : Number(limit) * 1000,
            deterministic: !values['wall-clock'],
            hardLimitFactor: Number(values['hard-limit']),
            ...(values['no-sync'] ? { sync: false } : {}),
            ...(values['no-crossover'] ? { crossover: false } : {}),
            ...(values.param?.length ? { params: Object.fromEntries(values.param.map((kv) => { const [k, v] = kv.split('='); return [k, Number(v)]; })) } : {}),
          });
          const seconds = (performance.now() - t0) / 1000;
          const cpu = process.cpuUsage(cpu0);
          const out = benchOutput(inst, sol);
          const rep = validateSolution(inst.input, sol, { exact: inst.exact });
          const ref = bksFor(b);
          const set = setOf(b);
          const rec: Rec = {
            instance: b.instance, set, cls: classOf(b), limit, seed, workers, distance: out.distance,
            gap: (100 * (out.distance - ref)) / ref, vehicles: out.vehicles, fleet: inst.input.vehicles.length,
            served: sol.unassigned.length === 0, valid: rep.ok, violations: rep.violations.slice(0, 5),
            seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, iterations: sol.stats.iterations, load: loadavg()[0], date: new Date().toISOString(),
            stoppedBy: sol.stats.perWorker.map((w) => w.stoppedBy).join('/'),
          };
          if (set === 'x' && VROOM_X[b.instance]) [rec.vroomGap, rec.vroomSeconds] = VROOM_X[b.instance];
          if (set === 'homberger' && VROOM_GH[b.instance]) [rec.vroomGap, rec.vroomSeconds] = VROOM_GH[b.instance];
          appendFileSync(join(OUT, `${set}-${limit}.jsonl`), JSON.stringify(rec) + '\n');
          console.log(`${b.instance.padEnd(12)} limit ${limit}: ${out.distance.toFixed(2)} (${out.vehicles} veh) gap ${rec.gap.toFixed(2)} %  ${seconds.toFixed(1)} s wall, ${rec.cpuSeconds.toFixed(1)} s cpu, ${sol.stats.iterations} it (${rec.stoppedBy}), load ${rec.load.toFixed(1)}${rep.ok ? '' : '  INVALID: ' + rep.violations[0]}${rec.served ? '' : '  NOT ALL SERVED'}`);
        }
      }
    } finally {
      await pool?.close();
    }
  }
  report();
}

/** Scaling: synthetic road-like instances at the default effort (MinimumOptimization 4), matrices excluded. */
async function runScale(workers: number, pool: WorkerPool | undefined, seed: number, match: ((x: string) => boolean) | null): Promise<void> {
  for (const [S, V] of [[1000, 20], [5000, 50]]) {
    const name = `road-${S}-${V}`;
    if (match && !match(name)) continue;
    const input = roadInstance(S, V, seed);
    const first = await solve(input, { seed, effort: 1 });
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const sol = await solve(input, { seed, workers, executor: pool });
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const rep = validateSolution(input, sol);
    const rec: ScaleRec = {
      instance: name, stops: S, vehicles: V, workers, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, constructionCost: first.cost, cost: sol.cost,
      unassignedConstruction: first.unassigned.length, unassigned: sol.unassigned.length, iterations: sol.stats.iterations, valid: rep.ok,
      load: loadavg()[0], date: new Date().toISOString(), rssMb: process.memoryUsage().rss / 2 ** 20,
    };
    appendFileSync(join(OUT, 'scale.jsonl'), JSON.stringify(rec) + '\n');
    console.log(`${name}: ${seconds.toFixed(1)} s wall, ${rec.cpuSeconds.toFixed(1)} s cpu, ${sol.stats.iterations} it, unassigned ${first.unassigned.length} → ${sol.unassigned.length}, cost ${first.cost} → ${sol.cost}, checker ${rep.ok ? 'ok' : 'FAIL'}`);
  }
}

function fmt(x: number, d = 2): string {
  return Number.isFinite(x) ? x.toFixed(d) : '–';
}

function report(): void {
  if (!existsSync(OUT)) return;
  const dir = sharedData('vrp');
  const lb = new Map<string, number>();
  if (dir) for (const b of loadBks(dir)) if (b.exactTrunc !== null && b.distanceOnly !== null) lb.set(b.instance, Math.max(b.distanceOnly, b.exactTrunc));
  /** Gap to max(distance-only BKS, proven optimum with truncated distances) — differs from `gap` only where the BKS is below that bound (R109, RC103). */
  const gapLb = (r: Rec): number => (lb.has(r.instance) ? (100 * (r.distance - lb.get(r.instance)!)) / lb.get(r.instance)! : r.gap);
  const recs = new Map<string, Rec>();
  for (const f of readdirSync(OUT).filter((x) => x.endsWith('.jsonl') && x !== 'scale.jsonl').sort()) {
    for (const line of readFileSync(join(OUT, f), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const r = JSON.parse(line) as Rec;
      const key = `${r.instance}|${r.limit}|${r.workers}`;
      const old = recs.get(key);
      if (!old || old.date < r.date) recs.set(key, r);
    }
  }
  const all = [...recs.values()];
  const limits = [...new Set(all.map((r) => `${r.limit}|${r.workers}`))].sort((a, b) => parseFloat(a) - parseFloat(b));
  const parts: string[] = [];
  parts.push(
    'Objective: total distance. **Solomon / Gehring & Homberger**: double-precision Euclidean distances (travel time = distance), ' +
      'gap to the *distance-only* BKS (`bks.csv` column `distance_only_bks`; for the 1000-customer G&H instances that BKS uses the DIMACS ' +
      '1-decimal truncation, which makes our double-precision gap slightly pessimistic); fleet ≤ the file\'s NUMBER. **CVRPLIB X**: nint EUC_2D, ' +
      'gap to the CVRPLIB BKS, fleet free. Gap = (ours − BKS) / BKS. Every solution was re-checked by the independent checker (`validateSolution`, ' +
      'exact double-precision travel for Solomon/G&H). "limit" is the per-instance time budget in the solver\'s deterministic mode (converted to ' +
      'work units calibrated on this machine, so results do not depend on the other jobs sharing it); wall and CPU seconds are measured. ' +
      'VROOM v1.14 (`-x 5 -t 2`, measured on this machine, `shared/research/vroom-measured.md`) is shown beside.',
  );
  const bySet = (s: string): Rec[] => all.filter((r) => r.set === s);
  for (const lw of limits) {
    const [limit, w] = lw.split('|');
    const rs = all.filter((r) => r.limit === limit && String(r.workers) === w);
    if (rs.length === 0) continue;
    parts.push(`### Limit ${limit.startsWith('it') ? limit.slice(2) + ' iterations' : limit + ' s'} per instance, ${w} search${w === '1' ? '' : 'es'} (worker${w === '1' ? '' : 's'})`);
    // per class
    const classes = [...new Set(rs.map((r) => r.cls))];
    const rows: (string | number)[][] = [];
    for (const c of classes) {
      const cr = rs.filter((r) => r.cls === c);
      const g = cr.map((r) => r.gap);
      const vroom = c in VROOM_SOLOMON_CLASS ? VROOM_SOLOMON_CLASS[c] : mean(cr.filter((r) => r.vroomGap !== undefined).map((r) => r.vroomGap!));
      rows.push([c, cr.length, fmt(mean(g)), fmt(median(g)), fmt(Math.max(...g)), fmt(mean(cr.map((r) => r.seconds)), 1), fmt(mean(cr.map((r) => r.cpuSeconds)), 1),
        cr.every((r) => r.valid) ? 'yes' : `NO (${cr.filter((r) => !r.valid).length})`, cr.every((r) => r.served && r.vehicles <= r.fleet) ? 'yes' : 'NO',
        fmt(vroom), fmt(mean(cr.map((r) => r.load)), 1)]);
    }
    const sol = rs.filter((r) => r.set === 'solomon');
    if (sol.length > 0) {
      const g = sol.map((r) => r.gap);
      // VROOM's C1/R1/RC1 class means weighted by class size (its all-56 mean is 1.62 %)
      const vroom = (9 * VROOM_SOLOMON_CLASS.C1 + 12 * VROOM_SOLOMON_CLASS.R1 + 8 * VROOM_SOLOMON_CLASS.RC1) / 29;
      rows.push(['**Solomon C1+R1+RC1**', sol.length, `**${fmt(mean(g))}**`, fmt(median(g)), fmt(Math.max(...g)), fmt(mean(sol.map((r) => r.seconds)), 1), fmt(mean(sol.map((r) => r.cpuSeconds)), 1),
        sol.every((r) => r.valid) ? 'yes' : 'NO', sol.every((r) => r.served && r.vehicles <= r.fleet) ? 'yes' : 'NO', fmt(vroom), fmt(mean(sol.map((r) => r.load)), 1)]);
    }
    parts.push(table(['class', 'n', 'mean gap %', 'median %', 'worst %', 'wall s/inst', 'cpu s/inst', 'checker', 'all served, fleet ok', 'VROOM mean gap %', 'load avg'], rows));
    if (sol.length > 0) {
      const gl = sol.map(gapLb);
      parts.push(`Solomon against max(distance-only BKS, proven optimum with 1-decimal-truncated distances) — different only for R109 (1101.37 → 1146.9) and RC103 (1249.86 → 1258.0), whose listed distance-only BKS lie below the proven optimum and cannot be reached: mean ${fmt(mean(gl))} %, worst ${fmt(Math.max(...gl))} %.`);
    }
    const detail = rs.filter((r) => r.set !== 'solomon').sort((a, b) => a.instance.localeCompare(b.instance, 'en', { numeric: true }));
    if (detail.length > 0) {
      parts.push(table(['instance', 'distance', 'vehicles', 'gap %', 'wall s', 'cpu s', 'iterations', 'checker', 'VROOM gap % (s)'],
        detail.map((r) => [r.instance, fmt(r.distance), r.vehicles, fmt(r.gap), fmt(r.seconds, 1), fmt(r.cpuSeconds, 1), r.iterations, r.valid ? 'ok' : 'FAIL',
          r.vroomGap !== undefined ? `${fmt(r.vroomGap)} (${fmt(r.vroomSeconds!, 0)})` : '–'])));
    }
    if (sol.length > 0) {
      parts.push('<details><summary>Solomon per instance</summary>\n\n' + table(['instance', 'distance', 'vehicles', 'gap %', 'gap to max(BKS, proven LB) %', 'wall s', 'cpu s', 'iterations', 'checker'],
        sol.sort((a, b) => a.instance.localeCompare(b.instance, 'en', { numeric: true })).map((r) => [r.instance, fmt(r.distance), r.vehicles, fmt(r.gap), fmt(gapLb(r)), fmt(r.seconds, 1), fmt(r.cpuSeconds, 1), r.iterations, r.valid ? 'ok' : 'FAIL'])) + '\n\n</details>');
    }
  }
  void bySet;
  const scaleFile = join(OUT, 'scale.jsonl');
  if (existsSync(scaleFile)) {
    const sr = new Map<string, ScaleRec>();
    for (const line of readFileSync(scaleFile, 'utf8').split('\n')) if (line.trim()) { const r = JSON.parse(line) as ScaleRec; sr.set(`${r.instance}|${r.workers}`, r); }
    parts.push('### Scaling: synthetic road-like instances, default effort (MinimumOptimization 4)\n\n' +
      'Generator: `bench/vrp/road.ts` (asymmetric detour factors, 30 % of stops with 2-hour windows, 12-hour shifts, tight capacities). ' +
      'Times are the solver alone (construction + search); the road-network matrix is computed elsewhere and comes on top. ' +
      'Effort 4 = 20 iterations per stop, capped by a deterministic work budget worth 2 s + 6.7 ms per stop on this machine.\n\n' +
      table(['instance', 'searches', 'wall s', 'cpu s', 'iterations', 'unassigned (construction → final)', 'cost (construction → final)', 'checker', 'RSS MB', 'load avg'],
        [...sr.values()].map((r) => [r.instance, r.workers, fmt(r.seconds, 1), fmt(r.cpuSeconds, 1), r.iterations, `${r.unassignedConstruction} → ${r.unassigned}`,
          `${r.constructionCost} → ${r.cost} (${fmt((100 * (r.cost - r.constructionCost)) / r.constructionCost, 1)} %)`, r.valid ? 'ok' : 'FAIL', fmt(r.rssMb, 0), fmt(r.load, 1)])));
  }
  writeSection('vrp', 'Dispatch solver on VRP benchmarks (bench/vrp.ts)', parts.join('\n\n'));
}

function mean(xs: number[]): number {
  return xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
