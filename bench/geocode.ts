/**
 * Geocoder evaluation harness (research notes §5): ground truth from the OSM address objects of an
 * extract, 20 % of the addresses held out of the index (interpolation-only truth), a seeded noisy
 * query set, a should-fail set, and latency/build measurements. Writes the `geocode` section of
 * bench/README.md.
 *
 *   node --import tsx bench/geocode.ts [--seed N] [--quick]
 */
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import v8 from 'node:v8';
import vm from 'node:vm';
import { OsmPbfFile } from '../src/osm/pbf.js';
import { Rng } from '../src/core/rng.js';
import { haversine } from '../src/core/geo.js';
import { BinFile, BinWriter } from '../src/core/binfile.js';
import { buildGeocodeIndexWithStats } from '../src/geocode/build.js';
import { GeocodeIndex } from '../src/geocode/geocode-index.js';
import { Geocoder, type GeocodeCandidate } from '../src/geocode/search.js';
import { parseTigerCsv } from '../src/geocode/tiger.js';
import { analyzeName } from '../src/geocode/normalize.js';
import { NOISE_CLASSES, noisyQuery, renderQuery, cleanParts, type NoiseClass, type Query } from './geocode/noise.js';
import { groundTruth, groupsByStreet, assignFolds, foldExclusion, type Group } from './geocode/truth.js';
import { percentile, median, sharedData, table, writeSection } from './lib/report.js';

// A full GC before each timed phase, so that the index builds' garbage is not charged to queries.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const args = process.argv.slice(2);
const SEED = Number(args[args.indexOf('--seed') + 1]) || 20261122;
const QUICK = args.includes('--quick');
const NO_WRITE = args.includes('--no-write');

function dist(c: GeocodeCandidate | undefined, g: Group): number {
  if (!c) return Infinity;
  let best = Infinity;
  for (const p of g.points) best = Math.min(best, haversine(c.lat, c.lon, p.lat, p.lon));
  return best;
}

interface Eval {
  name: string;
  stats: Record<string, number | string>;
  classRows: Map<string, { n: number; ok100: number; ok50: number }>;
  codeRows: Map<string, { n: number; okCode: number; ok100: number }>;
}

const CODE_THRESH: Record<string, number> = { Exact: 50, Good: 250, Approx: 5000, Poor: 5000, None: 0 };

