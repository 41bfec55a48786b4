/**
 * The service: the engine's operations behind accounts, credit and storage, plus the account
 * operations only a service has (CreditRemaining, GetRouteList, GetRoute, GetTrack, Login,
 * Logout, and the TrackPoints extension). Faces (REST now, SOAP next) parse their wire format,
 * call {@link Service.call} and encode what it returns; they hold no business rules.
 *
 * A call: the key is authenticated (an API key, or a Login session key: 401 when missing or
 * unknown; 403 when the account is blocked or expired), the per-account rate limit is taken
 * (429), the most the request can cost is reserved from the credit balance (403 when it does not
 * cover it), the operation runs, and the reservation is settled for the work done in one
 * transaction — together with the stored DispatchResult for a dispatch. A failed operation costs
 * nothing. Bad input is never a refusal: it is a result with Status Failed naming the field.
 */
import { randomBytes } from 'node:crypto';
import { EngineError } from '../core/errors.js';
import type { ProgressEvent } from '../core/cancel.js';
import type { Engine } from '../engine.js';
import { OPERATIONS } from '../ops/table.js';
import { visitsOf } from '../ops/plan-geojson.js';
import {
  DispatchResultSchema, GetRouteSpecificationSchema, LoginSpecificationSchema, RouteListSpecificationSchema,
  TrackPointSchema, TrackPointsSpecificationSchema, TrackSpecificationSchema, dateToSeconds, failedFromIssues,
  type CreditResult, type DispatchResult, type Issue, type LoginResult, type RecordDef, type RouteListResult,
  type TrackPointsResult, type TrackResult,
} from '../records/index.js';
import type { Account, NewRoute, Store } from '../store/types.js';
import { keyHash, newSessionKey, verifyPassword } from '../store/hash.js';
import { DEFAULT_PRICES, maxUnits, type PriceList } from './prices.js';
import { RateLimiter, type RateLimit } from './rate-limit.js';
import { SERVICE_OPERATIONS, type ServiceOperationName } from './operations.js';

/** A Geocode of at most this many addresses is an instant operation (charged after the work, see Service.isInstant). */
export const INSTANT_GEOCODE = 16;

export interface ServiceOptions {
  /** Credits per unit of work (default {@link DEFAULT_PRICES}). */
  prices?: PriceList;
  /** This process's name in the reservations (default: random). */
  instance?: string;
  /** A Login key lives this long after its last use (default 4 h). */
  sessionTtlMs?: number;
  /** A dispatch stops searching after this long and returns its best plan (default 120 s). */
  dispatchTimeLimitMs?: number;
  /** Other operations are cancelled after this long: Status Failed, nothing charged (default 60 s). */
  operationTimeoutMs?: number;
  /** Per-account request rate (default 1,000/s, bursts of 2,000; perSecond 0 = off). */
  rateLimit?: RateLimit;
  /** Login attempts per user name (default 1 per second, bursts of 10). */
  loginRateLimit?: RateLimit;
  /** How often this process says it is alive (default 5 s), and after how long a silent one's open reservations are refunded (default 30 s). */
  heartbeatMs?: number;
  staleMs?: number;
  /** Wall clock in ms (tests). */
  clock?: () => number;
}

export interface CallOptions {
  /** The API key or Login session key, exactly as sent (whitespace is part of it). */
  key?: string | null;
  signal?: AbortSignal;
  onProgress?: (e: ProgressEvent) => void;
  /** Dispatch: the stored route's name (default: "<n> stops on <v> vehicles"). */
  routeName?: string;
  /** Dispatch: the stored route's owner (default: the account's name). */
  owner?: string;
}

/** A refusal before any work: the face maps it to 401 / 403 / 429 (REST) or a fault (SOAP). */
export interface Refusal {
  kind: 'refused';
  code: 'Unauthorized' | 'Forbidden' | 'RateLimited';
  message: string;
  /** RateLimited: whole seconds to wait. */
  retryAfter?: number;
}

