/**
 * PlanGeoJson: a dispatch plan drawn on the roads — each vehicle's path as the dispatch routed it
 * and its stops — computed off the event loop, under the operation limit, its size bounded.
 */
import { RawJson, type Parsed, PlanSpecificationSchema } from '../../records/index.js';
import type { Call } from '../call.js';
import { failedAt } from './common.js';

/** Most plan entries (the Locations of all its Items) one request may draw: ~30 MB of GeoJSON, written without holding the loop (bench/stall.ts). */
export const MAX_PLAN_ENTRIES = 10_000;

export async function planGeoJson(spec: Parsed<typeof PlanSpecificationSchema>, call: Call): Promise<object> {
  const entries = (spec.Result.Items ?? []).reduce((a: number, it) => a + (it.Locations?.length ?? 0), 0);
  if (entries > MAX_PLAN_ENTRIES) return failedAt('Result.Items', `at most ${MAX_PLAN_ENTRIES} locations in all can be drawn at once (got ${entries}) [TooBig]`);
  const geo = await call.service.engine.planGeoJson(spec.Specification, spec.Result, { signal: call.signal });
  return { Status: 'Success', Errors: [], GeoJson: new RawJson(geo) };
}
