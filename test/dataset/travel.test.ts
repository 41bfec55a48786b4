/** The travel provider over a dataset: profiles (metric, constant speed, blocked arcs) against the hierarchies and a plain Dijkstra. */
import { beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../src/core/rng.js';
import { DatasetTravel } from '../../src/dataset/travel.js';
import type { Dataset } from '../../src/dataset/dataset.js';
import { Dijkstra } from '../../src/graph/dijkstra.js';
import { ROUNDED_UNREACHABLE, type Placement, type TravelProfile } from '../../src/route/travel.js';
import { fixtureDataset } from '../helpers/datasets.js';
import { WorkerPool } from '../../src/workers/pool.js';

let ds: Dataset;
let travel: DatasetTravel;
let places: Placement[];

beforeAll(async () => {
  ds = (await fixtureDataset('monaco')).dataset;
  travel = new DatasetTravel(ds);
  const rng = new Rng(42);
  const bb = ds.meta.bbox;
  places = [];
  while (places.length < 30) {
    const lat = bb.minLat + rng.next() * (bb.maxLat - bb.minLat), lon = bb.minLon + rng.next() * (bb.maxLon - bb.minLon);
    if (!ds.snapper.trySnap(lat, lon, { radiusM: 100 })) continue;
    places.push(travel.place({ lat, lon }, `p${places.length}`));
  }
  // A junction node's own coordinate too (entries at the node).
  const node = [...Array(ds.graph.numNodes).keys()].find((v) => ds.graph.firstOut[v + 1] - ds.graph.firstOut[v] >= 3)!;
  places.push(travel.place({ lat: ds.graph.lat[node], lon: ds.graph.lon[node] }, 'junction'));
});

describe('DatasetTravel', () => {
  it('an empty blocked set gives the hierarchy\'s matrix and routes (both metrics)', async () => {
    const none = new Uint8Array(ds.graph.numArcs);
    for (const metric of ['time', 'distance'] as const) {
      const ch = await travel.matrix(places, { metric });
      const dj = await travel.matrix(places, { metric, blockedArcs: none });
      const cost = metric === 'time' ? 'timeS' : 'distanceM';
      for (let k = 0; k < ch[cost].length; k++) expect(dj[cost][k]).toBeCloseTo(ch[cost][k], 6);
      for (let i = 0; i < 5; i++) {
        const a = travel.route(places[i], places[i + 7], { metric });
        const b = travel.route(places[i], places[i + 7], { metric, blockedArcs: none });
        expect(b.found).toBe(a.found);
        expect(metric === 'time' ? b.timeMs : b.lengthCm).toBe(metric === 'time' ? a.timeMs : a.lengthCm);
      }
    }
  });

  it('blocked arcs are never driven: the detour equals a Dijkstra on the graph without them, and is no shorter', async () => {
    const profile: TravelProfile = { metric: 'distance' };
    const from = places[0], to = places[12];
    const direct = travel.route(from, to, profile, true);
    expect(direct.found).toBe(true);
    const g = ds.graph;
    // Block every arc of the edges the best path uses in its middle third.
    const blocked = new Uint8Array(g.numArcs);
    const arcs = direct.arcs!;
    for (const a of arcs.slice(Math.floor(arcs.length / 3), Math.ceil((2 * arcs.length) / 3))) {
      const e = g.arcEdge[a];
      for (let k = g.edgeArcStart[e]; k < g.edgeArcStart[e + 1]; k++) blocked[g.edgeArcs[k]] = 1;
    }
    const detour = travel.route(from, to, { ...profile, blockedArcs: blocked }, true);
    expect(detour.found).toBe(true);
    expect(detour.lengthCm).toBeGreaterThanOrEqual(direct.lengthCm);
    expect(detour.arcs!.length).toBeGreaterThan(0);
    expect(detour.arcs!.filter((a) => blocked[a])).toEqual([]);
    // The path is connected and sums to the reported length (less the partial entry arcs).
    for (let k = 1; k < detour.arcs!.length; k++) expect(g.tail[detour.arcs![k]]).toBe(g.head[detour.arcs![k - 1]]);
    // Oracle: Dijkstra over the graph with blocked arcs at an unreachable weight, from the snaps' entries.
    const weight = Uint32Array.from(g.lengthCm, (w, a) => (blocked[a] ? 0xffffffff : w));
    const d = new Dijkstra({ numNodes: g.numNodes, tail: g.tail, head: g.head, weight });
    for (const e of from.snap.sourceEntries) if (!blocked[e.arc]) d.addSource(e.node, e.lengthCm);
    d.run();
    let best = Infinity;
    for (const e of to.snap.targetEntries) if (!blocked[e.arc]) best = Math.min(best, d.distance(e.node) + e.lengthCm);
    if (Number.isFinite(detour.lengthCm) && best < 0xffffffff) expect(detour.lengthCm).toBe(best);
    // The matrix agrees with the point-to-point answer.
    const m = await travel.matrix([from, to], { ...profile, blockedArcs: blocked });
    expect(m.distanceM[1]).toBeCloseTo(detour.lengthCm / 100, 6);
  });

  it('a constant speed gives time = length / speed over the metric\'s path', async () => {
    const speedMps = 10;
    const m = await travel.matrix(places, { metric: 'distance', speedMps });
    const plain = await travel.matrix(places, { metric: 'distance' });
    for (let k = 0; k < m.distanceM.length; k++) {
      expect(m.distanceM[k]).toBe(plain.distanceM[k]);
      if (Number.isFinite(m.distanceM[k])) expect(m.timeS[k]).toBeCloseTo(m.distanceM[k] / speedMps, 9);
    }
    const r = travel.route(places[1], places[2], { metric: 'distance', speedMps });
    expect(r.timeMs).toBeCloseTo((r.lengthCm / 100 / speedMps) * 1000, 6);
  });

  it('places many queries in order, reporting each failure as a coded error naming its path', async () => {
    const out = await travel.placeMany([{ lat: 43.73, lon: 7.42 }, { lat: 123, lon: 7 }, { lat: 0, lon: 0 }], { paths: ['a', 'b', 'c'] });
    expect('snap' in out[0]).toBe(true);
    expect(out[1]).toMatchObject({ error: { code: 'InvalidInput', path: 'b.LatLong.Latitude' } });
    expect(out[2]).toMatchObject({ error: { code: 'NoSegment' } });
  });
});

describe('rounded matrices (whole seconds and metres on shared memory)', () => {
  it('equal the fractional matrix rounded, in both metrics, in this thread and on the pool; no path = the solver\'s unreachable', async () => {
    const { buffer } = await fixtureDataset('monaco');
    const pool = new WorkerPool({ threads: 2, shared: { dataset: buffer } });
    try {
      for (const metric of ['time', 'distance'] as const) {
        const f = await travel.matrix(places, { metric });
        for (const executor of [undefined, pool]) {
          const r = await travel.matrixRounded(places, { metric }, { executor, restricted: undefined, ...(executor ? { } : {}) });
          expect(r.time.buffer).toBeInstanceOf(SharedArrayBuffer);
          for (let i = 0; i < f.timeS.length; i++) {
            expect(r.time[i]).toBe(Number.isFinite(f.timeS[i]) ? Math.round(f.timeS[i]) : ROUNDED_UNREACHABLE);
            expect(r.distance![i]).toBe(Number.isFinite(f.distanceM[i]) ? Math.round(f.distanceM[i]) : ROUNDED_UNREACHABLE);
          }
        }
      }
      await expect(travel.matrixRounded(places, { metric: 'time', speedMps: 10 })).rejects.toThrow(/constant speed/);
    } finally {
      await pool.close();
    }
  });

  it('without distances: the same times, no distance matrix, and each leg measured alone as the full matrix holds it', async () => {
    const full = await travel.matrixRounded(places, { metric: 'time' });
    const times = await travel.matrixRounded(places, { metric: 'time' }, { distance: false });
    expect(times.distance).toBeNull();
    expect(times.time.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Array.from(times.time)).toEqual(Array.from(full.time));
    const n = places.length;
    let differ = 0;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const leg = i === j ? { time: 0, distance: 0 } : travel.legRounded(places[i], places[j], { metric: 'time' });
        expect(leg.time, `time ${i} → ${j}`).toBe(full.time[i * n + j]);
        // where two paths take the same time, the pair search and the matrix may measure different ones
        if (leg.distance !== full.distance![i * n + j]) differ++;
      }
    }
    expect(differ).toBeLessThanOrEqual(Math.ceil(n * n * 0.02));
    await expect(travel.matrixRounded(places, { metric: 'distance' }, { distance: false })).rejects.toThrow(/time metric only/);
  });
});

