/** The operation table: one entry per operation, records by schema, what each call counts for credit. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { OPERATIONS, operationByName } from '../../src/ops/table.js';
import { fixtureDataset } from '../helpers/datasets.js';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 2 });
});
afterAll(() => engine.close());

const A = { LatLong: { Latitude: 43.7395, Longitude: 7.428 } };
const B = { LatLong: { Latitude: 43.7276, Longitude: 7.4155 } };

describe('operation table', () => {
  it('names each operation once, with its records, and finds it case-insensitively', () => {
    expect(Object.keys(OPERATIONS)).toEqual(['CalculateDistance', 'Dispatch', 'Geocode', 'CalculateRoute', 'CalculateRoutes']);
    for (const [name, op] of Object.entries(OPERATIONS)) {
      expect(op.name).toBe(name);
      expect(op.spec.name).toMatch(/Specification$/);
      expect(op.result.name).toMatch(/Result$/);
      expect(operationByName(name.toLowerCase())).toBe(op);
    }
    expect(operationByName('NoSuchOperation')).toBeUndefined();
  });

  it('engine methods and engine.run(name) give the same records', async () => {
    const spec = { StartLocation: A, FinishLocation: B, DistanceUnit: 'Kilometer' };
    expect(await engine.run('CalculateDistance', spec)).toEqual(engine.calculateDistance(spec));
    const g = { Addresses: [{ Street: 'Boulevard des Moulins', City: 'Monaco' }] };
    expect(await engine.run('Geocode', g)).toEqual(await engine.geocode(g));
  });

  it('counts a request per distance, an address per geocoded address, a stop per dispatched stop; nothing for a failed dispatch', async () => {
    const d = { StartLocation: A, FinishLocation: B };
    expect(OPERATIONS.CalculateDistance.credit(d, engine.calculateDistance(d))).toEqual({ unit: 'request', units: 1 });
    const g = { Addresses: [{ Street: 'Rue Grimaldi' }, { Street: 'Qxzqxz' }, { City: 'Monaco' }] };
    expect(OPERATIONS.Geocode.credit(g, await engine.geocode(g))).toEqual({ unit: 'address', units: 3 });
    const spec = {
      MinimumOptimization: 1,
      Vehicles: [{ Name: 'V', StartLocation: { Name: 'Depot', ...A } }],
      Locations: [{ Name: 'a', ...B }, { Name: 'far', LatLong: { Latitude: 43.74, Longitude: 7.43 }, Vehicle: 'Nobody' }, { Name: 'end', LocationType: 'Finish', ...A }],
    };
    const r = await engine.dispatch(spec);
    expect(r.Status).toBe('SuccessWithErrors');
    expect(OPERATIONS.Dispatch.credit(spec, r)).toEqual({ unit: 'stop', units: 1 });
    const failed = await engine.dispatch({ Locations: [{ LatLong: { Latitude: 99, Longitude: 0 } }] });
    expect(OPERATIONS.Dispatch.credit({}, failed)).toEqual({ unit: 'stop', units: 0 });
  });
});
