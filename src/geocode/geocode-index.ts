/**
 * The persisted geocode index: flat typed arrays and UTF-8 string pools (see build.ts for what
 * they hold). `toSections(w, prefix)` writes them into a dataset; `fromSections(f, prefix)`
 * reopens them as zero-copy views (no parsing: strings decode lazily on first use).
 */
import type { BinFile, BinWriter, TypedArray } from '../core/binfile.js';
import { EngineError } from '../core/errors.js';
import { mapReader, StringPool, type SectionReader, type Sections } from './sections.js';
import { TrigramIndex } from './fuzzy.js';
import { PointIndex, SegmentIndex, type Nearest } from './spatial.js';

/**
 * v2: the spatial indexes are kdbush / flatbush (`ga.kd`, `gs.fb` + `gs.id`, `gr.fb` + `gr.id`), no longer grids.
 * v3: the street index's items are chunks of up to {@link STREET_CHUNK} segments of a chain (`gs.id`: where each starts).
 */
export const FORMAT_VERSION = 3;

/**
 * Segments per item of the street index (`gs`), at most: an item is a lone street point or a run
 * of up to this many consecutive segments of one chain, measured segment by segment — a third of
 * the bytes of one item per segment on Porto for the same answers (issue #26 item 4).
 */
export const STREET_CHUNK = 8;

/**
 * The segments of the street-index item starting at point `i`: `[i, end)` — segment j runs from
 * point j to j + 1 — or, for a lone point (`ptNext[i]` 0), `[i, i + 1)` standing for the point.
 */
export function streetChunkEnd(ptNext: ArrayLike<number>, i: number): number {
  if (!ptNext[i]) return i + 1;
  let j = i + 1;
  while (j < i + STREET_CHUNK && ptNext[j]) j++;
  return j;
}

export const PlaceRank = { Country: 1, State: 2, County: 3, City: 4, Suburb: 5, Hamlet: 6 } as const;
export const RangeSource = { Osm: 0, Tiger: 1 } as const;
/** Directional codes; index 0 = none. */
export const DIR_CODES = ['', 'n', 's', 'e', 'w', 'ne', 'nw', 'se', 'sw'];

/** Every section of the index with its element type. */
const LAYOUT: Record<string, { new (b: ArrayBufferLike, o: number, l: number): TypedArray; BYTES_PER_ELEMENT: number }> = {
  'meta': Float64Array,
  'st.name': Uint32Array, 'st.disp': Uint32Array, 'st.lat': Float64Array, 'st.lon': Float64Array, 'st.loc': Uint32Array, 'st.muni': Int32Array,
  'st.ao': Uint32Array, 'st.ro': Uint32Array, 'st.co': Uint32Array, 'st.pco': Uint32Array, 'st.pci': Int32Array,
  'ch.po': Uint32Array, 'pt.lat': Float64Array, 'pt.lon': Float64Array, 'pt.st': Uint32Array, 'pt.nx': Uint8Array,
  'ad.lat': Float64Array, 'ad.lon': Float64Array, 'ad.num': Uint32Array, 'ad.sfx': Uint32Array, 'ad.hn': Uint32Array, 'ad.pc': Int32Array,
  'ad.loc': Uint32Array, 'ad.ot': Uint8Array, 'ad.oid': Float64Array, 'ad.ch': Int32Array, 'ad.m': Float64Array, 'ad.off': Float32Array, 'ad.dist': Float32Array, 'ad.fl': Uint8Array,
  'rg.from': Int32Array, 'rg.to': Int32Array, 'rg.step': Uint8Array, 'rg.src': Uint8Array, 'rg.pc': Int32Array, 'rg.loc': Uint32Array,
  'rg.po': Uint32Array, 'rg.lat': Float64Array, 'rg.lon': Float64Array,
  'pl.name': Uint32Array, 'pl.lat': Float64Array, 'pl.lon': Float64Array, 'pl.rank': Uint8Array,
  'pk.key': Uint32Array, 'pk.po': Uint32Array, 'pk.pi': Uint32Array,
  'ls.o': Uint32Array, 'ls.i': Uint32Array,
  'pc.key': Uint32Array, 'pc.disp': Uint32Array, 'pc.lat': Float64Array, 'pc.lon': Float64Array, 'pc.rad': Float32Array, 'pc.loc': Uint32Array,
  'nm.core': Uint32Array, 'nm.ns': Uint32Array, 'nm.full': Uint32Array, 'nm.ph': Uint32Array, 'nm.type': Uint32Array, 'nm.tat': Uint8Array,
  'nm.pre': Uint8Array, 'nm.post': Uint8Array, 'nm.dig': Uint32Array, 'nm.words': Uint32Array, 'nm.so': Uint32Array, 'nm.pho': Uint32Array, 'nm.raw': Uint32Array,
  'tn.k': Float64Array, 'tn.o': Uint32Array, 'tn.i': Uint32Array, 'tn.n': Uint16Array,
  'tf.k': Float64Array, 'tf.o': Uint32Array, 'tf.i': Uint32Array, 'tf.n': Uint16Array,
  'tp.k': Float64Array, 'tp.o': Uint32Array, 'tp.i': Uint32Array, 'tp.n': Uint16Array,
  'ga.kd': Uint8Array, 'gs.fb': Uint8Array, 'gs.id': Uint32Array, 'gr.fb': Uint8Array, 'gr.id': Uint32Array, 'rg.pk': Uint32Array,
  'str.b': Uint8Array, 'str.o': Uint32Array, 'key.b': Uint8Array, 'key.o': Uint32Array,
  'pt.cls': Uint8Array,
};

