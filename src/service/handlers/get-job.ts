/** GetJob (GET /rest/jobs/{JobID}): the job's state, progress and (once completed) result. */
import type { JobReferenceSchema, Parsed } from '../../records/index.js';
import type { Call } from '../call.js';
import type { JobView } from '../jobs.js';
import { operationNamed } from '../operations.js';
import { refuse, type Refusal } from '../refusals.js';
import { jobsOf } from './jobs-common.js';

export async function getJob(spec: Parsed<typeof JobReferenceSchema>, call: Call): Promise<JobView | Refusal> {
  return (await jobsOf(call).get(call.account!, spec.JobID)) ?? refuse('NotFound', 'No such job in this account.');
}

/** A job as JSON: its Result encoded with its operation's result record (integer enums unless names are asked for). */
export function encodeJobView(v: JobView, enums: 'int' | 'name'): Record<string, unknown> {
  if (!v.Result) return { ...v };
  const row = operationNamed(v.Operation);
  const parsed = row?.result.safeParse(v.Result);
  return { ...v, Result: row && parsed?.ok ? row.result.encode(parsed.value as never, { enums }) : v.Result };
}
