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
import { BinFile, type BinWriter, type TypedArray } from '../../src/core/binfile.js';
import { GeocodeIndex } from '../../src/geocode/geocode-index.js';
import { Dataset, SECTION } from '../../src/dataset/dataset.js';
import { Engine } from '../../src/engine.js';
import { Rng } from '../../src/core/rng.js';
import { ContractionHierarchy } from '../../src/ch/index.js';
import { computeMatrix } from '../../src/matrix/compute.js';
import { endpointsFromNodes } from '../../src/matrix/index.js';
import { WorkerPool } from '../../src/workers/pool.js';
import { ChQuery } from '../../src/ch/query.js';
import { fixtureDataset, fixtureDatasetFile } from '../helpers/datasets.js';
import { errorOf } from '../errors/helpers.js';

let path: string;
let whole: Dataset;
const dir = mkdtempSync(join(tmpdir(), 'dk-lazy-'));
beforeAll(async () => {
  path = await fixtureDatasetFile('monaco');
  whole = (await fixtureDataset('monaco')).dataset;
});

/** The geocoder's sections only a text query reads (trigram indexes, normalised keys): not reverse geocoding. */
const FORWARD = (n: string): boolean => /^geo\.(tn|tf|tp|key)\./.test(n);
/**
 * Sections read only when an operation first needs them, even in a part already open: the road
 * graph's directions-only arrays (names, refs, destinations, their strings, way ids), the
 * hierarchies' unpacking data and the geocoder's forward-only sections.
 */