function evaluate(name: string, file: string, tigerFile: string | null): Eval {
  const bytes = readFileSync(file);
  const tigerCsv = tigerFile ? readFileSync(tigerFile, 'utf8') : undefined;
  const osm = new OsmPbfFile(bytes);
  // --- full build: timing and memory
  const rss0 = process.memoryUsage().rss;
  const heap0 = process.memoryUsage().heapUsed;
  const fullBuild = buildGeocodeIndexWithStats(osm, { tigerCsv });
  const rssAfter = process.memoryUsage().rss;
  const heapAfter = process.memoryUsage().heapUsed;
  const full = new Geocoder(fullBuild.index);
  // serialise + reopen (load time)
  const w = new BinWriter(0x47454f43, 1);
  fullBuild.index.toSections(w, 'geo');
  const buf = w.toBuffer(true);
  const tl = performance.now();
  const reopened = GeocodeIndex.fromSections(BinFile.from(buf), 'geo');
  const loadMs = performance.now() - tl;
  void reopened;

  // --- ground truth and hold-out
  const rng = new Rng(SEED);
  const groups = groundTruth(osm, full);
  const byStreet = groupsByStreet(groups);
  // 5 folds: every eligible address (streets with ≥ 3 addresses, one object per address, plain
  // number) is held out in exactly one fold; each fold's index is built without its held-out objects.
  const FOLDS = QUICK ? 1 : 5;
  const foldOf = assignFolds(groups, byStreet, rng, FOLDS);
  const foldBuild = (f: number) => buildGeocodeIndexWithStats(osm, { tigerCsv, exclude: foldExclusion(foldOf, f) });
  const built = foldBuild(0);
  const heldOut = new Set<Group>([...foldOf].filter(([, f]) => f === 0).map(([g]) => g));
  const geo = new Geocoder(built.index);
  const indexed = groups.filter((g) => !heldOut.has(g));

  const lat: number[] = [];
  const slow: { ms: number; q: Query }[] = [];
  const latRaw: number[] = [];
  // Each query runs 3 times; its latency is the median (the machine is shared: this damps
  // scheduler noise); the single first-run times are reported too.
  const timed = (q: Query, g: Geocoder = geo): GeocodeCandidate[] => {
    const t0 = performance.now();
    const r = g.search(q, { limit: 5 });
    const t1 = performance.now();
    g.search(q, { limit: 5 });
    const t2 = performance.now();
    g.search(q, { limit: 5 });
    const t3 = performance.now();
    const ts = [t1 - t0, t2 - t1, t3 - t2].sort((a, b) => a - b);
    lat.push(ts[1]);
    latRaw.push(t1 - t0);
    if (ts[1] > 2) slow.push({ ms: ts[1], q });
    return r;
  };
  // warm-up
  for (const g of indexed.slice(0, 200)) geo.search(renderQuery(cleanParts(g.truth)));
  gc();

  const codeRows = new Map<string, { n: number; okCode: number; ok100: number }>();
  const noteCode = (c: GeocodeCandidate | undefined, d: number) => {
    const code = c?.matchCode ?? 'None';
    const r = codeRows.get(code) ?? { n: 0, okCode: 0, ok100: 0 };
    r.n++;
    if (d <= CODE_THRESH[code]) r.okCode++;
    if (d <= 100) r.ok100++;
    codeRows.set(code, r);
  };
  // --- clean, indexed
  let clean50 = 0, clean100 = 0;
  const cleanFails: string[] = [];
  for (const g of indexed) {
    const r = timed(renderQuery(cleanParts(g.truth)));
    const d = dist(r[0], g);
    if (d <= 50) clean50++; else if (cleanFails.length < 8) cleanFails.push(`${JSON.stringify(renderQuery(cleanParts(g.truth)))} → ${r[0] ? `${r[0].address.Street}, ${r[0].address.City} (${r[0].kind}, ${d.toFixed(0)} m)` : 'nothing'}`);
    if (d <= 100) clean100++;
    noteCode(r[0], d);
  }
  // --- noisy, indexed
  const classRows = new Map<string, { n: number; ok100: number; ok50: number }>();
  const bump = (k: string, d: number) => { const r = classRows.get(k) ?? { n: 0, ok100: 0, ok50: 0 }; r.n++; if (d <= 100) r.ok100++; if (d <= 50) r.ok50++; classRows.set(k, r); };
  let noisy100 = 0, noisyN = 0, noisy50 = 0, noisy250 = 0;
  const noisyFails: string[] = [];
  const noiseRng = rng.fork(1);
  for (const g of indexed) {
    const { q, classes } = noisyQuery(g.truth, noiseRng);
    const r = timed(q);
    const d = dist(r[0], g);
    noisyN++;
    if (d <= 50) noisy50++;
    if (d <= 250) noisy250++;
    if (d <= 100) noisy100++; else if (noisyFails.length < 12) noisyFails.push(`[${classes.join(',')}] ${JSON.stringify(q)} → ${r[0] ? `${r[0].address.Street}, ${r[0].address.City} (${r[0].kind} ${r[0].matchCode}, ${d.toFixed(0)} m)` : 'nothing'}`);
    bump(`k=${classes.length}`, d);
    for (const c of classes) bump(c, d);
    if (classes.length === 0) bump('(none)', d);
    noteCode(r[0], d);
  }
  // --- held out (interpolation only), all folds
  const hoErr: number[] = [];
  const hoList: { g: Group; e: number; kind: string; faults: string }[] = [];
  let leaked = 0;
  const hoKinds = new Map<string, number>();
  for (let f = 0; f < FOLDS; f++) {
    const fg = f === 0 ? geo : new Geocoder(foldBuild(f).index);
    gc();
    for (const [g, gf] of foldOf) {
      if (gf !== f) continue;
      const r = timed(renderQuery(cleanParts(g.truth)), fg);
      const d = dist(r[0], g);
      hoErr.push(d);
      hoList.push({ g, e: d, kind: r[0]?.kind ?? 'none', faults: r[0]?.faults.join(' ') ?? '' });
      if (r[0]?.kind === 'address' && d < 0.5) leaked++;
      hoKinds.set(r[0]?.kind ?? 'none', (hoKinds.get(r[0]?.kind ?? 'none') ?? 0) + 1);
      noteCode(r[0], d);
    }
  }
  // --- should-fail set
  const failRng = rng.fork(2);
  const tiger = tigerCsv ? parseTigerCsv(tigerCsv).ranges : [];
  const inTiger = (street: string, n: number) => tiger.some((t) => t.street.toLowerCase() === street.toLowerCase() && n >= Math.min(t.from, t.to) && n <= Math.max(t.from, t.to));
  const cities = [...new Set(indexed.map((g) => g.truth.city).filter((c) => c.length > 0))].sort();
  const cityPoints = new Map<string, { lat: number; lon: number }[]>();
  for (const g of groups) { const l = cityPoints.get(g.truth.city) ?? []; l.push(...g.points); cityPoints.set(g.truth.city, l); }
  const streetsInCity = new Map<string, Set<string>>();
  for (const g of groups) { const s = streetsInCity.get(g.truth.city.toLowerCase()) ?? new Set<string>(); s.add(g.truth.street.toLowerCase()); streetsInCity.set(g.truth.city.toLowerCase(), s); }
  // full-index street names per municipality (a street "not in town B" must be absent from B's streets too)
  const idx = fullBuild.index;
  const namesInMuni = new Map<string, Set<string>>();
  for (let s = 0; s < idx.streetCount; s++) {
    const m = idx.stMuni[s];
    const muni = m >= 0 ? idx.strings.get(idx.plName[m]).toLowerCase() : '';
    const set = namesInMuni.get(muni) ?? new Set<string>();
    set.add(idx.keys.get(idx.nmNs[idx.stName[s]]));
    namesInMuni.set(muni, set);
  }
  const failQueries: { q: Query; kind: string }[] = [];
  const nFail = QUICK ? 150 : Math.max(300, Math.round(indexed.length / 2));
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const gib = () => { let s = ''; const n = 6 + failRng.int(8); for (let i = 0; i < n; i++) s += letters[failRng.int(26)]; return s[0].toUpperCase() + s.slice(1); };
  const maxOnStreet = new Map<string, number>();
  for (const g of groups) { const n = parseInt(g.truth.hn, 10); if (n > 0) maxOnStreet.set(g.streetKey, Math.max(maxOnStreet.get(g.streetKey) ?? 0, n)); }
  let attempts = 0;
  while (failQueries.length < nFail && attempts < nFail * 20) {
    attempts++;
    const g = indexed[failRng.int(indexed.length)];
    const kind = failRng.int(3);
    if (kind === 0) {
      const max = maxOnStreet.get(g.streetKey) ?? 0;
      if (max <= 0) continue;
      const n = max * 10 + 7 + failRng.int(50);
      if (inTiger(g.truth.street, n)) continue;
      const p = cleanParts(g.truth); p.hn = String(n);
      failQueries.push({ q: renderQuery(p), kind: 'number out of range' });
    } else if (kind === 1) {
      const other = cities[failRng.int(cities.length)];
      if (!other || other.toLowerCase() === g.truth.city.toLowerCase()) continue;
      // a different town, not a quarter of the same one: none of its addresses within 1 km
      const pts = cityPoints.get(other) ?? [];
      if (pts.some((p) => haversine(p.lat, p.lon, g.points[0].lat, g.points[0].lon) < 1000)) continue;
      if (streetsInCity.get(other.toLowerCase())?.has(g.truth.street.toLowerCase())) continue;
      // also absent (same normalised name) from the other town's named highways and address streets
      const otherNames = namesInMuni.get(other.toLowerCase());
      if (otherNames?.has(analyzeName(g.truth.street).nsKey)) continue;
      const p = cleanParts(g.truth); p.city = other; p.postcode = '';
      failQueries.push({ q: renderQuery(p), kind: 'street from another town' });
    } else {
      const r = failRng.int(3);
      const q: Query = r === 0 ? { Street: `${1 + failRng.int(200)} ${gib()} ${gib()}`, City: g.truth.city || undefined }
        : r === 1 ? { Street: `${1 + failRng.int(200)} ${gib()}` }
        : { Street: `PO Box ${1 + failRng.int(999)}`, City: g.truth.city || undefined };
      failQueries.push({ q, kind: 'gibberish / PO box' });
    }
  }
  gc();
  const failRows = new Map<string, { n: number; goodExact: number; approx: number }>();
  const failExamples: string[] = [];
  for (const f of failQueries) {
    const r = timed(f.q);
    const row = failRows.get(f.kind) ?? { n: 0, goodExact: 0, approx: 0 };
    row.n++;
    const code = r[0]?.matchCode ?? 'None';
    if (code === 'Good' || code === 'Exact') { row.goodExact++; if (failExamples.length < 8) failExamples.push(`${JSON.stringify(f.q)} → ${code} ${r[0].address.Street}, ${r[0].address.City} [${r[0].faults.join(' ')}]`); }
    if (code === 'Approx') row.approx++;
    failRows.set(f.kind, row);
  }
  const failN = failQueries.length;
  const failGE = [...failRows.values()].reduce((a, r) => a + r.goodExact, 0);

  // build time and peak RSS in fresh processes (median of 3 builds, maximum RSS)
  const child = [0, 1, 2].slice(0, QUICK ? 1 : 3).map(() => JSON.parse(execFileSync(process.execPath, ['--import', 'tsx', new URL('geocode/build-rss.ts', import.meta.url).pathname, file, ...(tigerFile ? [tigerFile] : [])], { encoding: 'utf8' })) as { buildMs: number; peakRssMB: number; startRssMB: number });
  const st = built.stats;
  const stats: Record<string, number | string> = {
    'address objects (truth addresses)': `${groups.reduce((a, g) => a + g.objects.length, 0)} (${groups.length})`,
    'indexed (fold 0) / held out (all folds)': `${indexed.length} / ${hoErr.length} (${FOLDS} folds)`,
    'clean, indexed: top-1 ≤ 50 m': `${(100 * clean50 / indexed.length).toFixed(1)} % (≤100 m ${(100 * clean100 / indexed.length).toFixed(1)} %)`,
    'noisy (0–3 perturbations): top-1 ≤ 100 m': `${(100 * noisy100 / noisyN).toFixed(1)} %`,
    'noisy: top-1 ≤ 50 / 250 m': `${(100 * noisy50 / noisyN).toFixed(1)} / ${(100 * noisy250 / noisyN).toFixed(1)} %`,
    'held out: error p50 / p90 / p95 / max (m)': `${median(hoErr).toFixed(0)} / ${percentile(hoErr, 90).toFixed(0)} / ${percentile(hoErr, 95).toFixed(0)} / ${Math.max(...hoErr).toFixed(0)}`,
    'held out: within 50 / 100 / 250 m': `${(100 * hoErr.filter((e) => e <= 50).length / hoErr.length).toFixed(1)} / ${(100 * hoErr.filter((e) => e <= 100).length / hoErr.length).toFixed(1)} / ${(100 * hoErr.filter((e) => e <= 250).length / hoErr.length).toFixed(1)} %`,
    'held out: leaked (exact point found)': leaked,
    'held out: result kinds': [...hoKinds].map(([k, v]) => `${k} ${v}`).join(', '),
    'should-fail: Good/Exact': `${(100 * failGE / Math.max(1, failN)).toFixed(2)} % (${failGE}/${failN})`,
    'latency p50 / p95 / p99 (ms), median of 3 runs': `${percentile(lat, 50).toFixed(3)} / ${percentile(lat, 95).toFixed(3)} / ${percentile(lat, 99).toFixed(3)}`,
    'latency p50 / p99 (ms), first run only': `${percentile(latRaw, 50).toFixed(3)} / ${percentile(latRaw, 99).toFixed(3)}`,
    'queries timed': lat.length,
    'build time, fresh process (median of 3), s': (median(child.map((c) => c.buildMs)) / 1000).toFixed(2),
    'build peak RSS, fresh process (MB; node + tsx alone ≈ start)': `${Math.max(...child.map((c) => c.peakRssMB)).toFixed(0)} (start ${child[0].startRssMB.toFixed(0)})`,
    'build in the bench process: RSS / heap growth (MB)': `${((rssAfter - rss0) / 2 ** 20).toFixed(0)} / ${((heapAfter - heap0) / 2 ** 20).toFixed(0)}`,
    'index size (MB) / load (ms)': `${(buf.byteLength / 2 ** 20).toFixed(2)} / ${loadMs.toFixed(2)}`,
    'index: addresses / streets / names / places / postcodes / ranges': `${st.addresses} / ${st.streets} / ${st.names} / ${st.places} / ${st.postcodes} / ${st.ranges}`,
  };
  for (const [k, r] of failRows) stats[`should-fail [${k}]: Good/Exact, Approx`] = `${r.goodExact}/${r.n}, ${r.approx}/${r.n}`;
  console.log(`\n=== ${name}`);
  for (const [k, v] of Object.entries(stats)) console.log(`${k.padEnd(60)} ${v}`);
  console.log('classes:', [...classRows].map(([k, r]) => `${k} ${(100 * r.ok100 / r.n).toFixed(1)}% (${r.n})`).join('; '));
  console.log('codes:', [...codeRows].map(([k, r]) => `${k} n=${r.n} prec=${(100 * r.okCode / r.n).toFixed(1)}% @100m=${(100 * r.ok100 / r.n).toFixed(1)}%`).join('; '));
  console.log('slow queries (> 2 ms):', slow.length, slow.sort((a, b) => b.ms - a.ms).slice(0, 5).map((x) => `${x.ms.toFixed(1)} ms ${JSON.stringify(x.q)}`).join(' | '));
  console.log('clean misses:\n  ' + cleanFails.join('\n  '));
  console.log('noisy misses:\n  ' + noisyFails.join('\n  '));
  console.log('should-fail Good/Exact examples:\n  ' + failExamples.join('\n  '));
  const ho = [...hoList].sort((a, b) => b.e - a.e).slice(0, 12);
  console.log('worst held out:\n  ' + ho.map(({ g, e, kind, faults }) => `${g.truth.street} ${g.truth.hn}, ${g.truth.city}: ${e.toFixed(0)} m (${kind}: ${faults})`).join('\n  '));
  const byKind = new Map<string, number[]>();
  for (const h of hoList) { const l = byKind.get(h.kind + ' ' + (h.faults.match(/number:\w+/)?.[0] ?? '')) ?? []; l.push(h.e); byKind.set(h.kind + ' ' + (h.faults.match(/number:\w+/)?.[0] ?? ''), l); }
  console.log('held out by kind: ' + [...byKind].map(([k, l]) => `${k} n=${l.length} p50=${median(l).toFixed(0)} p95=${percentile(l, 95).toFixed(0)}`).join('; '));
  return { name, stats, classRows, codeRows };
}

