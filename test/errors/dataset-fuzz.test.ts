/**
 * Fuzzing damaged datasets (fast-check, fixed seeds): the Monaco dataset with 1–200 flipped
 * bytes anywhere (or in the header and section table), truncated, with sections shuffled (two
 * table entries swapped, two same-size bodies swapped, a block of bytes copied elsewhere). Every
 * damaged file must be refused with a coded `DatasetFormat` naming the file — never a
 * RangeError, never `Internal`, never an answer. A "damaged" file that happens to equal the
 * original (two identical bodies swapped) must open and answer exactly as the original.
 *
 * A second property opens damaged files with `verify: false` (checksums skipped, as for a
 * trusted buffer): then the structural checks alone must never let a non-`DatasetFormat` error
 * out (they may open: a flipped coordinate is structurally fine).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Dataset } from '../../src/dataset/dataset.js';
import { Engine } from '../../src/engine.js';
import { fixtureDataset } from '../helpers/datasets.js';
import { outcome } from './helpers.js';

const HEADER = 32;
const ENTRY = 56;
const SOURCE = 'monaco.dkds';

let original: Uint8Array;
let tableEnd: number;
let entries: { at: number; offset: number; length: number }[];
let reference: string;
const counts = { flips: 0, truncations: 0, shuffles: 0, unchanged: 0, unverified: 0, unverifiedOpened: 0 };

const SPECS = [
  { StartLocation: { LatLong: { Latitude: 43.7396, Longitude: 7.4277 } }, FinishLocation: { LatLong: { Latitude: 43.7285, Longitude: 7.415 } }, DistanceUnit: 'Kilometer' },
  { StartLocation: { LatLong: { Latitude: 43.7285, Longitude: 7.415 } }, FinishLocation: { LatLong: { Latitude: 43.7489, Longitude: 7.4378 } }, DistanceUnit: 'Mile', RouteOptimize: 1 },
  { StartLocation: { LatLong: { Latitude: 43.7331, Longitude: 7.4212 } }, FinishLocation: { LatLong: { Latitude: 43.7412, Longitude: 7.4263 } }, DistanceUnit: 'Kilometer', RouteOptimize: 0 },
];

async function answers(buf: ArrayBufferLike): Promise<string> {
  const engine = await Engine.open(buf);
  try {
    return JSON.stringify(SPECS.map((s) => engine.calculateDistance(s)));
  } finally {
    await engine.close();
  }
}

const copy = (): Uint8Array => {
  const b = new Uint8Array(new ArrayBuffer(original.length));
  b.set(original);
  return b;
};

const same = (b: Uint8Array): boolean => b.length === original.length && Buffer.compare(b, original) === 0;

/** A damaged copy must be refused with DatasetFormat naming the file, unless it equals the original. */
async function check(b: Uint8Array): Promise<void> {
  const buf = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  const o = outcome(() => Dataset.fromBuffer(buf, { source: SOURCE }));
  if (same(b)) {
    counts.unchanged++;
    expect(o.ok).toBe(true);
    expect(await answers(buf)).toBe(reference);
    return;
  }
  if (o.ok) return expect.fail('a damaged dataset opened');
  expect(o.code).toBe('DatasetFormat');
  expect(o.error.details?.file).toBe(SOURCE);
}

const flip = (whole: boolean, maxLength = 200) => fc.array(
  // noBias: positions uniform over the file (fast-check otherwise favours 0 and the ends).
  fc.record({ pos: fc.noBias(fc.integer({ min: 0, max: 0x3fffffff })).map((x) => x / 0x40000000), xor: fc.integer({ min: 1, max: 255 }) }),
  { minLength: 1, maxLength },
).map((fs) => ({ whole, fs }));

function applyFlips(b: Uint8Array, d: { whole: boolean; fs: { pos: number; xor: number }[] }): void {
  const span = d.whole ? b.length : tableEnd;
  // Positions are distinct, so no two flips cancel.
  const seen = new Set<number>();
  for (const f of d.fs) {
    const p = Math.floor(f.pos * span);
    if (seen.has(p)) continue;
    seen.add(p);
    b[p] ^= f.xor;
  }
}

