/**
 * The dataset file (`*.dkds`): one buffer holding the road graph, a contraction hierarchy per
 * metric, the snapping index and (when built) the geocoder, as named typed-array sections with a
 * magic/version header (core/binfile.ts). Opening does not parse: every array is a view onto the
 * buffer, which is shared with worker threads as is.
 */
import { BinFile } from '../core/binfile.js';
import { EngineError } from '../core/errors.js';
import { ContractionHierarchy } from '../ch/index.js';
import { RoadGraph } from '../graph/road-graph.js';
import { Snapper } from '../graph/snap.js';
import { GeocodeIndex } from '../geocode/geocode-index.js';
import { Geocoder } from '../geocode/search.js';

/** "DKDS" — the dataset kind inside the container. */
export const DATASET_TAG = 0x53444b44;
export const DATASET_VERSION = 1;

export const SECTION = {
  meta: 'meta',
  graph: 'g.',
  chTime: 'cht.',
  chDist: 'chd.',
  snap: 's.',
  geocode: 'geo',
} as const;

export interface DatasetMeta {
  name: string;
  source: { file: string; bytes: number; bbox?: { left: number; right: number; top: number; bottom: number }; writingProgram?: string; replicationTimestamp?: number };
  createdAt: string;
  engineVersion: string;
  profile: 'car';
  attribution: string;
  counts: { nodes: number; arcs: number; edges: number; chTimeArcs: number; chDistArcs: number; geocodeAddresses?: number; geocodeStreets?: number };
  bbox: { minLat: number; minLon: number; maxLat: number; maxLon: number };
  timingsMs: Record<string, number>;
  stats?: Record<string, unknown>;
}

export class Dataset {
  readonly meta: DatasetMeta;
  readonly graph: RoadGraph;
  readonly chTime: ContractionHierarchy;
  readonly chDist: ContractionHierarchy;
  readonly snapper: Snapper;
  /** The geocoder, when the dataset was built with one. */
  readonly geocoder: Geocoder | null;

  private constructor(readonly file: BinFile, snapRadiusM?: number) {
    if (file.formatTag !== DATASET_TAG) throw new EngineError('DatasetFormat', 'This file is not a dispatchkit dataset (it holds another kind of data).');
    if (file.formatVersion !== DATASET_VERSION) {
      throw new EngineError('DatasetFormat', `Dataset format v${file.formatVersion} cannot be read by this version (expects v${DATASET_VERSION}); rebuild it with \`dispatchkit build\`.`);
    }
    this.meta = file.json<DatasetMeta>(SECTION.meta);
    this.graph = RoadGraph.fromSections(file, SECTION.graph);
    this.chTime = ContractionHierarchy.fromSections(file, SECTION.chTime);
    this.chDist = ContractionHierarchy.fromSections(file, SECTION.chDist);
    this.snapper = Snapper.fromSections(file, SECTION.snap, this.graph);
    if (snapRadiusM !== undefined) this.snapper.radiusM = snapRadiusM;
    this.geocoder = GeocodeIndex.has(file, SECTION.geocode) ? new Geocoder(GeocodeIndex.fromSections(file, SECTION.geocode)) : null;
  }

  /** Opens a dataset held in memory (e.g. a SharedArrayBuffer received by a worker). */
  static fromBuffer(buf: ArrayBufferLike, opts: { snapRadiusM?: number } = {}): Dataset {
    return new Dataset(BinFile.from(buf), opts.snapRadiusM);
  }

  /** Reads a dataset file into shared memory and opens it. */
  static open(path: string, opts: { snapRadiusM?: number } = {}): Dataset {
    let f: BinFile;
    try {
      f = BinFile.readFile(path, true);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new EngineError('InvalidInput', `Dataset file not found: ${path}`, { path: 'dataset' });
      throw e;
    }
    return new Dataset(f, opts.snapRadiusM);
  }

  get buffer(): ArrayBufferLike {
    return this.file.buffer;
  }

  get byteLength(): number {
    return this.file.buffer.byteLength;
  }
}
