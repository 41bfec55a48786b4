/**
 * Spatial indexes (issue #26 item 3): the library indexes (flatbush, kdbush, geokdbush) against
 * the hand-written ones, in one run on Porto, on each need's real query mix — build time, bytes
 * and query time (medians of per-query times over interleaved blocks; ratios to the hand-written
 * index measured in the same run):
 *
 * 1. snapping: nearest road segment within 1 km of random points (half near a road, half anywhere
 *    in the extract's box) — the Snapper's best-first walk over its flatbush arrays against
 *    Flatbush's own `neighbors` (made exact: k grows until the k-th box is past the best segment)
 *    and `search` over the radius' box;
 * 2. reverse geocoding: the nearest street segment (1,300 m, the class penalties' reach) and the
 *    nearest address point (75 m; Porto has 65, so Porto's 377k road points stand in) — the old
 *    sparse 0.005° grid (bench/lib/grid-baseline.ts) against flatbush + the best-first walk,
 *    Flatbush `neighbors` / `search`, kdbush `range`, geokdbush `around`;
 * 3. the map's road index: the edges of 800 × 600 map views at zooms 11–17 (what the renderer and
 *    the page's road layer select) — the old lazy edge grid against the flatbush R-tree;
 * 4. region assignment (MultipleRegion): each stop's nearest vehicle by travel time (the matrix
 *    the dispatch has) against geokdbush's nearest vehicle by great-circle distance.
 *
 *   node --import tsx bench/spatial.ts [--quick]
 *
 * geokdbush is not a dependency (nothing adopted it); `npm install --no-save geokdbush` to
 * include its rows, else they are left out and the section says so.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Flatbush from 'flatbush';
import KDBush from 'kdbush';
import { Rng } from '../src/core/rng.js';
import { metresPerDegree, mercatorX, mercatorY } from '../src/core/geo.js';
import { f32Down, f32Up, indexBytes, NearestWalk, polylineBox } from '../src/core/spatial.js';
import { Dataset } from '../src/dataset/dataset.js';
import { DatasetTravel } from '../src/dataset/travel.js';
import { STREET_CHUNK, type GeocodeIndex } from '../src/geocode/geocode-index.js';
import { projectOnLine } from '../src/geocode/interpolate.js';
import { PointIndex, PointIndexBuilder, SegmentIndex, SegmentIndexBuilder } from '../src/geocode/spatial.js';
import { Geocoder } from '../src/geocode/search.js';
import { mapReader, type Sections } from '../src/geocode/sections.js';
import { ROAD_BOX_PAD, RoadBoxIndex } from '../src/graph/road-index.js';
import { SNAP_CHUNK, Snapper } from '../src/graph/snap.js';
import { assignRegions } from '../src/ops/dispatch/regions.js';
import type { VrpInput } from '../src/vrp/model.js';
import { buildEdgeGridBaseline, Grid, GridBuilder, selectBaseline } from './lib/grid-baseline.js';
import { median, table, writeSection } from './lib/report.js';

const quick = process.argv.includes('--quick');
const DATASET = fileURLToPath(new URL('out/porto.dkds', import.meta.url));
if (!existsSync(DATASET)) {
  console.error(`${DATASET} is missing: node --import tsx src/cli/main.ts build ../shared/data/osm/porto_portugal.osm.pbf -o bench/out/porto.dkds`);
  process.exit(1);
}
type AroundFn = (index: KDBush, lng: number, lat: number, maxResults?: number, maxDistance?: number) => number[];
let around: AroundFn | null = null;
try {
  around = ((await import('geokdbush' as string)) as { around: AroundFn }).around;
} catch {
  around = null;
}

const ds = Dataset.open(DATASET);
const g = ds.graph;
const geo = (ds.geocoder as unknown as { index: GeocodeIndex }).index;
const ROUNDS = quick ? 3 : 7;
const N = quick ? 5000 : 20000;

// ---------------------------------------------------------------------------------------------
// timing

interface Timed { name: string; us: number; check: number }

/**
 * Per-query µs: each implementation runs every query in blocks of `block`, implementations
 * interleaved block by block over `ROUNDS` rounds; the median of the block means. `check` (a sum
 * of the answers) must agree between implementations that answer the same question.
 */
