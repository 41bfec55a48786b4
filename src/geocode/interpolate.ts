/**
 * House-number interpolation math on polylines (metres along the line, signed side offsets), and
 * the range rule shared by OSM `addr:interpolation` lines and TIGER ranges:
 * a number n lies on range [from, to] with step s iff it is between them and (n − from) % s = 0;
 * its position is the point at fraction (n − from)/(to − from) of the line's length.
 */
import { metresPerDegree } from '../core/geo.js';

/** Points of a polyline as parallel arrays with a [start, end) slice. */
export interface Line {
  lat: ArrayLike<number>;
  lon: ArrayLike<number>;
  start: number;
  end: number;
}

export function lineLength(l: Line): number {
  let len = 0;
  for (let i = l.start; i + 1 < l.end; i++) len += segLen(l.lat[i], l.lon[i], l.lat[i + 1], l.lon[i + 1]);
  return len;
}

function segLen(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const { kx, ky } = metresPerDegree((lat1 + lat2) / 2);
  const dx = (lon2 - lon1) * kx;
  const dy = (lat2 - lat1) * ky;
  return Math.sqrt(dx * dx + dy * dy);
}

export interface Projection {
  /** Metres from the line's start to the foot point. */
  measure: number;
  /** Distance from the point to the line (metres). */
  dist: number;
  /** Signed offset: positive when the point lies left of the line's direction. */
  offset: number;
  lat: number;
  lon: number;
}

/** Closest point of the line to (lat, lon). */
export function projectOnLine(l: Line, lat: number, lon: number): Projection {
  const { kx, ky } = metresPerDegree(lat);
  let best: Projection = { measure: 0, dist: Infinity, offset: 0, lat: l.lat[l.start], lon: l.lon[l.start] };
  let along = 0;
  if (l.end - l.start === 1) {
    const dx = (l.lon[l.start] - lon) * kx, dy = (l.lat[l.start] - lat) * ky;
    return { measure: 0, dist: Math.sqrt(dx * dx + dy * dy), offset: 0, lat: l.lat[l.start], lon: l.lon[l.start] };
  }
  for (let i = l.start; i + 1 < l.end; i++) {
    const ax = (l.lon[i] - lon) * kx, ay = (l.lat[i] - lat) * ky;
    const bx = (l.lon[i + 1] - lon) * kx, by = (l.lat[i + 1] - lat) * ky;
    const dx = bx - ax, dy = by - ay;
    const len2 = dx * dx + dy * dy;
    const len = Math.sqrt(len2);
    let t = len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0;
    if (t < 0) t = 0;
    else if (t > 1) t = 1;
    const px = ax + t * dx, py = ay + t * dy;
    const d = Math.sqrt(px * px + py * py);
    if (d < best.dist) {
      // cross product of segment direction and (point − segment start): > 0 → point on the left
      const cross = dx * -ay - dy * -ax;
      best = {
        measure: along + t * len,
        dist: d,
        offset: cross >= 0 ? d : -d,
        lat: l.lat[i] + t * (l.lat[i + 1] - l.lat[i]),
        lon: l.lon[i] + t * (l.lon[i + 1] - l.lon[i]),
      };
    }
    along += len;
  }
  return best;
}

/** The point `measure` metres along the line (clamped), moved `offset` metres to the left (negative: right). */
export function pointAtMeasure(l: Line, measure: number, offset = 0): { lat: number; lon: number } {
  let along = 0;
  const n = l.end - l.start;
  if (n === 1) return { lat: l.lat[l.start], lon: l.lon[l.start] };
  for (let i = l.start; i + 1 < l.end; i++) {
    const lat1 = l.lat[i], lon1 = l.lon[i], lat2 = l.lat[i + 1], lon2 = l.lon[i + 1];
    const { kx, ky } = metresPerDegree((lat1 + lat2) / 2);
    const dx = (lon2 - lon1) * kx, dy = (lat2 - lat1) * ky;
    const len = Math.sqrt(dx * dx + dy * dy);
    if (along + len >= measure || i + 2 === l.end) {
      let t = len > 0 ? (measure - along) / len : 0;
      if (t < 0) t = 0;
      else if (t > 1) t = 1;
      let lat = lat1 + t * (lat2 - lat1);
      let lon = lon1 + t * (lon2 - lon1);
      if (offset !== 0 && len > 0) {
        // left normal of (dx, dy) is (−dy, dx)
        lon += ((-dy / len) * offset) / kx;
        lat += ((dx / len) * offset) / ky;
      }
      return { lat, lon };
    }
    along += len;
  }
  return { lat: l.lat[l.end - 1], lon: l.lon[l.end - 1] };
}

/**
 * Fraction of range [from, to] (either direction) at which number n lies, or null when n is
 * outside the range or has the wrong parity for step `step` (1 = all numbers, 2 = odd/even).
 */
export function rangeFraction(from: number, to: number, step: number, n: number): number | null {
  const lo = Math.min(from, to);
  const hi = Math.max(from, to);
  if (n < lo || n > hi) return null;
  if (step > 1 && (n - from) % step !== 0) return null;
  if (from === to) return 0.5;
  return (n - from) / (to - from);
}

/** Decodes a Google encoded polyline (precision 5 or 6) into [lat, lon] pairs. */
export function decodePolyline(s: string, precision = 6): [number, number][] {
  const out: [number, number][] = [];
  const f = 10 ** precision;
  let i = 0, lat = 0, lon = 0;
  while (i < s.length) {
    for (let k = 0; k < 2; k++) {
      let shift = 0, result = 0, b: number;
      do {
        b = s.charCodeAt(i++) - 63;
        result |= (b & 0x1f) << shift;
        shift += 5;
      } while (b >= 0x20 && i < s.length + 1);
      const d = result & 1 ? ~(result >> 1) : result >> 1;
      if (k === 0) lat += d;
      else lon += d;
    }
    out.push([lat / f, lon / f]);
  }
  return out;
}
