/**
 * The service contract's records: schemas (runtime), TypeScript types (parsed and input forms),
 * validation, defaults, JSON encoding and JSON Schema export.
 */
import type { In, Out, RecordDef } from './schema.js';
import * as C from './contract.js';

export * from './contract.js';
export { contractJsonSchema, recordJsonSchema, enumJsonSchema } from './json-schema.js';
export { dateToSeconds, secondsToDate, isDateSet, hasZone } from './time.js';
export { failedFromIssues, failedFromError, statusFor, issueMessage, errorMessage, type ResultBase, type StatusName } from './results.js';
export type { Issue, EncodeOptions } from './schema.js';
export { RecordDef, EnumDef } from './schema.js';

/** The parsed (validated, defaults applied) form of a record schema. */
export type Parsed<R> = R extends RecordDef<infer S> ? Out<S> : never;
/** What callers may pass for a record (all optional, enums by name or integer). */
export type Input<R> = R extends RecordDef<infer S> ? In<S> : never;

export type LatLong = Parsed<typeof C.LatLongSchema>;
export type Address = Parsed<typeof C.AddressSchema>;
export type Location = Parsed<typeof C.LocationSchema>;
export type Vehicle = Parsed<typeof C.VehicleSchema>;
export type Shape = Parsed<typeof C.ShapeSchema>;
export type MapSize = Parsed<typeof C.MapSizeSchema>;
export type RouteColor = Parsed<typeof C.RouteColorSchema>;
export type RouteOptions = Parsed<typeof C.RouteOptionsSchema>;
export type RouteSpecification = Parsed<typeof C.RouteSpecificationSchema>;
export type RoutesSpecification = Parsed<typeof C.RoutesSpecificationSchema>;
export type RouteWarning = Parsed<typeof C.RouteWarningSchema>;
export type RouteHint = Parsed<typeof C.RouteHintSchema>;
export type RouteItineraryItem = Parsed<typeof C.RouteItineraryItemSchema>;
export type RouteItinerary = Parsed<typeof C.RouteItinerarySchema>;
export type RouteLeg = Parsed<typeof C.RouteLegSchema>;
export type Route = Parsed<typeof C.RouteSchema>;
export type RouteResult = Parsed<typeof C.RouteResultSchema>;
export type RoutesResult = Parsed<typeof C.RoutesResultSchema>;
export type DispatchSpecification = Parsed<typeof C.DispatchSpecificationSchema>;
export type VehicleItem = Parsed<typeof C.VehicleItemSchema>;
export type DispatchResult = Parsed<typeof C.DispatchResultSchema>;
export type GeocodeSpecification = Parsed<typeof C.GeocodeSpecificationSchema>;
export type GeocodeItem = Parsed<typeof C.GeocodeItemSchema>;
export type GeocodeResult = Parsed<typeof C.GeocodeResultSchema>;
export type DistanceSpecification = Parsed<typeof C.DistanceSpecificationSchema>;
export type DistanceResult = Parsed<typeof C.DistanceResultSchema>;
export type CreditResult = Parsed<typeof C.CreditResultSchema>;
export type RouteListSpecification = Parsed<typeof C.RouteListSpecificationSchema>;
export type RouteListItem = Parsed<typeof C.RouteListItemSchema>;
export type RouteListResult = Parsed<typeof C.RouteListResultSchema>;
export type GetRouteSpecification = Parsed<typeof C.GetRouteSpecificationSchema>;
export type TrackSpecification = Parsed<typeof C.TrackSpecificationSchema>;
export type TrackPoint = Parsed<typeof C.TrackPointSchema>;
export type TrackResult = Parsed<typeof C.TrackResultSchema>;
export type TrackPointsSpecification = Parsed<typeof C.TrackPointsSpecificationSchema>;
export type TrackPointsResult = Parsed<typeof C.TrackPointsResultSchema>;
export type LoginResult = Parsed<typeof C.LoginResultSchema>;
export type LoginSpecification = Parsed<typeof C.LoginSpecificationSchema>;
export type ErrorItem = Parsed<typeof C.ErrorSchema>;

export type MatchCodeName = C.MatchCodeName;
export type DistanceUnitName = Parsed<typeof C.DistanceSpecificationSchema>['DistanceUnit'];
export type RouteOptimizeName = Parsed<typeof C.DistanceSpecificationSchema>['RouteOptimize'];
export type LocationTypeName = Location['LocationType'];
export type DispatchModeName = DispatchSpecification['DispatchMode'];

export type DistanceSpecificationInput = Input<typeof C.DistanceSpecificationSchema>;
export type DispatchSpecificationInput = Input<typeof C.DispatchSpecificationSchema>;
export type GeocodeSpecificationInput = Input<typeof C.GeocodeSpecificationSchema>;
export type RouteSpecificationInput = Input<typeof C.RouteSpecificationSchema>;
export type RoutesSpecificationInput = Input<typeof C.RoutesSpecificationSchema>;
export type LocationInput = Input<typeof C.LocationSchema>;
export type VehicleInput = Input<typeof C.VehicleSchema>;
export * from './service.js';
export * from './live.js';
import type * as L from './live.js';
export type StopEventRecord = Parsed<typeof L.StopEventSchema>;
export type StopEventsSpecification = Parsed<typeof L.StopEventsSpecificationSchema>;
export type StopEventsResult = Parsed<typeof L.StopEventsResultSchema>;
export type LiveSpecification = Parsed<typeof L.LiveSpecificationSchema>;
export type LiveResult = Parsed<typeof L.LiveResultSchema>;
export type LiveVehicle = Parsed<typeof L.LiveVehicleSchema>;
export type LiveStop = Parsed<typeof L.LiveStopSchema>;
export type RedispatchSpecification = Parsed<typeof L.RedispatchSpecificationSchema>;
export type RedispatchResult = Parsed<typeof L.RedispatchResultSchema>;
export type RouteChange = Parsed<typeof L.RouteChangeSchema>;
export * from './plan.js';
import type * as PL from './plan.js';
export type EvaluatePlanSpecification = Parsed<typeof PL.EvaluatePlanSpecificationSchema>;
export type EvaluatePlanResult = Parsed<typeof PL.EvaluatePlanResultSchema>;
export type PlanViolationRecord = Parsed<typeof PL.PlanViolationSchema>;
export type UnservedStopRecord = Parsed<typeof PL.UnservedStopSchema>;
export { jsonSliced, rawJsonSliced, joined, parseJsonSliced, safeParseSliced, RawJson, ENCODED, SLICED_PARSE_FROM, toTexts, fromTexts, parseEach, type Texts, type Chunk, type Encoded } from './json-sliced.js';
