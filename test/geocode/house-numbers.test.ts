/**
 * NumberPlacer on hand-made streets: a straight chain running east along 45° N, known numbers at
 * chosen positions along it (metres) and side offsets (metres, + = left/north).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { haversine, metresPerDegree } from '../../src/core/geo.js';
import { projectOnLine, type Line } from '../../src/geocode/interpolate.js';
import { NumberPlacer } from '../../src/geocode/house-numbers.js';
import type { GeocodeIndex } from '../../src/geocode/geocode-index.js';

const LAT0 = 45, LON0 = 7;
const { kx, ky } = metresPerDegree(LAT0);
const at = (x: number, y: number) => ({ lat: LAT0 + y / ky, lon: LON0 + x / kx });

interface Known { num: number; x: number; y: number }

/** A one-street index holding the fields NumberPlacer reads (a chain of `length` metres, vertices every 50 m). */
function streetIndex(length: number, known: Known[]): GeocodeIndex {
  const pts: { lat: number; lon: number }[] = [];
  for (let x = 0; x < length; x += 50) pts.push(at(x, 0));
  pts.push(at(length, 0));
  const ptLat = Float64Array.from(pts.map((p) => p.lat)), ptLon = Float64Array.from(pts.map((p) => p.lon));
  const line: Line = { lat: ptLat, lon: ptLon, start: 0, end: pts.length };
  const ks = [...known].sort((a, b) => a.num - b.num || a.x - b.x);
  const n = ks.length;
  const idx = {
    stAddrOff: Uint32Array.from([0, n]), chainOff: Uint32Array.from([0, pts.length]), ptLat, ptLon,
    adNum: new Uint32Array(n), adLat: new Float64Array(n), adLon: new Float64Array(n), adChain: new Int32Array(n),
    adMeasure: new Float64Array(n), adOffset: new Float32Array(n), adDist: new Float32Array(n),
  };
  ks.forEach((k, i) => {
    const p = at(k.x, k.y);
    const pr = projectOnLine(line, p.lat, p.lon);
    idx.adNum[i] = k.num; idx.adLat[i] = p.lat; idx.adLon[i] = p.lon; idx.adChain[i] = 0;
    idx.adMeasure[i] = pr.measure; idx.adOffset[i] = pr.offset; idx.adDist[i] = pr.dist;
  });
  return idx as unknown as GeocodeIndex;
}

function placedError(length: number, known: Known[], truth: Known): number {
  const p = new NumberPlacer(streetIndex(length, known)).place(0, truth.num);
  expect(p).not.toBeNull();
  const t = at(truth.x, truth.y);
  return haversine(p!.lat, p!.lon, t.lat, t.lon);
}

describe('house numbers without an address point', () => {
  it('regular street, sides in step: every held-out number lands within a few metres (property)', () => {
    fc.assert(fc.property(
      fc.integer({ min: 6, max: 40 }), fc.integer({ min: 8, max: 30 }), fc.integer({ min: 5, max: 25 }), fc.nat(),
      (count, spacing, side, pick) => {
        // number n at x = spacing·n, odd on the left, even on the right
        const all: Known[] = [];
        for (let num = 1; num <= count; num++) all.push({ num, x: spacing * num, y: num % 2 ? side : -side });
        const held = all[1 + (pick % (count - 2))]; // an interior number
        const e = placedError(spacing * (count + 2), all.filter((k) => k !== held), held);
        expect(e).toBeLessThan(3);
      }), { seed: 5, numRuns: 200 });
  });

  it('sides that drift apart: a number is placed among its own side, not the other', () => {
    // odd side at x = 20·n, even side 300 m further along (Monaco's boulevards)
    const known: Known[] = [];
    for (let num = 1; num <= 31; num += 2) known.push({ num, x: 20 * num, y: 15 });
    for (let num = 2; num <= 20; num += 2) if (num !== 12) known.push({ num, x: 20 * num + 300, y: -15 });
    const len = 1200;
    expect(placedError(len, known, { num: 12, x: 540, y: -15 })).toBeLessThan(10); // between 10 and 14
    expect(placedError(len, known, { num: 22, x: 740, y: -15 })).toBeLessThan(25); // just past the last even
    expect(placedError(len, known, { num: 33, x: 660, y: 15 })).toBeLessThan(25); // just past the last odd
  });

  it('extrapolates past the known numbers along the chain and stops at its end', () => {
    const known: Known[] = [];
    for (let num = 2; num <= 20; num += 2) known.push({ num, x: 10 * num, y: -10 });
    // 24 is past 20 by less than the slack: 40 m further along
    expect(placedError(500, known, { num: 24, x: 240, y: -10 })).toBeLessThan(3);
    // 60 is far past: the extrapolation stops at the chain's end (250 m), not at 600 m
    const p = new NumberPlacer(streetIndex(250, known)).place(0, 60)!;
    const end = at(250, -10);
    expect(haversine(p.lat, p.lon, end.lat, end.lon)).toBeLessThan(3);
    expect(p.how).toBe('beyond');
  });

  it('numbers with no order along the street fall back to the closest known number', () => {
    // positions unrelated to the numbers: no fit, no extrapolation
    const known: Known[] = [{ num: 2, x: 300, y: -10 }, { num: 4, x: 20, y: -10 }, { num: 6, x: 500, y: -10 }, { num: 8, x: 100, y: -10 }];
    const p = new NumberPlacer(streetIndex(600, known)).place(0, 40)!;
    expect(p.how).toBe('nearest');
    const eight = at(100, -10);
    expect(haversine(p.lat, p.lon, eight.lat, eight.lon)).toBeLessThan(0.01);
    // nothing known within reach in value
    expect(new NumberPlacer(streetIndex(600, known)).place(0, 900)).toBeNull();
  });

  it('interpolated results are tight only over short brackets', () => {
    const known: Known[] = [{ num: 2, x: 0, y: -10 }, { num: 10, x: 300, y: -10 }, { num: 20, x: 1000, y: -10 }];
    const idx = streetIndex(1000, known);
    expect(new NumberPlacer(idx).place(0, 6)).toMatchObject({ how: 'between', tight: true });
    expect(new NumberPlacer(idx).place(0, 14)).toMatchObject({ how: 'between', tight: false });
  });
});
