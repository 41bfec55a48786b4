/**
 * Same-run A/B of the dispatch solver (issue #26 item 6: keep one for every solver change): this
 * tree's solver against the previous commit's, and VROOM when a binary is given, on Porto road
 * instances, in one run, alternating, at equal wall time. Reported per run: the plan's cost (travel
 * time on the rounded matrix the solvers share, re-checked here: capacity, windows, shifts),
 * iterations per second, peak RSS of the process (`/usr/bin/time`, worker threads included).
 * Parts (`--parts`, each a block of the README section; a run replaces only the blocks it ran):
 *
 * - time: the three solvers at equal wall time (`--seconds`), `--rounds` rounds;
 * - work: this tree and the previous one at an equal deterministic work budget (`--work-seconds` of
 *   calibrated work per search, seeds `--work-seeds`): the plans do not depend on the machine's
 *   load, so the difference is the solvers' alone (the load changes only the wall time);
 * - gh: the benchmark instances defined vehicles first (Gehring & Homberger 1000) on both solvers
 *   with the same seed and work budget, and the fleet-minimisation rule of each on every instance.
 *
 *   git worktree add --detach /tmp/ab-prev HEAD && ln -s "$PWD/node_modules" /tmp/ab-prev/node_modules
 *   node --import tsx bench/roads-ab.ts [--prev /tmp/ab-prev] [--vroom /path/to/vroom] [--parts time,work,gh]
 *        [--seconds 120] [--rounds 2] [--instances 2] [--stops 1000] [--vehicles 20]
 *        [--work-seconds 100] [--work-seeds 1,2] [--gh-seconds 120] [--gh r1_10_1,rc1_10_1]
 *
 * The previous solver is imported from the worktree (run this before committing a solver change,
 * the worktree at HEAD). VROOM (v1.14, built from its public source outside the repository) reads
 * the same matrix as a custom `durations` matrix, `-t 2 -x 5 -l <seconds>`. Instances are the
 * Dispatch operation's own solver input (bench/lib/porto-spec.ts through the engine on
 * bench/out/porto.dkds), so the cost is the one a dispatch minimises.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { deserialize, serialize } from 'node:v8';
import { sharedData, table, writeSection } from './lib/report.js';
import type { VrpInput } from '../src/vrp/model.js';
import { WORK_PER_MS } from '../src/vrp/solve.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const TREE = join(HERE, '..');
const THIS = fileURLToPath(import.meta.url);
const DATASET = join(HERE, 'out/porto.dkds');
const GH_BKS: Record<string, number> = { r1_10_1: 53026.1, rc1_10_1: 45790.7 };

const mod = (tree: string, rel: string): Promise<any> => import(pathToFileURL(join(tree, rel)).href);

// ---- children -----------------------------------------------------------------------------------

/**
 * One solve of a stored input by the solver of `tree` on 2 threads: `wall` = a wall-clock limit of
 * `seconds`; `work` = `seconds` of calibrated work per search, deterministic (as bench/homberger.ts,
 * the wall clock a safety net at 10×).
 */
async function childSolve(tree: string, file: string, seconds: number, seed: number, out: string, mode = 'wall'): Promise<void> {
  const { solve } = await mod(tree, 'src/vrp/solve.ts');
  const { WorkerPool } = await mod(tree, 'src/workers/pool.ts');
  const input = deserialize(readFileSync(file)) as VrpInput;
  const pool = new WorkerPool({ threads: 2 });
  const t0 = performance.now();
  const budget = mode === 'work' ? { hardLimitFactor: 10 } : { deterministic: false };
  const sol = await solve(input, { seed, workers: 2, executor: pool, timeLimitMs: seconds * 1000, ...budget });
  const wallS = (performance.now() - t0) / 1000;
  await pool.close();
  const routes = sol.routes.map((r: any) => [r.vehicle, ...r.stops.map((s: any) => s.stop)]);
  const byClock = sol.stats.perWorker.some((w: any) => w.stoppedBy === 'time');
  writeFileSync(out, JSON.stringify({ routes, wallS, iterations: sol.stats.iterations, solverCost: sol.cost, unassigned: sol.unassigned.length, byClock }));
}

