/**
 * The service: the operation table (`operations.ts`) behind accounts, credit, limits and storage.
 * Faces (REST, SOAP, plain HTTP, jobs, the page, the CLI) parse their wire format, call
 * {@link Service.call} (or {@link Service.authorize} then {@link Service.execute}) and encode what
 * it returns with the row; they hold no business rules.
 *
 * A call: the key is authenticated (an API key, or a Login session key: 401 when missing or
 * unknown; 403 when the account is blocked or expired), the per-account rate limit is taken
 * (429), the request is validated once by its row (bad input is a result with Status Failed
 * naming the field, costing nothing), priced from that validated record (`prices.ts`: the most it
 * can cost is reserved — 403 when the balance does not cover it — or, for an instant operation,
 * checked and charged in one write after the work), the handler runs under the row's time limit
 * (one {@link CallLimit}: the limit joined with the caller's cancellation, held for the whole call),
 * and the work done is settled in one transaction — together with the stored DispatchResult for
 * a dispatch, and a usage record (operation, units, unit price) for the ledger audit.
 */
import { randomBytes } from 'node:crypto';
import { CallLimit, fmtSeconds, type ProgressEvent } from '../core/cancel.js';
import { EngineError, toErrorRecord } from '../core/errors.js';
import type { Engine } from '../engine.js';
import { EventEmitter } from 'node:events';
import { failedFromIssues, jsonSliced, rawJsonSliced, type Chunk, type RecordDef } from '../records/index.js';
import type { Account, NewRoute, Store } from '../store/types.js';
import { keyHash } from '../store/hash.js';
import { retentionCutoffs, SUGGESTED_RETENTION_DAYS } from '../store/rules.js';
import type { Call } from './call.js';
import { LoginGuard, type LoginGuardOptions } from './login-guard.js';
import { OPERATIONS, operationNamed, parseRequest, type ServiceOperation, type ServiceOperationName } from './operations.js';
import { costOf, DEFAULT_PRICES, quote, type PriceList, type Quote } from './prices.js';
import { RateLimiter, type RateLimit } from './rate-limit.js';
import { isRefusal, refuse, type Refusal } from './refusals.js';
import type { Jobs } from './jobs.js';

export type { Refusal } from './refusals.js';
export type { Account } from '../store/types.js';

/** A signal that never aborts (instant calls without a caller's own). */
const NEVER = new AbortController().signal;

/** Default time limit of a synchronous Dispatch: under common client timeouts (.NET's HttpClient waits 100 s). */
export const DISPATCH_TIME_LIMIT_MS = 85_000;
/** Default time limit of the other synchronous operations. */
export const OPERATION_TIME_LIMIT_MS = 60_000;
/** Default time limit of a job (longer work is what jobs are for). */
export const JOB_TIME_LIMIT_MS = 600_000;

export interface ServiceOptions {
  /** Credits per unit of work (default {@link DEFAULT_PRICES}). */
  prices?: PriceList;
  /** This process's name in the reservations (default: random). */
  instance?: string;
  /** A Login key lives this long after its last use (default 4 h). */
  sessionTtlMs?: number;
  /** A dispatch stops searching at this limit and returns its best plan (default {@link DISPATCH_TIME_LIMIT_MS}). */
  dispatchTimeLimitMs?: number;
  /** Other operations are cancelled at this limit: Status Failed, nothing charged (default {@link OPERATION_TIME_LIMIT_MS}). */
  operationTimeoutMs?: number;
  /** A job's limit, whatever its operation (default {@link JOB_TIME_LIMIT_MS}). */
  jobTimeLimitMs?: number;
  /** Per-account request rate (default 1,000/s, bursts of 2,000; perSecond 0 = off). */
  rateLimit?: RateLimit;
  /** Login's defences (per user name and address, hashing per address). */
  login?: LoginGuardOptions;
  /**
   * How long stored routes, finished jobs and GPS points are kept, in days (null = for ever):
   * default {@link SUGGESTED_RETENTION_DAYS} (routes 90, jobs 30, tracks 90). Pruned at start and
   * every `pruneEveryMs` (default 1 h), in short batches (docs/store.md).
   */
  retention?: { routes?: number | null; jobs?: number | null; tracks?: number | null };
  pruneEveryMs?: number;
  /** How often this process says it is alive (default 5 s), and after how long a silent one's open reservations are refunded (default 30 s). */
  heartbeatMs?: number;
  staleMs?: number;
  /** Wall clock in ms (tests). */
  clock?: () => number;
}

