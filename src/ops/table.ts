/**
 * The operation table: every contract operation the engine answers, with its records, where its
 * work runs and what it counts for credit. The engine's methods, the CLI and (later) the server,
 * the WSDL/OpenAPI generators and the credit ledger read this table instead of listing
 * operations themselves. Adding an operation: its file in `ops/`, one entry here (see
 * docs/ARCHITECTURE.md, "Adding an operation").
 */
import {
  DispatchResultSchema, DispatchSpecificationSchema, DistanceResultSchema, DistanceSpecificationSchema,
  GeocodeResultSchema, GeocodeSpecificationSchema, RecordDef, RouteResultSchema, RouteSpecificationSchema,
  RoutesResultSchema, RoutesSpecificationSchema,
  type DispatchResult, type DistanceResult, type GeocodeResult, type RouteResult, type RoutesResult,
} from '../records/index.js';
import type { OpOptions, OpsContext } from './context.js';
import { distanceOp } from './distance.js';
import { dispatchOp, type DispatchOpOptions } from './dispatch.js';
import { geocodeOp, type GeocodeOpOptions } from './geocode.js';
import { routeOp } from './route.js';
import { routesOp } from './routes.js';

/** What one call of an operation counts for credit: `units` of `unit`. */
export interface CreditCount {
  unit: 'request' | 'stop' | 'address' | 'route';
  units: number;
}

export interface Operation<Result, Options extends OpOptions = OpOptions> {
  /** The contract's operation name (SOAP action, REST path). */
  name: string;
  /** The CLI sub-command that runs it on a JSON specification. */
  command: string;
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
  /** What a successful call counts for credit, from its (raw) specification and its result. */
  credit(spec: unknown, result: Result): CreditCount;
  run(ctx: OpsContext, spec: unknown, opts?: Options): Promise<Result>;
}

const len = (x: unknown): number => (Array.isArray(x) ? x.length : 0);
const field = (spec: unknown, name: string): unknown => (spec && typeof spec === 'object' ? (spec as Record<string, unknown>)[name] : undefined);

export const CalculateDistance: Operation<DistanceResult> = {
  name: 'CalculateDistance',
  command: 'distance',
  summary: 'CalculateDistance: driving distance and time between two locations (DistanceSpecification JSON)',
  spec: DistanceSpecificationSchema,
  result: DistanceResultSchema,
  runsOn: 'caller',
  credit: () => ({ unit: 'request', units: 1 }),
  run: distanceOp,
};

export const Dispatch: Operation<DispatchResult, DispatchOpOptions> = {
  name: 'Dispatch',
  command: 'dispatch',
  summary: 'Dispatch: assign and sequence stops over vehicles on the road network (DispatchSpecification JSON)',
  spec: DispatchSpecificationSchema,
  result: DispatchResultSchema,
  runsOn: 'executor',
  // Stops actually dispatched: the specification's stops less those reported as not dispatched
  // (each has one Error); a failed dispatch counts nothing.
  credit: (spec, r) => {
    if (r.Status === 'Failed') return { unit: 'stop', units: 0 };
    const parsed = DispatchSpecificationSchema.safeParse(spec);
    const locs = parsed.ok ? parsed.value.Locations ?? [] : [];
    const stops = locs.filter((l) => l && l.LocationType !== 'Start' && l.LocationType !== 'Finish').length;
    return { unit: 'stop', units: Math.max(0, stops - (r.Errors ?? []).length) };
  },
  run: dispatchOp,
};

export const Geocode: Operation<GeocodeResult, GeocodeOpOptions> = {
  name: 'Geocode',
  command: 'geocode',
  summary: 'Geocode: candidate locations for addresses (GeocodeSpecification JSON, or CSV)',
  spec: GeocodeSpecificationSchema,
  result: GeocodeResultSchema,
  runsOn: 'executor',
  credit: (spec) => ({ unit: 'address', units: len(field(spec, 'Addresses')) }),
  run: geocodeOp,
};

export const CalculateRoute: Operation<RouteResult> = {
  name: 'CalculateRoute',
  command: 'route',
  summary: 'CalculateRoute: the driving route through locations in the given order, leg by leg (RouteSpecification JSON)',
  spec: RouteSpecificationSchema,
  result: RouteResultSchema,
  runsOn: 'caller',
  // One route per route computed; a failed route counts nothing.
  credit: (_spec, r) => ({ unit: 'route', units: r.Status === 'Failed' ? 0 : 1 }),
  run: routeOp,
};

export const CalculateRoutes: Operation<RoutesResult> = {
  name: 'CalculateRoutes',
  command: 'routes',
  summary: 'CalculateRoutes: many routes at once, each through its locations in order (RoutesSpecification JSON)',
  spec: RoutesSpecificationSchema,
  result: RoutesResultSchema,
  runsOn: 'executor',
  // One route per successful RouteResult.
  credit: (_spec, r) => ({ unit: 'route', units: (r.Results ?? []).filter((x) => x && x.Status !== 'Failed').length }),
  run: routesOp,
};

/** Every operation, by contract name. */
export const OPERATIONS = { CalculateDistance, Dispatch, Geocode, CalculateRoute, CalculateRoutes } as const;

export type OperationName = keyof typeof OPERATIONS;

export function operationByName(name: string): Operation<unknown> | undefined {
  const k = Object.keys(OPERATIONS).find((n) => n.toLowerCase() === name.toLowerCase()) as OperationName | undefined;
  return k ? (OPERATIONS[k] as unknown as Operation<unknown>) : undefined;
}
