/**
 * Stage "pairs": a Location whose Delivery names another is a pickup → delivery pair (the load
 * goes on at the pickup and off at the delivery, same vehicle, pickup first; non-stop unless
 * DeliveryNonStop is false). A pair whose other side was left out cannot be served alone: that
 * side is dropped too (reported). Returns the final stops and pairs, renumbered.
 */
import { REASON_TEXT, type VrpPair, type VrpStop } from '../../vrp/model.js';
import type { Draft } from './draft.js';
import { nameOf } from './types.js';

export interface Paired {
  stops: VrpStop[];
  /** Model stop → spec.Locations index, after the renumbering. */
  stopLoc: number[];
  pairs: VrpPair[];
  /** Old model stop index → new one (dropped stops are missing). */
  remap: Map<number, number>;
}

export function pairStops(d: Draft): Paired {
  const byName = new Map<string, number>();
  d.locs.forEach((l, i) => { if (l?.Name !== undefined && !byName.has(l.Name)) byName.set(l.Name, i); });
  const pairs: VrpPair[] = [];
  const inPair = new Set<number>();
  const orphan = new Set<number>();
  const stops = d.stops;
  d.locs.forEach((l, i) => {
    if (!l?.Delivery) return;
    const di = byName.get(l.Delivery);
    const path = `Locations[${i}].Delivery`;
    if (di === undefined) { d.issues.push({ path, message: `names no location ('${l.Delivery}')` }); return; }
    if (di === i) { d.issues.push({ path, message: 'a location cannot be its own delivery' }); return; }
    const p = d.stopOfLoc.get(i), q = d.stopOfLoc.get(di);
    if (p === undefined || q === undefined) {
      // one side was left out: the other cannot be served alone
      for (const [x, li] of [[p, i], [q, di]] as const) if (x !== undefined) { orphan.add(x); d.errors.push(`${nameOf(d.locs[li]!, li)} was not dispatched: ${REASON_TEXT.pair}`); }
      return;
    }
    if (inPair.has(p) || inPair.has(q)) { d.issues.push({ path, message: 'a location can be in one pickup/delivery pair only' }); return; }
    inPair.add(p); inPair.add(q);
    if (stops[p].vehicle !== undefined && stops[q].vehicle !== undefined && stops[p].vehicle !== stops[q].vehicle) {
      d.issues.push({ path, message: 'pickup and delivery are pre-assigned to different vehicles' });
      return;
    }
    const pre = stops[p].vehicle ?? stops[q].vehicle;
    if (pre !== undefined) { stops[p].vehicle = pre; stops[q].vehicle = pre; }
    pairs.push({ pickup: p, delivery: q, nonStop: l.DeliveryNonStop ?? true });
  });
  // stops orphaned by a left-out partner: drop them (already reported)
  const remap = new Map<number, number>();
  const kept: VrpStop[] = [];
  const stopLoc: number[] = [];
  stops.forEach((s, i) => { if (!orphan.has(i)) { remap.set(i, kept.length); kept.push(s); stopLoc.push(d.stopLoc[i]); } });
  return { stops: kept, stopLoc, pairs: pairs.map((p) => ({ ...p, pickup: remap.get(p.pickup)!, delivery: remap.get(p.delivery)! })), remap };
}
