import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BinFile, BinWriter } from '../../src/core/binfile.js';
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
    const code = (fn: () => unknown) => { try { fn(); } catch (e) { return (e as EngineError).code; } return 'none'; };
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
});
