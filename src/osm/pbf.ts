/**
 * OpenStreetMap PBF decoder: walks the file's blobs, inflates them with node's zlib, and calls
 * handlers for nodes, ways and relations. No per-element objects are created for untagged nodes.
 *
 * Usage is callback-based so that importers can make several passes (e.g. ways first to learn
 * which nodes matter, then nodes) without holding the whole file decoded in memory. Blobs that
 * hold no element of a requested kind are skipped on later passes without inflating them.
 */
import { inflateSync } from 'node:zlib';
import { EngineError } from '../core/errors.js';
import { throwIfAborted, throttleProgress, type LongWorkOptions } from '../core/cancel.js';
import { PbfFormatError, PbfReader } from './protobuf.js';

export type Tags = Record<string, string>;

export const enum MemberType { Node = 0, Way = 1, Relation = 2 }

export interface RelationMember {
  type: MemberType;
  ref: number;
  role: string;
}

export interface OsmHandlers {
  /** Called for every node; `tags` is null for untagged nodes (the common case). */
  node?(id: number, lat: number, lon: number, tags: Tags | null): void;
  /** `refs` is only valid during the call (a reused buffer); copy what you keep. */
  way?(id: number, refs: Float64Array, refCount: number, tags: Tags): void;
  relation?(id: number, members: RelationMember[], tags: Tags): void;
}

export interface OsmHeader {
  bbox?: { left: number; right: number; top: number; bottom: number };
  requiredFeatures: string[];
  optionalFeatures: string[];
  writingProgram?: string;
  replicationTimestamp?: number;
}

const KIND_NODES = 1;
const KIND_WAYS = 2;
const KIND_RELATIONS = 4;

interface BlobRef {
  /** Byte offset of the blob in the file (its 4-byte header length), for error messages. */
  at: number;
  start: number;
  end: number;
  /** Bitmask of element kinds seen in the blob once it has been decoded (0 = unknown yet). */
  kinds: number;
}

export interface OsmPbfOptions {
  /** Name of the file the bytes come from, used in error messages (default: "the extract"). */
  source?: string;
}

const SUPPORTED_FEATURES = new Set(['OsmSchema-V0.6', 'DenseNodes', 'HistoricalInformation']);
/** Format limits: a BlobHeader must be shorter than 64 KiB, a blob (packed or raw) shorter than 32 MiB. */
const MAX_BLOB_HEADER_BYTES = 64 * 1024;
const MAX_BLOB_BYTES = 32 * 1024 * 1024;
const utf8 = new TextDecoder('utf-8');

/**
 * An OSM PBF file. Every way a damaged file can fail (truncated, garbage, a damaged blob header,
 * corrupt zlib data, an unknown blob type, lengths out of range, malformed blocks) is an
 * `InvalidInput` EngineError (path `extract`) naming the file and the byte offset; compression
 * schemes and required features this decoder lacks are `Unsupported`.
 */
export class OsmPbfFile {
  readonly header: OsmHeader;
  /** The file name given in the options (error messages only). */
  readonly source: string | undefined;
  private readonly blobs: BlobRef[] = [];

