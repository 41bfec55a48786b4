/**
 * What an operation's handler runs with: the service (engine, store, jobs, settings), the caller's
 * account and key, and the call's limit (one signal: the time limit joined with the caller's
 * cancellation, see `core/cancel.ts` CallLimit).
 */
import type { ProgressEvent } from '../core/cancel.js';
import type { Account } from '../store/types.js';
import type { ServiceOperation } from './operations.js';
import type { Service } from './service.js';

export interface Call {
  readonly service: Service;
  readonly row: ServiceOperation;
  /** The caller's account (null: Login). */
  readonly account: Account | null;
  /** The API key or Login session key, as sent. */
  readonly key: string | null | undefined;
  /** The caller's network address, when the face knows it (Login attempts are limited per address). */
  readonly client: string | undefined;
  /** Aborted at the operation's time limit or when the caller goes away. */
  readonly signal: AbortSignal;
  /**
   * Aborted only when the caller cancels or goes away (a job cancelled, a client disconnected),
   * not at the time limit: nobody reads the answer then, so long work may stop without one.
   */
  readonly callerGone?: AbortSignal;
  /** The operation's time limit in ms (Infinity: none). */
  readonly limitMs: number;
  readonly onProgress?: (e: ProgressEvent) => void;
  /** Dispatch: the stored route's name and owner (REST headers X-Route-Name, X-Route-Owner). */
  readonly routeName?: string;
  readonly owner?: string;
  /** The face writes the answer as JSON with this enum form (CallOptions.encodeFor). */
  readonly encodeFor?: 'int' | 'name';
}
