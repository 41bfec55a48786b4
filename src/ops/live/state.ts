/**
 * The live state of a stored plan (issue #24): per vehicle, where it is (its track's last fix,
 * map-matched), which stops are over (stop events first, then what its track shows: a dwell at
 * the stop — route/visits.ts), the stop in progress, and its remaining stops with estimates
 * renewed from where it is now and the day's observed lateness. docs/live.md.
 *
 * Times: track points and events are UTC instants (ms); the plan's times are on the engine's
 * clock (zoneless times read as UTC, semantics.md) — a fleet outside UTC sends zoned times.
 */
import { secondsToDate, type DispatchResult, type LiveResult, type LiveVehicle } from '../../records/index.js';
import type { Fix } from '../../route/match.js';
import type { Placement, TravelProfile, TravelProvider } from '../../route/travel.js';
import { detectVisits } from '../../route/visits.js';
import { profileFor } from '../locations.js';
import { readPlan, serviceStart, type PlanEntry, type PlanVehicle, type StoredSpec } from './plan.js';

/** A stop event as the store keeps it. */
export interface LiveEvent {
  vehicle: string;
  location: string;
  event: 'Arrived' | 'Done' | 'Failed' | 'Skipped';
  /** ms, UTC. */
  ts: number;
}

export interface LiveInput {
  result: DispatchResult;
  stored: StoredSpec | null;
  /** Each vehicle's track (fixes in time order, ms), by the Vehicle's Name. */
  tracks: ReadonlyMap<string, readonly Fix[]>;
  events: readonly LiveEvent[];
  /** The instant of the state (ms). */
  asOf: number;
}

export interface DoneStop {
  name: string;
  event: 'Done' | 'Failed' | 'Skipped';
  /** When it ended (ms). */
  at: number;
  /** When the vehicle got there (ms), when known. */
  arrived: number | null;
  /** How it is known. */
  source: 'event' | 'track' | 'earlier';
}

export interface RemainingStop {
  entry: PlanEntry;
  /** Estimated arrival (s, engine clock). */
  eta: number;
  /** Estimated start of service (s). */
  start: number;
  late: boolean;
  /** The leg reaching it as estimated: driving seconds (lateness included) and metres (null: the plan's). */
  legS: number;
  legM: number | null;
}

export interface VehicleState {
  name: string;
  plan: PlanVehicle;
  /** The matched position of its last fix, or null. */
  position: { lat: number; lon: number; ts: number; place: Placement } | null;
  done: DoneStop[];
  /** The stop it is at (arrived, not over), with its arrival (ms). */
  current: { entry: PlanEntry; arrived: number } | null;
  remaining: RemainingStop[];
  /** Observed ÷ planned driving so far. */
  lateness: number;
  /** When it is free for new work (s): after the stop in progress, else now. */
  freeAt: number;
}

/** The radius of a dwell at a stop (m): 4σ of 10 m GPS noise. */
export const VISIT_RADIUS_M = 40;
/** The shortest dwell that counts as a visit: half the stop's service, within [30 s, 120 s]. */
export const minDwellMs = (serviceS: number): number => 1000 * Math.min(120, Math.max(30, 0.5 * serviceS));
/** Fixes matched for the position: the last few are enough for the HMM to settle. */
const POSITION_FIXES = 12;
/** The observed lateness is bounded: a detour or a long lunch does not make every estimate absurd. */
const LATENESS_MIN = 0.5, LATENESS_MAX = 3;

const CLOSING = new Set(['Done', 'Failed', 'Skipped']);

export function liveState(travel: TravelProvider, inp: LiveInput): VehicleState[] {
  const plan = readPlan(inp.result, inp.stored?.spec ?? null);
  const profile = profileFor(inp.stored?.spec.RouteOptimize);
  // events, by location: the last closing one ends the stop (whoever sent it); arrivals too
  const closed = new Map<string, LiveEvent>();
  const arrivedAt = new Map<string, LiveEvent>();
  for (const e of inp.events) {
    if (e.ts > inp.asOf) continue;
    if (CLOSING.has(e.event)) closed.set(e.location, e);
    else arrivedAt.set(e.location, e);
  }
  const earlier = new Map<string, DoneStop[]>();
  for (const d of inp.stored?.done ?? []) {
    const list = earlier.get(d.Vehicle) ?? [];
    list.push({ name: d.Location, event: (CLOSING.has(d.Event) ? d.Event : 'Done') as DoneStop['event'], at: Date.parse(d.TimeStamp), arrived: null, source: 'earlier' });
    earlier.set(d.Vehicle, list);
  }
  return plan.map((pv) => vehicleState(travel, profile, pv, inp, closed, arrivedAt, earlier.get(pv.name) ?? []));
}

