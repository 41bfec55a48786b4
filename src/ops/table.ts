/**
 * The engine's operations: each contract operation the engine answers (no accounts, no prices),
 * with its records, where its work runs and its `run`. `Engine.run(name)` and the engine's named
 * methods read it. The service's operation table (`service/operations.ts`) is the one list every
 * face is generated from; its rows for these operations name them here (`engine`). Adding an
 * operation: its file in `ops/`, one entry here, one row there (docs/ARCHITECTURE.md).
 */
import {
  DispatchResultSchema, DispatchSpecificationSchema, DistanceResultSchema, DistanceSpecificationSchema,
  GeocodeResultSchema, GeocodeSpecificationSchema, RecordDef, RouteResultSchema, RouteSpecificationSchema,
  RoutesResultSchema, RoutesSpecificationSchema, EvaluatePlanResultSchema, EvaluatePlanSpecificationSchema,
  type DispatchResult, type EvaluatePlanResult, type DistanceResult, type GeocodeResult, type RouteResult, type RoutesResult,
} from '../records/index.js';
import type { OpOptions, OpsContext } from './context.js';
import { distanceOp } from './distance.js';
import { dispatchOp, type DispatchOpOptions } from './dispatch/index.js';
import { geocodeOp, type GeocodeOpOptions } from './geocode.js';
import { routeOp } from './route.js';
import { routesOp } from './routes.js';
import { evaluatePlanOp } from './evaluate.js';

export interface Operation<Result, Options extends OpOptions = OpOptions> {
  /** The contract's operation name (SOAP action, REST path). */
  name: string;
  summary: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  spec: RecordDef<any>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  result: RecordDef<any>;
  /**
   * Where its heavy work runs: 'executor' = on the executor when asked to offload (and for large
   * inputs in any case); 'caller' = always in the calling thread (microseconds per call).
   */
  runsOn: 'executor' | 'caller';
  run(ctx: OpsContext, spec: unknown, opts?: Options): Promise<Result>;
}

export const CalculateDistance: Operation<DistanceResult> = {
  name: 'CalculateDistance',
  summary: 'CalculateDistance: driving distance and time between two locations (DistanceSpecification JSON)',
  spec: DistanceSpecificationSchema,
  result: DistanceResultSchema,
  runsOn: 'caller',
  run: distanceOp,
};

export const Dispatch: Operation<DispatchResult, DispatchOpOptions> = {
  name: 'Dispatch',
  summary: 'Dispatch: assign and sequence stops over vehicles on the road network (DispatchSpecification JSON)',
  spec: DispatchSpecificationSchema,
  result: DispatchResultSchema,
  runsOn: 'executor',
  run: dispatchOp,
};

export const Geocode: Operation<GeocodeResult, GeocodeOpOptions> = {
  name: 'Geocode',
  summary: 'Geocode: candidate locations for addresses (GeocodeSpecification JSON, or CSV)',
  spec: GeocodeSpecificationSchema,
  result: GeocodeResultSchema,
  runsOn: 'executor',
  run: geocodeOp,
};

export const CalculateRoute: Operation<RouteResult> = {
  name: 'CalculateRoute',
  summary: 'CalculateRoute: the driving route through locations in the given order, leg by leg (RouteSpecification JSON)',
  spec: RouteSpecificationSchema,
  result: RouteResultSchema,
  runsOn: 'caller',
  run: routeOp,
};

export const CalculateRoutes: Operation<RoutesResult> = {
  name: 'CalculateRoutes',
  summary: 'CalculateRoutes: many routes at once, each through its locations in order (RoutesSpecification JSON)',
  spec: RoutesSpecificationSchema,
  result: RoutesResultSchema,
  runsOn: 'executor',
  run: routesOp,
};

export const EvaluatePlan: Operation<EvaluatePlanResult> = {
  name: 'EvaluatePlan',
  summary: 'EvaluatePlan (extension): a plan given by hand checked and timed on the road network, without optimising (EvaluatePlanSpecification JSON)',
  spec: EvaluatePlanSpecificationSchema,
  result: EvaluatePlanResultSchema,
  runsOn: 'caller',
  run: evaluatePlanOp,
};

/** Every operation, by contract name. */
export const OPERATIONS = { CalculateDistance, Dispatch, Geocode, CalculateRoute, CalculateRoutes, EvaluatePlan } as const;

export type OperationName = keyof typeof OPERATIONS;

export function operationByName(name: string): Operation<unknown> | undefined {
  const k = Object.keys(OPERATIONS).find((n) => n.toLowerCase() === name.toLowerCase()) as OperationName | undefined;
  return k ? (OPERATIONS[k] as unknown as Operation<unknown>) : undefined;
}
