/**
 * The geocoder end to end on the committed Monaco extract: build, persistence round trip,
 * determinism, golden addresses, typo tolerance, fallbacks, reverse geocoding, MatchCode
 * monotonicity on a seeded noisy set, should-fail queries, hold-out exclusion.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { OsmPbfFile } from '../../src/osm/pbf.js';
import { BinFile, BinWriter } from '../../src/core/binfile.js';
import { haversine } from '../../src/core/geo.js';
import { Rng } from '../../src/core/rng.js';
import { buildGeocodeIndex, buildGeocodeIndexWithStats } from '../../src/geocode/build.js';
import { GeocodeIndex } from '../../src/geocode/geocode-index.js';
import { Geocoder, MATCH_CODE_VALUE, type AddressQuery } from '../../src/geocode/search.js';
import { extractOsm, wayClass, WayClass } from '../../src/geocode/extract.js';
import { projectOnLine } from '../../src/geocode/interpolate.js';
import { noisyQuery } from '../../bench/geocode/noise.js';

const PBF = readFileSync(new URL('../../fixtures/monaco-latest.osm.pbf', import.meta.url));
let index: GeocodeIndex;
let geo: Geocoder;

beforeAll(() => {
  index = buildGeocodeIndex(new OsmPbfFile(PBF));
  geo = new Geocoder(index);
});

/** Real Monaco address nodes (OSM ids in comments) and their coordinates. */
const GOLDEN: { q: AddressQuery; lat: number; lon: number }[] = [
  { q: { Street: '9 Rue du Castelleretto', City: 'Monaco', PostalCode: '98000' }, lat: 43.7349869, lon: 7.4174319 }, // n3365391449
  { q: { Street: '22 Avenue Princesse Grace', City: 'Monaco' }, lat: 43.7478266, lon: 7.4362537 }, // n5932248995
  { q: { Street: '23 Avenue Crovetto-Frères', City: 'Monaco', Country: 'MC' }, lat: 43.7328831, lon: 7.4158036 }, // n7111828565
  { q: { Street: '8 Quai Jean-Charles Rey', City: 'Monaco' }, lat: 43.7291208, lon: 7.418496 }, // n7778351995
  { q: { Street: '27 Boulevard des Moulins', PostalCode: '98000' }, lat: 43.7436618, lon: 7.428483 }, // n7822107987
  { q: { Street: '16 Rue Comte Félix Gastaldi', City: 'Monaco' }, lat: 43.7309765, lon: 7.4220685 }, // n4384305996
];

