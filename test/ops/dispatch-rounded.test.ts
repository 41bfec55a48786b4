/**
 * Large dispatches take their travel matrix in whole seconds and metres (TravelProvider.matrixRounded,
 * from OpsContext.roundedMatrixFrom places): the plans are those of the fractional matrix, which the
 * solver rounds the same way. (A vehicle with a constant Speed times its legs from whole metres on
 * that path: up to 0.5 m / Speed per leg apart, so its plans may differ.)
 *
 * When nothing in the search reads a distance (legDistancesSuffice: not MinimizeDistance, no
 * FuelCost, Speed or no-go zones, a one-phase mode on time), the rounded matrix holds times alone
 * and only the plan's legs are measured afterwards — in this thread, or by the finishing task,
 * which places the places again: the answers are the same.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Engine } from '../../src/engine.js';
import { dispatchOp } from '../../src/ops/dispatch/index.js';
import { Rng } from '../../src/core/rng.js';
import { fixtureDataset } from '../helpers/datasets.js';

let engine: Engine;
beforeAll(async () => {
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 2 });
});
afterAll(() => engine.close());

function sampleSpec(extra: Record<string, unknown> = {}, vehicle: Record<string, unknown> = {}): Record<string, unknown> {
  const rng = new Rng(4);
  const ll = () => ({ Latitude: 43.727 + rng.next() * 0.018, Longitude: 7.411 + rng.next() * 0.025 });
  const depot = { Name: 'Depot', LatLong: ll() };
  return {
    CurrentTime: '2026-12-01T08:00:00', DistanceUnit: 'Kilometer',
    Vehicles: [0, 1, 2].map((v) => ({ Name: `V${v}`, StartLocation: depot, FinishLocation: depot, MaxWeight: 40, ...vehicle })),
    Locations: Array.from({ length: 40 }, (_, i) => ({ Name: `S${i}`, LatLong: ll(), Weight: 1 + (i % 3), Wait: 120 })),
    ...extra,
  };
}

describe('rounded travel matrices', () => {
  it.each(['Optima', 'MultipleRegion', 'EqualHour'])('give the same dispatch as fractional ones (in this thread and offloaded); times alone when no distance is read (%s)', async (mode) => {
    // MultipleRegion and EqualHour solve in phases (regions, a reference plan): offloaded, their legs are measured by a task
    const spec = sampleSpec({ DispatchMode: mode, MinimumOptimization: 1 });
    const ctx = engine.context();
    for (const offload of [false, true]) {
      const plain = await dispatchOp(ctx, spec, { seed: 3, offload });
      const rctx = { ...ctx, roundedMatrixFrom: 1, travel: Object.create(ctx.travel) as typeof ctx.travel };
      const asked = vi.spyOn(rctx.travel, 'matrixRounded');
      const legs = vi.spyOn(rctx.travel, 'legRounded');
      const tasks = vi.spyOn(rctx.executor, 'run');
      const rounded = await dispatchOp(rctx, spec, { seed: 3, offload });
      const kinds = tasks.mock.calls.map((c) => c[0]);
      tasks.mockRestore();
      expect(plain.Status, JSON.stringify(plain.Errors)).toBe('Success');
      expect(rounded).toEqual(plain);
      // offloaded, a mode in phases has its final plan's legs measured by one task; Optima's finishing task does it
      if (offload) expect(kinds.filter((k) => k === 'dispatch-legs').length, kinds.join()).toBe(mode === 'Optima' ? 0 : 1);
      // in this thread the spies see it: the matrix without distances, then one measure per leg between two places
      if (!offload) {
        expect(asked.mock.calls[0][2]).toMatchObject({ distance: false });
        const served = plain.Items!.reduce((a, it) => a + it!.Locations!.length, 0);
        expect(legs.mock.calls.length).toBeGreaterThan(0);
        expect(legs.mock.calls.length).toBeLessThanOrEqual(served);
      }
    }
  });

  it('keep their distances where the search reads them (MinimizeDistance, Speed, FuelCost, EqualDistance)', async () => {
    const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
      ['MinimizeDistance', { RouteOptimize: 'MinimizeDistance' }, {}],
      ['Speed', {}, { Speed: 30 }],
      ['FuelCost', {}, { FuelCost: 2 }],
      ['EqualDistance', { DispatchMode: 'EqualDistance' }, {}],
    ];
    const ctx = engine.context();
    for (const [name, extra, vehicle] of cases) {
      const spec = sampleSpec({ ...extra, MinimumOptimization: 1 }, vehicle);
      const rctx = { ...ctx, roundedMatrixFrom: 1, travel: Object.create(ctx.travel) as typeof ctx.travel };
      const asked = vi.spyOn(rctx.travel, 'matrixRounded');
      const legs = vi.spyOn(rctx.travel, 'legRounded');
      const r = await dispatchOp(rctx, spec, { seed: 3 });
      expect(r.Status, `${name}: ${JSON.stringify(r.Errors)}`).toMatch(/^Success/);
      expect(asked.mock.calls[0]?.[2], name).toMatchObject({ distance: true });
      expect(legs, name).not.toHaveBeenCalled();
    }
  });
});
