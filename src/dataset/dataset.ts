/**
 * The dataset file (`*.dkds`): one buffer holding the road graph, a contraction hierarchy per
 * metric, the customizable hierarchy's topology, the snapping index, the map's road index and
 * (when built) the geocoder, as named typed-array sections with a
 * magic/version header (core/binfile.ts). Opening does not parse: every array is a view onto the
 * buffer, which is shared with worker threads as is. Opened from its file, the parts beyond the
 * routing core are read when first used (see the constructor).
 */
import { backingOf, BinFile } from '../core/binfile.js';
import { EngineError, isEngineError } from '../core/errors.js';
import { ContractionHierarchy } from '../ch/index.js';
import { RoadGraph } from '../graph/road-graph.js';
import { Snapper } from '../graph/snap.js';
import { RoadBoxIndex } from '../graph/road-index.js';
import { GeocodeIndex } from '../geocode/geocode-index.js';
import { Geocoder } from '../geocode/search.js';
import { PoiLayer } from './poi.js';
import { CchTopology } from '../ch/cch.js';

/** "DKDS" — the dataset kind inside the container. */
export const DATASET_TAG = 0x53444b44;
/**
 * v2 (issue #26): the geocoder's spatial indexes are kdbush / flatbush (geocode index format v2),
 * and the map's road index (`r.`) is persisted. v3 (issue #26 item 4): the snapping index and the
 * geocoder's street index hold chunks of segments (snap format v2, geocode index format v3).
 * Older files are refused when opened: rebuild them.
 */
export const DATASET_VERSION = 3;

export const SECTION = {
  meta: 'meta',
  graph: 'g.',
  chTime: 'cht.',
  chDist: 'chd.',
  snap: 's.',
  roads: 'r.',
  geocode: 'geo',
  poi: 'poi.',
  cch: 'cch.',
} as const;

export interface DatasetMeta {
  name: string;
  source: { file: string; bytes: number; bbox?: { left: number; right: number; top: number; bottom: number }; writingProgram?: string; replicationTimestamp?: number };
  createdAt: string;
  engineVersion: string;
  profile: 'car';
  attribution: string;
  counts: { nodes: number; arcs: number; edges: number; chTimeArcs: number; chDistArcs: number; geocodeAddresses?: number; geocodeStreets?: number; landmarks?: number; cchArcs?: number };
  bbox: { minLat: number; minLon: number; maxLat: number; maxLon: number };
  timingsMs: Record<string, number>;
  stats?: Record<string, unknown>;
}

export class Dataset {
  readonly meta: DatasetMeta;
  readonly graph: RoadGraph;
  readonly chTime: ContractionHierarchy;
  readonly snapper: Snapper;

  /**
   * The routing core (metadata, road graph, fastest-route hierarchy, snapping index) opens at
   * once. A dataset opened from a file ({@link open}) opens its other parts when first used, and
   * reads their sections only then (core/binfile.ts `openFile`): a process that never routes by
   * distance, never avoids zones or never draws a map holds none of those bytes, and damage in
   * such a part is reported (DatasetFormat, naming the section) when it is first used. A buffer
   * given whole opens every part at once.
   */
  private constructor(readonly file: BinFile, snapRadiusM?: number) {
    if (file.formatTag !== DATASET_TAG) throw file.error('this file is not a dispatchkit dataset (it holds another kind of data)', { offset: 8 });
    if (file.formatVersion !== DATASET_VERSION) {
      throw file.error(`dataset format v${file.formatVersion} cannot be read by this version (expects v${DATASET_VERSION}); rebuild it with \`dispatchkit build\``, { offset: 12 });
    }
    this.meta = load(file, 'metadata', SECTION.meta, () => checkMeta(file, file.json<DatasetMeta>(SECTION.meta)));
    this.graph = load(file, 'road graph', SECTION.graph, () => RoadGraph.fromSections(file, SECTION.graph));
    this.chTime = load(file, 'fastest-route hierarchy', SECTION.chTime, () => ContractionHierarchy.fromSections(file, SECTION.chTime));
    this.snapper = load(file, 'snapping index', SECTION.snap, () => Snapper.fromSections(file, SECTION.snap, this.graph));
    if (snapRadiusM !== undefined) this.snapper.radiusM = snapRadiusM;
    if (RoadBoxIndex.has(file, SECTION.roads)) RoadBoxIndex.attachFrom(this.graph, () => this.roadIndex);
    // a buffer given whole is in memory already: every part opens (and is checked) now
    if (!backingOf(file.buffer)) this.openAll();
  }

  /** Parts opened so far, and those that failed (the same error each time, not a new read). */
  private parts = new Map<string, { value: unknown } | { error: unknown }>();
  private part<T>(key: string, open: () => T): T {
    let p = this.parts.get(key);
    if (!p) {
      try {
        p = { value: open() };
      } catch (e) {
        p = { error: e };
      }
      this.parts.set(key, p);
    }
    if ('error' in p) throw p.error;
    return p.value as T;
  }

  /** A part the dataset may lack (null then): opened, checked and kept by {@link part}. */
  private optional<T>(what: string, prefix: string, has: boolean, open: () => T): T | null {
    return this.part(prefix, () => (has ? load(this.file, what, prefix, open) : null));
  }

