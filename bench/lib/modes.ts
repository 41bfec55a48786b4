/**
 * Real-road instances for the DispatchModes and each mode's defining property (issue #10's
 * definitions, issue #23's real-roads check). Shared by bench/modes-roads.ts and the real-roads
 * test (test/ops/dispatch/modes-roads.test.ts).
 */
import { Rng } from '../../src/core/rng.js';
import type { Engine } from '../../src/engine.js';
import type { DispatchResult } from '../../src/records/index.js';
import { planMeasures, ratioOverUsed, spread, type VehicleMeasure } from '../../src/ops/dispatch/measure.js';

export type Shape = 'central' | 'two-depots' | 'windows';
export const SHAPES: Shape[] = ['central', 'two-depots', 'windows'];
export const MODES = ['Optima', 'EqualStop', 'BalanceLocation', 'EqualHour', 'BalanceTime', 'EqualDistance', 'MinimumVehicles', 'SingleRegion', 'MultipleRegion'] as const;
export type Mode = typeof MODES[number];

/** Vehicles per instance size. */
export const vansFor = (stops: number): number => (stops <= 30 ? 3 : stops <= 100 ? 5 : 8);

/**
 * Stops on roads within `radiusM` of the dataset's centre (random geometry points of the road
 * graph, seeded), 5 minutes each; `central`: one depot at the centre; `two-depots`: half the fleet
 * at each of two depots ~radius/2 west and east; `windows`: one depot, a 08:00–18:00 shift and 40 %
 * of the stops with a two-hour window between 08:00 and 17:00.
 */
export function makeInstance(engine: Engine, shape: Shape, stops: number, seed: number, centre: { lat: number; lon: number }, radiusM: number): { spec: Record<string, unknown>; fleet: string[] } {
  const g = engine.dataset.graph;
  const rng = new Rng(1000 * stops + 17 * seed + SHAPES.indexOf(shape));
  const kx = 111_320 * Math.cos((centre.lat * Math.PI) / 180), ky = 110_574;
  const near: number[] = [];
  for (let p = 0; p < g.geomLat.length; p++) {
    if (Math.hypot((g.geomLat[p] - centre.lat) * ky, (g.geomLon[p] - centre.lon) * kx) <= radiusM) near.push(p);
  }
  const at = (p: number) => ({ Latitude: g.geomLat[p], Longitude: g.geomLon[p] });
  const nearest = (lat: number, lon: number) => {
    let best = near[0], bd = Infinity;
    for (const p of near) { const d = Math.hypot((g.geomLat[p] - lat) * ky, (g.geomLon[p] - lon) * kx); if (d < bd) { bd = d; best = p; } }
    return at(best);
  };
  const Locations = Array.from({ length: stops }, (_, i) => {
    const l: Record<string, unknown> = { Name: `S${i + 1}`, LatLong: at(near[rng.int(near.length)]), Wait: 300 };
    if (shape === 'windows' && rng.next() < 0.4) {
      const open = 8 + rng.int(8); // 08:00 … 15:00 openings, two hours each
      l.TimeConstraintArrival = `2026-12-01T${String(open).padStart(2, '0')}:00:00`;
      l.TimeConstraintDeparture = `2026-12-01T${String(open + 2).padStart(2, '0')}:00:00`;
    }
    return l;
  });
  const V = vansFor(stops);
  const centreDepot = { Name: 'Depot', LatLong: nearest(centre.lat, centre.lon) };
  const west = { Name: 'West', LatLong: nearest(centre.lat, centre.lon - radiusM / 2 / kx) };
  const east = { Name: 'East', LatLong: nearest(centre.lat, centre.lon + radiusM / 2 / kx) };
  const fleet = Array.from({ length: V }, (_, v) => `V${v + 1}`);
  const Vehicles = fleet.map((Name, v) => {
    const depot = shape === 'two-depots' ? (v % 2 === 0 ? west : east) : centreDepot;
    return { Name, StartLocation: depot, FinishLocation: depot, ...(shape === 'windows' ? { Tin: '2026-12-01T08:00:00', Tout: '2026-12-01T18:00:00' } : {}) };
  });
  return { spec: { DistanceUnit: 'Kilometer', CurrentTime: '2026-12-01T08:00:00', Vehicles, Locations }, fleet };
}

/** The defining property of a mode, measured; `ok` against issue #10's bound. */
export interface Property {
  ok: boolean;
  /** false: no sensible plan can meet the bound (a lone far stop: see {@link farthestRoundTrip}); not counted. */
  feasible?: boolean;
  /** The figure, as shown in the table. */
  figure: string;
  /** Why it misses, when it does. */
  why?: string;
}

