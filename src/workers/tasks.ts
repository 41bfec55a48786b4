/**
 * The handler of every executor task kind, imported at once: the in-thread executor's table (and
 * a worker thread's under tsx). A built worker thread loads each handler on its first task of that
 * kind instead (`handlers.ts`, the same handlers). Kernels declare their kinds (payload and result
 * types) next to their handlers; this table must name a handler for each declared kind, or it does
 * not type-check.
 */
import type { TaskHandlers } from '../core/executor.js';
import { knownKind, type AnyHandler } from './handlers.js';
import { chBuildTask } from '../ch/tasks.js';
import { datasetMatrixAvoidTask, datasetPlaceTask } from '../dataset/travel.js';
import { geocodeReverseTask, geocodeSearchTask } from '../geocode/tasks.js';
import { matrixPinTask, matrixTileTask } from '../matrix/tasks.js';
import { vrpAssembleTask, vrpBuildTask, vrpSearchTask } from '../vrp/tasks.js';
import { dispatchFinishTask, dispatchLegsTask, dispatchPrepareTask } from '../ops/dispatch/index.js';
import { routesChunkTask } from '../ops/routes.js';
import { geocodeItemsTask } from '../ops/geocode.js';
import { planGeoJsonTask, roadsLayerTask } from '../ops/plan-geojson.js';
import { echoTask } from './echo.js';

export const TASK_HANDLERS: TaskHandlers = {
  'ch-build': chBuildTask,
  'dataset-place': datasetPlaceTask,
  'dataset-matrix-avoid': datasetMatrixAvoidTask,
  'dispatch-prepare': dispatchPrepareTask,
  'dispatch-finish': dispatchFinishTask,
  'dispatch-legs': dispatchLegsTask,
  'geocode-items': geocodeItemsTask,
  'geocode-search': geocodeSearchTask,
  'geocode-reverse': geocodeReverseTask,
  'matrix-pin': matrixPinTask,
  'matrix-tile': matrixTileTask,
  'plan-geojson': planGeoJsonTask,
  'roads-layer': roadsLayerTask,
  'routes-chunk': routesChunkTask,
  'vrp-build': vrpBuildTask,
  'vrp-search': vrpSearchTask,
  'vrp-assemble': vrpAssembleTask,
  echo: echoTask,
};

/** The handler of a kind received at run time (from another thread), or a coded error. */
export function handlerOf(kind: string): AnyHandler {
  return TASK_HANDLERS[knownKind(TASK_HANDLERS, kind)] as AnyHandler;
}
