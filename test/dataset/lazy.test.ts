/**
 * A dataset opened from its file reads the routing core at once and every other part's sections
 * when first used (core/binfile.ts `openFile`, dataset/dataset.ts), in whichever thread uses it
 * first: the answers are those of the whole buffer, damage in a part read later is DatasetFormat
 * naming the section when it is read, a file renamed over it leaves it whole, and a file changed in
 * place since it was opened is refused.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BinFile } from '../../src/core/binfile.js';
import { isEngineError } from '../../src/core/errors.js';
import { Dataset, SECTION } from '../../src/dataset/dataset.js';
import { Engine } from '../../src/engine.js';
import { Rng } from '../../src/core/rng.js';
import { ChQuery } from '../../src/ch/query.js';
import { fixtureDataset, fixtureDatasetFile } from '../helpers/datasets.js';

let path: string;
let whole: Dataset;
const dir = mkdtempSync(join(tmpdir(), 'dk-lazy-'));
beforeAll(async () => {
  path = await fixtureDatasetFile('monaco');
  whole = (await fixtureDataset('monaco')).dataset;
});

/** Bytes of the sections whose names start with one of the prefixes. */
function bytesOf(f: BinFile, prefixes: string[]): number {
  return f.names().filter((n) => prefixes.some((p) => n.startsWith(p))).reduce((a, n) => a + f.sectionBytes(n), 0);
}
const CORE = [SECTION.meta, SECTION.graph, SECTION.chTime, SECTION.snap];
const LATER = [SECTION.chDist, SECTION.geocode, SECTION.cch, SECTION.roads, SECTION.poi];

function errorOf(f: () => unknown): { code: string; message: string; details?: Record<string, unknown> } {
  try {
    f();
  } catch (e) {
    if (isEngineError(e)) return e as never;
    throw e;
  }
  throw new Error('no error');
}

describe('a dataset read on demand', () => {
  it('holds the routing core after opening, the rest once used, with the answers of the whole buffer', () => {
    const ds = Dataset.open(path);
    const f = ds.file;
    expect(bytesOf(f, LATER)).toBeGreaterThan(0);
    expect(f.loadedBytes()).toBe(bytesOf(f, CORE));
    // shortest routes: the distance hierarchy is read now
    const qa = new ChQuery(ds.chDist), qb = new ChQuery(whole.chDist);
    expect(f.loadedBytes()).toBe(bytesOf(f, [...CORE, SECTION.chDist]));
    const rng = new Rng(7);
    for (let i = 0; i < 100; i++) {
      const s = rng.int(ds.graph.numNodes), t = rng.int(ds.graph.numNodes);
      expect(qa.reset().addSource(s).addTarget(t).run().distance()).toBe(qb.reset().addSource(s).addTarget(t).run().distance());
    }
    expect(ds.geocoder!.search({ Street: 'Boulevard des Moulins', City: 'Monaco' } as never, { limit: 3 })).toEqual(whole.geocoder!.search({ Street: 'Boulevard des Moulins', City: 'Monaco' } as never, { limit: 3 }));
    expect(ds.cch?.arcOf.length).toBe(whole.cch?.arcOf.length);
    expect(ds.roadIndex?.search(0, 0, 1, 1).length).toBe(whole.roadIndex?.search(0, 0, 1, 1).length);
    void ds.landmarks;
    expect(f.loadedBytes()).toBe(f.names().reduce((a, n) => a + f.sectionBytes(n), 0));
  });

  it('worker threads read the parts they use into the shared buffer (a dispatch reverse-geocodes its stops there)', async () => {
    const rng = new Rng(3);
    const ll = () => ({ Latitude: 43.728 + rng.next() * 0.016, Longitude: 7.412 + rng.next() * 0.022 });
    const depot = { Name: 'Depot', LatLong: ll() };
    const spec = {
      CurrentTime: '2026-12-01T08:00:00', MinimumOptimization: 1,
      Vehicles: [0, 1].map((v) => ({ Name: `V${v}`, StartLocation: depot, FinishLocation: depot })),
      Locations: Array.from({ length: 12 }, (_, i) => ({ Name: `S${i}`, LatLong: ll() })),
    };
    const fromFile = await Engine.open(path, { threads: 2 });
    const fromBuffer = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 2 });
    try {
      const f = (fromFile as unknown as { dataset: Dataset }).dataset.file;
      expect(f.loadedBytes()).toBe(bytesOf(f, CORE));
      const a = await fromFile.dispatch(spec, { seed: 1 });
      expect(a.Status, JSON.stringify(a.Errors)).toBe('Success');
      expect(a).toEqual(await fromBuffer.dispatch(spec, { seed: 1 }));
      // the dispatch's stages ran on the workers (offload): the geocoder's sections were read there, for every thread
      expect(f.loadedBytes()).toBe(bytesOf(f, [...CORE, SECTION.geocode]));
    } finally {
      await fromFile.close();
      await fromBuffer.close();
    }
  });

  it('damage in a part read later is DatasetFormat naming the file and the section, when it is read', () => {
    const bytes = readFileSync(path);
    const f = BinFile.from(new Uint8Array(bytes).buffer);
    const name = `${SECTION.chDist}f.w`;
    const at = (f as unknown as { entries: Map<string, { offset: number }> }).entries.get(name)!.offset + 8;
    bytes[at] ^= 0x40;
    const p = join(dir, 'damaged-later.dkds');
    writeFileSync(p, bytes);
    const ds = Dataset.open(p); // the core is sound
    const e = errorOf(() => ds.chDist);
    expect(e.code).toBe('DatasetFormat');
    expect(e.details?.file).toBe(p);
    expect(e.message).toContain(name);
    expect(ds.geocoder).not.toBeNull(); // other parts still open
  });

  it('a dataset rebuilt over the same path (renamed over it) leaves the opened one whole: its parts are read from the file it opened', () => {
    const p = join(dir, 'rebuilt.dkds');
    copyFileSync(path, p);
    const ds = Dataset.open(p);
    const other = join(dir, 'other.dkds');
    writeFileSync(other, Buffer.alloc(64, 7));
    renameSync(other, p);
    expect(ds.geocoder!.search({ Street: 'Boulevard des Moulins', City: 'Monaco' } as never, { limit: 3 })).toEqual(whole.geocoder!.search({ Street: 'Boulevard des Moulins', City: 'Monaco' } as never, { limit: 3 }));
  });

  it('a file changed in place since it was opened is refused when a part is read, not read into the old layout', () => {
    const p = join(dir, 'replaced.dkds');
    copyFileSync(path, p);
    const ds = Dataset.open(p);
    const bytes = readFileSync(p);
    writeFileSync(p, Buffer.concat([bytes, Buffer.alloc(8)]));
    const e = errorOf(() => ds.geocoder);
    expect(e.code).toBe('DatasetFormat');
    expect(e.message).toMatch(/changed on disk/);
  });
});

