import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildContractionHierarchy, ChQuery, ContractionHierarchy } from '../../src/ch/index.js';
import {
  BucketManyToMany, computeMatrix, endpointsFromNodes, estimateMatrixMemory, sliceEndpoints, SweepManyToMany, UNREACHABLE,
  type EndpointEntries,
} from '../../src/matrix/index.js';
import { readDimacsGr } from '../../src/graph/formats/dimacs.js';
import type { ArcGraph } from '../../src/graph/formats/arcs.js';
import { BinFile, BinWriter } from '../../src/core/binfile.js';
import { EngineError } from '../../src/core/errors.js';
import { Rng } from '../../src/core/rng.js';
import { WorkerPool } from '../../src/workers/pool.js';
import { allPairs, arbGraph, auxRange } from '../ch/random-graph.js';

const ROME = new URL('../../fixtures/rome99.gr', import.meta.url).pathname;

type Entry = [node: number, cost: number, aux: number];

function entries(list: Entry[][]): EndpointEntries {
  const start = new Uint32Array(list.length + 1);
  const flat = list.flat();
  let k = 0;
  list.forEach((l, i) => { k += l.length; start[i + 1] = k; });
  return {
    count: list.length,
    start,
    node: Uint32Array.from(flat, (e) => e[0]),
    cost: Uint32Array.from(flat, (e) => e[1]),
    aux: Uint32Array.from(flat, (e) => e[2]),
  };
}

function runKernel(kind: 'sweep' | 'bucket', ch: ContractionHierarchy, S: EndpointEntries, T: EndpointEntries, withAux = true, batch?: number) {
  const cost = new Uint32Array(S.count * T.count);
  const aux = withAux ? new Uint32Array(S.count * T.count) : null;
  const k = kind === 'sweep' ? new SweepManyToMany(ch, { batch }) : new BucketManyToMany(ch);
  k.run(S, T, { cost, aux });
  return { cost, aux, kernel: k };
}

const arbEndpoints = (maxLen: number) => fc.array(fc.array(fc.tuple(fc.nat(), fc.nat(25), fc.nat(25)), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: maxLen });

