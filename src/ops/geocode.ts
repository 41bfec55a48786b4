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
 * - Large batches (more than `batchThreshold` addresses, default 500) and, under `offload`, every
 *   batch of more than `inlineMax` (default 4) addresses run on the executor (task kind `geocode-search`, chunks of 256, the index opened
 *   from the shared dataset buffer in each thread); results are merged in input order, so they
 *   are identical to the single-threaded run.
 * - At most {@link MAX_GEOCODE_ADDRESSES} (100,000) addresses per call: beyond it the result is
 *   Failed with an error marked [TooBig] (split larger batches; docs/geocoding.md).
 */
import { EngineError } from '../core/errors.js';
import { sliced, throwIfAborted, Ticker } from '../core/cancel.js';
import type { TaskEnv, TaskTypes } from '../core/executor.js';
import { geocoderFor } from '../geocode/tasks.js';
import {
  GeocodeSpecificationSchema, LocationSchema, failedFromError, failedFromIssues, statusFor, parseEach, safeParseSliced,
  type Address, type GeocodeItem, type GeocodeResult, type Issue, type Location,
} from '../records/index.js';
import { GeocodeIndex } from '../geocode/geocode-index.js';
import { describeAddress, Geocoder, type GeocodeCandidate, type CandidateKind } from '../geocode/search.js';
import type { OpOptions, OpsContext } from './context.js';
import { addressQuery } from './locations.js';
import { MAX_GEOCODE_ADDRESSES, rawGeocodeIssues } from './limits.js';

export interface GeocodeOperationOptions {
  /** Candidate Locations per address (default 5, at most 50). */
  maxCandidates?: number;
}

export const MAX_FIELD_CHARS = 1000;
/**
 * The most addresses one Geocode call takes (TooBig beyond it): a call's records, candidates and
 * result live in memory at once. Larger batches are split by the caller (the CLI's CSV mode
 * streams any number of rows in chunks). Defined with the other limits in ops/limits.ts.
 */
export { MAX_GEOCODE_ADDRESSES };
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

/**
 * Validates a GeocodeSpecification: the parsed addresses, or issues with field paths. More than
 * `maxAddresses` (default {@link MAX_GEOCODE_ADDRESSES}) addresses is an issue marked [TooBig].
 */
export function validateGeocodeSpecification(spec: unknown, maxAddresses = MAX_GEOCODE_ADDRESSES): GeocodeValidation {
  // the size first, from the raw list: a batch past the cap is refused without parsing it
  const big = rawGeocodeIssues(spec, maxAddresses);
  if (big.length > 0) return { ok: false, issues: big };
  const parsed = GeocodeSpecificationSchema.safeParse(spec);
  if (!parsed.ok) return parsed;
  const issues: Issue[] = [];
  const addresses = parsed.value.Addresses ?? [];
  if (addresses.length === 0) issues.push({ path: 'Addresses', message: 'must hold at least one Address' });
  addresses.forEach((a, i) => addressIssues(a, i, issues));
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, addresses, needMatchCode: parsed.value.IsNeedMatchCode };
}

type GeocodeValidation = { ok: true; addresses: Address[]; needMatchCode: boolean } | { ok: false; issues: Issue[] };

/** {@link validateGeocodeSpecification} handing the event loop back between slices (large batches). */
async function validateGeocodeSliced(spec: unknown): Promise<GeocodeValidation> {
  const big = rawGeocodeIssues(spec, MAX_GEOCODE_ADDRESSES);
  if (big.length > 0) return { ok: false, issues: big };
  const parsed = await safeParseSliced(GeocodeSpecificationSchema, spec);
  if (!parsed.ok) return parsed;
  const issues: Issue[] = [];
  const addresses = (parsed.value.Addresses ?? []) as Address[];
  if (addresses.length === 0) issues.push({ path: 'Addresses', message: 'must hold at least one Address' });
  const ticker = new Ticker();
  for (let i = 0; i < addresses.length; i++) {
    addressIssues(addresses[i], i, issues);
    await ticker.tick();
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, addresses, needMatchCode: parsed.value.IsNeedMatchCode as boolean };
}

