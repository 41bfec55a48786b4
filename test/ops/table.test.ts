/** The engine's operations: one entry per operation, records by schema (prices: test/service/pricing.test.ts). */
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
    expect(Object.keys(OPERATIONS)).toEqual(['CalculateDistance', 'Dispatch', 'Geocode', 'CalculateRoute', 'CalculateRoutes', 'EvaluatePlan']);
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
});
