/**
 * Records of plan evaluation (issue #25; an extension): a dispatch's specification and a plan
 * given by hand — per vehicle, its stops in order, by Name — checked and timed on the road
 * network without optimising. What the dispatcher's page asks when a stop is dragged to another
 * vehicle. docs/evaluate.md says what each field means.
 */
import { defineEnum, defineRecord, extendRecord, t } from './schema.js';
import { DispatchResultSchema, DispatchSpecificationSchema } from './contract.js';

export const PlannedRouteSchema = defineRecord('PlannedRoute', {
  Vehicle: t.string().req().describe('A Vehicle\'s Name (its second trip `<Name>_2`, and so on).'),
  Locations: t.list(t.string().ty).describe('Names of the Locations it serves, in order (its own StartLocation and FinishLocation left out; Breaks without a place are scheduled by themselves).'),
}, 'Extension: one vehicle\'s stops in order.');

export const EvaluatePlanSpecificationSchema = defineRecord('EvaluatePlanSpecification', {
  Specification: t.record(DispatchSpecificationSchema).req().describe('The dispatch the plan is for (its Locations, Vehicles and options).'),
  Routes: t.list(PlannedRouteSchema).describe('The plan: vehicles not listed serve nothing; Locations in no route are reported in Unserved.'),
  Explain: t.boolean().def(true).describe('For each stop in no route, find the vehicle and place that come closest to taking it.'),
}, 'Extension: check and time a plan given by hand.');

export const ViolationKind = defineEnum('ViolationKind', {
  Window: 0, Capacity: 1, Shift: 2, MaxStops: 3, MaxMinutes: 4, Vehicle: 5, Conditions: 6, Zone: 7, Pair: 8, KeepOrder: 9, Unreachable: 10, Break: 11,
});

export const PlanViolationSchema = defineRecord('PlanViolation', {
  Vehicle: t.string().describe('The vehicle (trip) whose route breaks the rule.'),
  Location: t.string().describe('The stop concerned (absent: the route as a whole).'),
  Kind: t.enum(ViolationKind).req(),
  Amount: t.double().describe('By how much: seconds (Window, Shift, MaxMinutes), the capacity\'s unit (Capacity: Weight, Volume or Skids, see Field), stops (MaxStops).'),
  Field: t.string().describe('The contract field of the rule (e.g. `Vehicles[1].MaxWeight`, `Locations[4].TimeConstraintDeparture`).'),
  Message: t.string(),
});

export const UnservedStopSchema = defineRecord('UnservedStop', {
  Location: t.string(),
  Index: t.int().describe('Its index in Specification.Locations.'),
  Fits: t.boolean().def(false).describe('It could be served as the plan stands (Vehicle, Position) without breaking a rule.'),
  Vehicle: t.string().describe('The vehicle that comes closest to taking it.'),
  Position: t.int().describe('Where in that vehicle\'s stops (0 = first).'),
  Misses: t.list(PlanViolationSchema).describe('What taking it there would break, by how much.'),
  Message: t.string().describe('In words: why it is not served, and what would make it fit.'),
});

export const EvaluatePlanResultSchema = extendRecord(DispatchResultSchema, 'EvaluatePlanResult', {
  Feasible: t.boolean().def(false).describe('No route breaks a rule.'),
  Violations: t.list(PlanViolationSchema),
  Unserved: t.list(UnservedStopSchema),
  Distance: t.double().describe('The plan\'s driving distance, in the specification\'s DistanceUnit.'),
  Time: t.int().describe('The plan\'s driving time, seconds.'),
  Duration: t.int().describe('The routes\' working time (driving, waiting, service, breaks), seconds.'),
  Cost: t.double().describe('The dispatch\'s objective over the routes (the same units for every plan of one specification: compare two plans by it).'),
}, 'Extension: a plan checked and timed: Items as Dispatch answers them (ETAs, legs), the rules it breaks, the stops it leaves out and why.');

export const PLAN_ENUMS = [ViolationKind] as const;
export const PLAN_RECORDS = [PlannedRouteSchema, EvaluatePlanSpecificationSchema, PlanViolationSchema, UnservedStopSchema, EvaluatePlanResultSchema] as const;