export interface Answer {
  kind: 'result';
  /** The result record (enum names); encode it with `schema`. */
  result: Record<string, unknown>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  schema: RecordDef<any>;
  /** Credits taken. */
  cost: number;
  /** Dispatch: the RouteID it was stored under. */
  routeId?: number;
  /** The account that called (Login: the one that signed in). */
  account?: string;
}

export type Outcome = Answer | Refusal;

const HOUR = 3_600_000;
const refuse = (code: Refusal['code'], message: string, retryAfter?: number): Refusal => ({ kind: 'refused', code, message, ...(retryAfter !== undefined ? { retryAfter } : {}) });

/** The answer to a request whose caller went away during the work: Failed, nothing charged or stored. */
function cancelledByCaller(name: ServiceOperationName, account: Account): Outcome {
  return { kind: 'result', result: { ...failedFromIssues([{ path: '', message: 'The request was cancelled by the caller.' }]) }, schema: SERVICE_OPERATIONS[name].result, cost: 0, account: account.name };
}

export class Service {
  readonly prices: PriceList;
  readonly instance: string;
  private readonly sessionTtlMs: number;
  private readonly dispatchTimeLimitMs: number;
  private readonly operationTimeoutMs: number;
  private readonly limiter: RateLimiter;
  private readonly loginLimiter: RateLimiter;
  private readonly clock: () => number;
  private readonly heartbeatMs: number;
  private readonly staleMs: number;
  private timer: NodeJS.Timeout | null = null;
  /** Operations running now (graceful shutdown waits for them). */
  private running = 0;
  /** Reservations whose refund could not be written yet ({@link release}). */
  private readonly unreleased = new Set<number>();

  constructor(readonly engine: Engine, readonly store: Store, opts: ServiceOptions = {}) {
    this.prices = opts.prices ?? { ...DEFAULT_PRICES };
    this.instance = opts.instance ?? `${process.pid}-${randomBytes(6).toString('hex')}`;
    this.sessionTtlMs = opts.sessionTtlMs ?? 4 * HOUR;
    this.dispatchTimeLimitMs = opts.dispatchTimeLimitMs ?? 120_000;
    this.operationTimeoutMs = opts.operationTimeoutMs ?? 60_000;
    this.limiter = new RateLimiter(opts.rateLimit ?? { perSecond: 1000 });
    this.loginLimiter = new RateLimiter(opts.loginRateLimit ?? { perSecond: 1, burst: 10 });
    this.clock = opts.clock ?? Date.now;
    this.heartbeatMs = opts.heartbeatMs ?? 5000;
    this.staleMs = opts.staleMs ?? 30_000;
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

  /** Stops the background work (the engine and the store belong to the caller). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Operations in progress. */
  get inFlight(): number {
    return this.running;
  }

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
    if ('kind' in account) return account;
    const wait = this.limiter.take(account.id);
    if (wait > 0) return refuse('RateLimited', `Too many requests for account '${account.name}': retry in ${wait} s.`, wait);
    return account;
  }

  /** Runs one operation for the holder of `opts.key` ({@link authorize}, then {@link execute}). Throws only for internal errors (bugs, a database that is away: `Storage`). */
  async call(name: ServiceOperationName, spec: unknown, opts: CallOptions = {}): Promise<Outcome> {
    if (name === 'Login') return this.execute(null, name, spec, opts);
    const account = await this.authorize(opts.key);
    if ('kind' in account) return account;
    return this.execute(account, name, spec, opts);
  }

  /** Runs one operation for an account {@link authorize} admitted (null: Login only). */
  async execute(account: Account | null, name: ServiceOperationName, spec: unknown, opts: CallOptions = {}): Promise<Outcome> {
    this.running++;
    try {
      if (name === 'Login') {
        const s = LoginSpecificationSchema.safeParse(spec ?? {});
        const v = s.ok ? s.value : {};
        return await this.login(v.UserName, v.Password);
      }
      if (account === null) throw new EngineError('Internal', `${name} needs an account`);
      const op = SERVICE_OPERATIONS[name];
      if (op.engine !== null) return await this.runEngine(name, account, spec, opts);
      return await this.runAccount(name, account, spec, opts);
    } finally {
      this.running--;
    }
  }

