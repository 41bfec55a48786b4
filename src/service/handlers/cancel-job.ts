/** CancelJob (DELETE /rest/jobs/{JobID}): cancels the job, refunding its credit; a finished job stays as it ended. */
import type { JobReferenceSchema, Parsed } from '../../records/index.js';
import type { Call } from '../call.js';
import type { JobView } from '../jobs.js';
import { refuse, type Refusal } from '../refusals.js';
import { jobsOf } from './jobs-common.js';
import { viewFor } from './get-job.js';

export async function cancelJob(spec: Parsed<typeof JobReferenceSchema>, call: Call): Promise<JobView | Refusal> {
  const v = await jobsOf(call).cancel(call.account!, spec.JobID);
  return v ? viewFor(v, call) : refuse('NotFound', 'No such job in this account.');
}
