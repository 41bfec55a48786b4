/**
 * EvaluatePlan at the dispatcher's page's scale (issue #25: ≤ 100 ms server-side for a 300-stop
 * plan). A 300-stop, 10-van Porto dispatch (bench/lib/porto-spec.ts) is solved once; then its plan
 * is evaluated: first on a specification the engine has not seen (placement and the travel matrix
 * included: what the first check of a day's plan costs), then after each of 200 random moves of a
 * stop to another van or place (what a drag costs: the model is kept). Each through the engine's
 * operation, as the service's handler calls it. The dispatch of the same specification is timed in
 * the same run for scale.
 *
 *   node --import tsx bench/evaluate.ts          # writes the `evaluate` section of bench/README.md
 *
 * Needs bench/out/porto.dkds (see bench/directions.ts).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Rng } from '../src/core/rng.js';
import { Engine } from '../src/engine.js';
import type { DispatchResult } from '../src/records/index.js';
import { makePortoSpec } from './lib/porto-spec.js';
import { median, percentile, table, writeSection } from './lib/report.js';

const DATASET = fileURLToPath(new URL('out/porto.dkds', import.meta.url));
if (!existsSync(DATASET)) {
  console.log(`bench/evaluate: ${DATASET} is missing (build it: see bench/directions.ts); skipped.`);
  process.exit(0);
}
const engine = await Engine.open(DATASET, { threads: 2 });
const rows: (string | number)[][] = [];
for (const [stops, vehicles] of [[150, 5], [300, 10]] as const) {
  const cold: number[] = [];
  const warm: number[] = [];
  const dispatchMs: number[] = [];
  let feasibleMoves = 0, moves = 0;
  for (const seed of [1, 2, 3]) {
    const spec = makePortoSpec(engine, { name: 'p', stops, vehicles, timeLimitS: 0, waitS: 300 }, seed);
    (spec as { MinimumOptimization?: number }).MinimumOptimization = 1;
    let t = performance.now();
    const solved = await engine.dispatch(spec, { seed: 1 }) as DispatchResult;
    dispatchMs.push(performance.now() - t);
    const plan = (solved.Items ?? []).map((it) => ({
      Vehicle: it.Vehicle!.Name!, Locations: (it.Locations ?? []).filter((l) => l.LocationType !== 'Start' && l.LocationType !== 'Finish').map((l) => l.Name!),
    }));
    t = performance.now();
    const first = await engine.evaluatePlan({ Specification: spec, Routes: plan });
    cold.push(performance.now() - t);
    if (!first.Feasible) throw new Error(`the solver's plan evaluated infeasible: ${JSON.stringify(first.Violations?.slice(0, 3))}`);
    const rng = new Rng(seed);
    for (let k = 0; k < 200; k++) {
      const from = plan[rng.int(plan.length)];
      if (from.Locations.length === 0) continue;
      const to = plan[rng.int(plan.length)];
      const [name] = from.Locations.splice(rng.int(from.Locations.length), 1);
      to.Locations.splice(rng.int(to.Locations.length + 1), 0, name);
      t = performance.now();
      const r = await engine.evaluatePlan({ Specification: spec, Routes: plan });
      warm.push(performance.now() - t);
      moves++;
      if (r.Feasible) feasibleMoves++;
      if (r.Status === 'Failed') throw new Error(JSON.stringify(r.Errors));
    }
  }
  rows.push([`${stops} stops / ${vehicles} vans`, `${median(dispatchMs).toFixed(0)} ms`, `${median(cold).toFixed(1)} ms`, `${median(warm).toFixed(1)} ms`, `${percentile(warm, 95).toFixed(1)} ms`, `${Math.round((100 * feasibleMoves) / moves)} %`]);
  console.log(rows.at(-1)!.join(' | '));
}
await engine.close();
writeSection('evaluate', 'Plan evaluation (EvaluatePlan, issue #25)', [
  '`node --import tsx bench/evaluate.ts`. Porto (`bench/out/porto.dkds`), bench/lib/porto-spec.ts instances (30 % of stops with a 2-hour window,',
  'capacity 1.25× the mean demand), seeds 1–3. "First check": the solver\'s plan evaluated on a specification the engine has not seen',
  '(placement and travel matrix included). "After a move": 200 random moves per seed (a stop to a random van and place), each',
  'evaluated whole (ETAs, every rule, the closest fit of stops left out) on the kept model. Dispatch at MinimumOptimization 1 for scale.',
  'Target: ≤ 100 ms server-side at 300 stops.',
  '',
  table(['plan', 'dispatch (same spec)', 'first check (median)', 'after a move (median)', 'after a move (p95)', 'moves still feasible'], rows),
].join('\n'));
