/**
 * The geocoder's spatial indexes (geocode/spatial.ts: kdbush over address points, flatbush over
 * street and range segments) give the brute-force answer — same item, same distance, ties to
 * the lower item — for the distances reverse geocoding uses, on random points around real
 * data: Monaco's dataset (the index reopened from the dataset's sections) and Nominatim's API
 * test extract with TIGER ranges (the index as built).
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.js';
import { metresPerDegree } from '../../src/core/geo.js';
import { OsmPbfFile } from '../../src/osm/pbf.js';
import { buildGeocodeIndex } from '../../src/geocode/build.js';
import { STREET_CHUNK, type GeocodeIndex } from '../../src/geocode/geocode-index.js';
import { projectOnLine } from '../../src/geocode/interpolate.js';
import { fixtureDataset } from '../helpers/datasets.js';

let monaco: GeocodeIndex;
let apidb: GeocodeIndex;

beforeAll(async () => {
  const { dataset } = await fixtureDataset('monaco');
  monaco = (dataset.geocoder as unknown as { index: GeocodeIndex }).index;
  const pbf = readFileSync(new URL('../../fixtures/apidb-test-data.pbf', import.meta.url));
  const tiger = readFileSync(new URL('../../fixtures/geocode/tiger-01001-sample.csv', import.meta.url), 'utf8');
  apidb = buildGeocodeIndex(new OsmPbfFile(pbf), { tigerCsv: tiger });
}, 60_000);

function brute(items: Iterable<number>, maxDist: number, dist: (i: number) => number): { item: number; dist: number } {
  let best = -1;
  let bestD = maxDist;
  for (const i of items) {
    const d = dist(i);
    if (d < bestD || (d === bestD && best >= 0 && i < best)) { best = i; bestD = d; }
  }
  return best < 0 ? { item: -1, dist: Infinity } : { item: best, dist: bestD };
}

/** The street items as written (segments i → i+1, and lone points). */
function streetItems(ix: GeocodeIndex): number[] {
  const out: number[] = [];
  for (let i = 0; i < ix.ptLat.length; i++) if (ix.ptNext[i] || i === 0 || !ix.ptNext[i - 1]) out.push(i);
  return out;
}

function rangeItems(ix: GeocodeIndex): number[] {
  const out: number[] = [];
  for (let k = 0; k < ix.rangeCount; k++) for (let i = ix.rgPtOff[k]; i + 1 < ix.rgPtOff[k + 1]; i++) out.push(i);
  return out;
}

/** Random points near the index's data: an address or street point moved by up to ±`spreadM`. */
function queries(ix: GeocodeIndex, rng: Rng, n: number, spreadM: number): { lat: number; lon: number }[] {
  const out = [];
  for (let q = 0; q < n; q++) {
    const useAddr = ix.addressCount > 0 && rng.chance(0.5);
    const k = useAddr ? rng.int(ix.addressCount) : rng.int(ix.ptLat.length);
    const lat0 = useAddr ? ix.adLat[k] : ix.ptLat[k];
    const lon0 = useAddr ? ix.adLon[k] : ix.ptLon[k];
    const { kx, ky } = metresPerDegree(lat0);
    out.push({ lat: lat0 + ((rng.next() - 0.5) * 2 * spreadM) / ky, lon: lon0 + ((rng.next() - 0.5) * 2 * spreadM) / kx });
  }
  return out;
}

describe.each([['Monaco (reopened from the dataset)', () => monaco], ['API test extract + TIGER (as built)', () => apidb]])('%s', (_name, get) => {
  it('address points: the nearest within the radius is the brute-force one', () => {
    const ix = get();
    expect(ix.addressCount).toBeGreaterThan(400);
    const rng = new Rng(41);
    const all = [...Array(ix.addressCount).keys()];
    let found = 0;
    for (const { lat, lon } of queries(ix, rng, 400, 150)) {
      const { kx, ky } = metresPerDegree(lat);
      const dist = (k: number) => Math.hypot((ix.adLon[k] - lon) * kx, (ix.adLat[k] - lat) * ky);
      for (const r of [5, 75, 400]) {
        const got = ix.addrIndex.nearest(lat, lon, r, dist);
        expect(got).toEqual(brute(all, r, dist));
        if (got.item >= 0) found++;
      }
    }
    expect(found).toBeGreaterThan(300);
  });

  it('street segments: the nearest by distance plus a class penalty is the brute-force one', () => {
    const ix = get();
    const items = streetItems(ix);
    // items of up to STREET_CHUNK segments: fewer than the segments, the same answers
    expect(ix.segIndex.size).toBeLessThan(items.length);
    expect(ix.segIndex.size).toBeGreaterThanOrEqual(Math.ceil(items.length / STREET_CHUNK));
    const rng = new Rng(42);
    let found = 0;
    for (const { lat, lon } of queries(ix, rng, 300, 400)) {
      const dist = (i: number) => projectOnLine({ lat: ix.ptLat, lon: ix.ptLon, start: i, end: ix.ptNext[i] ? i + 2 : i + 1 }, lat, lon).dist + (ix.ptClass[i] ? 120 : 0);
      for (const r of [30, 1300]) {
        const got = ix.nearestStreet(lat, lon, r, dist);
        expect(got).toEqual(brute(items, r, dist));
        if (got.item >= 0) found++;
      }
    }
    expect(found).toBeGreaterThan(300);
  });

  it('range segments: the nearest is the brute-force one (none without ranges)', () => {
    const ix = get();
    const items = rangeItems(ix);
    const rng = new Rng(43);
    let found = 0;
    const pts = items.length > 0
      ? Array.from({ length: 300 }, () => { const i = items[rng.int(items.length)]; return { lat: ix.rgLat[i] + (rng.next() - 0.5) * 0.002, lon: ix.rgLon[i] + (rng.next() - 0.5) * 0.002 }; })
      : queries(ix, rng, 50, 100);
    for (const { lat, lon } of pts) {
      const dist = (i: number) => projectOnLine({ lat: ix.rgLat, lon: ix.rgLon, start: i, end: i + 2 }, lat, lon).dist;
      const got = ix.rangeIndex.nearest(lat, lon, 50, dist);
      expect(got).toEqual(brute(items, 50, dist));
      if (got.item >= 0) found++;
    }
    if (items.length > 0) expect(found).toBeGreaterThan(100);
    else expect(found).toBe(0);
  });
});