function timeQueries(n: number, impls: Record<string, (i: number) => number>, block = 250): Timed[] {
  const names = Object.keys(impls);
  const per = new Map<string, number[]>(names.map((k) => [k, []]));
  const check = new Map<string, number>();
  for (const k of names) for (let i = 0; i < Math.min(n, 2000); i++) impls[k](i); // warm up
  for (let r = 0; r < ROUNDS; r++) {
    for (let b0 = 0; b0 < n; b0 += block) {
      for (const k of names) {
        const f = impls[k];
        const b1 = Math.min(n, b0 + block);
        let s = 0;
        const t = performance.now();
        for (let i = b0; i < b1; i++) s += f(i);
        per.get(k)!.push(((performance.now() - t) * 1000) / (b1 - b0));
        check.set(k, (r === 0 && b0 === 0 ? 0 : check.get(k)!) + s);
      }
    }
  }
  return names.map((k) => ({ name: k, us: median(per.get(k)!), check: check.get(k)! }));
}

function timeBuild(f: () => unknown, reps = quick ? 3 : 5): number {
  const ts: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    f();
    ts.push(performance.now() - t);
  }
  return median(ts);
}

const mib = (b: number) => (b >= 2 ** 20 ? `${(b / 2 ** 20).toFixed(2)} MiB` : `${(b / 1024).toFixed(0)} KiB`);
const us = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const fmtMs = (x: number) => (x >= 10 ? x.toFixed(0) : x.toFixed(1));

const rows: (string | number)[][] = [];
const notes: string[] = [];
/** Same-run figures quoted in the notes. */
const fig: Record<string, number> = {};
/** One row per implementation: need, index, build, bytes, query µs, × the hand-written one, same answers. */
function report(need: string, base: Timed, all: { t: Timed; index: string; build: string; bytes: string; same?: boolean; kept?: boolean }[]): void {
  for (const { t, index, build, bytes, same, kept } of all) {
    const ratio = t === base ? '1' : (t.us / base.us).toFixed(2);
    const answers = same === false ? 'no' : t.check === base.check ? 'same' : 'DIFFERENT';
    rows.push([need, `${kept ? '**' : ''}${index}${kept ? '**' : ''}`, build, bytes, kept ? `**${us(t.us)}**` : us(t.us), ratio, answers]);
  }
}

// queries: half within ~300 m of a road point, half anywhere in the extract's box
const rng = new Rng(20261126);
const bb = ds.meta.bbox;
const qlat = new Float64Array(N);
const qlon = new Float64Array(N);
for (let i = 0; i < N; i++) {
  if (i % 2 === 0) {
    const p = rng.int(g.geomLat.length);
    qlat[i] = g.geomLat[p] + (rng.next() - 0.5) * 0.0054;
    qlon[i] = g.geomLon[p] + (rng.next() - 0.5) * 0.0072;
  } else {
    qlat[i] = bb.minLat + rng.next() * (bb.maxLat - bb.minLat);
    qlon[i] = bb.minLon + rng.next() * (bb.maxLon - bb.minLon);
  }
}

/**
 * Flatbush's own nearest-neighbour search made exact for a distance `dist(item)` ≥ the flat
 * distance to the item's box: the k nearest boxes (degree distance, lon unscaled), k growing ×4
 * until the k-th box is, in metres (× kx, the smaller scale), past the best exact distance.
 */
function neighborsExact(fb: Flatbush, lat: number, lon: number, maxDist: number, dist: (k: number) => number, boxOf: (k: number) => [number, number, number, number]): number {
  const { kx } = metresPerDegree(lat);
  for (let K = 8; ; K *= 4) {
    const hits = fb.neighbors(lon, lat, K, maxDist / kx);
    let best = maxDist;
    let bi = -1;
    for (const k of hits) {
      const d = dist(k);
      if (d < best || (d === best && bi >= 0 && k < bi)) { best = d; bi = k; }
    }
    if (hits.length < K) return bi < 0 ? -1 : bi;
    const [x0, y0, x1, y1] = boxOf(hits[hits.length - 1]);
    const dx = Math.max(x0 - lon, lon - x1, 0), dy = Math.max(y0 - lat, lat - y1, 0);
    if (Math.hypot(dx, dy) * kx > best) return bi < 0 ? -1 : bi;
  }
}

// ---------------------------------------------------------------------------------------------
// 1. snapping

