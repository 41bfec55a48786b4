/**
 * Distance matrices: memory estimate, in-thread runs for small matrices, row tiles on an
 * executor (worker threads) for large ones, deterministic merge.
 *
 * Tiles are bands of source rows × all targets (see sweep.ts: a row depends only on its source
 * and the whole target list, so any banding gives the same matrix). The executor pins the
 * targets once (a `matrix-pin` task) and the compact selection travels with the tiles; each
 * thread opens the CH from the shared dataset buffer once (cached per buffer and prefix) and
 * adopts the selection (see tasks.ts).
 */
import { EngineError } from '../core/errors.js';
import { cancelledError, throwIfAborted, type LongWorkOptions } from '../core/cancel.js';
import type { ContractionHierarchy } from '../ch/hierarchy.js';
import type { Executor } from '../core/executor.js';
import { sliceEndpoints, validateEndpoints, type EndpointEntries } from './endpoints.js';
import { SweepManyToMany, type PinnedSelection } from './sweep.js';
import { createMatrixKernel, type MatrixKernelKind, type MatrixTask } from './tasks.js';

export { createMatrixKernel, type MatrixKernel, type MatrixKernelKind, type MatrixTask, type MatrixTaskResult } from './tasks.js';

export interface MatrixOptions extends LongWorkOptions {
  /**
   * Runs large matrices as row tiles on this executor when it works off the calling thread (its
   * shared data must hold the dataset buffer with this CH); the targets are then pinned there
   * too, so the calling thread only merges tiles.
   */
  executor?: Executor;
  /** Section prefix of the CH inside the dataset buffer (required with `executor`). */
  prefix?: string;
  /** Key of the dataset buffer in the executor's shared data (default 'dataset'). */
  datasetKey?: string;
  /** Also compute the aux metric per cell (default: when the CH has aux). */
  withAux?: boolean;
  /** Memory bound for the whole computation (default 2 GiB). */
  maxMatrixBytes?: number;
  /** Cell bound (default 2^30, the most a Uint32Array of ≤ 4 GiB can hold). */
  maxCells?: number;
  /** Matrices of at most this many cells run in the calling thread (default 250,000). */
  inThreadMaxCells?: number;
  /** Cells per executor tile (default 2^21). */
  tileCells?: number;
  /** Kernel (default 'sweep'; 'bucket' is kept as a cross-check). */
  kernel?: MatrixKernelKind;
  /** Caller-provided output arrays (row-major, |sources|·|targets| cells; `aux` needed when aux is computed). */
  out?: { cost: Uint32Array; aux?: Uint32Array | null };
}

export interface MatrixResult {
  numSources: number;
  numTargets: number;
  /** Row-major costs; 0xFFFFFFFF = unreachable. */
  cost: Uint32Array;
  /** Row-major aux of the chosen paths (null unless requested / available). */
  aux: Uint32Array | null;
  /** Tiles run on the executor (0 = computed in the calling thread). */
  tiles: number;
}

export interface MatrixMemoryEstimate {
  cells: number;
  bytes: number;
  outputBytes: number;
  tileBytes: number;
  kernelBytes: number;
}

const GiB = 2 ** 30;
export const DEFAULT_MAX_MATRIX_BYTES = 2 * GiB;
const HARD_MAX_CELLS = 2 ** 30;

/** Up-front memory estimate (bytes) of a matrix computation. */
export function estimateMatrixMemory(ch: ContractionHierarchy, numSources: number, numTargets: number, opts: MatrixOptions = {}): MatrixMemoryEstimate {
  const cells = numSources * numTargets;
  const withAux = opts.withAux ?? ch.hasAux;
  const perCell = withAux ? 8 : 4;
  const outputBytes = cells * perCell;
  const threads = usesExecutor(cells, numSources, opts) ? opts.executor!.threads : 0;
  // In flight on the main thread: up to 2 tiles per thread, each moved back whole before merging.
  const rowsPerTile = threads > 0 ? tileRows(numSources, numTargets, threads, opts.tileCells) : 0;
  const tileBytes = threads > 0 ? Math.min(numSources, 2 * threads * rowsPerTile) * numTargets * perCell : 0;
  const kernelBytes = searchScratchBytes(ch.numNodes, numTargets, withAux, threads);
  return { cells, bytes: outputBytes + tileBytes + kernelBytes, outputBytes, tileBytes, kernelBytes };
}

