/**
 * Random dispatch specifications on a road dataset (used on Porto by bench/dispatch-roads.ts and
 * bench/event-loop.ts): stops drawn around the centre (snapping within 300 m), weights 1–10, 30 %
 * with a closed 2-hour window, service time per stop; vehicles at 4 depots, shift 07:30–19:00,
 * capacity 1.25× the mean demand.
 */
import { Rng } from '../../src/core/rng.js';
import type { Engine } from '../../src/engine.js';
import { dateToSeconds, type DispatchResult } from '../../src/records/index.js';

export interface PortoCase { name: string; stops: number; vehicles: number; timeLimitS: number; waitS: number }

function hhmm(h: number, m = 0): string {
  return `2026-12-01T${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:00`;
}

export function makePortoSpec(engine: Engine, c: PortoCase, seed: number): Record<string, unknown> {
  const rng = new Rng(seed);
  const bb = engine.dataset.meta.bbox;
  // Stops cluster around the city centre (a normal spread), as deliveries do.
  const cLat = (bb.minLat + bb.maxLat) / 2, cLon = (bb.minLon + bb.maxLon) / 2;
  const point = (): { Latitude: number; Longitude: number } => {
    for (;;) {
      const la = cLat + rng.normal() * (bb.maxLat - bb.minLat) / 6;
      const lo = cLon + rng.normal() * (bb.maxLon - bb.minLon) / 6;
      if (la > bb.minLat && la < bb.maxLat && lo > bb.minLon && lo < bb.maxLon && engine.dataset.snapper.trySnap(la, lo, { radiusM: 300 })) {
        return { Latitude: la, Longitude: lo };
      }
    }
  };
  const Locations: Record<string, unknown>[] = [];
  let demand = 0;
  for (let i = 0; i < c.stops; i++) {
    const w = 1 + rng.int(10);
    demand += w;
    const loc: Record<string, unknown> = { Name: `S${i}`, LatLong: point(), Weight: w, Wait: c.waitS };
    if (rng.chance(0.3)) {
      const start = 8 + rng.int(8); // window of 2 h starting 08:00..15:00
      Object.assign(loc, { CanArriveEarly: false, TimeConstraintArrival: hhmm(start), TimeConstraintDeparture: hhmm(start + 2) });
    }
    Locations.push(loc);
  }
  const depots = [point(), point(), point(), point()];
  const cap = Math.ceil((demand * 1.25) / c.vehicles);
  const Vehicles = Array.from({ length: c.vehicles }, (_, v) => ({
    Name: `V${v + 1}`,
    MaxWeight: cap,
    Tin: hhmm(7, 30),
    Tout: hhmm(19),
    StartLocation: { Name: `Depot${v % 4}`, LatLong: depots[v % 4] },
    FinishLocation: { Name: `Depot${v % 4}`, LatLong: depots[v % 4] },
  }));
  return { CurrentTime: hhmm(7, 30), DistanceUnit: 'Kilometer', RouteOptimize: 'MinimizeTime', Vehicles, Locations };
}


/** Independent record-level check of a DispatchResult against its specification. */
export function checkPortoResult(spec: any, r: DispatchResult): string[] {
  const problems: string[] = [];
  const byName = new Map<string, any>(spec.Locations.map((l: any) => [l.Name, l]));
  const seen = new Set<string>();
  for (const it of r.Items ?? []) {
    const veh = spec.Vehicles.find((v: any) => v.Name === it.Vehicle?.Name);
    let load = 0;
    let prevT = -Infinity;
    for (const l of it.Locations ?? []) {
      const t = dateToSeconds(l.TimeEstimatedArrival);
      if (t === null) { problems.push(`${it.Vehicle?.Name}: ${l.Name} has no arrival time`); continue; }
      if (t + 1e-6 < prevT + l.Time - 1) problems.push(`${it.Vehicle?.Name}: ${l.Name} arrives before the leg could end`);
      const s = byName.get(l.Name!);
      // Early arrival at a closed window waits for it to open; service (Wait) starts then.
      const opens = s && s.CanArriveEarly === false ? dateToSeconds(s.TimeConstraintArrival)! : -Infinity;
      prevT = Math.max(t, opens) + (s?.Wait ?? 0);
      if (!s) continue;
      if (seen.has(l.Name!)) problems.push(`${l.Name} served twice`);
      seen.add(l.Name!);
      load += s.Weight;
      if (s.CanArriveEarly === false) {
        const a = dateToSeconds(s.TimeConstraintArrival)!, d = dateToSeconds(s.TimeConstraintDeparture)!;
        if (Math.max(t, a) > d + 1) problems.push(`${l.Name} arrives ${l.TimeEstimatedArrival} after its window closes`);
      }
    }
    if (veh && load > veh.MaxWeight + 1e-9) problems.push(`${veh.Name}: load ${load} > ${veh.MaxWeight}`);
    const last = it.Locations?.[it.Locations.length - 1];
    if (veh && last && dateToSeconds(last.TimeEstimatedArrival)! > dateToSeconds(veh.Tout)! + 1) problems.push(`${veh.Name}: ends after Tout`);
  }
  const reported = (r.Errors ?? []).length;
  const unserved = spec.Locations.length - seen.size;
  if (unserved !== reported) problems.push(`${unserved} stops unserved but ${reported} errors reported`);
  return problems;
}
