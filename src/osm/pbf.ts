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
import { PbfReader } from './protobuf.js';

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
  start: number;
  end: number;
  /** Bitmask of element kinds seen in the blob once it has been decoded (0 = unknown yet). */
  kinds: number;
}

const SUPPORTED_FEATURES = new Set(['OsmSchema-V0.6', 'DenseNodes', 'HistoricalInformation']);
const utf8 = new TextDecoder('utf-8');

export class OsmPbfFile {
  readonly header: OsmHeader;
  private readonly blobs: BlobRef[] = [];

  constructor(private readonly data: Uint8Array) {
    let header: OsmHeader | undefined;
    let pos = 0;
    const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
    while (pos < data.length) {
      if (pos + 4 > data.length) throw new EngineError('InvalidInput', 'Truncated OSM PBF file (blob header length).');
      const hlen = dv.getUint32(pos, false);
      pos += 4;
      if (hlen > 64 * 1024 || pos + hlen > data.length) throw new EngineError('InvalidInput', 'Not an OSM PBF file, or it is corrupt (bad blob header).');
      const r = new PbfReader(data, pos, pos + hlen);
      let type = '';
      let datasize = -1;
      for (let k = r.key(); k >= 0; k = r.key()) {
        const f = k >>> 3;
        if (f === 1) { const [s, e] = r.bytes(); type = utf8.decode(data.subarray(s, e)); }
        else if (f === 3) datasize = r.varint();
        else r.skip(k & 7);
      }
      pos += hlen;
      if (datasize < 0 || pos + datasize > data.length) throw new EngineError('InvalidInput', 'Truncated OSM PBF file (blob data).');
      if (type === 'OSMHeader') header = this.decodeHeader(this.inflate(pos, pos + datasize));
      else if (type === 'OSMData') this.blobs.push({ start: pos, end: pos + datasize, kinds: 0 });
      pos += datasize;
    }
    if (!header) throw new EngineError('InvalidInput', 'Not an OSM PBF file: no OSMHeader block.');
    for (const f of header.requiredFeatures) {
      if (!SUPPORTED_FEATURES.has(f)) throw new EngineError('Unsupported', `OSM PBF requires unsupported feature "${f}".`);
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
      b.kinds = this.decodeBlock(this.inflate(b.start, b.end), h, refs);
      progress({ phase, done: i + 1, total: this.blobs.length });
    }
    progress({ phase, done: this.blobs.length, total: this.blobs.length }, true);
  }

  private inflate(start: number, end: number): Uint8Array {
    const r = new PbfReader(this.data, start, end);
    let raw: [number, number] | null = null;
    let zlib: [number, number] | null = null;
    let rawSize = -1;
    for (let k = r.key(); k >= 0; k = r.key()) {
      const f = k >>> 3;
      if (f === 1) raw = r.bytes();
      else if (f === 2) rawSize = r.varint();
      else if (f === 3) zlib = r.bytes();
      else if (f === 4 || f === 5 || f === 6 || f === 7) throw new EngineError('Unsupported', 'OSM PBF blob uses an unsupported compression (only zlib and raw are supported).');
      else r.skip(k & 7);
    }
    if (raw) return this.data.subarray(raw[0], raw[1]);
    if (zlib) {
      try {
        const out = inflateSync(this.data.subarray(zlib[0], zlib[1]));
        if (rawSize >= 0 && out.length !== rawSize) throw new Error('size mismatch');
        return out;
      } catch (e) {
        throw new EngineError('InvalidInput', `Corrupt OSM PBF blob at byte ${start}: ${(e as Error).message}`);
      }
    }
    throw new EngineError('InvalidInput', `Empty OSM PBF blob at byte ${start}.`);
  }

  private decodeHeader(buf: Uint8Array): OsmHeader {
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
export function readOsmPbf(data: Uint8Array, h: OsmHandlers, opts?: LongWorkOptions): OsmHeader {
  const f = new OsmPbfFile(data);
  f.read(h, opts);
  return f.header;
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
    for (let i = 0; i < keys.length; i++) tags[strings[keys[i]]] = strings[vals[i]];
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
        (tags ??= {})[strings[kk]] = strings[vv];
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
  while (rk.pos < keys[1] && rv.pos < vals[1]) tags[strings[rk.varint()]] = strings[rv.varint()];
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
  for (let i = 0; i < memids.length; i++) members[i] = { type: (types[i] ?? 0) as MemberType, ref: memids[i], role: strings[roles[i]] ?? '' };
  h.relation!(id, members, decodeTags(buf, keys, vals, strings));
}