/** Sections added after format v1 shipped: an index without them still opens (defaults: zeros). */
const OPTIONAL = new Set(['pt.cls']);

/**
 * Sections only forward geocoding (a text query) reads: the trigram indexes of names, whole names
 * and places, and the normalised keys. A dataset read on demand leaves them unread until the first
 * such query, so that reverse geocoding — a dispatch naming the stops it was given as coordinates —
 * does not take their memory (~1.2 MB on Porto; issue #26 item 4).
 */
const FORWARD_ONLY = /^(tn|tf|tp|key)\./;

/** A section left to its first use: how to read it, and its size meanwhile. */
export interface UnreadSection { read: () => TypedArray; bytes: number }

export class GeocodeIndex {
  // streets
  readonly stName: Uint32Array; readonly stDisp: Uint32Array; readonly stLat: Float64Array; readonly stLon: Float64Array;
  readonly stLoc: Uint32Array; readonly stMuni: Int32Array; readonly stAddrOff: Uint32Array; readonly stRangeOff: Uint32Array;
  readonly stChainOff: Uint32Array; readonly stPcOff: Uint32Array; readonly stPcIds: Int32Array;
  // chains and their points
  readonly chainOff: Uint32Array; readonly ptLat: Float64Array; readonly ptLon: Float64Array; readonly ptStreet: Uint32Array; readonly ptNext: Uint8Array;
  /** WayClass bits (extract.ts) of segment i → i + 1: tunnel, covered, motorway, link, path. */
  readonly ptClass: Uint8Array;
  // address points
  readonly adLat: Float64Array; readonly adLon: Float64Array; readonly adNum: Uint32Array; readonly adSfx: Uint32Array; readonly adHn: Uint32Array;
  readonly adPc: Int32Array; readonly adLoc: Uint32Array; readonly adOt: Uint8Array; readonly adOid: Float64Array;
  readonly adChain: Int32Array; readonly adMeasure: Float64Array; readonly adOffset: Float32Array; readonly adDist: Float32Array;
  /** Address flags: bit 0 = street inferred from the nearest highway (no addr:street). */
  readonly adFlags: Uint8Array;
  // ranges
  readonly rgFrom: Int32Array; readonly rgTo: Int32Array; readonly rgStep: Uint8Array; readonly rgSrc: Uint8Array; readonly rgPc: Int32Array;
  readonly rgLoc: Uint32Array; readonly rgPtOff: Uint32Array; readonly rgLat: Float64Array; readonly rgLon: Float64Array;
  // places, place keys, locality sets
  readonly plName: Uint32Array; readonly plLat: Float64Array; readonly plLon: Float64Array; readonly plRank: Uint8Array;
  readonly pkKey: Uint32Array; readonly pkOff: Uint32Array; readonly pkIds: Uint32Array;
  readonly lsOff: Uint32Array; readonly lsIds: Uint32Array;
  // postcodes
  readonly pcKey: Uint32Array; readonly pcDisp: Uint32Array; readonly pcLat: Float64Array; readonly pcLon: Float64Array; readonly pcRad: Float32Array; readonly pcLoc: Uint32Array;
  // street names
  readonly nmCore: Uint32Array; readonly nmNs: Uint32Array; readonly nmFull: Uint32Array; readonly nmPh: Uint32Array; readonly nmType: Uint32Array;
  readonly nmTypeAt: Uint8Array; readonly nmPre: Uint8Array; readonly nmPost: Uint8Array; readonly nmDigits: Uint32Array; readonly nmWords: Uint32Array;
  readonly nmStreetOff: Uint32Array; readonly nmPhOrder: Uint32Array; readonly nmRaw: Uint32Array;
  // lookup structures (the trigram indexes and `keys` built on first use: FORWARD_ONLY)
  get nameGrams(): TrigramIndex { return (this.lazy.nameGrams ??= this.later('tn', () => new TrigramIndex(this.reader, 'tn'))); }
  /** Trigrams of the whole names (type included). */
  get fullGrams(): TrigramIndex { return (this.lazy.fullGrams ??= this.later('tf', () => new TrigramIndex(this.reader, 'tf'))); }
  get placeGrams(): TrigramIndex { return (this.lazy.placeGrams ??= this.later('tp', () => new TrigramIndex(this.reader, 'tp'))); }
  /** Address points (items: address index). */
  readonly addrIndex: PointIndex;
  /**
   * Street segments and lone street points, in items of up to {@link STREET_CHUNK} segments of a
   * chain (item: the point where it starts); search it with {@link nearestStreet}.
   */
  readonly segIndex: SegmentIndex;
  /** Range segments (items: range point index i, segment i → i+1). */
  readonly rangeIndex: SegmentIndex;
  /** Range index of every range point. */
  readonly rgPtRange: Uint32Array;
  /** Display strings (street names, house numbers, place names, postcodes). */
  readonly strings: StringPool;
  /** Normalised keys. */
  get keys(): StringPool { return (this.lazy.keys ??= this.later('key', () => new StringPool(this.reader, 'key'))); }

