/**
 * One independent dispatch search on a worker thread (task kind `vrp-solve`). The problem
 * arrives as a plain record whose matrices live on SharedArrayBuffers (not copied); `control`
 * is a SharedArrayBuffer: [0] cancel flag (Int32), then per search (Float64 ×3, from byte 8):
 * work or iterations done, iterations, best cost — read by the caller for progress reports.
 */
import { Problem } from '../../vrp/model.js';
import { runSearch, type SearchTaskResult, type SearchTaskSpec } from '../../vrp/solve.js';

export default async function vrpSolve(task: { problem: Record<string, unknown>; spec: SearchTaskSpec; control: SharedArrayBuffer; index: number }): Promise<SearchTaskResult> {
  const pb = Problem.fromTransfer(task.problem);
  const flag = new Int32Array(task.control, 0, 1);
  const stats = new Float64Array(task.control, 8, (task.control.byteLength - 8) / 8);
  const i = task.index;
  const byIt = task.spec.budget.iterations !== undefined;
  return runSearch(pb, task.spec, () => Atomics.load(flag, 0) === 1, (s) => {
    stats[3 * i] = byIt ? s.iterations : s.st.ev.work;
    stats[3 * i + 1] = s.iterations;
    stats[3 * i + 2] = s.bestCost;
  });
}
