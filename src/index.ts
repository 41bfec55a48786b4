/**
 * dispatchkit: offline routing, dispatch, distance matrices and geocoding on OpenStreetMap data.
 *
 * Start with {@link Engine}: `Engine.open(dataset)` or `Engine.fromExtract(pbf)`, then the
 * service operations (calculateDistance, dispatch, geocode). The kernels below it are exported for
 * callers who build their own pipelines.
 */

// The engine and its operations.
export { Engine, METRES_PER_MILE, metresToUnit, type EngineOptions, type PlacedLocation, type TravelMatrix } from './engine.js';

// The service contract's records: schemas, types, helpers.
export * from './records/index.js';

// Errors, cancellation/progress, seeded randomness.
export { EngineError, isEngineError, toErrorRecord, type ErrorCode, type ErrorRecord } from './core/errors.js';
export { Deadline, type LongWorkOptions, type ProgressEvent, type ProgressCallback } from './core/cancel.js';
export { Rng } from './core/rng.js';
export { BinFile, BinWriter } from './core/binfile.js';

// Datasets.
export { buildDataset, buildDatasetFile, ODBL_ATTRIBUTION, type BuildDatasetOptions, type BuiltDataset } from './dataset/build.js';
export { Dataset, DATASET_VERSION, type DatasetMeta } from './dataset/dataset.js';

// Road network kernels.
export { OsmPbfFile, readOsmPbf, type OsmHandlers, type Tags } from './osm/pbf.js';
export { buildRoadGraph, type BuildRoadGraphOptions, type RoadGraphStats } from './graph/build.js';
export { RoadGraph } from './graph/road-graph.js';
export { Snapper, DEFAULT_SNAP_RADIUS_M, type Snap, type SnapOptions, type RouteEntry } from './graph/snap.js';
export { Dijkstra } from './graph/dijkstra.js';
export { readDimacsGr, parseDimacsGr, readNgraph, type ArcGraph } from './graph/formats/index.js';
export { ContractionHierarchy, ChQuery, buildContractionHierarchy, type ChBuildOptions } from './ch/index.js';
export { computeMatrix, estimateMatrixMemory, endpointsFromNodes, UNREACHABLE, type EndpointEntries, type MatrixOptions, type MatrixResult } from './matrix/index.js';
export { Router, type Metric, type PointToPoint } from './route/router.js';
export { routeGeometry, pathSummary, type RouteGeometry, type PathSummary } from './route/geometry.js';

// Dispatch solver.
export {
  solve, validateSolution, dispatchOnMatrix, dispatchPlaces, parseSolomon, parseVrplib,
  type SolveOptions, type Solution, type ValidationReport, type DispatchOptions, type DispatchTravel,
} from './vrp/index.js';

// Geocoder.
export { Geocoder, GeocodeIndex, buildGeocodeIndex, geocodeOperation, type GeocodeCandidate } from './geocode/index.js';

// Worker pool.
export { WorkerPool, type PoolOptions } from './workers/pool.js';
