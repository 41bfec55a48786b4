/**
 * A stored plan read for live work: per vehicle (its trips `<Name>_2`, … joined in order), the
 * entries it will visit with their planned times, and the stored specification a re-dispatch
 * starts from. Records in, plain values out (seconds on the engine's clock).
 */
import {
  DispatchSpecificationSchema, dateToSeconds, hasZone,
  type DispatchResult, type DispatchSpecification, type Location, type Vehicle,
} from '../../records/index.js';
import { stopWindows } from '../dispatch/windows.js';
import type { Clock } from '../dispatch/clock.js';

/** The engine's clock itself (origin 0): windows in absolute seconds. */
export const ABSOLUTE: Clock = { origin: 0, current: null, hasClock: true, utc: true, rel: (s) => dateToSeconds(s) };

export interface PlanEntry {
  /** The Location's Name ('' when it has none: such entries cannot be reported on). */
  name: string;
  loc: Location;
  /** Trip (VehicleItem.Vehicle.Name) it is on. */
  trip: string;
  /** Planned arrival (s), null when the plan has no clock. */
  eta: number | null;
  /** Planned driving time of the leg reaching it (s). */
  leg: number;
  /** Service (s). */
  service: number;
  /** Service windows (start of service), absolute seconds. */
  windows: [number, number][];
  type: string;
}

export interface PlanVehicle {
  name: string;
  vehicle: Vehicle;
  /** The entries between its start and its finish, in order (every trip). */
  entries: PlanEntry[];
  start: Location | undefined;
  /** Planned departure from the start (s), or null. */
  departure: number | null;
}

/** What a stored route holds for live work: the specification, and the stops already over before this version. */
export interface StoredSpec {
  spec: DispatchSpecification;
  /** Stops that ended before this version (by vehicle), in the order they ended. */
  done: { Vehicle: string; Location: string; Event: string; TimeStamp: string }[];
}

/** The stored specification text: a DispatchSpecification (version 1) or `{ Specification, Done }` (a re-dispatch). */
export function readStoredSpec(text: string | null): StoredSpec | null {
  if (text === null) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  const wrapped = raw !== null && typeof raw === 'object' && 'Specification' in raw;
  const p = DispatchSpecificationSchema.safeParse(wrapped ? (raw as { Specification: unknown }).Specification : raw);
  if (!p.ok) return null;
  const done = wrapped && Array.isArray((raw as { Done?: unknown }).Done) ? (raw as { Done: StoredSpec['done'] }).Done : [];
  return { spec: p.value, done };
}

/** The vehicle a trip belongs to: `Van_2` is `Van`'s when the specification has a vehicle `Van`. */
export function baseVehicle(trip: string, names: ReadonlySet<string>): string {
  if (names.has(trip)) return trip;
  const m = /^(.*)_(\d+)$/.exec(trip);
  return m && names.has(m[1]) ? m[1] : trip;
}

/** The plan's vehicles (every one with at least one item), entries in visiting order. */
export function readPlan(result: DispatchResult, spec: DispatchSpecification | null): PlanVehicle[] {
  const names = new Set((spec?.Vehicles ?? []).map((v) => v?.Name).filter((n): n is string => !!n));
  const out = new Map<string, PlanVehicle>();
  for (const item of result.Items ?? []) {
    const trip = item.Vehicle?.Name ?? '';
    const name = baseVehicle(trip, names);
    let pv = out.get(name);
    const locs = item.Locations ?? [];
    if (!pv) {
      const start = locs[0]?.LocationType === 'Start' ? locs[0] : undefined;
      pv = { name, vehicle: (spec?.Vehicles ?? []).find((v) => v?.Name === name) ?? item.Vehicle ?? {}, entries: [], start, departure: start ? dateToSeconds(start.TimeEstimatedArrival) : null } as PlanVehicle;
      out.set(name, pv);
    }
    for (const l of locs) {
      if (l.LocationType === 'Start' || l.LocationType === 'Finish') continue;
      pv.entries.push({
        name: l.Name ?? '', loc: l, trip, eta: dateToSeconds(l.TimeEstimatedArrival), leg: l.Time ?? 0, service: l.Wait ?? 0,
        windows: l.LocationType === 'Break' ? [] : stopWindows(l, ABSOLUTE).windows, type: l.LocationType ?? 'Midway',
      });
    }
  }
  return [...out.values()];
}

/** Whether the plan's times carry a zone (estimates are then written with `Z`). */
export function planUtc(result: DispatchResult): boolean {
  for (const item of result.Items ?? []) for (const l of item.Locations ?? []) if (l.TimeEstimatedArrival) return hasZone(l.TimeEstimatedArrival);
  return false;
}

/** Earliest service start ≥ t in the windows (null: none left); no windows = t. */
export function serviceStart(windows: readonly [number, number][], t: number): number | null {
  if (windows.length === 0) return t;
  let best: number | null = null;
  for (const [a, b] of windows) {
    const s = Math.max(a, t);
    if (s <= b && (best === null || s < best)) best = s;
  }
  return best;
}
