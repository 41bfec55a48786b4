/** Helpers to build Result records (Status + Errors) from issues and engine errors. */
import type { Issue } from './schema.js';
import { toErrorRecord, type ErrorRecord } from '../core/errors.js';

export type StatusName = 'None' | 'Success' | 'Failed' | 'SuccessWithErrors';

export interface ResultBase {
  Errors?: { Message?: string }[];
  Status: StatusName;
}

export function issueMessage(i: Issue): string {
  return i.path ? `${i.path}: ${i.message}` : i.message;
}

/** A Failed result listing the issues (each naming its field path). */
export function failedFromIssues<R extends object = {}>(issues: Issue[], extra?: R): R & ResultBase {
  return { ...(extra as R), Status: 'Failed', Errors: issues.map((i) => ({ Message: issueMessage(i) })) };
}

/** A Failed result from anything thrown (EngineError codes are kept in the message). */
export function failedFromError<R extends object = {}>(e: unknown, extra?: R): R & ResultBase {
  const r: ErrorRecord = toErrorRecord(e);
  return { ...(extra as R), Status: 'Failed', Errors: [{ Message: errorMessage(r) }] };
}

export function errorMessage(r: ErrorRecord): string {
  const text = r.path && !r.message.startsWith(r.path) ? `${r.path}: ${r.message}` : r.message;
  return `${text} [${r.code}]`;
}

/** Success, or SuccessWithErrors when there are messages. */
export function statusFor(messages: string[]): { Status: StatusName; Errors?: { Message: string }[] } {
  return messages.length === 0
    ? { Status: 'Success', Errors: [] }
    : { Status: 'SuccessWithErrors', Errors: messages.map((m) => ({ Message: m })) };
}