export interface CallOptions {
  /** The API key or Login session key, exactly as sent (whitespace is part of it). */
  key?: string | null;
  /** The caller's network address (Login attempts are limited per address). */
  client?: string;
  signal?: AbortSignal;
  onProgress?: (e: ProgressEvent) => void;
  /** Dispatch: the stored route's name (default: "<n> stops on <v> vehicles"). */
  routeName?: string;
  /** Dispatch: the stored route's owner (default: the account's name). */
  owner?: string;
  /**
   * The face writes the answer as JSON with this enum form (REST): operations that can encode
   * their large parts on the executor do (CalculateRoutes), so the answer crosses the event loop as bytes.
   */
  encodeFor?: 'int' | 'name';
}

export interface Answer {
  kind: 'result';
  row: ServiceOperation;
  /** The result record (enum names); encode it with {@link encodeAnswer}. */
  result: Record<string, unknown>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  schema: RecordDef<any>;
  /** Credits taken. */
  cost: number;
  /** Dispatch: the RouteID it was stored under. */
  routeId?: number;
  /** The account that called (Login: none). */
  account?: string;
  /** Streaming operations: the results, one after the other. */
  stream?: AsyncIterable<Record<string, unknown>>;
  /** Known to be small (an instant call's): written in one go, without sizing it first. */
  small?: boolean;
}

export type Outcome = Answer | Refusal;

/** A result's JSON form, as the row encodes it. */
export function encodeAnswer(row: ServiceOperation, result: unknown, enums: 'int' | 'name'): unknown {
  return row.encode ? row.encode(result, enums) : row.result.encode(result as never, { enums });
}

/** An answer's JSON text, as its row encodes it; a large one is written in slices and comes as consecutive chunks (records/json-sliced.ts). */
export function answerJson(o: Answer, enums: 'int' | 'name'): Promise<string | Chunk[]> {
  if (o.small) return Promise.resolve(JSON.stringify(encodeAnswer(o.row, o.result, enums)));
  if (o.row.encode) return rawJsonSliced(o.row.encode(o.result, enums));
  return jsonSliced(o.row.result, o.result, { enums });
}

/** HTTP status and headers of an answer (X-Route-ID for a stored dispatch; the row's own, e.g. 202 for a job). */
export function answerHead(o: Answer): { status: number; headers: Record<string, string> } {
  const r = o.row.respond?.(o.result) ?? {};
  return { status: r.status ?? 200, headers: { ...(r.headers ?? {}), ...(o.routeId !== undefined ? { 'X-Route-ID': String(o.routeId) } : {}) } };
}

/** What the work of a call came to: its result and what it costs. */
interface Work {
  result: Record<string, unknown>;
  stream?: AsyncIterable<Record<string, unknown>>;
  units: number;
  cost: number;
  route?: NewRoute;
}

export class Service {
  readonly prices: PriceList;
  readonly instance: string;
  readonly sessionTtlMs: number;
  readonly dispatchTimeLimitMs: number;
  readonly operationTimeoutMs: number;
  readonly jobTimeLimitMs: number;
  readonly loginGuard: LoginGuard;
  readonly clock: () => number;
  /** Where jobs run (set when a `Jobs` is made for this service). */
  jobs: Jobs | null = null;
  private readonly limiter: RateLimiter;
  private readonly heartbeatMs: number;
  private readonly staleMs: number;
  private timer: NodeJS.Timeout | null = null;
  private pruner: NodeJS.Timeout | null = null;
  readonly retention: { routes: number | null; jobs: number | null; tracks: number | null };
  private readonly pruneEveryMs: number;
  /** Operations running now (graceful shutdown waits for them). */
  private running = 0;
  /**
   * Changes live streams wait for, in this process: `track:<account>:<track>` when points are
   * recorded, `route:<account>:<RouteID>` when stop events or a new version are (handlers/live-events.ts).
   * Streams also look again on their own, so a change written by another server is seen too.
   */
  readonly changes = new EventEmitter().setMaxListeners(0);
  /** Reservations whose refund could not be written yet ({@link release}). */
  private readonly unreleased = new Set<number>();

