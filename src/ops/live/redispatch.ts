/**
 * Re-dispatch (issue #24): a stored plan, "now", and what changed → the next plan, changing as
 * little as it can. docs/live.md.
 *
 * 1. The live state (state.ts) says what is over, what is in progress and where each vehicle is.
 * 2. The *kept* specification (what the route's next version stores): the stored one less the
 *    stops that are over and the cancelled ones, plus the new Locations, less the unavailable
 *    vehicles; a delivery whose pickup is over becomes a plain stop of that vehicle, carrying the
 *    load (it is on board: a plain stop's goods travel from the start).
 * 3. The *solved* specification: per vehicle, the stop in progress and the next `Frozen` stops
 *    stay as planned (they leave the problem), and the vehicle starts after them — where the
 *    last of them is, when it will be done there — or, with none, where it is now (its matched
 *    position) at now. Its MaxStops and MaxMinutes count what it has already done.
 * 4. The dispatch, with the previous plan as homes, a move cost (`Stability` mean legs) and the
 *    warm start (dispatch/stability.ts); Stability 0 = from scratch (no hints at all).
 * 5. The answer: each vehicle's first entry is where it is at now, then its frozen stops with
 *    their estimates, then the new plan; and the change list.
 */
import {
  dateToSeconds, failedFromIssues, secondsToDate,
  type DispatchResult, type DispatchSpecification, type Issue, type Location, type RedispatchResult, type RedispatchSpecification, type RouteChange, type Vehicle, type VehicleItem,
} from '../../records/index.js';
import type { OpsContext } from '../context.js';
import { dispatchOp, type DispatchOpOptions } from '../dispatch/index.js';
import type { StabilityHints } from '../dispatch/stability.js';
import { liveState, type LiveEvent, type VehicleState } from './state.js';
import { planUtc, type StoredSpec } from './plan.js';
import type { Fix } from '../../route/match.js';
import { metresPerUnit, roundDistance } from '../../core/units.js';

export interface RedispatchInput {
  result: DispatchResult;
  stored: StoredSpec;
  tracks: ReadonlyMap<string, readonly Fix[]>;
  events: readonly LiveEvent[];
}

export interface Redispatched {
  result: RedispatchResult;
  /** What the route's next version stores as its specification (JSON text). */
  storedSpec: string;
}

/**
 * A re-plan is wanted now: its dispatch ends within 0.5 s + 1.5 ms per stop (× 2 per
 * MinimumOptimization level above 2) with the best plan by then — 0.8 s at 200 stops, 2 s at 1,000.
 * From the current plan the search needs little time; on the simulated days MinimumOptimization 2
 * ended before the bound at 200 stops and met it at 1,000.
 */
export function replanBoundMs(stops: number, effort: number): number {
  return (500 + 1.5 * stops) * 2 ** (Math.max(1, effort) - 2);
}

/** A day is over for re-dispatch when every vehicle's shift ended (Tout) before now, or — with no Tout — 24 h after the plan's last estimate. */
const DAY_AFTER_S = 86400;