function vehicleState(
  travel: TravelProvider, profile: TravelProfile, pv: PlanVehicle, inp: LiveInput,
  closed: ReadonlyMap<string, LiveEvent>, arrivedAt: ReadonlyMap<string, LiveEvent>, before: DoneStop[],
): VehicleState {
  const now = inp.asOf;
  const fixes = (inp.tracks.get(pv.name) ?? []).filter((f) => f.ts <= now);
  const from = pv.departure !== null ? (pv.departure - 3600) * 1000 : -Infinity;
  const open = pv.entries.filter((e) => !(e.name && closed.has(e.name)) && e.loc.LatLong);
  // each stop placed once: for its visits, and again for the legs by road
  const placed = new Map<PlanEntry, Placement | null>();
  const place = (e: PlanEntry): Placement | null => {
    if (!placed.has(e)) placed.set(e, placeOf(travel, e));
    return placed.get(e)!;
  };
  const seen = detectVisits(fixes, open.map((e) => {
    const road = place(e)?.snap;
    return { lat: e.loc.LatLong!.Latitude, lon: e.loc.LatLong!.Longitude, ...(road ? { roadLat: road.lat, roadLon: road.lon } : {}), minDwellMs: minDwellMs(e.service) };
  }), { radiusM: VISIT_RADIUS_M, from });
  const done: DoneStop[] = [...before];
  const arrivals = new Map<PlanEntry, number>();
  for (const e of pv.entries) {
    const ev = e.name ? closed.get(e.name) : undefined;
    if (ev) done.push({ name: e.name, event: ev.event as DoneStop['event'], at: ev.ts, arrived: arrivedAt.get(e.name)?.ts ?? null, source: 'event' });
  }
  open.forEach((e, k) => {
    const v = seen[k];
    const a = e.name ? arrivedAt.get(e.name)?.ts : undefined;
    if (v && v.departed !== null) done.push({ name: e.name, event: 'Done', at: v.departed, arrived: a ?? v.arrived, source: 'track' });
    else if (a !== undefined || v) arrivals.set(e, a ?? v!.arrived);
  });
  done.sort((x, y) => x.at - y.at);
  const over = new Set(done.filter((d) => d.source !== 'earlier').map((d) => d.name));
  const left = pv.entries.filter((e) => !(e.name && over.has(e.name)));
  let current: VehicleState['current'] = null;
  for (const [e, t] of arrivals) if (left.includes(e) && (current === null || t > current.arrived)) current = { entry: e, arrived: t };
  if (current) left.splice(0, 0, ...left.splice(left.indexOf(current.entry), 1));

  // position: the matched last fixes
  let position: VehicleState['position'] = null;
  const tail = fixes.slice(-POSITION_FIXES);
  if (tail.length && travel.matchTrack) {
    const m = travel.matchTrack(tail);
    for (let i = m.length - 1; i >= 0; i--) {
      const p = m[i];
      if (p) { position = { lat: p.snap.lat, lon: p.snap.lon, ts: tail[i].ts, place: p }; break; }
    }
  }
  const lateness = observedLateness(pv, done);
  const remaining: RemainingStop[] = [];
  const nowS = now / 1000;
  let t: number;
  let prev: PlanEntry | null = null;
  let fromPlace: Placement | null = null;
  let freeAt = nowS;
  if (current) {
    const arrived = current.arrived / 1000;
    const start = serviceStart(current.entry.windows, arrived);
    const s = start ?? arrived;
    remaining.push({ entry: current.entry, eta: arrived, start: s, late: start === null, legS: current.entry.leg, legM: null });
    freeAt = t = Math.max(nowS, s + current.entry.service);
    prev = current.entry;
  } else if (position) {
    t = nowS;
    fromPlace = position.place;
  } else if (pv.departure !== null && done.length === 0 && nowS <= pv.departure) {
    t = pv.departure; // not started: the plan as it is
  } else {
    t = nowS;
  }
  for (const e of left) {
    if (current && e === current.entry) continue;
    const leg = legTime(travel, profile, pv, prev, fromPlace, e, place);
    let arrival = t + leg.s * lateness;
    if (e.loc.CanArriveEarly === false && e.windows.length) arrival = Math.max(arrival, Math.min(...e.windows.map((w) => w[0])));
    const start = serviceStart(e.windows, arrival);
    remaining.push({ entry: e, eta: arrival, start: start ?? arrival, late: start === null, legS: leg.s * lateness, legM: leg.m });
    t = (start ?? arrival) + e.service;
    prev = e;
    fromPlace = null;
  }
  return { name: pv.name, plan: pv, position, done, current, remaining, lateness, freeAt };
}

