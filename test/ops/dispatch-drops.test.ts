/** MidwayDrop: reload points the solver visits when a capacity would be exceeded; the load resets there. */
import { describe, expect, it } from 'vitest';
import type { DispatchResult, DispatchSpecificationInput } from '../../src/records/index.js';
import { dispatchOnPlane, ll } from '../helpers/plane.js';

const depot = { Name: 'Depot', LatLong: ll(0, 0) };
const stops = Array.from({ length: 6 }, (_, i) => ({ Name: `S${i}`, LatLong: ll(0.002 * (i % 2), 0.02 + 0.003 * i), Weight: 4 }));
const drop = { Name: 'Yard', LocationType: 'MidwayDrop', LatLong: ll(0, 0.015), Wait: 600 };
const spec = (locs: unknown[], vehicles: unknown[] = [{ Name: 'Van', StartLocation: depot, FinishLocation: depot, MaxWeight: 10 }]): DispatchSpecificationInput =>
  ({ CurrentTime: '2026-12-01T08:00:00', DistanceUnit: 'Kilometer', Vehicles: vehicles, Locations: locs } as DispatchSpecificationInput);
const names = (r: DispatchResult): string[] => r.Items![0].Locations!.map((l) => l.Name!);

describe('MidwayDrop', () => {
  it('a van of MaxWeight 10 serves six stops of Weight 4 by unloading at the MidwayDrop twice', async () => {
    const r = await dispatchOnPlane(spec([...stops, drop]));
    expect(r.Status, JSON.stringify(r.Errors)).toBe('Success');
    const L = r.Items![0].Locations!;
    expect(L.filter((l) => l.LocationType === 'MidwayDrop').map((l) => l.Name)).toEqual(['Yard', 'Yard']);
    expect(L.filter((l) => l.Name?.startsWith('S')).length).toBe(6);
    // between two unloads, at most two stops (2 × 4 ≤ 10 < 3 × 4)
    for (const seg of names(r).join(',').split('Yard')) expect(seg.split(',').filter((x) => x.startsWith('S')).length).toBeLessThanOrEqual(2);
    // each visit takes its Wait: the next location is reached no earlier than 10 minutes + its leg later
    const k = L.findIndex((l) => l.Name === 'Yard');
    expect(Date.parse(`${L[k + 1].TimeEstimatedArrival}Z`) - Date.parse(`${L[k].TimeEstimatedArrival}Z`)).toBeGreaterThanOrEqual(600_000 + L[k + 1].Time * 1000);
  });

  it('without one, four stops are left out; with room to spare it is not visited', async () => {
    const none = await dispatchOnPlane(spec(stops));
    expect(none.Status).toBe('SuccessWithErrors');
    expect(none.Errors!.length).toBe(4);
    const roomy = await dispatchOnPlane(spec([...stops, drop], [{ Name: 'Van', StartLocation: depot, FinishLocation: depot, MaxWeight: 100 }]));
    expect(roomy.Status).toBe('Success');
    expect(names(roomy)).not.toContain('Yard');
  });

  it('two MidwayDrops: the nearer one is used', async () => {
    const far = { ...drop, Name: 'FarYard', LatLong: ll(0.05, -0.05) };
    const r = await dispatchOnPlane(spec([...stops, far, drop]));
    expect(r.Status).toBe('Success');
    expect(names(r)).toContain('Yard');
    expect(names(r)).not.toContain('FarYard');
  });

  it('a MidwayDrop inside the only vehicle\'s DoNotEnter zone cannot be used, and says so', async () => {
    const zone = [ll(-0.01, 0.01), ll(-0.01, 0.018), ll(0.01, 0.018), ll(0.01, 0.01)];
    const r = await dispatchOnPlane(spec([...stops, drop], [{ Name: 'Van', StartLocation: depot, FinishLocation: depot, MaxWeight: 10, Shapes: [{ Points: zone, Restriction: 'DoNotEnter' }] }]));
    expect(r.Status).toBe('SuccessWithErrors');
    expect(r.Errors!.some((e) => e.Message!.startsWith("'Yard' (Locations[6])"))).toBe(true);
    expect(names(r)).not.toContain('Yard');
  });
});