{
  const sn = ds.snapper;
  const fb = sn.index;
  const nearest = (sn as unknown as { nearest(lat: number, lon: number, r: number, margin: number): number }).nearest.bind(sn);
  const lastD2 = (): number => (sn as unknown as { lastD2: number }).lastD2;
  const la = g.geomLat, lo = g.geomLon;
  const R = 1000;
  // an item is a chunk of up to SNAP_CHUNK segments of one edge: its distance is its nearest segment's
  const segDist = (lat: number, lon: number, kx: number, ky: number) => (c: number) => {
    let best = Infinity;
    for (let p = sn.chunkPoint[c], end = sn.chunkEnd(c); p < end; p++) {
      const ax = (lo[p] - lon) * kx, ay = (la[p] - lat) * ky;
      const dx = (lo[p + 1] - lon) * kx - ax, dy = (la[p + 1] - lat) * ky - ay;
      const len2 = dx * dx + dy * dy;
      let t = len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0;
      t = t < 0 ? 0 : t > 1 ? 1 : t;
      best = Math.min(best, Math.hypot(ax + t * dx, ay + t * dy));
    }
    return best;
  };
  const segBox = (c: number): [number, number, number, number] => polylineBox(la, lo, sn.chunkPoint[c], sn.chunkEnd(c));
  const segments = g.edgeGeomStart[g.numEdges] - g.numEdges;
  // the index as it was before (snap format v1): one item per segment
  const single = Snapper.build(g, { chunk: 1 });
  const nearestSingle = (single as unknown as { nearest(lat: number, lon: number, r: number, margin: number): number }).nearest.bind(single);
  const lastD2Single = (): number => (single as unknown as { lastD2: number }).lastD2;
  const round = (d: number) => Math.round(d * 1000);
  const t = timeQueries(N, {
    walk: (i) => (nearest(qlat[i], qlon[i], R, -1) < 0 ? 0 : round(Math.sqrt(lastD2()))),
    single: (i) => (nearestSingle(qlat[i], qlon[i], R, -1) < 0 ? 0 : round(Math.sqrt(lastD2Single()))),
    neighbors: (i) => {
      const lat = qlat[i], lon = qlon[i];
      const { kx, ky } = metresPerDegree(lat);
      const d = segDist(lat, lon, kx, ky);
      const s = neighborsExact(fb, lat, lon, R, d, segBox);
      return s < 0 ? 0 : round(d(s));
    },
    search: (i) => {
      const lat = qlat[i], lon = qlon[i];
      const { kx, ky } = metresPerDegree(lat);
      const d = segDist(lat, lon, kx, ky);
      let best = R, any = false;
      for (const s of fb.search(lon - R / kx, lat - R / ky, lon + R / kx, lat + R / ky)) { const x = d(s); if (x < best) { best = x; any = true; } }
      return any ? round(best) : 0;
    },
  });
  fig.snapSingle = t[1].us / t[0].us;
  fig.snapNeighbors = t[2].us / t[0].us;
  fig.snapSearch = t[3].us / t[0].us;
  const build = fmtMs(timeBuild(() => Snapper.build(g)));
  const bytes = mib(indexBytes(fb).byteLength + sn.chunkEdge.byteLength + sn.chunkPoint.byteLength);
  // v1 persisted the R-tree and one edge number per segment (its `s.segEdge`)
  const v1Bytes = indexBytes(single.index).byteLength + single.chunkEdge.byteLength;
  const singleBytes = mib(v1Bytes);
  fig.snapBytes = (indexBytes(fb).byteLength + sn.chunkEdge.byteLength + sn.chunkPoint.byteLength) / v1Bytes;
  const need = `snap: nearest of ${segments.toLocaleString('en-US')} road segments (${sn.chunkEdge.length.toLocaleString('en-US')} items of up to ${sn.chunk}), 1 km`;
  report(need, t[0], [
    { t: t[0], index: `flatbush over chunks of ${sn.chunk} segments + hand-written best-first walk (Snapper)`, build, bytes, kept: true },
    { t: t[1], index: 'flatbush over single segments + the same walk (before: snap format v1)', build: fmtMs(timeBuild(() => Snapper.build(g, { chunk: 1 }))), bytes: singleBytes },
    { t: t[2], index: 'flatbush `neighbors` (chunks), k ×4 until exact', build, bytes },
    { t: t[3], index: 'flatbush `search` (chunks) of the 1 km box + exact distances', build, bytes },
  ]);
}

// ---------------------------------------------------------------------------------------------
// 2. reverse geocoding: street segments (Porto's geocoder) and address points (road points stand in)

