/** Reverse geocoding through the Engine on the Monaco fixture dataset (the path dispatch uses to fill the Address of coordinate-only stops). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { fixtureDataset } from '../helpers/datasets.js';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 1 });
});
afterAll(() => engine.close());

describe('Engine.reverseGeocode', () => {
  it("names the Prince's Palace square, not the road tunnel beneath it", () => {
    const r = engine.reverseGeocode(43.7314, 7.42);
    expect(r).toMatchObject({ kind: 'street', address: { Street: 'Place du Palais', City: 'Monaco' } });
    expect(r!.distance).toBeLessThan(75);
  });

  it('gives an address point when one is near', () => {
    const r = engine.reverseGeocode(43.7478266 + 0.00002, 7.4362537); // 22 Avenue Princesse Grace
    expect(r).toMatchObject({ kind: 'address', address: { Street: '22 Avenue Princesse Grace' } });
  });
});
