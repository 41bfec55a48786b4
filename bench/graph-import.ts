/**
 * Road-graph import benchmark: OSM PBF → car RoadGraph + Snapper, per phase, with peak RSS, graph
 * sizes, snap latency, persisted size and reload time.
 *
 *   node --import tsx bench/graph-import.ts
 *
 * Each dataset runs in its own child process so that peak RSS is per dataset. Porto comes from
 * ../shared/data (skipped, and said so, when absent).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { buildRoadGraph, type RoadGraphStats } from '../src/graph/build.js';
import { Snapper } from '../src/graph/snap.js';
import { RoadGraph } from '../src/graph/road-graph.js';
import { BinFile, BinWriter } from '../src/core/binfile.js';
import { Rng } from '../src/core/rng.js';
import { median, sharedData, table, writeSection } from './lib/report.js';

const here = fileURLToPath(import.meta.url);
const fixture = (f: string) => fileURLToPath(new URL(`../fixtures/${f}`, import.meta.url));

interface Result {
  name: string;
  bytes: number;
  stats: RoadGraphStats;
  importMs: number[];
  snapIndexMs: number[];
  peakRssMb: number;
  graphMb: number;
  sectionsBytes: number;
  reloadMs: number | null;
  reloadError?: string;
  snapNearUs: number;
  snapUniformUs: number;
  uniformFound: number;
  /** Near-road snaps, open roads first ÷ plain nearest, same run. */
  openFirstRatio: number;
  /** Share of near-road points whose snap moved off a covered road to an open one. */
  nearMoved: number;
}

function runOne(name: string, path: string): Result {
  const bytes = readFileSync(path);
  let peak = process.memoryUsage.rss();
  const sample = () => { const r = process.memoryUsage.rss(); if (r > peak) peak = r; };
  const importMs: number[] = [];
  const snapIndexMs: number[] = [];
  let graph!: RoadGraph;
  let stats!: RoadGraphStats;
  let snapper!: Snapper;
  for (let rep = 0; rep < 3; rep++) {
    const t0 = performance.now();
    const built = buildRoadGraph(bytes, { onProgress: sample });
    const t1 = performance.now();
    sample();
    const sn = Snapper.build(built.graph);
    const t2 = performance.now();
    sample();
    importMs.push(t1 - t0);
    snapIndexMs.push(t2 - t1);
    if (rep === 0) { graph = built.graph; stats = built.stats; snapper = sn; }
  }
  const peakRssMb = Math.max(peak, process.resourceUsage().maxRSS * 1024) / 2 ** 20;

  // Persistence.
  const w = new BinWriter(0x4b44, 1);
  graph.toSections(w, 'graph.');
  snapper.toSections(w, 'snap.');
  const sectionsBytes = w.byteLength();
  let reloadMs: number | null = null;
  let reloadError: string | undefined;
  try {
    const buf = w.toBuffer(true);
    const times: number[] = [];
    for (let i = 0; i < 21; i++) {
      const t = performance.now();
      const f = BinFile.from(buf);
      const g2 = RoadGraph.fromSections(f, 'graph.');
      Snapper.fromSections(f, 'snap.', g2);
      times.push(performance.now() - t);
    }
    reloadMs = median(times);
  } catch (e) {
    reloadError = (e as Error).message;
  }

  // Snap latency: points near roads (a random geometry point moved up to ~50 m) and uniform in the bbox.
  const rng = new Rng(12345);
  const N = 2000;
  const near = new Float64Array(2 * N);
  for (let i = 0; i < N; i++) {
    const p = rng.int(graph.geomLat.length);
    near[2 * i] = graph.geomLat[p] + (rng.next() - 0.5) * 0.0009;
    near[2 * i + 1] = graph.geomLon[p] + (rng.next() - 0.5) * 0.0012;
  }
  const bb = snapper.bbox();
  const uni = new Float64Array(2 * N);
  for (let i = 0; i < N; i++) {
    uni[2 * i] = bb.minLat + rng.next() * (bb.maxLat - bb.minLat);
    uni[2 * i + 1] = bb.minLon + rng.next() * (bb.maxLon - bb.minLon);
  }
  const timeSnaps = (pts: Float64Array, surfaceFirst = true): { us: number; found: number } => {
    const batches: number[] = [];
    let found = 0;
    const opts = { surfaceFirst };
    for (let b = 0; b < 25; b++) {
      found = 0;
      const t = performance.now();
      for (let i = 0; i < N; i++) if (snapper.trySnap(pts[2 * i], pts[2 * i + 1], opts) !== null) found++;
      batches.push(((performance.now() - t) * 1000) / N);
    }
    return { us: median(batches.slice(5)), found };
  };
  // Open roads first (the default) against the plain nearest road, interleaved in the same run.
  const nearPlain: number[] = [];
  const nearOpen: number[] = [];
  for (let k = 0; k < 3; k++) { nearPlain.push(timeSnaps(near, false).us); nearOpen.push(timeSnaps(near, true).us); }
  let moved = 0;
  for (let i = 0; i < N; i++) {
    const a = snapper.trySnap(near[2 * i], near[2 * i + 1], { surfaceFirst: false });
    const b = snapper.trySnap(near[2 * i], near[2 * i + 1]);
    if (a && b && a.edge !== b.edge) moved++;
  }
  const nearR = timeSnaps(near);
  const uniR = timeSnaps(uni);
  return {
    name, bytes: bytes.length, stats, importMs, snapIndexMs, peakRssMb, graphMb: graph.byteSize() / 2 ** 20, sectionsBytes,
    reloadMs, reloadError, snapNearUs: nearR.us, snapUniformUs: uniR.us, uniformFound: uniR.found / N,
    openFirstRatio: median(nearOpen) / median(nearPlain), nearMoved: moved / N,
  };
}

