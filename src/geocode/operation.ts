/**
 * The Geocode operation on the contract's records: GeocodeSpecification in, GeocodeResult out.
 *
 * - Bad input never throws: the specification is validated (record schema, then per-address rules:
 *   an address needs at least one non-blank field; fields are at most 1000 characters and hold no
 *   control characters) and any problem gives `Status: 'Failed'` with Errors naming the field.
 * - One GeocodeItem per input address, in input order: its Address echoed, and candidate
 *   Locations best-first (LatLong, the matched Address, Description = what was matched, MatchCode
 *   when IsNeedMatchCode is set — otherwise left at its default None, see docs/geocoding.md).
 * - Addresses with no candidate are named in Errors and the Status is SuccessWithErrors.
 * - Batches can run on the worker pool (task kind `geocode`, the index opened from the dataset
 *   buffer in each worker); results are merged in input order, so they are identical to the
 *   single-threaded run.
 */
import { EngineError, toErrorRecord } from '../core/errors.js';
import {
  GeocodeSpecificationSchema, LocationSchema, failedFromError, failedFromIssues, statusFor,
  type Address, type GeocodeItem, type GeocodeResult, type Issue, type Location,
} from '../records/index.js';
import type { WorkerPool } from '../workers/pool.js';
import { GeocodeIndex } from './geocode-index.js';
import { Geocoder, type AddressQuery, type GeocodeCandidate, type CandidateKind } from './search.js';

export interface GeocodeOperationOptions {
  /** Candidate Locations per address (default 5, at most 50). */
  maxCandidates?: number;
}

export const MAX_FIELD_CHARS = 1000;
const ADDRESS_FIELDS = ['Street', 'City', 'State', 'PostalCode', 'Country'] as const;
// C0 controls except tab/newline/carriage return, DEL, C1 controls.
const CONTROL_RE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

const DESCRIPTION: Record<CandidateKind, string> = {
  address: 'address point',
  interpolated: 'interpolated house number',
  street: 'street',
  postcode: 'postal code area',
  locality: 'locality',
};

let defaultLocation: Location | null = null;
function locationTemplate(): Location {
  return (defaultLocation ??= LocationSchema.defaults() as Location);
}

/** Validates a GeocodeSpecification: the parsed addresses, or issues with field paths. */
export function validateGeocodeSpecification(spec: unknown): { ok: true; addresses: Address[]; needMatchCode: boolean } | { ok: false; issues: Issue[] } {
  const parsed = GeocodeSpecificationSchema.safeParse(spec);
  if (!parsed.ok) return parsed;
  const issues: Issue[] = [];
  const addresses = parsed.value.Addresses ?? [];
  if (addresses.length === 0) issues.push({ path: 'Addresses', message: 'must hold at least one Address' });
  addresses.forEach((a, i) => {
    let filled = false;
    for (const f of ADDRESS_FIELDS) {
      const v = a[f];
      if (v === undefined) continue;
      const path = `Addresses[${i}].${f}`;
      if (v.length > MAX_FIELD_CHARS) issues.push({ path, message: `is too long (${v.length} characters; at most ${MAX_FIELD_CHARS})` });
      else if (CONTROL_RE.test(v)) issues.push({ path, message: 'contains control characters' });
      if (v.trim().length > 0) filled = true;
    }
    if (!filled) issues.push({ path: `Addresses[${i}]`, message: 'is empty (give at least a Street, City or PostalCode)' });
  });
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, addresses, needMatchCode: parsed.value.IsNeedMatchCode };
}

/** A candidate as a contract Location. */
export function candidateToLocation(c: GeocodeCandidate, needMatchCode: boolean): Location {
  const addr: Address = {};
  if (c.address.Street) addr.Street = c.address.Street;
  if (c.address.City) addr.City = c.address.City;
  if (c.address.State) addr.State = c.address.State;
  if (c.address.PostalCode) addr.PostalCode = c.address.PostalCode;
  if (c.address.Country) addr.Country = c.address.Country;
  return {
    ...locationTemplate(),
    LatLong: { Latitude: Math.round(c.lat * 1e7) / 1e7, Longitude: Math.round(c.lon * 1e7) / 1e7 },
    Address: addr,
    Description: DESCRIPTION[c.kind],
    MatchCode: needMatchCode ? c.matchCode : 'None',
  };
}

