/**
 * Executor tasks of the dispatch solver, so that a caller's thread stays free on large problems:
 * - `vrp-build`: builds the internal {@link Problem} from a {@link VrpInput} (matrices, neighbour
 *   data) and returns it in transfer form;
 * - `vrp-search`: one independent search. The problem arrives as a plain record whose matrices
 *   live on SharedArrayBuffers (not copied); `control` is a SharedArrayBuffer: [0] cancel flag
 *   (Int32), then per search (Float64 ×3, from byte 8): work or iterations done, iterations,
 *   best cost — read by the caller for progress reports;
 * - `vrp-assemble`: turns the best search's routes into the reported {@link Solution}.
 */
import type { TaskEnv, TaskTypes } from '../core/executor.js';
import { buildProblem, Problem, type VrpInput } from './model.js';
import { assemble, runSearch, type SearchTaskResult, type SearchTaskSpec } from './solve.js';
import type { Solution, SolveStats } from './solution.js';

export interface VrpSearchTask {
  problem: Record<string, unknown>;
  spec: SearchTaskSpec;
  control: SharedArrayBuffer;
  index: number;
}

export interface VrpAssembleTask {
  problem: Record<string, unknown>;
  routes: Int32Array[];
  stats: SolveStats;
}

declare module '../core/executor.js' {
  interface TaskMap {
    'vrp-build': TaskTypes<VrpInput, Record<string, unknown>>;
    'vrp-search': TaskTypes<VrpSearchTask, SearchTaskResult>;
    'vrp-assemble': TaskTypes<VrpAssembleTask, Solution>;
  }
}

export function vrpBuildTask(input: VrpInput, env: TaskEnv): Record<string, unknown> {
  return buildProblem(input, env.signal ? { signal: env.signal } : {}).toTransfer();
}

export function vrpAssembleTask(t: VrpAssembleTask): Solution {
  return assemble(Problem.fromTransfer(t.problem), t.routes, t.stats);
}

/** A search hands its thread back this often (ms), so that other tasks sharing it get their turn (workers/pool.ts); results do not depend on it. */
const SEARCH_SLICE_MS = 10;

export async function vrpSearchTask(task: VrpSearchTask, env: TaskEnv): Promise<SearchTaskResult> {
  const pb = Problem.fromTransfer(task.problem);
  const flag = new Int32Array(task.control, 0, 1);
  const stats = new Float64Array(task.control, 8, (task.control.byteLength - 8) / 8);
  const i = task.index;
  const byIt = task.spec.budget.iterations !== undefined;
  return runSearch(pb, task.spec, () => Atomics.load(flag, 0) === 1 || env.signal?.aborted === true, (s) => {
    stats[3 * i] = byIt ? s.iterations : s.st.ev.work;
    stats[3 * i + 1] = s.iterations;
    stats[3 * i + 2] = s.bestCost;
  }, SEARCH_SLICE_MS);
}
