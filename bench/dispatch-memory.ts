/**
 * Dispatch memory as users run it (issue #26 item 4): plain `node` on the built package (`npm run
 * build` first), Porto, `Engine.open` with 2 threads, one fresh process per case
 * (bench/lib/memory-child.mjs): the process's RSS before opening, idle with the engine, and its peak
 * (sampled every 20 ms; worker threads included) over a 20-stop dispatch and its warm repeats
 * (median of 7, at the default MinimumOptimization and at 1), and over a 1,000-stop dispatch.
 * With `--prev <worktree>` (its package built there too) each case also runs on the previous commit.
 *
 *   npm run build && node --import tsx bench/dispatch-memory.ts [--prev /tmp/ab-prev]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Engine } from '../src/engine.js';
import { makePortoSpec } from './lib/porto-spec.js';
import { table, writeSection } from './lib/report.js';

const DATASET = fileURLToPath(new URL('out/porto.dkds', import.meta.url));
const HERE_TREE = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const CHILD = fileURLToPath(new URL('lib/memory-child.mjs', import.meta.url));
const argv = process.argv.slice(2);
const prev = argv.includes('--prev') ? argv[argv.indexOf('--prev') + 1] : undefined;
const TITLE = 'Dispatch memory and the warm small dispatch, as users run it (`bench/dispatch-memory.ts`)';

interface Out { status: string; node: number; idle: number; firstMs: number; warm: Record<string, number>; peak: number; maxRss: number }

if (!existsSync(DATASET) || !existsSync(join(HERE_TREE, 'dist/engine.js'))) {
  writeSection('dispatch-memory', TITLE, '_bench/out/porto.dkds or the built package (npm run build) is missing; nothing was measured._');
  process.exit(0);
}
const dir = mkdtempSync(join(tmpdir(), 'dk-mem-'));
const engine = await Engine.open(DATASET, { threads: 1 });
const specs = new Map<number, string>();
for (const stops of [20, 1000]) {
  const f = join(dir, `spec-${stops}.json`);
  writeFileSync(f, JSON.stringify(makePortoSpec(engine, { name: `m${stops}`, stops, vehicles: Math.max(2, Math.round(stops / 50)), timeLimitS: 10, waitS: 120 }, 2026)));
  specs.set(stops, f);
}
await engine.close();
/** A tree's own build of the dataset where it has one (a previous commit may read another format), else this tree's. */
const datasetOf = (tree: string): string => (existsSync(join(tree, 'bench/out/porto.dkds')) ? join(tree, 'bench/out/porto.dkds') : DATASET);
const trees: [string, string][] = [['this tree', HERE_TREE], ...(prev ? [['previous commit', prev] as [string, string]] : [])];
const rows: (string | number)[][] = [];
const mb = (x: number): string => `${x.toFixed(0)} MB`;
for (const stops of [20, 1000]) {
  for (const [label, tree] of trees) {
    const args = [CHILD, tree, datasetOf(tree), specs.get(stops)!, stops >= 1000 ? '10' : '5', ...(stops <= 20 ? ['warm'] : [])];
    const r = JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' }).trim().split('\n').pop()!) as Out;
    process.stderr.write(`${stops} ${label}: ${JSON.stringify(r)}\n`);
    rows.push([`${stops.toLocaleString('en')} stops`, label, r.status, mb(r.node), mb(r.idle), `**${mb(r.peak)}**`, `${(r.firstMs / 1000).toFixed(2)} s`,
      r.warm.default !== undefined ? `**${r.warm.default.toFixed(0)} ms**` : '', r.warm['1'] !== undefined ? `${r.warm['1'].toFixed(0)} ms` : '', loadavg()[0].toFixed(1)]);
  }
}
writeSection('dispatch-memory', TITLE, [
  '`npm run build && node --import tsx bench/dispatch-memory.ts' + (prev ? ' --prev <worktree of the previous commit, built>' : '') + '`: plain `node` on the built package, Porto,',
  '`Engine.open(dataset, { threads: 2 })` (each tree on its own build of Porto, `bench/out/porto.dkds` in the tree, where it has one), the stops of bench/lib/porto-spec.ts (vehicles = stops / 50, at least 2), one fresh process per case.',
  'RSS of the whole process (worker threads included): before opening, idle with the engine, and the peak (sampled every 20 ms) over the first dispatch',
  '(time limit 5 s at 20 stops, 10 s at 1,000) and, at 20 stops, 14 warm repeats; warm = median of 7 at the default MinimumOptimization and at 1.',
  '',
  table(['dispatch', 'tree', 'status', 'node alone', 'idle engine', 'peak', 'first dispatch', 'warm (default)', 'warm (MinimumOptimization 1)', 'load'], rows),
  '',
  'Targets (issue #26 item 4): a 1,000-stop dispatch ≤ 150 MB peak for the whole process; a warm 20-stop dispatch ≤ 100 ms.',
].join('\n'));
