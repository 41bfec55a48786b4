/**
 * Encoded polylines (the format popularised by Google Maps and used by OSRM's `polyline` /
 * `polyline6` geometries): each coordinate is rounded to 10^-precision degrees, stored as the
 * difference from the previous point, zig-zag signed, and written as 5-bit chunks offset by 63.
 * Latitude comes first in each pair.
 */
import { EngineError } from './errors.js';

export type PolylinePrecision = 5 | 6;

function encodeValue(v: number, out: string[]): void {
  let x = v < 0 ? ~(v << 1) : v << 1;
  while (x >= 0x20) {
    out.push(String.fromCharCode((0x20 | (x & 0x1f)) + 63));
    x >>>= 5;
  }
  out.push(String.fromCharCode(x + 63));
}

/** Encodes points (`{ lat, lon }` or `{ Latitude, Longitude }`) at 5 (default) or 6 decimals. */
export function encodePolyline(points: readonly ({ lat: number; lon: number } | { Latitude: number; Longitude: number })[], precision: PolylinePrecision = 5): string {
  const f = 10 ** precision;
  const out: string[] = [];
  let pLat = 0, pLon = 0;
  for (const p of points) {
    const lat = Math.round(('lat' in p ? p.lat : p.Latitude) * f);
    const lon = Math.round(('lon' in p ? p.lon : p.Longitude) * f);
    encodeValue(lat - pLat, out);
    encodeValue(lon - pLon, out);
    pLat = lat;
    pLon = lon;
  }
  return out.join('');
}

/** Decodes an encoded polyline; throws InvalidInput on a malformed string. */
export function decodePolyline(s: string, precision: PolylinePrecision = 5): { lat: number; lon: number }[] {
  const f = 10 ** precision;
  const out: { lat: number; lon: number }[] = [];
  let i = 0, lat = 0, lon = 0;
  const next = (): number => {
    let result = 0, shift = 0, b: number;
    do {
      if (i >= s.length) throw new EngineError('InvalidInput', `polyline: ends inside a value (at character ${i})`, { path: 'polyline' });
      b = s.charCodeAt(i++) - 63;
      if (b < 0 || b > 63) throw new EngineError('InvalidInput', `polyline: character ${i - 1} is not part of the alphabet`, { path: 'polyline' });
      result |= (b & 0x1f) << shift;
      shift += 5;
      if (shift > 30) throw new EngineError('InvalidInput', `polyline: a value runs too long (at character ${i})`, { path: 'polyline' });
    } while (b >= 0x20);
    return result & 1 ? ~(result >>> 1) : result >>> 1;
  };
  while (i < s.length) {
    lat += next();
    lon += next();
    out.push({ lat: lat / f, lon: lon / f });
  }
  return out;
}
