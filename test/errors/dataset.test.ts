/**
 * Damaged dataset files: every truncation, a damaged header or section table, inconsistent
 * section sizes and a damaged metadata section give `DatasetFormat` (naming the file and the
 * section or offset in `details`), never a RangeError, a SyntaxError or `Internal`. Most edits
 * here are caught by the checksums; the structural checks behind them are tested in
 * test/errors/dataset-fuzz.test.ts on files opened without verification (`verify: false`).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { BinFile } from '../../src/core/binfile.js';
import { Rng } from '../../src/core/rng.js';
import { Dataset } from '../../src/dataset/dataset.js';
import { fixtureDataset } from '../helpers/datasets.js';
import { errorOf, outcome } from './helpers.js';

const HEADER = 32;
const ENTRY = 56;

let original: Uint8Array; // a private copy of the Monaco dataset
let work: Uint8Array; // mutated in place and restored, so no test copies the buffer per case
let dir: string;

interface TableEntry { i: number; at: number; name: string; dtype: number; offset: number; length: number }

function table(bytes: Uint8Array): TableEntry[] {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = dv.getUint16(6, true);
  const out: TableEntry[] = [];
  for (let i = 0; i < n; i++) {
    const at = HEADER + i * ENTRY;
    let name = '';
    for (let k = 0; k < 32 && bytes[at + k] !== 0; k++) name += String.fromCharCode(bytes[at + k]);
    out.push({ i, at, name, dtype: dv.getUint32(at + 32, true), offset: dv.getFloat64(at + 40, true), length: dv.getFloat64(at + 48, true) });
  }
  return out;
}

const open = (bytes: Uint8Array) => () => Dataset.fromBuffer(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, { source: 'monaco.dkds' });
/** Opens `work` in place (no copy); `verify: true` because the same buffer object is damaged and reopened. */
const openWork = () => Dataset.fromBuffer(work.buffer as ArrayBuffer, { source: 'monaco.dkds', verify: true });

/** Applies `edit` to `work`, opens it, restores the bytes; returns the outcome. */
function withEdit(edit: (dv: DataView, b: Uint8Array) => void) {
  const dv = new DataView(work.buffer);
  edit(dv, work);
  try {
    return outcome(openWork);
  } finally {
    work.set(original);
  }
}

function expectFormat(o: ReturnType<typeof outcome>, file = 'monaco.dkds'): void {
  if (o.ok) expect.fail('expected DatasetFormat, the dataset opened');
  else {
    expect(o.code).toBe('DatasetFormat');
    expect(o.error.details?.file).toBe(file);
  }
}

