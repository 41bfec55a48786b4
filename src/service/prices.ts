/**
 * The published price list: what each operation costs in credit, per unit of work actually done.
 * Credit is reserved before the work (the most the request can cost: {@link maxUnits}) and
 * settled for what was done (the operation table's `credit` count); a failed operation costs 0.
 * See docs/service.md ("Credit").
 */
import { readFileSync } from 'node:fs';
import { EngineError } from '../core/errors.js';
import type { ServiceOperationName } from './operations.js';

export type PriceUnit = 'request' | 'stop' | 'address' | 'route' | 'point';

export interface Price {
  /** Whole credits per unit (0 = free). */
  price: number;
  unit: PriceUnit;
}

export type PriceList = Record<ServiceOperationName, Price>;

/** The default price list (docs/service.md): one credit per unit of work, account operations free. */
export const DEFAULT_PRICES: Readonly<PriceList> = Object.freeze({
  CalculateDistance: { price: 1, unit: 'request' },
  CalculateRoute: { price: 1, unit: 'route' },
  CalculateRoutes: { price: 1, unit: 'route' },
  Geocode: { price: 1, unit: 'address' },
  Dispatch: { price: 1, unit: 'stop' },
  CreditRemaining: { price: 0, unit: 'request' },
  GetRouteList: { price: 0, unit: 'request' },
  GetRoute: { price: 0, unit: 'request' },
  GetTrack: { price: 0, unit: 'request' },
  TrackPoints: { price: 0, unit: 'point' },
  Login: { price: 0, unit: 'request' },
  Logout: { price: 0, unit: 'request' },
});

/**
 * A price list from a JSON file `{ "<Operation>": <credits per unit>, … }` (or `{ price, unit }`
 * objects); operations not named keep their default. Bad files are InvalidInput naming the entry.
 */
export function loadPrices(file: string): PriceList {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new EngineError('InvalidInput', `prices: cannot read ${file} as JSON (${(e as Error).message})`, { path: 'prices' });
  }
  return pricesFrom(raw);
}

export function pricesFrom(raw: unknown): PriceList {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new EngineError('InvalidInput', 'prices: must be an object of operation → credits per unit', { path: 'prices' });
  }
  const out = { ...DEFAULT_PRICES } as PriceList;
  const names = Object.keys(DEFAULT_PRICES) as ServiceOperationName[];
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    const name = names.find((n) => n.toLowerCase() === k.toLowerCase());
    if (!name) throw new EngineError('InvalidInput', `prices.${k}: no such operation (one of ${names.join(', ')})`, { path: `prices.${k}` });
    const price = typeof v === 'object' && v !== null ? (v as { price?: unknown }).price : v;
    if (typeof price !== 'number' || !Number.isInteger(price) || price < 0 || price > 1e9) {
      throw new EngineError('InvalidInput', `prices.${k}: must be a whole number of credits ≥ 0 (got ${JSON.stringify(price)})`, { path: `prices.${k}` });
    }
    out[name] = { unit: DEFAULT_PRICES[name].unit, price };
  }
  return out;
}

const len = (x: unknown): number => (Array.isArray(x) ? x.length : 0);
/** A property of a raw (unvalidated) specification, bound case-insensitively as the records bind. */
function prop(spec: unknown, name: string): unknown {
  if (typeof spec !== 'object' || spec === null) return undefined;
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(spec as Record<string, unknown>)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/**
 * The most units a request can cost, read from its raw specification (before validation): what
 * is reserved. Every stop of a dispatch, every address, every route specification, every point.
 */
export function maxUnits(op: ServiceOperationName, spec: unknown): number {
  switch (op) {
    case 'Dispatch': return len(prop(spec, 'Locations'));
    case 'Geocode': return len(prop(spec, 'Addresses'));
    case 'CalculateRoutes': return len(prop(spec, 'Specifications'));
    case 'TrackPoints': return Array.isArray(spec) ? spec.length : len(prop(spec, 'TrackPoints'));
    default: return 1;
  }
}
