/**
 * The library spatial indexes (core/spatial.ts) against brute force: the best-first nearest walk
 * over a Flatbush R-tree and kdbush's box query with exact distances give exactly the brute
 * force answer (same item, same distance, ties to the lower item) on random data; indexes reopen
 * zero-copy at any 8-aligned offset; damaged bytes are refused with DatasetFormat. And the one
 * latitude/longitude check.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import Flatbush from 'flatbush';
import KDBush from 'kdbush';
import { Rng } from '../../src/core/rng.js';
import { isValidLatLon, latLonProblems, metresPerDegree, projectOnSegment } from '../../src/core/geo.js';
import { F32_SLACK_DEG, f32Down, f32Up, flatbushView, indexBytes, kdbushView, NearestWalk, nearestPoint } from '../../src/core/spatial.js';
import { isEngineError } from '../../src/core/errors.js';

/** n random segments around (lat0, lon0) within `spreadDeg`; some of them single points. */
function randomSegments(rng: Rng, n: number, lat0: number, lon0: number, spreadDeg: number) {
  const a = new Float64Array(4 * n);
  for (let i = 0; i < n; i++) {
    const la = lat0 + (rng.next() - 0.5) * spreadDeg;
    const lo = lon0 + (rng.next() - 0.5) * spreadDeg;
    const point = rng.chance(0.1);
    a[4 * i] = la;
    a[4 * i + 1] = lo;
    a[4 * i + 2] = point ? la : la + (rng.next() - 0.5) * spreadDeg * 0.05;
    a[4 * i + 3] = point ? lo : lo + (rng.next() - 0.5) * spreadDeg * 0.05;
  }
  return a;
}

function segmentIndex(seg: Float64Array, f64: boolean, nodeSize: number): Flatbush {
  const n = seg.length / 4;
  const fb = new Flatbush(n, nodeSize, f64 ? Float64Array : Float32Array);
  const down = f64 ? (v: number) => v : f32Down;
  const up = f64 ? (v: number) => v : f32Up;
  for (let i = 0; i < n; i++) {
    const [la0, lo0, la1, lo1] = seg.subarray(4 * i, 4 * i + 4);
    fb.add(down(Math.min(lo0, lo1)), down(Math.min(la0, la1)), up(Math.max(lo0, lo1)), up(Math.max(la0, la1)));
  }
  return fb.finish(), fb;
}

/** Brute force: the item minimising d among those with d < maxDist, ties to the lower item. */
function brute(n: number, maxDist: number, dist: (i: number) => number): { item: number; dist: number } {
  let best = -1;
  let bestD = maxDist;
  for (let i = 0; i < n; i++) {
    const d = dist(i);
    if (d < bestD) { best = i; bestD = d; }
  }
  return best < 0 ? { item: -1, dist: Infinity } : { item: best, dist: bestD };
}

describe('NearestWalk (best first over a Flatbush R-tree)', () => {
  it('gives the brute-force nearest segment, with penalties, on random data (float32 and float64 boxes)', () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 1, max: 600 }), fc.boolean(), fc.constantFrom(2, 4, 16),
      fc.constantFrom(-60, 0, 41.15, 70), fc.double({ min: 1, max: 5000, noNaN: true }),
      (seed, n, f64, nodeSize, lat0, maxDist) => {
        const rng = new Rng(seed);
        const seg = randomSegments(rng, n, lat0, -8.6, 0.05);
        const penalty = Float64Array.from({ length: n }, () => (rng.chance(0.2) ? rng.int(300) : 0));
        const walk = new NearestWalk(segmentIndex(seg, f64, nodeSize));
        for (let q = 0; q < 20; q++) {
          const lat = lat0 + (rng.next() - 0.5) * 0.07;
          const lon = -8.6 + (rng.next() - 0.5) * 0.07;
          const dist = (i: number) => projectOnSegment(lat, lon, seg[4 * i], seg[4 * i + 1], seg[4 * i + 2], seg[4 * i + 3]).dist + penalty[i];
          expect(walk.nearest(lat, lon, maxDist, dist)).toEqual(brute(n, maxDist, dist));
        }
      },
    ), { seed: 2611, numRuns: 120 });
  });

  it('breaks ties toward the lower item (points at one place)', () => {
    // items 1 and 3 at one place, 0 and 2 farther
    const seg = new Float64Array([41.002, -8, 41.002, -8, 41, -8, 41, -8, 41.001, -8, 41.001, -8, 41, -8, 41, -8]);
    const walk = new NearestWalk(segmentIndex(seg, false, 2));
    const dist = (i: number) => projectOnSegment(40.9998, -8, seg[4 * i], seg[4 * i + 1], seg[4 * i + 2], seg[4 * i + 3]).dist;
    expect(dist(1)).toBe(dist(3));
    expect(walk.nearest(40.9998, -8, 1000, dist)).toEqual({ item: 1, dist: dist(1) });
    expect(walk.nearest(40.9998, -8, 1, dist)).toEqual({ item: -1, dist: Infinity });
  });
});

