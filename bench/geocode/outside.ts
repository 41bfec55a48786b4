/**
 * Geocoding outside the extract: real addresses of one extract (their clean query form, with
 * City, PostalCode and Country as the extract tags them) asked of another extract's geocoder.
 * Every answer is a false accept; the rates of Good/Exact and of any location are reported per
 * pair. Used by bench/geocode.ts and by the test of the same name.
 *
 *   node --import tsx bench/geocode/outside.ts        # writes the `geocode-outside` section of bench/README.md
 */
import { readFileSync, existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { OsmPbfFile } from '../../src/osm/pbf.js';
import { buildGeocodeIndex } from '../../src/geocode/build.js';
import { Geocoder } from '../../src/geocode/search.js';
import { groundTruth } from './truth.js';
import { cleanParts, renderQuery, type Query } from './noise.js';
import { table, writeSection } from '../lib/report.js';

export interface Extract { name: string; path: string }

export function extracts(): Extract[] {
  const here = (p: string): string => new URL(p, import.meta.url).pathname;
  const all: Extract[] = [
    { name: 'monaco', path: here('../../fixtures/monaco-latest.osm.pbf') },
    { name: 'andorra', path: here('../../fixtures/andorra.osm.pbf') },
    { name: 'porto', path: here('../../../shared/data/osm/porto_portugal.osm.pbf') },
    { name: 'liechtenstein (apidb)', path: here('../../../shared/data/osm/apidb-test-data.pbf') },
  ];
  return all.filter((e) => existsSync(e.path));
}

export function geocoderOf(path: string): Geocoder {
  return new Geocoder(buildGeocodeIndex(new OsmPbfFile(readFileSync(path))));
}

/** Clean queries for the addresses of an extract (at most `max`, evenly spread). */
export function queriesOf(g: Geocoder, path: string, max = 400): Query[] {
  const groups = groundTruth(new OsmPbfFile(readFileSync(path)), g);
  const step = Math.max(1, Math.floor(groups.length / max));
  const out: Query[] = [];
  for (let i = 0; i < groups.length && out.length < max; i += step) out.push(renderQuery(cleanParts(groups[i].truth)));
  return out;
}

export interface OutsideRow { target: string; source: string; form: 'full' | 'street only'; n: number; goodExact: number; any: number }

export function measureOutside(list = extracts(), max = 400): OutsideRow[] {
  const geocoders = new Map(list.map((e) => [e.name, geocoderOf(e.path)] as const));
  const queries = new Map(list.map((e) => [e.name, queriesOf(geocoders.get(e.name)!, e.path, max)] as const));
  const rows: OutsideRow[] = [];
  for (const t of list) {
    for (const s of list) {
      if (s === t) continue;
      const g = geocoders.get(t.name)!;
      for (const form of ['full', 'street only'] as const) {
        let goodExact = 0, any = 0;
        const qs = queries.get(s.name)!.map((q) => (form === 'full' ? q : { Street: q.Street }));
        for (const q of qs) {
          const [best] = g.search(q, { limit: 1 });
          if (!best || best.matchCode === 'None') continue;
          any++;
          if (best.matchCode === 'Good' || best.matchCode === 'Exact') goodExact++;
        }
        rows.push({ target: t.name, source: s.name, form, n: qs.length, goodExact, any });
      }
    }
  }
  return rows;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const list = extracts();
  const rows = measureOutside(list);
  const pct = (a: number, n: number): string => `${((100 * a) / Math.max(1, n)).toFixed(2)} %`;
  const total = (form: string) => rows.filter((r) => r.form === form).reduce((a, r) => ({ n: a.n + r.n, ge: a.ge + r.goodExact, any: a.any + r.any }), { n: 0, ge: 0, any: 0 });
  for (const r of rows) console.log(`${r.target} ← ${r.source} (${r.form}): n ${r.n}, Good/Exact ${pct(r.goodExact, r.n)}, any ${pct(r.any, r.n)}`);
  const full = total('full'), street = total('street only');
  writeSection('geocode-outside', 'Geocoding outside the extract (`bench/geocode/outside.ts`)', [
    `Real addresses of each extract (${list.map((e) => e.name).join(', ')}; up to 400 per extract, their clean query form) asked of every`,
    'other extract\'s geocoder, in full (Street, City, PostalCode, Country as tagged) and as the street line alone. Every location',
    'returned is a false accept.',
    '',
    table(['target ← source', 'form', 'queries', 'Good/Exact', 'any location'], rows.map((r) => [`${r.target} ← ${r.source}`, r.form, r.n, pct(r.goodExact, r.n), pct(r.any, r.n)])),
    '',
    `**All: full form ${pct(full.ge, full.n)} Good/Exact, ${pct(full.any, full.n)} any location; street line alone ${pct(street.ge, street.n)} / ${pct(street.any, street.n)}** (${full.n} queries each).`,
    '',
    'Targets (issue #8): ≤ 1 % Good/Exact, ≤ 5 % any location.',
  ].join('\n'));
}
