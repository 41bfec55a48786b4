import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodePolyline, lineLength, pointAtMeasure, projectOnLine, rangeFraction, type Line } from '../../src/geocode/interpolate.js';
import { parseTigerCsv } from '../../src/geocode/tiger.js';
import { analyzeName } from '../../src/geocode/normalize.js';
import { haversine } from '../../src/core/geo.js';
import { osaDistance, trigrams } from '../../src/geocode/fuzzy.js';

const FIX = new URL('../../fixtures/geocode/', import.meta.url);

function lineOf(pts: [number, number][]): Line {
  return { lat: pts.map((p) => p[0]), lon: pts.map((p) => p[1]), start: 0, end: pts.length };
}

describe('range rule (OSM interpolation lines, TIGER)', () => {
  it('places numbers by fraction with parity', () => {
    expect(rangeFraction(101, 199, 2, 101)).toBe(0);
    expect(rangeFraction(101, 199, 2, 199)).toBe(1);
    expect(rangeFraction(101, 199, 2, 150)).toBeNull(); // even number on an odd range
    expect(rangeFraction(199, 101, 2, 151)).toBeCloseTo(48 / 98, 12); // range written backwards
    expect(rangeFraction(100, 198, 2, 150)).toBeCloseTo(50 / 98, 12);
    expect(rangeFraction(1047, 1075, 1, 1060)).toBeCloseTo(13 / 28, 12);
    expect(rangeFraction(1047, 1075, 1, 1076)).toBeNull();
    expect(rangeFraction(5, 5, 1, 5)).toBe(0.5);
  });

  it('parses the TIGER CSV sample', () => {
    const { ranges, skipped } = parseTigerCsv(readFileSync(new URL('tiger-01001-sample.csv', FIX), 'utf8'));
    expect(ranges.length).toBe(280);
    expect(skipped).toBe(0);
    for (const r of ranges) {
      expect(r.lat.length).toBeGreaterThanOrEqual(2);
      if (r.step === 2) expect(Math.abs((r.from - r.to) % 2)).toBe(0);
    }
    const odd = ranges.filter((r) => r.step === 2 && r.from % 2 === 1).length;
    const even = ranges.filter((r) => r.step === 2 && r.from % 2 === 0).length;
    expect(odd).toBeGreaterThan(0);
    expect(even).toBeGreaterThan(0);
  });

  it('skips malformed TIGER rows and rejects a file without the needed columns', () => {
    const text = 'from;to;interpolation;street;city;state;postcode;geometry\n1;9;odd;A St;X;AL;1;LINESTRING(-86 32,-86.1 32.1)\nx;9;odd;B St;X;AL;1;LINESTRING(-86 32,-86.1 32.1)\n2;9;even;C St;X;AL;1;LINESTRING(-86 32,-86.1 32.1)\n4;8;even;D St;X;AL;1;POINT(1 2)\n';
    const r = parseTigerCsv(text);
    expect(r.ranges.map((x) => x.street)).toEqual(['A St']);
    expect(r.skipped).toBe(3);
    expect(() => parseTigerCsv('a;b\n1;2\n')).toThrow(/header/);
  });
});

describe('polyline measures', () => {
  const line = lineOf([[47.0, 9.0], [47.001, 9.0], [47.001, 9.002]]);

  it('projects and re-places points (measure + signed offset round trip)', () => {
    fc.assert(fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: -40, max: 40, noNaN: true }), (f, off) => {
      const len = lineLength(line);
      const m = f * len;
      const p = pointAtMeasure(line, m, off);
      const back = projectOnLine(line, p.lat, p.lon);
      // near the corner a point offset to the outside projects on the vertex; skip that wedge
      if (Math.abs(m - 111.2) < Math.abs(off) + 1) return;
      expect(back.measure).toBeCloseTo(m, 0);
      expect(back.offset).toBeCloseTo(off, 0);
    }), { seed: 42, numRuns: 300 });
  });

  it('measures length in metres', () => {
    expect(lineLength(lineOf([[0, 0], [0.001, 0]]))).toBeCloseTo(111.2, 0);
  });

  it('decodes encoded polylines (precision 6)', () => {
    const pts = decodePolyline('_izlhA~rlgdF_{geC~ywl@_kwzCn`{nI', 6);
    expect(pts[0][0]).toBeCloseTo(38.5, 5);
    expect(pts[0][1]).toBeCloseTo(-120.2, 5);
    expect(pts.length).toBe(3);
  });
});

/**
 * Pelias interpolation fixtures (real OpenAddresses points + OSM centre-lines): every interior
 * address is held out in turn and placed from its nearest same-parity neighbours by measure along
 * the street and side offset — the interpolation the geocoder does between known numbers.
 */
