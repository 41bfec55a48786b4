/**
 * Stage "stops": every Location that is a stop (Midway, Delivery) becomes a solver stop — its
 * place, Wait as service, Weight/Volume/Skids as demand, Priority, Conditions as skills, its
 * service windows (windows.ts), a pre-assigned Vehicle, the skill of its zone class (zones.ts).
 * MidwayDrops go to reloads.ts and Breaks to breaks.ts; a stop that cannot be served by any
 * vehicle or in any window is left out with the reason.
 */
import { REASON_TEXT, type VrpStop } from '../../vrp/model.js';
import type { Location } from '../../records/index.js';
import { addBreak } from './breaks.js';
import type { Draft } from './draft.js';
import { vehicleNamed } from './fleet.js';
import { addReloads } from './reloads.js';
import { nameOf, SCALE_Q, words } from './types.js';
import { stopWindows } from './windows.js';
import { zoneSkill } from './zones.js';

export function addStops(d: Draft): void {
  const drops: number[] = [];
  d.locs.forEach((l, i) => {
    if (!l) return;
    const type = l.LocationType ?? 'Midway';
    if (type === 'Start' || type === 'Finish') return;
    if (type === 'MidwayDrop') drops.push(i);
    else if (type === 'Break') addBreak(d, l, i);
    else if (d.opts.unplaced?.has(i)) d.errors.push(`${nameOf(l, i)} was not dispatched: ${d.opts.unplaced.get(i)}`);
    else addStop(d, l, i);
  });
  addReloads(d, drops);
}

function addStop(d: Draft, l: Location, i: number): void {
  const service = l.Wait ?? 0;
  const { windows, empty } = stopWindows(l, d.clock);
  if (empty) {
    d.errors.push(`${nameOf(l, i)} was not dispatched: ${REASON_TEXT.timeWindow} (it closes before the Wait of ${service} s can end)`);
    return;
  }
  let vehicle: number | undefined;
  if (l.Vehicle !== undefined && l.Vehicle !== '') {
    vehicle = vehicleNamed(d, l.Vehicle);
    if (vehicle === undefined) {
      d.errors.push(`${nameOf(l, i)} was not dispatched: it is pre-assigned to vehicle '${l.Vehicle}', which does not exist`);
      return;
    }
  }
  const st: VrpStop = {
    place: d.at.ofLoc.get(i)!, service,
    demand: [(l.Weight ?? 0) * SCALE_Q, (l.Volume ?? 0) * SCALE_Q, l.Skids ?? 0],
    priority: l.Priority ?? 0,
    skills: words(l.Conditions),
    keepOrder: l.KeepSameOrder ?? false,
    label: l.Name,
  };
  if (windows.length > 0) st.windows = windows;
  const z = zoneSkill(d, l, i);
  if (z === null) return;
  if (z !== undefined) st.skills = [...(st.skills ?? []), z];
  // Pre-assigned to a vehicle with trips: any of its trips (a skill only they have).
  if (vehicle !== undefined && d.tripSkill.has(vehicle)) st.skills = [...(st.skills ?? []), d.tripSkill.get(vehicle)!];
  else if (vehicle !== undefined) st.vehicle = vehicle;
  d.stopOfLoc.set(i, d.stops.length);
  d.stopLoc.push(i);
  d.stops.push(st);
}