  constructor(private readonly data: Uint8Array, opts: OsmPbfOptions = {}) {
    this.source = opts.source;
    if (data.length === 0) throw this.corrupt(0, 'the file is empty');
    let header: OsmHeader | undefined;
    let pos = 0;
    const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
    while (pos < data.length) {
      const at = pos;
      if (pos + 4 > data.length) throw this.corrupt(at, `truncated: the file ends inside a blob header length (${data.length - pos} of 4 bytes)`);
      const hlen = dv.getUint32(pos, false);
      pos += 4;
      if (hlen === 0 || hlen > MAX_BLOB_HEADER_BYTES) {
        throw this.corrupt(at, `${at === 0 ? 'not an OSM PBF file, or a damaged one: ' : ''}blob header length ${hlen} is out of range (1 to ${MAX_BLOB_HEADER_BYTES} bytes)`);
      }
      if (hlen > data.length - pos) throw this.corrupt(at, `truncated: the blob header needs ${hlen} bytes, ${data.length - pos} remain`);
      let type: string | null = null;
      let datasize = -1;
      try {
        const r = new PbfReader(data, pos, pos + hlen);
        for (let k = r.key(); k >= 0; k = r.key()) {
          const f = k >>> 3;
          if (f === 1 && (k & 7) === 2) { const [s, e] = r.bytes(); type = utf8.decode(data.subarray(s, e)); }
          else if (f === 3 && (k & 7) === 0) datasize = r.varint();
          else if (f === 1 || f === 3) throw new PbfFormatError(`field ${f} has wire type ${k & 7}`, r.pos - 1);
          else r.skip(k & 7);
        }
      } catch (e) {
        if (e instanceof PbfFormatError) throw this.corrupt(e.offset, `damaged blob header (${e.what})`, e);
        throw e;
      }
      pos += hlen;
      if (type === null) throw this.corrupt(at, 'the blob header has no type');
      if (datasize < 0 || datasize > MAX_BLOB_BYTES) throw this.corrupt(at, `blob data size ${datasize} is out of range (0 to ${MAX_BLOB_BYTES} bytes)`);
      if (datasize > data.length - pos) throw this.corrupt(at, `truncated: the blob needs ${datasize} bytes of data, ${data.length - pos} remain`);
      const expected = header === undefined ? 'OSMHeader' : 'OSMData';
      if (type !== expected) {
        throw this.corrupt(at, `blob type "${type.slice(0, 40)}" where an ${expected} blob belongs (the first blob is OSMHeader, all others OSMData)`);
      }
      if (header === undefined) header = this.decodeHeader(this.inflate(at, pos, pos + datasize), at);
      else this.blobs.push({ at, start: pos, end: pos + datasize, kinds: 0 });
      pos += datasize;
    }
    if (!header) throw this.corrupt(0, 'no OSMHeader blob');
    for (const f of header.requiredFeatures) {
      if (!SUPPORTED_FEATURES.has(f)) throw new EngineError('Unsupported', `The OSM PBF file ${this.source === undefined ? '' : `"${this.source}" `}requires the unsupported feature "${f}".`, { path: 'extract', details: { file: this.source } });
    }
    this.header = header;
  }

  get blobCount(): number {
    return this.blobs.length;
  }

  /** Decodes every data blob (skipping those known to lack the requested kinds) and calls the handlers. */
  read(h: OsmHandlers, opts: LongWorkOptions & { phase?: string } = {}): void {
    const want = (h.node ? KIND_NODES : 0) | (h.way ? KIND_WAYS : 0) | (h.relation ? KIND_RELATIONS : 0);
    const progress = throttleProgress(opts.onProgress);
    const phase = opts.phase ?? 'read-osm';
    const refs = { buf: new Float64Array(1024) };
    for (let i = 0; i < this.blobs.length; i++) {
      const b = this.blobs[i];
      if (b.kinds !== 0 && (b.kinds & want) === 0) continue;
      if ((i & 15) === 0) throwIfAborted(opts.signal);
      const block = this.inflate(b.at, b.start, b.end);
      try {
        b.kinds = this.decodeBlock(block, h, refs);
      } catch (e) {
        // Only the reader's own errors mean a damaged block; the handlers' errors pass through.
        if (e instanceof PbfFormatError) throw this.corrupt(b.at, `malformed OSMData block (${e.what} at byte ${e.offset} of the uncompressed block)`, e);
        throw e;
      }
      progress({ phase, done: i + 1, total: this.blobs.length });
    }
    progress({ phase, done: this.blobs.length, total: this.blobs.length }, true);
  }

  /** The file as messages name it: its quoted name, or "the extract". */
  private describe(): string {
    return this.source === undefined ? 'the extract' : `"${this.source}"`;
  }

  /** The error for damaged data at a file offset. */
  private corrupt(offset: number, what: string, cause?: unknown): EngineError {
    return new EngineError('InvalidInput', `Corrupt OSM PBF file: ${what}, at byte offset ${offset} of ${this.describe()}.`, {
      path: 'extract',
      details: { file: this.source, offset },
      cause,
    });
  }