function main(): void {
  const datasets: { name: string; path: string | null }[] = [
    { name: 'monaco-latest', path: fixture('monaco-latest.osm.pbf') },
    { name: 'andorra', path: fixture('andorra.osm.pbf') },
    { name: 'porto', path: sharedData('osm/porto_portugal.osm.pbf') },
  ];
  const loadStart = loadavg()[0];
  const results: Result[] = [];
  const missing: string[] = [];
  for (const d of datasets) {
    if (!d.path) { missing.push(d.name); console.log(`${d.name}: shared data not found, skipped`); continue; }
    const out = execFileSync(process.execPath, ['--import', 'tsx', here, '--one', d.name, d.path], { encoding: 'utf8', maxBuffer: 1 << 26 });
    const r = JSON.parse(out.trim().split('\n').pop()!) as Result;
    results.push(r);
    console.log(`${r.name}: import ${median(r.importMs).toFixed(0)} ms + snap index ${median(r.snapIndexMs).toFixed(0)} ms, ${r.stats.numNodes} nodes / ${r.stats.numArcs} arcs, peak RSS ${r.peakRssMb.toFixed(0)} MB, snap ${r.snapNearUs.toFixed(2)} µs`);
  }
  const f0 = (x: number) => x.toFixed(0);
  const f1 = (x: number) => x.toFixed(1);
  const body = [
    'Import of an OSM PBF into the car `RoadGraph` (`buildRoadGraph`) plus the segment index (`Snapper.build`). ',
    'Times are medians of 3 runs in one process (ms); phases are from the first run. Peak RSS is the whole child process (Node baseline included). ',
    `1-min load average at start ${loadStart.toFixed(2)} (2 shared cores: expect ±20 % noise).`,
    '',
    table(
      ['dataset', 'PBF MB', 'import ms', 'ways', 'nodes', 'edges', 'restr.', 'SCC', 'finish', 'snap index ms', 'total ms', 'peak RSS MB'],
      results.map((r) => {
        const t = r.stats.timingsMs;
        return [r.name, f1(r.bytes / 2 ** 20), f0(median(r.importMs)), f0(t.ways), f0(t.nodes), f0(t.edges), f0(t.restrictions), f0(t.scc), f0(t.finish),
          f0(median(r.snapIndexMs)), f0(median(r.importMs) + median(r.snapIndexMs)), f0(r.peakRssMb)];
      }),
    ),
    '',
    table(
      ['dataset', 'road nodes', 'junctions', 'graph nodes', 'arcs', 'edges', 'geometry pts', 'restrictions applied / relations', 'split copies', 'largest SCC share', 'graph MB', 'sections MB', 'reload ms'],
      results.map((r) => {
        const s = r.stats;
        return [r.name, s.roadNodes, s.junctions, s.numNodes, s.numArcs, s.numEdges, s.geometryPoints, `${s.restrictions.applied} / ${s.restrictions.relations}`,
          s.splitNodesAdded, `${((100 * s.numNodes) / (s.numNodes + s.scc.droppedNodes)).toFixed(1)} %`, f1(r.graphMb), f1(r.sectionsBytes / 2 ** 20),
          r.reloadMs === null ? `failed: ${r.reloadError}` : r.reloadMs.toFixed(2)];
      }),
    ),
    '',
    table(
      ['dataset', 'snap µs (near roads)', 'snap µs (uniform in bbox, 1 km radius)', 'uniform points snapped', 'open roads first ÷ plain nearest (near roads, same run)', 'near-road points moved off a covered road'],
      results.map((r) => [r.name, r.snapNearUs.toFixed(2), r.snapUniformUs.toFixed(2), `${(100 * r.uniformFound).toFixed(0)} %`, `${r.openFirstRatio.toFixed(2)}×`, `${(100 * r.nearMoved).toFixed(1)} %`]),
    ),
    '',
    'Snap µs: median over batches of 2,000 calls of `trySnap` (default radius 1 km, open roads first); "near roads" = a random geometry point moved up to ~50 m.',
    'Open roads first (docs/road-graph.md): a covered road (tunnel, covered way, below ground) is taken only when no open road is within 100 m more; the ratio is the median of 3 interleaved timings of each; "moved" points are those whose nearest road is covered and an open road is within the margin — every other point snaps exactly as before.',
    missing.length ? `\nNot measured (shared data absent): ${missing.join(', ')}.` : '',
  ].join('\n');
  writeSection('graph-import', 'Road graph import (bench/graph-import.ts)', body);
  console.log('written to bench/README.md');
}

if (process.argv[2] === '--one') {
  const r = runOne(process.argv[3], process.argv[4]);
  process.stdout.write(JSON.stringify(r) + '\n');
} else {
  main();
}
