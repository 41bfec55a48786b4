/**
 * `dispatchkit solve <instance> --format solomon|vrplib [--time-limit S] [--seed N] [--workers N]`
 *
 * Solves a benchmark instance (Solomon / Gehring & Homberger text, or CVRPLIB/VRPLIB) and prints
 * `{"vehicles":…,"distance":…,"routes":[[ids…]…],"seconds":…}`: customer ids as the file numbers
 * them, depot left out; distance in the file's convention (Solomon: double precision Euclidean;
 * VRPLIB EUC_2D: nint per edge). The solution is always checked by the independent checker.
 *
 * Determinism: with a time limit the budget is converted to deterministic work units (see
 * docs/vrp.md), so two runs with the same seed and worker count print the same routes; only
 * `seconds` differs (omit it with --no-seconds). The wall clock is a safety net at --hard-limit
 * (default 5) × the limit; if a loaded machine makes the run hit it, the routes may differ and a
 * note goes to stderr. --wall-clock makes the time limit a pure wall-clock budget instead.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { basename } from 'node:path';
import { availableParallelism } from 'node:os';
import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { EngineError, invalidInput } from '../../core/errors.js';
import { parseSolomon } from '../../vrp/io/solomon.js';
import { parseVrplib } from '../../vrp/io/vrplib.js';
import type { BenchInstance } from '../../vrp/io/common.js';
import { solve } from '../../vrp/solve.js';
import { validateSolution } from '../../vrp/validate.js';
import type { Solution } from '../../vrp/solution.js';

export function readInstance(path: string, format?: string): BenchInstance {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new EngineError('InvalidInput', `Cannot read the instance file "${path}".`, { path: 'instance' });
  }
  const fmt = format ?? (/\.(vrp|vrplib)$/i.test(path) ? 'vrplib' : 'solomon');
  const name = basename(path).replace(/\.[^.]*$/, '');
  if (fmt === 'solomon') return parseSolomon(text, name, { file: path });
  if (fmt === 'vrplib') return parseVrplib(text, name, { file: path });
  throw invalidInput('--format', `must be solomon or vrplib (got "${fmt}")`);
}

/** The harness's view of a solution: file ids per route and the distance in the file's convention. */
export function benchOutput(inst: BenchInstance, sol: Solution): { vehicles: number; distance: number; routes: number[][] } {
  const routes: number[][] = [];
  let distance = 0;
  for (const r of sol.routes) {
    const veh = inst.input.vehicles[r.vehicle];
    let prev = veh.start;
    routes.push(r.stops.map((s) => inst.ids[s.stop]));
    for (const s of r.stops) {
      const pl = inst.input.stops[s.stop].place;
      if (prev !== undefined) distance += inst.reportDist(prev, pl);
      prev = pl;
    }
    if (prev !== undefined && veh.end !== undefined) distance += inst.reportDist(prev, veh.end);
  }
  return { vehicles: routes.length, distance: Math.round(distance * 1e6) / 1e6, routes };
}

export const solveCommand: Command = {
  name: 'solve',
  summary: 'Solve a VRP benchmark instance (Solomon/Homberger or CVRPLIB) and print the routes as JSON',
  options: [
    { flag: '--format solomon|vrplib', description: 'instance format', default: 'vrplib for .vrp/.vrplib files, else solomon' },
    { flag: '--time-limit S', description: 'seconds of calibrated work per search', default: '10 unless --iterations' },
    { flag: '--iterations N', description: 'ruin-and-recreate iterations per search (deterministic)' },
    { flag: '--seed N', description: 'seed', default: '1' },
    { flag: '--workers N', description: 'independent searches (threads)', default: 'one per core' },
    { flag: '--wall-clock', description: 'the time limit is wall clock (results vary with load)' },
    { flag: '--hard-limit F', description: 'wall-clock safety net as a multiple of the limit', default: '5' },
    { flag: '--no-seconds', description: 'leave the measured seconds out (identical output run to run)' },
    { flag: '-q, --quiet', description: 'no progress on stderr' },
  ],
  examples: ['dispatchkit solve fixtures/vrp/C101.txt --time-limit 2', 'dispatchkit solve fixtures/vrp/X-n101-k25.vrp --iterations 2000 --no-seconds'],
  usage: 'dispatchkit solve <instance> [--format solomon|vrplib] [--time-limit S] [--iterations N] [--seed N] [--workers N] [--wall-clock] [--hard-limit F] [--no-seconds] [--quiet]',
  async run(argv: string[]): Promise<number> {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        format: { type: 'string' },
        'time-limit': { type: 'string' },
        iterations: { type: 'string' },
        seed: { type: 'string', default: '1' },
        workers: { type: 'string' },
        'wall-clock': { type: 'boolean', default: false },
        'hard-limit': { type: 'string', default: '5' },
        'no-seconds': { type: 'boolean', default: false },
        quiet: { type: 'boolean', default: false },
      },
    });
    if (positionals.length !== 1) throw invalidInput('instance', 'exactly one instance file is required');
    const num = (name: string, v: string | undefined): number | undefined => {
      if (v === undefined) return undefined;
      const x = Number(v);
      if (!Number.isFinite(x) || x < 0) throw invalidInput(`--${name}`, `must be a non-negative number (got "${v}")`);
      return x;
    };
    const inst = readInstance(positionals[0], values.format);
    const limit = num('time-limit', values['time-limit']);
    const iterations = num('iterations', values.iterations);
    const workers = Math.max(1, Math.floor(num('workers', values.workers) ?? availableParallelism()));
    const seed = Math.floor(num('seed', values.seed) ?? 1);
    const t0 = performance.now();
    let pool: import('../../workers/pool.js').WorkerPool | undefined;
    if (workers > 1) {
      const { WorkerPool } = await import('../../workers/pool.js');
      pool = new WorkerPool({ threads: workers });
    }
    let sol: Solution;
    try {
      sol = await solve(inst.input, {
        seed, workers, executor: pool,
        iterations: iterations === undefined ? undefined : Math.floor(iterations),
        timeLimitMs: limit === undefined ? (iterations === undefined ? 10_000 : undefined) : limit * 1000,
        deterministic: !values['wall-clock'],
        hardLimitFactor: num('hard-limit', values['hard-limit']),
        onProgress: values.quiet ? undefined : (e) => {
          process.stderr.write(`\r${e.phase}: best ${e.info?.bestCost} after ${e.info?.iterations} iterations   `);
        },
      });
    } finally {
      await pool?.close();
    }
    const seconds = (performance.now() - t0) / 1000;
    if (!values.quiet) process.stderr.write('\n');
    const rep = validateSolution(inst.input, sol, { exact: inst.exact });
    if (!rep.ok) {
      process.stderr.write(`checker: ${rep.violations.length} violation(s):\n  ${rep.violations.slice(0, 20).join('\n  ')}\n`);
    }
    if (sol.unassigned.length > 0) process.stderr.write(`${sol.unassigned.length} customer(s) not served\n`);
    if (!values['wall-clock'] && sol.stats.perWorker.some((w) => w.stoppedBy === 'time')) {
      process.stderr.write('note: the wall-clock safety net stopped a search before its work budget (machine busy); this run is not reproducible\n');
    }
    const out: Record<string, unknown> = benchOutput(inst, sol);
    if (!values['no-seconds']) out.seconds = Math.round(seconds * 1000) / 1000;
    process.stdout.write(JSON.stringify(out) + '\n');
    return rep.ok && sol.unassigned.length === 0 ? EXIT.ok : EXIT.failed;
  },
};

export default solveCommand;