  /** Login(userName, password) → a session key; never a refusal (wrong credentials are Status Failed). */
  async login(userName: string | undefined, password: string | undefined): Promise<Answer> {
    const schema = SERVICE_OPERATIONS.Login.result;
    const failed = (message: string): Answer => ({ kind: 'result', result: { Message: message, Status: 'Failed' } satisfies LoginResult, schema, cost: 0 });
    if (!userName || password === undefined) return failed('userName and password are required.');
    if (userName.length > MAX_NAME || password.length > 1024) return failed('Wrong user name or password.');
    if (this.loginLimiter.take(`login:${userName.toLowerCase()}`) > 0) return failed('Too many Login attempts for this user name: wait a little.');
    const a = await this.store.accountByName(userName);
    // verify against a fixed hash when there is no such account, so the answer takes as long
    const ok = await verifyPassword(password, a?.passwordHash ?? DUMMY_HASH);
    if (!a || !a.passwordHash || !ok) return failed('Wrong user name or password.');
    if (a.blocked) return failed(`Account '${a.name}' is blocked.`);
    if (a.expiresAt !== null && a.expiresAt <= this.clock()) return failed(`Account '${a.name}' has expired.`);
    const key = newSessionKey();
    await this.store.createSession({ keyHash: keyHash(key), accountId: a.id, now: this.clock() });
    return { kind: 'result', result: { Message: 'Success', Status: 'Success', Key: key } satisfies LoginResult, schema, cost: 0, account: a.name };
  }

  /**
   * Takes the most a request can cost from the account's balance (nothing for a free one):
   * the reservation (null when free) and its amount, or the refusal (403) when the balance does not
   * cover it. `instance` owns the reservation (a job's is `job:<id>`).
   */
  async reserveFor(account: Account, name: ServiceOperationName, spec: unknown, instance = this.instance): Promise<{ reservation: number | null; amount: number } | Refusal> {
    const price = this.prices[name];
    const units = maxUnits(name, spec);
    const amount = price.price * units;
    if (amount === 0) return { reservation: null, amount: 0 };
    const reservation = await this.store.reserve({ accountId: account.id, amount, operation: name, instance, now: this.clock() });
    if (reservation !== null) return { reservation, amount };
    return this.creditRefusal(account, name, amount, units);
  }

  /** Why `account` may not spend `amount` now (blocked, expired, or short: the 403's message). */
  private async creditRefusal(account: Account, name: ServiceOperationName, amount: number, units: number): Promise<Refusal> {
    const price = this.prices[name];
    const a = await this.store.accountById(account.id);
    if (a?.blocked) return refuse('Forbidden', `Account '${account.name}' is blocked.`);
    if (a && a.expiresAt !== null && a.expiresAt <= this.clock()) return refuse('Forbidden', `Account '${account.name}' has expired.`);
    return refuse('Forbidden', `Not enough credit: this request can cost ${amount} (${units} ${price.unit}${units === 1 ? '' : 's'} × ${price.price}); the balance is ${a?.balance ?? 0}.`);
  }

  /**
   * Instant operations (a CalculateDistance; a Geocode of at most {@link INSTANT_GEOCODE}
   * addresses) skip the reservation: the balance read at authentication must cover the most they
   * can cost, the work is done, then its cost is taken in one write ({@link Store.charge}) —
   * refused (403, the answer discarded) when the balance no longer covers it. One write instead of
   * two: a reservation exists to hold credit during long work, and these take microseconds.
   */
  private isInstant(name: ServiceOperationName, units: number): boolean {
    return name === 'CalculateDistance' || (name === 'Geocode' && units <= INSTANT_GEOCODE);
  }

