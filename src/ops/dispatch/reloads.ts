/**
 * Stage "reloads": MidwayDrop locations are reload points that empty the vehicle
 * (docs/dispatch-modes.md). Each is offered to the solver as optional reload stops, as many
 * copies as a route could need; the solver visits one where a capacity would otherwise leave
 * stops out. They come back as entries of LocationType MidwayDrop where they were visited.
 */
import type { VrpStop } from '../../vrp/model.js';
import type { Draft } from './draft.js';
import { MAX_DROP_COPIES, nameOf } from './types.js';
import { serviceWindow } from './windows.js';
import { zoneSkill } from './zones.js';

/** Copies of each reload point: enough for the whole demand to pass through the smallest vehicle, one more per vehicle. */
function reloadCopies(d: Draft): number {
  let copies = 1;
  for (let k = 0; k < 3; k++) {
    const caps = d.model.map((mv) => mv.capacity?.[k] ?? 0).filter((c) => c > 0);
    if (caps.length === 0) continue;
    const total = d.stops.reduce((a, st) => a + (st.demand?.[k] ?? 0), 0);
    copies = Math.max(copies, Math.ceil(total / Math.min(...caps)) + d.model.length);
  }
  return Math.min(copies, Math.max(1, d.stops.length), MAX_DROP_COPIES);
}

export function addReloads(d: Draft, drops: readonly number[]): void {
  if (drops.length === 0) return;
  const capped = d.model.some((mv) => Array.from(mv.capacity ?? []).some((c) => c > 0));
  if (!capped) {
    for (const i of drops) d.errors.push(`${nameOf(d.locs[i]!, i)}: a MidwayDrop is visited only when MaxWeight, MaxVolume or MaxSkids would be exceeded, and no vehicle has any of them; it was ignored`);
    return;
  }
  const copies = reloadCopies(d);
  for (const i of drops) {
    const l = d.locs[i]!;
    if (d.opts.unplaced?.has(i)) { d.errors.push(`${nameOf(l, i)}: the MidwayDrop could not be placed (${d.opts.unplaced.get(i)}); it was ignored`); continue; }
    const service = l.Wait ?? 0;
    const st: VrpStop = { place: d.at.ofLoc.get(i)!, service, reload: true, optional: true, label: l.Name };
    const win = serviceWindow(d.clock.rel(l.TimeConstraintArrival), d.clock.rel(l.TimeConstraintDeparture), service);
    if (win === 'empty') { d.errors.push(`${nameOf(l, i)}: the MidwayDrop closes before its Wait can end; it was ignored`); continue; }
    if (win !== null) st.windows = [win];
    const z = zoneSkill(d, l, i);
    if (z === null) continue;
    if (z !== undefined) st.skills = [z];
    for (let c = 0; c < copies; c++) {
      d.stopLoc.push(i);
      d.stops.push(c === 0 ? st : { ...st });
    }
  }
}