describe('many-to-many kernels on random graphs', () => {
  it('every cell equals Dijkstra and the p2p CH query (both kernels, several batch sizes)', () => {
    fc.assert(fc.property(arbGraph(), fc.array(fc.nat(), { minLength: 1, maxLength: 9 }), fc.array(fc.nat(), { minLength: 1, maxLength: 9 }), fc.constantFrom(4, 8, 32), (g, a, b, batch) => {
      const n = g.numNodes;
      const src = a.map((x) => x % n);
      const tgt = b.map((x) => x % n);
      const ch = buildContractionHierarchy(g);
      const truth = allPairs(g);
      const S = endpointsFromNodes(src);
      const T = endpointsFromNodes(tgt);
      const sw = runKernel('sweep', ch, S, T, true, batch);
      const bu = runKernel('bucket', ch, S, T, true);
      const q = new ChQuery(ch);
      for (let i = 0; i < src.length; i++) {
        for (let j = 0; j < tgt.length; j++) {
          const d = truth[src[i] * n + tgt[j]];
          const want = d === Infinity ? UNREACHABLE : d;
          expect(sw.cost[i * tgt.length + j]).toBe(want);
          expect(bu.cost[i * tgt.length + j]).toBe(want);
          q.reset().addSource(src[i]).addTarget(tgt[j]).run();
          expect(q.distance() === Infinity ? UNREACHABLE : q.distance()).toBe(want);
          if (d === Infinity) expect(sw.aux![i * tgt.length + j]).toBe(UNREACHABLE);
        }
      }
    }), { seed: 777, numRuns: 200 });
  });

  it('aux is the aux of a shortest path (within [min, max] over all shortest paths)', () => {
    fc.assert(fc.property(arbGraph({ minWeight: 1, maxWeight: 6 }), fc.array(fc.nat(), { minLength: 1, maxLength: 8 }), fc.array(fc.nat(), { minLength: 1, maxLength: 8 }), (g, a, b) => {
      const n = g.numNodes;
      const src = a.map((x) => x % n);
      const tgt = b.map((x) => x % n);
      const ch = buildContractionHierarchy(g);
      for (const kind of ['sweep', 'bucket'] as const) {
        const r = runKernel(kind, ch, endpointsFromNodes(src), endpointsFromNodes(tgt));
        src.forEach((s, i) => {
          const { dist, minAux, maxAux } = auxRange(g, s);
          tgt.forEach((t, j) => {
            if (dist[t] === Infinity) return;
            const x = r.aux![i * tgt.length + j];
            expect(x).toBeGreaterThanOrEqual(minAux[t]);
            expect(x).toBeLessThanOrEqual(maxAux[t]);
          });
        });
      }
    }), { seed: 4242, numRuns: 200 });
  });

  it('multi-entry endpoints with offsets: cell = min over entry pairs, aux from one optimal pair', () => {
    fc.assert(fc.property(arbGraph({ minWeight: 1, maxWeight: 9 }), arbEndpoints(5), arbEndpoints(5), (g, sRaw, tRaw) => {
      const n = g.numNodes;
      const sl = sRaw.map((l) => l.map(([v, c, x]) => [v % n, c, x] as Entry));
      const tl = tRaw.map((l) => l.map(([v, c, x]) => [v % n, c, x] as Entry));
      const ch = buildContractionHierarchy(g);
      const ranges = new Map<number, ReturnType<typeof auxRange>>();
      const range = (s: number) => ranges.get(s) ?? (ranges.set(s, auxRange(g, s)), ranges.get(s)!);
      for (const kind of ['sweep', 'bucket'] as const) {
        const r = runKernel(kind, ch, entries(sl), entries(tl));
        sl.forEach((se, i) => tl.forEach((te, j) => {
          let best = Infinity;
          for (const [s, cs] of se) for (const [t, ct] of te) best = Math.min(best, cs + range(s).dist[t] + ct);
          const cell = i * tl.length + j;
          expect(r.cost[cell]).toBe(best === Infinity ? UNREACHABLE : best);
          if (best === Infinity) return;
          const x = r.aux![cell];
          let ok = false;
          for (const [s, cs, as] of se) for (const [t, ct, at] of te) {
            const rg = range(s);
            if (cs + rg.dist[t] + ct === best && x >= as + rg.minAux[t] + at && x <= as + rg.maxAux[t] + at) ok = true;
          }
          expect(ok, `${kind} cell ${i},${j}: aux ${x}`).toBe(true);
        }));
      }
    }), { seed: 31337, numRuns: 200 });
  });

  it('rows computed in separate bands equal the whole matrix (tiling invariance)', () => {
    fc.assert(fc.property(arbGraph(), fc.array(fc.nat(), { minLength: 2, maxLength: 12 }), fc.array(fc.nat(), { minLength: 1, maxLength: 8 }), fc.nat(), (g, a, b, cut0) => {
      const n = g.numNodes;
      const S = endpointsFromNodes(a.map((x) => x % n));
      const T = endpointsFromNodes(b.map((x) => x % n));
      const ch = buildContractionHierarchy(g);
      const whole = runKernel('sweep', ch, S, T);
      const cut = 1 + (cut0 % (S.count - 1));
      const k = new SweepManyToMany(ch, { batch: 4 });
      const cost = new Uint32Array(S.count * T.count);
      const aux = new Uint32Array(S.count * T.count);
      k.pinTargets(T, true);
      k.runPinned(sliceEndpoints(S, cut, S.count), { cost, aux, offset: cut * T.count });
      k.runPinned(sliceEndpoints(S, 0, cut), { cost, aux });
      expect(Array.from(cost)).toEqual(Array.from(whole.cost));
      expect(Array.from(aux)).toEqual(Array.from(whole.aux!));
    }), { seed: 8, numRuns: 150 });
  });

  it('a selection exported by one kernel and imported by another gives the same matrix', () => {
    fc.assert(fc.property(arbGraph(), fc.array(fc.nat(), { minLength: 1, maxLength: 9 }), fc.array(fc.nat(), { minLength: 1, maxLength: 9 }), fc.boolean(), (g, a, b, withAux) => {
      const n = g.numNodes;
      const S = endpointsFromNodes(a.map((x) => x % n));
      const T = endpointsFromNodes(b.map((x) => x % n));
      const ch = buildContractionHierarchy(g);
      const k1 = new SweepManyToMany(ch);
      k1.pinTargets(T, withAux);
      const out1 = { cost: new Uint32Array(S.count * T.count), aux: withAux ? new Uint32Array(S.count * T.count) : null };
      k1.runPinned(S, out1);
      const k2 = new SweepManyToMany(ch);
      k2.pinTargets(endpointsFromNodes([0]), false); // something else pinned before
      k2.importPin(T, structuredClone(k1.exportPin()));
      const out2 = { cost: new Uint32Array(S.count * T.count), aux: withAux ? new Uint32Array(S.count * T.count) : null };
      k2.runPinned(S, out2);
      expect(Array.from(out2.cost)).toEqual(Array.from(out1.cost));
      if (withAux) expect(Array.from(out2.aux!)).toEqual(Array.from(out1.aux!));
    }), { seed: 77, numRuns: 100 });
  });

  it('stays exact with weights near the int32 bound (int32 or float64 tables)', () => {
    fc.assert(fc.property(arbGraph({ minWeight: 100_000_000, maxWeight: 300_000_000 }), fc.array(fc.nat(), { minLength: 1, maxLength: 8 }), (g, a) => {
      const n = g.numNodes;
      const nodes = a.map((x) => x % n);
      const ch = buildContractionHierarchy(g);
      const truth = allPairs(g);
      const r = runKernel('sweep', ch, endpointsFromNodes(nodes), endpointsFromNodes(nodes));
      nodes.forEach((s, i) => nodes.forEach((t, j) => {
        const d = truth[s * n + t];
        expect(r.cost[i * nodes.length + j]).toBe(d === Infinity ? UNREACHABLE : d);
      }));
    }), { seed: 12, numRuns: 100 });
  });

  it('falls back to float64 tables when distances may exceed 2^30', () => {
    // A chain 0→1→…→5 of 4e8 each: paths up to 2e9 > 2^30.
    const k = 6;
    const g: ArcGraph = {
      numNodes: k,
      tail: Uint32Array.from({ length: k - 1 }, (_, i) => i),
      head: Uint32Array.from({ length: k - 1 }, (_, i) => i + 1),
      weight: new Uint32Array(k - 1).fill(400_000_000),
      aux: new Uint32Array(k - 1).fill(7),
    };
    const ch = buildContractionHierarchy(g);
    const all = endpointsFromNodes([0, 1, 2, 3, 4, 5]);
    const r = runKernel('sweep', ch, all, all);
    expect((r.kernel as SweepManyToMany).floatBatches).toBeGreaterThan(0);
    for (let i = 0; i < k; i++) {
      for (let j = 0; j < k; j++) {
        expect(r.cost[i * k + j]).toBe(j >= i ? (j - i) * 400_000_000 : UNREACHABLE);
        expect(r.aux![i * k + j]).toBe(j >= i ? (j - i) * 7 : UNREACHABLE);
      }
    }
    // Small weights on the same shape stay in int32.
    const small = runKernel('sweep', buildContractionHierarchy({ ...g, weight: new Uint32Array(k - 1).fill(5) }), all, all);
    expect((small.kernel as SweepManyToMany).intBatches).toBeGreaterThan(0);
    expect((small.kernel as SweepManyToMany).floatBatches).toBe(0);
  });
});