export async function redispatch(ctx: OpsContext, inp: RedispatchInput, rs: RedispatchSpecification, opts: DispatchOpOptions = {}): Promise<Redispatched | { issues: Issue[] }> {
  const nowS = dateToSeconds(rs.CurrentTime);
  if (nowS === null) return { issues: [{ path: 'CurrentTime', message: 'is required (the instant to re-plan from, after 2012-01-01)' }] };
  const spec = inp.stored.spec;
  const locs = (spec.Locations ?? []).filter((l): l is Location => !!l);
  const vehicles = (spec.Vehicles ?? []).filter((v): v is Vehicle => !!v);
  const issues = checkRequest(rs, locs, vehicles, inp.result, nowS);
  if (issues.length) return { issues };
  const states = liveState(ctx.travel, { result: inp.result, stored: inp.stored, tracks: inp.tracks, events: inp.events, asOf: nowS * 1000 });
  const byName = new Map(states.map((s) => [s.name, s]));
  const unavailable = new Set(rs.Unavailable ?? []);
  const cancelled = new Set(rs.Cancelled ?? []);
  const over = new Set<string>();
  for (const s of states) for (const d of s.done) over.add(d.name);
  for (const d of inp.stored.done) over.add(d.Location);
  const changes: RouteChange[] = [];

  // ---- the kept specification
  const pickupOf = new Map<string, Location>();
  for (const l of locs) if (l.Delivery) pickupOf.set(l.Delivery, l);
  const vehicleOfStop = new Map<string, string>();
  for (const s of states) for (const r of s.remaining) if (r.entry.name) vehicleOfStop.set(r.entry.name, s.name);
  for (const s of states) for (const d of s.done) vehicleOfStop.set(d.name, s.name);
  const frozenOf = new Map<string, Set<string>>();
  for (const s of states) {
    const f = new Set<string>();
    if (!unavailable.has(s.name)) {
      let k = 0;
      for (const r of s.remaining) {
        if (s.current && r.entry === s.current.entry) { f.add(r.entry.name); continue; }
        if (k++ >= rs.Frozen) break;
        f.add(r.entry.name);
      }
    }
    frozenOf.set(s.name, f);
  }
  const frozen = new Set([...frozenOf.values()].flatMap((f) => [...f]));
  const kept: Location[] = [];
  for (const l of locs) {
    const name = l.Name ?? '';
    if (l.LocationType === 'Start') continue; // vehicles start where they are
    if (name && over.has(name)) continue;
    if (name && cancelled.has(name)) { changes.push({ Location: name, Change: 'Cancelled', ...from(vehicleOfStop, name) }); continue; }
    const pickup = name ? pickupOf.get(name) : undefined;
    const pickupName = pickup?.Name ?? '';
    // a delivery whose pickup is over (or frozen: it will be) is on board that vehicle
    if (pickup && (over.has(pickupName) || frozen.has(pickupName))) {
      const pickupDoneBy = vehicleOfStop.get(pickupName);
      const failed = states.some((s) => s.done.some((d) => d.name === pickupName && d.event !== 'Done'));
      if (failed) { changes.push({ Location: name, Change: 'Unserved', ...from(vehicleOfStop, name), Reason: `its pickup '${pickupName}' was not made` }); continue; }
      if (pickupDoneBy && unavailable.has(pickupDoneBy) && over.has(pickupName)) {
        changes.push({ Location: name, Change: 'Unserved', FromVehicle: pickupDoneBy, Reason: `its goods are on '${pickupDoneBy}', which is unavailable` });
        continue;
      }
      kept.push({
        ...l, Vehicle: pickupDoneBy ?? l.Vehicle,
        Weight: (l.Weight ?? 0) + (pickup.Weight ?? 0), Volume: (l.Volume ?? 0) + (pickup.Volume ?? 0), Skids: (l.Skids ?? 0) + (pickup.Skids ?? 0),
      });
      continue;
    }
    kept.push({ ...l });
  }
  // a pickup kept whose delivery was cancelled is kept alone (Delivery dropped)
  const keptNames = new Set(kept.map((l) => l.Name));
  for (const l of kept) if (l.Delivery && !keptNames.has(l.Delivery)) delete l.Delivery;
  for (const l of rs.Locations ?? []) if (l) kept.push({ ...l });
  const keptVehicles = vehicles.filter((v) => !unavailable.has(v.Name ?? ''));
  const keptSpec: DispatchSpecification = { ...spec, CurrentTime: rs.CurrentTime, Vehicles: keptVehicles, Locations: kept };
  const doneList = [
    ...inp.stored.done,
    ...states.flatMap((s) => s.done.filter((d) => d.source !== 'earlier').map((d) => ({ Vehicle: s.name, Location: d.name, Event: d.event, TimeStamp: new Date(d.at).toISOString() }))),
  ];

  // ---- the solved specification: frozen stops out, each vehicle from where it will be free
  const utc = planUtc(inp.result);
  const unit = spec.DistanceUnit === 'Kilometer' ? 'Kilometer' : 'Mile';
  const unitM = metresPerUnit(unit);
  const solvedVehicles: Vehicle[] = [];
  const keptOf = new Map(kept.map((l) => [l.Name, l]));
  const frozenEntries = new Map<string, Location[]>();
  const startOf = new Map<string, Location>();
  for (const v of keptVehicles) {
    const name = v.Name ?? '';
    const st = byName.get(name);
    const f = frozenOf.get(name) ?? new Set<string>();
    const entries: Location[] = [];
    // free now, after its frozen stops, and never before its shift starts
    let freeAt = Math.max(nowS, st?.freeAt ?? nowS, dateToSeconds(v.Tin) ?? -Infinity);
    let at: Location | undefined;
    if (st) {
      for (const r of st.remaining) {
        if (!f.has(r.entry.name)) continue;
        const inProgress = st.current !== null && r.entry === st.current.entry;
        entries.push({
          ...r.entry.loc, TimeEstimatedArrival: secondsToDate(r.eta, utc), Time: inProgress ? 0 : Math.round(r.legS), ...(inProgress ? { Distance: 0 } : {}),
          ...(r.legM !== null ? { Distance: roundDistance(r.legM / unitM, unit) } : {}),
        });
        freeAt = Math.max(freeAt, r.start + r.entry.service);
        at = r.entry.loc;
      }
    }
    frozenEntries.set(name, entries);
    // where it is now: at the stop in progress (since it got there), at its matched position, or at its last stop (or depot) when it sent no position
    const here: Location = st?.current
      ? { ...st.current.entry.loc, LocationType: 'Start', TimeEstimatedArrival: secondsToDate(st.current.arrived / 1000, utc), Time: 0, Distance: 0 } as Location
      : { ...(st?.position
        ? { Name: `${name} at ${rs.CurrentTime}`, LatLong: { Latitude: st.position.lat, Longitude: st.position.lon } }
        : lastDoneLoc(st, locs) ?? v.StartLocation ?? {}), LocationType: 'Start', TimeEstimatedArrival: secondsToDate(nowS, utc), Time: 0, Distance: 0 } as Location;
    startOf.set(name, here);
    const started = st?.plan.departure ?? nowS;
    const doneCount = (st?.done.length ?? 0) + entries.length;
    const usedMin = Math.max(0, (freeAt - started) / 60);
    const sv: Vehicle = { ...v, StartLocation: at ? { ...at, LocationType: 'Start' } as Location : here, Tin: secondsToDate(freeAt, utc) };
    if ((v.MaxStops ?? 0) > 0) sv.MaxStops = v.MaxStops! - doneCount;
    if ((v.MaxMinutes ?? 0) > 0) sv.MaxMinutes = Math.floor(v.MaxMinutes! - usedMin);
    // the goods of its frozen deliveries are on board now, beside those of the stops after them:
    // what the plan after them may load is the capacity less those (a frozen pickup loads later)
    for (const e of entries) {
      const k = e.Name ? keptOf.get(e.Name) : undefined;
      if (!k || k.Delivery) continue;
      if ((v.MaxWeight ?? 0) > 0) sv.MaxWeight = Math.max(1e-9, (sv.MaxWeight ?? 0) - (k.Weight ?? 0));
      if ((v.MaxVolume ?? 0) > 0) sv.MaxVolume = Math.max(1e-9, (sv.MaxVolume ?? 0) - (k.Volume ?? 0));
      if ((v.MaxSkids ?? 0) > 0) sv.MaxSkids = Math.max(1, (sv.MaxSkids ?? 0) - (k.Skids ?? 0));
    }
    // a vehicle with no stops or minutes left keeps its frozen stops and takes nothing new; so does one
    // whose shift is over by the time it is free (its Tin would be after its Tout)
    if ((v.MaxStops ?? 0) > 0 && sv.MaxStops! <= 0) continue;
    if ((v.MaxMinutes ?? 0) > 0 && sv.MaxMinutes! <= 0) continue;
    const tout = dateToSeconds(v.Tout);
    if (tout !== null && freeAt >= tout) continue;
    solvedVehicles.push(sv);
  }
  const solvedLocs = kept.filter((l) => !(l.Name && frozen.has(l.Name)));
  const solved: DispatchSpecification = { ...keptSpec, MinimumOptimization: rs.MinimumOptimization, Vehicles: solvedVehicles, Locations: solvedLocs };

  // ---- hints from the previous plan
  let stability: StabilityHints | undefined;
  if (rs.Stability > 0) {
    const vIdx = new Map(solvedVehicles.map((v, i) => [v.Name ?? '', i]));
    const lIdx = new Map(solvedLocs.map((l, i) => [l.Name ?? '', i]));
    const home: [number, number][] = [];
    const initial: { vehicle: number; locations: number[] }[] = [];
    for (const s of states) {
      const vi = vIdx.get(s.name);
      const order: number[] = [];
      for (const r of s.remaining) {
        const li = lIdx.get(r.entry.name);
        if (li === undefined || vi === undefined) continue;
        home.push([li, vi]);
        order.push(li);
      }
      if (vi !== undefined && order.length) initial.push({ vehicle: vi, locations: order });
    }
    stability = { home, moveLegs: rs.Stability, initial };
  }
  const res = solvedVehicles.length === 0 && solvedLocs.some((l) => l.LocationType !== 'Finish')
    ? { Status: 'SuccessWithErrors', Errors: [{ Message: 'no vehicle can take more work (all unavailable, or out of stops or minutes)' }], Items: [] } as unknown as DispatchResult
    : solvedLocs.length === 0 ? { Status: 'Success', Errors: [], Items: [] } as unknown as DispatchResult
      : await dispatchOp(ctx, solved, { ...opts, deadlineMs: Math.min(opts.deadlineMs ?? Infinity, replanBoundMs(solvedLocs.length, rs.MinimumOptimization)), ...(stability ? { stability } : {}) });
  if (res.Status === 'Failed') return { issues: (res.Errors ?? []).map((e) => ({ path: '', message: e.Message ?? 'the dispatch failed' })) };

  // ---- the answer (its Errors name the caller's fields: a new Location by its index in the request, the route's stops by Name)
  const fresh = new Map((rs.Locations ?? []).map((l, j) => [l?.Name, j]));
  const label = (i: number): string => {
    const l = solvedLocs[i];
    const j = l?.Name !== undefined ? fresh.get(l.Name) : undefined;
    return j !== undefined ? `'${l!.Name}' (Locations[${j}])` : `'${l?.Name ?? `stop ${i}`}'`;
  };
  res.Errors = (res.Errors ?? []).map((e) => ({ Message: (e.Message ?? '').replace(/'[^']*' \(Locations\[(\d+)\]\)|Locations\[(\d+)\]/g, (_m, a, b) => label(Number(a ?? b))) }));
  const items = stitch(res, keptVehicles, frozenEntries, startOf);
  diff(changes, states, items, res, rs, cancelled);
  const result = { ...res, Items: items, Changes: changes } as RedispatchResult;
  return { result, storedSpec: JSON.stringify({ Specification: keptSpec, Done: doneList }) };
}

function from(vehicleOfStop: ReadonlyMap<string, string>, name: string): { FromVehicle?: string } {
  const v = vehicleOfStop.get(name);
  return v ? { FromVehicle: v } : {};
}

function lastDoneLoc(st: VehicleState | undefined, locs: readonly Location[]): Location | undefined {
  const last = st?.done.at(-1);
  return last ? locs.find((l) => l.Name === last.name) : undefined;
}

/** Bad requests, named by field: unknown names, clashing new names, a day that is over. */
function checkRequest(rs: RedispatchSpecification, locs: readonly Location[], vehicles: readonly Vehicle[], result: DispatchResult, nowS: number): Issue[] {
  const issues: Issue[] = [];
  const names = new Set(locs.map((l) => l.Name).filter((n): n is string => !!n));
  const vnames = new Set(vehicles.map((v) => v.Name).filter((n): n is string => !!n));
  (rs.Cancelled ?? []).forEach((n, i) => { if (!names.has(n)) issues.push({ path: `Cancelled[${i}]`, message: `names no Location of the route ('${n}')` }); });
  (rs.Unavailable ?? []).forEach((n, i) => { if (!vnames.has(n)) issues.push({ path: `Unavailable[${i}]`, message: `names no Vehicle of the route ('${n}'; vehicles: ${[...vnames].join(', ') || 'none named'})` }); });
  const fresh = new Set<string>();
  (rs.Locations ?? []).forEach((l, i) => {
    if (!l) { issues.push({ path: `Locations[${i}]`, message: 'is empty (null)' }); return; }
    if (!l.Name) issues.push({ path: `Locations[${i}].Name`, message: 'is required for a new Location (events and changes name it)' });
    else if (names.has(l.Name) || fresh.has(l.Name)) issues.push({ path: `Locations[${i}].Name`, message: `'${l.Name}' is already a Location of the route` });
    else fresh.add(l.Name);
  });
  const touts = vehicles.map((v) => dateToSeconds(v.Tout)).filter((x): x is number => x !== null);
  let last = -Infinity;
  for (const it of result.Items ?? []) for (const l of it.Locations ?? []) last = Math.max(last, dateToSeconds(l.TimeEstimatedArrival) ?? -Infinity);
  const over = vehicles.length > 0 && touts.length === vehicles.length ? touts.every((t) => t < nowS) : Number.isFinite(last) && nowS > last + DAY_AFTER_S;
  if (over) issues.push({ path: 'CurrentTime', message: `the route's day is over (${touts.length === vehicles.length && vehicles.length ? 'every vehicle\'s Tout is before it' : 'more than a day after its last estimate'}); dispatch a new route instead` });
  return issues;
}

/** Each vehicle's items with its first entry where it is now and its frozen stops before the new plan. */
function stitch(res: DispatchResult, vehicles: readonly Vehicle[], frozen: ReadonlyMap<string, Location[]>, startOf: ReadonlyMap<string, Location>): VehicleItem[] {
  const items: VehicleItem[] = [];
  const seen = new Set<string>();
  for (const it of res.Items ?? []) {
    const trip = it.Vehicle?.Name ?? '';
    const base = vehicles.find((v) => v.Name === trip)?.Name;
    const locsOf = it.Locations ?? [];
    if (base === undefined || seen.has(base)) { items.push(it); continue; } // a later trip: as planned
    seen.add(base);
    const orig = vehicles.find((v) => v.Name === base)!;
    const rest = locsOf[0]?.LocationType === 'Start' ? locsOf.slice(1) : locsOf;
    items.push({ ...it, Vehicle: orig, Locations: [startOf.get(base)!, ...(frozen.get(base) ?? []), ...rest] });
  }
  // vehicles with frozen stops only (no new work)
  for (const v of vehicles) {
    const name = v.Name ?? '';
    const f = frozen.get(name) ?? [];
    if (!seen.has(name) && f.length) items.push({ Vehicle: v, Locations: [startOf.get(name)!, ...f] });
  }
  return items;
}

/** What changed against the live state of the previous plan. */
function diff(changes: RouteChange[], states: readonly VehicleState[], items: readonly VehicleItem[], res: DispatchResult, rs: RedispatchSpecification, cancelled: ReadonlySet<string>): void {
  const before = new Map<string, { vehicle: string; index: number; eta: number }>();
  for (const s of states) s.remaining.forEach((r, i) => { if (r.entry.name) before.set(r.entry.name, { vehicle: s.name, index: i, eta: r.eta }); });
  const after = new Map<string, { vehicle: string; index: number; eta: number | null }>();
  const names = new Set((rs.Locations ?? []).map((l) => l?.Name));
  for (const it of items) {
    let i = 0;
    const v = it.Vehicle?.Name ?? '';
    for (const l of it.Locations ?? []) {
      if (l.LocationType === 'Start' || l.LocationType === 'Finish' || !l.Name) continue;
      if (!after.has(l.Name)) after.set(l.Name, { vehicle: v, index: i++, eta: dateToSeconds(l.TimeEstimatedArrival) });
    }
  }
  const reasonOf = (name: string): string | undefined => (res.Errors ?? []).map((e) => e.Message ?? '').find((m) => m.includes(`'${name}'`));
  for (const [name, a] of after) {
    const b = before.get(name);
    if (names.has(name)) { changes.push({ Location: name, Change: 'Added', ToVehicle: a.vehicle }); continue; }
    if (!b) continue;
    const shift = a.eta !== null ? Math.round(a.eta - b.eta) : undefined;
    if (b.vehicle !== a.vehicle) changes.push({ Location: name, Change: 'Moved', FromVehicle: b.vehicle, ToVehicle: a.vehicle, ...(shift !== undefined ? { EtaShift: shift } : {}) });
    else if (b.index !== a.index) changes.push({ Location: name, Change: 'Reordered', FromVehicle: b.vehicle, ToVehicle: a.vehicle, ...(shift !== undefined ? { EtaShift: shift } : {}) });
  }
  for (const [name, b] of before) {
    if (after.has(name) || cancelled.has(name) || changes.some((c) => c.Location === name)) continue;
    changes.push({ Location: name, Change: 'Unserved', FromVehicle: b.vehicle, Reason: reasonOf(name) ?? 'not served by the new plan' });
  }
  for (const l of rs.Locations ?? []) if (l?.Name && !after.has(l.Name)) changes.push({ Location: l.Name, Change: 'Unserved', Reason: reasonOf(l.Name) ?? 'not served by the new plan' });
  for (const s of states) for (const d of s.done) if (d.source !== 'earlier') changes.push({ Location: d.name, Change: 'Served', FromVehicle: s.name, Reason: `${d.event} (${d.source === 'event' ? 'stop event' : 'seen on the track'})` });
}