  /**
   * A part built on first use from sections read then: what does not fit together is DatasetFormat
   * naming the sections (as when the whole index is opened at once), not an internal error.
   */
  private later<T>(name: string, make: () => T): T {
    try {
      return make();
    } catch (e) {
      if (e instanceof EngineError) throw e;
      throw new EngineError('DatasetFormat', `Geocode index sections "${name}.…" are damaged: ${e instanceof Error ? e.message : String(e)}.`, { cause: e });
    }
  }

  private readonly sections: Sections;
  private readonly reader: SectionReader;
  private readonly lazy: { nameGrams?: TrigramIndex; fullGrams?: TrigramIndex; placeGrams?: TrigramIndex; keys?: StringPool } = {};
  /** Sections not read yet (`unread` of the constructor): name → its reader and byte length. */
  private readonly unread: Map<string, UnreadSection>;

  /**
   * `unread`: sections to read when first asked for (a dataset read on demand, {@link fromSections});
   * each is kept in `sections` once read.
   */
  constructor(sections: Sections, unread: Map<string, UnreadSection> = new Map()) {
    this.sections = sections;
    this.unread = unread;
    const eager = mapReader(sections);
    const r: SectionReader = (this.reader = {
      get: (name, ctor) => {
        const later = unread.get(name);
        if (later) {
          sections.set(name, later.read());
          unread.delete(name);
        }
        return eager.get(name, ctor);
      },
    });
    const meta = r.get('meta', Float64Array);
    if (meta[0] !== FORMAT_VERSION) throw new EngineError('DatasetFormat', `Geocode index v${meta[0]}, this engine reads v${FORMAT_VERSION}.`);
    const U = Uint32Array, I = Int32Array, F = Float64Array, B = Uint8Array;
    this.stName = r.get('st.name', U); this.stDisp = r.get('st.disp', U); this.stLat = r.get('st.lat', F); this.stLon = r.get('st.lon', F);
    this.stLoc = r.get('st.loc', U); this.stMuni = r.get('st.muni', I); this.stAddrOff = r.get('st.ao', U); this.stRangeOff = r.get('st.ro', U);
    this.stChainOff = r.get('st.co', U); this.stPcOff = r.get('st.pco', U); this.stPcIds = r.get('st.pci', I);
    this.chainOff = r.get('ch.po', U); this.ptLat = r.get('pt.lat', F); this.ptLon = r.get('pt.lon', F); this.ptStreet = r.get('pt.st', U); this.ptNext = r.get('pt.nx', B);
    if (!sections.has('pt.cls')) sections.set('pt.cls', new Uint8Array(this.ptLat.length));
    this.ptClass = r.get('pt.cls', B);
    this.adLat = r.get('ad.lat', F); this.adLon = r.get('ad.lon', F); this.adNum = r.get('ad.num', U); this.adSfx = r.get('ad.sfx', U); this.adHn = r.get('ad.hn', U);
    this.adPc = r.get('ad.pc', I); this.adLoc = r.get('ad.loc', U); this.adOt = r.get('ad.ot', B); this.adOid = r.get('ad.oid', F);
    this.adChain = r.get('ad.ch', I); this.adMeasure = r.get('ad.m', F); this.adOffset = r.get('ad.off', Float32Array); this.adDist = r.get('ad.dist', Float32Array);
    this.adFlags = r.get('ad.fl', B);
    this.rgFrom = r.get('rg.from', I); this.rgTo = r.get('rg.to', I); this.rgStep = r.get('rg.step', B); this.rgSrc = r.get('rg.src', B); this.rgPc = r.get('rg.pc', I);
    this.rgLoc = r.get('rg.loc', U); this.rgPtOff = r.get('rg.po', U); this.rgLat = r.get('rg.lat', F); this.rgLon = r.get('rg.lon', F);
    this.plName = r.get('pl.name', U); this.plLat = r.get('pl.lat', F); this.plLon = r.get('pl.lon', F); this.plRank = r.get('pl.rank', B);
    this.pkKey = r.get('pk.key', U); this.pkOff = r.get('pk.po', U); this.pkIds = r.get('pk.pi', U);
    this.lsOff = r.get('ls.o', U); this.lsIds = r.get('ls.i', U);
    this.pcKey = r.get('pc.key', U); this.pcDisp = r.get('pc.disp', U); this.pcLat = r.get('pc.lat', F); this.pcLon = r.get('pc.lon', F);
    this.pcRad = r.get('pc.rad', Float32Array); this.pcLoc = r.get('pc.loc', U);
    this.nmCore = r.get('nm.core', U); this.nmNs = r.get('nm.ns', U); this.nmFull = r.get('nm.full', U); this.nmPh = r.get('nm.ph', U); this.nmType = r.get('nm.type', U);
    this.nmTypeAt = r.get('nm.tat', B); this.nmPre = r.get('nm.pre', B); this.nmPost = r.get('nm.post', B); this.nmDigits = r.get('nm.dig', U);
    this.nmWords = r.get('nm.words', U); this.nmStreetOff = r.get('nm.so', U); this.nmPhOrder = r.get('nm.pho', U); this.nmRaw = r.get('nm.raw', U);
    this.addrIndex = new PointIndex(r, 'ga');
    this.segIndex = new SegmentIndex(r, 'gs');
    this.rangeIndex = new SegmentIndex(r, 'gr');
    if (this.addrIndex.size !== this.adLat.length) throw new EngineError('DatasetFormat', `Geocode address index holds ${this.addrIndex.size} points for ${this.adLat.length} addresses.`);
    this.rgPtRange = r.get('rg.pk', U);
    this.strings = new StringPool(r, 'str');
  }

