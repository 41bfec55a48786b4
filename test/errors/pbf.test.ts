/**
 * Damaged OSM PBF extracts: every failure is a coded EngineError (`InvalidInput`, path
 * `extract`, with the file and byte offset in `details`; `Unsupported` for a compression this
 * decoder lacks), never a RangeError, a zlib error or `Internal`. Mutations of the Monaco extract
 * are deterministic (fixed offsets, core/rng.ts, fast-check with fixed seeds).
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { OsmPbfFile } from '../../src/osm/pbf.js';
import { PbfReader } from '../../src/osm/protobuf.js';
import { Rng } from '../../src/core/rng.js';
import { errorOf, outcome } from './helpers.js';

const SOURCE = 'monaco-latest.osm.pbf';
const PBF = new Uint8Array(readFileSync(new URL('../../fixtures/monaco-latest.osm.pbf', import.meta.url)));

/** Opens and decodes everything (so damage inside data blobs is reached too). */
function decode(bytes: Uint8Array): void {
  const f = new OsmPbfFile(bytes, { source: SOURCE });
  f.read({ node() {}, way() {}, relation() {} });
}

interface Blob { at: number; headerStart: number; dataStart: number; end: number; type: string }

/** The blob layout of a valid file (independent of the decoder's own walk). */
function blobsOf(data: Uint8Array): Blob[] {
  const out: Blob[] = [];
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  for (let at = 0; at < data.length;) {
    const hlen = dv.getUint32(at, false);
    const r = new PbfReader(data, at + 4, at + 4 + hlen);
    let size = 0;
    let type = '';
    for (let k = r.key(); k >= 0; k = r.key()) {
      if (k >>> 3 === 1) { const [s, e] = r.bytes(); type = new TextDecoder().decode(data.subarray(s, e)); }
      else if (k >>> 3 === 3) size = r.varint();
      else r.skip(k & 7);
    }
    out.push({ at, headerStart: at + 4, dataStart: at + 4 + hlen, end: at + 4 + hlen + size, type });
    at += 4 + hlen + size;
  }
  return out;
}

const BLOBS = blobsOf(PBF);
const BOUNDARIES = new Set(BLOBS.map((b) => b.at).concat(PBF.length));
const MID = BLOBS[Math.floor(BLOBS.length / 2)];

function mutate(edit: (b: Uint8Array) => void): Uint8Array {
  const b = PBF.slice();
  edit(b);
  return b;
}

/** Asserts the coded failure: code, path and a file offset inside the file. */
function expectCorrupt(bytes: Uint8Array, code = 'InvalidInput'): void {
  const e = errorOf(() => decode(bytes));
  expect(e.code).toBe(code);
  if (code === 'InvalidInput') {
    expect(e.path).toBe('extract');
    expect(e.details?.file).toBe(SOURCE);
    const off = e.details?.offset as number;
    expect(Number.isInteger(off) && off >= 0 && off <= bytes.length).toBe(true);
  }
}

// ---- tiny protobuf writer for hand-made blobs ----------------------------------------------
const varint = (n: number): number[] => {
  const out: number[] = [];
  while (n >= 0x80) { out.push((n % 128) | 0x80); n = Math.floor(n / 128); }
  out.push(n);
  return out;
};
const zigzag = (n: number): number => (n >= 0 ? 2 * n : -2 * n - 1);
const fBytes = (num: number, payload: ArrayLike<number>): number[] => [...varint(num * 8 + 2), ...varint(payload.length), ...Array.from(payload)];
const fVarint = (num: number, v: number): number[] => [...varint(num * 8), ...varint(v)];
const ascii = (s: string): number[] => Array.from(new TextEncoder().encode(s));
const packed = (vals: number[]): number[] => vals.flatMap(varint);

/** A whole blob: 4-byte length, BlobHeader { type, datasize }, then the Blob message. */
function blob(type: string, blobMessage: number[], datasize = blobMessage.length): Uint8Array {
  const header = [...fBytes(1, ascii(type)), ...fVarint(3, datasize)];
  const len = header.length;
  return Uint8Array.from([len >>> 24, (len >>> 16) & 255, (len >>> 8) & 255, len & 255, ...header, ...blobMessage]);
}

