/**
 * Gehring & Homberger 1000-customer instances at a time limit, over several seeds: the figure
 * issue #10 asks for (each ≤ 3 % above the distance-only BKS at 5 minutes), quoted as the median
 * over seeds because one large-instance run varies by several tenths of a percent with the seed.
 *
 *   node --import tsx bench/homberger.ts [--only r1_10_1,rc1_10_1] [--time-limit 300] [--workers 2] [--seeds 1,2,3] [--report-only]
 *
 * Deterministic mode (the limit is converted to work units calibrated on this machine, the wall
 * clock only a safety net at 10 × the limit), so a run repeats exactly whatever else the machine
 * does. Records append to bench/out/homberger.jsonl (runs can be split over invocations); the
 * README section shows, per instance, the newest record of each seed and their median. Every
 * solution is checked by the independent checker. Needs ../shared/data/vrp (says so when absent).
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { median, sharedData, table, writeSection } from './lib/report.js';
import { readInstance, benchOutput } from '../src/cli/commands/solve.js';
import { solve } from '../src/vrp/solve.js';
import { validateSolution } from '../src/vrp/validate.js';
import { WorkerPool } from '../src/workers/pool.js';

const OUT = new URL('./out/', import.meta.url).pathname;
const FILE = join(OUT, 'homberger.jsonl');
/** Distance-only BKS (DIMACS convention, bks.csv) and VROOM v1.14 `-x 5 -t 2` on this machine (shared/research/vroom-measured.md). */
const REF: Record<string, { bks: number; vroom: number }> = {
  r1_10_1: { bks: 53026.1, vroom: 5.44 },
  rc1_10_1: { bks: 45790.7, vroom: 5.40 },
};

interface Rec {
  instance: string; seed: number; limit: number; workers: number; distance: number; vehicles: number; gap: number;
  valid: boolean; served: boolean; seconds: number; cpuSeconds: number; iterations: number; load: number; date: string; commit: string;
}

function commit(): string {
  try {
    const head = readFileSync(new URL('../.git/HEAD', import.meta.url), 'utf8').trim();
    const ref = head.startsWith('ref: ') ? readFileSync(new URL(`../.git/${head.slice(5)}`, import.meta.url), 'utf8').trim() : head;
    return ref.slice(0, 7);
  } catch {
    return '?';
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string', default: 'r1_10_1,rc1_10_1' }, 'time-limit': { type: 'string', default: '300' },
      workers: { type: 'string', default: '2' }, seeds: { type: 'string', default: '1,2,3' }, 'report-only': { type: 'boolean', default: false },
    },
  });
  const limit = Number(values['time-limit']);
  const workers = Number(values.workers);
  if (!values['report-only']) {
    const dir = sharedData('vrp');
    if (!dir) {
      console.log('bench/homberger: ../shared/data/vrp is absent — nothing to run (the section is left unchanged).');
      return;
    }
    mkdirSync(OUT, { recursive: true });
    const pool = new WorkerPool({ threads: workers });
    try {
      for (const name of values.only!.split(',')) {
        const ref = REF[name];
        if (!ref) throw new Error(`no reference for ${name}`);
        for (const seed of values.seeds!.split(',').map(Number)) {
          const inst = readInstance(join(dir, 'homberger', `${name}.txt`));
          const cpu0 = process.cpuUsage();
          const t0 = performance.now();
          const sol = await solve(inst.input, { seed, workers, executor: pool, timeLimitMs: limit * 1000, hardLimitFactor: 10 });
          const seconds = (performance.now() - t0) / 1000;
          const cpu = process.cpuUsage(cpu0);
          const out = benchOutput(inst, sol);
          const rep = validateSolution(inst.input, sol, { exact: inst.exact });
          const rec: Rec = {
            instance: name, seed, limit, workers, distance: out.distance, vehicles: out.vehicles, gap: (100 * (out.distance - ref.bks)) / ref.bks,
            valid: rep.ok, served: sol.unassigned.length === 0, seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, iterations: sol.stats.iterations,
            load: loadavg()[0], date: new Date().toISOString(), commit: commit(),
          };
          appendFileSync(FILE, JSON.stringify(rec) + '\n');
          console.log(`${name} seed ${seed}: ${out.distance.toFixed(2)} (${out.vehicles} veh) gap ${rec.gap.toFixed(2)} %, ${seconds.toFixed(0)} s wall, checker ${rep.ok ? 'ok' : 'FAIL ' + rep.violations[0]}`);
        }
      }
    } finally {
      await pool.close();
    }
  }
  report(limit, workers);
}

function report(limit: number, workers: number): void {
  if (!existsSync(FILE)) return;
  const newest = new Map<string, Rec>();
  for (const line of readFileSync(FILE, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as Rec;
    if (r.limit !== limit || r.workers !== workers) continue;
    const k = `${r.instance}|${r.seed}`;
    const old = newest.get(k);
    if (!old || old.date < r.date) newest.set(k, r);
  }
  const recs = [...newest.values()].sort((a, b) => a.instance.localeCompare(b.instance) || a.seed - b.seed);
  const names = [...new Set(recs.map((r) => r.instance))];
  const rows = names.map((n) => {
    const rs = recs.filter((r) => r.instance === n);
    return [n, rs.map((r) => `${r.seed}: ${r.gap.toFixed(2)} (${r.vehicles})`).join(', '), `**${median(rs.map((r) => r.gap)).toFixed(2)}**`,
      median(rs.map((r) => r.distance)).toFixed(2), Math.max(...rs.map((r) => r.gap)).toFixed(2),
      rs.every((r) => r.valid) ? 'ok' : 'FAIL', rs.every((r) => r.served) ? 'yes' : 'NO', median(rs.map((r) => r.seconds)).toFixed(0),
      median(rs.map((r) => r.cpuSeconds)).toFixed(0), median(rs.map((r) => r.load)).toFixed(1), REF[n].vroom.toFixed(2), [...new Set(rs.map((r) => r.commit))].join(' ')];
  });
  writeSection('homberger', `Gehring & Homberger 1000 at ${limit} s, ${workers} threads, over seeds (\`bench/homberger.ts\`)`, [
    `\`node --import tsx bench/homberger.ts --time-limit ${limit} --workers ${workers} --seeds …\`: the solver's default parameters (from 1,000 jobs: fleet minimisation first, then the independent searches' ruin-and-recreate with whole-route ruins, then cooperative rounds on parts), deterministic mode (work units calibrated on this machine). Gap to the distance-only BKS of \`bks.csv\` (DIMACS 1-decimal truncation, which favours the BKS slightly); every solution re-checked by the independent checker with exact double-precision travel. Target (issue #10): each instance ≤ 3 %.`,
    '',
    table(['instance', 'gap % by seed (vehicles)', 'median gap %', 'median distance', 'worst %', 'checker', 'all served', 'wall s (median)', 'cpu s (median)', 'load avg (median)', 'VROOM gap %', 'commit'], rows),
    '',
    'The distances repeat exactly for a seed whatever the machine does; wall and CPU seconds grow with the load (the 1-minute load average at the end of each run: 2 is this machine busy with the bench alone).',
  ].join('\n'));
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
