/**
 * Every record and enumeration of the service contract (`service-interface.md`), with its
 * fields, XML Schema types, requiredness and defaults — the single source of truth.
 */
import { defineEnum, defineRecord, extendRecord, t } from './schema.js';

// ----------------------------------------------------------------------------- enumerations
export const OperationStatus = defineEnum('OperationStatus', { None: 0, Success: 1, Failed: 2, SuccessWithErrors: 3 });
export const MatchCode = defineEnum('MatchCode', { None: 0, Poor: 1, Approx: 2, Good: 3, Exact: 4 });
export type MatchCodeName = 'None' | 'Poor' | 'Approx' | 'Good' | 'Exact';
export const LocationType = defineEnum('LocationType', { Midway: 0, Start: 1, Finish: 2, Delivery: 3, MidwayDrop: 4, Break: 5 });
export const RoutingService = defineEnum('RoutingService', { EngineOne: 0, EngineTwo: 1, EngineThree: 2 });
export const DistanceUnit = defineEnum('DistanceUnit', { Mile: 0, Kilometer: 1 });
export const RouteOptimize = defineEnum('RouteOptimize', { MinimizeTime: 0, MinimizeDistance: 1 });
export const DispatchMode = defineEnum(
  'DispatchMode',
  {
    Auto: 0, EqualStop: 1, SingleRegion: 2, MultipleRegion: 3, EqualHour: 4, EqualDistance: 5, TimeWindow: 6,
    TimeWindowDepot: 7, Optima: 8, BalanceLocation: 9, BalanceTime: 10, MinimumVehicles: 11,
  },
  { Central: 'EqualDistance' },
);
export const Restriction = defineEnum('Restriction', { DoNotEnter: 0, DoNotExit: 1 });
export const RouteWarningSeverity = defineEnum('RouteWarningSeverity', { None: 0, LowImpact: 1, Minor: 2, Moderate: 3, Serious: 4 });
export const RouteHintType = defineEnum('RouteHintType', { PreviousIntersection: 0, NextIntersection: 1, Landmark: 2 });

export const ENUMS = [
  OperationStatus, MatchCode, LocationType, RoutingService, DistanceUnit, RouteOptimize, DispatchMode, Restriction,
  RouteWarningSeverity, RouteHintType,
] as const;

// ----------------------------------------------------------------------------- bounds of numeric fields
// What the contract leaves open ("numeric bounds: not shown"), decided in docs/limits.md. Every
// bound is in the schema, so validation, JSON Schema and OpenAPI carry it; ops/limits.ts lists
// them with the operations' size limits.

/** MinimumOptimization: 1 (construction + local search) to 10; each level doubles the search. */
export const MAX_MINIMUM_OPTIMIZATION = 10;
/** Location.Priority: whole numbers within ±1,000,000 (a driver's break ranks above any stop). */
export const MAX_PRIORITY = 1_000_000;
/** Location.Wait: seconds of service (or of a break), at most a day. */
export const MAX_WAIT_SECONDS = 86_400;
/** Weight, Volume, MaxWeight, MaxVolume: ≥ 0 and at most 10^12 (compared in thousandths inside the engine). */
export const MAX_AMOUNT = 1e12;
/** Skids, MaxSkids, MaxStops: ≥ 0, at most 10^9. */
export const MAX_COUNT = 1_000_000_000;
/** Vehicle.Speed: DistanceUnit per hour (0 = the road network's speeds), at most 1,000. */
export const MAX_SPEED = 1000;
/** Vehicle.MaxMinutes: minutes of one trip, at most 14 days (the most trips a vehicle gets, one a day). */
export const MAX_TRIP_MINUTES = 14 * 1440;
/** Vehicle.FuelCost: cost per DistanceUnit, ≥ 0 and at most 10^6. */
export const MAX_FUEL_COST = 1e6;

/** "Not set" for dates: clients send 0001-01-01T00:00:00 (anything ≤ 2012-01-01 counts as unset). */
export const NULL_DATE = '0001-01-01T00:00:00';

// ----------------------------------------------------------------------------- common
export const ErrorSchema = defineRecord('Error', { Message: t.string() });