  constructor(readonly engine: Engine, readonly store: Store, opts: ServiceOptions = {}) {
    this.prices = opts.prices ?? { ...DEFAULT_PRICES };
    this.instance = opts.instance ?? `${process.pid}-${randomBytes(6).toString('hex')}`;
    this.sessionTtlMs = opts.sessionTtlMs ?? 4 * 3_600_000;
    this.dispatchTimeLimitMs = opts.dispatchTimeLimitMs ?? DISPATCH_TIME_LIMIT_MS;
    this.operationTimeoutMs = opts.operationTimeoutMs ?? OPERATION_TIME_LIMIT_MS;
    this.jobTimeLimitMs = opts.jobTimeLimitMs ?? JOB_TIME_LIMIT_MS;
    this.limiter = new RateLimiter(opts.rateLimit ?? { perSecond: 1000 });
    this.clock = opts.clock ?? Date.now;
    this.loginGuard = new LoginGuard({ clock: this.clock, ...opts.login });
    this.heartbeatMs = opts.heartbeatMs ?? 5000;
    this.staleMs = opts.staleMs ?? 30_000;
    const r = opts.retention ?? {};
    this.retention = {
      routes: r.routes === undefined ? SUGGESTED_RETENTION_DAYS.routes : r.routes,
      jobs: r.jobs === undefined ? SUGGESTED_RETENTION_DAYS.jobs : r.jobs,
      tracks: r.tracks === undefined ? SUGGESTED_RETENTION_DAYS.tracks : r.tracks,
    };
    this.pruneEveryMs = opts.pruneEveryMs ?? 3_600_000;
  }

  /** Forgets what is older than the retention (stored routes, finished jobs, GPS points); the counts. */
  prune(): Promise<{ routes: number; jobs: number; tracks: number }> {
    return this.store.prune(retentionCutoffs(this.clock(), this.retention));
  }

  /** Says this process is alive, refunds reservations of processes that died, and keeps doing so in the background. */
  async start(): Promise<void> {
    await this.store.heartbeat(this.instance, this.clock());
    await this.store.releaseStale({ instance: this.instance, now: this.clock(), staleMs: this.staleMs });
    this.timer = setInterval(() => {
      const now = this.clock();
      this.store.heartbeat(this.instance, now)
        .then(() => this.store.releaseStale({ instance: this.instance, now, staleMs: this.staleMs }))
        .then(() => this.retryReleases())
        .catch(() => { /* the database is away: readiness reports it */ });
    }, this.heartbeatMs);
    this.timer.unref();
    const prune = (): void => { void this.prune().catch(() => { /* the database is away: next time */ }); };
    prune();
    this.pruner = setInterval(prune, this.pruneEveryMs);
    this.pruner.unref();
  }

  /** Stops the background work (the engine and the store belong to the caller). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.pruner) clearInterval(this.pruner);
    this.timer = this.pruner = null;
  }

  /** Operations in progress. */
  get inFlight(): number {
    return this.running;
  }

  /** Readiness: resolves when the database answers (throws Storage otherwise). */
  ready(): Promise<void> {
    return this.store.ping();
  }

  /** The time limit of `row`'s calls (a job's: {@link jobTimeLimitMs}); Infinity when it has none. */
  limitOf(row: ServiceOperation, job = false): number {
    if (row.limit === 'none') return Infinity;
    if (job) return this.jobTimeLimitMs;
    return row.limit === 'dispatch' ? this.dispatchTimeLimitMs : this.operationTimeoutMs;
  }

