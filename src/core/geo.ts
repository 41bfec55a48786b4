/** Geographic helpers. Coordinates are degrees; distances are metres (WGS84 sphere, R = 6371008.8 m). */

export const EARTH_RADIUS_M = 6371008.8;
const RAD = Math.PI / 180;

/** Great-circle distance in metres. */
export function haversine(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLon = (lon2 - lon1) * RAD;
  const s1 = Math.sin(dLat / 2);
  const s2 = Math.sin(dLon / 2);
  const a = s1 * s1 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * s2 * s2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** Initial bearing from point 1 to point 2, degrees clockwise from north in [0, 360). */
export function bearing(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const p1 = lat1 * RAD;
  const p2 = lat2 * RAD;
  const dl = (lon2 - lon1) * RAD;
  const y = Math.sin(dl) * Math.cos(p2);
  const x = Math.cos(p1) * Math.sin(p2) - Math.sin(p1) * Math.cos(p2) * Math.cos(dl);
  return (Math.atan2(y, x) / RAD + 360) % 360;
}

/** Metres per degree of longitude and latitude around `lat` (local flat-earth approximation). */
export function metresPerDegree(lat: number): { kx: number; ky: number } {
  const ky = EARTH_RADIUS_M * RAD;
  return { kx: ky * Math.cos(lat * RAD), ky };
}

/**
 * Closest point to (plat, plon) on the segment a→b in a local flat projection.
 * Returns the fraction t ∈ [0, 1] along the segment and the distance in metres.
 */
export function projectOnSegment(
  plat: number, plon: number,
  alat: number, alon: number,
  blat: number, blon: number,
): { t: number; dist: number; lat: number; lon: number } {
  const { kx, ky } = metresPerDegree(plat);
  const ax = (alon - plon) * kx;
  const ay = (alat - plat) * ky;
  const bx = (blon - plon) * kx;
  const by = (blat - plat) * ky;
  const dx = bx - ax;
  const dy = by - ay;
  const len2 = dx * dx + dy * dy;
  let t = len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0;
  if (t < 0) t = 0;
  else if (t > 1) t = 1;
  const x = ax + t * dx;
  const y = ay + t * dy;
  return { t, dist: Math.sqrt(x * x + y * y), lat: alat + t * (blat - alat), lon: alon + t * (blon - alon) };
}

/** True when the pair is a valid WGS84 coordinate. */
export function isValidLatLon(lat: number, lon: number): boolean {
  return Number.isFinite(lat) && Number.isFinite(lon) && lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180;
}