/** Abstract base of every result except LoginResult. */
export const ResultSchema = defineRecord('Result', {
  Errors: t.list(ErrorSchema),
  Status: t.enum(OperationStatus).req(),
});

export const SessionIDHeaderSchema = defineRecord('SessionIDHeader', { SessionID: t.string() });
export const LoginResultSchema = defineRecord('LoginResult', {
  Message: t.string(),
  Status: t.enum(OperationStatus).req(),
  Key: t.string(),
});

// ----------------------------------------------------------------------------- places
export const LatLongSchema = defineRecord('LatLong', {
  Latitude: t.double().req(),
  Longitude: t.double().req(),
});

export const AddressSchema = defineRecord('Address', {
  Street: t.string(),
  City: t.string(),
  State: t.string(),
  PostalCode: t.string(),
  Country: t.string(),
});

export const MapSizeSchema = defineRecord('MapSize', {
  Width: t.int().def(0),
  Height: t.int().def(0),
});

export const RouteColorSchema = defineRecord('RouteColor', {
  A: t.unsignedByte().def(179),
  R: t.unsignedByte().def(0),
  G: t.unsignedByte().def(169),
  B: t.unsignedByte().def(235),
});

export const LocationSchema = defineRecord('Location', {
  MatchCode: t.enum(MatchCode).def('None'),
  Name: t.string(),
  Delivery: t.string(),
  DeliveryNonStop: t.boolean().def(true),
  KeepSameOrder: t.boolean().def(false),
  Vehicle: t.string(),
  Description: t.string(),
  Phone: t.string(),
  LatLong: t.record(LatLongSchema),
  Address: t.record(AddressSchema),
  Priority: t.int().def(0).range(-MAX_PRIORITY, MAX_PRIORITY),
  Wait: t.int().def(0).range(0, MAX_WAIT_SECONDS),
  Volume: t.double().def(0).range(0, MAX_AMOUNT),
  Weight: t.double().def(0).range(0, MAX_AMOUNT),
  Skids: t.int().def(0).range(0, MAX_COUNT),
  TimeConstraintArrival: t.dateTime().def(NULL_DATE),
  TimeConstraintDeparture: t.dateTime().def(NULL_DATE),
  TimeConstraintArrival2: t.dateTime().def(NULL_DATE),
  TimeConstraintDeparture2: t.dateTime().def(NULL_DATE),
  TimeEstimatedArrival: t.dateTime().def(NULL_DATE),
  LocationType: t.enum(LocationType).def('Midway'),
  CanArriveEarly: t.boolean().def(true),
  Distance: t.double().def(0),
  Time: t.int().def(0),
  Conditions: t.string(),
});

// ----------------------------------------------------------------------------- routes
export const RouteOptionsSchema = defineRecord('RouteOptions', {
  RoutingService: t.enum(RoutingService).def('EngineThree'),
  DistanceUnit: t.enum(DistanceUnit).def('Mile'),
  RouteOptimize: t.enum(RouteOptimize).def('MinimizeTime'),
  Culture: t.string().def('en-US'),
  MapSize: t.record(MapSizeSchema),
  RouteColor: t.record(RouteColorSchema),
  MapCenter: t.record(LatLongSchema),
  HideStops: t.boolean().def(false),
  ZoomLevel: t.int().def(0),
});

export const RouteSpecificationSchema = defineRecord('RouteSpecification', {
  Locations: t.list(LocationSchema),
  RouteOptions: t.record(RouteOptionsSchema),
});

export const RoutesSpecificationSchema = defineRecord('RoutesSpecification', {
  Specifications: t.list(RouteSpecificationSchema),
  RoutesOptions: t.record(RouteOptionsSchema),
});

export const RouteWarningSchema = defineRecord('RouteWarning', {
  Severity: t.enum(RouteWarningSeverity).req(),
  Text: t.string(),
});

export const RouteHintSchema = defineRecord('RouteHint', {
  Type: t.enum(RouteHintType).req(),
  Text: t.string(),
});

export const RouteItineraryItemSchema = defineRecord('RouteItineraryItem', {
  Distance: t.double().req(),
  Time: t.int().req(),
  LatLong: t.record(LatLongSchema),
  Text: t.string(),
  Warnings: t.list(RouteWarningSchema),
  Hints: t.list(RouteHintSchema),
});