{
  const { ptLat, ptLon, ptNext, ptClass } = geo;
  const n = ptLat.length;
  const items: number[] = [];
  for (let i = 0; i < n; i++) if (ptNext[i] || i === 0 || !ptNext[i - 1]) items.push(i);
  const boxOfItem = (i: number): [number, number, number, number] => {
    const j = ptNext[i] ? i + 1 : i;
    return [Math.min(ptLon[i], ptLon[j]), Math.min(ptLat[i], ptLat[j]), Math.max(ptLon[i], ptLon[j]), Math.max(ptLat[i], ptLat[j])];
  };
  const buildGrid = () => {
    const gb = new GridBuilder(0.005);
    for (const i of items) {
      const [x0, y0, x1, y1] = boxOfItem(i);
      if (ptNext[i]) gb.addBox(i, y0, x0, y1, x1); else gb.addPoint(i, y0, x0);
    }
    const m: Sections = new Map();
    gb.write(m, 'gs');
    return m;
  };
  const buildFb = () => {
    const b = new SegmentIndexBuilder();
    for (const i of items) {
      const [x0, y0, x1, y1] = boxOfItem(i);
      if (ptNext[i]) b.addBox(i, y0, x0, y1, x1); else b.addPoint(i, y0, x0);
    }
    const m: Sections = new Map();
    b.write(m, 'gs');
    return m;
  };
  const gridSec = buildGrid();
  const grid = new Grid(mapReader(gridSec), 'gs');
  const fbSec = buildFb();
  const segIx = new SegmentIndex(mapReader(fbSec), 'gs');
  // a plain float32 flatbush over the same items, for the library's own searches
  const fb = new Flatbush(items.length, 16, Float32Array);
  for (const i of items) { const [x0, y0, x1, y1] = boxOfItem(i); fb.add(f32Down(x0), f32Down(y0), f32Up(x1), f32Up(y1)); }
  fb.finish();
  const maxD = 1300; // reverse: maxDistance 1000 + the largest class penalty (300)
  const dist = (lat: number, lon: number) => (i: number) =>
    projectOnLine({ lat: ptLat, lon: ptLon, start: i, end: ptNext[i] ? i + 2 : i + 1 }, lat, lon).dist + (ptClass[i] ? 100 : 0);
  const round = (d: number) => Math.round(d * 1000);
  const t = timeQueries(N, {
    grid: (q) => { const r = grid.nearest(qlat[q], qlon[q], maxD, n, dist(qlat[q], qlon[q])); return r.item < 0 ? 0 : round(r.dist); },
    chunks: (q) => { const r = geo.nearestStreet(qlat[q], qlon[q], maxD, dist(qlat[q], qlon[q])); return r.item < 0 ? 0 : round(r.dist); },
    walk: (q) => { const r = segIx.nearest(qlat[q], qlon[q], maxD, dist(qlat[q], qlon[q])); return r.item < 0 ? 0 : round(r.dist); },
    neighbors: (q) => {
      const d = dist(qlat[q], qlon[q]);
      const k = neighborsExact(fb, qlat[q], qlon[q], maxD, (k) => d(items[k]), (k) => boxOfItem(items[k]));
      return k < 0 ? 0 : round(d(items[k]));
    },
    search: (q) => {
      const lat = qlat[q], lon = qlon[q];
      const { kx, ky } = metresPerDegree(lat);
      const d = dist(lat, lon);
      let best = maxD, any = false;
      for (const k of fb.search(lon - maxD / kx, lat - maxD / ky, lon + maxD / kx, lat + maxD / ky)) { const x = d(items[k]); if (x < best) { best = x; any = true; } }
      return any ? round(best) : 0;
    },
  });
  const bytesOf = (m: Sections) => [...m.values()].reduce((a, x) => a + x.byteLength, 0);
  // the engine's own index (geocode format v3): items of up to STREET_CHUNK segments of a chain
  const chunkBytes = ds.file.sectionBytes('geo.gs.fb') + ds.file.sectionBytes('geo.gs.id');
  fig.streetGrid = t[0].us / t[1].us;
  fig.streetNeighbors = t[3].us / t[1].us;
  fig.streetSingle = t[2].us / t[1].us;
  fig.streetBytes = chunkBytes / bytesOf(gridSec);
  fig.streetChunkBytes = chunkBytes / bytesOf(fbSec);
  const need = `reverse: nearest of ${items.length.toLocaleString('en-US')} street segments, 1.3 km`;
  const gBuild = fmtMs(timeBuild(buildGrid));
  const fBuild = fmtMs(timeBuild(buildFb));
  report(need, t[0], [
    { t: t[0], index: 'sparse 0.005° grid (hand-written, before)', build: gBuild, bytes: mib(bytesOf(gridSec)) },
    { t: t[1], index: `flatbush over chunks of up to ${STREET_CHUNK} segments + best-first walk (adopted, \`nearestStreet\`)`, build: '(at dataset build)', bytes: mib(chunkBytes), kept: true },
    { t: t[2], index: 'flatbush over single segments + best-first walk (before: geocode format v2)', build: fBuild, bytes: mib(bytesOf(fbSec)) },
    { t: t[3], index: 'flatbush (single segments) `neighbors`, k ×4 until exact', build: fBuild, bytes: mib(bytesOf(fbSec)) },
    { t: t[4], index: 'flatbush (single segments) `search` of the 1.3 km box', build: fBuild, bytes: mib(bytesOf(fbSec)) },
  ]);
}

