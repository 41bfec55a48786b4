/** The engine's operations as handlers, and what a dispatch stores. */
import { visitsOf } from '../../ops/plan-geojson.js';
import type { OperationName } from '../../ops/table.js';
import { DispatchResultSchema, joined, jsonSliced, type DispatchResult, type Issue } from '../../records/index.js';
import type { NewRoute } from '../../store/types.js';
import type { Call } from '../call.js';
import type { ParseOutcome } from '../operations.js';

/** Longest stored route name and owner. */
export const MAX_NAME = 200;

/**
 * The handler of an engine operation: runs it offloaded (the server's event loop stays free)
 * under the call's signal; a dispatch also gets the limit as its hard deadline, so that its
 * search ends with the best plan inside it.
 */
export function engineHandler<S>(name: OperationName, input: (spec: S) => unknown = (s) => s) {
  return async (spec: S, call: Call): Promise<never> => {
    const deadline = name === 'Dispatch' && Number.isFinite(call.limitMs) ? { deadlineMs: call.limitMs } : {};
    const encode = name === 'CalculateRoutes' && call.encodeFor ? { encodeFor: call.encodeFor } : {};
    return (await call.service.engine.run(name, input(spec), {
      signal: call.signal, offload: true, ...deadline, ...encode, ...(call.onProgress ? { onProgress: call.onProgress } : {}),
      // a cancelled job's or a gone client's answer is never read: a dispatch then skips its final assembly
      ...(call.callerGone ? { discard: call.callerGone } : {}),
    })) as never;
  };
}

/** CalculateRoutes as the service counts it: its specifications as sent (each routed on its own) and each one's number of locations. */
export interface RoutesInput {
  raw: unknown;
  /** Locations of each Specification (0 when it has none or is not a list). */
  locations: number[];
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
function field(o: Record<string, unknown>, name: string): unknown {
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(o)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

/**
 * CalculateRoutes' validation for pricing: a RoutesSpecification object whose Specifications (bound
 * case-insensitively, as the records bind) is a list; each Specification is validated by the
 * operation itself (one that fails is a Failed RouteResult among the others, not a failed call).
 */
export function routesFromRaw(raw: unknown): ParseOutcome<RoutesInput> {
  if (!isObject(raw)) return { ok: false, issues: [{ path: '', message: 'must be a RoutesSpecification object' } satisfies Issue] };
  const list = field(raw, 'Specifications') ?? [];
  if (!Array.isArray(list)) return { ok: false, issues: [{ path: 'Specifications', message: 'must be a list' }] };
  const locations = list.map((s) => {
    const l = isObject(s) ? field(s, 'Locations') : undefined;
    return Array.isArray(l) ? l.length : 0;
  });
  return { ok: true, value: { raw, locations } };
}

/** What GetRouteList shows of a dispatch: totals of its legs, visits, vehicles used. */
export async function storedRoute(r: DispatchResult, call: Pick<Call, 'account' | 'routeName' | 'owner'>): Promise<NewRoute> {
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
    name: call.routeName?.slice(0, MAX_NAME) || `${stops} stop${stops === 1 ? '' : 's'} on ${vehicles} vehicle${vehicles === 1 ? '' : 's'}`,
    owner: call.owner?.slice(0, MAX_NAME) || call.account?.name || '',
    distance: Math.round(distance * 1e6) / 1e6,
    time: Math.round(time),
    stops,
    vehicles,
    // written in slices: a 10,000-stop plan is megabytes of text
    result: joined(await jsonSliced(DispatchResultSchema, r, { enums: 'name' })),
  };
}
