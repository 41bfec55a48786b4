/** Small helpers the account handlers share. */
import { dateToSeconds, failedFromIssues, type Issue } from '../../records/index.js';

export { MAX_NAME } from './engine.js';

/** A contract dateTime as a UTC instant in ms (a zoneless one is read as UTC), or null when "not set". */
export function instantOf(s: string | undefined): number | null {
  const sec = dateToSeconds(s);
  return sec === null ? null : Math.round(sec * 1000);
}

/** An instant as the service writes it: UTC with Z, milliseconds only when there are some. */
export function utcDate(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, 19)}Z` : iso;
}

/** A Failed result naming one field. */
export function failedAt(path: string, message: string): ReturnType<typeof failedFromIssues> {
  return failedFromIssues([{ path, message } satisfies Issue]);
}
