/**
 * What a dispatch's answer measures per vehicle, from the records alone: stops served, working
 * time (driving + service: the legs' Time and the stops' Wait), distance. Used to check each
 * DispatchMode's defining property (bench/modes-roads.ts, test/ops/dispatch/modes-roads.test.ts)
 * and by anyone comparing plans. Trips of one vehicle (`<Name>_2`, …) count as that vehicle's.
 */
import type { DispatchResult } from '../../records/index.js';

export interface VehicleMeasure {
  name: string;
  stops: number;
  /** Driving + service, seconds. */
  seconds: number;
  /** In the request's DistanceUnit. */
  distance: number;
}

const TRIP = /_(\d+)$/;

/**
 * One entry per vehicle of `fleet` (in its order; a vehicle with no route counts zeros), or per
 * vehicle seen in the answer when `fleet` is not given.
 */
export function planMeasures(result: DispatchResult, fleet?: readonly string[]): VehicleMeasure[] {
  const by = new Map<string, VehicleMeasure>();
  for (const name of fleet ?? []) by.set(name, { name, stops: 0, seconds: 0, distance: 0 });
  for (const item of result.Items ?? []) {
    let name = item.Vehicle?.Name ?? '';
    if (!by.has(name) && TRIP.test(name) && by.has(name.replace(TRIP, ''))) name = name.replace(TRIP, '');
    let m = by.get(name);
    if (!m) by.set(name, (m = { name, stops: 0, seconds: 0, distance: 0 }));
    for (const l of item.Locations ?? []) {
      const type = l.LocationType ?? 'Midway';
      m.seconds += l.Time ?? 0;
      m.distance += l.Distance ?? 0;
      if (type === 'Midway' || type === 'Delivery') { m.stops++; m.seconds += l.Wait ?? 0; }
      else if (type === 'MidwayDrop' || type === 'Break') m.seconds += l.Wait ?? 0;
    }
  }
  return [...by.values()];
}

/** max − min over the vehicles (idle ones count as 0). */
export function spread(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : Math.max(...xs) - Math.min(...xs);
}

/** max / min over the vehicles that work (> 0); 1 with fewer than two. */
export function ratioOverUsed(xs: readonly number[]): number {
  const used = xs.filter((x) => x > 0);
  return used.length < 2 ? 1 : Math.max(...used) / Math.min(...used);
}