  /** The uncompressed content of the blob whose data (a Blob message) is `data[start, end)`. */
  private inflate(at: number, start: number, end: number): Uint8Array {
    let raw: [number, number] | null = null;
    let zlib: [number, number] | null = null;
    let rawSize = -1;
    try {
      const r = new PbfReader(this.data, start, end);
      for (let k = r.key(); k >= 0; k = r.key()) {
        const f = k >>> 3;
        const wt = k & 7;
        if (f === 1 && wt === 2) raw = r.bytes();
        else if (f === 2 && wt === 0) rawSize = r.varint();
        else if (f === 3 && wt === 2) zlib = r.bytes();
        else if (f >= 4 && f <= 7 && wt === 2) {
          throw new EngineError('Unsupported', `OSM PBF blob at byte offset ${at} of ${this.describe()} uses an unsupported compression (only zlib and raw are supported).`, { path: 'extract' });
        } else if (f >= 1 && f <= 7) throw new PbfFormatError(`field ${f} has wire type ${wt}`, r.pos - 1);
        else r.skip(wt);
      }
    } catch (e) {
      if (e instanceof PbfFormatError) throw this.corrupt(e.offset, `damaged blob (${e.what})`, e);
      throw e;
    }
    if (raw) {
      if (raw[1] - raw[0] > MAX_BLOB_BYTES) throw this.corrupt(at, `raw blob of ${raw[1] - raw[0]} bytes exceeds ${MAX_BLOB_BYTES} bytes`);
      return this.data.subarray(raw[0], raw[1]);
    }
    if (zlib) {
      if (rawSize > MAX_BLOB_BYTES) throw this.corrupt(at, `uncompressed blob size ${rawSize} exceeds ${MAX_BLOB_BYTES} bytes`);
      let out: Uint8Array;
      try {
        // Bounded output: a damaged stream cannot inflate past the size the blob declares.
        out = inflateSync(this.data.subarray(zlib[0], zlib[1]), { maxOutputLength: rawSize > 0 ? rawSize : rawSize === 0 ? 1 : MAX_BLOB_BYTES });
      } catch (e) {
        throw this.corrupt(at, `the blob's zlib data is corrupt (${(e as Error).message})`, e);
      }
      if (rawSize >= 0 && out.length !== rawSize) throw this.corrupt(at, `the blob inflates to ${out.length} bytes, its header says ${rawSize}`);
      return out;
    }
    throw this.corrupt(at, 'the blob holds no data (neither raw nor zlib)');
  }

  private decodeHeader(buf: Uint8Array, at: number): OsmHeader {
    try {
      return decodeHeaderBlock(buf);
    } catch (e) {
      if (e instanceof PbfFormatError) throw this.corrupt(at, `malformed OSMHeader block (${e.what} at byte ${e.offset} of the uncompressed block)`, e);
      throw e;
    }
  }

  private decodeBlock(buf: Uint8Array, h: OsmHandlers, refs: { buf: Float64Array }): number {
    const r = new PbfReader(buf);
    let strings: string[] = [];
    const groups: [number, number][] = [];
    let granularity = 100;
    let latOffset = 0;
    let lonOffset = 0;
    for (let k = r.key(); k >= 0; k = r.key()) {
      const f = k >>> 3;
      if (f === 1) strings = decodeStringTable(buf, ...r.bytes());
      else if (f === 2) groups.push(r.bytes());
      else if (f === 17) granularity = r.varint();
      else if (f === 19) latOffset = r.varint();
      else if (f === 20) lonOffset = r.varint();
      else r.skip(k & 7);
    }
    const scale = { granularity, latOffset, lonOffset };
    let kinds = 0;
    for (const [gs, ge] of groups) {
      const g = new PbfReader(buf, gs, ge);
      for (let k = g.key(); k >= 0; k = g.key()) {
        const f = k >>> 3;
        if (f === 1) { kinds |= KIND_NODES; const [s, e] = g.bytes(); if (h.node) decodeNode(buf, s, e, strings, scale, h); }
        else if (f === 2) { kinds |= KIND_NODES; const [s, e] = g.bytes(); if (h.node) decodeDense(buf, s, e, strings, scale, h); }
        else if (f === 3) { kinds |= KIND_WAYS; const [s, e] = g.bytes(); if (h.way) decodeWay(buf, s, e, strings, h, refs); }
        else if (f === 4) { kinds |= KIND_RELATIONS; const [s, e] = g.bytes(); if (h.relation) decodeRelation(buf, s, e, strings, h); }
        else g.skip(k & 7);
      }
    }
    return kinds === 0 ? 8 : kinds; // 8 = "decoded, holds nothing we know"
  }
}

/** Convenience: decode a whole file with one set of handlers. */
export function readOsmPbf(data: Uint8Array, h: OsmHandlers, opts?: LongWorkOptions & OsmPbfOptions): OsmHeader {
  const f = new OsmPbfFile(data, { source: opts?.source });
  f.read(h, opts);
  return f.header;
}

