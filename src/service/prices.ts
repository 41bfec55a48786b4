/**
 * The published price list: what each priced operation of the operation table costs, in whole
 * credits per unit of work. A call is priced from its validated record (never from raw JSON) by
 * its row's `maxUnits` (what is reserved before the work) and `units` (what the work done costs,
 * from the record and its result) — one function each per operation, in `operations.ts`.
 * See docs/service.md ("Credit").
 */
import { readFileSync } from 'node:fs';
import { EngineError } from '../core/errors.js';
import { OPERATIONS, OPERATION_NAMES, type PriceUnit, type ServiceOperation, type ServiceOperationName } from './operations.js';

export type { PriceUnit };

export interface Price {
  /** Whole credits per unit (0 = free). */
  price: number;
  unit: PriceUnit;
}

/** Prices of the priced operations (the rows with a `price`). */
export type PriceList = Partial<Record<ServiceOperationName, Price>>;

/** The default price list (docs/service.md), from the operation table. */
export const DEFAULT_PRICES: Readonly<PriceList> = Object.freeze(Object.fromEntries(
  OPERATION_NAMES.flatMap((n) => {
    const p = (OPERATIONS[n] as ServiceOperation).price;
    return p ? [[n, { price: p.default, unit: p.unit }]] : [];
  }),
) as PriceList);

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
    if (!name) throw new EngineError('InvalidInput', `prices.${k}: no such priced operation (one of ${names.join(', ')})`, { path: `prices.${k}` });
    const price = typeof v === 'object' && v !== null ? (v as { price?: unknown }).price : v;
    if (typeof price !== 'number' || !Number.isInteger(price) || price < 0 || price > 1e9) {
      throw new EngineError('InvalidInput', `prices.${k}: must be a whole number of credits ≥ 0 (got ${JSON.stringify(price)})`, { path: `prices.${k}` });
    }
    out[name] = { unit: DEFAULT_PRICES[name]!.unit, price };
  }
  return out;
}

/** What a call may cost before the work: the units its validated record asks for, and their price. */
export interface Quote {
  units: number;
  unitPrice: number;
  /** units × unitPrice: what is reserved (0: nothing to reserve). */
  amount: number;
}

/**
 * The most `spec` (validated for `row`) can cost under `prices` — or at `unitPrice` when one was
 * quoted already (a job is charged at the price of its submission, stored with it).
 */
export function quote<S>(row: ServiceOperation<S>, prices: PriceList, spec: S, unitPrice?: number | null): Quote {
  const price = unitPrice ?? prices[row.name as ServiceOperationName]?.price;
  if (price === undefined || !row.maxUnits) return { units: 0, unitPrice: 0, amount: 0 };
  const units = Math.max(0, Math.floor(row.maxUnits(spec)));
  return { units, unitPrice: price, amount: units * price };
}

/** What the work done costs: the units of the result, at most the quoted ones (0 for a Failed result). */
export function costOf<S, R>(row: ServiceOperation<S, R>, q: Quote, spec: S, result: R): { units: number; cost: number } {
  if (q.unitPrice === 0 || !row.units) return { units: 0, cost: 0 };
  const units = Math.min(q.units, Math.max(0, Math.floor(row.units(spec, result))));
  return { units, cost: units * q.unitPrice };
}