describe('interpolation between known numbers on Pelias fixtures', () => {
  function load(name: string, street: string) {
    const polyText = readFileSync(new URL(`pelias-interpolation/${name}.osm.polylines`, FIX), 'utf8');
    const want = analyzeName(street);
    const lines = polyText.split('\n').filter((l) => l.includes('\u0000')).map((l) => {
      const [enc, nm] = l.split('\u0000');
      return { name: nm, pts: decodePolyline(enc, 6) };
    }).filter((l) => { const k = analyzeName(l.name); return k.coreKey === want.coreKey && k.predir === want.predir; });
    const rows = readFileSync(new URL(`pelias-interpolation/${name}.oa.csv`, FIX), 'utf8').trim().split('\n').slice(1).map((r) => r.split(','));
    const pts = rows.map((r) => ({ lon: Number(r[0]), lat: Number(r[1]), num: parseInt(r[2], 10) })).filter((p) => Number.isFinite(p.num));
    return { lines, pts };
  }

  // measured medians: West 26th St 5.7 m, Rigaer Straße 11.1 m, Glasgow St 10.0 m
  for (const [name, street, maxMedian] of [['west26th', 'West 26th Street', 12], ['updown', 'Rigaer Straße', 20], ['basic', 'Glasgow Street', 20]] as const) {
    it(`${name}: held-out error is small`, () => {
      const { lines, pts } = load(name, street);
      expect(lines.length).toBeGreaterThan(0);
      // join the street's segments at shared end points into chains; use the longest chain
      const same = (a: [number, number], b: [number, number]) => Math.abs(a[0] - b[0]) < 1e-6 && Math.abs(a[1] - b[1]) < 1e-6;
      const pending = lines.map((l) => l.pts.slice());
      const chains: [number, number][][] = [];
      while (pending.length > 0) {
        let cur = pending.shift()!;
        for (let grew = true; grew;) {
          grew = false;
          for (let k = 0; k < pending.length; k++) {
            const w = pending[k];
            if (same(w[0], cur[cur.length - 1])) cur = cur.concat(w.slice(1));
            else if (same(w[w.length - 1], cur[cur.length - 1])) cur = cur.concat(w.slice(0, -1).reverse());
            else if (same(w[w.length - 1], cur[0])) cur = w.slice(0, -1).concat(cur);
            else if (same(w[0], cur[0])) cur = w.slice(1).reverse().concat(cur);
            else continue;
            pending.splice(k, 1);
            grew = true;
            break;
          }
        }
        chains.push(cur);
      }
      // the chain that carries most of the addresses (the fixture holds same-named streets elsewhere)
      const near = (c: [number, number][]) => pts.filter((p) => projectOnLine(lineOf(c), p.lat, p.lon).dist < 60).length;
      chains.sort((a, b) => near(b) - near(a) || lineLength(lineOf(b)) - lineLength(lineOf(a)));
      const line = lineOf(chains[0]);
      const onLine = pts.map((p) => ({ ...p, pr: projectOnLine(line, p.lat, p.lon) })).filter((p) => p.pr.dist < 60);
      const errs: number[] = [];
      for (const p of onLine) {
        const same = onLine.filter((q) => q !== p && q.num % 2 === p.num % 2 && q.num !== p.num);
        const below = same.filter((q) => q.num < p.num).sort((a, b) => b.num - a.num)[0];
        const above = same.filter((q) => q.num > p.num).sort((a, b) => a.num - b.num)[0];
        if (!below || !above) continue;
        const t = (p.num - below.num) / (above.num - below.num);
        const m = below.pr.measure + t * (above.pr.measure - below.pr.measure);
        const off = Math.sign(below.pr.offset) === Math.sign(above.pr.offset) ? below.pr.offset + t * (above.pr.offset - below.pr.offset) : 0;
        const q = pointAtMeasure(line, m, off);
        errs.push(haversine(q.lat, q.lon, p.lat, p.lon));
      }
      expect(errs.length).toBeGreaterThan(3);
      errs.sort((a, b) => a - b);
      expect(errs[Math.floor(errs.length / 2)]).toBeLessThan(maxMedian);
    });
  }
});

describe('fuzzy primitives', () => {
  /** Reference optimal-string-alignment distance (unbounded, straightforward DP). */
  function osaRef(a: string, b: string): number {
    const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
    for (let i = 1; i <= a.length; i++) {
      for (let j = 1; j <= b.length; j++) {
        const cost = a[i - 1] === b[j - 1] ? 0 : 1;
        d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
    return d[a.length][b.length];
  }

  it('bounded OSA distance equals the reference (capped)', () => {
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd', 'ß', 'é'), maxLength: 12 });
    fc.assert(fc.property(word, word, fc.integer({ min: 0, max: 6 }), (a, b, cap) => {
      const r = osaRef(a, b);
      expect(osaDistance(a, b, cap)).toBe(r > cap ? cap + 1 : r);
    }), { seed: 7, numRuns: 2000 });
  });

  it('counts transpositions as one edit', () => {
    expect(osaDistance('landstrasse', 'landtsrasse')).toBe(1);
    expect(osaDistance('nuegasse', 'neugasse')).toBe(1);
    expect(osaDistance('abc', 'abc')).toBe(0);
  });

  it('makes distinct padded trigrams', () => {
    expect(trigrams('ab').length).toBe(2);
    expect(trigrams('aaaa').length).toBe(3); // \1aa, aaa, aa\2
  });
});
