/** What the job handlers share. */
import type { Jobs } from '../jobs.js';
import type { Call } from '../call.js';
import { EngineError } from '../../core/errors.js';

export function jobsOf(call: Call): Jobs {
  const jobs = call.service.jobs;
  if (!jobs) throw new EngineError('Internal', 'This service runs no jobs (no Jobs was made for it).');
  return jobs;
}
