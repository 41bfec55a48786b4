/** GetRoute: a stored dispatch's DispatchResult. */
import { EngineError } from '../../core/errors.js';
import { DispatchResultSchema, parseJsonSliced, safeParseSliced, type DispatchResult, type GetRouteSpecificationSchema, type Parsed } from '../../records/index.js';
import type { Call } from '../call.js';
import { failedAt } from './common.js';

export async function getRoute(spec: Parsed<typeof GetRouteSpecificationSchema>, call: Call): Promise<DispatchResult> {
  // 0 = the newest (a .NET client sends every int, 0 when not set)
  const version = spec.Version !== undefined && spec.Version > 0 ? spec.Version : undefined;
  const found = version === undefined
    ? await call.service.store.getRoute(call.account!.id, spec.RouteID)
    : await call.service.store.getRouteVersion(call.account!.id, spec.RouteID, version);
  if (!found) {
    return (version !== undefined && (await call.service.store.getRouteVersion(call.account!.id, spec.RouteID))
      ? failedAt('Version', `route ${spec.RouteID} has no version ${spec.Version}`)
      : failedAt('RouteID', `no stored route ${spec.RouteID} in this account`)) as DispatchResult;
  }
  // a stored plan can be megabytes: read in slices
  const raw = await parseJsonSliced(found.result);
  const parsed = await safeParseSliced(DispatchResultSchema, raw);
  if (parsed.ok) return parsed.value as DispatchResult;
  // stored before a bound was set on a field (docs/limits.md): it is this service's own output, given back as it was
  if (raw && typeof raw === 'object' && !Array.isArray(raw) && 'Status' in raw) return raw as DispatchResult;
  throw new EngineError('Storage', `Stored route ${spec.RouteID} cannot be read back: ${parsed.issues[0]?.message}`);
}
