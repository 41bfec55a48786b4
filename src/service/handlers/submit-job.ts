/** SubmitJob (POST /rest/jobs): runs Dispatch, Geocode or CalculateRoutes asynchronously. */
import type { JobSubmissionSchema, Parsed } from '../../records/index.js';
import type { Call } from '../call.js';
import type { Refusal } from '../refusals.js';
import { isRefusal } from '../refusals.js';
import { jobsOf } from './jobs-common.js';

export async function submitJob(spec: Parsed<typeof JobSubmissionSchema>, call: Call): Promise<{ Status: 'Success'; Errors: []; JobID: string } | Refusal> {
  const r = await jobsOf(call).submit(call.account!, spec.Operation, spec.Specification);
  if (isRefusal(r)) return r;
  return { Status: 'Success', Errors: [], JobID: r.JobID };
}