{
  // Porto's geocoder has 65 address points: the road graph's 377k geometry points stand in.
  const la = g.geomLat, lo = g.geomLon;
  const P = la.length;
  const buildGrid = () => { const gb = new GridBuilder(0.005); for (let k = 0; k < P; k++) gb.addPoint(k, la[k], lo[k]); const m: Sections = new Map(); gb.write(m, 'ga'); return m; };
  const buildKd = () => { const b = new PointIndexBuilder(); for (let k = 0; k < P; k++) b.add(k, la[k], lo[k]); const m: Sections = new Map(); b.write(m, 'ga'); return m; };
  const buildKd64 = () => { const kd = new KDBush(P, 64, Float64Array); for (let k = 0; k < P; k++) kd.add(lo[k], la[k]); return kd.finish(); };
  const buildFb = () => { const fb = new Flatbush(P, 16, Float64Array); for (let k = 0; k < P; k++) fb.add(lo[k], la[k], lo[k], la[k]); fb.finish(); return fb; };
  const gridSec = buildGrid();
  const grid = new Grid(mapReader(gridSec), 'ga');
  const kdSec = buildKd();
  const pts = new PointIndex(mapReader(kdSec), 'ga');
  const kd64 = buildKd64();
  const fb = buildFb();
  const walk = new NearestWalk(fb);
  const R = 75;
  const dist = (lat: number, lon: number) => {
    const { kx, ky } = metresPerDegree(lat);
    return (k: number) => { const dx = (lo[k] - lon) * kx, dy = (la[k] - lat) * ky; return Math.sqrt(dx * dx + dy * dy); };
  };
  const round = (d: number) => Math.round(d * 1000);
  const impls: Record<string, (q: number) => number> = {
    grid: (q) => { const r = grid.nearest(qlat[q], qlon[q], R, P, dist(qlat[q], qlon[q])); return r.item < 0 ? 0 : round(r.dist); },
    kdbush: (q) => { const r = pts.nearest(qlat[q], qlon[q], R, dist(qlat[q], qlon[q])); return r.item < 0 ? 0 : round(r.dist); },
    walk: (q) => { const r = walk.nearest(qlat[q], qlon[q], R, dist(qlat[q], qlon[q])); return r.item < 0 ? 0 : round(r.dist); },
  };
  if (around) {
    const ar = around;
    impls.geokdbush = (q) => { const r = ar(kd64, qlon[q], qlat[q], 1, R / 1000); return r.length ? round(dist(qlat[q], qlon[q])(r[0])) : 0; };
  }
  const t = timeQueries(N, impls);
  const bytesOf = (m: Sections) => [...m.values()].reduce((a, x) => a + x.byteLength, 0);
  fig.pointGrid = t[0].us / t[1].us;
  fig.pointWalk = t[2].us / t[1].us;
  if (around) fig.pointGeo = t[3].us / t[1].us;
  const need = `reverse: nearest of ${P.toLocaleString('en-US')} address points (road points stand in), 75 m`;
  const all = [
    { t: t[0], index: 'sparse 0.005° grid (hand-written, before)', build: fmtMs(timeBuild(buildGrid)), bytes: mib(bytesOf(gridSec)) },
    { t: t[1], index: 'kdbush `range` + exact distances (adopted, float32)', build: fmtMs(timeBuild(buildKd)), bytes: mib(bytesOf(kdSec)), kept: true },
    { t: t[2], index: 'flatbush (points) + best-first walk', build: fmtMs(timeBuild(buildFb)), bytes: mib(fb.data.byteLength) },
  ];
  if (around) all.push({ t: t[3], index: 'geokdbush `around` (great circle; float64 kdbush)', build: fmtMs(timeBuild(buildKd64)), bytes: mib(kd64.data.byteLength) });
  else notes.push('geokdbush is not installed (`npm install --no-save geokdbush`): its row is left out.');
  report(need, t[0], all);

}