  private async runInstant(name: ServiceOperationName, account: Account, spec: unknown, opts: CallOptions, amount: number, units: number): Promise<Outcome> {
    const op = SERVICE_OPERATIONS[name];
    if (account.balance < amount) return this.creditRefusal(account, name, amount, units);
    // no time limit of their own (a timer per request would cost more than the work): the caller's signal only
    const result = (await this.engine.run(op.engine!, spec, { ...(opts.signal ? { signal: opts.signal } : {}), offload: true })) as Record<string, unknown>;
    if (opts.signal?.aborted) return cancelledByCaller(name, account);
    const { cost } = this.settlement(name, account, spec, result, amount, opts);
    if (cost > 0 && (await this.store.charge({ accountId: account.id, amount: cost, operation: name, now: this.clock() })) === null) {
      return this.creditRefusal(account, name, cost, units);
    }
    return { kind: 'result', result, schema: op.result, cost, account: account.name };
  }

  /** What a finished engine operation costs (at most `amount`, 0 when Failed) and, for a dispatch that is not Failed, the route to store. */
  settlement(name: ServiceOperationName, account: Account, spec: unknown, result: Record<string, unknown>, amount: number, opts: Pick<CallOptions, 'routeName' | 'owner'> = {}): { cost: number; route?: NewRoute } {
    const op = SERVICE_OPERATIONS[name];
    const failed = result.Status === 'Failed';
    if (failed || op.engine === null) return { cost: 0 };
    const engineOp = OPERATIONS[op.engine];
    const cost = Math.min(amount, this.prices[name].price * (engineOp.credit as (s: unknown, r: unknown) => { units: number })(spec, result).units);
    return { cost, ...(name === 'Dispatch' ? { route: storedRoute(result as DispatchResult, account, opts) } : {}) };
  }

  /** The engine's signal for an operation: a dispatch stops searching at its limit (best plan so far), others are cancelled at theirs. */
  limitSignal(name: ServiceOperationName, signal?: AbortSignal): AbortSignal {
    const limit = AbortSignal.timeout(name === 'Dispatch' ? this.dispatchTimeLimitMs : this.operationTimeoutMs);
    return signal ? AbortSignal.any([limit, signal]) : limit;
  }

  private async runEngine(name: ServiceOperationName, account: Account, spec: unknown, opts: CallOptions): Promise<Outcome> {
    const op = SERVICE_OPERATIONS[name];
    const units = maxUnits(name, spec);
    if (this.prices[name].price > 0 && this.isInstant(name, units)) return this.runInstant(name, account, spec, opts, this.prices[name].price * units, units);
    const r = await this.reserveFor(account, name, spec);
    if ('kind' in r) return r;
    const { reservation, amount } = r;
    let result: Record<string, unknown>;
    try {
      result = (await this.engine.run(op.engine!, spec, { signal: this.limitSignal(name, opts.signal), onProgress: opts.onProgress, offload: true })) as Record<string, unknown>;
    } catch (e) {
      if (reservation !== null) await this.release(reservation);
      throw e;
    }
    // the caller went away (a dropped connection): nothing is charged, nothing stored
    if (opts.signal?.aborted) {
      if (reservation !== null) await this.release(reservation);
      return cancelledByCaller(name, account);
    }
    const { cost, route } = this.settlement(name, account, spec, result, amount, opts);
    let routeId: number | null = null;
    try {
      if (reservation !== null) routeId = (await this.store.settle({ reservationId: reservation, cost, now: this.clock(), route })).routeId;
      else if (route) routeId = await this.store.storeRoute({ accountId: account.id, route, now: this.clock() });
    } catch (e) {
      if (reservation !== null) await this.release(reservation);
      throw e;
    }
    return { kind: 'result', result, schema: op.result, cost, account: account.name, ...(routeId !== null ? { routeId } : {}) };
  }

