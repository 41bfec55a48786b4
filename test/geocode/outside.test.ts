/** Geocoding outside the extract: no location rather than the nearest-sounding street of another country. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { extracts, measureOutside } from '../../bench/geocode/outside.js';
import { fixtureDataset } from '../helpers/datasets.js';

let andorra: Engine;
beforeAll(async () => {
  andorra = await Engine.open((await fixtureDataset('andorra')).buffer, { threads: 1 });
});
afterAll(() => andorra.close());

describe('outside the extract', () => {
  it('"Rue de Rivoli 10, Paris, France" against Andorra: no location, an error naming the address', async () => {
    const r = await andorra.geocode({ IsNeedMatchCode: true, Addresses: [{ Street: 'Rue de Rivoli 10', City: 'Paris', Country: 'France' }] });
    expect(r.Status).toBe('SuccessWithErrors');
    expect(r.Items![0].Locations).toEqual([]);
    expect(r.Errors![0].Message).toMatch(/Addresses\[0\].*Rue de Rivoli 10, Paris, France/);
    // Only the city, or only an unknown postcode, says the same.
    expect((await andorra.geocode({ Addresses: [{ Street: 'Rue de Rivoli 10', City: 'Paris' }] })).Items![0].Locations).toEqual([]);
    expect((await andorra.geocode({ Addresses: [{ Street: 'Rue de Rivoli 10', PostalCode: '75001' }] })).Items![0].Locations).toEqual([]);
  });

  it('in a dispatch, that stop is left out with the reason, not routed', async () => {
    const r = await andorra.dispatch({
      MinimumOptimization: 1,
      Vehicles: [{ Name: 'V', StartLocation: { Name: 'Depot', LatLong: { Latitude: 42.5078, Longitude: 1.5211 } } }],
      Locations: [
        { Name: 'Paris', Address: { Street: 'Rue de Rivoli 10', City: 'Paris', Country: 'France' } },
        { Name: 'Here', LatLong: { Latitude: 42.5063, Longitude: 1.5218 } },
      ],
    });
    expect(r.Status).toBe('SuccessWithErrors');
    expect(r.Items!.flatMap((it) => it.Locations!.map((l) => l.Name))).not.toContain('Paris');
    expect(r.Errors!.map((e) => e.Message).join('\n')).toMatch(/'Paris' \(Locations\[0\]\).*not found/);
  });

  it('real addresses of another extract, with and without City/PostalCode/Country: ≤ 1 % Good/Exact, ≤ 5 % any location', () => {
    const rows = measureOutside(extracts().filter((e) => e.name === 'monaco' || e.name === 'andorra'));
    const n = rows.reduce((a, r) => a + r.n, 0);
    expect(n).toBeGreaterThan(700);
    expect(rows.reduce((a, r) => a + r.goodExact, 0) / n).toBeLessThanOrEqual(0.01);
    expect(rows.reduce((a, r) => a + r.any, 0) / n).toBeLessThanOrEqual(0.05);
  });
});