describe('Monaco geocoder', () => {
  it('builds a sizeable index quickly', () => {
    const { stats } = buildGeocodeIndexWithStats(new OsmPbfFile(PBF));
    expect(stats.addresses).toBeGreaterThan(400);
    expect(stats.streets).toBeGreaterThan(300);
    expect(stats.places).toBeGreaterThan(10);
    expect(stats.postcodes).toBeGreaterThanOrEqual(1);
    expect(stats.ms).toBeLessThan(10_000);
  });

  it.each(GOLDEN.map((g) => [g.q.Street!, g] as const))('finds %s (Exact, within 1 m)', (_s, g) => {
    const [c] = geo.search(g.q);
    expect(c.kind).toBe('address');
    expect(c.matchCode).toBe('Exact');
    expect(haversine(c.lat, c.lon, g.lat, g.lon)).toBeLessThan(1);
    expect(c.score).toBeGreaterThan(0.95);
  });

  it('tolerates case, abbreviations, accents, order and units (same point)', () => {
    const variants: [AddressQuery, string[]][] = [
      [{ Street: '9 RUE DU CASTELLERETTO', City: 'MONACO' }, ['Exact']],
      [{ Street: '27 Bd des Moulins', City: 'Monaco' }, ['Exact']],
      [{ Street: 'Boulevard des Moulins 27', City: 'Monaco' }, ['Exact']],
      [{ Street: '27 Boulevard des Moulins, Apt 4B', City: 'Monaco' }, ['Exact']],
      [{ Street: '16 Rue Comte Felix Gastaldi', City: 'Monaco' }, ['Exact']],
      [{ Street: '23 Av. Crovetto Freres', City: 'Monaco' }, ['Exact', 'Good']],
    ];
    const want = [GOLDEN[0], GOLDEN[4], GOLDEN[4], GOLDEN[4], GOLDEN[5], GOLDEN[2]];
    variants.forEach(([q, codes], i) => {
      const [c] = geo.search(q);
      expect(haversine(c.lat, c.lon, want[i].lat, want[i].lon), JSON.stringify(q)).toBeLessThan(1);
      expect(codes, JSON.stringify(q)).toContain(c.matchCode);
    });
  });

  it('corrects typos and sound-alike spellings, one MatchCode lower', () => {
    for (const [q, g] of [
      [{ Street: '9 Rue du Castelereto', City: 'Monaco' }, GOLDEN[0]],
      [{ Street: '22 Avenue Princese Grace', City: 'Monaco' }, GOLDEN[1]],
      [{ Street: '8 Quai Jean-Charles Ray', City: 'Monaco' }, GOLDEN[3]],
      [{ Street: '27 Boulevard des Mouilns', City: 'Monaco' }, GOLDEN[4]],
    ] as const) {
      const [c] = geo.search(q);
      expect(haversine(c.lat, c.lon, g.lat, g.lon), JSON.stringify(q)).toBeLessThan(1);
      expect(c.matchCode, JSON.stringify(q)).toBe('Good');
      expect(c.faults.some((f) => f.startsWith('name:'))).toBe(true);
    }
  });

  it('falls back to the street, then the postcode or city, with Approx', () => {
    const s = geo.search({ Street: 'Boulevard des Moulins', City: 'Monaco' })[0];
    expect(s.kind).toBe('street');
    expect(s.matchCode).toBe('Approx');
    expect(s.address.Street).toBe('Boulevard des Moulins');
    const far = geo.search({ Street: '9999 Boulevard des Moulins', City: 'Monaco' })[0];
    expect(far.kind).toBe('street');
    expect(far.matchCode).toBe('Approx');
    const pc = geo.search({ PostalCode: '98000' })[0];
    expect(pc).toMatchObject({ kind: 'postcode', matchCode: 'Approx' });
    const city = geo.search({ City: 'Monte Carlo' })[0];
    expect(city).toMatchObject({ kind: 'locality', matchCode: 'Approx' });
    expect(geo.search({ Street: 'Zzyzx Qwertyuiop' })).toEqual([]);
  });

  it('caps a candidate that the postcode or city contradicts at Poor', () => {
    const [c] = geo.search({ Street: '9 Rue du Castelleretto', City: 'Monaco', PostalCode: '06240' });
    expect(haversine(c.lat, c.lon, GOLDEN[0].lat, GOLDEN[0].lon)).toBeLessThan(1);
    expect(c.matchCode).toBe('Poor');
    expect(c.faults).toContain('postcode:conflict');
  });

  it('is deterministic and survives the dataset round trip unchanged', () => {
    const w = new BinWriter(1, 1);
    index.toSections(w, 'geo');
    const reopened = new Geocoder(GeocodeIndex.fromSections(BinFile.from(w.toBuffer(true)), 'geo'));
    const other = new Geocoder(index);
    const rng = new Rng(3);
    const raw = extractOsm(new OsmPbfFile(PBF), undefined).addresses.filter((a) => a.street && a.hn);
    for (let i = 0; i < 150; i++) {
      const a = raw[rng.int(raw.length)];
      const { q } = noisyQuery({ street: a.street, hn: a.hn, city: a.city, postcode: a.postcode, state: '', country: a.country, numberFirst: true }, rng);
      const r1 = geo.search(q);
      expect(reopened.search(q)).toEqual(r1);
      expect(other.search(q)).toEqual(r1);
      expect(geo.search(q)).toEqual(r1);
    }
    // two builds give byte-identical sections
    const w2 = new BinWriter(1, 1);
    buildGeocodeIndex(new OsmPbfFile(PBF)).toSections(w2, 'geo');
    expect(Buffer.from(new Uint8Array(w2.toBuffer()))).toEqual(Buffer.from(new Uint8Array(w.toBuffer())));
  });

  it('leaves excluded address objects out of the index (hold-out)', () => {
    const held = buildGeocodeIndex(new OsmPbfFile(PBF), { exclude: new Set(['n3365391449']) });
    expect(held.addressCount).toBe(index.addressCount - 1);
    const [c] = new Geocoder(held).search(GOLDEN[0].q);
    expect(c.kind).not.toBe('address');
    expect(haversine(c.lat, c.lon, GOLDEN[0].lat, GOLDEN[0].lon)).toBeGreaterThan(0.5);
  });

  it('reverse-geocodes coordinates to the nearest address, else street', () => {
    for (const g of GOLDEN.slice(0, 4)) {
      const r = geo.reverse(g.lat + 0.00002, g.lon);
      expect(r?.kind).toBe('address');
      expect(r!.distance).toBeLessThan(10);
      const [c] = geo.search({ Street: r!.address.Street, City: r!.address.City });
      expect(haversine(c.lat, c.lon, r!.lat, r!.lon)).toBeLessThan(1);
    }
    const st = geo.reverse(43.7385, 7.4262, { addressRadius: 5 });
    expect(st?.kind).toBe('street');
    expect(st!.address.Street).toBeTruthy();
    expect(geo.reverse(40, 0)).toBeNull();
    expect(geo.reverse(NaN, 7)).toBeNull();
  });

  it('keeps MatchCode precision monotone (Exact ≥ Good ≥ Approx) on a seeded noisy set', () => {
    const raw = extractOsm(new OsmPbfFile(PBF), undefined).addresses.filter((a) => a.street && a.hn && !/[;,]/.test(a.hn));
    const rng = new Rng(11);
    // precision = share of top-1 results within a common distance (100 m and 250 m): a higher
    // code must be right at least as often as a lower one
    const tally = new Map<string, { n: number; ok100: number; ok250: number }>();
    for (const a of raw) {
      const { q } = noisyQuery({ street: a.street, hn: a.hn, city: a.city || 'Monaco', postcode: a.postcode, state: '', country: a.country, numberFirst: true }, rng);
      const [c] = geo.search(q);
      if (!c) continue;
      const d = haversine(c.lat, c.lon, a.lat, a.lon);
      const t = tally.get(c.matchCode) ?? { n: 0, ok100: 0, ok250: 0 };
      t.n++;
      if (d <= 100) t.ok100++;
      if (d <= 250) t.ok250++;
      tally.set(c.matchCode, t);
    }
    const prec = (code: string, k: 'ok100' | 'ok250') => { const t = tally.get(code); return t && t.n > 0 ? t[k] / t.n : 1; };
    expect(tally.get('Exact')!.n).toBeGreaterThan(100);
    for (const k of ['ok100', 'ok250'] as const) {
      expect(prec('Exact', k)).toBeGreaterThanOrEqual(prec('Good', k));
      expect(prec('Good', k)).toBeGreaterThanOrEqual(prec('Approx', k));
    }
    expect(prec('Exact', 'ok100')).toBeGreaterThan(0.98);
  });

  it('does not return Good/Exact for numbers far beyond a street, gibberish or PO boxes', () => {
    const bad: AddressQuery[] = [
      { Street: '2707 Rue du Castelleretto', City: 'Monaco' },
      { Street: '9999 Boulevard des Moulins' },
      { Street: '12 Xqzvbn Wrtplk', City: 'Monaco' },
      { Street: 'PO Box 77', City: 'Monaco' },
      { Street: '5 Gfhdjs' },
    ];
    for (const q of bad) {
      const c = geo.search(q)[0];
      if (c) expect(MATCH_CODE_VALUE[c.matchCode], JSON.stringify(q)).toBeLessThanOrEqual(MATCH_CODE_VALUE.Approx);
    }
  });

  it('answers hostile input without throwing', () => {
    for (const q of [{}, { Street: '' }, { Street: 'x'.repeat(10_000) }, { Street: '\u0000\u0001', City: '\u0007' }, { Street: 12 as unknown as string }, { City: null }, { Street: '😀😀😀 1' }]) {
      expect(() => geo.search(q as AddressQuery)).not.toThrow();
    }
  });
});