describe('dataset files: damage gives DatasetFormat naming the file and section', () => {
  let T: TableEntry[];
  beforeAll(async () => {
    const { buffer } = await fixtureDataset('monaco');
    original = new Uint8Array(buffer.byteLength);
    original.set(new Uint8Array(buffer));
    work = new Uint8Array(new ArrayBuffer(original.length));
    work.set(original);
    T = table(original);
    dir = mkdtempSync(join(tmpdir(), 'dk-err-'));
  });

  const entry = (name: string): TableEntry => {
    const e = T.find((x) => x.name === name);
    if (!e) return expect.fail(`no section ${name}`);
    return e;
  };

  it('the copy opens, with graph, hierarchies, snapping and geocoder sections', () => {
    expect(outcome(openWork).ok).toBe(true);
    for (const s of ['meta', 'g.meta', 'g.head', 'cht.meta', 'chd.f.head', 's.rtree']) entry(s);
    expect(T.some((e) => e.name.startsWith('geo.'))).toBe(true);
  });

  it('truncations: inside the header, the section table, a section, the last byte', () => {
    const last = T[T.length - 1];
    for (const len of [0, 3, 4, 16, 31, HEADER, HEADER + 10, HEADER + T.length * ENTRY - 1, T[5].offset + 3, last.offset, original.length - 1]) {
      expectFormat(outcome(open(original.subarray(0, len))));
    }
  });

  it('header: magic, container version, dataset kind and version, total length, section count', () => {
    expectFormat(withEdit((dv) => dv.setUint8(0, 0x58)));
    expectFormat(withEdit((dv) => dv.setUint16(4, 3, true)));
    expectFormat(withEdit((dv) => dv.setUint16(4, 1, true))); // v1 (unchecked) with checksum fields set
    expectFormat(withEdit((dv) => dv.setUint32(8, 0x12345678, true)));
    expectFormat(withEdit((dv) => dv.setUint32(12, 99, true)));
    expectFormat(withEdit((dv) => dv.setFloat64(16, original.length + 8, true)));
    expectFormat(withEdit((dv) => dv.setFloat64(16, original.length - 8, true)));
    expectFormat(withEdit((dv) => dv.setFloat64(16, NaN, true)));
    expectFormat(withEdit((dv) => dv.setUint16(6, 0xffff, true))); // table past the end of the file
    expectFormat(withEdit((dv) => dv.setUint16(6, T.length - 1, true))); // the last section (meta) lost
    expectFormat(withEdit((dv) => dv.setUint16(6, 0, true)));
  });

  it('section table: names, types, offsets and lengths pointing anywhere', () => {
    const head = entry('g.head');
    const geo = T.find((e) => e.name.startsWith('geo.') && e.dtype === 5 && e.length >= 8)!;
    for (const e of [head, geo, entry('cht.f.unpack'), entry('s.rtree'), entry('meta')]) {
      expectFormat(withEdit((_dv, b) => { b[e.at] = 0x01; })); // non-printable name
      expectFormat(withEdit((_dv, b) => { b[e.at] = 0; })); // empty name
      expectFormat(withEdit((_dv, b) => { b[e.at + 1] ^= 0x20; })); // another (missing) name
      expectFormat(withEdit((dv) => dv.setUint32(e.at + 32, 0, true))); // no type
      expectFormat(withEdit((dv) => dv.setUint32(e.at + 32, 77, true))); // unknown type
      expectFormat(withEdit((dv) => dv.setUint32(e.at + 32, e.dtype === 8 ? 7 : 8, true))); // another type
      expectFormat(withEdit((dv) => dv.setFloat64(e.at + 40, e.offset + 3, true))); // misaligned
      expectFormat(withEdit((dv) => dv.setFloat64(e.at + 40, e.offset + 8, true))); // overlaps the next
      expectFormat(withEdit((dv) => dv.setFloat64(e.at + 40, 0, true))); // onto the header
      expectFormat(withEdit((dv) => dv.setFloat64(e.at + 40, original.length + 64, true))); // past the end
      expectFormat(withEdit((dv) => dv.setFloat64(e.at + 40, -8, true)));
      expectFormat(withEdit((dv) => dv.setFloat64(e.at + 40, NaN, true)));
      expectFormat(withEdit((dv) => dv.setFloat64(e.at + 48, original.length, true))); // past the end
      expectFormat(withEdit((dv) => dv.setFloat64(e.at + 48, -4, true)));
      expectFormat(withEdit((dv) => dv.setFloat64(e.at + 48, 1e300, true)));
    }
    // a duplicate name
    expectFormat(withEdit((_dv, b) => { b.copyWithin(geo.at, head.at, head.at + 32); }));
  });

  it('section lengths that are not a multiple of the element size, or disagree with the component', () => {
    for (const name of ['g.head', 'g.lat', 'g.edgeFlags', 'cht.f.head', 'chd.rank', 's.chunkEdge']) {
      const e = entry(name);
      const size = e.dtype === 8 ? 8 : e.dtype >= 5 ? 4 : e.dtype >= 3 ? 2 : 1;
      if (size > 1) expectFormat(withEdit((dv) => dv.setFloat64(e.at + 48, e.length - 1, true)));
      expectFormat(withEdit((dv) => dv.setFloat64(e.at + 48, e.length - size, true)));
      expectFormat(withEdit((dv) => dv.setFloat64(e.at + 48, 0, true)));
    }
    const rt = entry('s.rtree');
    expectFormat(withEdit((dv) => dv.setFloat64(rt.at + 48, 4, true))); // shorter than the R-tree header
    expectFormat(withEdit((dv) => dv.setFloat64(rt.at + 48, rt.length - 16, true))); // R-tree past its section
  });

  it('component metadata: road graph counts, CH and dataset JSON', () => {
    const gm = entry('g.meta');
    expectFormat(withEdit((dv) => dv.setUint32(gm.offset + 4, dv.getUint32(gm.offset + 4, true) + 1, true))); // numNodes
    expectFormat(withEdit((dv) => dv.setUint32(gm.offset, 9, true))); // graph format version
    for (const name of ['meta', 'cht.meta']) {
      const e = entry(name);
      expectFormat(withEdit((_dv, b) => { b[e.offset] = 0x7d; })); // '}' first: not JSON
      expectFormat(withEdit((_dv, b) => { b[e.offset + e.length - 1] = 0x20; })); // unterminated
      expectFormat(withEdit((_dv, b) => { b.fill(0x20, e.offset, e.offset + e.length); b[e.offset] = 0x31; })); // the number 1
    }
    const sm = entry('s.meta');
    expectFormat(withEdit((dv) => dv.setFloat64(sm.offset, 42, true))); // snap format version
  });

  it('every single-byte change of the header and section table: DatasetFormat (the header checksum covers them)', () => {
    const rng = new Rng(3);
    const end = HEADER + T.length * ENTRY;
    for (let pos = 0; pos < end; pos++) {
      const v = (original[pos] + 1 + rng.int(255)) & 255; // always a different value
      expectFormat(withEdit((_dv, b) => { b[pos] = v; }));
    }
  });

  it('a changed byte in a section body or in padding names the section or offset', () => {
    const head = entry('g.head');
    const o = withEdit((_dv, b) => { b[head.offset + 5] ^= 0x10; });
    expectFormat(o);
    if (!o.ok) expect(o.error.details?.section).toBe('g.head');
    const padded = T.find((e) => e.length % 8 !== 0)!;
    const p = withEdit((_dv, b) => { b[padded.offset + padded.length] = 1; });
    expectFormat(p);
    if (!p.ok) expect(p.error.details?.offset).toBe(padded.offset + padded.length);
  });

  it('unverified opens (verify: false) still run the structural checks: CSR monotone, ids in range', () => {
    const unverified = () => Dataset.fromBuffer(work.buffer as ArrayBuffer, { source: 'monaco.dkds', verify: false });
    const edits: [string, number, number][] = [
      ['g.head', 3, 0xfffffff0], ['g.tail', 0, 0x7fffffff], ['g.firstOut', 2, 0xffffff00], ['g.edgeArcs', 1, 0x10000000],
      ['g.arcEdge', 4, 0xfffffffe], ['g.edgeNameId', 0, 0xffffff], ['g.edgeGeomStart', 1, 0xffffff00],
      ['cht.f.first', 1, 0xffffff], ['chd.b.head', 0, 0x7ffffff0], ['cht.rank', 2, 0xffffffff],
    ];
    for (const [name, index, value] of edits) {
      const e = entry(name);
      const dv = new DataView(work.buffer);
      dv.setUint32(e.offset + 4 * index, value, true);
      try {
        const o = outcome(unverified);
        if (o.ok) expect.fail(`${name}[${index}] = ${value} opened without verification`);
        expectFormat(o);
        if (!o.ok) expect(o.error.details?.section).toBe(name.slice(0, name.indexOf('.') + 1));
        const v = outcome(openWork); // verified: the checksum names the section itself
        expectFormat(v);
        if (!v.ok) expect(v.error.details?.section).toBe(name);
      } finally {
        work.set(original);
      }
    }
    expect(outcome(unverified).ok).toBe(true);
  });

  it('property: every truncation is DatasetFormat', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: original.length - 1 }), (len) => {
        expectFormat(outcome(open(original.subarray(0, len))));
      }),
      { numRuns: 80, seed: 20261123 },
    );
  });

  it('files on disk: truncated and damaged files name the path; missing files and folders are InvalidInput', () => {
    const p = join(dir, 'truncated.dkds');
    writeFileSync(p, original.subarray(0, original.length >> 1));
    const e = errorOf(() => Dataset.open(p));
    expect(e.code).toBe('DatasetFormat');
    expect(e.details?.file).toBe(p);
    const q = join(dir, 'damaged.dkds');
    const d = original.slice();
    new DataView(d.buffer).setFloat64(entry('g.tail').at + 48, 4, true);
    writeFileSync(q, d);
    const e2 = errorOf(() => Dataset.open(q));
    expect(e2.code).toBe('DatasetFormat');
    expect(e2.details?.file).toBe(q);
    expect(errorOf(() => Dataset.open(join(dir, 'missing.dkds'))).code).toBe('InvalidInput');
    expect(errorOf(() => Dataset.open(dir)).code).toBe('InvalidInput');
    expect(errorOf(() => BinFile.readFile(p)).code).toBe('DatasetFormat');
  });
});
