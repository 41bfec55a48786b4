/**
 * Dispatch at scale: 10,000 stops and 100 vehicles on the Porto dataset (weights, 30 % closed
 * windows, 4 depots; bench/lib/porto-spec.ts), in Optima and in MultipleRegion, through the whole
 * operation (`engine.dispatch`: snapping, the 10,000 × 10,000 travel matrix, the solver, records).
 * Measures when the first complete plan exists (the first progress event carrying a cost), the
 * total wall time, the peak RSS, and re-checks the result records independently. One fresh
 * process per case, so that each peak RSS is its own.
 *
 *   node --import tsx bench/dispatch-scale.ts [--quick]     # writes the `dispatch-scale` section of bench/README.md
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Engine } from '../src/engine.js';
import { workerEntry } from '../src/workers/pool.js';
import { sharedData, table, writeSection } from './lib/report.js';
import { checkPortoResult, makePortoSpec, type PortoCase } from './lib/porto-spec.js';

const DATASET = fileURLToPath(new URL('out/porto.dkds', import.meta.url));
const STOPS = 10_000;
const VEHICLES = 100;
/** The whole operation's budget: the solver's time limit counts from the start of the request (matrix included). */
const LIMIT_S = 115;
const MODES = ['Optima', 'MultipleRegion'] as const;