export interface ModeRun {
  mode: Mode;
  result: DispatchResult;
  m: VehicleMeasure[];
  /** Total driving + service (s) and distance (km). */
  seconds: number;
  distance: number;
  used: number;
  unserved: number;
}

export function runOf(mode: Mode, result: DispatchResult, fleet: readonly string[]): ModeRun {
  const m = planMeasures(result, fleet);
  return {
    mode, result, m,
    seconds: m.reduce((a, x) => a + x.seconds, 0), distance: m.reduce((a, x) => a + x.distance, 0),
    used: m.filter((x) => x.stops > 0).length,
    unserved: (result.Errors ?? []).filter((e) => /was not dispatched/.test(e.Message ?? '')).length,
  };
}

/**
 * The longest round trip to one stop from its nearest depot, by the dispatch's own paths
 * (fastest, as RouteOptimize's default): driving + that stop's Wait (s), and km. A route that
 * serves this stop is at least this long, so when R ÷ ((total − R) ÷ (V − 1)) > 1.15 no plan
 * whose routes are not padded with useless driving can keep max/min within 1.15.
 */
export function farthestRoundTrip(engine: Engine, spec: Record<string, unknown>): { seconds: number; km: number } {
  const depots = [...new Map((spec.Vehicles as { StartLocation: { LatLong: unknown } }[]).map((v) => [JSON.stringify(v.StartLocation.LatLong), v.StartLocation.LatLong])).values()];
  let seconds = 0, km = 0;
  for (const l of spec.Locations as { LatLong: unknown; Wait?: number }[]) {
    let bs = Infinity, bk = Infinity;
    for (const d of depots) {
      const a = engine.calculateDistance({ DistanceUnit: 'Kilometer', StartLocation: { LatLong: d }, FinishLocation: { LatLong: l.LatLong } });
      const b = engine.calculateDistance({ DistanceUnit: 'Kilometer', StartLocation: { LatLong: l.LatLong }, FinishLocation: { LatLong: d } });
      if (a.Status === 'Failed' || b.Status === 'Failed') continue;
      bs = Math.min(bs, (a.Time ?? 0) + (b.Time ?? 0) + (l.Wait ?? 0));
      bk = Math.min(bk, (a.Distance ?? 0) + (b.Distance ?? 0));
    }
    if (Number.isFinite(bs)) { seconds = Math.max(seconds, bs); km = Math.max(km, bk); }
  }
  return { seconds, km };
}

/**
 * Share of stops lying inside the convex hull of another group's stops (regions that overlap). A
 * group is a vehicle (SingleRegion: one region each), or the vehicles leaving from one depot
 * (MultipleRegion: the stops go to the region of the nearest vehicle, so the vehicles of one depot
 * share its region and may cross each other inside it).
 */
export function overlapShare(r: DispatchResult, byDepot = false): number {
  const groups = new Map<string, [number, number][]>();
  (r.Items ?? []).forEach((it, v) => {
    const L = it.Locations ?? [];
    const key = byDepot ? (L[0]?.LocationType === 'Start' ? `${L[0].LatLong?.Latitude},${L[0].LatLong?.Longitude}` : `v${v}`) : `v${v}`;
    const pts = groups.get(key) ?? [];
    for (const l of L) if ((l.LocationType ?? 'Midway') === 'Midway' && l.LatLong) pts.push([l.LatLong.Longitude, l.LatLong.Latitude]);
    groups.set(key, pts);
  });
  const sets = [...groups.values()];
  const hulls = sets.map(hull);
  let inside = 0, total = 0;
  sets.forEach((pts, v) => {
    for (const p of pts) {
      total++;
      if (hulls.some((h, w) => w !== v && h.length >= 3 && inHull(h, p))) inside++;
    }
  });
  return total === 0 ? 0 : inside / total;
}

function hull(pts: [number, number][]): [number, number][] {
  const p = [...pts].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  if (p.length < 3) return p;
  const cross = (o: number[], a: number[], b: number[]) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
  const lower: [number, number][] = [], upper: [number, number][] = [];
  for (const x of p) { while (lower.length >= 2 && cross(lower[lower.length - 2], lower[lower.length - 1], x) <= 0) lower.pop(); lower.push(x); }
  for (const x of [...p].reverse()) { while (upper.length >= 2 && cross(upper[upper.length - 2], upper[upper.length - 1], x) <= 0) upper.pop(); upper.push(x); }
  return [...lower.slice(0, -1), ...upper.slice(0, -1)];
}