  /** The shortest-route hierarchy. */
  get chDist(): ContractionHierarchy {
    return this.part(SECTION.chDist, () => load(this.file, 'shortest-route hierarchy', SECTION.chDist, () => ContractionHierarchy.fromSections(this.file, SECTION.chDist)));
  }

  /** The geocoder, when the dataset was built with one. */
  get geocoder(): Geocoder | null {
    const f = this.file;
    return this.optional('geocoder', SECTION.geocode, GeocodeIndex.has(f, SECTION.geocode), () => new Geocoder(GeocodeIndex.fromSections(f, SECTION.geocode)));
  }

  /** Named landmarks for directions' hints (null in datasets built before the layer). */
  get landmarks(): PoiLayer | null {
    const f = this.file;
    return this.optional('landmark layer', SECTION.poi, PoiLayer.has(f, SECTION.poi), () => PoiLayer.fromSections(f, SECTION.poi));
  }

  /** The customizable hierarchy's topology, for routing around no-go zones (null in datasets built before it). */
  get cch(): CchTopology | null {
    const f = this.file;
    return this.optional('customizable hierarchy', SECTION.cch, CchTopology.has(f, SECTION.cch), () => {
      const c = CchTopology.fromSections(f, SECTION.cch);
      if (c.arcOf.length !== this.graph.numArcs) throw f.error('the customizable hierarchy does not match the road graph', { section: `${SECTION.cch}arcOf` });
      return c;
    });
  }

  /**
   * The edges by web-mercator box for drawing maps, attached to {@link graph} (null in a dataset
   * written without it: the renderer then builds it on first use).
   */
  get roadIndex(): RoadBoxIndex | null {
    const f = this.file;
    return this.optional('road index', SECTION.roads, RoadBoxIndex.has(f, SECTION.roads), () => RoadBoxIndex.fromSections(f, SECTION.roads, this.graph));
  }

  /**
   * Opens every part now and reads the arrays the open parts leave to their first use (a buffer
   * given whole, or a caller that wants every section read and verified up front).
   */
  openAll(): this {
    void this.chDist; void this.geocoder; void this.landmarks; void this.cch; void this.roadIndex;
    this.graph.readAll();
    this.chTime.readAll();
    this.chDist.readAll();
    this.geocoder?.index.readAll();
    return this;
  }

  /**
   * Opens a dataset held in memory (e.g. a SharedArrayBuffer received by a worker); `source`
   * names it in errors. The section checksums are verified once per buffer object and thread
   * (`verify: 'once'`, the default); `verify: false` skips them for a buffer already verified
   * elsewhere (the main thread), `true` verifies again.
   */
  static fromBuffer(buf: ArrayBufferLike, opts: { snapRadiusM?: number; source?: string; verify?: boolean | 'once' } = {}): Dataset {
    return new Dataset(BinFile.from(buf, { source: opts.source, verify: opts.verify }), opts.snapRadiusM);
  }

  /**
   * Opens a dataset file: its routing core is read now, the other sections when first used, into
   * one shared buffer of the file's size (see the constructor).
   */
  static open(path: string, opts: { snapRadiusM?: number } = {}): Dataset {
    let f: BinFile;
    try {
      f = BinFile.openFile(path);
    } catch (e) {
      if (isEngineError(e)) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new EngineError('InvalidInput', `Dataset file not found: ${path}`, { path: 'dataset' });
      throw new EngineError('InvalidInput', `Cannot read the dataset file ${path}: ${code ?? (e as Error).message}.`, { path: 'dataset', cause: e });
    }
    return new Dataset(f, opts.snapRadiusM);
  }

  /**
   * The dataset's one buffer. Opened from a file, the sections of parts not used yet are zeros in
   * it until read: hand it to threads through the worker pool (workers/pool.ts passes the file's record
   * with it), or call {@link openAll} before copying it.
   */
  get buffer(): ArrayBufferLike {
    return this.file.buffer;
  }

  get byteLength(): number {
    return this.file.buffer.byteLength;
  }
}

/**
 * Opens one component. Its structural errors gain the file name and section prefix; anything
 * else thrown while opening (a RangeError from a view, an invariant check) can only come from
 * damaged data, so it becomes `DatasetFormat` too. Errors from BinFile already name the file.
 */
function load<T>(file: BinFile, what: string, prefix: string, open: () => T): T {
  try {
    return open();
  } catch (e) {
    if (isEngineError(e) && e.code === 'DatasetFormat' && e.details !== undefined && 'file' in e.details) throw e;
    // the file could not be read (I/O, closed, gone): not damage
    if (isEngineError(e) && e.code === 'InvalidInput' && e.path === 'dataset') throw e;
    const msg = e instanceof Error ? e.message : String(e);
    throw file.error(`the ${what} (sections "${prefix}…") is damaged: ${msg.replace(/\.$/, '')}`, { section: prefix }, e);
  }
}

/** The metadata fields the engine reads, checked for shape. */
function checkMeta(file: BinFile, m: DatasetMeta): DatasetMeta {
  const ok = m !== null && typeof m === 'object' && typeof m.name === 'string' && m.counts !== null && typeof m.counts === 'object'
    && m.bbox !== null && typeof m.bbox === 'object' && typeof m.attribution === 'string';
  if (!ok) throw file.error(`the metadata section "${SECTION.meta}" lacks its name, counts, bbox or attribution`, { section: SECTION.meta });
  return m;
}