/** One G&H instance by the solver of `tree`: deterministic work budget (as bench/homberger.ts), 2 threads. */
async function childGh(tree: string, file: string, seconds: number, seed: number, out: string): Promise<void> {
  const { readInstance, benchOutput } = await mod(tree, 'src/cli/commands/solve.ts');
  const { solve } = await mod(tree, 'src/vrp/solve.ts');
  const { validateSolution } = await mod(tree, 'src/vrp/validate.ts');
  const { WorkerPool } = await mod(tree, 'src/workers/pool.ts');
  const inst = readInstance(file);
  const pool = new WorkerPool({ threads: 2 });
  const t0 = performance.now();
  const sol = await solve(inst.input, { seed, workers: 2, executor: pool, timeLimitMs: seconds * 1000, hardLimitFactor: 10 });
  const wallS = (performance.now() - t0) / 1000;
  await pool.close();
  const o = benchOutput(inst, sol);
  const rep = validateSolution(inst.input, sol, { exact: inst.exact });
  writeFileSync(out, JSON.stringify({ distance: o.distance, vehicles: o.vehicles, iterations: sol.stats.iterations, wallS, valid: rep.ok, served: sol.unassigned.length === 0 }));
}

if (process.argv[2] === '--child-solve') {
  const [tree, file, seconds, seed, out, mode] = process.argv.slice(3);
  await childSolve(tree, file, Number(seconds), Number(seed), out, mode);
  process.exit(0);
}
if (process.argv[2] === '--child-gh') {
  const [tree, file, seconds, seed, out] = process.argv.slice(3);
  await childGh(tree, file, Number(seconds), Number(seed), out);
  process.exit(0);
}

// ---- parent -------------------------------------------------------------------------------------

