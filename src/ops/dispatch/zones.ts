/**
 * Stage "zones": a vehicle's Shapes (DoNotEnter / DoNotExit polygons) become skills. Stops are
 * grouped by the zone sets that forbid them; each group gets a `zone-ok:<k>` skill that only the
 * vehicles allowed there have. (Their paths avoid the zones through their own matrices: fleet.ts.)
 */
import type { Location, Vehicle } from '../../records/index.js';
import { allowedAt, pointInPolygon, type Zone } from '../../route/zones.js';
import type { Draft } from './draft.js';
import { nameOf, ZONE_SKILL } from './types.js';

/** A vehicle's no-go zones (Shapes), or none. */
export function vehicleZones(v: Vehicle | undefined): Zone[] {
  return (v?.Shapes ?? []).filter((sh) => !!sh).map((sh) => ({
    points: (sh.Points ?? []).map((p) => ({ lat: p.Latitude, lon: p.Longitude })),
    restriction: sh.Restriction === 'DoNotExit' ? 'DoNotExit' : 'DoNotEnter',
  }));
}

/** Vehicles with the same zones share a key (and their matrices); '' = no zones. */
export function zoneKey(zones: readonly Zone[]): string {
  return zones.length === 0 ? '' : JSON.stringify(zones);
}

/**
 * The skill a stop needs under the vehicles' no-go zones: undefined when every vehicle may serve
 * it; a `zone-ok:<class>` skill that only the vehicles allowed there get; null when no vehicle
 * may (the stop is reported and left out).
 */
export function zoneSkill(d: Draft, l: Location, i: number): string | null | undefined {
  const p = l.LatLong;
  if (!p || !d.anyZones) return undefined;
  const bad: string[] = [];
  for (const [k, zones] of d.zonesByKey) if (!allowedAt(p.Latitude, p.Longitude, zones)) bad.push(k);
  if (bad.length === 0) return undefined;
  if (d.keyOf.every((k) => bad.includes(k))) {
    d.errors.push(`${nameOf(l, i)} was not dispatched: it lies inside a DoNotEnter zone or outside a DoNotExit zone of every vehicle (Vehicles[].Shapes)`);
    return null;
  }
  const ck = bad.join('\u0000');
  let skill = d.zoneClasses.get(ck)?.skill;
  if (skill === undefined) d.zoneClasses.set(ck, { skill: (skill = `${ZONE_SKILL}${d.zoneClasses.size}`), bad: new Set(bad) });
  return skill;
}

/**
 * After the stops: a vehicle (every trip of it) gets the skill of each class of stops its zones
 * do not forbid; a DoNotExit zone with no stop inside leaves its vehicle nothing to do (said).
 */
export function applyZoneSkills(d: Draft): void {
  for (const { skill, bad } of d.zoneClasses.values()) {
    d.model.forEach((mv, m) => { if (!bad.has(d.keyOf[d.modelOf[m]])) mv.skills = [...(mv.skills ?? []), skill]; });
  }
  d.zonesOf.forEach((zs, v) => zs.forEach((z, k) => {
    if (z.restriction !== 'DoNotExit') return;
    const any = d.locs.some((l) => l?.LatLong && (l.LocationType ?? 'Midway') !== 'Start' && (l.LocationType ?? 'Midway') !== 'Finish' && pointInPolygon(l.LatLong.Latitude, l.LatLong.Longitude, z.points));
    if (!any) d.errors.push(`Vehicles[${d.vehIdx[v]}].Shapes[${k}]: the DoNotExit zone contains no stop; vehicle '${d.vehicles[v].Name ?? v}' can serve none`);
  }));
}
