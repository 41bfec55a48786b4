/**
 * Refusals: a request the service does not run (or cannot answer), as opposed to an operation
 * that ran and failed (HTTP 200 with Status Failed, nothing charged). One table maps each refusal
 * to its HTTP status, the side a SOAP fault blames (Client/Sender or Server/Receiver) and the
 * Retry-After it carries; every face (REST, SOAP, plain HTTP, jobs, the page) reads it.
 */
import { toErrorRecord } from '../core/errors.js';

export type RefusalCode =
  | 'Unauthorized' | 'Forbidden' | 'RateLimited' | 'BadRequest' | 'NotFound' | 'MethodNotAllowed'
  | 'TooLarge' | 'UnsupportedMediaType' | 'Unavailable' | 'Stopping' | 'Internal';

/** A refusal before any work (or instead of an answer): the face maps it with {@link REFUSALS}. */
export interface Refusal {
  kind: 'refused';
  code: RefusalCode;
  message: string;
  /** Whole seconds to wait (RateLimited, Unavailable, Stopping). */
  retryAfter?: number;
}

export interface RefusalRule {
  /** HTTP status on every face. */
  http: number;
  /** Who a SOAP fault blames: the caller (soap:Client / soap:Sender) or the server (soap:Server / soap:Receiver). */
  soap: 'client' | 'server';
  /** Retry-After (seconds) when the refusal does not carry its own. */
  retryAfter?: number;
  /** When it happens, for the documents. */
  doc: string;
}

export const REFUSALS: Readonly<Record<RefusalCode, RefusalRule>> = Object.freeze({
  Unauthorized: { http: 401, soap: 'client', doc: 'No key, or a key that names no account or live Login session.' },
  Forbidden: { http: 403, soap: 'client', doc: 'The account is blocked or expired, or its credit does not cover the request.' },
  RateLimited: { http: 429, soap: 'client', retryAfter: 1, doc: "Over the account's request rate (or Login attempts from an address)." },
  BadRequest: { http: 400, soap: 'client', doc: 'The request cannot be read: not JSON/XML, nested too deep, not valid HTTP, a job submission without an operation.' },
  NotFound: { http: 404, soap: 'client', doc: 'No such path, operation or job (in this account).' },
  MethodNotAllowed: { http: 405, soap: 'client', doc: 'The path exists with another HTTP method.' },
  TooLarge: { http: 413, soap: 'client', doc: 'The body is larger than the server accepts.' },
  UnsupportedMediaType: { http: 415, soap: 'client', doc: 'SOAP: a Content-Type other than text/xml (1.1) or application/soap+xml (1.2).' },
  Unavailable: { http: 503, soap: 'server', retryAfter: 5, doc: "The service's database is not available." },
  Stopping: { http: 503, soap: 'server', retryAfter: 5, doc: 'The server is stopping.' },
  Internal: { http: 500, soap: 'server', doc: 'A bug; nothing was charged.' },
});

export function refuse(code: RefusalCode, message: string, retryAfter?: number): Refusal {
  return { kind: 'refused', code, message, ...(retryAfter !== undefined ? { retryAfter } : {}) };
}

export function isRefusal(x: unknown): x is Refusal {
  return typeof x === 'object' && x !== null && (x as Refusal).kind === 'refused';
}

/** The HTTP status of a refusal. */
export function refusalStatus(r: Refusal): number {
  return REFUSALS[r.code].http;
}

/** The Retry-After seconds of a refusal, or undefined when it has none. */
export function refusalRetryAfter(r: Refusal): number | undefined {
  return r.retryAfter ?? REFUSALS[r.code].retryAfter;
}

/** What an unexpected error becomes for the caller: the database being away is Unavailable, anything else Internal. */
export function refusalOf(e: unknown, requestId: string): Refusal {
  const r = toErrorRecord(e);
  if (r.code === 'Storage') return refuse('Unavailable', `The service's database is not available: ${r.message}`);
  return refuse('Internal', `Internal error (request ${requestId}); the operation was not charged.`);
}
