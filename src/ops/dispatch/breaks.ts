/**
 * Stage "breaks": a driver's break (LocationType Break): Wait is its length, its window is when
 * it must start (start ∈ [TimeConstraintArrival, TimeConstraintDeparture]; either may be open),
 * Vehicle names the vehicles whose break it is (comma-separated; none = every vehicle).
 * - With a place: one stop per vehicle, pre-assigned to it (or to its trips), of a priority above
 *   every stop's, so that a plan keeps its breaks.
 * - Without a place: taken where the driver is (VrpBreak), on every trip whose shift its window
 *   meets; it comes back as an entry at the place where it was taken.
 */
import type { Location } from '../../records/index.js';
import type { VrpBreak, VrpStop } from '../../vrp/model.js';
import { hasPlace } from '../locations.js';
import type { Draft } from './draft.js';
import { vehicleNamed } from './fleet.js';
import { BREAK_PRIORITY, nameOf, words } from './types.js';
import { breakWindow } from './windows.js';

/** The vehicles whose break it is (errors for names that match none). */
function breakOwners(d: Draft, l: Location, i: number): number[] {
  const wanted = words(l.Vehicle);
  if (wanted.length === 0) return d.vehicles.map((_, v) => v);
  const owners: number[] = [];
  for (const w of wanted) {
    const v = vehicleNamed(d, w);
    if (v === undefined) d.errors.push(`${nameOf(l, i)}: the Break names vehicle '${w}', which does not exist (Vehicles: ${[...d.vName.keys()].join(', ') || 'none named'}); it was not scheduled for it`);
    else owners.push(v);
  }
  return owners;
}

export function addBreak(d: Draft, l: Location, i: number): void {
  if (d.opts.unplaced?.has(i)) {
    d.errors.push(`${nameOf(l, i)}: the Break could not be placed (${d.opts.unplaced.get(i)}); it was not scheduled`);
    return;
  }
  const owners = breakOwners(d, l, i);
  const win = breakWindow(l, d.clock);
  if (win === 'empty') {
    d.errors.push(`${nameOf(l, i)}: the Break's window ends before it opens (TimeConstraintDeparture before TimeConstraintArrival); it was not scheduled`);
    return;
  }
  if (!hasPlace(l)) {
    for (const v of owners) d.model.forEach((mv, m) => {
      if (d.modelOf[m] !== v) return;
      const brs = (mv.breaks ??= []) as VrpBreak[];
      brs.push({ duration: l.Wait ?? 0, window: win ?? [-Infinity, Infinity], label: l.Name });
      (d.breakLoc[m] ??= []).push(i);
    });
    return;
  }
  for (const v of owners) {
    const st: VrpStop = { place: d.at.ofLoc.get(i)!, service: l.Wait ?? 0, demand: [0, 0, 0], priority: BREAK_PRIORITY, label: l.Name };
    if (win !== null) st.windows = [win];
    if (d.tripSkill.has(v)) st.skills = [d.tripSkill.get(v)!];
    else st.vehicle = v;
    d.breakStops.add(d.stops.length);
    d.stopLoc.push(i);
    d.stops.push(st);
  }
}
