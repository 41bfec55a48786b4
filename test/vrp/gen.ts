/** Random VRP instances with every constraint kind switched on (for property tests). */
import { Rng } from '../../src/core/rng.js';
import type { VrpInput, VrpPair, VrpStop, VrpVehicle } from '../../src/vrp/model.js';

export interface GenOptions {
  stops?: [number, number];
  vehicles?: [number, number];
  /** Probability that a stop has windows, two windows, a priority, skills, a pre-assignment, keep-order. */
  pWindow?: number;
  pTwo?: number;
  pPair?: number;
  pSkill?: number;
  pPre?: number;
  pKeep?: number;
  /** Allow open starts/ends, profiles, max duration, max stops, shifts. */
  rich?: boolean;
  /** Reload points (MidwayDrop): this many places, each offered as `reloadCopies` optional reload stops. */
  reloads?: number;
  reloadCopies?: number;
}

export function randomInstance(seed: number, o: GenOptions = {}): VrpInput {
  const rng = new Rng(seed);
  const [s0, s1] = o.stops ?? [4, 14];
  const [v0, v1] = o.vehicles ?? [1, 4];
  const S = rng.range(s0, s1);
  const V = rng.range(v0, v1);
  const rich = o.rich ?? true;
  const nDepots = rng.range(1, 2);
  const n = S + nDepots;
  const xs = Array.from({ length: n }, () => rng.int(100));
  const ys = Array.from({ length: n }, () => rng.int(100));
  const dist = new Float64Array(n * n);
  const t0 = new Float64Array(n * n);
  const t1 = new Float64Array(n * n);
  for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) {
    const d = Math.round(Math.hypot(xs[a] - xs[b], ys[a] - ys[b]));
    dist[a * n + b] = d;
    t0[a * n + b] = a === b ? 0 : Math.round(d * (1 + 0.2 * rng.next())); // asymmetric
    t1[a * n + b] = Math.round(d * 2);
  }
  const horizon = 600;
  const stops: VrpStop[] = [];
  for (let s = 0; s < S; s++) {
    const st: VrpStop = { place: nDepots + s, service: rng.int(15), demand: [rng.int(10), rng.int(4)] };
    if (rng.chance(o.pWindow ?? 0.5)) {
      const a = rng.int(horizon - 100);
      const w: [number, number][] = [[a, a + 30 + rng.int(120)]];
      if (rng.chance(o.pTwo ?? 0.3)) { const b = w[0][1] + 20 + rng.int(100); w.push([b, b + 30 + rng.int(100)]); }
      st.windows = w;
    } else if (rng.chance(0.2)) st.windows = [[-Infinity, 100 + rng.int(horizon)]]; // deadline only
    if (rng.chance(0.4)) st.priority = rng.int(3);
    if (rng.chance(o.pSkill ?? 0.2)) st.skills = [rng.chance(0.5) ? 'Frozen' : 'lift'];
    if (rng.chance(o.pPre ?? 0.1)) st.vehicle = rng.int(V);
    if (rng.chance(o.pKeep ?? 0.15)) st.keepOrder = true;
    stops.push(st);
  }
  const pairs: VrpPair[] = [];
  const used = new Set<number>();
  for (let s = 0; s + 1 < S; s++) {
    if (used.has(s) || used.has(s + 1) || !rng.chance(o.pPair ?? 0.15)) continue;
    pairs.push({ pickup: s, delivery: s + 1, nonStop: rng.chance(0.5) });
    used.add(s); used.add(s + 1);
    // a pair may not be pre-assigned to two vehicles
    if (stops[s].vehicle !== undefined) stops[s + 1].vehicle = stops[s].vehicle;
    else delete stops[s + 1].vehicle;
  }
  for (let r = 0; r < (o.reloads ?? 0); r++) {
    const place = rng.int(n);
    const service = rng.int(10);
    for (let c = 0; c < (o.reloadCopies ?? 3); c++) stops.push({ place, service, reload: true, optional: true });
  }
  const vehicles: VrpVehicle[] = [];
  for (let v = 0; v < V; v++) {
    const dep = rng.int(nDepots);
    const ve: VrpVehicle = { start: dep, end: dep, capacity: [20 + rng.int(40), rng.chance(0.5) ? 0 : 8] };
    if (rich) {
      if (rng.chance(0.2)) delete ve.end;
      else if (rng.chance(0.1)) delete ve.start;
      if (rng.chance(0.3)) ve.shift = [rng.int(100), 300 + rng.int(horizon)];
      if (rng.chance(0.3)) ve.maxDuration = 150 + rng.int(400);
      if (rng.chance(0.3)) ve.maxStops = 2 + rng.int(5);
      if (rng.chance(0.5)) ve.skills = rng.chance(0.5) ? ['frozen'] : ['LIFT', 'frozen'];
      if (rng.chance(0.3)) ve.costFactor = 1 + rng.int(3);
      if (rng.chance(0.2)) ve.fixedCost = rng.int(50);
      if (rng.chance(0.3)) ve.timeProfile = 1;
    }
    vehicles.push(ve);
  }
  return {
    places: n, time: rich ? [t0, t1] : t0, distance: dist, objective: rng.chance(0.5) ? 'distance' : 'time',
    dimensions: 2, stops, vehicles, pairs, startTime: 0,
  };
}

/** A CVRP with a free fleet whose routes the loads decide: every `bigEvery`-th job takes over half a vehicle. */
export function packingInstance(seed: number, J: number, bigEvery = 7): VrpInput {
  const rng = new Rng(seed);
  const n = J + 1;
  const xs = [500, ...Array.from({ length: J }, () => rng.int(1000))];
  const ys = [500, ...Array.from({ length: J }, () => rng.int(1000))];
  const dist = new Float64Array(n * n);
  for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) dist[a * n + b] = Math.round(Math.hypot(xs[a] - xs[b], ys[a] - ys[b]));
  const stops = Array.from({ length: J }, (_, i) => ({ place: i + 1, demand: [bigEvery > 0 && i % bigEvery === 0 ? 51 + rng.int(40) : 1 + rng.int(20)] }));
  const vehicles = Array.from({ length: J }, () => ({ start: 0, end: 0, capacity: [100] }));
  return { places: n, time: dist, distance: dist, objective: 'distance', dimensions: 1, stops, vehicles };
}
