/**
 * Stage "fleet": the request's Vehicles (or the one implied when there are none) become the
 * solver's vehicles — depots (a vehicle's own, else the Locations typed Start/Finish), shift from
 * Tin/Tout, capacities, limits of a trip, Roles as skills, FuelCost as a cost factor — each on a
 * travel profile: one per (constant Speed, set of no-go zones) in use.
 */
import { VehicleSchema, type DispatchModeName, type DispatchSpecification, type Location, type Vehicle } from '../../records/index.js';
import { constantSpeedSeconds } from '../../core/units.js';
import type { VrpVehicle } from '../../vrp/model.js';
import type { Clock } from './clock.js';
import type { Draft } from './draft.js';
import { emptyShift } from './parse.js';
import type { PlaceIndex } from './place.js';
import type { DispatchOptions, DispatchTravel } from './types.js';
import { MAX_COST_FACTOR, reachable, SCALE_Q, words } from './types.js';
import { vehicleZones, zoneKey } from './zones.js';

export interface DraftBase {
  spec: DispatchSpecification;
  travel: DispatchTravel;
  opts: DispatchOptions;
  n: number;
  at: PlaceIndex;
  clock: Clock;
  unit: number;
  mode: DispatchModeName;
  modeReason: string;
}

/** The draft with its fleet: every vehicle on its profile, first trips only (trips.ts adds the rest). */
export function draftFleet(base: DraftBase): Draft {
  const { spec, travel } = base;
  const specVehicles = (spec.Vehicles ?? []).filter((v): v is Vehicle => !!v);
  const vehicles: Vehicle[] = specVehicles.length > 0 ? specVehicles : [{ ...VehicleSchema.defaults(), Name: 'Vehicle' }];
  const vehIdx = specVehicles.length > 0 ? (spec.Vehicles ?? []).map((v, i) => (v ? i : -1)).filter((i) => i >= 0) : [-1];
  const anyFuel = vehicles.some((v) => (v.FuelCost ?? 0) > 0);
  const zonesOf = vehicles.map((v) => vehicleZones(v));
  const keyOf = zonesOf.map((z) => zoneKey(z));
  const vName = new Map<string, number>();
  vehicles.forEach((v, i) => { if (v.Name !== undefined && !vName.has(v.Name)) vName.set(v.Name, i); });
  const d: Draft = {
    ...base, locs: spec.Locations ?? [], errors: [], issues: [],
    objective: anyFuel ? 'distance' : spec.RouteOptimize === 'MinimizeDistance' ? 'distance' : 'time',
    vehicles, vehIdx, vName, zonesOf, keyOf, anyZones: keyOf.some((k) => k !== ''), zoneClasses: new Map(),
    zonesByKey: new Map(keyOf.flatMap((k, i) => (k === '' ? [] : [[k, zonesOf[i]] as const]))),
    timeProfiles: [travel.time], distProfiles: [travel.distance],
    model: [], modelOf: [], tripOf: [], startLoc: [], finishLoc: [], tripSkill: new Map(),
    stops: [], stopLoc: [], stopOfLoc: new Map(), breakStops: new Set(), breakLoc: [],
  };
  const profileOf = travelProfiles(d);
  const typed = { start: d.locs.findIndex((l) => l?.LocationType === 'Start'), finish: d.locs.findIndex((l) => l?.LocationType === 'Finish') };
  const minFuel = anyFuel ? Math.min(...vehicles.map((v) => v.FuelCost ?? 0).filter((f) => f > 0)) : 1;
  vehicles.forEach((v, i) => {
    const { start, finish, sl, fl } = depots(d, v, i, typed);
    const ve: VrpVehicle = {
      start, end: finish,
      capacity: [(v.MaxWeight ?? 0) * SCALE_Q, (v.MaxVolume ?? 0) * SCALE_Q, v.MaxSkids ?? 0],
      maxStops: v.MaxStops ?? 0,
      maxDuration: (v.MaxMinutes ?? 0) * 60,
      skills: words(v.Roles),
      costFactor: anyFuel ? Math.min(MAX_COST_FACTOR, Math.max(1, Math.round((100 * ((v.FuelCost ?? 0) > 0 ? v.FuelCost! : minFuel)) / minFuel))) : 1,
      fixedCost: 0,
      timeProfile: profileOf[i],
      label: v.Name,
    };
    const shift = vehicleShift(d, v, i);
    if (shift !== null) ve.shift = shift;
    d.model.push(ve);
    d.modelOf.push(i);
    d.tripOf.push(1);
    d.startLoc.push(sl);
    d.finishLoc.push(fl);
  });
  return d;
}