function decodeHeaderBlock(buf: Uint8Array): OsmHeader {
  const r = new PbfReader(buf);
  const h: OsmHeader = { requiredFeatures: [], optionalFeatures: [] };
  for (let k = r.key(); k >= 0; k = r.key()) {
    const f = k >>> 3;
    if (f === 1) {
      const [s, e] = r.bytes();
      const br = new PbfReader(buf, s, e);
      const bb = { left: 0, right: 0, top: 0, bottom: 0 };
      for (let k2 = br.key(); k2 >= 0; k2 = br.key()) {
        const v = br.svarint() * 1e-9;
        switch (k2 >>> 3) { case 1: bb.left = v; break; case 2: bb.right = v; break; case 3: bb.top = v; break; case 4: bb.bottom = v; break; }
      }
      h.bbox = bb;
    } else if (f === 4 || f === 5 || f === 16) {
      const [s, e] = r.bytes();
      const str = utf8.decode(buf.subarray(s, e));
      if (f === 4) h.requiredFeatures.push(str);
      else if (f === 5) h.optionalFeatures.push(str);
      else h.writingProgram = str;
    } else if (f === 32) h.replicationTimestamp = r.varint();
    else r.skip(k & 7);
  }
  return h;
}

interface Scale { granularity: number; latOffset: number; lonOffset: number }

function decodeStringTable(buf: Uint8Array, s: number, e: number): string[] {
  const out: string[] = [];
  const r = new PbfReader(buf, s, e);
  for (let k = r.key(); k >= 0; k = r.key()) {
    if (k >>> 3 === 1) {
      const [a, b] = r.bytes();
      out.push(decodeUtf8(buf, a, b));
    } else r.skip(k & 7);
  }
  return out;
}

/** String `i` of the block's string table; an index outside it means a damaged block. */
function str(strings: string[], i: number, at: number): string {
  const v = strings[i];
  if (v === undefined) throw new PbfFormatError(`string index ${i} is outside the block's string table (${strings.length} entries)`, at);
  return v;
}

function decodeUtf8(buf: Uint8Array, a: number, b: number): string {
  // ASCII fast path: most OSM keys and many values are plain ASCII.
  if (b - a < 64) {
    let ascii = true;
    for (let i = a; i < b; i++) if (buf[i] >= 0x80) { ascii = false; break; }
    if (ascii) {
      let s = '';
      for (let i = a; i < b; i++) s += String.fromCharCode(buf[i]);
      return s;
    }
  }
  return utf8.decode(buf.subarray(a, b));
}

function packedEach(buf: Uint8Array, s: number, e: number, fn: (v: number) => void, signed: boolean): void {
  const r = new PbfReader(buf, s, e);
  while (r.pos < e) fn(signed ? r.svarint() : r.varint());
}

function decodeNode(buf: Uint8Array, s: number, e: number, strings: string[], sc: Scale, h: OsmHandlers): void {
  const r = new PbfReader(buf, s, e);
  let id = 0, lat = 0, lon = 0;
  const keys: number[] = [];
  const vals: number[] = [];
  for (let k = r.key(); k >= 0; k = r.key()) {
    const f = k >>> 3;
    if (f === 1) id = r.svarint();
    else if (f === 2) { const [a, b] = r.bytes(); packedEach(buf, a, b, (v) => keys.push(v), false); }
    else if (f === 3) { const [a, b] = r.bytes(); packedEach(buf, a, b, (v) => vals.push(v), false); }
    else if (f === 8) lat = r.svarint();
    else if (f === 9) lon = r.svarint();
    else r.skip(k & 7);
  }
  let tags: Tags | null = null;
  if (keys.length > 0) {
    tags = {};
    if (vals.length !== keys.length) throw new PbfFormatError(`node ${id} has ${keys.length} tag keys and ${vals.length} values`, s);
    for (let i = 0; i < keys.length; i++) tags[str(strings, keys[i], s)] = str(strings, vals[i], s);
  }
  h.node!(id, 1e-9 * (sc.latOffset + sc.granularity * lat), 1e-9 * (sc.lonOffset + sc.granularity * lon), tags);
}