describe('computeMatrix', () => {
  const g: ArcGraph = readDimacsGr(ROME);
  g.aux = Uint32Array.from(g.weight, (_, i) => (i * 7919) % 1000);
  const ch0 = buildContractionHierarchy(g);
  const w = new BinWriter(1, 1);
  ch0.toSections(w, 'ch.test.');
  const dataset = w.toBuffer(true);
  const ch = ContractionHierarchy.fromSections(BinFile.from(dataset), 'ch.test.');
  const pool = new WorkerPool({ threads: 2, shared: { dataset } });
  afterAll(() => pool.close());
  const rng = new Rng(2024);
  const pick = (k: number) => endpointsFromNodes(Array.from({ length: k }, () => rng.int(g.numNodes)));
  const S = pick(150);
  const T = pick(120);

  it('in-thread result equals the p2p queries', async () => {
    const r = await computeMatrix(ch, S, T);
    expect(r.tiles).toBe(0);
    expect(r.aux).not.toBeNull();
    const q = new ChQuery(ch);
    for (let i = 0; i < S.count; i += 7) {
      for (let j = 0; j < T.count; j++) {
        q.reset().addSource(S.node[i]).addTarget(T.node[j]).run();
        expect(r.cost[i * T.count + j]).toBe(q.distance());
      }
    }
  });

  it('pool tiles (both threads) give exactly the in-thread matrix, and report progress', async () => {
    const local = await computeMatrix(ch, S, T);
    const events: number[] = [];
    const r = await computeMatrix(ch, S, T, { executor: pool, prefix: 'ch.test.', inThreadMaxCells: 0, tileCells: 2000, onProgress: (e) => events.push(e.done) });
    expect(r.tiles).toBeGreaterThan(4);
    expect(Array.from(r.cost)).toEqual(Array.from(local.cost));
    expect(Array.from(r.aux!)).toEqual(Array.from(local.aux!));
    expect(events.length).toBe(r.tiles);
    expect(events[events.length - 1]).toBe(S.count);
    for (let i = 1; i < events.length; i++) expect(events[i]).toBeGreaterThan(events[i - 1]);
    // The bucket kernel on the pool agrees on every cost.
    const b = await computeMatrix(ch, S, T, { executor: pool, prefix: 'ch.test.', inThreadMaxCells: 0, tileCells: 5000, kernel: 'bucket', withAux: false });
    expect(b.aux).toBeNull();
    expect(Array.from(b.cost)).toEqual(Array.from(local.cost));
  });

  it('throws TooBig up front, naming the size and the limit', async () => {
    const err = await computeMatrix(ch, S, T, { maxMatrixBytes: 100_000 }).catch((e) => e);
    expect(err).toBeInstanceOf(EngineError);
    expect(err.code).toBe('TooBig');
    expect(err.message).toMatch(/150×120/);
    expect(err.message).toMatch(/maxMatrixBytes/);
    expect(err.message).toMatch(/limit is 98 KiB/);
    const e2 = await computeMatrix(ch, S, T, { maxCells: 1000 }).catch((e) => e);
    expect(e2.code).toBe('TooBig');
    expect(e2.message).toMatch(/18,000 cells; the limit is 1,000 cells/);
    const est = estimateMatrixMemory(ch, 100_000, 100_000);
    expect(est.outputBytes).toBe(100_000 * 100_000 * 8);
    const e3 = await computeMatrix(ch, endpointsFromNodes(new Uint32Array(30_000)), endpointsFromNodes(new Uint32Array(30_000))).catch((e) => e);
    expect(e3.code).toBe('TooBig');
    expect(e3.message).toMatch(/30000×30000 distance matrix would need about 6\.\d GiB \(output 6\.7 GiB/);
    expect(e3.message).toMatch(/the limit is 2\.0 GiB/);
    const e4 = await computeMatrix(ch, endpointsFromNodes(new Uint32Array(40_000)), endpointsFromNodes(new Uint32Array(40_000)), { maxMatrixBytes: 2 ** 40 }).catch((e) => e);
    expect(e4.code).toBe('TooBig');
    expect(e4.message).toMatch(/1,600,000,000 cells; the limit is 1,073,741,824 cells \(one typed array of at most 4 GiB\)/);
  });

  it('is cancelled by an AbortSignal (before, in-thread between chunks, and on the pool)', async () => {
    const ctl = new AbortController();
    ctl.abort();
    expect((await computeMatrix(ch, S, T, { signal: ctl.signal }).catch((e) => e)).code).toBe('Cancelled');
    const big = pick(600);
    const c2 = new AbortController();
    const e2 = await computeMatrix(ch, big, T, { signal: c2.signal, onProgress: () => c2.abort() }).catch((e) => e);
    expect(e2.code).toBe('Cancelled');
    const c3 = new AbortController();
    const e3 = await computeMatrix(ch, big, T, { executor: pool, prefix: 'ch.test.', inThreadMaxCells: 0, tileCells: 1200, signal: c3.signal, onProgress: () => c3.abort() }).catch((e) => e);
    expect(e3.code).toBe('Cancelled');
    // The pool still works afterwards.
    const ok = await computeMatrix(ch, S, T, { executor: pool, prefix: 'ch.test.', inThreadMaxCells: 0 });
    expect(ok.tiles).toBeGreaterThan(0);
  });

  it('validates endpoints (every endpoint needs an entry; node ids in range)', async () => {
    const bad = { count: 2, start: Uint32Array.from([0, 1, 1]), node: Uint32Array.from([0]), cost: Uint32Array.from([0]) };
    const e1 = await computeMatrix(ch, bad, T).catch((e) => e);
    expect(e1.code).toBe('InvalidInput');
    expect(e1.path).toBe('sources[1]');
    const e2 = await computeMatrix(ch, S, endpointsFromNodes([g.numNodes])).catch((e) => e);
    expect(e2.code).toBe('InvalidInput');
    expect(e2.path).toBe('targets.node[0]');
    const e3 = await computeMatrix(ch, S, T, { executor: pool, inThreadMaxCells: 0 }).catch((e) => e);
    expect(e3.code).toBe('InvalidInput');
    expect(e3.path).toBe('prefix');
  });

  it('writes into caller-provided arrays', async () => {
    const want = await computeMatrix(ch, S, T);
    const cost = new Uint32Array(S.count * T.count);
    const aux = new Uint32Array(S.count * T.count);
    const r = await computeMatrix(ch, S, T, { out: { cost, aux }, executor: pool, prefix: 'ch.test.', inThreadMaxCells: 0 });
    expect(r.cost).toBe(cost);
    expect(r.aux).toBe(aux);
    expect(Array.from(cost)).toEqual(Array.from(want.cost));
    expect(Array.from(aux)).toEqual(Array.from(want.aux!));
    const e = await computeMatrix(ch, S, T, { out: { cost: new Uint32Array(10) } }).catch((x) => x);
    expect(e.code).toBe('InvalidInput');
  });

  it('empty lists give an empty matrix', async () => {
    const r = await computeMatrix(ch, endpointsFromNodes([]), T);
    expect(r.cost.length).toBe(0);
  });
});