describe('dataset fuzz: damaged files never open, never answer, never crash', () => {
  beforeAll(async () => {
    const { buffer } = await fixtureDataset('monaco');
    original = new Uint8Array(buffer.byteLength);
    original.set(new Uint8Array(buffer));
    const dv = new DataView(original.buffer);
    const n = dv.getUint16(6, true);
    tableEnd = HEADER + n * ENTRY;
    entries = [];
    for (let i = 0; i < n; i++) {
      const at = HEADER + i * ENTRY;
      entries.push({ at, offset: dv.getFloat64(at + 40, true), length: dv.getFloat64(at + 48, true) });
    }
    reference = await answers(copy().buffer);
  });

  it('1–200 flipped bytes anywhere, or in the header and section table: DatasetFormat', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof({ arbitrary: flip(true), weight: 3 }, { arbitrary: flip(false), weight: 1 }), async (d) => {
        const b = copy();
        applyFlips(b, d);
        counts.flips++;
        await check(b);
      }),
      { numRuns: 600, seed: 20261123 },
    );
  });

  it('truncations anywhere: DatasetFormat', async () => {
    await fc.assert(
      fc.asyncProperty(fc.noBias(fc.integer({ min: 0, max: 1 << 30 })), async (x) => {
        counts.truncations++;
        await check(original.slice(0, x % original.length));
      }),
      { numRuns: 200, seed: 20261124 },
    );
  });

  it('shuffled sections (table entries, same-size bodies, blocks of bytes): DatasetFormat, or identical answers when nothing changed', async () => {
    const shuffle = fc.oneof(
      fc.record({ kind: fc.constant('entries' as const), i: fc.noBias(fc.nat()), j: fc.noBias(fc.nat()) }),
      fc.record({ kind: fc.constant('bodies' as const), i: fc.noBias(fc.nat()), j: fc.noBias(fc.nat()) }),
      fc.record({ kind: fc.constant('block' as const), i: fc.noBias(fc.nat()), j: fc.noBias(fc.nat()), len: fc.integer({ min: 1, max: 4096 }) }),
    );
    await fc.assert(
      fc.asyncProperty(shuffle, async (s) => {
        const b = copy();
        if (s.kind === 'entries') {
          const x = entries[s.i % entries.length];
          const y = entries[(s.i + 1 + (s.j % (entries.length - 1))) % entries.length];
          const tmp = b.slice(x.at, x.at + ENTRY);
          b.copyWithin(x.at, y.at, y.at + ENTRY);
          b.set(tmp, y.at);
        } else if (s.kind === 'bodies') {
          // Two sections of the same byte length (bodies of different lengths cannot trade places).
          const x = entries[s.i % entries.length];
          const peers = entries.filter((e) => e !== x && e.length === x.length);
          if (peers.length > 0) {
            const y = peers[s.j % peers.length];
            const tmp = b.slice(x.offset, x.offset + x.length);
            b.copyWithin(x.offset, y.offset, y.offset + y.length);
            b.set(tmp, y.offset);
          } else {
            b.copyWithin(x.offset, x.offset + 8, x.offset + x.length); // slide the body by 8 bytes
          }
        } else {
          const len = Math.min(s.len, b.length >> 1);
          const from = s.i % (b.length - len);
          const to = s.j % (b.length - len);
          b.copyWithin(to, from, from + len);
        }
        counts.shuffles++;
        await check(b);
      }),
      { numRuns: 300, seed: 20261125 },
    );
  });

  it('without checksum verification, the structural checks alone never let anything but DatasetFormat out', () => {
    fc.assert(
      fc.property(fc.oneof(flip(true, 4), flip(true)), fc.boolean(), (d, truncate) => {
        const b = copy();
        applyFlips(b, d);
        const buf = truncate ? b.buffer.slice(0, Math.floor(d.fs[0].pos * b.length)) : b.buffer;
        const o = outcome(() => Dataset.fromBuffer(buf, { source: SOURCE, verify: false }));
        counts.unverified++;
        if (o.ok) counts.unverifiedOpened++;
        else {
          expect(o.code).toBe('DatasetFormat');
          expect(o.error.details?.file).toBe(SOURCE);
        }
      }),
      { numRuns: 300, seed: 20261126 },
    );
    expect(counts.unverifiedOpened).toBeGreaterThan(0); // a few flips in coordinates or weights pass the structure
  });

  it('counted at least 1,000 damaged files', () => {
    const damaged = counts.flips + counts.truncations + counts.shuffles - counts.unchanged + counts.unverified;
    console.log(`dataset fuzz: ${JSON.stringify(counts)}; damaged files: ${damaged}`);
    expect(damaged).toBeGreaterThanOrEqual(1000);
  });
});
