/**
 * Executor task `ch-build`: contracts one hierarchy and returns it as one buffer of sections
 * (moved back, not copied). Used to build a dataset's two hierarchies side by side.
 */
import { BinWriter } from '../core/binfile.js';
import type { TaskEnv, TaskTypes } from '../core/executor.js';
import { buildContractionHierarchy } from './build.js';

export interface ChBuildPayload {
  numNodes: number;
  tail: Uint32Array;
  head: Uint32Array;
  weight: Uint32Array;
  aux?: Uint32Array;
  /** Phase name given to the progress events. */
  phase?: string;
}

declare module '../core/executor.js' {
  interface TaskMap {
    'ch-build': TaskTypes<ChBuildPayload, { buffer: ArrayBuffer }>;
  }
}

export function chBuildTask(p: ChBuildPayload, env: TaskEnv): { buffer: ArrayBuffer } {
  const ch = buildContractionHierarchy(
    { numNodes: p.numNodes, tail: p.tail, head: p.head, weight: p.weight, aux: p.aux },
    { onProgress: (e) => env.progress(p.phase ? { ...e, phase: p.phase } : e) },
  );
  const w = new BinWriter(0, 0);
  ch.toSections(w, '');
  return { buffer: w.toBuffer(false) as ArrayBuffer };
}
