/**
 * Worker task `matrix`: one row tile of a distance matrix. The CH is opened from the shared
 * dataset buffer (zero-copy) and cached per buffer and prefix, with one kernel per worker. The
 * targets' selection comes pinned with the task (or is pinned here); the kernel keeps it for
 * the following tiles of the same matrix.
 */
import { BinFile } from '../../core/binfile.js';
import { EngineError } from '../../core/errors.js';
import { ContractionHierarchy } from '../../ch/hierarchy.js';
import { createMatrixKernel, type MatrixKernel, type MatrixTask, type MatrixTaskResult } from '../../matrix/compute.js';
import { SweepManyToMany } from '../../matrix/sweep.js';

interface Cached {
  buffer: ArrayBufferLike;
  kernels: Partial<Record<MatrixTask['kernel'], MatrixKernel>>;
  ch: ContractionHierarchy;
  targetsKey: string | null;
}

const cache = new Map<string, Cached>();

export default function matrix(task: MatrixTask, shared: Record<string, unknown>): MatrixTaskResult {
  const buffer = shared[task.datasetKey] as ArrayBufferLike | undefined;
  if (!buffer) throw new EngineError('Internal', `Worker has no shared "${task.datasetKey}" buffer.`);
  let c = cache.get(task.prefix);
  if (!c || c.buffer !== buffer) {
    const ch = ContractionHierarchy.fromSections(BinFile.from(buffer), task.prefix);
    c = { buffer, kernels: {}, ch, targetsKey: null };
    cache.set(task.prefix, c);
  }
  const kernel = (c.kernels[task.kernel] ??= createMatrixKernel(c.ch, task.kernel));
  const S = task.sources.count;
  const T = task.targets.count;
  const out = { cost: new Uint32Array(S * T), aux: task.withAux ? new Uint32Array(S * T) : null };
  if (kernel instanceof SweepManyToMany) {
    const key = `${task.targetsKey}:${task.withAux ? 1 : 0}`;
    if (c.targetsKey !== key || kernel.pinnedTargets === null) {
      if (task.pinned) kernel.importPin(task.targets, task.pinned);
      else kernel.pinTargets(task.targets, task.withAux);
      c.targetsKey = key;
    }
    kernel.runPinned(task.sources, out);
  } else {
    kernel.run(task.sources, task.targets, out);
  }
  return out;
}
