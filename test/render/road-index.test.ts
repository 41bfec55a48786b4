/**
 * The map's road index (graph/road-index.ts: a Flatbush R-tree over the edges' web-mercator
 * boxes, persisted in the dataset): a view's search gives exactly the edges whose box meets it
 * (brute force over the boxes the renderer's grid used before: float32, padded), the dataset's
 * persisted index is the one the renderer uses, and a dataset without it draws the same bytes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { BinFile, BinWriter } from '../../src/core/binfile.js';
import { mercatorX, mercatorY } from '../../src/core/geo.js';
import { Rng } from '../../src/core/rng.js';
import { Dataset, SECTION } from '../../src/dataset/dataset.js';
import type { RoadGraph } from '../../src/graph/road-graph.js';
import { ROAD_BOX_PAD, RoadBoxIndex } from '../../src/graph/road-index.js';
import { renderMapSvg, roadLayer } from '../../src/render/index.js';
import { fixtureDataset } from '../helpers/datasets.js';

let ds: Dataset;
let buffer: ArrayBufferLike;

beforeAll(async () => {
  ({ dataset: ds, buffer } = await fixtureDataset('monaco'));
});

/** Each edge's box as the renderer's grid index stored it: float32 of the padded mercator box. */
function boxes(g: RoadGraph): Float32Array {
  const box = new Float32Array(4 * g.numEdges);
  for (let e = 0; e < g.numEdges; e++) {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (let i = g.edgeGeomStart[e]; i < g.edgeGeomStart[e + 1]; i++) {
      const x = mercatorX(g.geomLon[i]), y = mercatorY(g.geomLat[i]);
      x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
    }
    box.set([x0 - ROAD_BOX_PAD, y0 - ROAD_BOX_PAD, x1 + ROAD_BOX_PAD, y1 + ROAD_BOX_PAD], 4 * e);
  }
  return box;
}

/** A copy of the dataset's buffer without the sections starting with `prefix`. */
function without(buf: ArrayBufferLike, prefix: string): ArrayBufferLike {
  const src = BinFile.from(buf);
  const w = new BinWriter(src.formatTag, src.formatVersion);
  for (const name of src.names()) {
    if (name.startsWith(prefix)) continue;
    let arr = null;
    for (const C of [Float64Array, Uint32Array, Int32Array, Uint16Array, Uint8Array, Float32Array, Int8Array, Int16Array] as const) {
      try { arr = src.get(name, C as never) as Float64Array; break; } catch { /* another element type */ }
    }
    if (arr) w.add(name, arr);
    else w.addJson(name, src.json(name));
  }
  return w.toBuffer(true);
}

describe('RoadBoxIndex', () => {
  it('a view search gives exactly the edges whose box meets the view (brute force), at every scale', () => {
    const g = ds.graph;
    const box = boxes(g);
    const ix = RoadBoxIndex.of(g);
    const rng = new Rng(2026);
    let total = 0;
    for (let q = 0; q < 600; q++) {
      const p = rng.int(g.geomLat.length);
      const zoom = 10 + rng.int(10);
      const half = (300 + rng.int(700)) / (256 * 2 ** zoom);
      // around a road point, or anywhere (also outside the data)
      const cx = rng.chance(0.8) ? mercatorX(g.geomLon[p]) : rng.next();
      const cy = rng.chance(0.8) ? mercatorY(g.geomLat[p]) : rng.next();
      const [x0, y0, x1, y1] = [cx - half, cy - half * 0.75, cx + half, cy + half * 0.75];
      const want: number[] = [];
      for (let e = 0; e < g.numEdges; e++) {
        if (!(box[4 * e] > x1 || box[4 * e + 2] < x0 || box[4 * e + 1] > y1 || box[4 * e + 3] < y0)) want.push(e);
      }
      expect(ix.search(x0, y0, x1, y1).sort((a, b) => a - b)).toEqual(want);
      total += want.length;
    }
    expect(total).toBeGreaterThan(10_000);
  });

  it('the dataset persists it and the renderer uses that one; built again it answers the same', () => {
    expect(ds.roadIndex).not.toBeNull();
    expect(RoadBoxIndex.of(ds.graph)).toBe(ds.roadIndex);
    expect(ds.roadIndex!.index!.data).toBe(buffer); // a view onto the dataset's buffer, not a copy
    const built = RoadBoxIndex.build(ds.graph);
    const rng = new Rng(7);
    for (let q = 0; q < 100; q++) {
      const x = mercatorX(7.40 + rng.next() * 0.04), y = mercatorY(43.72 + rng.next() * 0.03), h = rng.next() * 1e-4;
      expect(ds.roadIndex!.search(x - h, y - h, x + h, y + h).sort()).toEqual(built.search(x - h, y - h, x + h, y + h).sort());
    }
  });

  it('a dataset written without it opens, builds it on first use and draws the same bytes', () => {
    const old = Dataset.fromBuffer(without(buffer, SECTION.roads));
    expect(old.roadIndex).toBeNull();
    const bbox = { west: 7.41, south: 43.725, east: 7.43, north: 43.74 };
    expect(roadLayer(old.graph, bbox, 15)).toEqual(roadLayer(ds.graph, bbox, 15));
    const opts = { width: 640, height: 480, center: { lat: 43.733, lon: 7.42 }, zoom: 15, routes: [] };
    expect(renderMapSvg(old.graph, opts)).toBe(renderMapSvg(ds.graph, opts));
    expect(RoadBoxIndex.of(old.graph)).not.toBe(ds.roadIndex);
  });

  it('a damaged index is refused when the dataset opens (DatasetFormat naming the section)', () => {
    const src = BinFile.from(buffer);
    const w = new BinWriter(src.formatTag, src.formatVersion);
    for (const name of src.names()) {
      if (name === `${SECTION.roads}rtree`) { const b = src.get(name, Uint8Array).slice(); b[0] = 0; w.add(name, b); continue; }
      let arr = null;
      for (const C of [Float64Array, Uint32Array, Int32Array, Uint16Array, Uint8Array, Float32Array, Int8Array, Int16Array] as const) {
        try { arr = src.get(name, C as never) as Float64Array; break; } catch { /* another element type */ }
      }
      if (arr) w.add(name, arr);
      else w.addJson(name, src.json(name));
    }
    expect(() => Dataset.fromBuffer(w.toBuffer(true))).toThrow(expect.objectContaining({ code: 'DatasetFormat', details: expect.objectContaining({ section: SECTION.roads }) }));
  });
});
