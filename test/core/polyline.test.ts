/** Encoded polylines: the published example, round trips at both precisions, hostile strings. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodePolyline, encodePolyline } from '../../src/core/polyline.js';
import { isEngineError } from '../../src/core/errors.js';

describe('encoded polylines', () => {
  it('encodes the format\'s published example', () => {
    const pts = [{ lat: 38.5, lon: -120.2 }, { lat: 40.7, lon: -120.95 }, { lat: 43.252, lon: -126.453 }];
    expect(encodePolyline(pts)).toBe('_p~iF~ps|U_ulLnnqC_mqNvxq`@');
    expect(decodePolyline('_p~iF~ps|U_ulLnnqC_mqNvxq`@')).toEqual(pts);
    expect(encodePolyline([])).toBe('');
  });

  it('round-trips at 5 and 6 decimals (within half a unit of the last place)', () => {
    const pt = fc.record({ lat: fc.double({ min: -90, max: 90, noNaN: true }), lon: fc.double({ min: -180, max: 180, noNaN: true }) });
    fc.assert(fc.property(fc.array(pt, { maxLength: 30 }), fc.constantFrom(5 as const, 6 as const), (pts, p) => {
      const back = decodePolyline(encodePolyline(pts, p), p);
      expect(back).toHaveLength(pts.length);
      back.forEach((b, k) => {
        expect(Math.abs(b.lat - pts[k].lat)).toBeLessThanOrEqual(0.5 / 10 ** p + 1e-12);
        expect(Math.abs(b.lon - pts[k].lon)).toBeLessThanOrEqual(0.5 / 10 ** p + 1e-12);
      });
    }), { seed: 7, numRuns: 500 });
  });

  it('accepts record LatLongs and refuses malformed strings with a coded error', () => {
    expect(encodePolyline([{ Latitude: 43.7, Longitude: 7.4 }], 6)).toBe(encodePolyline([{ lat: 43.7, lon: 7.4 }], 6));
    for (const bad of ['~', ' ', '_p~iF~ps|U_', '\u00ff']) {
      let err: unknown;
      try { decodePolyline(bad); } catch (e) { err = e; }
      expect(isEngineError(err) && err.code).toBe('InvalidInput');
    }
  });
});
