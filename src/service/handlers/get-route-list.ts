/** GetRouteList: the account's stored dispatches, newest first, filtered. */
import type { Parsed, RouteListResult, RouteListSpecificationSchema } from '../../records/index.js';
import type { Call } from '../call.js';
import { failedAt, instantOf, utcDate } from './common.js';

export async function getRouteList(spec: Parsed<typeof RouteListSpecificationSchema>, call: Call): Promise<RouteListResult> {
  const from = instantOf(spec.FromDate), to = instantOf(spec.ToDate);
  if (from !== null && to !== null && to < from) return failedAt('ToDate', 'is before FromDate') as RouteListResult;
  const routes = await call.service.store.listRoutes(call.account!.id, {
    ...(from !== null ? { from } : {}), ...(to !== null ? { to } : {}),
    ...(spec.Owner ? { owner: spec.Owner } : {}), ...(spec.RouteName ? { name: spec.RouteName } : {}),
  });
  return {
    Status: 'Success', Errors: [],
    Routes: routes.map((r) => ({ RouteID: r.routeId, RouteName: r.name, Distance: r.distance, Time: r.time, Owner: r.owner, DateCreated: utcDate(r.createdAt) })),
  };
}
