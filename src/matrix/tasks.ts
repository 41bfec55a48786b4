/**
 * Executor tasks of the matrix kernel. The CH is opened from the shared dataset buffer
 * (zero-copy) and cached per thread, buffer and prefix, with one kernel per thread.
 * - `matrix-pin`: pins a target list (sweep kernel) and returns the selection, so that the
 *   calling thread stays free while it is computed; the thread keeps it for the tiles that follow.
 * - `matrix-tile`: one band of source rows × all targets. The targets' selection comes with the
 *   task (or is pinned here) and is kept for the following tiles of the same matrix.
 */
import { BinFile } from '../core/binfile.js';
import { EngineError } from '../core/errors.js';
import type { TaskEnv, TaskTypes } from '../core/executor.js';
import { ContractionHierarchy } from '../ch/hierarchy.js';
import type { EndpointEntries } from './endpoints.js';
import { BucketManyToMany } from './bucket.js';
import { SweepManyToMany, type PinnedSelection } from './sweep.js';

export type MatrixKernelKind = 'sweep' | 'bucket';
/** A many-to-many kernel of either kind. */
export type MatrixKernel = SweepManyToMany | BucketManyToMany;

export function createMatrixKernel(ch: ContractionHierarchy, kind: MatrixKernelKind = 'sweep'): MatrixKernel {
  return kind === 'bucket' ? new BucketManyToMany(ch) : new SweepManyToMany(ch);
}

/** Where a task finds its hierarchy: `env.shared[datasetKey]`, sections under `prefix`. */
export interface MatrixSource {
  datasetKey: string;
  prefix: string;
}

export interface MatrixPinTask extends MatrixSource {
  /** Identifies the target list across the tiles of one matrix (lets threads keep it pinned). */
  targetsKey: string;
  targets: EndpointEntries;
  withAux: boolean;
}

/** The payload of one `matrix-tile` task. */
export interface MatrixTask extends MatrixSource {
  targetsKey: string;
  sources: EndpointEntries;
  targets: EndpointEntries;
  withAux: boolean;
  kernel: MatrixKernelKind;
  /** The targets' selection, pinned once (sweep kernel). */
  pinned?: PinnedSelection;
}

export interface MatrixTaskResult {
  cost: Uint32Array;
  aux: Uint32Array | null;
}

declare module '../core/executor.js' {
  interface TaskMap {
    'matrix-pin': TaskTypes<MatrixPinTask, PinnedSelection>;
    'matrix-tile': TaskTypes<MatrixTask, MatrixTaskResult>;
  }
}

interface Cached {
  buffer: unknown;
  kernels: Partial<Record<MatrixKernelKind, MatrixKernel>>;
  ch: ContractionHierarchy;
  targetsKey: string | null;
}

const cache = new Map<string, Cached>();

function opened(src: MatrixSource, env: TaskEnv): Cached {
  const buffer = env.shared[src.datasetKey] as ArrayBufferLike | undefined;
  if (!buffer) throw new EngineError('Internal', `The executor shares no "${src.datasetKey}" buffer.`);
  let c = cache.get(src.prefix);
  if (!c || c.buffer !== buffer) {
    const ch = ContractionHierarchy.fromSections(BinFile.from(buffer), src.prefix);
    c = { buffer, kernels: {}, ch, targetsKey: null };
    cache.set(src.prefix, c);
  }
  return c;
}

function sweepKernel(c: Cached): SweepManyToMany {
  return (c.kernels.sweep ??= new SweepManyToMany(c.ch)) as SweepManyToMany;
}

export function matrixPinTask(t: MatrixPinTask, env: TaskEnv): PinnedSelection {
  const c = opened(t, env);
  const k = sweepKernel(c);
  k.pinTargets(t.targets, t.withAux);
  c.targetsKey = `${t.targetsKey}:${t.withAux ? 1 : 0}`;
  return k.exportPin();
}

export function matrixTileTask(t: MatrixTask, env: TaskEnv): MatrixTaskResult {
  const c = opened(t, env);
  const kernel = (c.kernels[t.kernel] ??= createMatrixKernel(c.ch, t.kernel));
  const S = t.sources.count;
  const T = t.targets.count;
  const out = { cost: new Uint32Array(S * T), aux: t.withAux ? new Uint32Array(S * T) : null };
  if (kernel instanceof SweepManyToMany) {
    const key = `${t.targetsKey}:${t.withAux ? 1 : 0}`;
    if (c.targetsKey !== key || kernel.pinnedTargets === null) {
      if (t.pinned) kernel.importPin(t.targets, t.pinned);
      else kernel.pinTargets(t.targets, t.withAux);
      c.targetsKey = key;
    }
    kernel.runPinned(t.sources, out);
  } else {
    kernel.run(t.sources, t.targets, out);
  }
  return out;
}
