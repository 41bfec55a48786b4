import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BinFile, BinWriter, checksum32, firstBad } from '../../src/core/binfile.js';
import { EngineError } from '../../src/core/errors.js';

function sample(): BinWriter {
  return new BinWriter(7, 3)
    .add('graph.firstOut', Uint32Array.from([0, 2, 3]))
    .add('graph.lat', Float64Array.from([43.7, 43.71]))
    .add('a.name.exactly.thirty.two.chars', Int8Array.from([-1, 2, -3]))
    .add('u16', Uint16Array.from([65535]))
    .addJson('meta', { name: 'Monaco', n: 2 });
}

describe('BinFile container', () => {
  it('round-trips many sections with their types, on plain and shared buffers', () => {
    for (const shared of [false, true]) {
      const buf = sample().toBuffer(shared);
      expect(buf instanceof SharedArrayBuffer).toBe(shared);
      const f = BinFile.from(buf);
      expect(f.formatTag).toBe(7);
      expect(f.formatVersion).toBe(3);
      expect(f.names()).toEqual(['graph.firstOut', 'graph.lat', 'a.name.exactly.thirty.two.chars', 'u16', 'meta']);
      expect(Array.from(f.get('graph.firstOut', Uint32Array))).toEqual([0, 2, 3]);
      expect(Array.from(f.get('graph.lat', Float64Array))).toEqual([43.7, 43.71]);
      expect(Array.from(f.get('a.name.exactly.thirty.two.chars', Int8Array))).toEqual([-1, 2, -3]);
      expect(Array.from(f.get('u16', Uint16Array))).toEqual([65535]);
      expect(f.json('meta')).toEqual({ name: 'Monaco', n: 2 });
      // zero-copy: views share the buffer
      expect(f.get('graph.lat', Float64Array).buffer).toBe(buf);
    }
  });

  it('reads files into shared memory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dk-'));
    const p = join(dir, 'x.bin');
    const bytes = sample().writeFile(p);
    const f = BinFile.readFile(p);
    expect(f.buffer.byteLength).toBe(bytes);
    expect(f.buffer instanceof SharedArrayBuffer).toBe(true);
    expect(Array.from(f.get('graph.firstOut', Uint32Array))).toEqual([0, 2, 3]);
  });

  it('rejects foreign, truncated and mistyped data with DatasetFormat errors', () => {
    expect(code(() => BinFile.from(new ArrayBuffer(4)))).toBe('DatasetFormat');
    expect(code(() => BinFile.from(new ArrayBuffer(64)))).toBe('DatasetFormat');
    const buf = sample().toBuffer();
    expect(code(() => BinFile.from(buf.slice(0, buf.byteLength - 8)))).toBe('DatasetFormat');
    const f = BinFile.from(buf);
    expect(code(() => f.get('graph.lat', Float32Array))).toBe('DatasetFormat');
    expect(code(() => f.get('missing', Uint8Array))).toBe('DatasetFormat');
    const dir = mkdtempSync(join(tmpdir(), 'dk-'));
    writeFileSync(join(dir, 'junk'), 'hello world, not a dataset at all');
    expect(code(() => BinFile.readFile(join(dir, 'junk')))).toBe('DatasetFormat');
  });

  it('refuses bad and duplicate section names', () => {
    expect(() => new BinWriter(0, 0).add('x'.repeat(33), new Uint8Array(1))).toThrow();
    expect(() => new BinWriter(0, 0).add('a', new Uint8Array(1)).add('a', new Uint8Array(1))).toThrow();
  });

  it('checksum32: any one changed byte, and any length change, gives another checksum', () => {
    const bytes = new Uint8Array(67);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 37 + 11) & 255;
    const base = checksum32(bytes.buffer, 0, bytes.length);
    for (let i = 0; i < bytes.length; i++) {
      for (const x of [1, 0x80, 0xff]) {
        bytes[i] ^= x;
        expect(checksum32(bytes.buffer, 0, bytes.length)).not.toBe(base);
        bytes[i] ^= x;
      }
    }
    for (let len = 0; len < bytes.length; len++) expect(checksum32(bytes.buffer, 0, len)).not.toBe(base);
    // top bits of two words of one lane do not cancel (a plain xor-multiply chain would)
    const w = new Uint32Array(64).fill(0x12345678);
    const h = checksum32(w.buffer, 0, w.byteLength);
    w[0] ^= 0x80000000; w[4] ^= 0x80000000;
    expect(checksum32(w.buffer, 0, w.byteLength)).not.toBe(h);
  });

  const code = (fn: () => unknown) => { try { fn(); } catch (e) { return (e as EngineError).code; } return 'none'; };

  it('checksums: a changed body byte names its section; verified once per buffer unless verify: true', () => {
    const buf = sample().toBuffer();
    const f = BinFile.from(buf);
    expect(f.verified).toBe(true);
    expect(f.containerVersion).toBe(2);
    const lat = f.get('graph.lat', Float64Array);
    lat[1] = 43.72; // damage in place after the first open
    expect(BinFile.from(buf).verified).toBe(true); // this buffer was verified in this thread: not again
    expect(BinFile.from(buf, { verify: false }).verified).toBe(false);
    let err: EngineError | undefined;
    try { BinFile.from(buf, { verify: true, source: 'x.dkds' }); } catch (e) { err = e as EngineError; }
    expect(err?.code).toBe('DatasetFormat');
    expect(err?.details).toMatchObject({ file: 'x.dkds', section: 'graph.lat' });
    // a fresh copy of the damaged bytes is verified (and refused) by default
    expect(code(() => BinFile.from(buf.slice(0)))).toBe('DatasetFormat');
  });

  it('padding and reserved bytes must be zero; container v1 files open unverified', () => {
    const buf = sample().toBuffer();
    const f = BinFile.from(buf.slice(0));
    // 'a.name...' holds 3 bytes: 5 padding bytes follow it
    const dv = new DataView(buf);
    const entry = 32 + 2 * 56;
    const end = dv.getFloat64(entry + 40, true) + dv.getFloat64(entry + 48, true);
    expect(f.names()[2]).toBe('a.name.exactly.thirty.two.chars');
    const padded = buf.slice(0); new Uint8Array(padded)[end + 2] = 7;
    expect(code(() => BinFile.from(padded))).toBe('DatasetFormat');
    const reserved = buf.slice(0); new Uint8Array(reserved)[29] = 1;
    expect(code(() => BinFile.from(reserved))).toBe('DatasetFormat');
    // v1: version 1, checksum fields zero
    const v1 = buf.slice(0);
    const dv1 = new DataView(v1);
    dv1.setUint16(4, 1, true);
    expect(code(() => BinFile.from(v1.slice(0)))).toBe('DatasetFormat'); // checksum fields still set
    dv1.setUint32(24, 0, true);
    for (let i = 0; i < 5; i++) dv1.setUint32(32 + i * 56 + 36, 0, true);
    const old = BinFile.from(v1);
    expect(old.containerVersion).toBe(1);
    expect(old.verified).toBe(false);
    expect(old.json('meta')).toEqual({ name: 'Monaco', n: 2 });
  });

  it('structural-check helper', () => {
    expect(firstBad(Uint32Array.from([1, 2, 3]), 3)).toBe(2);
    expect(firstBad(Uint32Array.from([1, 2, 3]), 4)).toBe(-1);
    expect(firstBad(Uint32Array.from([3, 2, 1]), 4)).toBe(-1);
    expect(firstBad(Uint32Array.from([0, 2, 2, 5]), 6, true)).toBe(-1);
    expect(firstBad(Uint32Array.from([0, 2, 2, 5]), 5, true)).toBe(3);
    expect(firstBad(Uint32Array.from([0, 2, 1]), 9, true)).toBe(2);
    expect(firstBad(Uint32Array.from([1, 2]), 9, true)).toBe(0);
  });
});
