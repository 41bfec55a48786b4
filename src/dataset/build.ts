/**
 * Building a dataset from an OSM extract: decode → road graph (car profile, restrictions, SCC)
 * → two contraction hierarchies (fastest and shortest; built side by side on the executor when
 * one is given) → snapping index → the map's road index → geocoder → customizable hierarchy →
 * landmarks → sections. Every phase is timed and reports progress.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { BinFile, BinWriter } from '../core/binfile.js';
import { throwIfAborted, type LongWorkOptions, type ProgressEvent } from '../core/cancel.js';
import { EngineError } from '../core/errors.js';
import { buildContractionHierarchy, ContractionHierarchy } from '../ch/index.js';
import { buildRoadGraph } from '../graph/build.js';
import type { RoadGraph } from '../graph/road-graph.js';
import { Snapper } from '../graph/snap.js';
import { RoadBoxIndex } from '../graph/road-index.js';
import { OsmPbfFile } from '../osm/pbf.js';
import { buildGeocodeIndexWithStats } from '../geocode/build.js';
import { PoiLayer } from './poi.js';
import { CchTopology } from '../ch/cch.js';
import type { Executor } from '../core/executor.js';
import '../ch/tasks.js';
import { DATASET_TAG, DATASET_VERSION, SECTION, type DatasetMeta } from './dataset.js';

export interface BuildDatasetOptions extends LongWorkOptions {
  /** Dataset name (default: the extract's file name without extension). */
  name?: string;
  /** Source file name recorded in the metadata. */
  sourceName?: string;
  /** Builds the two hierarchies in parallel on this executor (else one after the other, in this thread). */
  executor?: Executor;
  /** Build the geocoder index (default true). */
  geocode?: boolean;
  /** Text of a TIGER-style address-range CSV to add to the geocoder (house-number interpolation). */
  tigerCsv?: string;
}

export interface BuiltDataset {
  writer: BinWriter;
  meta: DatasetMeta;
}

export const ODBL_ATTRIBUTION = '© OpenStreetMap contributors, ODbL 1.0 (https://www.openstreetmap.org/copyright)';

const ENGINE_VERSION = '0.1.0';

/** Builds a dataset in memory from the bytes of an `.osm.pbf` extract. */
export async function buildDataset(pbf: Uint8Array, opts: BuildDatasetOptions = {}): Promise<BuiltDataset> {
  const timings: Record<string, number> = {};
  const progress = (e: ProgressEvent) => opts.onProgress?.(e);
  let t0 = performance.now();
  const mark = (phase: string) => {
    const t = performance.now();
    timings[phase] = Math.round(t - t0);
    t0 = t;
  };

  progress({ phase: 'decode', done: 0, total: 1 });
  const osm = new OsmPbfFile(pbf, { source: opts.sourceName });
  progress({ phase: 'decode', done: 1, total: 1 });
  mark('decode');

  const { graph, stats } = buildRoadGraph(osm, { signal: opts.signal, onProgress: opts.onProgress });
  if (graph.numNodes < 2) throw new EngineError('InvalidInput', 'The extract holds no drivable road network (fewer than two connected junctions).', { path: 'extract' });
  mark('graph');
  throwIfAborted(opts.signal);

  const t1 = performance.now();
  const [chTime, chDist] = await buildHierarchies(graph, opts);
  timings['ch'] = Math.round(performance.now() - t1);
  t0 = performance.now();
  throwIfAborted(opts.signal);

  progress({ phase: 'snap-index', done: 0, total: 1 });
  const snapper = Snapper.build(graph);
  progress({ phase: 'snap-index', done: 1, total: 1 });
  mark('snap-index');

  progress({ phase: 'road-index', done: 0, total: 1 });
  const roadIndex = RoadBoxIndex.build(graph);
  progress({ phase: 'road-index', done: 1, total: 1 });
  mark('road-index');

  let geocodeStats: Record<string, unknown> | undefined;
  let geocodeIndex: { toSections(w: BinWriter, prefix: string): void } | undefined;
  if (opts.geocode !== false) {
    const g = buildGeocodeIndexWithStats(osm, { signal: opts.signal, onProgress: opts.onProgress, tigerCsv: opts.tigerCsv });
    geocodeIndex = g.index;
    geocodeStats = g.stats as unknown as Record<string, unknown>;
    mark('geocode');
  }

  progress({ phase: 'cch', done: 0, total: 1 });
  const cch = CchTopology.build(graph);
  progress({ phase: 'cch', done: 1, total: 1 });
  mark('cch');

  progress({ phase: 'landmarks', done: 0, total: 1 });
  const landmarks = PoiLayer.fromOsm(osm);
  progress({ phase: 'landmarks', done: 1, total: 1 });
  mark('landmarks');

  const w = new BinWriter(DATASET_TAG, DATASET_VERSION);
  graph.toSections(w, SECTION.graph);
  chTime.toSections(w, SECTION.chTime);
  chDist.toSections(w, SECTION.chDist);
  snapper.toSections(w, SECTION.snap);
  roadIndex.toSections(w, SECTION.roads);
  geocodeIndex?.toSections(w, SECTION.geocode);
  landmarks.toSections(w, SECTION.poi);
  cch.toSections(w, SECTION.cch);
  mark('sections');

  const bb = graph.bbox();
  const meta: DatasetMeta = {
    name: opts.name ?? 'dataset',
    source: {
      file: opts.sourceName ?? '(memory)',
      bytes: pbf.byteLength,
      bbox: osm.header.bbox,
      writingProgram: osm.header.writingProgram,
      replicationTimestamp: osm.header.replicationTimestamp,
    },
    createdAt: new Date().toISOString(),
    engineVersion: ENGINE_VERSION,
    profile: 'car',
    attribution: ODBL_ATTRIBUTION,
    counts: { nodes: graph.numNodes, arcs: graph.numArcs, edges: graph.numEdges, chTimeArcs: chTime.numArcs, chDistArcs: chDist.numArcs, cchArcs: cch.numArcs, ...(geocodeStats ? { geocodeAddresses: Number(geocodeStats.addresses ?? 0), geocodeStreets: Number(geocodeStats.streets ?? 0) } : {}), landmarks: landmarks.size },
    bbox: bb,
    timingsMs: timings,
    stats: { graph: stats as unknown as Record<string, unknown>, ...(geocodeStats ? { geocode: geocodeStats } : {}) },
  };
  w.addJson(SECTION.meta, meta);
  return { writer: w, meta };
}

