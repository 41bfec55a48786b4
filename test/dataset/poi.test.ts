/** The landmark layer: what it reads from OSM, how it picks a landmark, persistence, and datasets without it. */
import { describe, expect, it } from 'vitest';
import { BinFile, BinWriter } from '../../src/core/binfile.js';
import { Dataset, SECTION } from '../../src/dataset/dataset.js';
import { PoiLayer, kindOf, MINOR_FACTOR } from '../../src/dataset/poi.js';
import { OsmElements } from '../../src/osm/xml.js';
import { fixtureDataset } from '../helpers/datasets.js';

const M = 1 / 111132; // degrees of latitude per metre

describe('kindOf', () => {
  it('classifies landmark tags', () => {
    expect(kindOf({ amenity: 'place_of_worship', religion: 'christian' })).toBe('church');
    expect(kindOf({ amenity: 'place_of_worship', religion: 'muslim' })).toBe('place_of_worship');
    expect(kindOf({ amenity: 'fuel' })).toBe('fuel');
    expect(kindOf({ shop: 'supermarket' })).toBe('supermarket');
    expect(kindOf({ shop: 'bakery' })).toBe('shop');
    expect(kindOf({ tourism: 'museum' })).toBe('museum');
    expect(kindOf({ historic: 'monument' })).toBe('monument');
    expect(kindOf({ amenity: 'bench' })).toBeNull();
    expect(kindOf({ highway: 'bus_stop' })).toBeNull();
  });
});

describe('PoiLayer', () => {
  // Around (45, 7): a shop 30 m north, a church 60 m south, an unnamed fuel station 5 m east, a bench 2 m west.
  const osm = new OsmElements()
    .node(1, 45 + 30 * M, 7, { name: 'Corner Shop', shop: 'convenience' })
    .node(2, 45 - 60 * M, 7, { name: 'St Mary', amenity: 'place_of_worship', religion: 'christian' })
    .node(3, 45, 7.00006, { amenity: 'fuel' })
    .node(4, 45, 6.99998, { name: 'Bench', amenity: 'bench' })
    .node(5, 46, 7, { name: 'Far Museum', tourism: 'museum' });
  const layer = PoiLayer.fromOsm(osm as never);

  it('keeps named landmark nodes only', () => {
    expect(layer.size).toBe(3);
  });
  it('prefers a notable kind unless an everyday one is much closer', () => {
    const l = layer.nearest(45, 7, 100)!;
    // shop: 30 m × 2.5 = 75 > church 60 m.
    expect(MINOR_FACTOR).toBe(2.5);
    expect(l).toMatchObject({ name: 'St Mary', kind: 'church' });
    expect(l.distanceM).toBeGreaterThanOrEqual(59);
    expect(l.distanceM).toBeLessThanOrEqual(61);
    // From 20 m north: shop 10 m × 2.5 = 25 < church 80 m.
    expect(layer.nearest(45 + 20 * M, 7, 100)).toMatchObject({ name: 'Corner Shop', kind: 'shop', distanceM: 10 });
    expect(layer.nearest(45 + 500 * M, 7, 100)).toBeNull();
    expect(layer.nearest(46 - 50 * M, 7, 100)).toMatchObject({ name: 'Far Museum' });
  });
  it('persists as sections and reads back the same answers', () => {
    const w = new BinWriter(0x54534554, 1);
    layer.toSections(w, 'poi.');
    const f = BinFile.from(w.toBuffer(true));
    expect(PoiLayer.has(f, 'poi.')).toBe(true);
    const back = PoiLayer.fromSections(f, 'poi.');
    expect(back.size).toBe(3);
    for (const [la, lo] of [[45, 7], [45 + 20 * M, 7], [46, 7]]) expect(back.nearest(la, lo, 100)).toEqual(layer.nearest(la, lo, 100));
  });
});

/** A section as whatever typed array it holds (BinFile.get checks the element type). */
function typed(f: BinFile, name: string) {
  for (const C of [Float64Array, Uint32Array, Int32Array, Uint16Array, Uint8Array, Float32Array, Int8Array, Int16Array] as const) {
    try {
      return f.get(name, C as never) as Float64Array;
    } catch {
      // another element type
    }
  }
  return null; // a JSON section
}

describe('datasets and landmarks', () => {
  it('the fixture dataset has a landmark layer and signposted destinations', async () => {
    const { dataset } = await fixtureDataset('monaco');
    expect(dataset.landmarks!.size).toBeGreaterThan(100);
    expect(dataset.meta.counts.landmarks).toBe(dataset.landmarks!.size);
    let dest = 0;
    for (let e = 0; e < dataset.graph.numEdges; e++) if (dataset.graph.edgeDestId[e] !== 0) dest++;
    expect(dest).toBeGreaterThan(10);
  });
  it('a dataset written without the layer and without destinations still opens (none of either)', async () => {
    const { buffer } = await fixtureDataset('monaco');
    const src = BinFile.from(buffer);
    const w = new BinWriter(src.formatTag, src.formatVersion);
    for (const name of src.names()) {
      if (name.startsWith(SECTION.poi) || name === `${SECTION.graph}edgeDestId`) continue;
      const arr = typed(src, name);
      if (arr) w.add(name, arr);
      else w.addJson(name, src.json(name));
    }
    const ds = Dataset.fromBuffer(w.toBuffer(true));
    expect(ds.landmarks).toBeNull();
    expect(ds.graph.edgeDestId.every((x) => x === 0)).toBe(true);
  });
});
