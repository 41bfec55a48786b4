import { beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Rng } from '../../src/core/rng.js';
import { ChQuery } from '../../src/ch/index.js';
import { Dijkstra } from '../../src/graph/dijkstra.js';
import { buildDatasetFile } from '../../src/dataset/build.js';
import { Dataset } from '../../src/dataset/dataset.js';
import { WorkerPool } from '../../src/workers/pool.js';
import { fixtureDataset, FIXTURE } from '../helpers/datasets.js';

describe.each(['monaco', 'andorra'] as const)('dataset %s', (name) => {
  let ds: Dataset;
  beforeAll(async () => {
    ds = (await fixtureDataset(name)).dataset;
  });

  it('has a connected car graph with both hierarchies', () => {
    expect(ds.graph.numNodes).toBeGreaterThan(1000);
    expect(ds.chTime.numNodes).toBe(ds.graph.numNodes);
    expect(ds.chDist.numNodes).toBe(ds.graph.numNodes);
    expect(ds.meta.counts.arcs).toBe(ds.graph.numArcs);
    expect(ds.meta.attribution).toContain('OpenStreetMap');
  });

  for (const metric of ['time', 'distance'] as const) {
    it(`CH equals Dijkstra on 3000 random pairs (${metric}), aux and unpacked paths consistent`, () => {
      const g = ds.graph;
      const weight = metric === 'time' ? g.timeMs : g.lengthCm;
      const aux = metric === 'time' ? g.lengthCm : g.timeMs;
      const dij = new Dijkstra({ numNodes: g.numNodes, tail: g.tail, head: g.head, weight, aux });
      const q = new ChQuery(metric === 'time' ? ds.chTime : ds.chDist);
      const rng = new Rng(metric === 'time' ? 11 : 12);
      let mismatches = 0;
      for (let i = 0; i < 3000; i++) {
        const s = rng.int(g.numNodes);
        const t = rng.int(g.numNodes);
        const d = dij.reset().addSource(s).run(t).distance(t);
        q.reset().addSource(s).addTarget(t).run();
        if (q.distance() !== d) mismatches++;
        if (i % 10 === 0 && Number.isFinite(d)) {
          const path = q.arcPath();
          let w = 0, a = 0, at = s;
          for (const arc of path) {
            expect(g.tail[arc]).toBe(at);
            at = g.head[arc];
            w += weight[arc];
            a += aux[arc];
          }
          expect(at).toBe(t);
          expect(w).toBe(d);
          expect(a).toBe(q.aux());
        }
      }
      expect(mismatches).toBe(0);
    });
  }
});

describe('dataset file', () => {
  it('builds with the pool, writes, reloads without parsing, and gives identical answers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dk-ds-'));
    const out = join(dir, 'monaco.dkds');
    const pool = new WorkerPool({ threads: 2 });
    const events: string[] = [];
    try {
      const r = await buildDatasetFile(FIXTURE.monaco, out, { executor: pool, onProgress: (e) => { if (!events.includes(e.phase)) events.push(e.phase); } });
      expect(r.bytes).toBeGreaterThan(100_000);
      expect(Object.keys(r.meta.timingsMs)).toEqual(expect.arrayContaining(['decode', 'graph', 'ch', 'snap-index', 'write']));
    } finally {
      await pool.close();
    }
    expect(events).toEqual(expect.arrayContaining(['ch-time', 'ch-distance']));
    const a = Dataset.open(out);
    const b = (await fixtureDataset('monaco')).dataset;
    expect(a.buffer instanceof SharedArrayBuffer).toBe(true);
    expect(a.graph.numArcs).toBe(b.graph.numArcs);
    const qa = new ChQuery(a.chTime);
    const qb = new ChQuery(b.chTime);
    const rng = new Rng(5);
    for (let i = 0; i < 200; i++) {
      const s = rng.int(a.graph.numNodes), t = rng.int(a.graph.numNodes);
      expect(qa.reset().addSource(s).addTarget(t).run().distance()).toBe(qb.reset().addSource(s).addTarget(t).run().distance());
    }
  });

  it('refuses a missing file and a foreign file with clear errors', () => {
    expect(() => Dataset.open('/nonexistent/x.dkds')).toThrow(/not found/);
    expect(() => Dataset.open(FIXTURE.monaco)).toThrow(/Not a dispatchkit dataset/);
  });
});