  // ------------------------------------------------------------------ keys

  /** The account behind a key (API key or live Login session), or why not. */
  async authenticate(key: string | null | undefined): Promise<Account | Refusal> {
    if (key === undefined || key === null || key === '') return refuse('Unauthorized', 'No key: send the API key (REST: the X-API-Key header; SOAP: SessionIDHeader/SessionID; plain HTTP: X-API-Key or a SessionID parameter).');
    if (key.length > 512) return refuse('Unauthorized', 'The key is not valid.');
    const h = keyHash(key);
    const now = this.clock();
    const account = (await this.store.accountByKeyHash(h)) ?? (await this.store.touchSession(h, now, this.sessionTtlMs));
    if (!account) return refuse('Unauthorized', 'The key is not valid (unknown, rotated, or a Login session that expired).');
    if (account.blocked) return refuse('Forbidden', `Account '${account.name}' is blocked.`);
    if (account.expiresAt !== null && account.expiresAt <= now) return refuse('Forbidden', `Account '${account.name}' expired on ${new Date(account.expiresAt).toISOString()}.`);
    return account;
  }

  /**
   * Authentication and the per-account rate limit, before anything of the request is read: the
   * account, or the refusal (401 / 403 / 429). Faces call it first, then {@link execute}.
   */
  async authorize(key: string | null | undefined): Promise<Account | Refusal> {
    const account = await this.authenticate(key);
    if (isRefusal(account)) return account;
    const wait = this.limiter.take(account.id);
    if (wait > 0) return refuse('RateLimited', `Too many requests for account '${account.name}': retry in ${wait} s.`, wait);
    return account;
  }

  /** Login for the faces that keep a session of their own (the page). */
  async login(userName: string | undefined, password: string | undefined, client?: string): Promise<Answer> {
    return (await this.execute(null, 'Login', { UserName: userName, Password: password }, { client })) as Answer;
  }

  // ------------------------------------------------------------------ calls

  /** Runs one operation for the holder of `opts.key` ({@link authorize}, then {@link execute}). Throws only for internal errors (bugs, a database that is away: `Storage`). */
  async call(name: ServiceOperationName | string, spec: unknown, opts: CallOptions = {}): Promise<Outcome> {
    const row = operationNamed(name);
    if (!row) return refuse('NotFound', `No operation ${name}.`);
    if (!row.auth) return this.execute(null, row.name, spec, opts);
    const account = await this.authorize(opts.key);
    if (isRefusal(account)) return account;
    return this.execute(account, row.name, spec, opts);
  }

  /** Runs one operation for an account {@link authorize} admitted (null: an operation without a key, Login). */
  async execute(account: Account | null, name: ServiceOperationName | string, raw: unknown, opts: CallOptions = {}): Promise<Outcome> {
    const row = operationNamed(name);
    if (!row) return refuse('NotFound', `No operation ${name}.`);
    if (row.auth && account === null) throw new EngineError('Internal', `${row.name} needs an account`);
    if (!row.auth && row.faces.soap !== 'login') {
      // calls without a key: the request rate is limited per client address (Login has its own limits)
      const wait = this.limiter.take(`addr:${opts.client ?? '?'}`);
      if (wait > 0) return refuse('RateLimited', `Too many requests from this address: retry in ${wait} s.`, wait);
    }
    this.running++;
    try {
      const parsed = await parseRequest(row, raw);
      if (!parsed.ok) return this.answer(row, account, failedFromIssues(parsed.issues, row.failed), 0);
      const spec = parsed.value;
      const q = quote(row, this.prices, spec);
      if (q.amount === 0) {
        const w = await this.work(row, spec, account, opts, q, false);
        if (isRefusal(w)) return w;
        const routeId = w.route ? await this.store.storeRoute({ accountId: account!.id, route: w.route, now: this.clock() }) : undefined;
        return this.answer(row, account, w.result, 0, routeId, w.stream);
      }
      if (row.instant?.(spec)) return await this.instant(row, account!, spec, opts, q);
      return await this.reserved(row, account!, spec, opts, q);
    } finally {
      this.running--;
    }
  }

