/**
 * Geocoding outside the extract: real addresses of one extract (their clean query form, with
 * City, PostalCode and Country as the extract tags them) asked of another extract's geocoder.
 * Every answer is a false accept; the rates of Good/Exact and of any location are reported per
 * pair. Used by bench/geocode.ts and by the test of the same name.
 *
 *   node --import tsx bench/geocode/outside.ts        # prints the table
 */
import { readFileSync, existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { OsmPbfFile } from '../../src/osm/pbf.js';
import { buildGeocodeIndex } from '../../src/geocode/build.js';
import { Geocoder } from '../../src/geocode/search.js';
import { groundTruth } from './truth.js';
import { cleanParts, renderQuery, type Query } from './noise.js';

export interface Extract { name: string; path: string }

export function extracts(): Extract[] {
  const here = (p: string): string => new URL(p, import.meta.url).pathname;
  const all: Extract[] = [
    { name: 'monaco', path: here('../../fixtures/monaco-latest.osm.pbf') },
    { name: 'andorra', path: here('../../fixtures/andorra.osm.pbf') },
    { name: 'porto', path: here('../../../shared/data/osm/porto_portugal.osm.pbf') },
    { name: 'apidb (US)', path: here('../../../shared/data/osm/apidb-test-data.pbf') },
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
  const rows = measureOutside();
  let n = 0, ge = 0, any = 0;
  for (const r of rows) {
    n += r.n; ge += r.goodExact; any += r.any;
    console.log(`${r.target.padEnd(12)} ← ${r.source.padEnd(12)} ${r.form.padEnd(11)} n ${String(r.n).padStart(4)}  Good/Exact ${(100 * r.goodExact / r.n).toFixed(1).padStart(5)} %  any ${(100 * r.any / r.n).toFixed(1).padStart(5)} %`);
  }
  console.log(`all: n ${n}, Good/Exact ${(100 * ge / n).toFixed(2)} %, any location ${(100 * any / n).toFixed(2)} %`);
}