/** The rules of one address beyond its record's: at least one non-blank field; fields of at most 1000 characters, no control characters. */
function addressIssues(a: Address, i: number, issues: Issue[]): void {
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

/** Geocodes already-validated addresses into GeocodeItems (one per address, input order). */
export function geocodeItems(geocoder: Geocoder, addresses: Address[], needMatchCode: boolean, opts: GeocodeOperationOptions = {}): GeocodeItem[] {
  const limit = candidateLimit(opts);
  return itemsOf(addresses, addresses.map((a) => geocoder.search(addressQuery(a), { limit })), needMatchCode);
}

function candidateLimit(opts: GeocodeOperationOptions): number {
  return Math.max(1, Math.min(50, opts.maxCandidates ?? 5));
}

function itemsOf(addresses: Address[], candidates: GeocodeCandidate[][], needMatchCode: boolean): GeocodeItem[] {
  return addresses.map((a, i) => ({ Address: a, Locations: candidates[i].map((c) => candidateToLocation(c, needMatchCode)) }));
}


export interface GeocodeItemsTask {
  datasetKey: string;
  prefix: string;
  addresses: Address[];
  limit: number;
  needMatchCode: boolean;
}

declare module '../core/executor.js' {
  interface TaskMap {
    /** GeocodeItems of validated addresses, each as JSON text (text crosses threads at once). */
    'geocode-items': TaskTypes<GeocodeItemsTask, string[]>;
  }
}

/** The `geocode-items` task: searches and the items' records on the worker, in slices. */
export async function geocodeItemsTask(t: GeocodeItemsTask, env: TaskEnv): Promise<string[]> {
  const g = geocoderFor(t, env);
  const candidates = await sliced(t.addresses, (a) => g.search(addressQuery(a), { limit: t.limit }), env.signal);
  return itemsOf(t.addresses, candidates, t.needMatchCode).map((it) => JSON.stringify(it));
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

export interface GeocodeOpOptions extends OpOptions, GeocodeOperationOptions {
  /** Batches of more addresses than this run on the executor even without `offload` (default 500). */
  batchThreshold?: number;
  /** Addresses per executor task (default 256). */
  chunkSize?: number;
  /**
   * Under `offload`, batches of at most this many addresses still run in this thread (default
   * {@link INLINE_GEOCODE_MAX}): one search takes ~0.13 ms here, less than a round trip to a
   * worker (~0.3 ms), so a thread hop would cost more than it spares the event loop.
   */
  inlineMax?: number;
}

/** Default {@link GeocodeOpOptions.inlineMax}. */
export const INLINE_GEOCODE_MAX = 4;

/**
 * The Geocode operation. Never throws for bad input. Progress: `{ phase: 'geocode', done, total }`
 * in addresses.
 */
export async function geocodeOp(ctx: OpsContext, spec: unknown, opts: GeocodeOpOptions = {}): Promise<GeocodeResult> {
  try {
    // the geocoder is read when first used: a section that cannot be read is this answer's error too
    const geocoder = ctx.geocoder;
    if (!geocoder) {
      return failedFromError(new EngineError('Unsupported', 'This dataset was built without a geocoder index (rebuild it with `dispatchkit build`).'), { Items: [] }) as GeocodeResult;
    }
    const v = await validateGeocodeSliced(spec);
    if (!v.ok) return failedFromIssues(v.issues, { Items: [] }) as GeocodeResult;
    const total = v.addresses.length;
    const onExecutor = ctx.executor.offThread && ((opts.offload && total > (opts.inlineMax ?? INLINE_GEOCODE_MAX)) || total > (opts.batchThreshold ?? 500));
    throwIfAborted(opts.signal);
    if (!onExecutor) return finish(geocodeItems(geocoder, v.addresses, v.needMatchCode, opts));
    const chunk = Math.max(1, opts.chunkSize ?? 256);
    const limit = candidateLimit(opts);
    const parts: Promise<GeocodeItem[]>[] = [];
    let done = 0;
    for (let i = 0; i < total; i += chunk) {
      const addresses = v.addresses.slice(i, i + chunk);
      // the items are made on the worker and cross as text (parsed here in slices)
      parts.push(ctx.executor.run('geocode-items', { datasetKey: ctx.datasetKey, prefix: ctx.geocodePrefix, addresses, limit, needMatchCode: v.needMatchCode }, { signal: opts.signal }).then(async (texts) => {
        const items = await parseEach<GeocodeItem>(texts);
        done += addresses.length;
        opts.onProgress?.({ phase: 'geocode', done, total });
        return items;
      }));
    }
    return finish((await Promise.all(parts)).flat());
  } catch (e) {
    return failedFromError(e, { Items: [] }) as GeocodeResult;
  }
}