  private answer(row: ServiceOperation, account: Account | null, result: Record<string, unknown>, cost: number, routeId?: number, stream?: Answer['stream']): Answer {
    return {
      kind: 'result', row, result, schema: row.result, cost,
      ...(account ? { account: account.name } : {}), ...(routeId !== undefined ? { routeId } : {}), ...(stream ? { stream } : {}),
    };
  }

  /**
   * Runs the row's handler on a validated record under its time limit (none for an instant call:
   * microseconds, a timer would cost more than the work) and prices what it did. A Failed result
   * or a refusal costs nothing; a result cut by the limit says so.
   */
  async work(row: ServiceOperation, spec: unknown, account: Account | null, opts: CallOptions, q: Quote, instant: boolean, job = false): Promise<Work | Refusal> {
    const limitMs = instant ? Infinity : this.limitOf(row, job);
    // an instant call (microseconds) runs under its caller's signal alone: no timer, no controller
    const limit = instant ? null : new CallLimit(limitMs, opts.signal);
    const call: Call = {
      service: this, row, account, key: opts.key, client: opts.client, signal: limit?.signal ?? opts.signal ?? NEVER, limitMs,
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
      ...(opts.routeName !== undefined ? { routeName: opts.routeName } : {}), ...(opts.owner !== undefined ? { owner: opts.owner } : {}),
      ...(opts.encodeFor ? { encodeFor: opts.encodeFor } : {}),
      ...(opts.signal ? { callerGone: opts.signal } : {}),
    };
    try {
      let out: unknown;
      try {
        out = await row.handler(spec, call);
      } catch (e) {
        if (toErrorRecord(e).code !== 'Cancelled' || !(limit?.timedOut || limit?.cancelledByCaller || opts.signal?.aborted)) throw e;
        out = { Status: 'Failed', Errors: [] };
      }
      if (isRefusal(out)) return out;
      // a streaming operation may answer one (Failed) result instead of a stream
      if (row.stream && typeof out === 'object' && out !== null && Symbol.asyncIterator in out) return { result: {}, stream: out as AsyncIterable<Record<string, unknown>>, units: 0, cost: 0 };
      let result = out as Record<string, unknown>;
      if (result.Status === 'Failed' && limit?.timedOut) {
        result = failedFromIssues([{ path: '', message: `${row.name} did not finish within its time limit (${fmtSeconds(limitMs)}); nothing was charged.${row.faces.job && !job ? ' Longer work runs as a job: POST /rest/jobs.' : ''}` }], row.failed);
      }
      const { units, cost } = costOf(row, q, spec, result);
      const route = await row.stored?.(spec, result as never, call);
      return { result, units, cost, ...(route ? { route } : {}) };
    } finally {
      limit?.dispose();
    }
  }

  /** Whether the caller went away (nothing is then charged or stored). */
  private static gone(opts: CallOptions): boolean {
    return opts.signal?.aborted === true;
  }

  /** The answer to a request whose caller went away during the work: Failed, nothing charged or stored. */
  private cancelledByCaller(row: ServiceOperation, account: Account | null): Answer {
    return this.answer(row, account, failedFromIssues([{ path: '', message: 'The request was cancelled by the caller.' }], row.failed), 0);
  }

  /**
   * Instant operations (a CalculateDistance; a Geocode of a few addresses) skip the reservation:
   * the balance read at authentication must cover the most they can cost, the work is done, then
   * its cost is taken in one write ({@link Store.charge}) — refused (403, the answer discarded)
   * when the balance no longer covers it. One write instead of two: a reservation exists to hold
   * credit during long work, and these take microseconds.
   */
  private async instant(row: ServiceOperation, account: Account, spec: unknown, opts: CallOptions, q: Quote): Promise<Outcome> {
    if (account.balance < q.amount) return this.creditRefusal(account, row, q);
    const w = await this.work(row, spec, account, opts, q, true);
    if (isRefusal(w)) return w;
    if (Service.gone(opts)) return this.cancelledByCaller(row, account);
    if (w.cost > 0 && (await this.store.charge({ accountId: account.id, amount: w.cost, operation: row.name, now: this.clock(), usage: this.usage(row, q, w) })) === null) {
      return this.creditRefusal(account, row, { ...q, units: w.units, amount: w.cost });
    }
    return { ...this.answer(row, account, w.result, w.cost), small: true };
  }

