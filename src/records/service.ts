/**
 * Records of the service's own operations beyond the contract: jobs (submit, watch, cancel) and
 * what the dispatcher's page reads (the dataset's extent, its roads, a plan drawn on them). Same
 * schema language as the contract (`contract.ts`), so every face, the OpenAPI document and the
 * validation come from one definition. Not part of the SOAP contract.
 */
import { defineRecord, extendRecord, t, Field, Ty, type Issue } from './schema.js';
import { DispatchResultSchema, ResultSchema } from './contract.js';

/** Any JSON value, passed through as it is (a job's specification or result, a GeoJSON document). */
class JsonTy extends Ty<unknown> {
  readonly label = 'json';
  parse(v: unknown): unknown { return v; }
  encode(v: unknown): unknown { return v; }
  jsonSchema(): object { return {}; }
}
const JSON_TY = new JsonTy();
const json = (): Field<unknown, unknown, 'opt'> => new Field(JSON_TY, 'opt');

/** An identifier of a job: 1 to 100 characters among A–Z, a–z, 0–9, '-' and '_' (a UUID fits). */
class JobIdTy extends Ty<string> {
  readonly label = 'string';
  parse(v: unknown, path: string, issues: Issue[]): string | undefined {
    if (typeof v === 'string' && /^[A-Za-z0-9_-]{1,100}$/.test(v)) return v;
    issues.push({ path, message: `must be a job identifier (1 to 100 characters among A-Z, a-z, 0-9, '-' and '_'; got ${JSON.stringify(v)?.slice(0, 60)})` });
    return undefined;
  }
  encode(v: string): unknown { return v; }
  jsonSchema(): object { return { type: 'string', pattern: '^[A-Za-z0-9_-]{1,100}$' }; }
}
const jobId = (): Field<string, string, 'opt'> => new Field(new JobIdTy(), 'opt');

export const JobSubmissionSchema = defineRecord('JobSubmission', {
  Operation: t.string().req().describe('The operation to run: Dispatch, Geocode or CalculateRoutes.'),
  Specification: json().req().describe("The operation's specification record."),
}, 'Extension: an operation to run asynchronously (POST /rest/jobs).');

export const JobReferenceSchema = defineRecord('JobReference', {
  JobID: jobId().req(),
}, 'Extension: names a job of the caller\'s account.');

export const JobSubmittedSchema = extendRecord(ResultSchema, 'JobSubmitted', {
  JobID: t.string(),
}, 'Extension: a job was accepted; watch it at GET /rest/jobs/{JobID}.');

export const JobViewSchema = defineRecord('JobView', {
  JobID: t.string().req(),
  Operation: t.string().req(),
  State: t.string().req().describe('queued, active, completed, failed or cancelled.'),
  Progress: json().describe('The running job\'s progress: { phase, done, total, info? } (null once it ended).'),
  Result: json().describe('completed: the operation\'s result record.'),
  Error: t.string().describe('failed or cancelled: why.'),
  RouteID: t.long().describe('completed Dispatch: the RouteID it was stored under.'),
  Cost: t.long().req().describe('Credits taken (once finished).'),
  Attempts: t.int().req(),
  Created: t.string().req(),
  Updated: t.string().req(),
}, 'Extension: a job, as GET /rest/jobs/{JobID} answers.');

export const DatasetInfoSchema = extendRecord(ResultSchema, 'DatasetInfo', {
  Name: t.string(),
  Attribution: t.string(),
  Bounds: t.list(t.double().ty).describe('[west, south, east, north] in degrees.'),
  Center: t.list(t.double().ty).describe('[latitude, longitude] of the extent\'s centre.'),
}, 'Extension: the dataset the service answers on.');

export const RoadsSpecificationSchema = defineRecord('RoadsSpecification', {
  BBox: t.string().req().describe('west,south,east,north in degrees.'),
  Zoom: t.double().req().describe('Web-map zoom level, 0 to 22.'),
}, "Extension: the dataset's roads in a box, for drawing a map.");

export const GeoJsonResultSchema = extendRecord(ResultSchema, 'GeoJsonResult', {
  GeoJson: json().describe('A GeoJSON FeatureCollection.'),
}, 'Extension: a GeoJSON document.');

export const PlanSpecificationSchema = defineRecord('PlanSpecification', {
  Specification: json().req().describe('The DispatchSpecification the plan answered.'),
  Result: t.record(DispatchResultSchema).req(),
}, 'Extension: a dispatch plan to draw on the roads.');

/** Which specification CheckSpecification reads: Dispatch, Geocode or Distance (CalculateDistance too), any case. */
class SpecificationKindTy extends Ty<SpecificationKind> {
  readonly label = 'string';
  parse(v: unknown, path: string, issues: Issue[]): SpecificationKind | undefined {
    const k = typeof v === 'string' ? SPECIFICATION_KINDS.find((x) => x.toLowerCase() === v.trim().toLowerCase()) ?? (/^calculatedistance$/i.test(v.trim()) ? 'Distance' : undefined) : undefined;
    if (k) return k;
    issues.push({ path, message: `must be ${SPECIFICATION_KINDS.join(', ')} (got ${JSON.stringify(v)?.slice(0, 60)})` });
    return undefined;
  }
  encode(v: SpecificationKind): unknown { return v; }
  jsonSchema(): object { return { type: 'string', enum: [...SPECIFICATION_KINDS] }; }
}
export const SPECIFICATION_KINDS = ['Dispatch', 'Geocode', 'Distance'] as const;
export type SpecificationKind = (typeof SPECIFICATION_KINDS)[number];

export const CheckSpecificationSchema = defineRecord('CheckSpecification', {
  Kind: new Field(new SpecificationKindTy(), 'opt').describe('Dispatch, Geocode or Distance; default: told from the property names.'),
  Specification: json().req().describe('The specification to check, as a client would send it to its operation.'),
  ReturnSpecification: t.boolean().def(true).describe('false: the answer leaves Specification out (a check that only wants Errors and Warnings).'),
}, 'Extension: a specification to check without running it (POST /rest/check).');

export const SpecificationWarningSchema = defineRecord('SpecificationWarning', {
  Code: t.string().req().describe('UnknownProperty, DuplicateProperty, IgnoredField, EmptyWindow, DuplicateName, UnknownDelivery, PreassignedUnknownVehicle, FarFromRoad or FleetTooSmall (docs/semantics.md, "Spec linter").'),
  Path: t.string().req().describe('The field, as in Errors (Vehicles[0].MaxWeigth).'),
  Message: t.string().req(),
}, 'Extension: a linter warning: the specification is valid but probably not what was meant.');

export const CheckResultSchema = extendRecord(ResultSchema, 'CheckResult', {
  Kind: new Field(new SpecificationKindTy(), 'opt').describe('The kind checked.'),
  Warnings: t.list(SpecificationWarningSchema).describe('The linter\'s warnings (never a Failed Status).'),
  Specification: json().describe('The record as its operation reads it: values coerced, defaults applied, enums by name (absent when Failed or ReturnSpecification is false).'),
}, 'Extension: Status Failed with Errors naming the fields when the specification does not validate; Warnings either way.');

/** The service's own records, for the OpenAPI document. */
export const SERVICE_RECORDS = [
  JobSubmissionSchema, JobReferenceSchema, JobSubmittedSchema, JobViewSchema, DatasetInfoSchema, RoadsSpecificationSchema,
  GeoJsonResultSchema, PlanSpecificationSchema, CheckSpecificationSchema, SpecificationWarningSchema, CheckResultSchema,
] as const;
