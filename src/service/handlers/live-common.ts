/** What the live operations read from the store: a route's version, its vehicles' tracks and its stop events. */
import { DispatchResultSchema, parseJsonSliced, safeParseSliced, type DispatchResult } from '../../records/index.js';
import { planVehicles, type LivePlan } from '../../ops/live/index.js';
import type { Call } from '../call.js';
import type { RouteVersion } from '../../store/types.js';
import { failedAt } from './common.js';

/** Track points read per vehicle: from an hour before the plan's departure or its making. */
const BEFORE_DEPARTURE_MS = 3_600_000;

export type Loaded = { ok: true; plan: LivePlan & { routeId: number; version: number }; name: string; owner: string } | { ok: false; failed: ReturnType<typeof failedAt> };

export async function loadLivePlan(call: Call, routeId: number, version: number | undefined, asOf: number): Promise<Loaded> {
  const store = call.service.store;
  const account = call.account!;
  const v = await store.getRouteVersion(account.id, routeId, version);
  if (!v) {
    return { ok: false, failed: version === undefined || !(await store.getRouteVersion(account.id, routeId))
      ? failedAt('RouteID', `no stored route ${routeId} in this account`)
      : failedAt('Version', `route ${routeId} has no version ${version}`) };
  }
  const result = await storedPlan(v);
  if (!result) return { ok: false, failed: failedAt('RouteID', `stored route ${routeId} cannot be read back`) };
  const { names, departure, stored } = planVehicles(result, v.spec);
  // the day's points: from an hour before the plan's departure or its making, whichever is first (a van may move before its plan says)
  const from = Math.min(departure !== null ? departure * 1000 : Infinity, v.createdAt) - BEFORE_DEPARTURE_MS;
  const tracks = new Map<string, { lat: number; lon: number; ts: number }[]>();
  for (const name of names) {
    const pts = await store.getTrack({ accountId: account.id, track: name, from, to: asOf });
    if (pts.length) tracks.set(name, pts);
  }
  const events = await store.stopEvents(account.id, routeId);
  return { ok: true, plan: { result, specification: v.spec, stored, tracks, events, routeId, version: v.version }, name: v.name, owner: v.owner };
}

/** A stored version's plan, read in slices (a 1,000-stop plan is megabytes); null when it does not read back. */
export async function storedPlan(v: RouteVersion): Promise<DispatchResult | null> {
  const parsed = await safeParseSliced(DispatchResultSchema, await parseJsonSliced(v.result));
  return parsed.ok ? parsed.value as DispatchResult : null;
}
