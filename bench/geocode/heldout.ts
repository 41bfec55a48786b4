/**
 * Held-out diagnostics: the same folds as bench/geocode.ts (same seed), every held-out address
 * queried against its fold's index, the worst cases dumped with the known numbers of the street
 * (number, point, chain, measure along the chain, side offset, distance to the chain) and the
 * street's chains. Writes nothing.
 *
 *   node --import tsx bench/geocode/heldout.ts [monaco|apidb] [--worst N] [--json out.json] [--seed N]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { OsmPbfFile } from '../../src/osm/pbf.js';
import { Rng } from '../../src/core/rng.js';
import { haversine } from '../../src/core/geo.js';
import { buildGeocodeIndexWithStats } from '../../src/geocode/build.js';
import { Geocoder } from '../../src/geocode/search.js';
import { NumberPlacer } from '../../src/geocode/house-numbers.js';
import { analyzeName } from '../../src/geocode/normalize.js';
import { lineLength, projectOnLine } from '../../src/geocode/interpolate.js';
import type { GeocodeIndex } from '../../src/geocode/geocode-index.js';
import { renderQuery, cleanParts } from './noise.js';
import { groundTruth, groupsByStreet, assignFolds, foldExclusion, type Group } from './truth.js';
import { percentile, median, sharedData } from '../lib/report.js';

process.stdout.on('error', (e: NodeJS.ErrnoException) => { if (e.code === 'EPIPE') process.exit(0); else throw e; });
const args = process.argv.slice(2);
const which = args.find((a) => !a.startsWith('--') && !/^[\d.]+$/.test(a) && !a.endsWith('.json')) ?? 'monaco';
const WORST = Number(args[args.indexOf('--worst') + 1]) || 20;
const JSON_OUT = args.includes('--json') ? args[args.indexOf('--json') + 1] : '';
const SEED = args.includes('--seed') ? Number(args[args.indexOf('--seed') + 1]) : 20261122;
const file = sharedData(which === 'apidb' ? 'osm/apidb-test-data.pbf' : 'osm/monaco-latest.osm.pbf')!;
const tigerFile = which === 'apidb' ? sharedData('geocode/tiger-nominatim-01001-autauga-al.csv') : null;
const tigerCsv = tigerFile ? readFileSync(tigerFile, 'utf8') : undefined;
const osm = new OsmPbfFile(readFileSync(file));
const full = new Geocoder(buildGeocodeIndexWithStats(osm, { tigerCsv }).index);
const rng = new Rng(SEED);
const groups = groundTruth(osm, full);
const foldOf = assignFolds(groups, groupsByStreet(groups), rng, 5);

/** Streets of the index whose name key equals the truth street's, nearest to (lat, lon) first. */
function streetsOf(idx: GeocodeIndex, name: string, lat: number, lon: number): number[] {
  const ns = analyzeName(name).nsKey;
  const out: { s: number; d: number }[] = [];
  for (let s = 0; s < idx.streetCount; s++) {
    if (idx.keys.get(idx.nmNs[idx.stName[s]]) !== ns) continue;
    out.push({ s, d: haversine(lat, lon, idx.stLat[s], idx.stLon[s]) });
  }
  return out.sort((a, b) => a.d - b.d).map((x) => x.s);
}

