/**
 * Record-side helpers shared by the operations: a contract Location becomes a place query for the
 * travel provider, RouteOptimize and a vehicle's Speed become a travel profile.
 */
import { EngineError } from '../core/errors.js';
import { metresPerUnit, type LengthUnit } from '../core/units.js';
import type { AddressQuery } from '../geocode/search.js';
import type { Address, Location } from '../records/index.js';
import type { PlaceQuery, Placement, TravelProfile } from '../route/travel.js';
import type { OpsContext } from './context.js';

export function addressQuery(a: Address): AddressQuery {
  return { Street: a.Street, City: a.City, State: a.State, PostalCode: a.PostalCode, Country: a.Country };
}

function hasText(a: Address | undefined): a is Address {
  return !!a && Object.values(a).some((v) => typeof v === 'string' && v.trim() !== '');
}

/** The place query of a Location (LatLong first, else its Address); throws InvalidInput naming `path` when it has neither. */
/** Whether a Location says where it is (LatLong, or an Address to geocode). */
export function hasPlace(loc: Location): boolean {
  return loc.LatLong != null || hasText(loc.Address);
}

export function placeQuery(loc: Location, path: string): PlaceQuery {
  if (loc.LatLong) return { lat: loc.LatLong.Latitude, lon: loc.LatLong.Longitude };
  if (hasText(loc.Address)) return { address: addressQuery(loc.Address) };
  throw new EngineError('InvalidInput', `${path}: needs LatLong (or an Address to geocode).`, { path });
}

/** Places one Location; throws EngineError (InvalidInput / NoSegment / Unsupported) naming `path`. */
export function placeLocation(ctx: OpsContext, loc: Location, path: string): Placement {
  return ctx.travel.place(placeQuery(loc, path), path);
}

/** The travel profile of a request: its RouteOptimize, and a vehicle's constant Speed (DistanceUnit per hour) when set. */
export function profileFor(routeOptimize: string | undefined, speed?: { value: number; unit: LengthUnit }): TravelProfile {
  const p: TravelProfile = { metric: routeOptimize === 'MinimizeDistance' ? 'distance' : 'time' };
  if (speed && speed.value > 0) p.speedMps = (speed.value * metresPerUnit(speed.unit)) / 3600;
  return p;
}
