/**
 * StopEvents (extension, issue #24): what happened at stops of a stored route — arrived, done,
 * failed, skipped. Each event is checked against the route (its vehicles and stops, a time not in
 * the future); every bad one is named at once and nothing is recorded.
 */
import { failedFromIssues, type Issue, type StopEventsResult, type StopEventsSpecification } from '../../records/index.js';
import { baseVehicle } from '../../ops/live/plan.js';
import { planVehicles } from '../../ops/live/index.js';
import type { StopEvent } from '../../store/types.js';
import type { Call } from '../call.js';
import { failedAt, instantOf } from './common.js';
import { FUTURE_SLACK_MS } from './track-points.js';
import { storedPlan } from './live-common.js';

/** Most events per request (one transaction). */
export const MAX_EVENTS = 1000;

export async function stopEvents(spec: StopEventsSpecification, call: Call): Promise<StopEventsResult> {
  const events = spec.Events ?? [];
  if (events.length > MAX_EVENTS) return { ...failedAt('Events', `at most ${MAX_EVENTS} events per request (got ${events.length})`), Count: 0 } as StopEventsResult;
  const store = call.service.store;
  const v = await store.getRouteVersion(call.account!.id, spec.RouteID);
  if (!v) return { ...failedAt('RouteID', `no stored route ${spec.RouteID} in this account`), Count: 0 } as StopEventsResult;
  const plan = await storedPlan(v);
  if (!plan) return { ...failedAt('RouteID', `stored route ${spec.RouteID} cannot be read back`), Count: 0 } as StopEventsResult;
  const { names, stops } = planVehicles(plan, v.spec);
  const vehicles = new Set(names);
  const now = call.service.clock();
  const issues: Issue[] = [];
  const out: StopEvent[] = [];
  events.forEach((e, i) => {
    const at = `Events[${i}]`;
    if (!e) { issues.push({ path: at, message: 'is empty (null)' }); return; }
    const vehicle = baseVehicle(e.Vehicle, vehicles);
    if (!vehicles.has(vehicle)) issues.push({ path: `${at}.Vehicle`, message: `names no vehicle of route ${spec.RouteID} ('${e.Vehicle}'; vehicles: ${names.join(', ') || 'none named'})` });
    if (!stops.has(e.Location)) issues.push({ path: `${at}.Location`, message: `names no stop of route ${spec.RouteID} ('${e.Location}')` });
    const ts = instantOf(e.TimeStamp);
    if (ts === null) issues.push({ path: `${at}.TimeStamp`, message: 'is not set (a date after 2012-01-01 is required)' });
    else if (ts > now + FUTURE_SLACK_MS) issues.push({ path: `${at}.TimeStamp`, message: `is in the future (${e.TimeStamp}; the server's clock says ${new Date(now).toISOString()})` });
    out.push({ vehicle, location: e.Location, event: e.Event, ts: ts ?? 0 });
  });
  if (issues.length) return { ...failedFromIssues(issues.slice(0, 50)), Count: 0 } as StopEventsResult;
  const n = await store.addStopEvents({ accountId: call.account!.id, routeId: spec.RouteID, events: out, now });
  if (n === null) return { ...failedAt('RouteID', `no stored route ${spec.RouteID} in this account`), Count: 0 } as StopEventsResult;
  call.service.changes.emit(`route:${call.account!.id}:${spec.RouteID}`);
  return { Status: 'Success', Errors: [], Count: n } as StopEventsResult;
}
