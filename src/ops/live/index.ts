/**
 * Live re-dispatch as operations (issue #24): the live state of a plan and its re-dispatch, from
 * a plan, the specification it answers, the vehicles' tracks and the stop events — however the
 * caller keeps them (the service reads them from its store; a library caller passes its own).
 * Records in, records out; bad input is a Failed result naming the field.
 */
import {
  DispatchResultSchema, RedispatchSpecificationSchema, dateToSeconds, failedFromError, failedFromIssues,
  type DispatchResult, type LiveResult, type RedispatchResult,
} from '../../records/index.js';
import type { Fix } from '../../route/match.js';
import type { OpsContext } from '../context.js';
import type { DispatchOpOptions } from '../dispatch/index.js';
import { planUtc, readPlan, readStoredSpec, type StoredSpec } from './plan.js';
import { liveRecord, liveState, type LiveEvent } from './state.js';
import { redispatch } from './redispatch.js';

export type { LiveEvent } from './state.js';
export { readStoredSpec, readPlan } from './plan.js';

/** A plan and what is known of its day. */
export interface LivePlan {
  /** The plan: a DispatchResult (or a re-dispatch's result). */
  result: DispatchResult;
  /** The specification it answers, as JSON text: a DispatchSpecification, or a re-dispatch's `specification`. */
  specification: string | null;
  /** `specification` already read ({@link planVehicles} gives it): it is not read again. */
  stored?: StoredSpec | null;
  /** GPS fixes per Vehicle Name, in time order: `{ lat, lon, ts }` (ts in ms, UTC). */
  tracks: ReadonlyMap<string, readonly Fix[]>;
  events: readonly LiveEvent[];
  /** The RouteID and version the answer names (0 when the plan is not stored). */
  routeId?: number;
  version?: number;
}

/** The vehicles' names of a plan (what its tracks are named after) and its departure (s; null when it has no clock). */
export function planVehicles(result: DispatchResult, specification: string | null): { names: string[]; stops: Set<string>; departure: number | null; stored: StoredSpec | null } {
  const stored = readStoredSpec(specification);
  const plan = readPlan(result, stored?.spec ?? null);
  const deps = plan.map((v) => v.departure).filter((d): d is number => d !== null);
  const stops = new Set<string>();
  for (const v of plan) for (const e of v.entries) if (e.name) stops.add(e.name);
  for (const l of stored?.spec.Locations ?? []) if (l?.Name) stops.add(l.Name);
  const names = new Set(plan.map((v) => v.name));
  for (const v of stored?.spec.Vehicles ?? []) if (v?.Name) names.add(v.Name);
  return { names: [...names], stops, departure: deps.length ? Math.min(...deps) : null, stored };
}

/** The live state of a plan at `asOf` (ms). */
export function liveOp(ctx: OpsContext, p: LivePlan, asOf: number): LiveResult {
  try {
    const stored = storedOf(p);
    const states = liveState(ctx.travel, { result: p.result, stored, tracks: p.tracks, events: p.events, asOf });
    return liveRecord(states, { routeId: p.routeId ?? 0, version: p.version ?? 1, asOf, utc: planUtc(p.result) });
  } catch (e) {
    return failedFromError(e, { Vehicles: [] }) as LiveResult;
  }
}

export interface RedispatchAnswer {
  result: RedispatchResult;
  /** What the next version answers, as JSON text (pass it as `specification` next time). */
  specification: string | null;
}

/** Re-dispatches a plan from its spec's CurrentTime (a RedispatchSpecification, validated here). */
export async function redispatchOp(ctx: OpsContext, p: LivePlan, spec: unknown, opts: DispatchOpOptions = {}): Promise<RedispatchAnswer> {
  const failed = (r: object): RedispatchAnswer => ({ result: { Items: [], Changes: [], ...r } as unknown as RedispatchResult, specification: null });
  try {
    const parsed = RedispatchSpecificationSchema.safeParse(spec);
    if (!parsed.ok) return failed(failedFromIssues(parsed.issues, {}));
    const stored = storedOf(p);
    if (!stored) return failed(failedFromIssues([{ path: 'RouteID', message: 'this route was stored without its specification (before re-dispatch existed); dispatch it again' }], {}));
    if (dateToSeconds(parsed.value.CurrentTime) === null) return failed(failedFromIssues([{ path: 'CurrentTime', message: 'is required (after 2012-01-01)' }], {}));
    const out = await redispatch(ctx, { result: p.result, stored, tracks: p.tracks, events: p.events }, parsed.value, opts);
    if ('issues' in out) return failed(failedFromIssues(out.issues, {}));
    return { result: { ...out.result, RouteID: p.routeId ?? 0, Version: (p.version ?? 1) + 1 }, specification: out.storedSpec };
  } catch (e) {
    return failed(failedFromError(e, {}));
  }
}

function storedOf(p: LivePlan): StoredSpec | null {
  return p.stored !== undefined ? p.stored : readStoredSpec(p.specification);
}

/** Reads a stored DispatchResult (JSON text) for live work; null when it is not one. */
export function planOf(text: string): DispatchResult | null {
  try {
    const p = DispatchResultSchema.safeParse(JSON.parse(text));
    return p.ok ? p.value : null;
  } catch {
    return null;
  }
}