function decodeDense(buf: Uint8Array, s: number, e: number, strings: string[], sc: Scale, h: OsmHandlers): void {
  const r = new PbfReader(buf, s, e);
  let ids: [number, number] | null = null, lats: [number, number] | null = null, lons: [number, number] | null = null;
  let kv: [number, number] | null = null;
  for (let k = r.key(); k >= 0; k = r.key()) {
    const f = k >>> 3;
    if (f === 1) ids = r.bytes();
    else if (f === 8) lats = r.bytes();
    else if (f === 9) lons = r.bytes();
    else if (f === 10) kv = r.bytes();
    else r.skip(k & 7);
  }
  if (!ids || !lats || !lons) return;
  const ri = new PbfReader(buf, ids[0], ids[1]);
  const rla = new PbfReader(buf, lats[0], lats[1]);
  const rlo = new PbfReader(buf, lons[0], lons[1]);
  const rkv = kv ? new PbfReader(buf, kv[0], kv[1]) : null;
  let id = 0, lat = 0, lon = 0;
  const g = sc.granularity * 1e-9;
  const lao = sc.latOffset * 1e-9;
  const loo = sc.lonOffset * 1e-9;
  const node = h.node!;
  while (ri.pos < ids[1]) {
    id += ri.svarint();
    lat += rla.svarint();
    lon += rlo.svarint();
    let tags: Tags | null = null;
    if (rkv && rkv.pos < rkv.end) {
      let kk = rkv.varint();
      while (kk !== 0) {
        const vv = rkv.varint();
        (tags ??= {})[str(strings, kk, rkv.pos)] = str(strings, vv, rkv.pos);
        kk = rkv.pos < rkv.end ? rkv.varint() : 0;
      }
    }
    node(id, lao + g * lat, loo + g * lon, tags);
  }
}

function decodeTags(buf: Uint8Array, keys: [number, number] | null, vals: [number, number] | null, strings: string[]): Tags {
  const tags: Tags = {};
  if (!keys || !vals) return tags;
  const rk = new PbfReader(buf, keys[0], keys[1]);
  const rv = new PbfReader(buf, vals[0], vals[1]);
  while (rk.pos < keys[1] && rv.pos < vals[1]) tags[str(strings, rk.varint(), rk.pos)] = str(strings, rv.varint(), rv.pos);
  return tags;
}

function decodeWay(buf: Uint8Array, s: number, e: number, strings: string[], h: OsmHandlers, refs: { buf: Float64Array }): void {
  const r = new PbfReader(buf, s, e);
  let id = 0;
  let keys: [number, number] | null = null, vals: [number, number] | null = null, rr: [number, number] | null = null;
  for (let k = r.key(); k >= 0; k = r.key()) {
    const f = k >>> 3;
    if (f === 1) id = r.varint();
    else if (f === 2) keys = r.bytes();
    else if (f === 3) vals = r.bytes();
    else if (f === 8) rr = r.bytes();
    else r.skip(k & 7);
  }
  let n = 0;
  if (rr) {
    const rd = new PbfReader(buf, rr[0], rr[1]);
    let ref = 0;
    while (rd.pos < rr[1]) {
      ref += rd.svarint();
      if (n === refs.buf.length) {
        const nb = new Float64Array(n * 2);
        nb.set(refs.buf);
        refs.buf = nb;
      }
      refs.buf[n++] = ref;
    }
  }
  h.way!(id, refs.buf, n, decodeTags(buf, keys, vals, strings));
}

function decodeRelation(buf: Uint8Array, s: number, e: number, strings: string[], h: OsmHandlers): void {
  const r = new PbfReader(buf, s, e);
  let id = 0;
  let keys: [number, number] | null = null, vals: [number, number] | null = null;
  const roles: number[] = [];
  const memids: number[] = [];
  const types: number[] = [];
  for (let k = r.key(); k >= 0; k = r.key()) {
    const f = k >>> 3;
    if (f === 1) id = r.varint();
    else if (f === 2) keys = r.bytes();
    else if (f === 3) vals = r.bytes();
    else if (f === 8) { const [a, b] = r.bytes(); packedEach(buf, a, b, (v) => roles.push(v), false); }
    else if (f === 9) { const [a, b] = r.bytes(); let acc = 0; packedEach(buf, a, b, (v) => { acc += v; memids.push(acc); }, true); }
    else if (f === 10) { const [a, b] = r.bytes(); packedEach(buf, a, b, (v) => types.push(v), false); }
    else r.skip(k & 7);
  }
  const members: RelationMember[] = new Array(memids.length);
  for (let i = 0; i < memids.length; i++) members[i] = { type: (types[i] ?? 0) as MemberType, ref: memids[i], role: roles[i] === undefined ? '' : str(strings, roles[i], s) };
  h.relation!(id, members, decodeTags(buf, keys, vals, strings));
}
