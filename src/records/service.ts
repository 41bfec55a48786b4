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

/** The service's own records, for the OpenAPI document. */
export const SERVICE_RECORDS = [
  JobSubmissionSchema, JobReferenceSchema, JobSubmittedSchema, JobViewSchema, DatasetInfoSchema, RoadsSpecificationSchema,
  GeoJsonResultSchema, PlanSpecificationSchema,
] as const;
