/**
 * The geocoder on Nominatim's API-test extract (Liechtenstein + Autauga County AL) with the TIGER
 * sample: scenarios mirrored from Nominatim's BDD features (structured search, reverse with
 * non-numeric house numbers, interpolation lines), and TIGER range import with odd/even parity.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { OsmPbfFile } from '../../src/osm/pbf.js';
import { haversine } from '../../src/core/geo.js';
import { buildGeocodeIndexWithStats, type GeocodeBuildStats } from '../../src/geocode/build.js';
import { Geocoder } from '../../src/geocode/search.js';
import { parseTigerCsv, type TigerRange } from '../../src/geocode/tiger.js';
import { lineLength, pointAtMeasure, rangeFraction } from '../../src/geocode/interpolate.js';

const PBF = readFileSync(new URL('../../fixtures/apidb-test-data.pbf', import.meta.url));
const TIGER = readFileSync(new URL('../../fixtures/geocode/tiger-01001-sample.csv', import.meta.url), 'utf8');
let geo: Geocoder;
let stats: GeocodeBuildStats;

beforeAll(() => {
  const r = buildGeocodeIndexWithStats(new OsmPbfFile(PBF), { tigerCsv: TIGER });
  geo = new Geocoder(r.index);
  stats = r.stats;
});

describe('Liechtenstein (Nominatim BDD scenarios)', () => {
  const AM_SCHRAEGEN_WEG_19 = { lat: 47.13819795360101, lon: 9.51757088126952 }; // w344747101

  it('indexes the extract with the TIGER ranges in seconds', () => {
    expect(stats.addresses).toBeGreaterThan(3500);
    expect(stats.ranges).toBeGreaterThanOrEqual(280);
    expect(stats.tigerSkipped).toBe(0);
    expect(stats.ms).toBeLessThan(10_000);
  });

  it('structured search: street with house number, city and postcode', () => {
    const [c] = geo.search({ Street: '19 Am schrägen Weg', City: 'Vaduz', PostalCode: '9490' });
    expect(c).toMatchObject({ kind: 'address', matchCode: 'Exact' });
    expect(c.address.Street).toMatch(/^19 Am Schrägen Weg$/);
    expect(haversine(c.lat, c.lon, AM_SCHRAEGEN_WEG_19.lat, AM_SCHRAEGEN_WEG_19.lon)).toBeLessThan(1);
  });

  it('structured search with a bad postcode still finds the house, as Poor', () => {
    const [c] = geo.search({ Street: '19 Am schrägen Weg', City: 'Vaduz', PostalCode: '9491' });
    expect(haversine(c.lat, c.lon, AM_SCHRAEGEN_WEG_19.lat, AM_SCHRAEGEN_WEG_19.lon)).toBeLessThan(1);
    expect(c.matchCode).toBe('Poor');
  });

  it('structured search with surrounding quotes', () => {
    const [c] = geo.search({ Street: '"19 Am schrägen Weg"', City: '"Vaduz"', PostalCode: '"9490"' });
    expect(haversine(c.lat, c.lon, AM_SCHRAEGEN_WEG_19.lat, AM_SCHRAEGEN_WEG_19.lon)).toBeLessThan(1);
    expect(c.address.Street).toBe('19 Am Schrägen Weg');
  });

  it('postcode-only and city-only queries give area centroids', () => {
    expect(geo.search({ PostalCode: '9495' })[0]).toMatchObject({ kind: 'postcode', matchCode: 'Approx', address: { PostalCode: '9495' } });
    expect(geo.search({ City: 'Steg' })[0]).toMatchObject({ kind: 'locality', address: { City: 'Steg' } });
    expect(geo.search({ Country: 'Liechtenstein' })[0]).toMatchObject({ kind: 'locality', address: { Country: 'Liechtenstein' } });
  });

  it('German compounds, abbreviations and typos', () => {
    const ref = geo.search({ Street: 'Gapetschstrasse 87', City: 'Schaan' })[0];
    expect(ref).toMatchObject({ kind: 'address', matchCode: 'Exact' });
    for (const s of ['Gapetschstr. 87', 'Gapetsch Strasse 87', 'Gapetschstraße 87', 'GAPETSCHSTRASSE 87']) {
      const [c] = geo.search({ Street: s, City: 'Schaan' });
      expect(haversine(c.lat, c.lon, ref.lat, ref.lon), s).toBeLessThan(1);
      expect(c.matchCode, s).toBe('Exact');
    }
    // "strase" is a known misspelling of the type word (Exact); typos in the name itself are Good
    expect(geo.search({ Street: 'Gapetschstrase 87', City: 'Schaan' })[0].matchCode).toBe('Exact');
    for (const s of ['Gapettschstrasse 87', 'Gaptesch-Strasse 87', 'Gapetchstrasse 87']) {
      const [c] = geo.search({ Street: s, City: 'Schaan' });
      expect(haversine(c.lat, c.lon, ref.lat, ref.lon), s).toBeLessThan(1);
      expect(c.matchCode, s).toBe('Good');
    }
  });

  it('keeps apart same-named streets of different towns by City', () => {
    const t = geo.search({ Street: 'Austrasse 13', City: 'Triesen' })[0];
    const v = geo.search({ Street: 'Austrasse 13', City: 'Vaduz' })[0];
    expect(t.address.City).toBe('Triesen');
    expect(v.address.City).toBe('Vaduz');
    expect(haversine(t.lat, t.lon, v.lat, v.lon)).toBeGreaterThan(500);
    expect(t.matchCode).toBe('Exact');
  });

  it('addresses on an interpolation line (odd 1001–1051, Grosssteg)', () => {
    const [c] = geo.search({ Street: 'Grosssteg 1021', City: 'Triesenberg' });
    expect(c.kind).toBe('interpolated');
    expect(c.matchCode).toBe('Good');
    expect(haversine(c.lat, c.lon, 47.118457166193245, 9.570678289621355)).toBeLessThan(30);
  });

  it('reverse: non-numeric and numeric house numbers, interpolation lines', () => {
    expect(geo.reverse(47.107465, 9.52838521614)?.address.Street).toBe('39A/B Dorfstrasse');
    expect(geo.reverse(47.168440329479594, 9.511551699184338)?.address.Street).toBe('6 Schmedgässle');
    // on the street: the closest interpolation is shown …
    expect(geo.reverse(47.118457166193245, 9.570678289621355)).toMatchObject({ kind: 'interpolated', address: { Street: '1021 Grosssteg', City: 'Triesenberg' } });
    // … but interpolations do not override house numbers when they are closer
    expect(geo.reverse(47.11778, 9.57255)?.address.Street).toBe('5 Grosssteg');
  });
});

describe('TIGER ranges (Autauga County, AL)', () => {
  const ranges = parseTigerCsv(TIGER).ranges;

  /** Where the range rule puts number n (independently of the geocoder). */
  function expected(r: TigerRange, n: number): { lat: number; lon: number } | null {
    const f = rangeFraction(r.from, r.to, r.step, n);
    if (f === null) return null;
    const line = { lat: r.lat, lon: r.lon, start: 0, end: r.lat.length };
    return pointAtMeasure(line, f * lineLength(line));
  }

  it('interpolates house numbers on odd and even ranges with parity', () => {
    const odd = ranges.find((r) => r.street === 'Upper Kingston Rd' && r.step === 2 && r.from % 2 === 1)!;
    const even = ranges.find((r) => r.street === 'Upper Kingston Rd' && r.step === 2 && r.from % 2 === 0 && Math.min(r.from, r.to) <= Math.min(odd.from, odd.to) + 1 && Math.max(r.from, r.to) >= Math.min(odd.from, odd.to) + 1)!;
    expect(odd && even).toBeTruthy();
    const lo = Math.min(odd.from, odd.to);
    const nOdd = lo + 2 * Math.floor((Math.max(odd.from, odd.to) - lo) / 4);
    const nEven = nOdd + 1;
    for (const [n, r] of [[nOdd, odd], [nEven, even]] as const) {
      const want = expected(r, n)!;
      const [c] = geo.search({ Street: `${n} Upper Kingston Rd`, City: 'Prattville', State: 'AL', PostalCode: r.postcode });
      expect(c.kind, String(n)).toBe('interpolated');
      expect(c.matchCode).toBe('Good');
      expect(haversine(c.lat, c.lon, want.lat, want.lon), String(n)).toBeLessThan(1);
    }
    // the odd range never places an even number
    expect(expected(odd, nEven)).toBeNull();
  });

  it('accepts Road/Rd, ZIP+4 and state names', () => {
    // a number only one Doster Rd range covers (TIGER ranges of a street may overlap)
    const doster = ranges.filter((x) => x.street === 'Doster Rd');
    let r: TigerRange | undefined;
    let n = 0;
    for (const x of doster) {
      for (let k = Math.min(x.from, x.to); k <= Math.max(x.from, x.to) && !r; k++) {
        if (expected(x, k) && doster.filter((y) => expected(y, k)).length === 1) { r = x; n = k; }
      }
      if (r) break;
    }
    const want = expected(r!, n)!;
    const [c] = geo.search({ Street: `${n} Doster Road`, City: 'Prattville', State: 'Alabama', PostalCode: `${r!.postcode}-1234` });
    expect(c.kind).toBe('interpolated');
    expect(haversine(c.lat, c.lon, want.lat, want.lon)).toBeLessThan(1);
  });

  it('reverse on a TIGER line gives a number of the right parity', () => {
    const r = geo.reverse(32.4752389363, -86.4810198619);
    expect(r?.address.Street).toMatch(/^\d+ Upper Kingston Road$/);
    expect(r?.address.PostalCode).toBe('36067');
  });
});