  private async runAccount(name: ServiceOperationName, account: Account, spec: unknown, opts: CallOptions): Promise<Outcome> {
    const op = SERVICE_OPERATIONS[name];
    const answer = (result: Record<string, unknown>, cost = 0): Answer => ({ kind: 'result', result, schema: op.result, cost, account: account.name });
    switch (name) {
      case 'CreditRemaining': {
        const balance = await this.store.balance(account.id);
        return answer({ Status: 'Success', Errors: [], Credit: balance ?? 0 } satisfies CreditResult);
      }
      case 'Logout': {
        await this.store.deleteSession(keyHash(opts.key!));
        return answer({ Status: 'Success', Errors: [] });
      }
      case 'GetRouteList': {
        const p = RouteListSpecificationSchema.safeParse(spec ?? {});
        if (!p.ok) return answer(failedFromIssues(p.issues));
        const from = instantOf(p.value.FromDate), to = instantOf(p.value.ToDate);
        if (from !== null && to !== null && to < from) return answer(failedFromIssues([{ path: 'ToDate', message: 'is before FromDate' }]));
        const routes = await this.store.listRoutes(account.id, {
          ...(from !== null ? { from } : {}), ...(to !== null ? { to } : {}),
          ...(p.value.Owner ? { owner: p.value.Owner } : {}), ...(p.value.RouteName ? { name: p.value.RouteName } : {}),
        });
        return answer({
          Status: 'Success', Errors: [],
          Routes: routes.map((r) => ({ RouteID: r.routeId, RouteName: r.name, Distance: r.distance, Time: r.time, Owner: r.owner, DateCreated: utcDate(r.createdAt) })),
        } satisfies RouteListResult);
      }
      case 'GetRoute': {
        const p = GetRouteSpecificationSchema.safeParse(spec ?? {});
        if (!p.ok) return answer(failedFromIssues(p.issues));
        const found = await this.store.getRoute(account.id, p.value.RouteID);
        if (!found) return answer(failedFromIssues([{ path: 'RouteID', message: `no stored route ${p.value.RouteID} in this account` }]));
        const parsed = DispatchResultSchema.safeParse(JSON.parse(found.result));
        if (!parsed.ok) throw new EngineError('Storage', `Stored route ${p.value.RouteID} cannot be read back: ${parsed.issues[0]?.message}`);
        return answer(parsed.value as Record<string, unknown>);
      }
      case 'GetTrack': {
        const p = TrackSpecificationSchema.safeParse(spec ?? {});
        if (!p.ok) return answer(failedFromIssues(p.issues));
        const from = instantOf(p.value.FromDate) ?? 0, to = instantOf(p.value.ToDate) ?? Number.MAX_SAFE_INTEGER;
        if (to < from) return answer(failedFromIssues([{ path: 'ToDate', message: 'is before FromDate' }]));
        if ((p.value.Account?.length ?? 0) > MAX_NAME) return answer(failedFromIssues([{ path: 'Account', message: `at most ${MAX_NAME} characters` }]));
        const points = await this.store.getTrack({ accountId: account.id, track: p.value.Account || account.name, from, to });
        return answer({
          Status: 'Success', Errors: [],
          TrackPoints: points.map((q) => ({ Latitude: q.lat, Longitude: q.lon, TimeStamp: utcDate(q.ts) })),
        } satisfies TrackResult);
      }
      case 'TrackPoints': {
        // each point is checked on its own, so that every bad one is named at once
        const body = Array.isArray(spec) ? { TrackPoints: spec } : spec ?? {};
        const list = prop(body, 'TrackPoints');
        const raw = Array.isArray(list) ? list : null;
        const p = TrackPointsSpecificationSchema.safeParse(raw ? withoutProp(body, 'TrackPoints') : body);
        const issues: Issue[] = p.ok ? [] : p.issues;
        if (p.ok && (p.value.Account?.length ?? 0) > MAX_NAME) issues.push({ path: 'Account', message: `at most ${MAX_NAME} characters (got ${p.value.Account!.length})` });
        if (raw && raw.length > MAX_POINTS) return answer({ ...failedFromIssues([{ path: 'TrackPoints', message: `at most ${MAX_POINTS} points per request (got ${raw.length})` }]), Count: 0 });
        const points: { lat: number; lon: number; ts: number }[] = [];
        (raw ?? []).forEach((q, i) => {
          const path = `TrackPoints[${i}]`;
          const r = q === null || q === undefined ? null : TrackPointSchema.safeParse(q, path);
          if (r === null) { issues.push({ path, message: 'is empty (null)' }); return; }
          if (!r.ok) { issues.push(...r.issues); return; }
          const ts = instantOf(r.value.TimeStamp);
          if (ts === null) issues.push({ path: `${path}.TimeStamp`, message: `is not set (a date after 2012-01-01 is required; got ${r.value.TimeStamp})` });
          if (!(Math.abs(r.value.Latitude) <= 90)) issues.push({ path: `${path}.Latitude`, message: `must be within ±90 (got ${r.value.Latitude})` });
          if (!(Math.abs(r.value.Longitude) <= 180)) issues.push({ path: `${path}.Longitude`, message: `must be within ±180 (got ${r.value.Longitude})` });
          points.push({ lat: r.value.Latitude, lon: r.value.Longitude, ts: ts ?? 0 });
        });
        if (issues.length > 0) return answer({ ...failedFromIssues(issues.slice(0, 50)), Count: 0 });
        const track = (p.ok && p.value.Account) || account.name;
        const n = points.length === 0 ? 0 : await this.store.addTrackPoints({ accountId: account.id, track, points, now: this.clock() });
        return answer({ Status: 'Success', Errors: [], Count: n } satisfies TrackPointsResult);
      }
      default:
        throw new EngineError('Internal', `No account operation ${name}`);
    }
  }
}

