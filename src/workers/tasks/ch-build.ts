/** Worker task: build a contraction hierarchy and send it back as one moved buffer of sections. */
import type { MessagePort } from 'node:worker_threads';
import { BinWriter } from '../../core/binfile.js';
import { buildContractionHierarchy } from '../../ch/index.js';

export interface ChBuildTask {
  kind: 'ch-build';
  numNodes: number;
  tail: Uint32Array;
  head: Uint32Array;
  weight: Uint32Array;
  aux?: Uint32Array;
  /** Receives ProgressEvents. */
  port?: MessagePort;
  phase?: string;
}

export default function chBuild(task: ChBuildTask): { buffer: ArrayBuffer } {
  const ch = buildContractionHierarchy(
    { numNodes: task.numNodes, tail: task.tail, head: task.head, weight: task.weight, aux: task.aux },
    { onProgress: task.port ? (e) => task.port!.postMessage({ ...e, phase: task.phase ?? e.phase }) : undefined },
  );
  task.port?.close();
  const w = new BinWriter(0, 0);
  ch.toSections(w, '');
  return { buffer: w.toBuffer(false) as ArrayBuffer };
}