interface Row { g: Group; fold: number; e: number; kind: string; code: string; faults: string; lat: number; lon: number; detail: string; oracle: Record<string, number> }
const rows: Row[] = [];
for (let f = 0; f < 5; f++) {
  const idx = buildGeocodeIndexWithStats(osm, { tigerCsv, exclude: foldExclusion(foldOf, f) }).index;
  const geo = new Geocoder(idx);
  for (const [g, gf] of foldOf) {
    if (gf !== f) continue;
    const q = renderQuery(cleanParts(g.truth));
    const r = geo.search(q, { limit: 5 })[0];
    let e = Infinity;
    for (const p of g.points) if (r) e = Math.min(e, haversine(r.lat, r.lon, p.lat, p.lon));
    const tp = g.points[0];
    // every predictor's error on the streets of that name (diagnostics: how good could a choice be)
    const oracle: Record<string, number> = {};
    const placer = new NumberPlacer(idx);
    const num = parseInt(g.truth.hn, 10);
    for (const s of streetsOf(idx, g.truth.street, tp.lat, tp.lon)) {
      for (const { name, p } of placer.predictions(s, num)) {
        let d = Infinity;
        for (const q of g.points) d = Math.min(d, haversine(p.lat, p.lon, q.lat, q.lon));
        oracle[name] = Math.min(oracle[name] ?? Infinity, d);
      }
    }
    const lines: string[] = [];
    const sts = streetsOf(idx, g.truth.street, tp.lat, tp.lon);
    for (const s of sts.filter((s, i) => i < 2 || idx.stAddrOff[s + 1] > idx.stAddrOff[s]).slice(0, 4)) {
      const chains: string[] = [];
      for (let c = idx.stChainOff[s]; c < idx.stChainOff[s + 1]; c++) {
        const l = { lat: idx.ptLat, lon: idx.ptLon, start: idx.chainOff[c], end: idx.chainOff[c + 1] };
        const p = projectOnLine(l, tp.lat, tp.lon);
        chains.push(`c${c}:${lineLength(l).toFixed(0)}m/${l.end - l.start}pt${p.dist < 300 ? `(truth m=${p.measure.toFixed(0)} off=${p.offset.toFixed(0)})` : ''}`);
      }
      lines.push(`    street #${s} ${idx.strings.get(idx.stDisp[s])} chains [${chains.join(' ')}]`);
      for (let k = idx.stAddrOff[s]; k < idx.stAddrOff[s + 1]; k++) {
        lines.push(`      ${idx.strings.get(idx.adHn[k]).padStart(6)} ${idx.adLat[k].toFixed(6)},${idx.adLon[k].toFixed(6)} c${idx.adChain[k]} m=${idx.adMeasure[k].toFixed(0).padStart(5)} off=${idx.adOffset[k].toFixed(0).padStart(4)} d=${idx.adDist[k].toFixed(0).padStart(3)} toTruth=${haversine(idx.adLat[k], idx.adLon[k], tp.lat, tp.lon).toFixed(0)}`);
      }
    }
    rows.push({ g, fold: f, e, kind: r?.kind ?? 'none', code: r?.matchCode ?? 'None', faults: r?.faults.join(' ') ?? '', lat: r?.lat ?? NaN, lon: r?.lon ?? NaN, detail: lines.join('\n'), oracle });
  }
}
const errs = rows.map((r) => r.e);
console.log(`${which}: n=${rows.length} p50=${median(errs).toFixed(0)} p90=${percentile(errs, 90).toFixed(0)} p95=${percentile(errs, 95).toFixed(0)} max=${Math.max(...errs).toFixed(0)}; >150 m: ${errs.filter((e) => e > 150).length} (p95 allows ${rows.length - Math.ceil(0.95 * rows.length)})`);
const byKind = new Map<string, number[]>();
for (const r of rows) { const k = `${r.kind} ${r.code} ${r.faults.match(/number:\w+/)?.[0] ?? ''}`; const l = byKind.get(k) ?? []; l.push(r.e); byKind.set(k, l); }
for (const [k, l] of [...byKind].sort()) console.log(`  ${k.padEnd(40)} n=${String(l.length).padStart(4)} p50=${median(l).toFixed(0).padStart(4)} p95=${percentile(l, 95).toFixed(0).padStart(5)} >150: ${l.filter((e) => e > 150).length}`);
const worst = [...rows].sort((a, b) => b.e - a.e).slice(0, WORST);
for (const r of worst) {
  console.log(`\n${r.g.truth.street} ${r.g.truth.hn} [fold ${r.fold}]: ${r.e.toFixed(0)} m ${r.kind} ${r.code} (${r.faults}) truth ${r.g.points[0].lat.toFixed(6)},${r.g.points[0].lon.toFixed(6)} got ${r.lat.toFixed(6)},${r.lon.toFixed(6)}`);
  console.log(r.detail);
}
if (JSON_OUT) writeFileSync(JSON_OUT, JSON.stringify(rows.map((r) => ({ street: r.g.truth.street, hn: r.g.truth.hn, fold: r.fold, e: r.e, kind: r.kind, code: r.code, faults: r.faults, oracle: r.oracle })), null, 1));
