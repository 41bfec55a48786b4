/**
 * Many stops inside the Monaco fixture's bounds, deterministically (the project's seeded Rng):
 * for the large-run tests (test/ui/page-large.test.ts, test/service/jobs-cancel-large.test.ts).
 * Points are drawn uniformly in the dataset's extent shrunk by a margin, rounded to 6 decimals,
 * and kept when `onRoad` says they are near a road (every stop then places, so that a 10,000-stop
 * matrix takes the rounded path: one with unplaced stops is refused as too big).
 */
import { Rng } from '../../src/core/rng.js';
import type { Engine } from '../../src/engine.js';

export interface Extent { west: number; south: number; east: number; north: number }

export interface LargeStop { Name: string; LatLong: { Latitude: number; Longitude: number }; Weight: number; Wait: number }

/** `n` stops, the same for the same seed, extent and `onRoad`. */
export function largeStops(extent: Extent, n: number, onRoad: (lat: number, lon: number) => boolean, seed = 20261125): LargeStop[] {
  const rng = new Rng(seed);
  const mx = (extent.east - extent.west) * 0.1, my = (extent.north - extent.south) * 0.1;
  const out: LargeStop[] = [];
  for (let tries = 0; out.length < n; tries++) {
    if (tries > 20 * n) throw new Error(`only ${out.length} of ${n} points near a road`);
    const lat = Math.round((extent.south + my + rng.next() * (extent.north - extent.south - 2 * my)) * 1e6) / 1e6;
    const lon = Math.round((extent.west + mx + rng.next() * (extent.east - extent.west - 2 * mx)) * 1e6) / 1e6;
    const weight = 1 + rng.int(4), wait = 60 * (1 + rng.int(4));
    if (!onRoad(lat, lon)) continue;
    out.push({ Name: `S${out.length + 1}`, LatLong: { Latitude: lat, Longitude: lon }, Weight: weight, Wait: wait });
  }
  return out;
}

/** `onRoad` over an engine: the point places within `maxM` metres of a road. */
export function placesWithin(engine: Pick<Engine, 'placeLocation'>, maxM = 60): (lat: number, lon: number) => boolean {
  return (lat, lon) => {
    try {
      return engine.placeLocation({ LatLong: { Latitude: lat, Longitude: lon } } as Parameters<Engine['placeLocation']>[0], 'p').snap.distanceM <= maxM;
    } catch {
      return false;
    }
  };
}

/** The stops as the page's CSV file (Name, Latitude, Longitude, Weight, Wait). */
export function largeStopsCsv(stops: readonly LargeStop[]): string {
  return ['Name,Latitude,Longitude,Weight,Wait', ...stops.map((s) => `${s.Name},${s.LatLong.Latitude.toFixed(6)},${s.LatLong.Longitude.toFixed(6)},${s.Weight},${s.Wait}`)].join('\n') + '\n';
}

/** A dispatch of the stops on `vehicles` vans from one depot (the page's Place du Palais), as the page sends it. */
export function largeDispatch(stops: readonly LargeStop[], vehicles: number, minimumOptimization = 4): Record<string, unknown> {
  const capacity = Math.ceil((stops.reduce((a, s) => a + s.Weight, 0) / vehicles) * 1.25);
  return {
    DispatchMode: 'Optima', MinimumOptimization: minimumOptimization, DistanceUnit: 'Kilometer', RouteOptimize: 'MinimizeTime',
    CurrentTime: '2026-12-01T08:00:00',
    Vehicles: Array.from({ length: vehicles }, (_, k) => ({
      Name: `Van ${k + 1}`, MaxWeight: capacity,
      StartLocation: { LatLong: { Latitude: 43.7314, Longitude: 7.42 } }, FinishLocation: { LatLong: { Latitude: 43.7314, Longitude: 7.42 } },
    })),
    Locations: stops,
  };
}