export const RouteItinerarySchema = defineRecord('RouteItinerary', {
  Items: t.list(RouteItineraryItemSchema),
});

export const RouteLegSchema = defineRecord('RouteLeg', {
  Distance: t.double().req(),
  Time: t.int().req(),
  Itinerary: t.record(RouteItinerarySchema),
  Map: t.string(),
});

export const RouteSchema = defineRecord('Route', {
  Distance: t.double().req(),
  Time: t.int().req(),
  RouteLegs: t.list(RouteLegSchema),
  Points: t.list(LatLongSchema),
  Map: t.string(),
});

export const RouteResultSchema = extendRecord(ResultSchema, 'RouteResult', {
  Route: t.record(RouteSchema),
});

export const RoutesResultSchema = extendRecord(ResultSchema, 'RoutesResult', {
  Results: t.list(RouteResultSchema),
  Map: t.string(),
});

// ----------------------------------------------------------------------------- dispatch
export const ShapeSchema = defineRecord('Shape', {
  Points: t.list(LatLongSchema),
  Restriction: t.enum(Restriction).def('DoNotEnter'),
});

export const VehicleSchema = defineRecord('Vehicle', {
  Name: t.string(),
  Email: t.string(),
  Group: t.string(),
  Speed: t.int().def(0).range(0, MAX_SPEED),
  MaxStops: t.int().def(0).range(0, MAX_COUNT),
  MaxWeight: t.double().def(0).range(0, MAX_AMOUNT),
  MaxSkids: t.int().def(0).range(0, MAX_COUNT),
  MaxVolume: t.double().def(0).range(0, MAX_AMOUNT),
  MaxMinutes: t.int().def(0).range(0, MAX_TRIP_MINUTES),
  FuelCost: t.double().def(0).range(0, MAX_FUEL_COST),
  OnTheRoad: t.boolean().def(false),
  Tin: t.dateTime().def(NULL_DATE),
  Tout: t.dateTime().def(NULL_DATE),
  StartLocation: t.record(LocationSchema),
  FinishLocation: t.record(LocationSchema),
  Roles: t.string(),
  Shapes: t.list(ShapeSchema),
});

export const DispatchSpecificationSchema = defineRecord('DispatchSpecification', {
  RoutingService: t.enum(RoutingService).def('EngineOne'),
  IsNeedMatchCode: t.boolean().def(false),
  CurrentTime: t.dateTime().def(NULL_DATE),
  DispatchMode: t.enum(DispatchMode).def('Auto'),
  MinimumOptimization: t.int().def(4).range(1, MAX_MINIMUM_OPTIMIZATION)
    .describe('Search effort: 1 = construction and local search only, 4 = default, each level above doubles the search; at most 10.'),
  DistanceUnit: t.enum(DistanceUnit).def('Mile'),
  RouteOptimize: t.enum(RouteOptimize).def('MinimizeTime'),
  Vehicles: t.list(VehicleSchema),
  Locations: t.list(LocationSchema),
});

export const VehicleItemSchema = defineRecord('VehicleItem', {
  Vehicle: t.record(VehicleSchema),
  Locations: t.list(LocationSchema),
});

export const DispatchResultSchema = extendRecord(ResultSchema, 'DispatchResult', {
  Items: t.list(VehicleItemSchema),
});

// ----------------------------------------------------------------------------- geocode
export const GeocodeSpecificationSchema = defineRecord('GeocodeSpecification', {
  IsNeedMatchCode: t.boolean().def(false),
  Addresses: t.list(AddressSchema),
});

export const GeocodeItemSchema = defineRecord('GeocodeItem', {
  Address: t.record(AddressSchema),
  Locations: t.list(LocationSchema),
});

export const GeocodeResultSchema = extendRecord(ResultSchema, 'GeocodeResult', {
  Items: t.list(GeocodeItemSchema),
});

// ----------------------------------------------------------------------------- distance
export const DistanceSpecificationSchema = defineRecord('DistanceSpecification', {
  StartLocation: t.record(LocationSchema),
  FinishLocation: t.record(LocationSchema),
  DistanceUnit: t.enum(DistanceUnit).req(),
  RouteOptimize: t.enum(RouteOptimize).def('MinimizeTime'),
});