{
  // Porto's reverse geocoder end to end (streets, addresses, ranges, settlements; the answer's
  // records built), on the library indexes as shipped and on the grids of before (the same
  // index with its three spatial lookups answered by bench/lib/grid-baseline.ts).
  const grids: Record<string, { g: Grid; n: number }> = {};
  const gridOver = (name: string, n: number, fill: (b: GridBuilder) => void) => {
    const b = new GridBuilder(0.005);
    fill(b);
    const m: Sections = new Map();
    b.write(m, name);
    grids[name] = { g: new Grid(mapReader(m), name), n };
  };
  gridOver('ga', geo.addressCount, (b) => { for (let k = 0; k < geo.addressCount; k++) b.addPoint(k, geo.adLat[k], geo.adLon[k]); });
  gridOver('gs', geo.ptLat.length, (b) => {
    const { ptLat, ptLon, ptNext } = geo;
    for (let i = 0; i < ptLat.length; i++) {
      if (!ptNext[i]) { if (i === 0 || !ptNext[i - 1]) b.addPoint(i, ptLat[i], ptLon[i]); continue; }
      b.addBox(i, Math.min(ptLat[i], ptLat[i + 1]), Math.min(ptLon[i], ptLon[i + 1]), Math.max(ptLat[i], ptLat[i + 1]), Math.max(ptLon[i], ptLon[i + 1]));
    }
  });
  gridOver('gr', geo.rgLat.length, (b) => {
    for (let k = 0; k < geo.rangeCount; k++) for (let i = geo.rgPtOff[k]; i + 1 < geo.rgPtOff[k + 1]; i++) {
      b.addBox(i, Math.min(geo.rgLat[i], geo.rgLat[i + 1]), Math.min(geo.rgLon[i], geo.rgLon[i + 1]), Math.max(geo.rgLat[i], geo.rgLat[i + 1]), Math.max(geo.rgLon[i], geo.rgLon[i + 1]));
    }
  });
  const adapter = (x: { g: Grid; n: number }) => ({ nearest: (lat: number, lon: number, maxDist: number, dist: (i: number) => number) => x.g.nearest(lat, lon, maxDist, x.n, dist) });
  const before = Object.create(geo, {
    addrIndex: { value: adapter(grids.ga) }, segIndex: { value: adapter(grids.gs) }, rangeIndex: { value: adapter(grids.gr) },
  }) as GeocodeIndex;
  const oldGeocoder = new Geocoder(before);
  const newGeocoder = ds.geocoder!;
  const answer = (r: ReturnType<Geocoder['reverse']>) => (r === null ? 0 : Math.round(r.distance * 1000) + r.lat * 1e3 + (r.address.Street?.length ?? 0));
  const t = timeQueries(N, {
    before: (q) => answer(oldGeocoder.reverse(qlat[q], qlon[q])),
    now: (q) => answer(newGeocoder.reverse(qlat[q], qlon[q])),
  });
  fig.reverse = t[0].us / t[1].us;
  const need = `reverse(): Porto's geocoder end to end (${geo.addressCount} addresses, ${geo.ptLat.length.toLocaleString('en-US')} street points, ${geo.rangeCount} ranges)`;
  report(need, t[0], [
    { t: t[0], index: 'the three grids (before)', build: '—', bytes: '—' },
    { t: t[1], index: 'kdbush + flatbush (adopted)', build: '—', bytes: '—', kept: true },
  ]);
}

// ---------------------------------------------------------------------------------------------
// 3. the map's road index: the edges of map views

