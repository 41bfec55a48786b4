/** GetJob (GET /rest/jobs/{JobID}): the job's state, progress and (once completed) result. */
import type { JobReferenceSchema, Parsed } from '../../records/index.js';
import type { Call } from '../call.js';
import type { JobView } from '../jobs.js';
import { refuse, type Refusal } from '../refusals.js';
import { jobsOf } from './jobs-common.js';

export async function getJob(spec: Parsed<typeof JobReferenceSchema>, call: Call): Promise<JobView | Refusal> {
  const v = await jobsOf(call).get(call.account!, spec.JobID);
  return v ? viewFor(v, call) : refuse('NotFound', 'No such job in this account.');
}

/**
 * The view with its Result in the enum form the face writes, converted in slices when it is not
 * the stored one (a result can be megabytes): the face then writes its text as it is.
 */
export async function viewFor(v: JobView, call: Call): Promise<JobView> {
  return v.Result && call.encodeFor !== undefined ? { ...v, Result: await v.Result.inForm(call.encodeFor) } : v;
}

/** A job as JSON: its Result as text in the enum form asked for (integers unless names are asked for). */
export function encodeJobView(v: JobView, enums: 'int' | 'name'): Record<string, unknown> {
  return v.Result ? { ...v, Result: v.Result.inFormNow(enums) } : { ...v };
}