  get addressCount(): number { return this.adLat.length; }
  get streetCount(): number { return this.stLat.length; }
  get nameCount(): number { return this.nmCore.length; }
  get placeCount(): number { return this.plLat.length; }
  get postcodeCount(): number { return this.pcLat.length; }
  get rangeCount(): number { return this.rgFrom.length; }

  /** Total bytes of all sections. */
  get byteLength(): number {
    let n = 0;
    for (const a of this.sections.values()) n += a.byteLength;
    for (const u of this.unread.values()) n += u.bytes;
    return n;
  }

  /** Reads now the sections left to their first use ({@link fromSections}). */
  readAll(): this {
    for (const [name, u] of this.unread) this.sections.set(name, u.read());
    this.unread.clear();
    return this;
  }

  /**
   * The street segment (i → i + 1, or the lone point i) minimising `dist(i)` (metres, at least the
   * flat distance to it) among those nearer than `maxDist`; of equal ones the first. Item: i.
   */
  nearestStreet(lat: number, lon: number, maxDist: number, dist: (i: number) => number): Nearest {
    const next = this.ptNext;
    const chunkDist = (c: number): number => {
      let best = Infinity;
      for (let j = c, end = streetChunkEnd(next, c); j < end; j++) { const d = dist(j); if (d < best) best = d; }
      return best;
    };
    const r = this.segIndex.nearest(lat, lon, maxDist, chunkDist);
    if (r.item < 0) return r;
    // the chunk's first segment at that distance
    for (let j = r.item, end = streetChunkEnd(next, r.item); j < end; j++) if (dist(j) === r.dist) return { item: j, dist: r.dist };
    return r;
  }