/**
 * The leg to `e` (driving seconds, metres or null = the plan's): from a position by road; from
 * the previous entry by the plan's leg when they follow each other there, else by road.
 */
function legTime(
  travel: TravelProvider, profile: TravelProfile, pv: PlanVehicle, prev: PlanEntry | null, from: Placement | null, e: PlanEntry,
  place: (e: PlanEntry) => Placement | null,
): { s: number; m: number | null } {
  const planned = { s: e.leg, m: null };
  const i = pv.entries.indexOf(e);
  if (from === null && prev !== null && i > 0 && pv.entries[i - 1] === prev) return planned;
  if (from === null && prev === null) return planned;
  const a = from ?? place(prev!);
  const b = place(e);
  if (a === null || b === null) return planned;
  const r = travel.route(a, b, profile);
  return r.found ? { s: r.timeMs / 1000, m: r.lengthCm / 100 } : planned;
}

function placeOf(travel: TravelProvider, e: PlanEntry): Placement | null {
  const ll = e.loc.LatLong;
  if (!ll) return null;
  try {
    return travel.place({ lat: ll.Latitude, lon: ll.Longitude }, 'Location');
  } catch {
    return null;
  }
}

/** Observed ÷ planned driving over consecutive stops that are over (both times known), bounded; 1 with too little to go on. */
function observedLateness(pv: PlanVehicle, done: readonly DoneStop[]): number {
  let actual = 0, planned = 0;
  const idx = (name: string) => pv.entries.findIndex((e) => e.name === name);
  for (let k = 1; k < done.length; k++) {
    const a = done[k - 1], b = done[k];
    if (b.arrived === null || a.source === 'earlier') continue;
    const j = idx(b.name);
    if (j <= 0 || pv.entries[j - 1].name !== a.name) continue;
    const drove = (b.arrived - a.at) / 1000;
    if (!(drove > 0)) continue;
    actual += drove;
    planned += pv.entries[j].leg;
  }
  if (planned < 60) return 1;
  return Math.min(LATENESS_MAX, Math.max(LATENESS_MIN, actual / planned));
}

/** The state as the LiveResult record. */
export function liveRecord(states: readonly VehicleState[], p: { routeId: number; version: number; asOf: number; utc: boolean }): LiveResult {
  const vehicles: LiveVehicle[] = states.map((s) => ({
    Name: s.name,
    ...(s.position ? { Position: { Latitude: round6(s.position.lat), Longitude: round6(s.position.lon), TimeStamp: new Date(s.position.ts).toISOString().slice(0, 19) + 'Z' } } : {}),
    Done: s.done.map((d) => d.name),
    ...(s.remaining.length ? { Next: s.remaining[0].entry.name } : {}),
    Remaining: s.remaining.map((r) => ({ Name: r.entry.name, TimeEstimatedArrival: secondsToDate(r.eta, p.utc), Late: r.late })),
    Lateness: Math.round(s.lateness * 1000) / 1000,
  }));
  return { Status: 'Success', Errors: [], RouteID: p.routeId, Version: p.version, AsOf: new Date(p.asOf).toISOString().slice(0, 19) + 'Z', Vehicles: vehicles } as LiveResult;
}

const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;