function inHull(h: [number, number][], q: [number, number]): boolean {
  // strictly inside a counter-clockwise convex polygon
  for (let i = 0; i < h.length; i++) {
    const a = h[i], b = h[(i + 1) % h.length];
    if ((b[0] - a[0]) * (q[1] - a[1]) - (b[1] - a[1]) * (q[0] - a[0]) <= 0) return false;
  }
  return true;
}

const f2 = (x: number) => x.toFixed(2);

/**
 * Each mode's property (issue #10; issue #23 for real roads):
 * EqualStop: max − min stops ≤ 1 over the whole fleet (idle = 0). EqualHour / EqualDistance:
 * max/min ≤ 1.15 over the vehicles used, and all used. BalanceTime / BalanceLocation: spread
 * (idle = 0) below Optima's, at no more cost than the strong mode. MinimumVehicles: no mode uses
 * fewer vehicles. Regions: at most 5 % of stops inside another region's hull (SingleRegion: a
 * region per vehicle; MultipleRegion: per depot, the vehicles there sharing it). Optima: the baseline.
 */
export function property(run: ModeRun, all: ReadonlyMap<Mode, ModeRun>, fleetSize: number, far?: { seconds: number; km: number }): Property {
  const opt = all.get('Optima')!;
  const stops = run.m.map((x) => x.stops), secs = run.m.map((x) => x.seconds), dist = run.m.map((x) => x.distance);
  switch (run.mode) {
    case 'Optima': return { ok: true, figure: `${run.used} vans, ${(run.seconds / 3600).toFixed(1)} h, ${run.distance.toFixed(0)} km` };
    case 'EqualStop': {
      const s = spread(stops);
      return { ok: s <= 1, figure: `spread ${s}`, why: s > 1 ? 'stops spread over 1' : undefined };
    }
    case 'EqualHour':
    case 'EqualDistance': {
      const hour = run.mode === 'EqualHour';
      const r = ratioOverUsed(hour ? secs : dist);
      const allUsed = run.used === fleetSize;
      const R = far ? (hour ? far.seconds : far.km) : 0, total = hour ? run.seconds : run.distance;
      const bound = R > 0 && fleetSize > 1 ? R / ((total - R) / (fleetSize - 1)) : 0;
      if (r > 1.15 && bound > 1.15) return { ok: false, feasible: false, figure: `${f2(r)} (bound ${f2(bound)})`, why: `not feasible: the farthest stop's round trip alone is ${f2(bound)}× the other vans' mean (${hour ? `${(R / 3600).toFixed(1)} h` : `${R.toFixed(1)} km`})` };
      return { ok: r <= 1.15 && allUsed, figure: `${f2(r)}${allUsed ? '' : ` (${run.used}/${fleetSize})`}`, why: !allUsed ? `uses ${run.used} of ${fleetSize} vans` : r > 1.15 ? `max/min ${f2(r)} (bound from the farthest stop ${f2(bound)})` : undefined };
    }
    case 'BalanceTime':
    case 'BalanceLocation': {
      const time = run.mode === 'BalanceTime';
      const strong = all.get(time ? 'EqualHour' : 'EqualStop')!;
      const mine = spread(time ? secs : stops), base = spread(time ? opt.m.map((x) => x.seconds) : opt.m.map((x) => x.stops));
      // cost in the objective (travel time: RouteOptimize's default; service is the same in every plan that serves all)
      const cost = run.seconds, strongCost = strong.seconds;
      // "no more cost": within 1 % — two time-limited searches of one instance differ by that much
      const below = mine < base || base === 0, cheaper = cost <= strongCost * 1.01;
      const show = time ? `${(mine / 60).toFixed(0)} min vs ${(base / 60).toFixed(0)}` : `${mine} vs ${base}`;
      return { ok: below && cheaper, figure: `${show}, cost ${f2(cost / strongCost)}× strong`, why: !below ? 'spread not below Optima\'s' : !cheaper ? 'costs more than the strong mode' : undefined };
    }
    case 'MinimumVehicles': {
      const fewest = Math.min(...[...all.values()].map((x) => x.used));
      return { ok: run.used <= fewest, figure: `${run.used} vans`, why: run.used > fewest ? `another mode uses ${fewest}` : undefined };
    }
    case 'SingleRegion':
    case 'MultipleRegion': {
      const o = overlapShare(run.result, run.mode === 'MultipleRegion');
      return { ok: o <= 0.05, figure: `${(100 * o).toFixed(0)} % overlap`, why: o > 0.05 ? 'regions overlap' : undefined };
    }
  }
}