/** The Monaco OSMHeader blob followed by the given blobs. */
function withHeader(...blobs: Uint8Array[]): Uint8Array {
  const head = PBF.subarray(0, BLOBS[1].at);
  const out = new Uint8Array(head.length + blobs.reduce((s, b) => s + b.length, 0));
  out.set(head);
  let o = head.length;
  for (const b of blobs) { out.set(b, o); o += b.length; }
  return out;
}

describe('OSM PBF: damaged extracts give coded errors with the file and offset', () => {
  it('the fixture itself decodes, and its layout is as the tests assume', () => {
    expect(outcome(() => decode(PBF)).ok).toBe(true);
    expect(BLOBS[0].type).toBe('OSMHeader');
    expect(BLOBS.length).toBeGreaterThan(4);
    expect(BLOBS.slice(1).every((b) => b.type === 'OSMData')).toBe(true);
  });

  it('empty file, garbage bytes, another format', () => {
    expectCorrupt(new Uint8Array(0));
    const rng = new Rng(7);
    expectCorrupt(Uint8Array.from({ length: 4096 }, () => rng.int(256)));
    expectCorrupt(new TextEncoder().encode('<?xml version="1.0"?><osm version="0.6"></osm>\n'));
    expectCorrupt(Uint8Array.from([0, 0, 0, 0]));
  });

  it('truncated files: inside a length, a header, the header blob, a data blob, the last byte', () => {
    for (const len of [1, 3, 4, 9, BLOBS[0].dataStart + 10, BLOBS[1].at + 2, BLOBS[1].headerStart + 5, MID.dataStart + 100, MID.end - 1, PBF.length - 1]) {
      expectCorrupt(PBF.subarray(0, len));
    }
  });

  it('a truncation exactly at a blob boundary is a shorter valid file', () => {
    expect(outcome(() => decode(PBF.subarray(0, MID.at))).ok).toBe(true);
  });

  it('flipped bytes in a blob header: length, type, data size', () => {
    expectCorrupt(mutate((b) => { b[MID.at] ^= 0x40; })); // header length far beyond 64 KiB
    expectCorrupt(mutate((b) => { b[MID.at + 3] ^= 0x01; })); // header length off by one
    expectCorrupt(mutate((b) => { b[MID.at + 3] = 0; b[MID.at + 2] = 0; })); // zero-length header
    expectCorrupt(mutate((b) => { b[MID.headerStart] ^= 0x07; })); // first key: another wire type
    expectCorrupt(mutate((b) => { b[MID.headerStart + 2] ^= 0x20; })); // type "oSMData"
    expectCorrupt(mutate((b) => { b[MID.dataStart - 1] ^= 0x01; })); // data size off by one
    expectCorrupt(mutate((b) => { b[MID.dataStart - 2] ^= 0x04; })); // data size off by 512+
    expectCorrupt(mutate((b) => { b[BLOBS[0].headerStart + 2] ^= 0x20; })); // type "oSMHeader"
  });

  it("a blob whose zlib data is corrupt (stream header, middle, checksum)", () => {
    const z = MID.dataStart; // Blob { raw_size (field 2), zlib_data (field 3) }
    const r = new PbfReader(PBF, z, MID.end);
    let zs = -1, ze = -1;
    for (let k = r.key(); k >= 0; k = r.key()) {
      if (k >>> 3 === 3) [zs, ze] = r.bytes();
      else r.skip(k & 7);
    }
    expect(zs).toBeGreaterThan(0);
    expectCorrupt(mutate((b) => { b[zs] ^= 0xff; }));
    expectCorrupt(mutate((b) => { b[(zs + ze) >> 1] ^= 0x55; }));
    expectCorrupt(mutate((b) => { b[ze - 1] ^= 0x01; }));
    expectCorrupt(mutate((b) => { b.fill(0, zs + 10, ze); }));
  });

  it('wrong blob types: data labelled header, header labelled data, an unknown type', () => {
    const data = PBF.subarray(MID.dataStart, MID.end);
    expectCorrupt(withHeader(blob('OSMHeader', Array.from(data))));
    expectCorrupt(withHeader(blob('OSMDataX', Array.from(data))));
    const head = PBF.subarray(BLOBS[0].dataStart, BLOBS[0].end);
    expectCorrupt(blob('OSMData', Array.from(head)));
  });

  it('oversize lengths: blob header, data size, declared raw size, a stream longer than declared', () => {
    expectCorrupt(mutate((b) => { b.set([0, 1, 0, 1], MID.at); })); // 64 KiB + 1
    expectCorrupt(withHeader(blob('OSMData', [], 40 * 1024 * 1024))); // > 32 MiB
    expectCorrupt(withHeader(blob('OSMData', [], 1000))); // more than the file holds
    const zlibMsg = (rawSize: number) => {
      const r = new PbfReader(PBF, MID.dataStart, MID.end);
      let z: number[] = [];
      for (let k = r.key(); k >= 0; k = r.key()) {
        if (k >>> 3 === 3) { const [s, e] = r.bytes(); z = Array.from(PBF.subarray(s, e)); } else r.skip(k & 7);
      }
      return [...fVarint(2, rawSize), ...fBytes(3, z)];
    };
    expectCorrupt(withHeader(blob('OSMData', zlibMsg(33 * 1024 * 1024))));
    expectCorrupt(withHeader(blob('OSMData', zlibMsg(100))));
    expectCorrupt(withHeader(blob('OSMData', [...fBytes(1, [1, 2, 3]).slice(0, 2), 0xff, 0xff, 0xff, 0xff, 0x0f])));
  });

  it('malformed blocks inside a valid blob: lengths past the end, bad varints, string indexes', () => {
    expectCorrupt(withHeader(blob('OSMData', fBytes(1, [0x0a, 0xff, 0xff, 0xff, 0x0f])))); // string table length past the end
    expectCorrupt(withHeader(blob('OSMData', fBytes(1, [0x88, ...Array(11).fill(0xff), 0x01])))); // 12-byte varint
    expectCorrupt(withHeader(blob('OSMData', fBytes(1, [0x0b])))); // wire type 3 (groups)
    const dense = [...fBytes(1, packed([zigzag(1)])), ...fBytes(8, packed([zigzag(2)])), ...fBytes(9, packed([zigzag(3)])), ...fBytes(10, packed([5, 6, 0]))];
    const block = [...fBytes(1, fBytes(1, [])), ...fBytes(2, fBytes(2, dense))];
    expectCorrupt(withHeader(blob('OSMData', fBytes(1, block)))); // tag string index 5 of 1
    const denseShortLat = [...fBytes(1, packed([2, 2])), ...fBytes(8, packed([2])), ...fBytes(9, packed([2, 2]))];
    expectCorrupt(withHeader(blob('OSMData', fBytes(1, [...fBytes(1, fBytes(1, [])), ...fBytes(2, fBytes(2, denseShortLat))]))));
    // the well-formed version of the same block decodes
    const good = [...fBytes(1, packed([zigzag(1)])), ...fBytes(8, packed([zigzag(2)])), ...fBytes(9, packed([zigzag(3)]))];
    expect(outcome(() => decode(withHeader(blob('OSMData', fBytes(1, [...fBytes(1, fBytes(1, [])), ...fBytes(2, fBytes(2, good))])))) ).ok).toBe(true);
  });

  it('a compression this decoder lacks is Unsupported', () => {
    expectCorrupt(withHeader(blob('OSMData', [...fVarint(2, 10), ...fBytes(4, [1, 2, 3])])), 'Unsupported');
  });

  it('property: any truncation is InvalidInput, except at a blob boundary', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: PBF.length - 1 }), (len) => {
        const o = outcome(() => decode(PBF.subarray(0, len)));
        if (o.ok) expect(BOUNDARIES.has(len)).toBe(true);
        else expect(o.code).toBe('InvalidInput');
      }),
      { numRuns: 60, seed: 20261123 },
    );
  });

  it('property: random byte damage never escapes as a stray or Internal error', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: PBF.length - 1 }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), (edits) => {
        const o = outcome(() => decode(mutate((b) => { for (const [i, v] of edits) b[i] = v; })));
        if (!o.ok) expect(['InvalidInput', 'Unsupported']).toContain(o.code);
      }),
      { numRuns: 40, seed: 7 },
    );
    // damage focused on the blob headers (where it is not caught by zlib's checksum)
    const rng = new Rng(11);
    let failed = 0;
    for (let i = 0; i < 200; i++) {
      const bl = BLOBS[rng.int(BLOBS.length)];
      const pos = bl.at + rng.int(bl.dataStart - bl.at + 4);
      const o = outcome(() => decode(mutate((b) => { b[pos] ^= 1 + rng.int(255); })));
      if (!o.ok) { failed++; expect(['InvalidInput', 'Unsupported']).toContain(o.code); }
    }
    expect(failed).toBeGreaterThan(150);
  });
});