/** Reads an extract, builds its dataset and writes it atomically to `outPath`. */
export async function buildDatasetFile(extractPath: string, outPath: string, opts: BuildDatasetOptions = {}): Promise<{ meta: DatasetMeta; bytes: number; totalMs: number }> {
  const t = performance.now();
  let pbf: Uint8Array;
  try {
    if (!statSync(extractPath).isFile()) throw new EngineError('InvalidInput', 'not a file');
    pbf = readFileSync(extractPath);
  } catch {
    throw new EngineError('InvalidInput', `Cannot read the extract "${extractPath}".`, { path: 'extract' });
  }
  const name = opts.name ?? basename(extractPath).replace(/\.osm\.pbf$|\.pbf$/i, '');
  const { writer, meta } = await buildDataset(pbf, { ...opts, name, sourceName: basename(extractPath) });
  const tw = performance.now();
  const bytes = writer.writeFile(outPath);
  meta.timingsMs.write = Math.round(performance.now() - tw);
  return { meta, bytes, totalMs: Math.round(performance.now() - t) };
}

/** The fastest-path (time, aux length) and shortest-path (length, aux time) hierarchies. */
async function buildHierarchies(graph: RoadGraph, opts: BuildDatasetOptions): Promise<[ContractionHierarchy, ContractionHierarchy]> {
  const base = { numNodes: graph.numNodes, tail: graph.tail, head: graph.head };
  const ex = opts.executor;
  if (!ex || !ex.offThread || ex.threads < 2) {
    const chTime = buildContractionHierarchy({ ...base, weight: graph.timeMs, aux: graph.lengthCm }, { signal: opts.signal, onProgress: relabel(opts, 'ch-time') });
    const chDist = buildContractionHierarchy({ ...base, weight: graph.lengthCm, aux: graph.timeMs }, { signal: opts.signal, onProgress: relabel(opts, 'ch-distance') });
    return [chTime, chDist];
  }
  const one = async (phase: string, weight: Uint32Array, aux: Uint32Array): Promise<ContractionHierarchy> => {
    const r = await ex.run('ch-build', { ...base, weight, aux, phase }, { signal: opts.signal, onProgress: opts.onProgress });
    return ContractionHierarchy.fromSections(BinFile.from(r.buffer), '');
  };
  return Promise.all([one('ch-time', graph.timeMs, graph.lengthCm), one('ch-distance', graph.lengthCm, graph.timeMs)]);
}

function relabel(opts: LongWorkOptions, phase: string): ((e: ProgressEvent) => void) | undefined {
  const cb = opts.onProgress;
  return cb ? (e) => cb({ ...e, phase }) : undefined;
}