/**
 * The search scratch of a matrix computation over a hierarchy of `numNodes` nodes: per kernel,
 * O(n) scratch plus the pinned selection (bounded by n) and its tables; one kernel per worker
 * `threads`, plus the calling thread's (it pins the targets for the workers). Exposed so that
 * callers can estimate a matrix before they have its endpoints (ops/limits.ts).
 */
export function searchScratchBytes(numNodes: number, numTargets: number, withAux: boolean, threads: number): number {
  const n = numNodes;
  const log2 = Math.ceil(Math.log2(n + 2));
  const selection = Math.min(n, numTargets * 40 * log2);
  const kernelOne = n * 48 + selection * (32 * (withAux ? 16 : 8) + 48);
  return kernelOne * (threads + 1);
}

/** Matrices of at most this many cells run in the calling thread by default (see {@link MatrixOptions.inThreadMaxCells}). */
export const IN_THREAD_MAX_CELLS = 250_000;

function fmtBytes(b: number): string {
  if (b >= GiB) return `${(b / GiB).toFixed(1)} GiB`;
  if (b >= 2 ** 20) return `${(b / 2 ** 20).toFixed(1)} MiB`;
  return `${Math.ceil(b / 1024)} KiB`;
}

/** Throws `TooBig` when the matrix would exceed the configured bounds. */
export function checkMatrixSize(ch: ContractionHierarchy, numSources: number, numTargets: number, opts: MatrixOptions = {}): MatrixMemoryEstimate {
  const est = estimateMatrixMemory(ch, numSources, numTargets, opts);
  const limit = opts.maxMatrixBytes ?? DEFAULT_MAX_MATRIX_BYTES;
  const maxCells = Math.min(opts.maxCells ?? HARD_MAX_CELLS, HARD_MAX_CELLS);
  const dims = `${numSources}×${numTargets}`;
  if (est.cells > maxCells) {
    throw new EngineError('TooBig', `A ${dims} distance matrix has ${est.cells.toLocaleString('en-US')} cells; the limit is ${maxCells.toLocaleString('en-US')} cells${maxCells === HARD_MAX_CELLS ? ' (one typed array of at most 4 GiB)' : ' (maxCells)'}. Split the request.`, {
      details: { cells: est.cells, maxCells },
    });
  }
  if (est.bytes > limit) {
    throw new EngineError('TooBig', `A ${dims} distance matrix would need about ${fmtBytes(est.bytes)} (output ${fmtBytes(est.outputBytes)}, tiles in flight ${fmtBytes(est.tileBytes)}, search scratch ${fmtBytes(est.kernelBytes)}); the limit is ${fmtBytes(limit)} (maxMatrixBytes). Split the request or raise the limit.`, {
      details: { cells: est.cells, bytes: est.bytes, limit },
    });
  }
  return est;
}

function usesExecutor(cells: number, rows: number, opts: MatrixOptions): boolean {
  return opts.executor !== undefined && opts.executor.offThread && cells > (opts.inThreadMaxCells ?? IN_THREAD_MAX_CELLS) && rows > 1;
}

function tileRows(S: number, T: number, threads: number, tileCells = 2 ** 21): number {
  const byCells = Math.max(1, Math.floor(tileCells / Math.max(1, T)));
  const perThread = Math.max(1, Math.ceil(S / threads));
  return Math.min(byCells, perThread);
}

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

let targetsKeyCounter = 0;


/**
 * Computes the |sources| × |targets| matrix of a CH. Estimates memory first (`TooBig` past the
 * bounds), runs small matrices in the calling thread and large ones as row tiles on the executor
 * (both cores), merging the tiles in row order. `signal` cancels (`Cancelled`); `onProgress`
 * receives `{ phase: 'matrix', done: rows, total: rows }`.
 */
