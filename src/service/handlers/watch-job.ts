/**
 * WatchJob (GET /rest/jobs/{JobID}/events): the job as GetJob answers it, each time it changes,
 * until it ends (or the caller goes away). The HTTP faces send it as server-sent events.
 */
import type { JobReferenceSchema, Parsed } from '../../records/index.js';
import type { Call } from '../call.js';
import type { JobView } from '../jobs.js';
import { isPending } from '../../store/common.js';
import { refuse, type Refusal } from '../refusals.js';
import { jobsOf } from './jobs-common.js';
import { viewFor } from './get-job.js';

/** How often the job's row is read while it runs. */
const POLL_MS = 150;

export async function watchJob(spec: Parsed<typeof JobReferenceSchema>, call: Call): Promise<AsyncIterable<JobView> | Refusal> {
  const jobs = jobsOf(call);
  const account = call.account!;
  const first = await jobs.get(account, spec.JobID);
  if (!first) return refuse('NotFound', 'No such job in this account.');
  const signal = call.signal;
  return (async function* changes(): AsyncGenerator<JobView> {
    let v: JobView | null = first;
    let last = '';
    while (v && !signal.aborted) {
      // what changes while a job runs (a result comes once, with the end): its text is not compared
      const text = JSON.stringify({ ...v, Result: v.Result ? v.Result.text.length : undefined });
      if (text !== last) { yield await viewFor(v, call); last = text; }
      if (!isPending(v.State)) return;
      await new Promise((r) => setTimeout(r, POLL_MS));
      v = await jobs.get(account, spec.JobID).catch(() => v);
    }
  })();
}