{
  const E = g.numEdges;
  const V = quick ? 1000 : 4000;
  const views: number[][] = [];
  const vr = new Rng(11);
  for (let i = 0; i < V; i++) {
    const p = vr.int(g.geomLat.length);
    const z = 11 + vr.int(7);
    const S = 256 * 2 ** z;
    const cx = mercatorX(g.geomLon[p]), cy = mercatorY(g.geomLat[p]);
    views.push([cx - 416 / S, cy - 316 / S, cx + 416 / S, cy + 316 / S]);
  }
  // every class: the zoom's class filter is the same loop after either index
  const all = () => true;
  const out = new Uint32Array(E);
  const grid = buildEdgeGridBaseline(g, mercatorY, ROAD_BOX_PAD);
  const rix = ds.roadIndex ?? RoadBoxIndex.of(g);
  const sorted = (n: number) => { out.subarray(0, n).sort(); let s = 0; for (let i = 0; i < n; i++) s += out[i] * (i + 1); return n + s; };
  const t = timeQueries(V, {
    grid: (i) => { const [a, b, c, d] = views[i]; return sorted(selectBaseline(grid, a, b, c, d, all, out)); },
    flatbush: (i) => {
      const [a, b, c, d] = views[i];
      const hits = rix.search(a, b, c, d);
      let n = 0;
      for (let k = 0; k < hits.length; k++) out[n++] = hits[k];
      return sorted(n);
    },
  }, 50);
  fig.map = t[0].us / t[1].us;
  fig.mapGridBuild = timeBuild(() => buildEdgeGridBaseline(g, mercatorY, ROAD_BOX_PAD));
  fig.mapGridBytes = grid.byteLength;
  const need = `map: the edges (sorted) meeting 800×600 views, zoom 11–17 (${E.toLocaleString('en-US')} edges)`;
  report(need, t[0], [
    { t: t[0], index: 'uniform edge grid, built per graph and thread on first render (before)', build: fmtMs(timeBuild(() => buildEdgeGridBaseline(g, mercatorY, ROAD_BOX_PAD))), bytes: mib(grid.byteLength) },
    { t: t[1], index: 'flatbush R-tree, persisted (`r.rtree`; adopted)', build: `${fmtMs(timeBuild(() => RoadBoxIndex.build(g)))} (once, at dataset build)`, bytes: mib(rix.byteLength), kept: true },
  ]);
}

// ---------------------------------------------------------------------------------------------
// 4. region assignment (MultipleRegion: each stop to the region of its nearest vehicle)

{
  const J = quick ? 300 : 1000;
  const V = 20;
  const travel = new DatasetTravel(ds);
  const rr = new Rng(99);
  const places = [];
  const coords: { lat: number; lon: number }[] = [];
  while (places.length < J + V) {
    const p = rr.int(g.geomLat.length);
    const lat = g.geomLat[p] + (rr.next() - 0.5) * 0.002, lon = g.geomLon[p] + (rr.next() - 0.5) * 0.002;
    try { places.push(travel.place({ lat, lon }, 'p')); coords.push({ lat, lon }); } catch { /* not placed */ }
  }
  const m = await travel.matrix(places, { metric: 'time' });
  const n = J + V;
  const input = (): VrpInput => ({
    places: n, time: m.timeS,
    stops: Array.from({ length: J }, (_, i) => ({ place: i })),
    vehicles: Array.from({ length: V }, (_, v) => ({ start: J + v })),
  });
  const byTime = assignRegions(input(), 'nearest'); // region = the nearest vehicle's start place (all distinct here)
  // the lookup itself: each stop's nearest vehicle start by travel time, a scan of the matrix's column
  const scan = () => Array.from({ length: J }, (_, i) => {
    let best = -1, bestT = Infinity;
    for (let v = 0; v < V; v++) { const x = m.timeS[(J + v) * n + i]; if (x < bestT) { bestT = x; best = J + v; } }
    return best;
  });
  const scanned = scan();
  if (scanned.some((r, i) => r !== byTime[i])) throw new Error('the scan disagrees with assignRegions');
  const tMatrix = timeBuild(scan, quick ? 5 : 21) * 1000 / J;
  const tAssign = timeBuild(() => assignRegions(input(), 'nearest'), quick ? 5 : 21) * 1000 / J;
  let tGeo = NaN;
  let differ = NaN;
  if (around) {
    const ar = around;
    const kd = new KDBush(V, 16, Float64Array);
    for (let v = 0; v < V; v++) kd.add(coords[J + v].lon, coords[J + v].lat);
    kd.finish();
    const geoRegion = () => Array.from({ length: J }, (_, i) => J + ar(kd, coords[i].lon, coords[i].lat, 1)[0]);
    const byDist = geoRegion();
    differ = byDist.filter((r, i) => r !== byTime[i]).length / J;
    tGeo = timeBuild(geoRegion, quick ? 5 : 21) * 1000 / J;
  }
  const need = `regions: a stop's nearest of ${V} vehicles (${J} stops)`;
  rows.push([need, '**travel-time scan of the dispatch\'s matrix (hand-written, kept)**', '—', '—', `**${us(tMatrix)}**`, '1', 'same']);
  fig.regionsGeo = tGeo / tMatrix;
  fig.regionsDiffer = differ;
  if (around) rows.push([need, 'geokdbush `around` over the vehicles (great circle)', '—', '—', us(tGeo), (tGeo / tMatrix).toFixed(2), `no: ${(differ * 100).toFixed(1)} % of stops change region`]);
  notes.push(`Regions: the whole MultipleRegion assignment (skills included) takes ${us(tAssign)} µs per stop; a spatial index could only answer "nearest by distance", a different question (${around ? `${(differ * 100).toFixed(1)} % of stops would change region on Porto` : 'geokdbush not installed'}), so the matrix scan stays.`);
}