export async function computeMatrix(ch: ContractionHierarchy, sources: EndpointEntries, targets: EndpointEntries, opts: MatrixOptions = {}): Promise<MatrixResult> {
  validateEndpoints(sources, ch.numNodes, 'sources');
  validateEndpoints(targets, ch.numNodes, 'targets');
  const withAux = (opts.withAux ?? ch.hasAux) && ch.hasAux;
  const S = sources.count;
  const T = targets.count;
  checkMatrixSize(ch, S, T, { ...opts, withAux });
  throwIfAborted(opts.signal);
  const cells = S * T;
  const given = opts.out;
  if (given && (given.cost.length < cells || (withAux && (!given.aux || given.aux.length < cells)))) {
    throw new EngineError('InvalidInput', `out: the output arrays must hold ${cells} cells${withAux ? ' (cost and aux)' : ''}.`, { path: 'out' });
  }
  const cost = given ? given.cost : new Uint32Array(cells);
  const aux = withAux ? (given ? given.aux! : new Uint32Array(cells)) : null;
  const kind = opts.kernel ?? 'sweep';
  const onProgress = opts.onProgress;
  const tiled = usesExecutor(cells, S, opts);
  if (!tiled) {
    const kernel = createMatrixKernel(ch, kind);
    if (kernel instanceof SweepManyToMany) kernel.pinTargets(targets, withAux);
    // Chunks of rows, yielding between them so that an abort or a progress listener gets a turn.
    const chunk = opts.signal || onProgress ? Math.max(32, Math.ceil(65_536 / Math.max(1, T))) : S;
    for (let r0 = 0; r0 < S; r0 += chunk) {
      const r1 = Math.min(S, r0 + chunk);
      const part = r0 === 0 && r1 === S ? sources : sliceEndpoints(sources, r0, r1);
      const out = { cost, aux, offset: r0 * T, stride: T };
      if (kernel instanceof SweepManyToMany) kernel.runPinned(part, out);
      else kernel.run(part, targets, out);
      onProgress?.({ phase: 'matrix', done: r1, total: S });
      if (r1 < S) {
        await yieldToLoop();
        throwIfAborted(opts.signal);
      }
    }
    return { numSources: S, numTargets: T, cost, aux, tiles: 0 };
  }
  const ex = opts.executor!;
  if (opts.prefix === undefined) throw new EngineError('InvalidInput', 'computeMatrix: `prefix` (the CH section prefix in the shared dataset) is required with an executor.', { path: 'prefix' });
  const rows = tileRows(S, T, ex.threads, opts.tileCells);
  const targetsKey = `m${++targetsKeyCounter}`;
  const datasetKey = opts.datasetKey ?? 'dataset';
  // Pin the targets once (on the executor) and ship the compact selection with the tiles: the
  // threads then only sweep rows instead of each repeating every target search.
  let pinned: PinnedSelection | undefined;
  if (kind === 'sweep') {
    pinned = await ex.run('matrix-pin', { datasetKey, prefix: opts.prefix, targetsKey, targets, withAux }, { signal: opts.signal });
    throwIfAborted(opts.signal);
  }
  const tiles: [number, number][] = [];
  for (let r0 = 0; r0 < S; r0 += rows) tiles.push([r0, Math.min(S, r0 + rows)]);
  let next = 0;
  let rowsDone = 0;
  let failed: unknown = null;
  // Cancellation is checked between tiles (a tile is at most `tileCells` cells, a fraction of a
  // second): running tiles are not torn down (piscina's abort of a running task terminates the
  // worker and races with its reply), their results are just dropped.
  const cancelled = (): boolean => opts.signal?.aborted === true;
  const runOne = async (): Promise<void> => {
    while (next < tiles.length && failed === null && !cancelled()) {
      const [r0, r1] = tiles[next++];
      const task: MatrixTask = {
        datasetKey, prefix: opts.prefix!, targetsKey,
        sources: sliceEndpoints(sources, r0, r1), targets, withAux, kernel: kind, pinned,
      };
      const res = await ex.run('matrix-tile', task);
      if (failed !== null || cancelled()) return;
      if (res.cost.length !== (r1 - r0) * T) throw new EngineError('Internal', 'Matrix tile came back with the wrong size.');
      cost.set(res.cost, r0 * T);
      if (aux && res.aux) aux.set(res.aux, r0 * T);
      rowsDone += r1 - r0;
      onProgress?.({ phase: 'matrix', done: rowsDone, total: S, info: { tiles: tiles.length } });
    }
  };
  const runners: Promise<void>[] = [];
  const inflight = Math.min(tiles.length, 2 * ex.threads);
  for (let i = 0; i < inflight; i++) {
    runners.push(runOne().catch((e) => {
      if (failed === null) failed = e;
    }));
  }
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<void>((resolve) => {
    onAbort = resolve;
    opts.signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([Promise.all(runners), aborted]);
  } finally {
    if (onAbort) opts.signal?.removeEventListener('abort', onAbort);
  }
  if (cancelled()) throw cancelledError(opts.signal);
  if (failed !== null) throw failed;
  return { numSources: S, numTargets: T, cost, aux, tiles: tiles.length };
}