/** A vehicle named by a Location (exact Name first, then case-insensitive), or undefined. */
export function vehicleNamed(d: Draft, name: string): number | undefined {
  return d.vName.get(name) ?? [...d.vName.entries()].find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
}

/**
 * Profiles: one per (Speed, no-go zones) in use; profile 0 = road speeds, no zones. A constant
 * Speed turns the profile's distances into times; zones pick the matrices that avoid them.
 * Returns each vehicle's profile.
 */
function travelProfiles(d: Draft): number[] {
  const keys = new Map<string, number>([['0|', 0]]);
  const n = d.n;
  return d.vehicles.map((v, i) => {
    const speed = v.Speed ?? 0;
    const key = `${speed}|${d.keyOf[i]}`;
    let p = keys.get(key);
    if (p === undefined) {
      const base = d.keyOf[i] !== '' && d.travel.zoned?.[d.keyOf[i]] ? d.travel.zoned[d.keyOf[i]] : d.travel;
      let time = base.time;
      if (speed > 0) {
        const m = new Float64Array(n * n);
        const u = d.spec.DistanceUnit === 'Kilometer' ? 'Kilometer' : 'Mile';
        for (let q = 0; q < n * n; q++) { const x = base.distance[q]; m[q] = reachable(x) ? constantSpeedSeconds(x, speed, u) : -1; }
        time = m;
      }
      p = d.timeProfiles.length;
      keys.set(key, p);
      d.timeProfiles.push(time);
      d.distProfiles.push(base.distance);
    }
    return p;
  });
}

/** A vehicle's depots: its own StartLocation/FinishLocation, else the Locations typed Start/Finish (`typed`: their indexes, -1 none); TimeWindowDepot returns to the start. */
function depots(d: Draft, v: Vehicle, i: number, typed: { start: number; finish: number }): { start?: number; finish?: number; sl?: Location; fl?: Location } {
  const si = d.vehIdx[i];
  const { start: startTyped, finish: finishTyped } = typed;
  let start = si >= 0 ? d.at.ofStart.get(si) : undefined;
  let finish = si >= 0 ? d.at.ofFinish.get(si) : undefined;
  let sl = v.StartLocation ?? undefined, fl = v.FinishLocation ?? undefined;
  if (start === undefined && startTyped >= 0) { start = d.at.ofLoc.get(startTyped); sl = d.locs[startTyped] ?? undefined; }
  if (finish === undefined && finishTyped >= 0) { finish = d.at.ofLoc.get(finishTyped); fl = d.locs[finishTyped] ?? undefined; }
  if (finish === undefined && d.mode === 'TimeWindowDepot' && start !== undefined) { finish = start; fl = sl; }
  return { start, finish, sl, fl };
}

/** A vehicle's shift [Tin (or CurrentTime), Tout] in whole seconds rounded inwards, as the solver rounds them; null = unbounded. */
function vehicleShift(d: Draft, v: Vehicle, i: number): [number, number] | null {
  const tin = d.clock.rel(v.Tin) ?? (d.clock.current !== null ? d.clock.current - d.clock.origin : undefined);
  const tout = d.clock.rel(v.Tout);
  if (tin === undefined && tout === null) return null;
  const shift: [number, number] = [tin === undefined ? -Infinity : Math.ceil(tin), tout === null ? Infinity : Math.floor(tout)];
  // the solver never sees an empty shift: the request fails naming the Tout
  if (shift[0] > shift[1]) d.issues.push(emptyShift(d.spec, v, d.vehIdx[i]));
  return shift;
}
