/**
 * Redispatch (extension, issue #24): a stored route re-planned from "now" (ops/live) and stored as
 * its next version — the history kept, GetRoute answering the newest. Two re-dispatches of one
 * version: the second is refused (Version) and nothing is lost.
 */
import type { RedispatchResult, RedispatchSpecification } from '../../records/index.js';
import { instantOf, failedAt } from './common.js';
import type { Call } from '../call.js';
import { loadLivePlan } from './live-common.js';
import { storedRoute } from './engine.js';

export async function redispatchHandler(spec: RedispatchSpecification, call: Call): Promise<RedispatchResult> {
  const failed = (f: object): RedispatchResult => ({ Items: [], Changes: [], ...f }) as unknown as RedispatchResult;
  const now = instantOf(spec.CurrentTime) ?? call.service.clock();
  const loaded = await loadLivePlan(call, spec.RouteID, undefined, now);
  if (!loaded.ok) return failed(loaded.failed);
  const { plan } = loaded;
  if (spec.Version !== undefined && spec.Version > 0 && spec.Version !== plan.version) {
    return failed(failedAt('Version', `route ${spec.RouteID} is at version ${plan.version}: re-dispatch the current plan (another re-dispatch came first)`));
  }
  const deadline = Number.isFinite(call.limitMs) ? { deadlineMs: call.limitMs } : {};
  const answer = await call.service.engine.redispatch(plan, spec, { signal: call.signal, offload: true, ...deadline, ...(call.onProgress ? { onProgress: call.onProgress } : {}) });
  const r = answer.result;
  if (r.Status === 'Failed' || answer.specification === null) return r;
  // the route keeps its name and owner
  const route = await storedRoute(r, { account: call.account, routeName: loaded.name, owner: loaded.owner });
  const version = await call.service.store.replaceRoute({
    accountId: call.account!.id, routeId: plan.routeId, version: plan.version,
    route: { ...route, spec: answer.specification }, changes: JSON.stringify(r.Changes ?? []), now: call.service.clock(),
  });
  if (version === null) return failed(failedAt('RouteID', `no stored route ${spec.RouteID} in this account`));
  if (version === 'conflict') return failed(failedAt('Version', `route ${spec.RouteID} was re-dispatched meanwhile: re-dispatch its current version`));
  call.service.changes.emit(`route:${call.account!.id}:${plan.routeId}`);
  return { ...r, RouteID: plan.routeId, Version: version };
}
