/**
 * What an operation runs against: the travel provider (placement, routes, matrices by vehicle
 * profile), the geocoder, and an executor for heavy work. Built once per engine; operations hold
 * no state of their own.
 */
import { EngineError } from '../core/errors.js';
import type { Executor, TaskEnv } from '../core/executor.js';
import { travelInThread } from '../dataset/travel.js';
import type { ProgressCallback } from '../core/cancel.js';
import type { Geocoder } from '../geocode/search.js';
import type { TravelProvider } from '../route/travel.js';
import type { RoadGraph } from '../graph/road-graph.js';

export interface OpsContext {
  travel: TravelProvider;
  /** Null when the dataset was built without a geocoder index. */
  geocoder: Geocoder | null;
  /** Runs heavy work: worker threads (the engine's pool) or the calling thread. */
  executor: Executor;
  /** Where executor tasks find the dataset: `executor.shared[datasetKey]`, geocoder sections under `geocodePrefix`. */
  datasetKey: string;
  geocodePrefix: string;
  /**
   * Memory bound for one travel matrix (TooBig past it); for a Dispatch, for its travel data and
   * solver tables together, estimated before anything is placed (ops/limits.ts). Default 2 GiB.
   */
  maxMatrixBytes?: number;
  /**
   * From this many places a dispatch's travel matrix is computed in whole seconds and metres on
   * shared memory (TravelProvider.matrixRounded) instead of fractional figures: the same plans,
   * gigabytes less fresh memory at 10,000 stops. Default 2,000.
   */
  roundedMatrixFrom?: number;
  /** The snapping radius in metres (tasks open the dataset with it). */
  snapRadiusM?: number;
  /** The road network drawn under route maps (none: maps show the route alone). */
  roads?: RoadGraph | null;
}

/** Options every operation takes. */
export interface OpOptions {
  signal?: AbortSignal;
  /** One event shape for all long work: `{ phase, done, total, info? }`. */
  onProgress?: ProgressCallback;
  /**
   * Keep the calling thread free (the engine's default, EngineOptions.offload): everything
   * heavier than about a millisecond (placing many stops or any address, matrices past a small
   * size, building and assembling the solver's problem, geocoding batches, routes past a few
   * legs) runs on the executor, and what comes back is rebuilt in slices. `false`: everything
   * but the solver's searches in the calling thread (the lowest latency for small work).
   */
  offload?: boolean;
  /**
   * Aborted when nobody will read the answer (a cancelled job, a client gone), unlike `signal`
   * (also a time limit's, after which a dispatch reports its best plan so far). Once it is, work
   * that would only shape that answer is skipped: a cancelled dispatch ends with Cancelled instead
   * of assembling its best plan (seconds at 10,000 stops).
   */
  discard?: AbortSignal;
}

/** Matrices of at most this many cells stay in a thread that offloads (a 50 × 50 matrix: a few milliseconds). */
export const OFFLOAD_IN_THREAD_CELLS = 2_500;

/** The executor an operation may hand heavy work to under `opts`: the context's when offloading, else none. */
export function executorFor(ctx: OpsContext, opts: OpOptions): Executor | undefined {
  return opts.offload ? ctx.executor : undefined;
}

/**
 * A context for the geocoder alone (e.g. an index built from an extract, with no road network):
 * operations that need travel data fail with Unsupported.
 */
export function geocoderContext(geocoder: Geocoder, executor: Executor, where: { datasetKey?: string; geocodePrefix: string }): OpsContext {
  const none = (): never => {
    throw new EngineError('Unsupported', 'This context has a geocoder only: no road network to place or route on.');
  };
  return {
    travel: { place: none, placeMany: none, route: none, routePath: none, blockedArcs: none, matrix: none },
    geocoder, executor, datasetKey: where.datasetKey ?? 'dataset', geocodePrefix: where.geocodePrefix,
  };
}

/** Where a task finds the dataset, and the engine settings that shape placement and matrices. */
export interface TaskSource {
  datasetKey: string;
  geocodePrefix: string;
  snapRadiusM: number;
  maxMatrixBytes?: number;
  roundedMatrixFrom?: number;
}

/** The {@link TaskSource} of a context, for tasks that rebuild it in their thread ({@link contextInTask}). */
export function taskSource(ctx: OpsContext): TaskSource {
  return { datasetKey: ctx.datasetKey, geocodePrefix: ctx.geocodePrefix, snapRadiusM: ctx.snapRadiusM ?? 1000, maxMatrixBytes: ctx.maxMatrixBytes, roundedMatrixFrom: ctx.roundedMatrixFrom };
}

/** An executor for contexts inside a task: nothing nests, everything runs in the task's thread. */
const IN_TASK: Executor = {
  threads: 1, offThread: false, shared: {},
  run: () => Promise.reject(new EngineError('Internal', 'Tasks do not start tasks.')),
};

/** The context of an operation stage running as a task: the thread's own view of the shared dataset. */
export function contextInTask(src: TaskSource, env: TaskEnv): OpsContext {
  const travel = travelInThread(env, src.datasetKey, src.snapRadiusM);
  return {
    travel, get geocoder() { return travel.dataset.geocoder; }, executor: IN_TASK, roads: travel.dataset.graph,
    datasetKey: src.datasetKey, geocodePrefix: src.geocodePrefix, snapRadiusM: src.snapRadiusM, maxMatrixBytes: src.maxMatrixBytes,
    roundedMatrixFrom: src.roundedMatrixFrom,
  };
}