describe('nearestPoint (kdbush box query, exact distances)', () => {
  it('gives the brute-force nearest point on random data (float32 coordinates with their slack, float64)', () => {
    fc.assert(fc.property(
      fc.integer({ min: 1, max: 2 ** 31 - 1 }), fc.integer({ min: 0, max: 800 }), fc.boolean(), fc.constantFrom(-33.9, 0, 41.15, 64),
      fc.double({ min: 0.5, max: 3000, noNaN: true }),
      (seed, n, f32, lat0, maxDist) => {
        const rng = new Rng(seed);
        const lat = Float64Array.from({ length: n }, () => lat0 + (rng.next() - 0.5) * 0.04);
        const lon = Float64Array.from({ length: n }, () => 151.2 + (rng.next() - 0.5) * 0.04);
        // duplicates make ties
        for (let i = 1; i < n; i += 7) { lat[i] = lat[i - 1]; lon[i] = lon[i - 1]; }
        const kd = new KDBush(n, 16, f32 ? Float32Array : Float64Array);
        for (let i = 0; i < n; i++) kd.add(lon[i], lat[i]);
        kd.finish();
        for (let q = 0; q < 20; q++) {
          const qlat = lat0 + (rng.next() - 0.5) * 0.05;
          const qlon = 151.2 + (rng.next() - 0.5) * 0.05;
          const { kx, ky } = metresPerDegree(qlat);
          const dist = (i: number) => Math.hypot((lon[i] - qlon) * kx, (lat[i] - qlat) * ky);
          expect(nearestPoint(kd, qlat, qlon, maxDist, dist, f32 ? F32_SLACK_DEG : 0)).toEqual(brute(n, maxDist, dist));
        }
      },
    ), { seed: 2612, numRuns: 120 });
  });
});

describe('indexes reopen in place', () => {
  it('a kdbush and a flatbush index inside a larger buffer answer as the originals, without copying', () => {
    const rng = new Rng(3);
    const n = 70000; // > 65535: 32-bit ids
    const kd = new KDBush(n, 64, Float32Array);
    for (let i = 0; i < n; i++) kd.add(rng.next(), rng.next());
    kd.finish();
    const fb = segmentIndex(randomSegments(rng, 5000, 0, 0, 1), false, 16);
    for (const [ix, view] of [[kd, kdbushView], [fb, flatbushView]] as const) {
      const own = indexBytes(ix);
      const big = new SharedArrayBuffer(own.byteLength + 64);
      const at = new Uint8Array(big, 40, own.byteLength);
      at.set(own);
      const re = (view as (b: Uint8Array, w: string) => KDBush | Flatbush)(at, 'test index');
      expect(re.data).toBe(big);
      for (let q = 0; q < 50; q++) {
        const x = rng.next() - 0.5, y = rng.next() - 0.5;
        const box = [x, y, x + 0.05, y + 0.05] as const;
        const a = ix instanceof KDBush ? ix.range(...box) : ix.search(...box);
        const b = re instanceof KDBush ? re.range(...box) : re.search(...box);
        expect(b).toEqual(a);
      }
    }
  });

  it('damaged or short bytes are refused with DatasetFormat', () => {
    const kd = new KDBush(10, 4, Float32Array);
    for (let i = 0; i < 10; i++) kd.add(i, i);
    kd.finish();
    const good = indexBytes(kd).slice();
    const cases: Uint8Array[] = [good.subarray(0, 4), good.slice(0, good.byteLength - 8), Object.assign(good.slice(), { 0: 0x00 }), Object.assign(good.slice(), { 1: 0x21 })];
    for (const b of cases) {
      let err: unknown;
      try { kdbushView(b, 'test'); } catch (e) { err = e; }
      expect(isEngineError(err) && err.code === 'DatasetFormat').toBe(true);
    }
    const fbBytes = indexBytes(segmentIndex(randomSegments(new Rng(1), 40, 0, 0, 1), false, 4)).slice();
    for (const b of [fbBytes.subarray(0, 4), fbBytes.slice(0, fbBytes.byteLength - 8), Object.assign(fbBytes.slice(), { 0: 0x00 })]) {
      let err: unknown;
      try { flatbushView(b, 'test'); } catch (e) { err = e; }
      expect(isEngineError(err) && err.code === 'DatasetFormat').toBe(true);
    }
  });
});

describe('the latitude/longitude check', () => {
  it('names the bad half (latitude first), why, and accepts exactly the WGS84 range', () => {
    expect(latLonProblems(41.15, -8.61)).toEqual([]);
    expect(latLonProblems(90, 180)).toEqual([]);
    expect(latLonProblems(-90, -180)).toEqual([]);
    expect(latLonProblems(90.000001, 0).map((p) => [p.field, p.reason])).toEqual([['lat', 'range']]);
    expect(latLonProblems(0, -180.5).map((p) => [p.field, p.reason])).toEqual([['lon', 'range']]);
    expect(latLonProblems(NaN, Infinity).map((p) => [p.field, p.reason])).toEqual([['lat', 'nan'], ['lon', 'range']]);
    expect(latLonProblems('41' as unknown, undefined).map((p) => [p.field, p.reason])).toEqual([['lat', 'nan'], ['lon', 'nan']]);
    expect(latLonProblems(91, 7)[0].message).toBe('Latitude 91 is outside -90..90.');
    expect(latLonProblems(1, NaN)[0].message).toBe('Longitude NaN is not a number.');
    fc.assert(fc.property(fc.double(), fc.double(), (lat, lon) => {
      const ok = Number.isFinite(lat) && Number.isFinite(lon) && Math.abs(lat) <= 90 && Math.abs(lon) <= 180;
      expect(isValidLatLon(lat, lon)).toBe(ok);
      expect(latLonProblems(lat, lon).length === 0).toBe(ok);
    }), { seed: 26, numRuns: 2000 });
  });
});
