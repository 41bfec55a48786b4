/**
 * What both backends share: argument checks, row → record mapping, the case-folding of names,
 * and the Storage errors of a newer database.
 */
import { EngineError, invalidInput } from '../core/errors.js';
import { SCHEMA_VERSION } from './migrations.js';
import type { Account, LedgerEntry, LedgerKind, NewRoute, RouteFilter, StoredRoute, TrackPoint } from './types.js';

/** The case-insensitive form of a name (account names, route names and owners), the same on both backends. */
export function foldCase(s: string): string {
  return typeof s === 'string' ? s.toLowerCase() : s;
}

/** Default and ceiling of `RouteFilter.limit`. */
export const DEFAULT_ROUTE_LIMIT = 1000;
/** Default of `getTrack`'s limit. */
export const DEFAULT_TRACK_LIMIT = 100_000;
/** Default of `ledger`'s limit. */
export const DEFAULT_LEDGER_LIMIT = 100;

export function checkInteger(path: string, v: unknown, min = Number.MIN_SAFE_INTEGER): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) {
    throw invalidInput(path, `must be a whole number${min > Number.MIN_SAFE_INTEGER ? ` ≥ ${min}` : ''} (got ${String(v)})`);
  }
  return v;
}

export function checkKeyHash(path: string, h: unknown): Buffer {
  if (!Buffer.isBuffer(h) || h.length !== 32) throw invalidInput(path, 'must be a 32-byte SHA-256 digest');
  return h;
}

export function checkName(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0) throw invalidInput('name', 'must be a non-empty string');
  return name;
}

/** A limit argument: a whole number ≥ 0, at most `max`; `dflt` when absent. */
export function limitOf(path: string, v: number | undefined, dflt: number, max = Number.MAX_SAFE_INTEGER): number {
  if (v === undefined || v === null) return dflt;
  return Math.min(checkInteger(path, v, 0), max);
}

export function checkTrackPoints(points: readonly TrackPoint[]): void {
  if (!Array.isArray(points)) throw invalidInput('points', 'must be an array');
  for (let i = 0; i < points.length; i++) {
    const p = points[i];
    if (!p || typeof p.lat !== 'number' || !Number.isFinite(p.lat) || typeof p.lon !== 'number' || !Number.isFinite(p.lon)) {
      throw invalidInput(`points[${i}]`, 'lat and lon must be finite numbers');
    }
    checkInteger(`points[${i}].ts`, p.ts);
  }
}

/** The SQL conditions (each prefixed by ` AND `) of a route filter; `param` binds a value and returns its placeholder. */
export function routeFilterSql(f: RouteFilter, param: (v: unknown) => string, contains: (column: string, p: string) => string): { where: string; limit: number } {
  const conds: string[] = [];
  if (f.from !== undefined && f.from !== null) conds.push(`created_at >= ${param(checkInteger('from', f.from))}`);
  if (f.to !== undefined && f.to !== null) conds.push(`created_at <= ${param(checkInteger('to', f.to))}`);
  if (f.owner !== undefined && f.owner !== null) conds.push(`owner_key = ${param(foldCase(f.owner))}`);
  if (f.name !== undefined && f.name !== null && f.name !== '') conds.push(contains('name_key', param(foldCase(f.name))));
  return { where: conds.map((c) => ` AND ${c}`).join(''), limit: limitOf('limit', f.limit, DEFAULT_ROUTE_LIMIT) };
}

/** The columns of a NewRoute, in insertion order (after account_id), with the folded keys. */
export function routeValues(r: NewRoute): unknown[] {
  if (!r || typeof r !== 'object') throw invalidInput('route', 'must be an object');
  return [r.name, foldCase(r.name), r.owner, foldCase(r.owner), r.distance, r.time, r.stops, r.vehicles];
}

export interface AccountRow {
  id: number | string;
  name: string;
  blocked: number | boolean;
  expires_at: number | string | null;
  created_at: number | string;
  balance: number | string;
  password_hash: string | null;
}

export const ACCOUNT_COLUMNS = 'id, name, blocked, expires_at, created_at, balance, password_hash';

export function toAccount(r: AccountRow): Account {
  return {
    id: Number(r.id),
    name: r.name,
    blocked: r.blocked === true || r.blocked === 1,
    expiresAt: r.expires_at === null ? null : Number(r.expires_at),
    createdAt: Number(r.created_at),
    balance: Number(r.balance),
    hasPassword: r.password_hash !== null,
  };
}

export function toAccountWithPassword(r: AccountRow): Account & { passwordHash: string | null } {
  return { ...toAccount(r), passwordHash: r.password_hash };
}

export interface LedgerRow {
  id: number;
  account_id: number;
  delta: number;
  kind: LedgerKind;
  note: string;
  reservation_id: number | null;
  created_at: number;
}

export const LEDGER_COLUMNS = 'id, account_id, delta, kind, note, reservation_id, created_at';

/** A ledger row as the Store reports it (integers may come back as strings or bigints). */
export function toLedgerEntry(r: LedgerRow): LedgerEntry {
  return {
    id: Number(r.id), accountId: Number(r.account_id), delta: Number(r.delta), kind: r.kind, note: r.note,
    reservationId: r.reservation_id === null ? null : Number(r.reservation_id), createdAt: Number(r.created_at),
  };
}

export interface RouteRow {
  id: number | string;
  account_id: number | string;
  name: string;
  owner: string;
  distance: number;
  time: number;
  stops: number;
  vehicles: number;
  created_at: number | string;
}

export const ROUTE_COLUMNS = 'id, account_id, name, owner, distance, time, stops, vehicles, created_at';

export function toRoute(r: RouteRow): StoredRoute {
  return {
    routeId: Number(r.id),
    accountId: Number(r.account_id),
    name: r.name,
    owner: r.owner,
    distance: Number(r.distance),
    time: Number(r.time),
    stops: Number(r.stops),
    vehicles: Number(r.vehicles),
    createdAt: Number(r.created_at),
  };
}

/** The database was written by a newer dispatchkit: refused, untouched. */
export function newerDatabase(location: string, version: number): EngineError {
  return new EngineError(
    'Storage',
    `The database ${location} is at schema version ${version}, written by a newer dispatchkit; this version supports up to ${SCHEMA_VERSION}. Upgrade dispatchkit (the database was left untouched).`,
    { details: { version, supported: SCHEMA_VERSION } },
  );
}

export function noReservation(id: number): EngineError {
  return new EngineError('Conflict', `There is no reservation ${id}.`, { details: { reservationId: id } });
}

export function alreadySettled(id: number): EngineError {
  return new EngineError('Conflict', `Reservation ${id} is already settled.`, { details: { reservationId: id } });
}

export function closedError(location: string): EngineError {
  return new EngineError('Storage', `The database ${location} is closed.`);
}

/** Errors that are bugs of the caller or of this code, not failures of the database: passed through. */
export function isProgrammingError(e: unknown): boolean {
  return e instanceof EngineError || e instanceof ReferenceError || e instanceof SyntaxError || e instanceof RangeError;
}
