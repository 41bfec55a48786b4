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

/** What is wrong with one half of a coordinate pair (see {@link latLonProblems}). */
export interface LatLonProblem {
  field: 'lat' | 'lon';
  value: unknown;
  /** `nan`: not a number (NaN, or not of type number at all); `range`: outside -90..90 / -180..180 (±Infinity too). */
  reason: 'nan' | 'range';
  /** "Latitude 91 is outside -90..90." — callers with their own wording use the other fields. */
  message: string;
}

const NO_PROBLEMS: readonly LatLonProblem[] = Object.freeze([]);

function problemOf(field: 'lat' | 'lon', v: unknown): LatLonProblem | null {
  const name = field === 'lat' ? 'Latitude' : 'Longitude';
  const max = field === 'lat' ? 90 : 180;
  if (typeof v !== 'number' || Number.isNaN(v)) return { field, value: v, reason: 'nan', message: `${name} ${String(v)} is not a number.` };
  if (!(v >= -max && v <= max)) return { field, value: v, reason: 'range', message: `${name} ${v} is outside -${max}..${max}.` };
  return null;
}

/**
 * THE latitude/longitude check of the code base: what is wrong with the pair (latitude first,
 * then longitude; empty when it is a valid WGS84 coordinate: finite numbers, latitude within
 * ±90, longitude within ±180). Every place that validates a coordinate calls this (or
 * {@link isValidLatLon}) and words the answer its own way.
 */
export function latLonProblems(lat: unknown, lon: unknown): readonly LatLonProblem[] {
  const a = problemOf('lat', lat);
  const b = problemOf('lon', lon);
  if (a === null && b === null) return NO_PROBLEMS;
  return a === null ? [b!] : b === null ? [a] : [a, b];
}

/** True when the pair is a valid WGS84 coordinate ({@link latLonProblems} finds nothing). */
export function isValidLatLon(lat: unknown, lon: unknown): boolean {
  return latLonProblems(lat, lon).length === 0;
}

/** Web-mercator latitude limit: the square world map's edge (degrees). */
export const MERCATOR_MAX_LAT = 85.0511287798066;

/** Web-mercator x of a longitude, normalised to 0..1 (east). */
export function mercatorX(lon: number): number {
  return (lon + 180) / 360;
}

/** Web-mercator y of a latitude, normalised to 0..1 (south), clamped to ±{@link MERCATOR_MAX_LAT}. */
export function mercatorY(lat: number): number {
  const la = lat > MERCATOR_MAX_LAT ? MERCATOR_MAX_LAT : lat < -MERCATOR_MAX_LAT ? -MERCATOR_MAX_LAT : lat;
  const s = Math.sin((la * Math.PI) / 180);
  return 0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI);
}
