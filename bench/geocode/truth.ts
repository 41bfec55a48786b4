/**
 * Ground truth and hold-out folds of the geocode benchmark (shared by bench/geocode.ts and the
 * held-out diagnostics in bench/geocode/heldout.ts, so both see exactly the same sets).
 *
 * Truth = OSM objects with addr:housenumber + addr:street/addr:place (same street+number+city
 * grouped). Folds: every eligible address (streets with ≥ 3 addresses, one object per address,
 * plain number) is held out in exactly one of 5 folds (20 % of the street's addresses per fold).
 */
import type { OsmPbfFile } from '../../src/osm/pbf.js';
import type { Rng } from '../../src/core/rng.js';
import { extractOsm } from '../../src/geocode/extract.js';
import type { Geocoder } from '../../src/geocode/search.js';
import type { TruthAddress } from './noise.js';

export interface Group {
  truth: TruthAddress;
  objects: string[];
  points: { lat: number; lon: number }[];
  streetKey: string;
  multi: boolean;
}

const NUMBER_FIRST = new Set(['US', 'FR', 'MC', 'GB', 'UK', 'CA', 'AU', 'NZ', 'IE']);

export function groundTruth(osm: OsmPbfFile, full: Geocoder): Group[] {
  const raw = extractOsm(osm, undefined);
  const groups = new Map<string, Group>();
  for (const a of raw.addresses) {
    const street = a.street || a.place;
    if (!street || !a.hn) continue;
    const objId = `${a.ot === 0 ? 'n' : a.ot === 1 ? 'w' : 'r'}${a.id}`;
    const rev = full.reverse(a.lat, a.lon, { addressRadius: 5, maxDistance: 300 });
    const city = a.city || rev?.address.City || '';
    const postcode = a.postcode || '';
    const countryName = a.country || rev?.address.Country || '';
    const code = a.country.toUpperCase();
    const multi = /[;,]/.test(a.hn);
    for (const hn of a.hn.split(/[;,]/).map((x) => x.trim()).filter((x) => x.length > 0)) {
      const key = `${street.toLowerCase()}|${hn.toLowerCase()}|${city.toLowerCase()}`;
      let g = groups.get(key);
      if (!g) {
        g = {
          truth: { street, hn, city, postcode, state: a.state, country: countryName, numberFirst: NUMBER_FIRST.has(code) || (code === '' && /monaco|france|united states/i.test(countryName)) },
          objects: [], points: [], streetKey: `${street.toLowerCase()}|${city.toLowerCase()}`, multi: false,
        };
        groups.set(key, g);
      }
      if (!g.objects.includes(objId)) g.objects.push(objId);
      g.points.push({ lat: a.lat, lon: a.lon });
      if (!g.truth.postcode && postcode) g.truth.postcode = postcode;
      g.multi ||= multi;
    }
  }
  return [...groups.values()].sort((x, y) => (x.streetKey < y.streetKey ? -1 : x.streetKey > y.streetKey ? 1 : x.truth.hn < y.truth.hn ? -1 : 1));
}

/** Groups by street key (in truth order). */
export function groupsByStreet(groups: Group[]): Map<string, Group[]> {
  const byStreet = new Map<string, Group[]>();
  for (const g of groups) { const l = byStreet.get(g.streetKey); if (l) l.push(g); else byStreet.set(g.streetKey, [g]); }
  return byStreet;
}

/**
 * Fold of every held-out address (0 … folds−1). Consumes `rng` (one shuffle per eligible street):
 * callers fork their later streams from the same state as before this was factored out.
 */
export function assignFolds(groups: Group[], byStreet: Map<string, Group[]>, rng: Rng, folds: number): Map<Group, number> {
  const foldOf = new Map<Group, number>();
  const objCount = new Map<string, number>();
  for (const g of groups) for (const o of g.objects) objCount.set(o, (objCount.get(o) ?? 0) + 1);
  for (const list of byStreet.values()) {
    if (list.length < 3) continue;
    const eligible = list.filter((g) => !g.multi && g.objects.every((o) => objCount.get(o) === 1) && /^\d+[a-z]?$/i.test(g.truth.hn));
    rng.shuffle(eligible);
    const perFold = Math.max(1, Math.min(list.length - 2, Math.round(list.length * 0.2)));
    eligible.slice(0, perFold * 5).forEach((g, i) => { const f = Math.floor(i / perFold); if (f < folds) foldOf.set(g, f); });
  }
  return foldOf;
}

/** The objects fold f leaves out of its index. */
export function foldExclusion(foldOf: Map<Group, number>, f: number): Set<string> {
  const exclude = new Set<string>();
  for (const [g, gf] of foldOf) if (gf === f) for (const o of g.objects) exclude.add(o);
  return exclude;
}