describe('reverse geocoding prefers surface streets and address points', () => {
  it('classifies tunnels, covered ways, motorways, links and paths', () => {
    expect(wayClass({ highway: 'secondary', tunnel: 'yes', layer: '-3' })).toBe(WayClass.Underground);
    expect(wayClass({ highway: 'residential', layer: '-1' })).toBe(WayClass.Underground);
    expect(wayClass({ highway: 'service', tunnel: 'building_passage' })).toBe(WayClass.Covered);
    expect(wayClass({ highway: 'footway', covered: 'yes' })).toBe(WayClass.Covered | WayClass.Path);
    expect(wayClass({ highway: 'motorway_link' })).toBe(WayClass.Link);
    expect(wayClass({ highway: 'trunk' })).toBe(WayClass.Motorway);
    expect(wayClass({ highway: 'steps' })).toBe(WayClass.Path);
    expect(wayClass({ highway: 'residential', layer: '1', bridge: 'yes' })).toBe(0);
    expect(wayClass({ highway: 'pedestrian', area: 'yes' })).toBe(0);
  });

  it("gives the Prince's Palace square, not the road tunnel under it", () => {
    const r = geo.reverse(43.7314, 7.42)!;
    expect(r.kind).toBe('street');
    expect(r.address.Street).toBe('Place du Palais');
    expect(r.distance).toBeLessThan(75);
  });

  /** Distance from (lat, lon) to the nearest street segment whose class passes `keep`. */
  function nearestSegment(lat: number, lon: number, keep: (cls: number) => boolean): number {
    let best = Infinity;
    for (let i = 0; i < index.ptLat.length; i++) {
      if (!index.ptNext[i] || !keep(index.ptClass[i])) continue;
      best = Math.min(best, projectOnLine({ lat: index.ptLat, lon: index.ptLon, start: i, end: i + 2 }, lat, lon).dist);
    }
    return best;
  }

  it('never answers with a tunnel when a plain surface street is within 150 m (property)', () => {
    // Monaco is full of road tunnels under streets and squares
    let tunnelsNear = 0;
    fc.assert(fc.property(fc.double({ min: 43.7253, max: 43.7517, noNaN: true }), fc.double({ min: 7.4091, max: 7.4398, noNaN: true }), (lat, lon) => {
      const r = geo.reverse(lat, lon, { addressRadius: 0 });
      if (!r || r.kind !== 'street') return;
      if (nearestSegment(lat, lon, (c) => (c & WayClass.Underground) !== 0) < 60) tunnelsNear++;
      // the answer lies on a tunnel segment only when every segment through its point is one
      let onTunnel = true;
      for (let i = 0; i < index.ptLat.length; i++) {
        if (!index.ptNext[i]) continue;
        if (projectOnLine({ lat: index.ptLat, lon: index.ptLon, start: i, end: i + 2 }, r.lat, r.lon).dist > 0.05) continue;
        if (!(index.ptClass[i] & WayClass.Underground)) onTunnel = false;
      }
      if (onTunnel) expect(nearestSegment(lat, lon, (c) => c === 0)).toBeGreaterThan(150);
    }), { seed: 2024, numRuns: 150 });
    expect(tunnelsNear).toBeGreaterThan(5); // the property was exercised where it matters
  });

  it('still answers with a tunnel when nothing else is near (and opens indexes built before way classes)', () => {
    // an index without the way-class section: every segment counts as a plain street
    const w = new BinWriter(1, 1);
    index.toSections({ add: (name: string, a: never) => { if (!name.endsWith('.pt.cls')) w.add(name, a); } } as unknown as BinWriter, 'geo');
    const old = GeocodeIndex.fromSections(BinFile.from(w.toBuffer(true)), 'geo');
    expect(old.ptClass.length).toBe(index.ptLat.length);
    expect(old.ptClass.every((c) => c === 0)).toBe(true);
    expect(new Geocoder(old).reverse(43.7314, 7.42)!.address.Street).toBe('Tunnel Rocher Palais');
    // the tunnel is the only street within reach of a point over it when maxDistance is small
    const r = geo.reverse(43.7314, 7.42, { maxDistance: 30, addressRadius: 0 });
    expect(r?.address.Street).toBe('Tunnel Rocher Palais');
  });
});

