/**
 * Addresses as people write them in Italian, Spanish, Catalan, Portuguese, French and German:
 * short street types (V.le, P.za, C.so, Str., Pl., Av., R., Pç., Bd, C/), articles and
 * prepositions left out (della, de la, do, von), the number on either side of the street or
 * after a comma, accents kept or dropped (the `language` and `accents` classes of noise.ts). On
 * every extract with address points: the share of such queries whose top answer is within 100 m
 * of the address, and of the general noisy set (all classes, 0–3 perturbations).
 *
 *   node --import tsx bench/geocode/languages.ts      # writes the `geocode-languages` section
 */
import { readFileSync } from 'node:fs';
import { OsmPbfFile } from '../../src/osm/pbf.js';
import { Rng } from '../../src/core/rng.js';
import { haversine } from '../../src/core/geo.js';
import { groundTruth } from './truth.js';
import { applyClass, cleanParts, noisyQuery, renderQuery } from './noise.js';
import { extracts, geocoderOf } from './outside.js';
import { table, writeSection } from '../lib/report.js';

const SEED = 20261123;
const rows: (string | number)[][] = [];
for (const e of extracts()) {
  const g = geocoderOf(e.path);
  const groups = groundTruth(new OsmPbfFile(readFileSync(e.path)), g);
  const rng = new Rng(SEED);
  let n = 0, ok = 0, nn = 0, okn = 0;
  const within = (points: { lat: number; lon: number }[], q: ReturnType<typeof renderQuery>): boolean => {
    const [c] = g.search(q, { limit: 1 });
    return !!c && Math.min(...points.map((p) => haversine(p.lat, p.lon, c.lat, c.lon))) <= 100;
  };
  for (const gr of groups) {
    for (let k = 0; k < 3; k++) {
      const p = cleanParts(gr.truth);
      applyClass('language', p, gr.truth, rng);
      if (rng.chance(0.5)) applyClass('language', p, gr.truth, rng);
      if (rng.chance(0.3)) applyClass('accents', p, gr.truth, rng);
      n++;
      if (within(gr.points, renderQuery(p))) ok++;
      nn++;
      if (within(gr.points, noisyQuery(gr.truth, rng).q)) okn++;
    }
  }
  const pct = (a: number, b: number): string => `${((100 * a) / Math.max(1, b)).toFixed(1)} %`;
  process.stderr.write(`${e.name}: language forms ${pct(ok, n)} of ${n}, noisy ${pct(okn, nn)}\n`);
  rows.push([e.name, groups.length, n, `**${pct(ok, n)}**`, pct(okn, nn)]);
}
writeSection('geocode-languages', 'Geocoding addresses in their languages\' forms (`bench/geocode/languages.ts`)', [
  `Seed ${SEED}; every address point of each extract (truth as in bench/geocode.ts), 3 queries each, full index. Language forms:`,
  'one or two `language` perturbations (short street types of six languages, articles/prepositions left out, the number on the',
  'other side or after a comma), 30 % also with accents changed. Noisy: the general generator (all classes, 0–3 perturbations).',
  '',
  table(['extract', 'addresses', 'queries', 'language forms: top-1 ≤ 100 m', 'noisy: top-1 ≤ 100 m'], rows),
  '',
  'Target (issue #8): ≥ 95 % top-1 within 100 m on each extract.',
].join('\n'));
