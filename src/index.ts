/**
 * dispatchkit: offline routing, dispatch, distance matrices and geocoding on OpenStreetMap data.
 *
 * Start with {@link Engine}: `Engine.open(dataset)` or `Engine.fromExtract(pbf)`, then the
 * service operations (calculateDistance, dispatch, geocode). The kernels below it are exported for
 * callers who build their own pipelines.
 */

// The engine and its operations.
export { Engine, type EngineOptions, type EngineGeocodeOptions, type PlacedLocation } from './engine.js';

// The operations layer: one file per contract operation, the operation table, their context.
export { OPERATIONS, CalculateDistance, CalculateRoute, CalculateRoutes, Dispatch, Geocode, operationByName, type Operation, type OperationName } from './ops/table.js';
export { type OpsContext, type OpOptions, geocoderContext } from './ops/context.js';
export { calculateDistance } from './ops/distance.js';
export { calculateRoute } from './ops/route.js';
export { routesOp as calculateRoutes, ROUTES_INLINE_MAX } from './ops/routes.js';
export { dispatchOp, dispatchOnMatrix, dispatchPlaces, buildDispatchInput, type DispatchOptions, type DispatchOpOptions, type DispatchTravel, type DispatchPlace } from './ops/dispatch/index.js';
export { routeResultToGeoJson, routePolyline, type GeoJsonFeature, type GeoJsonFeatureCollection } from './ops/geojson.js';
export { encodePolyline, decodePolyline, type PolylinePrecision } from './core/polyline.js';
export { geocodeOp, geocodeOperation, geocodeItems, validateGeocodeSpecification, candidateToLocation, type GeocodeOpOptions } from './ops/geocode.js';
export { lintDispatchSpecification, lintGeocodeSpecification, lintDistanceSpecification, lintSpecification, lintRecord, detectSpecificationKind, LINT_CODES, type LintWarning, type LintCode, type LintKind } from './ops/lint.js';

// Units, executors, the travel provider.
export { METRES_PER_MILE, metresToUnit, unitToMetres, metresPerUnit, type LengthUnit } from './core/units.js';
export type { Executor, TaskMap, TaskKind, TaskPayload, TaskResult, TaskEnv, TaskTypes, RunOptions } from './core/executor.js';
export { InlineExecutor } from './workers/inline.js';
export type { TravelProvider, TravelProfile, TravelMatrix, Placement, PlaceQuery, RoutePath } from './route/travel.js';
export { DatasetTravel } from './dataset/travel.js';

// The service contract's records: schemas, types, helpers.
export * from './records/index.js';

// Errors, cancellation/progress, seeded randomness.
export { EngineError, isEngineError, toErrorRecord, type ErrorCode, type ErrorRecord } from './core/errors.js';
export { Deadline, CallLimit, type LongWorkOptions, type ProgressEvent, type ProgressCallback } from './core/cancel.js';
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
  solve, validateSolution, parseSolomon, parseVrplib,
  type SolveOptions, type Solution, type ValidationReport,
} from './vrp/index.js';

// Geocoder.
export { Geocoder, GeocodeIndex, buildGeocodeIndex, type GeocodeCandidate } from './geocode/index.js';

// Worker pool.
export { WorkerPool, type PoolOptions } from './workers/pool.js';