const ON_USE = (n: string): boolean => /^g\.(edgeNameId|edgeRefId|edgeDestId|edgeWayId|strOffsets|strBytes)$/.test(n) || /^ch[td]\.(f\.unpack|b\.unpack|sc)$/.test(n) || FORWARD(n);
/** Bytes of the sections whose names start with one of the prefixes (those read on use only when `onUse` says which). */
function bytesOf(f: BinFile, prefixes: string[], onUse: (n: string) => boolean = () => false): number {
  return f.names().filter((n) => prefixes.some((p) => n.startsWith(p)) && (!ON_USE(n) || onUse(n))).reduce((a, n) => a + f.sectionBytes(n), 0);
}
const CORE = [SECTION.meta, SECTION.graph, SECTION.chTime, SECTION.snap];
const LATER = [SECTION.chDist, SECTION.geocode, SECTION.cch, SECTION.roads, SECTION.poi];

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
    // reverse geocoding reads the geocoder but none of its forward-only sections; a text query reads them
    for (const [lat, lon] of [[43.7384, 7.4246], [43.7311, 7.4197], [43.7450, 7.4300]]) {
      const r = ds.geocoder!.reverse(lat, lon);
      expect(r?.kind).toMatch(/address|interpolated|street/);
      expect(r).toEqual(whole.geocoder!.reverse(lat, lon));
    }
    const reverse = bytesOf(f, [...CORE, SECTION.chDist, SECTION.geocode]);
    expect(f.loadedBytes()).toBe(reverse);
    expect(f.names().filter(FORWARD).length).toBeGreaterThan(0);
    expect(ds.geocoder!.search({ Street: 'Boulevard des Moulins', City: 'Monaco' } as never, { limit: 3 })).toEqual(whole.geocoder!.search({ Street: 'Boulevard des Moulins', City: 'Monaco' } as never, { limit: 3 }));
    expect(f.loadedBytes()).toBeGreaterThan(reverse);
    ds.geocoder!.index.readAll();
    expect(f.loadedBytes()).toBe(bytesOf(f, [...CORE, SECTION.chDist, SECTION.geocode], FORWARD));
    expect(ds.cch?.arcOf.length).toBe(whole.cch?.arcOf.length);
    expect(ds.roadIndex?.search(0, 0, 1, 1).length).toBe(whole.roadIndex?.search(0, 0, 1, 1).length);
    void ds.landmarks;
    expect(f.loadedBytes()).toBe(bytesOf(f, [...CORE, ...LATER], FORWARD));
    // a path unpacked and named reads the rest
    const s = 3, t = ds.graph.numNodes - 5;
    expect(qa.reset().addSource(s).addTarget(t).run().arcPath()).toEqual(qb.reset().addSource(s).addTarget(t).run().arcPath());
    const qt = new ChQuery(ds.chTime);
    const arcs = qt.reset().addSource(s).addTarget(t).run().arcPath();
    expect(arcs.length).toBeGreaterThan(0);
    expect(arcs).toEqual(new ChQuery(whole.chTime).reset().addSource(s).addTarget(t).run().arcPath());
    expect(arcs.map((a) => ds.graph.arcName(a) + ds.graph.arcRef(a) + ds.graph.arcDestination(a) + ds.graph.edgeWayId[ds.graph.arcEdgeId(a)])).toEqual(arcs.map((a) => whole.graph.arcName(a) + whole.graph.arcRef(a) + whole.graph.arcDestination(a) + whole.graph.edgeWayId[whole.graph.arcEdgeId(a)]));
    expect(f.loadedBytes()).toBe(f.names().reduce((a, n) => a + f.sectionBytes(n), 0));
  });

  it('reads the road names and the unpacking data only when a route needs them: times, distances and matrices do not', () => {
    const ds = Dataset.open(path);
    const f = ds.file;
    const rng = new Rng(11);
    const q = new ChQuery(ds.chTime), w = new ChQuery(whole.chTime);
    for (let i = 0; i < 50; i++) {
      const s = rng.int(ds.graph.numNodes), t = rng.int(ds.graph.numNodes);
      expect(q.reset().addSource(s).addTarget(t).run().distance()).toBe(w.reset().addSource(s).addTarget(t).run().distance());
      expect(q.aux()).toBe(w.aux());
    }
    expect(ds.graph.byteSize()).toBe(whole.graph.byteSize());
    expect(ds.chTime.numShortcuts).toBe(whole.chTime.numShortcuts);
    expect(ds.chTime.byteLength()).toBe(whole.chTime.byteLength());
    expect(f.loadedBytes()).toBe(bytesOf(f, CORE));
    const at = (n: string): boolean => n.startsWith(SECTION.chTime);
    expect(q.reset().addSource(1).addTarget(ds.graph.numNodes - 1).run().nodePath()).toEqual(w.reset().addSource(1).addTarget(ds.graph.numNodes - 1).run().nodePath());
    expect(f.loadedBytes()).toBe(bytesOf(f, CORE, at));
    expect(ds.graph.numStrings).toBe(whole.graph.numStrings);
    expect(f.loadedBytes()).toBe(bytesOf(f, CORE, (n) => at(n) || n === `${SECTION.graph}strOffsets`));
    // openAll reads everything, these arrays included
    ds.openAll();
    expect(f.loadedBytes()).toBe(f.names().reduce((a, n) => a + f.sectionBytes(n), 0));
  });

  it("the geocoder's forward-only parts, built on first use, report sections that do not fit as DatasetFormat", () => {
    // the index's sections as its writer hands them over, `key.o` left to first use and empty
    const sections = new Map<string, TypedArray>();
    whole.geocoder!.index.toSections({ add(name: string, a: TypedArray) { sections.set(name.slice('geo.'.length), a); return this; } } as unknown as BinWriter, 'geo');
    sections.delete('key.o');
    const ix = new GeocodeIndex(sections, new Map([['key.o', { read: () => new Uint32Array(0), bytes: 0 }]]));
    expect(ix.streetCount).toBe(whole.geocoder!.index.streetCount);
    expect(errorOf(() => ix.keys).code).toBe('DatasetFormat');
    expect(errorOf(() => ix.keys).message).toMatch(/Geocode index sections "key\.…" are damaged/);
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

  it('a worker pool given the buffer alone (the documented pattern) reads the parts its threads take: the matrix on the distance hierarchy equals the whole buffer\'s', async () => {
    const ds = Dataset.open(path);
    const pool = new WorkerPool({ threads: 2, shared: { dataset: ds.buffer } });
    try {
      const n = ds.graph.numNodes;
      const nodes = Array.from({ length: 60 }, (_, i) => (i * 7919) % n);
      // the main thread keeps to the core: only the workers read the distance hierarchy
      const chd = ContractionHierarchy.fromSections(BinFile.from(new Uint8Array(readFileSync(path)).buffer), SECTION.chDist);
      const before = ds.file.loadedBytes();
      const r = await computeMatrix(chd, endpointsFromNodes(nodes), endpointsFromNodes(nodes), { executor: pool, prefix: SECTION.chDist, inThreadMaxCells: 0 });
      const want = await computeMatrix(whole.chDist, endpointsFromNodes(nodes), endpointsFromNodes(nodes), {});
      expect([...r.cost]).toEqual([...want.cost]);
      expect(ds.file.loadedBytes()).toBe(before + bytesOf(ds.file, [SECTION.chDist]));
    } finally {
      await pool.close();
    }
  });

  it('threads taking the same part at once read it once and all see it whole', async () => {
    const ds = Dataset.open(path);
    const pool = new WorkerPool({ threads: 2, shared: { dataset: ds.buffer } });
    try {
      const addresses = [{ Street: 'Boulevard des Moulins', City: 'Monaco' }, { Street: 'Avenue de la Costa', City: 'Monaco' }];
      const task = { datasetKey: 'dataset', prefix: SECTION.geocode, addresses, limit: 1, needMatchCode: true };
      // both threads and this one open the geocoder together
      const [a, b] = await Promise.all([pool.run('geocode-items', task as never), pool.run('geocode-items', task as never), Promise.resolve(ds.geocoder)]);
      expect(a).toEqual(b);
      expect(ds.geocoder!.search(addresses[0] as never, { limit: 1 })).toEqual(whole.geocoder!.search(addresses[0] as never, { limit: 1 }));
      ds.geocoder!.index.readAll();
      expect(ds.file.loadedBytes()).toBe(bytesOf(ds.file, [...CORE, SECTION.geocode], FORWARD));
    } finally {
      await pool.close();
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
    expect(errorOf(() => ds.chDist)).toBe(e); // remembered, not read again
    // a thread reopening the shared buffer (as a worker does) names the file too
    const again = errorOf(() => Dataset.fromBuffer(ds.buffer).chDist);
    expect(again.code).toBe('DatasetFormat');
    expect(again.details?.file).toBe(p);
    expect(ds.geocoder).not.toBeNull(); // other parts still open
  });

  it('damage in an array read on first use (unpacking data, road names) is DatasetFormat naming the section at each use, while times and distances answer', () => {
    const bytes = readFileSync(path);
    const entries = (BinFile.from(new Uint8Array(bytes).buffer) as unknown as { entries: Map<string, { offset: number; length: number }> }).entries;
    const unpack = `${SECTION.chTime}b.unpack`, names = `${SECTION.graph}strBytes`;
    for (const n of [unpack, names]) bytes[entries.get(n)!.offset + Math.floor(entries.get(n)!.length / 2)] ^= 0x40;
    const p = join(dir, 'damaged-on-use.dkds');
    writeFileSync(p, bytes);
    const ds = Dataset.open(p); // opens: neither array is read yet
    const q = new ChQuery(ds.chTime), w = new ChQuery(whole.chTime);
    const t = ds.graph.numNodes - 5;
    expect(q.reset().addSource(3).addTarget(t).run().distance()).toBe(w.reset().addSource(3).addTarget(t).run().distance());
    for (let i = 0; i < 2; i++) {
      const e = errorOf(() => q.reset().addSource(3).addTarget(t).run().arcPath());
      expect(e.code).toBe('DatasetFormat');
      expect(e.message).toContain(unpack);
      expect(e.details?.file).toBe(p);
    }
    const arc = w.reset().addSource(3).addTarget(t).run().arcPath().find((a) => whole.graph.arcName(a) !== '')!;
    expect(arc).toBeDefined();
    for (let i = 0; i < 2; i++) {
      const e = errorOf(() => ds.graph.arcName(arc));
      expect(e.code).toBe('DatasetFormat');
      expect(e.message).toContain(names);
    }
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

  it('an engine closed lets its file go; used again, it reads the parts it still needs from the same file', async () => {
    const p = join(dir, 'closed.dkds');
    copyFileSync(path, p);
    const engine = await Engine.open(p, { threads: 1 });
    await engine.close();
    const r = await engine.geocode({ Addresses: [{ Street: 'Boulevard des Moulins', City: 'Monaco' }] });
    expect(r.Status).toBe('Success');
    await engine.close();
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

