/**
 * Large dispatches take their travel matrix in whole seconds and metres (TravelProvider.matrixRounded,
 * from OpsContext.roundedMatrixFrom places): the plans are those of the fractional matrix, which the
 * solver rounds the same way. (A vehicle with a constant Speed times its legs from whole metres on
 * that path: up to 0.5 m / Speed per leg apart, so its plans may differ.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import { dispatchOp } from '../../src/ops/dispatch/index.js';
import { Rng } from '../../src/core/rng.js';
import { fixtureDataset } from '../helpers/datasets.js';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 2 });
});
afterAll(() => engine.close());

describe('rounded travel matrices', () => {
  it('give the same dispatch as fractional ones (in this thread and offloaded)', async () => {
    const rng = new Rng(4);
    const ll = () => ({ Latitude: 43.727 + rng.next() * 0.018, Longitude: 7.411 + rng.next() * 0.025 });
    const depot = { Name: 'Depot', LatLong: ll() };
    const spec = {
      CurrentTime: '2026-12-01T08:00:00', DistanceUnit: 'Kilometer',
      Vehicles: [0, 1, 2].map((v) => ({ Name: `V${v}`, StartLocation: depot, FinishLocation: depot, MaxWeight: 40 })),
      Locations: Array.from({ length: 40 }, (_, i) => ({ Name: `S${i}`, LatLong: ll(), Weight: 1 + (i % 3), Wait: 120 })),
    };
    const ctx = engine.context();
    for (const offload of [false, true]) {
      const plain = await dispatchOp(ctx, spec, { seed: 3, offload });
      const rounded = await dispatchOp({ ...ctx, roundedMatrixFrom: 1 }, spec, { seed: 3, offload });
      expect(plain.Status, JSON.stringify(plain.Errors)).toBe('Success');
      expect(rounded).toEqual(plain);
    }
  });
});