function queryOf(a: Address): AddressQuery {
  return { Street: a.Street, City: a.City, State: a.State, PostalCode: a.PostalCode, Country: a.Country };
}

/** Geocodes already-validated addresses into GeocodeItems (one per address, input order). */
export function geocodeItems(geocoder: Geocoder, addresses: Address[], needMatchCode: boolean, opts: GeocodeOperationOptions = {}): GeocodeItem[] {
  const limit = Math.max(1, Math.min(50, opts.maxCandidates ?? 5));
  return addresses.map((a) => ({
    Address: a,
    Locations: geocoder.search(queryOf(a), { limit }).map((c) => candidateToLocation(c, needMatchCode)),
  }));
}

function describeAddress(a: Address): string {
  return ADDRESS_FIELDS.map((f) => a[f]).filter((v) => v && v.trim().length > 0).join(', ').slice(0, 200);
}

function finish(items: GeocodeItem[]): GeocodeResult {
  const messages: string[] = [];
  items.forEach((it, i) => {
    if (it.Locations === undefined || it.Locations.length === 0) messages.push(`Addresses[${i}]: not found (${describeAddress(it.Address ?? {})})`);
  });
  return { ...statusFor(messages), Items: items } as GeocodeResult;
}

/** The Geocode operation, in this thread. Never throws for bad input. */
export function geocodeOperation(source: GeocodeIndex | Geocoder, spec: unknown, opts: GeocodeOperationOptions = {}): GeocodeResult {
  const v = validateGeocodeSpecification(spec);
  if (!v.ok) return failedFromIssues(v.issues, { Items: [] }) as GeocodeResult;
  try {
    const geocoder = source instanceof Geocoder ? source : new Geocoder(source);
    return finish(geocodeItems(geocoder, v.addresses, v.needMatchCode, opts));
  } catch (e) {
    return failedFromError(e, { Items: [] }) as GeocodeResult;
  }
}

export interface GeocodeBatchOptions extends GeocodeOperationOptions {
  /** Addresses per worker task (default 256). */
  chunkSize?: number;
  /** Prefix of the geocoder's sections in the dataset (default 'geo'). */
  prefix?: string;
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

/** Task record of the `geocode` worker task (see workers/tasks/geocode.ts). */
export interface GeocodeTask {
  kind: 'geocode';
  prefix: string;
  addresses: Address[];
  needMatchCode: boolean;
  maxCandidates: number;
}

/**
 * The Geocode operation on the worker pool. The pool's `shared.dataset` must hold the dataset
 * buffer with the geocoder under `prefix`. Chunks run in parallel; items are merged in input order.
 */
export async function geocodeOperationOnPool(pool: WorkerPool, spec: unknown, opts: GeocodeBatchOptions = {}): Promise<GeocodeResult> {
  const v = validateGeocodeSpecification(spec);
  if (!v.ok) return failedFromIssues(v.issues, { Items: [] }) as GeocodeResult;
  const chunk = Math.max(1, opts.chunkSize ?? 256);
  const total = v.addresses.length;
  const parts: Promise<{ items: GeocodeItem[] }>[] = [];
  let done = 0;
  for (let i = 0; i < total; i += chunk) {
    const addresses = v.addresses.slice(i, i + chunk);
    const task: GeocodeTask = { kind: 'geocode', prefix: opts.prefix ?? 'geo', addresses, needMatchCode: v.needMatchCode, maxCandidates: opts.maxCandidates ?? 5 };
    parts.push(pool.run<{ items: GeocodeItem[] }>(task as unknown as { kind: string }, { signal: opts.signal }).then((r) => {
      done += addresses.length;
      opts.onProgress?.(done, total);
      return r;
    }));
  }
  try {
    const results = await Promise.all(parts);
    return finish(results.flatMap((r) => r.items));
  } catch (e) {
    const rec = toErrorRecord(e);
    return failedFromError(new EngineError(rec.code, rec.message, { path: rec.path }), { Items: [] }) as GeocodeResult;
  }
}