function main(): void {
  const monaco = sharedData('osm/monaco-latest.osm.pbf');
  const apidb = sharedData('osm/apidb-test-data.pbf');
  const tiger = sharedData('geocode/tiger-nominatim-01001-autauga-al.csv');
  if (!monaco || !apidb) {
    console.log('Shared data (../shared/data/osm) is absent: the geocode benchmark needs monaco-latest.osm.pbf and apidb-test-data.pbf.');
    return;
  }
  const load0 = loadavg()[0];
  const evals = [evaluate('monaco-latest', monaco, null), evaluate('apidb-test-data + TIGER 01001', apidb, tiger)];
  if (NO_WRITE) return;
  const keys = Object.keys(evals[0].stats).filter((k) => evals.every((e) => k in e.stats));
  const extraKeys = [...new Set(evals.flatMap((e) => Object.keys(e.stats)))].filter((k) => !keys.includes(k));
  const main = table(['metric', ...evals.map((e) => e.name)], [...keys, ...extraKeys].map((k) => [k, ...evals.map((e) => String(e.stats[k] ?? '–'))]));
  const classNames = ['(none)', 'k=1', 'k=2', 'k=3', ...NOISE_CLASSES];
  const cls = table(['noise class', ...evals.map((e) => `${e.name}: top-1 ≤ 100 m (n)`)], classNames.map((c) => [c, ...evals.map((e) => {
    const r = e.classRows.get(c as NoiseClass | string);
    return r ? `${(100 * r.ok100 / r.n).toFixed(1)} % (${r.n})` : '–';
  })]));
  const codes = table(['MatchCode', ...evals.map((e) => `${e.name}: n, precision (Exact ≤ 50 m, Good ≤ 250 m, Approx/Poor ≤ 5 km), share ≤ 100 m`)], ['Exact', 'Good', 'Approx', 'Poor', 'None'].map((c) => [c, ...evals.map((e) => {
    const r = e.codeRows.get(c);
    return r ? `${r.n}, ${(100 * r.okCode / r.n).toFixed(1)} %, ${(100 * r.ok100 / r.n).toFixed(1)} %` : '–';
  })]));
  const body = [
    `Seed ${SEED}${QUICK ? ' (quick)' : ''}; single thread, warm (a full GC after each index build, before the queries); 1-min load average at start ${load0.toFixed(2)}. `
      + 'Truth = OSM objects with addr:housenumber + addr:street/addr:place (same street+number+city grouped; the nearest of a group\'s points counts). '
      + 'Held out: 5 folds, each leaving 20 % of the addresses of every street with ≥ 3 addresses out of the build (their objects excluded, ≥ 2 neighbours kept); every eligible address is held out once. Clean/noisy/should-fail queries run on fold 0\'s index. '
      + 'Noisy queries: one per indexed address, k ∈ {0,1,2,3} perturbations (30/45/20/5 %), generator in bench/geocode/noise.ts. '
      + 'Should-fail: number ×10 beyond the street\'s highest (and outside TIGER ranges), street with a town that has no street of that name, gibberish and PO boxes.',
    main,
    '### Noisy queries per perturbation class',
    cls,
    '### MatchCode precision (all positive queries: clean + noisy + held out)',
    codes,
  ].join('\n\n');
  writeSection('geocode', 'Geocoding (bench/geocode.ts)', body);
}

main();
