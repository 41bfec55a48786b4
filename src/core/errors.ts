/**
 * The engine's error taxonomy: a small set of stable codes. Codes are part of the public
 * contract (tests assert on them; the service layer maps them to HTTP/SOAP outcomes).
 * Errors cross worker boundaries as plain {@link ErrorRecord}s, never as class instances
 * (structuredClone drops custom fields of Error subclasses).
 */
export type ErrorCode =
  /**
   * The caller's input is malformed or out of range; `path` names the field. This includes
   * input *files* the caller supplies — an OSM extract (`path: 'extract'`), a VRP instance
   * (`path: 'instance'`), a JSON spec — whose message names the file and the byte offset or
   * line (also in `details`: `{ file, offset }` / `{ file, line, field }`).
   */
  | 'InvalidInput'
  /** A coordinate is too far from any road (or outside the dataset). */
  | 'NoSegment'
  /** Two points are on the network but no path connects them. */
  | 'NoRoute'
  /** The request would exceed a configured size/memory bound. */
  | 'TooBig'
  /** Work was cancelled through an AbortSignal. */
  | 'Cancelled'
  /**
   * A dataset file (`.dkds`, core/binfile.ts) is damaged, truncated, foreign or written by
   * another version. The message names the file (when known) and the section or byte offset
   * (`details: { file, section?, offset? }`). Used only for dispatchkit's own files: a damaged
   * OSM extract is `InvalidInput`.
   */
  | 'DatasetFormat'
  /** A stop/vehicle combination can never be served. */
  | 'Infeasible'
  /**
   * Something was asked that this engine does not do (yet), including valid input files using a
   * feature it lacks (an OSM PBF compression or required feature, a VRPLIB edge weight type).
   */
  | 'Unsupported'
  /** Service: no key, or a key that names no account or session (HTTP 401). */
  | 'Unauthorized'
  /** Service: the account is blocked or expired, or its credit does not cover the request (HTTP 403). */
  | 'Forbidden'
  /** Service: a name already taken (an account), or a state that forbids the change. */
  | 'Conflict'
  /** Service: the caller's request rate is over its limit (HTTP 429, with the seconds to wait in `details.retryAfter`). */
  | 'RateLimited'
  /**
   * The service's database failed or cannot be used: unreachable, or written by a newer version
   * of dispatchkit (`details: { version, supported }`), or a migration failed.
   */
  | 'Storage'
  /**
   * A bug: an invariant of the engine did not hold. Never the outcome of bad input data: readers
   * map every failure of their input (including RangeErrors and zlib errors) to a code above.
   */
  | 'Internal';

export interface ErrorRecord {
  code: ErrorCode;
  message: string;
  /** Field path within the request, when the error is about one field (e.g. `Locations[3].LatLong.Latitude`). */
  path?: string;
  details?: Record<string, unknown>;
}

export class EngineError extends Error {
  readonly code: ErrorCode;
  readonly path: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, opts: { path?: string; details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'EngineError';
    this.code = code;
    this.path = opts.path;
    this.details = opts.details;
  }

  toRecord(): ErrorRecord {
    const r: ErrorRecord = { code: this.code, message: this.message };
    if (this.path !== undefined) r.path = this.path;
    if (this.details !== undefined) r.details = this.details;
    return r;
  }

  static fromRecord(r: ErrorRecord): EngineError {
    return new EngineError(r.code, r.message, { path: r.path, details: r.details });
  }
}

export function isEngineError(e: unknown): e is EngineError {
  return e instanceof EngineError;
}

/** The message of a cancellation that has no reason of its own (see core/cancel.ts `cancelledError`). */
export const CANCELLED_MESSAGE = 'The operation was cancelled.';

/** Any thrown value as a plain, serialisable record (unknown errors become `Internal`). */
export function toErrorRecord(e: unknown): ErrorRecord {
  if (e instanceof EngineError) return e.toRecord();
  if (e && typeof e === 'object' && 'code' in e && 'message' in e && typeof (e as ErrorRecord).code === 'string' && ERROR_CODES.has((e as ErrorRecord).code)) {
    return { ...(e as ErrorRecord) };
  }
  if (e instanceof Error && (e.name === 'AbortError' || e.message === 'The operation was aborted')) {
    return { code: 'Cancelled', message: CANCELLED_MESSAGE };
  }
  const msg = e instanceof Error ? e.message : String(e);
  return { code: 'Internal', message: `Internal error: ${msg}` };
}

export const ERROR_CODES: ReadonlySet<string> = new Set<ErrorCode>([
  'InvalidInput', 'NoSegment', 'NoRoute', 'TooBig', 'Cancelled', 'DatasetFormat', 'Infeasible', 'Unsupported',
  'Unauthorized', 'Forbidden', 'Conflict', 'RateLimited', 'Storage', 'Internal',
]);

export function invalidInput(path: string, message: string, details?: Record<string, unknown>): EngineError {
  return new EngineError('InvalidInput', `${path}: ${message}`, { path, details });
}