  private usage(row: ServiceOperation, q: Quote, w: { units: number }): { operation: string; units: number; unitPrice: number } {
    return { operation: row.name, units: w.units, unitPrice: q.unitPrice };
  }

  /** A priced operation of some length: reserve the most it can cost, run, settle for the work done (with the route of a dispatch). */
  private async reserved(row: ServiceOperation, account: Account, spec: unknown, opts: CallOptions, q: Quote): Promise<Outcome> {
    const r = await this.reserveFor(account, row, q);
    if (isRefusal(r)) return r;
    let w: Work | Refusal;
    try {
      w = await this.work(row, spec, account, opts, q, false);
    } catch (e) {
      await this.release(r.reservation);
      throw e;
    }
    if (isRefusal(w) || Service.gone(opts)) {
      await this.release(r.reservation);
      return isRefusal(w) ? w : this.cancelledByCaller(row, account);
    }
    let routeId: number | null = null;
    try {
      routeId = (await this.store.settle({ reservationId: r.reservation, cost: w.cost, now: this.clock(), ...(w.route ? { route: w.route } : {}), ...(w.cost > 0 ? { usage: this.usage(row, q, w) } : {}) })).routeId;
    } catch (e) {
      await this.release(r.reservation);
      throw e;
    }
    return this.answer(row, account, w.result, w.cost, routeId ?? undefined);
  }

  /**
   * Takes the quoted amount from the account's balance: the reservation, or the refusal (403)
   * when the balance does not cover it. `instance` owns the reservation (a job's is `job:<id>`).
   */
  async reserveFor(account: Account, row: ServiceOperation, q: Quote, instance = this.instance): Promise<{ reservation: number } | Refusal> {
    const reservation = await this.store.reserve({ accountId: account.id, amount: q.amount, operation: row.name, instance, now: this.clock() });
    if (reservation !== null) return { reservation };
    return this.creditRefusal(account, row, q);
  }

  /** Why `account` may not spend the quote now (blocked, expired, or short: the 403's message). */
  private async creditRefusal(account: Account, row: ServiceOperation, q: Quote): Promise<Refusal> {
    const a = await this.store.accountById(account.id);
    if (a?.blocked) return refuse('Forbidden', `Account '${account.name}' is blocked.`);
    if (a && a.expiresAt !== null && a.expiresAt <= this.clock()) return refuse('Forbidden', `Account '${account.name}' has expired.`);
    const unit = this.prices[row.name as ServiceOperationName]?.unit ?? 'unit';
    return refuse('Forbidden', `Not enough credit: this request can cost ${q.amount} (${q.units} ${unit}${q.units === 1 ? '' : 's'} × ${q.unitPrice}); the balance is ${a?.balance ?? 0}.`);
  }

  /**
   * Gives a reservation back in full (the operation failed, was cancelled, or its settlement could
   * not be written). When the database refuses now, the refund is retried in the background until
   * it is written (or found settled).
   */
  private async release(reservationId: number): Promise<void> {
    try {
      await this.store.settle({ reservationId, cost: 0, now: this.clock() });
    } catch (e) {
      if ((e as EngineError).code !== 'Conflict') this.unreleased.add(reservationId);
    }
  }

  /** Retries the refunds {@link release} could not write. */
  private async retryReleases(): Promise<void> {
    for (const id of [...this.unreleased]) {
      try {
        await this.store.settle({ reservationId: id, cost: 0, now: this.clock() });
        this.unreleased.delete(id);
      } catch (e) {
        if ((e as EngineError).code === 'Conflict') this.unreleased.delete(id); // settled or released meanwhile
        else return; // still away: next time
      }
    }
  }
}

export { OPERATIONS };