// ---------------------------------------------------------------------------------------------

const body = [
  table(['need', 'index', 'build ms', 'bytes', 'query µs (median)', '× the first row', 'answers'], rows),
  '',
  `Porto (\`bench/out/porto.dkds\`), ${N.toLocaleString('en-US')} query points (half within ~300 m of a road, half anywhere in the extract's box), seed 20261126; `
  + `every implementation runs every query in blocks, interleaved block by block over ${ROUNDS} rounds; µs per query is the median of the block means, and "× the first row" `
  + 'is a ratio measured in the same run. Bold: what the engine uses. "same": the answers (distances to 1 mm) agree with the first row on every query. '
  + 'Build: median of repeated builds in this process; bytes: the index as persisted (the grid: its keys, offsets and items; the edge grid: its boxes too).',
  '',
  `- **Kept hand-written**: (1) the snapper's best-first walk over its flatbush arrays (the R-tree itself is flatbush, persisted as \`s.rtree\` since before): Flatbush's own \`neighbors\` orders by box distance in degrees; made exact it takes ${fig.snapNeighbors.toFixed(2)}× the walk's time, a \`search\` of the radius' box ${fig.snapSearch.toFixed(0)}×. Its items are chunks of up to ${SNAP_CHUNK} consecutive segments of one edge (snap format v2, issue #26 item 4), the leaves measured segment by segment: the same answers as one item per segment in ${(1 / fig.snapSingle).toFixed(2)}× its time, with ${(fig.snapBytes * 100).toFixed(0)} % of its bytes (it was the largest part of the dataset a dispatch reads). `
  + `(2) Region assignment: it asks which vehicle is nearest by travel time, which the dispatch's matrix answers in a scan; geokdbush answers nearest by distance, ${around ? `${fig.regionsGeo.toFixed(1)}× slower and a different region for ${(fig.regionsDiffer * 100).toFixed(0)} % of the stops` : 'a different question'}.`,
  `- **Adopted**: kdbush for the geocoder's address points (\`geo.ga.kd\`: ${fig.pointGrid.toFixed(1)}× faster than the grid), flatbush for its street and range segments (\`geo.gs.fb\`, \`geo.gr.fb\`, searched by the walk of \`core/spatial.ts\`: ${fig.streetGrid.toFixed(1)}× faster than the grid; Flatbush's \`neighbors\` made exact takes ${fig.streetNeighbors.toFixed(1)}× the walk's time; the street index's items are runs of up to ${STREET_CHUNK} segments of a chain since geocode format v3, issue #26 item 4: ${(fig.streetChunkBytes * 100).toFixed(0)} % of the bytes of one item per segment, a query in ${(1 / fig.streetSingle).toFixed(2)}× its time, the same answers), `
  + `Porto's \`reverse()\` end to end ${fig.reverse.toFixed(1)}× faster; the price is memory: the street index takes ${fig.streetBytes.toFixed(1)}× the grid's bytes. `
  + `Flatbush for the map's road index (\`r.rtree\`, persisted: ${fig.map >= 1 ? `${fig.map.toFixed(2)}× faster per view, and ` : ''}no thread builds a ${mib(fig.mapGridBytes)} grid in ${fmtMs(fig.mapGridBuild)} ms on its first map any more). `
  + `geokdbush is adopted nowhere: every distance in the engine is the flat one around the query (its great-circle \`around\` takes ${around ? `${fig.pointGeo.toFixed(1)}×` : 'several times'} kdbush's \`range\` time on the address points: it allocates a queue per query).`,
  ...notes.map((x) => `- ${x}`),
].join('\n');
writeSection('spatial', 'Spatial indexes (bench/spatial.ts)', body);
console.log(body);
