/**
 * The service's operation table: the contract's 11 operations plus the track-ingestion
 * extension, each with its records and its REST path. The REST and (later) SOAP faces, the
 * OpenAPI/WSDL generators and the price list read this table. The engine's operations keep their
 * own table (`ops/table.ts`); this one adds the account operations only a service has.
 */
import {
  CreditResultSchema, DispatchResultSchema, DispatchSpecificationSchema, DistanceResultSchema, DistanceSpecificationSchema,
  GeocodeResultSchema, GeocodeSpecificationSchema, GetRouteSpecificationSchema, LoginResultSchema, LoginSpecificationSchema,
  ResultSchema, RouteListResultSchema, RouteListSpecificationSchema, RouteResultSchema, RouteSpecificationSchema,
  RoutesResultSchema, RoutesSpecificationSchema, TrackPointsResultSchema, TrackPointsSpecificationSchema, TrackResultSchema,
  TrackSpecificationSchema, type RecordDef,
} from '../records/index.js';
import type { OperationName } from '../ops/table.js';

export interface ServiceOperation {
  /** Contract name (SOAP action); `TrackPoints` is the ingestion extension. */
  name: string;
  /** REST path under /rest/ (matched case-insensitively). */
  rest: string;
  summary: string;
  /** The request record (null: the operation takes no input; an empty body is fine). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  spec: RecordDef<any> | null;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  result: RecordDef<any>;
  /** The engine operation it runs (ops/table.ts), or null for an account operation. */
  engine: OperationName | null;
  /** Needs a key (every operation but Login). */
  auth: boolean;
  /** Not in the original contract. */
  extension?: boolean;
}

const op = (o: ServiceOperation): ServiceOperation => o;

export const SERVICE_OPERATIONS = {
  Dispatch: op({ name: 'Dispatch', rest: 'dispatch', summary: 'Assign and sequence stops over vehicles; the result is stored (GetRouteList/GetRoute).', spec: DispatchSpecificationSchema, result: DispatchResultSchema, engine: 'Dispatch', auth: true }),
  CalculateRoute: op({ name: 'CalculateRoute', rest: 'route', summary: 'Turn-by-turn directions (and maps) through locations in the given order.', spec: RouteSpecificationSchema, result: RouteResultSchema, engine: 'CalculateRoute', auth: true }),
  CalculateRoutes: op({ name: 'CalculateRoutes', rest: 'routes', summary: 'Many routes at once, with one overall map.', spec: RoutesSpecificationSchema, result: RoutesResultSchema, engine: 'CalculateRoutes', auth: true }),
  Geocode: op({ name: 'Geocode', rest: 'geocode', summary: 'Candidate locations (latitude, longitude) for addresses.', spec: GeocodeSpecificationSchema, result: GeocodeResultSchema, engine: 'Geocode', auth: true }),
  CalculateDistance: op({ name: 'CalculateDistance', rest: 'distance', summary: 'Driving distance and time from a start to a finish location.', spec: DistanceSpecificationSchema, result: DistanceResultSchema, engine: 'CalculateDistance', auth: true }),
  CreditRemaining: op({ name: 'CreditRemaining', rest: 'credit', summary: "The account's credit balance (an empty body is fine).", spec: null, result: CreditResultSchema, engine: null, auth: true }),
  GetRouteList: op({ name: 'GetRouteList', rest: 'routelist', summary: "The account's stored dispatches, newest first (filters: FromDate, ToDate, Owner, RouteName).", spec: RouteListSpecificationSchema, result: RouteListResultSchema, engine: null, auth: true }),
  GetRoute: op({ name: 'GetRoute', rest: 'getroute', summary: 'A stored dispatch by RouteID: its DispatchResult.', spec: GetRouteSpecificationSchema, result: DispatchResultSchema, engine: null, auth: true }),
  GetTrack: op({ name: 'GetTrack', rest: 'track', summary: 'GPS points of a track in a UTC range, ordered by time.', spec: TrackSpecificationSchema, result: TrackResultSchema, engine: null, auth: true }),
  TrackPoints: op({ name: 'TrackPoints', rest: 'trackpoints', summary: 'Extension: record GPS points (a JSON array of TrackPoints, or a TrackPointsSpecification).', spec: TrackPointsSpecificationSchema, result: TrackPointsResultSchema, engine: null, auth: true, extension: true }),
  Login: op({ name: 'Login', rest: 'login', summary: 'A session key for a user name and password, valid 4 hours after its last use (legacy; the API key needs no Login).', spec: LoginSpecificationSchema, result: LoginResultSchema, engine: null, auth: false }),
  Logout: op({ name: 'Logout', rest: 'logout', summary: 'Ends the session of the key sent (legacy).', spec: null, result: ResultSchema, engine: null, auth: true }),
} as const satisfies Record<string, ServiceOperation>;

export type ServiceOperationName = keyof typeof SERVICE_OPERATIONS;

export const SERVICE_OPERATION_NAMES = Object.keys(SERVICE_OPERATIONS) as ServiceOperationName[];

/** The operation behind a REST path segment (case-insensitive), or undefined. */
export function operationByRestPath(segment: string): ServiceOperation | undefined {
  const s = segment.toLowerCase();
  return Object.values(SERVICE_OPERATIONS).find((o) => o.rest === s);
}