describe('restricted matrices on the worker pool', () => {
  it('rows split over worker threads give exactly the in-thread matrix', async () => {
    const { buffer } = await fixtureDataset('monaco');
    const pool = new WorkerPool({ threads: 2, shared: { dataset: buffer } });
    try {
      const zone = [{ lat: 43.7375, lon: 7.4245 }, { lat: 43.7375, lon: 7.431 }, { lat: 43.742, lon: 7.431 }, { lat: 43.742, lon: 7.4245 }];
      const blocked = travel.blockedArcs([{ points: zone, restriction: 'DoNotEnter' }]);
      const many = [...places, ...places.slice(0, 10)]; // ≥ 32 sources: the parallel path
      for (const metric of ['time', 'distance'] as const) {
        const here = await travel.matrix(many, { metric, blockedArcs: blocked }, { restricted: 'dijkstra' });
        const there = await travel.matrix(many, { metric, blockedArcs: blocked }, { executor: pool, restricted: 'dijkstra' });
        expect(Array.from(there.timeS)).toEqual(Array.from(here.timeS));
        expect(Array.from(there.distanceM)).toEqual(Array.from(here.distanceM));
      }
    } finally {
      await pool.close();
    }
  });

  it('the customizable hierarchy gives the per-row Dijkstra matrix (random zones, both metrics)', async () => {
    const rng = new Rng(5);
    let differ = 0, cells = 0;
    for (let k = 0; k < 6; k++) {
      const la = 43.728 + rng.next() * 0.012, lo = 7.412 + rng.next() * 0.015, s = 0.0015 + rng.next() * 0.003;
      const zone = [{ lat: la, lon: lo }, { lat: la, lon: lo + s }, { lat: la + s, lon: lo + s }, { lat: la + s, lon: lo }];
      const blocked = travel.blockedArcs([{ points: zone, restriction: rng.chance(0.8) ? 'DoNotEnter' : 'DoNotExit' }]);
      for (const metric of ['time', 'distance'] as const) {
        const cch = await travel.matrix(places, { metric, blockedArcs: blocked });
        const dij = await travel.matrix(places, { metric, blockedArcs: blocked }, { restricted: 'dijkstra' });
        const main = metric === 'time' ? 'timeS' : 'distanceM';
        const other = metric === 'time' ? 'distanceM' : 'timeS';
        expect(Array.from(cch[main])).toEqual(Array.from(dij[main]));
        for (let i = 0; i < cch[other].length; i++) {
          cells++;
          // equal best cost; the other figure is that of a best path (the hierarchy takes the smallest among ties)
          if (cch[other][i] !== dij[other][i]) { differ++; expect(cch[other][i]).toBeLessThan(dij[other][i]); }
        }
      }
    }
    expect(places.length).toBeGreaterThanOrEqual(16); // the hierarchy's path
    expect(ds.cch).not.toBeNull();
    expect(differ / cells).toBeLessThan(0.02);
  });
});