/** Longest user name, track name (TrackSpecification.Account) and stored route name/owner. */
const MAX_NAME = 200;
/** Most track points one TrackPoints request may record. */
const MAX_POINTS = 100_000;

/** A property of a raw body, bound case-insensitively as the records bind. */
function prop(body: unknown, name: string): unknown {
  if (typeof body !== 'object' || body === null) return undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(body)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/** A raw body without the named property (any case). */
function withoutProp(body: unknown, name: string): unknown {
  if (typeof body !== 'object' || body === null) return body;
  const lower = name.toLowerCase();
  return Object.fromEntries(Object.entries(body).filter(([k]) => k.toLowerCase() !== lower));
}

/** A scrypt hash of a random password, verified when the user name is unknown (equal timing). */
const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/** A contract dateTime as a UTC instant in ms (a zoneless one is read as UTC), or null when "not set". */
function instantOf(s: string | undefined): number | null {
  const sec = dateToSeconds(s);
  return sec === null ? null : Math.round(sec * 1000);
}

/** An instant as the service writes it: UTC with Z, milliseconds only when there are some. */
export function utcDate(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, 19)}Z` : iso;
}

/** What GetRouteList shows of a dispatch: totals of its legs, visits, vehicles used. */
function storedRoute(r: DispatchResult, account: Account, opts: CallOptions): NewRoute {
  let distance = 0, time = 0, stops = 0;
  for (const item of r.Items ?? []) {
    for (const l of item.Locations ?? []) {
      distance += l.Distance ?? 0;
      time += l.Time ?? 0;
    }
    stops += visitsOf(item.Locations ?? [], item.Vehicle);
  }
  const vehicles = (r.Items ?? []).length;
  return {
    name: opts.routeName?.slice(0, MAX_NAME) || `${stops} stop${stops === 1 ? '' : 's'} on ${vehicles} vehicle${vehicles === 1 ? '' : 's'}`,
    owner: opts.owner?.slice(0, MAX_NAME) || account.name,
    distance: Math.round(distance * 1e6) / 1e6,
    time: Math.round(time),
    stops,
    vehicles,
    result: JSON.stringify(DispatchResultSchema.encode(r as never, { enums: 'name' })),
  };
}

