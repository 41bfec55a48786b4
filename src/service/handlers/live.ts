/** Live (extension, issue #24): the live state of a stored route — GET /rest/routes/{RouteID}/live. */
import type { LiveResult, LiveSpecification } from '../../records/index.js';
import type { Call } from '../call.js';
import { instantOf } from './common.js';
import { loadLivePlan } from './live-common.js';

export async function live(spec: LiveSpecification, call: Call): Promise<LiveResult> {
  const asOf = instantOf(spec.AsOf) ?? call.service.clock();
  const loaded = await loadLivePlan(call, spec.RouteID, spec.Version !== undefined && spec.Version > 0 ? spec.Version : undefined, asOf);
  if (!loaded.ok) return { ...loaded.failed, Vehicles: [] } as LiveResult;
  return call.service.engine.liveState(loaded.plan, asOf);
}
