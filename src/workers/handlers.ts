/**
 * A worker thread's handlers, each loaded on the thread's first task of its kind. A thread that
 * only ever searches plans never loads the operations, the records or the dataset's road and
 * geocoding modules (`tasks.ts` imports every handler, and with them most of the package): the
 * isolate keeps only the code it runs — issue #26 item 4 (bench/README.md, "Handlers on first
 * use"). The table must name a loader for every task kind, or it does not type-check; a test
 * checks that each loads the very handler `tasks.ts` names (test/workers/handlers.test.ts).
 *
 * From the TypeScript sources under tsx (tests with no current build, see pool.ts `workerEntry`),
 * a worker thread cannot `import()` a `.ts` file: tsx reaches a worker's modules only through its
 * CommonJS transform, so there the whole table of `tasks.ts` is loaded through `require`
 * ({@link requireHandler}; worker.ts picks it when it runs as `.ts` itself).
 */
import { EngineError } from '../core/errors.js';
import type { TaskEnv, TaskHandler, TaskKind } from '../core/executor.js';

type Loaders = { [K in TaskKind]: () => Promise<TaskHandler<K>> };

export const HANDLER_LOADERS: Loaders = {
  'ch-build': async () => (await import('../ch/tasks.js')).chBuildTask,
  'dataset-place': async () => (await import('../dataset/travel.js')).datasetPlaceTask,
  'dataset-matrix-avoid': async () => (await import('../dataset/travel.js')).datasetMatrixAvoidTask,
  'dispatch-prepare': async () => (await import('../ops/dispatch/index.js')).dispatchPrepareTask,
  'dispatch-finish': async () => (await import('../ops/dispatch/index.js')).dispatchFinishTask,
  'dispatch-legs': async () => (await import('../ops/dispatch/index.js')).dispatchLegsTask,
  'geocode-items': async () => (await import('../ops/geocode.js')).geocodeItemsTask,
  'geocode-search': async () => (await import('../geocode/tasks.js')).geocodeSearchTask,
  'geocode-reverse': async () => (await import('../geocode/tasks.js')).geocodeReverseTask,
  'matrix-pin': async () => (await import('../matrix/tasks.js')).matrixPinTask,
  'matrix-tile': async () => (await import('../matrix/tasks.js')).matrixTileTask,
  'plan-geojson': async () => (await import('../ops/plan-geojson.js')).planGeoJsonTask,
  'roads-layer': async () => (await import('../ops/plan-geojson.js')).roadsLayerTask,
  'routes-chunk': async () => (await import('../ops/routes.js')).routesChunkTask,
  'vrp-build': async () => (await import('../vrp/tasks.js')).vrpBuildTask,
  'vrp-search': async () => (await import('../vrp/tasks.js')).vrpSearchTask,
  'vrp-assemble': async () => (await import('../vrp/tasks.js')).vrpAssembleTask,
  echo: async () => (await import('./echo.js')).echoTask,
};

/** A handler as a kind received at run time (from another thread) finds it. */
export type AnyHandler = (payload: unknown, env: TaskEnv) => unknown;

/** `kind` as a key of `table` (either table of handlers); a coded error for a kind it does not name. */
export function knownKind(table: object, kind: string): TaskKind {
  if (!Object.prototype.hasOwnProperty.call(table, kind)) {
    throw new EngineError('Internal', `No handler for executor task kind "${kind}" (see workers/tasks.ts and workers/handlers.ts).`);
  }
  return kind as TaskKind;
}

const loaded = new Map<string, AnyHandler>();

/** The handler of a kind received at run time (from another thread), loaded once; a coded error for an unknown kind. */
export async function loadHandler(kind: string): Promise<AnyHandler> {
  const known = loaded.get(kind);
  if (known) return known;
  const h = (await HANDLER_LOADERS[knownKind(HANDLER_LOADERS, kind)]()) as AnyHandler;
  loaded.set(kind, h);
  return h;
}

/**
 * {@link loadHandler} for a worker thread run from the TypeScript sources under tsx, whose modules
 * are CommonJS (see the top of this file): the static table of `tasks.ts`, through `require`.
 */
export function requireHandler(kind: string): AnyHandler {
  return (require('./tasks.js') as typeof import('./tasks.js')).handlerOf(kind);
}
