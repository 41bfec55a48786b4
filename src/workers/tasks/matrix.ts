/**
 * Worker task `matrix`: one row tile of a distance matrix. The CH is opened from the shared
 * dataset buffer (zero-copy) and cached per buffer and prefix, with one kernel per worker; the
 * kernel keeps the last pinned target list, so the tiles of one matrix pin it once per worker.
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
      kernel.pinTargets(task.targets, task.withAux);
      c.targetsKey = key;
    }
    kernel.runPinned(task.sources, out);
  } else {
    kernel.run(task.sources, task.targets, out);
  }
  return out;
}