if (process.argv[2] === '--child') {
  const mode = process.argv[3];
  const limitS = Number(process.argv[4]);
  const engine = await Engine.open(DATASET, { threads: 2 });
  const c: PortoCase = { name: `${STOPS}`, stops: Number(process.argv[5] ?? STOPS), vehicles: Number(process.argv[6] ?? VEHICLES), timeLimitS: limitS, waitS: 120 };
  const spec = { ...makePortoSpec(engine, c, 2026), DispatchMode: mode };
  const t0 = performance.now();
  let matrixS = 0, firstS = 0;
  const r = await engine.dispatch(spec, {
    seed: 1,
    timeLimitMs: limitS * 1000,
    onProgress: (e) => {
      const now = (performance.now() - t0) / 1000;
      if (e.phase === 'matrix' && e.done >= e.total && matrixS === 0) matrixS = now;
      const best = (e.info as { bestCost?: number } | undefined)?.bestCost;
      if (e.phase === 'dispatch' && firstS === 0 && typeof best === 'number' && Number.isFinite(best)) firstS = now;
    },
  });
  const wallS = (performance.now() - t0) / 1000;
  const problems = checkPortoResult(spec, r);
  let km = 0, served = 0, used = 0;
  for (const it of r.Items ?? []) {
    used++;
    for (const l of it.Locations ?? []) { km += l.Distance; if (!String(l.Name).startsWith('Depot')) served++; }
  }
  await engine.close();
  process.stdout.write(JSON.stringify({ status: r.Status, wallS, matrixS, firstS, km, used, served, errors: (r.Errors ?? []).length, problems: problems.slice(0, 5), problemCount: problems.length, maxRssMb: process.resourceUsage().maxRSS / 1024 }) + '\n');
  process.exit(0);
}

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const quick = argv.includes('--quick');
/** A worktree of the previous commit: each case runs there too, alternating, for a same-run ratio. */
const prev = opt('--prev');
/** Also this tree with its worker threads on the sources through tsx (DK_WORKERS=ts). */
const tsToo = argv.includes('--ts-too');
const modes = (opt('--modes')?.split(',') ?? [...MODES]) as (typeof MODES)[number][];
if (!existsSync(DATASET)) {
  const pbf = sharedData('osm/porto_portugal.osm.pbf');
  if (!pbf) {
    writeSection('dispatch-scale', 'Dispatch at scale: 10,000 stops (`bench/dispatch-scale.ts`)', '_The Porto extract (../shared/data/osm/porto_portugal.osm.pbf) is not available here; nothing was measured._');
    process.exit(0);
  }
  execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../src/cli/main.ts', import.meta.url)), 'build', pbf, '-o', DATASET, '--quiet'], { stdio: 'inherit' });
}
interface ChildOut { status: string; wallS: number; matrixS: number; firstS: number; km: number; used: number; served: number; problems: string[]; problemCount: number; maxRssMb: number }
function runChild(tree: string | null, args: string[], env: Record<string, string> = {}): ChildOut {
  const script = tree ? `${tree}/bench/dispatch-scale.ts` : fileURLToPath(import.meta.url);
  const out = execFileSync(process.execPath, ['--max-old-space-size=8192', '--import', 'tsx', script, '--child', ...args], { encoding: 'utf8', maxBuffer: 1 << 26, cwd: tree ?? undefined, env: { ...process.env, ...env } });
  return JSON.parse(out.trim().split('\n').pop()!) as ChildOut;
}
const rows: (string | number)[][] = [];
const loads: number[] = [];
for (const mode of modes) {
  const args = quick ? [mode, '30', '2000', '20'] : [mode, String(LIMIT_S)];
  const stops = quick ? 2000 : STOPS, vehicles = quick ? 20 : VEHICLES;
  const trees: [string, string | null, Record<string, string>][] = [[`this tree (workers: ${workerEntry().built ? 'built' : 'tsx'})`, null, {}]];
  // the worker threads as the previous commit ran them under tsx (its pool has no choice), to tell the two changes apart
  if (tsToo) trees.push(['this tree (workers: tsx)', null, { DK_WORKERS: 'ts' }]);
  if (prev) trees.push(['previous commit', prev, {}]);
  const got = new Map<string, ChildOut>();
  for (const [label, tree, env] of trees) {
    process.stderr.write(`${mode} (${label}) …\n`);
    const r = runChild(tree, args, env);
    loads.push(loadavg()[0]);
    process.stderr.write(JSON.stringify(r) + '\n');
    got.set(label, r);
    rows.push([mode, label, `${stops.toLocaleString('en')} / ${vehicles}`, `${r.matrixS.toFixed(1)} s`, `**${r.firstS.toFixed(1)} s**`, `**${r.wallS.toFixed(1)} s**`, r.status, `${r.served} / ${stops}`, `${r.used} / ${vehicles}`, r.km.toFixed(0),
      r.problemCount === 0 ? 'ok' : `${r.problemCount}: ${r.problems.join('; ')}`, `**${(r.maxRssMb / 1024).toFixed(2)} GB**`, loadavg()[0].toFixed(1)]);
  }
  const a = got.get(trees[0][0])!, b = got.get('previous commit');
  if (b) rows.push([mode, 'ratio this / previous', '', (a.matrixS / b.matrixS).toFixed(2), (a.firstS / b.firstS).toFixed(2), (a.wallS / b.wallS).toFixed(2), '', '', '', (a.km / b.km).toFixed(3), '', (a.maxRssMb / b.maxRssMb).toFixed(2), '']);
}
writeSection('dispatch-scale', 'Dispatch at scale: 10,000 stops (`bench/dispatch-scale.ts`)', [
  `\`node --import tsx bench/dispatch-scale.ts${quick ? ' --quick' : ''}${prev ? ' --prev <worktree of the previous commit>' : ''}${tsToo ? ' --ts-too' : ''}${opt('--modes') ? ` --modes ${opt('--modes')}` : ''}\`${quick ? ' (2,000 stops, 30 s)' : ''}. The stops and vehicles of bench/dispatch-roads.ts (Porto, weights 1–10, 30 % closed`,
  '2-hour windows, 4 depots, capacity 1.25× the mean demand), 120 s service each, RouteOptimize MinimizeTime; `engine.dispatch` end to end on 2 threads with a',
  `time limit of ${quick ? 30 : LIMIT_S} s counted from the request (snapping and the full travel matrix included). "first plan" = the first progress event`,
  'with a complete plan\'s cost; "check" re-validates the result records independently; peak RSS = the process\'s maxRSS (worker threads included). One fresh process per case;',
  'with `--prev`, each case also runs in a worktree of the previous commit right after (same run); with `--ts-too`, this tree also with its worker threads',
  'on the sources through tsx (`DK_WORKERS=ts`, as every earlier figure ran them: src/workers/pool.ts `workerEntry`).',
  '',
  table(['mode', 'tree', 'stops / vehicles', 'matrix', 'first plan', 'total wall', 'status', 'served', 'vehicles used', 'km', 'check', 'peak RSS', 'load'], rows),
  '',
  'MultipleRegion solves in phases (regions, then the rest) and keeps the matrix with distances; Optima holds times alone (docs/vrp.md, "Times alone").',
  '',
  'Targets: issue #10 — first feasible plan ≤ 30 s, final ≤ 2 min, peak RSS ≤ 6 GB, matrix included, every record check clean; issue #26 item 4 — 10,000 stops: first plan ≤ 15 s, peak RSS ≤ 1 GB.',
].join('\n'));