const { values } = parseArgs({
  options: {
    prev: { type: 'string', default: '/tmp/ab-prev' },
    vroom: { type: 'string', default: '/tmp/vroom-build/vroom/bin/vroom' },
    seconds: { type: 'string', default: '120' },
    rounds: { type: 'string', default: '2' },
    instances: { type: 'string', default: '2' },
    stops: { type: 'string', default: '1000' },
    vehicles: { type: 'string', default: '20' },
    'gh-seconds': { type: 'string', default: '120' },
    parts: { type: 'string', default: 'time,work,gh' },
    'work-seconds': { type: 'string', default: '100' },
    'work-seeds': { type: 'string', default: '1,2' },
    gh: { type: 'string', default: 'r1_10_1,rc1_10_1' },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const INSTANCES = Number(values.instances);
const STOPS = Number(values.stops);
const VEHICLES = Number(values.vehicles);
const GH_SECONDS = Number(values['gh-seconds']);
const PREV = values.prev!;
const PARTS = new Set(values.parts!.split(','));
const WORK_SECONDS = Number(values['work-seconds']);
const WORK_SEEDS = values['work-seeds']!.split(',').map(Number);
const WORK = join(tmpdir(), `roads-ab-${process.pid}`);
mkdirSync(WORK, { recursive: true });

if (!existsSync(join(PREV, 'src/vrp/solve.ts')) || !existsSync(join(PREV, 'node_modules'))) {
  console.error(`bench/roads-ab: no previous tree at ${PREV} (git worktree add --detach ${PREV} HEAD; ln -s "$PWD/node_modules" ${PREV}/node_modules)`);
  process.exit(1);
}
const prevCommit = spawnSync('git', ['-C', PREV, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim() || '?';
const vroomBin = existsSync(values.vroom!) ? values.vroom! : null;
const vroomVersion = vroomBin ? spawnSync(vroomBin, ['-v'], { encoding: 'utf8' }).stdout.trim() : '';

function log(s: string): void {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)} load ${loadavg()[0].toFixed(2)}] ${s}\n`);
}

/** A copy without shared buffers (v8.serialize refuses SharedArrayBuffer). */
function plain(x: any): any {
  if (ArrayBuffer.isView(x)) return new (x.constructor as any)(x as any);
  if (Array.isArray(x)) return x.map(plain);
  if (x && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, plain(v)]));
  return x;
}

const rounded = (m: ArrayLike<number>): Int32Array => Int32Array.from(m as ArrayLike<number>, (x) => Math.round(x));
const timeOf = (input: VrpInput): ArrayLike<number> => (Array.isArray(input.time) && typeof (input.time as unknown[])[0] === 'object' ? (input.time as ArrayLike<number>[])[0] : input.time as ArrayLike<number>);

/** The features this bench maps to VROOM; anything else stops it (the comparison would be unfair). */
function checkSupported(input: VrpInput): void {
  const bad: string[] = [];
  if (Array.isArray(input.time) && typeof (input.time as unknown[])[0] === 'object' && (input.time as unknown[]).length > 1) bad.push('several time profiles');
  if ((input.pairs ?? []).length > 0) bad.push('pairs');
  if (input.balance) bad.push('balance');
  for (const s of input.stops) {
    if ((s.skills ?? []).length || s.vehicle !== undefined || s.keepOrder || (s.priority ?? 0) !== 0 || (s as any).optional || (s as any).reset) bad.push('stop features');
  }
  for (const v of input.vehicles) {
    if ((v.skills ?? []).length || v.maxStops || v.maxDuration || (v.breaks ?? []).length || v.fixedCost || v.start === undefined || v.end === undefined) bad.push('vehicle features');
  }
  if (bad.length) throw new Error(`bench/roads-ab: the instance uses ${[...new Set(bad)].join(', ')}`);
}

/** The same problem as VROOM's JSON input: custom matrix, jobs with delivery amounts, windows and service. */
function vroomJson(input: VrpInput): string {
  const n = input.places;
  const T = rounded(timeOf(input));
  const dims = [...Array(input.dimensions ?? 1).keys()].filter((d) => input.vehicles.some((v) => (v.capacity?.[d] ?? 0) > 0 && Number.isFinite(v.capacity![d])));
  const total = dims.map((d) => input.stops.reduce((a, s) => a + Math.round((s.demand as number[] | undefined)?.[d] ?? 0), 0));
  const HORIZON = 10 * 86400;
  const tw = (a: number, b: number): [number, number] => [Math.max(0, Math.ceil(a)), Math.min(HORIZON, Math.floor(b))];
  const rows: number[][] = [];
  for (let a = 0; a < n; a++) rows.push(Array.from(T.subarray(a * n, a * n + n)));
  const jobs = input.stops.map((s, i) => ({
    id: i + 1, location_index: s.place, service: Math.round(s.service ?? 0),
    ...(dims.length ? { delivery: dims.map((d) => Math.round((s.demand as number[] | undefined)?.[d] ?? 0)) } : {}),
    ...(s.windows && s.windows.length ? { time_windows: s.windows.map((w) => tw(w[0], w[1])) } : {}),
  }));
  const vehicles = input.vehicles.map((v, i) => ({
    id: i + 1, start_index: v.start, end_index: v.end,
    ...(dims.length ? { capacity: dims.map((d, k) => { const c = v.capacity?.[d] ?? 0; return c > 0 && Number.isFinite(c) ? Math.round(c) : total[k]; }) } : {}),
    time_window: tw(v.shift?.[0] ?? input.startTime ?? 0, v.shift?.[1] ?? HORIZON),
    ...((v.costFactor ?? 1) !== 1 ? { costs: { per_hour: Math.round(3600 * (v.costFactor ?? 1)) } } : {}),
  }));
  const matrices: Record<string, unknown> = { durations: rows };
  if (input.objective !== 'time') {
    const D = rounded((Array.isArray(input.distance) && typeof (input.distance as unknown[])[0] === 'object' ? (input.distance as ArrayLike<number>[])[0] : input.distance ?? timeOf(input)) as ArrayLike<number>);
    const costs: number[][] = [];
    for (let a = 0; a < n; a++) costs.push(Array.from(D.subarray(a * n, a * n + n)));
    matrices.costs = costs;
  }
  return JSON.stringify({ vehicles, jobs, matrices: { car: matrices } });
}

/** This bench's own check of a plan (routes as [vehicle, ...stops]): cost on the rounded matrix, stops served, violations. */
function checkPlan(input: VrpInput, routes: number[][]): { cost: number; served: number; violations: string[] } {
  const n = input.places;
  const T = rounded(timeOf(input));
  const C = input.objective === 'time' ? T : rounded((input.distance ?? timeOf(input)) as ArrayLike<number>);
  const seen = new Uint8Array(input.stops.length);
  const violations: string[] = [];
  let cost = 0, served = 0;
  for (const [v, ...stops] of routes) {
    if (stops.length === 0) continue;
    const ve = input.vehicles[v];
    let t = Math.ceil(ve.shift?.[0] ?? input.startTime ?? 0);
    let at = ve.start!;
    let c = 0;
    const load = new Float64Array(input.dimensions ?? 1);
    for (const s of stops) {
      if (seen[s]) violations.push(`stop ${s} served twice`);
      seen[s] = 1;
      served++;
      const st = input.stops[s];
      c += C[at * n + st.place];
      t += T[at * n + st.place];
      if (st.windows && st.windows.length) {
        const w = st.windows.find((w) => Math.floor(w[1]) >= t);
        if (!w) violations.push(`stop ${s} after its window`);
        else t = Math.max(t, Math.ceil(w[0]));
      }
      t += Math.round(st.service ?? 0);
      (st.demand as number[] | undefined)?.forEach((d, k) => { load[k] += d; });
      at = st.place;
    }
    c += C[at * n + ve.end!];
    t += T[at * n + ve.end!];
    if (t > Math.floor(ve.shift?.[1] ?? Infinity)) violations.push(`vehicle ${v} back after its shift`);
    load.forEach((l, k) => { const cap = ve.capacity?.[k] ?? 0; if (cap > 0 && l > cap + 1e-6) violations.push(`vehicle ${v} over capacity ${k}`); });
    cost += (ve.costFactor ?? 1) * c;
  }
  return { cost, served, violations };
}

/** Runs a command under /usr/bin/time; its peak RSS in MB. */
function timed(cmd: string, args: string[]): { ok: boolean; rssMb: number; wallS: number; stderr: string } {
  const rssFile = join(WORK, `rss-${Date.now()}.txt`);
  const t0 = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', '-o', rssFile, cmd, ...args], { cwd: TREE, encoding: 'utf8', maxBuffer: 1 << 26 });
  const wallS = (performance.now() - t0) / 1000;
  const kb = existsSync(rssFile) ? Number(readFileSync(rssFile, 'utf8').trim().split('\n').pop()) : NaN;
  return { ok: r.status === 0, rssMb: kb / 1024, wallS, stderr: (r.stderr ?? '').slice(-2000) };
}

/** The README section's blocks by part (`<!-- part:NAME -->` … `<!-- /part:NAME -->`), as last written. */
function blocksInReadme(): Map<string, string> {
  const text = existsSync(join(HERE, 'README.md')) ? readFileSync(join(HERE, 'README.md'), 'utf8') : '';
  const a = text.indexOf('<!-- bench:roads-ab:start -->'), b = text.indexOf('<!-- bench:roads-ab:end -->');
  const out = new Map<string, string>();
  if (a < 0 || b < a) return out;
  const re = /<!-- part:(\w+) -->\n([\s\S]*?)\n<!-- \/part:\1 -->/g;
  for (const m of text.slice(a, b).matchAll(re)) out.set(m[1], m[2]);
  return out;
}

interface Run { instance: number; round: number; solver: 'this' | 'prev' | 'vroom'; cost: number; served: number; violations: number; iterations: number; wallS: number; rssMb: number; load: number }

async function main(): Promise<void> {
  const TITLE = 'Same-run A/B on Porto roads: this tree, the previous commit, VROOM (`bench/roads-ab.ts`)';
  if (!existsSync(DATASET)) {
    const pbf = sharedData('osm/porto_portugal.osm.pbf');
    if (!pbf) { writeSection('roads-ab', TITLE, '_The Porto extract is not available here; nothing was measured._'); return; }
    log('building bench/out/porto.dkds');
    spawnSync(process.execPath, ['--import', 'tsx', join(TREE, 'src/cli/main.ts'), 'build', pbf, '-o', DATASET, '--quiet'], { stdio: 'inherit', cwd: TREE });
  }
  // 1. the instances: the Dispatch operation's solver input for Porto specifications
  const { Engine } = await import('../src/engine.js');
  const { makePortoSpec } = await import('./lib/porto-spec.js');
  const engine = await Engine.open(DATASET, { threads: 2 });
  const files: string[] = [];
  const inputs: VrpInput[] = [];
  for (let k = 0; k < INSTANCES; k++) {
    const spec = makePortoSpec(engine, { name: `porto-${k}`, stops: STOPS, vehicles: VEHICLES, timeLimitS: 2, waitS: 300 }, 2026 + k);
    let input: VrpInput | null = null;
    const r = await engine.dispatch(spec, { seed: 1, timeLimitMs: 3000, onSolution: (i: VrpInput) => { input = plain(i); } } as never);
    if (!input) throw new Error(`instance ${k}: no solver input (${JSON.stringify((r as any).Errors)})`);
    checkSupported(input);
    const file = join(WORK, `inst-${k}.bin`);
    writeFileSync(file, serialize(input));
    if (vroomBin) writeFileSync(join(WORK, `inst-${k}.json`), vroomJson(input));
    files.push(file);
    inputs.push(input);
    log(`instance ${k}: ${(input as VrpInput).stops.length} stops, ${(input as VrpInput).vehicles.length} vehicles`);
  }
  await engine.close();

  // 2. each solver's fleet-minimisation rule on these inputs (its default, then the budget rule at this wall time)
  const rule = async (tree: string, input: VrpInput, budget: Record<string, number>): Promise<number> => {
    const { buildProblem } = await mod(tree, 'src/vrp/model.ts');
    const { defaultParams } = await mod(tree, 'src/vrp/search.ts');
    const { fleetPhaseFor, wallNow } = await mod(tree, 'src/vrp/solve.ts');
    const pb = buildProblem(input);
    const b = budget.deadlineS !== undefined ? { deadlineAt: wallNow() + budget.deadlineS * 1000 } : budget;
    return fleetPhaseFor(defaultParams(pb).fleetPhase, b, pb.J);
  };
  const phases = { this: await rule(TREE, inputs[0], { deadlineS: SECONDS }), prev: await rule(PREV, inputs[0], { deadlineS: SECONDS }) };

  // 3. the runs, alternating the order every round and instance
  const runs: Run[] = [];
  const solvers: Run['solver'][] = vroomBin ? ['this', 'prev', 'vroom'] : ['this', 'prev'];
  for (let round = 0; round < (PARTS.has('time') ? ROUNDS : 0); round++) {
    for (let k = 0; k < INSTANCES; k++) {
      const shift = (round + k) % solvers.length;
      const order = [...solvers.slice(shift), ...solvers.slice(0, shift)];
      for (const solver of order) {
        const load0 = loadavg()[0];
        const out = join(WORK, `out-${k}-${round}-${solver}.json`);
        let routes: number[][];
        let iterations = NaN, wallS: number, rssMb: number, reported = NaN;
        if (solver === 'vroom') {
          const t = timed(vroomBin!, ['-i', join(WORK, `inst-${k}.json`), '-o', out, '-t', '2', '-x', '5', '-l', String(SECONDS)]);
          if (!t.ok) throw new Error(`vroom failed: ${t.stderr}`);
          const o = JSON.parse(readFileSync(out, 'utf8'));
          routes = (o.routes ?? []).map((r: any) => [r.vehicle - 1, ...r.steps.filter((s: any) => s.type === 'job').map((s: any) => s.id - 1)]);
          reported = o.summary?.cost;
          wallS = t.wallS; rssMb = t.rssMb;
        } else {
          const t = timed(process.execPath, ['--import', 'tsx', THIS, '--child-solve', solver === 'this' ? TREE : PREV, files[k], String(SECONDS), String(round + 1), out]);
          if (!t.ok) throw new Error(`${solver} failed: ${t.stderr}`);
          const o = JSON.parse(readFileSync(out, 'utf8'));
          routes = o.routes; iterations = o.iterations; wallS = o.wallS; rssMb = t.rssMb; reported = o.solverCost;
        }
        const chk = checkPlan(inputs[k], routes);
        const run: Run = { instance: k, round, solver, cost: chk.cost, served: chk.served, violations: chk.violations.length, iterations, wallS, rssMb, load: (load0 + loadavg()[0]) / 2 };
        runs.push(run);
        log(`instance ${k} round ${round} ${solver}: cost ${chk.cost} served ${chk.served}/${inputs[k].stops.length} violations ${chk.violations.slice(0, 3).join('; ') || 0} (the solver's own cost ${reported}) it ${iterations} wall ${wallS.toFixed(1)} s rss ${rssMb.toFixed(0)} MB`);
      }
    }
  }

  // 3b. equal work: this tree and the previous one, deterministic, several seeds
  const workRows: (string | number)[][] = [];
  const workRatios: number[] = [];
  const workLoads: number[] = [];
  const workPhases = PARTS.has('work') ? { this: await rule(TREE, inputs[0], { work: WORK_SECONDS * 1000 * WORK_PER_MS }), prev: await rule(PREV, inputs[0], { work: WORK_SECONDS * 1000 * WORK_PER_MS }) } : null;
  for (let k = 0; k < (PARTS.has('work') ? INSTANCES : 0); k++) {
    for (let i = 0; i < WORK_SEEDS.length; i++) {
      const seed = WORK_SEEDS[i];
      const res: Record<string, { cost: number; served: number; violations: number; iterations: number; wallS: number; rssMb: number; byClock: boolean; load: number }> = {};
      for (const who of (k + i) % 2 === 0 ? ['this', 'prev'] : ['prev', 'this']) {
        const out = join(WORK, `work-${k}-${seed}-${who}.json`);
        const load0 = loadavg()[0];
        const t = timed(process.execPath, ['--import', 'tsx', THIS, '--child-solve', who === 'this' ? TREE : PREV, files[k], String(WORK_SECONDS), String(seed), out, 'work']);
        if (!t.ok) throw new Error(`${who} failed: ${t.stderr}`);
        const o = JSON.parse(readFileSync(out, 'utf8'));
        const chk = checkPlan(inputs[k], o.routes);
        res[who] = { cost: chk.cost, served: chk.served, violations: chk.violations.length, iterations: o.iterations, wallS: o.wallS, rssMb: t.rssMb, byClock: o.byClock, load: (load0 + loadavg()[0]) / 2 };
        workLoads.push(res[who].load);
        log(`work: instance ${k} seed ${seed} ${who}: cost ${chk.cost} (solver ${o.solverCost}) served ${chk.served} violations ${chk.violations.length} it ${o.iterations} wall ${o.wallS.toFixed(1)} s${o.byClock ? ' STOPPED BY THE CLOCK' : ''}`);
      }
      workRatios.push(res.this.cost / res.prev.cost);
      workRows.push([k + 1, seed, res.this.cost, res.prev.cost, (res.this.cost / res.prev.cost).toFixed(4),
        `${res.this.served} / ${res.prev.served}`, `${res.this.violations} / ${res.prev.violations}`, `${res.this.iterations} / ${res.prev.iterations}`,
        `${res.this.wallS.toFixed(0)} / ${res.prev.wallS.toFixed(0)}${res.this.byClock || res.prev.byClock ? ' (clock)' : ''}`, `${res.this.rssMb.toFixed(0)} / ${res.prev.rssMb.toFixed(0)}`]);
    }
  }

  // 4. benchmark instances defined vehicles first: both solvers, same seed and work budget
  const ghRows: (string | number)[][] = [];
  const ghDir = sharedData('vrp/homberger');
  if (PARTS.has('gh') && GH_SECONDS > 0 && ghDir) {
    const names = values.gh!.split(',').filter(Boolean);
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      const res: Record<string, any> = {};
      const order = i % 2 === 0 ? ['this', 'prev'] : ['prev', 'this'];
      for (const who of order) {
        const out = join(WORK, `gh-${name}-${who}.json`);
        const load0 = loadavg()[0];
        const t = timed(process.execPath, ['--import', 'tsx', THIS, '--child-gh', who === 'this' ? TREE : PREV, join(ghDir, `${name}.txt`), String(GH_SECONDS), '1', out]);
        if (!t.ok) throw new Error(`${who} on ${name} failed: ${t.stderr}`);
        res[who] = { ...JSON.parse(readFileSync(out, 'utf8')), rssMb: t.rssMb, load: (load0 + loadavg()[0]) / 2 };
        log(`${name} ${who}: ${JSON.stringify(res[who])}`);
      }
      const { readInstance } = await import('../src/cli/commands/solve.js');
      const inst = readInstance(join(ghDir, `${name}.txt`));
      const ph = { this: await rule(TREE, inst.input, { work: GH_SECONDS * 1000 * WORK_PER_MS }), prev: await rule(PREV, inst.input, { work: GH_SECONDS * 1000 * WORK_PER_MS }) };
      for (const who of ['this', 'prev']) {
        const r = res[who];
        ghRows.push([name, who === 'this' ? 'this tree' : `previous (${prevCommit})`, ph[who as 'this' | 'prev'], r.distance.toFixed(2), r.vehicles, (100 * (r.distance - GH_BKS[name]) / GH_BKS[name]).toFixed(2), r.iterations, r.wallS.toFixed(0), r.rssMb.toFixed(0), r.valid && r.served ? 'ok' : 'FAIL', r.load.toFixed(1)]);
      }
    }
  }
  // Solomon and the other G&H files: the rule of each solver at a long budget (300 s of work)
  const ruleRows: string[] = [];
  const vrpDir = sharedData('vrp');
  if (PARTS.has('gh') && vrpDir) {
    const { readInstance } = await import('../src/cli/commands/solve.js');
    let same = 0, total = 0;
    const diff: string[] = [];
    for (const sub of ['solomon', 'homberger']) {
      for (const f of readdirSync(join(vrpDir, sub)).filter((x) => x.endsWith('.txt') && !x.includes('bks')).sort()) {
        const inst = readInstance(join(vrpDir, sub, f));
        const a = await rule(TREE, inst.input, { work: 300_000 * WORK_PER_MS }), b = await rule(PREV, inst.input, { work: 300_000 * WORK_PER_MS });
        total++;
        if (a === b) same++; else diff.push(`${f}: ${b} → ${a}`);
      }
    }
    ruleRows.push(`Fleet phase at 300 s of work on the ${total} Solomon and G&H files in shared/data/vrp: the same in both solvers on ${same}${diff.length ? `; differs on ${diff.join(', ')}` : ''} (Solomon and G&H 200 are under 1,000 jobs: off in both).`);
  }

  // 5. the tables
  const name = (s: Run['solver']): string => (s === 'this' ? 'this tree' : s === 'prev' ? `previous (${prevCommit})` : 'VROOM');
  const perRun = table(
    ['instance', 'round', 'solver', 'cost (s of travel)', 'served', 'violations', 'iterations', 'wall s', 'iterations/s', 'peak RSS MB', 'load avg'],
    runs.map((r) => [r.instance + 1, r.round + 1, name(r.solver), r.cost, `${r.served}/${inputs[r.instance].stops.length}`, r.violations, Number.isNaN(r.iterations) ? '–' : r.iterations, r.wallS.toFixed(1), Number.isNaN(r.iterations) ? '–' : Math.round(r.iterations / r.wallS), r.rssMb.toFixed(0), r.load.toFixed(1)]),
  );
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  const summary: (string | number)[][] = [];
  for (let k = 0; k < INSTANCES; k++) {
    const of = (s: Run['solver'], round: number): Run | undefined => runs.find((r) => r.instance === k && r.round === round && r.solver === s);
    const ratio = (a: Run['solver'], b: Run['solver']): string => {
      const xs: number[] = [];
      for (let round = 0; round < ROUNDS; round++) { const x = of(a, round), y = of(b, round); if (x && y) xs.push(x.cost / y.cost); }
      return xs.length ? `${mean(xs).toFixed(3)} (${xs.map((x) => x.toFixed(3)).join(', ')})` : '–';
    };
    const ips = (s: Run['solver']): string => { const xs = runs.filter((r) => r.instance === k && r.solver === s).map((r) => r.iterations / r.wallS); return xs.length ? Math.round(mean(xs)).toString() : '–'; };
    const rss = (s: Run['solver']): string => { const xs = runs.filter((r) => r.instance === k && r.solver === s).map((r) => r.rssMb); return xs.length ? mean(xs).toFixed(0) : '–'; };
    summary.push([k + 1, ratio('this', 'prev'), vroomBin ? ratio('this', 'vroom') : '–', vroomBin ? ratio('prev', 'vroom') : '–', `${ips('this')} / ${ips('prev')}`, `${rss('this')} / ${rss('prev')}${vroomBin ? ` / ${rss('vroom')}` : ''}`]);
  }
  const loads = runs.map((r) => r.load);
  const range = (xs: number[]): string => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`;
  const blocks = blocksInReadme();
  const stamp = `${new Date().toISOString().slice(0, 10)}, this tree against ${prevCommit}`;
  if (PARTS.has('time')) blocks.set('time', [
    `**Equal wall time** (${stamp}). \`node --import tsx bench/roads-ab.ts --seconds ${SECONDS} --rounds ${ROUNDS} --instances ${INSTANCES}\`: ${INSTANCES} Porto instances of ${STOPS} stops and ${VEHICLES} vehicles (bench/lib/porto-spec.ts, seeds 2026…; the Dispatch operation's solver input, travel time minimised, capacities, 30 % of stops with a 2-hour window, shifts), ${ROUNDS} rounds, in one run, the solvers' order rotated every round and instance. Ours: \`solve\` on 2 threads with a wall-clock limit of ${SECONDS} s (the previous commit's imported from a git worktree of ${prevCommit}); ${vroomBin ? `VROOM ${vroomVersion} (built from its public source, outside the repository), the same rounded matrix as a custom \`durations\` matrix, \`-t 2 -x 5 -l ${SECONDS}\` (its limit bounds its search, not its start: see its wall seconds)` : 'VROOM: no binary given (--vroom), not run'}. Cost = travel time in seconds on that matrix, recomputed here from each plan with its checks (capacity, windows on the start of service, shifts). Peak RSS of each process (\`/usr/bin/time\`). 1-min load average over the runs ${range(loads)} (2 cores, shared with other work).`,
    '',
    `Fleet minimisation at this wall time on these inputs: this tree ${phases.this}, previous ${phases.prev} (share of the budget; the rule is in docs/vrp.md, "Fleet minimisation").`,
    '',
    table(['instance', 'this / previous (per round)', 'this / VROOM', 'previous / VROOM', 'iterations/s this / previous', 'peak RSS MB this / previous' + (vroomBin ? ' / VROOM' : '')], summary),
    '',
    perRun,
  ].join('\n'));
  if (PARTS.has('work')) blocks.set('work', [
    `**Equal work** (${stamp}). \`--work-seconds ${WORK_SECONDS} --work-seeds ${WORK_SEEDS.join(',')}\`: the same instances, this tree and the previous one with ${WORK_SECONDS} s of calibrated work per search (deterministic, as bench/homberger.ts: the plan for a seed does not depend on the load; the wall clock only a safety net at 10×), 2 threads, alternating. Fleet minimisation: this tree ${workPhases!.this}, previous ${workPhases!.prev}. Mean cost ratio this / previous ${(workRatios.reduce((a, b) => a + b, 0) / workRatios.length).toFixed(4)} over ${workRatios.length} pairs (${workRatios.filter((r) => r < 1).length} cheaper, ${workRatios.filter((r) => r > 1).length} costlier). 1-min load average ${range(workLoads)}.`,
    '',
    table(['instance', 'seed', 'cost this', 'cost previous', 'this / previous', 'served', 'violations', 'iterations', 'wall s', 'peak RSS MB'], workRows),
  ].join('\n'));
  if (PARTS.has('gh')) blocks.set('gh', [
    ...(ghRows.length ? [`**Benchmark instances defined vehicles first** (${stamp}): both solvers at the same seed (1) and work budget (${GH_SECONDS} s of calibrated work, deterministic: the same plan whatever the load), 2 threads; gap to the distance-only BKS:`, '', table(['instance', 'solver', 'fleet phase', 'distance', 'vehicles', 'gap %', 'iterations', 'wall s', 'peak RSS MB', 'checker', 'load avg'], ghRows)] : ['_G&H data not available: not run._']),
    ...(ruleRows.length ? ['', ...ruleRows] : []),
  ].join('\n'));
  const body = ['time', 'work', 'gh'].filter((p) => blocks.has(p)).map((p) => `<!-- part:${p} -->\n${blocks.get(p)}\n<!-- /part:${p} -->`).join('\n\n');
  writeSection('roads-ab', TITLE, body);
  log('written to bench/README.md (section roads-ab)');
}

await main();