export const DistanceResultSchema = extendRecord(ResultSchema, 'DistanceResult', {
  StartLocationMatchCode: t.enum(MatchCode).req(),
  FinishLocationMatchCode: t.enum(MatchCode).req(),
  Distance: t.double().req(),
  Time: t.int().req(),
});

// ----------------------------------------------------------------------------- account, stored routes, tracks
export const CreditResultSchema = extendRecord(ResultSchema, 'CreditResult', {
  Credit: t.int().req(),
});

export const RouteListSpecificationSchema = defineRecord('RouteListSpecification', {
  FromDate: t.dateTime().def(NULL_DATE),
  ToDate: t.dateTime().def(NULL_DATE),
  Owner: t.string(),
  RouteName: t.string(),
});

export const RouteListItemSchema = defineRecord('RouteListItem', {
  RouteID: t.long().req(),
  RouteName: t.string(),
  Distance: t.double().req(),
  Time: t.int().req(),
  Owner: t.string(),
  DateCreated: t.dateTime().def(NULL_DATE),
});

export const RouteListResultSchema = extendRecord(ResultSchema, 'RouteListResult', {
  Routes: t.list(RouteListItemSchema),
});

export const GetRouteSpecificationSchema = defineRecord('GetRouteSpecification', {
  RouteID: t.long().req(),
  Version: t.int().describe('Extension: a version of a re-dispatched route (absent or 0: the newest).'),
});

export const TrackSpecificationSchema = defineRecord('TrackSpecification', {
  Account: t.string(),
  FromDate: t.dateTime().req(),
  ToDate: t.dateTime().req(),
});

export const TrackPointSchema = extendRecord(LatLongSchema, 'TrackPoint', {
  TimeStamp: t.dateTime().req(),
});

export const TrackResultSchema = extendRecord(ResultSchema, 'TrackResult', {
  TrackPoints: t.list(TrackPointSchema),
});

// ----------------------------------------------------------------------------- extensions (not in the original contract)
/**
 * Extension: GPS points sent to the service (the contract shows only their retrieval, GetTrack).
 * Account names the track within the caller's account (default: the account's own name), as
 * TrackSpecification.Account does.
 */
export const TrackPointsSpecificationSchema = defineRecord('TrackPointsSpecification', {
  Account: t.string(),
  TrackPoints: t.list(TrackPointSchema),
}, 'Extension: GPS points to record (UTC time stamps) on a track of the caller\'s account.');

export const TrackPointsResultSchema = extendRecord(ResultSchema, 'TrackPointsResult', {
  Count: t.int().req().describe('Points recorded.'),
}, 'Extension: the outcome of recording track points.');

/** Extension: Login's two parameters as one JSON body (REST `POST /rest/login`, as the legacy REST API took them). */
export const LoginSpecificationSchema = defineRecord('LoginSpecification', {
  UserName: t.string(),
  Password: t.string(),
}, 'Extension: Login over REST (userName, password).');

/** Every record, in dependency order (for schema/XSD generation). */
export const RECORDS = [
  ErrorSchema, ResultSchema, SessionIDHeaderSchema, LoginResultSchema, LatLongSchema, AddressSchema, MapSizeSchema,
  RouteColorSchema, LocationSchema, RouteOptionsSchema, RouteSpecificationSchema, RoutesSpecificationSchema,
  RouteWarningSchema, RouteHintSchema, RouteItineraryItemSchema, RouteItinerarySchema, RouteLegSchema, RouteSchema,
  RouteResultSchema, RoutesResultSchema, ShapeSchema, VehicleSchema, DispatchSpecificationSchema, VehicleItemSchema,
  DispatchResultSchema, GeocodeSpecificationSchema, GeocodeItemSchema, GeocodeResultSchema, DistanceSpecificationSchema,
  DistanceResultSchema, CreditResultSchema, RouteListSpecificationSchema, RouteListItemSchema, RouteListResultSchema,
  GetRouteSpecificationSchema, TrackSpecificationSchema, TrackPointSchema, TrackResultSchema,
  TrackPointsSpecificationSchema, TrackPointsResultSchema, LoginSpecificationSchema,
] as const;