  /** Places of locality set `id`. */
  localitySet(id: number): Uint32Array {
    return this.lsIds.subarray(this.lsOff[id], this.lsOff[id + 1]);
  }

  /** Writes every section as `<prefix>.<name>`. */
  toSections(w: BinWriter, prefix: string): void {
    for (const name of Object.keys(LAYOUT)) {
      const a = this.sections.get(name) ?? this.unread.get(name)?.read();
      if (!a) throw new EngineError('Internal', `Geocode index lacks section ${name}`);
      w.add(`${prefix}.${name}`, a);
    }
  }

  /** Reopens an index written by {@link toSections}: views onto the file's buffer, nothing parsed. */
  static fromSections(f: BinFile, prefix: string): GeocodeIndex {
    const m: Sections = new Map();
    const unread = new Map<string, UnreadSection>();
    for (const [name, ctor] of Object.entries(LAYOUT)) {
      const section = `${prefix}.${name}`;
      if (OPTIONAL.has(name) && !f.has(section)) continue;
      if (f.readsOnDemand && FORWARD_ONLY.test(name) && f.has(section)) unread.set(name, { read: () => f.get(section, ctor as any), bytes: f.sectionBytes(section) });
      else m.set(name, f.get(section, ctor as any));
    }
    return new GeocodeIndex(m, unread);
  }

  /** True when the file holds a geocode index under `prefix`. */
  static has(f: BinFile, prefix: string): boolean {
    return f.has(`${prefix}.meta`);
  }
}
