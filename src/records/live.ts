/**
 * Records of live re-dispatch (issue #24; extensions, like TrackPoints): stop events sent for a
 * stored route, the live state of a route (where each vehicle is, what it has done, its
 * remaining stops with renewed estimates), and the Redispatch operation (a stored route, "now",
 * and what changed → the route's next version with a change list). Same schema language as the
 * contract, so every face, the OpenAPI document and the validation come from one definition.
 * docs/live.md says what each field means.
 */
import { defineEnum, defineRecord, extendRecord, t } from './schema.js';
import { DispatchResultSchema, LocationSchema, ResultSchema, TrackPointSchema } from './contract.js';

export const StopEventKind = defineEnum('StopEventKind', { Arrived: 0, Done: 1, Failed: 2, Skipped: 3 });

export const StopEventSchema = defineRecord('StopEvent', {
  Vehicle: t.string().req().describe('The Vehicle\'s Name (a trip `<Name>_2` counts as its vehicle).'),
  Location: t.string().req().describe('The Location\'s Name.'),
  Event: t.enum(StopEventKind).req().describe('Arrived, Done, Failed (could not be served; leaves the plan) or Skipped (leaves the plan).'),
  TimeStamp: t.dateTime().req(),
}, 'Extension: what happened at a stop of a stored route.');

export const StopEventsSpecificationSchema = defineRecord('StopEventsSpecification', {
  RouteID: t.long().req(),
  Events: t.list(StopEventSchema),
}, 'Extension: stop events for a stored route (they override what the vehicles\' tracks show).');

export const StopEventsResultSchema = extendRecord(ResultSchema, 'StopEventsResult', {
  Count: t.int().req().describe('Events recorded.'),
}, 'Extension: the outcome of recording stop events.');

export const LiveSpecificationSchema = defineRecord('LiveSpecification', {
  RouteID: t.long().req(),
  AsOf: t.dateTime().describe('The instant of the state (default: now). Track points after it are ignored.'),
  Version: t.int().describe('A version of the route (absent or 0: the current one).'),
}, 'Extension: the live state of a stored route.');

export const LiveStopSchema = defineRecord('LiveStop', {
  Name: t.string(),
  TimeEstimatedArrival: t.dateTime(),
  Late: t.boolean().def(false).describe('Service will start after its window closes (or no window can be met any more).'),
});

export const LiveVehicleSchema = defineRecord('LiveVehicle', {
  Name: t.string(),
  Position: t.record(TrackPointSchema).describe('Where the vehicle was at its last track point, on the road (map-matched); absent before the first point.'),
  Done: t.list(t.string().ty).describe('Stops that are over (done, failed or skipped, by event or seen on the track), in the order they ended.'),
  Next: t.string().describe('The stop it is at or driving to.'),
  Remaining: t.list(LiveStopSchema),
  Lateness: t.double().def(1).describe('Observed driving ÷ planned driving so far (1 = on plan); the remaining legs are scaled by it.'),
});

export const LiveResultSchema = extendRecord(ResultSchema, 'LiveResult', {
  RouteID: t.long(),
  Version: t.int(),
  AsOf: t.dateTime(),
  Vehicles: t.list(LiveVehicleSchema),
}, 'Extension: the live state of a stored route.');

export const RedispatchSpecificationSchema = defineRecord('RedispatchSpecification', {
  RouteID: t.long().req(),
  CurrentTime: t.dateTime().req().describe('"Now": vehicles start where they are at this instant.'),
  Locations: t.list(LocationSchema).describe('New stops (orders that came in).'),
  Cancelled: t.list(t.string().ty).describe('Names of Locations that leave the plan.'),
  Unavailable: t.list(t.string().ty).describe('Names of Vehicles that can take no more work (their stops are re-planned; goods on board are lost with them and reported).'),
  Frozen: t.int().def(1).range(0, 1000).describe('Per vehicle, the next stops kept as planned, in place (besides the one in progress).'),
  Stability: t.double().def(2).range(0, 1000).describe('The cost of moving a stop to another vehicle, in mean legs of the problem; 0 = re-plan from scratch.'),
  MinimumOptimization: t.int().def(2).range(1, 10).describe('Search effort, as Dispatch\'s; default 2: the search starts from the current plan (on a simulated 200-stop day, 2 gave the same plans as 4 in a third of the time).'),
  Version: t.int().describe('The version re-dispatched (absent or 0: the current one); another re-dispatch in between is refused.'),
}, 'Extension: re-dispatch a stored route from "now".');

export const RouteChangeKind = defineEnum('RouteChangeKind', { Moved: 0, Reordered: 1, Added: 2, Cancelled: 3, Unserved: 4, Served: 5 });

export const RouteChangeSchema = defineRecord('RouteChange', {
  Location: t.string(),
  Change: t.enum(RouteChangeKind).req(),
  FromVehicle: t.string(),
  ToVehicle: t.string(),
  EtaShift: t.int().describe('Seconds: new estimated arrival − previous (positive = later).'),
  Reason: t.string(),
});

export const RedispatchResultSchema = extendRecord(DispatchResultSchema, 'RedispatchResult', {
  RouteID: t.long(),
  Version: t.int(),
  Changes: t.list(RouteChangeSchema),
}, 'Extension: the re-dispatched plan (each vehicle\'s first entry is where it is at CurrentTime), its version and what changed.');

export const LIVE_ENUMS = [StopEventKind, RouteChangeKind] as const;

export const LIVE_RECORDS = [
  StopEventSchema, StopEventsSpecificationSchema, StopEventsResultSchema, LiveSpecificationSchema, LiveStopSchema, LiveVehicleSchema,
  LiveResultSchema, RedispatchSpecificationSchema, RouteChangeSchema, RedispatchResultSchema,
] as const;
