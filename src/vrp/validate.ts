/**
 * Independent solution checker. It reads only the caller's {@link VrpInput} and the reported
 * {@link Solution} — none of the solver's internal structures — and recomputes everything from
 * scratch in double precision: coverage, vehicle eligibility (skills, pre-assignment), pairs
 * and their order, keep-order, loads along each route, stop counts, the schedule (windows,
 * shift, maximum duration, consistency of the reported times), distances, travel times and
 * costs. Every violation is listed.
 *
 * With `exact` (benchmarks whose matrices are rounded versions of real-valued distances), the
 * time feasibility and the distances are re-checked with the exact values as well.
 */
import type { VrpInput } from './model.js';
import { routeObjective, vehicleCostTerms } from './objective.js';
import type { Solution } from './solution.js';

export interface ValidateOptions {
  /** Exact travel (time = distance) between places, in the input's units. */
  exact?: (a: number, b: number) => number;
  /** Absolute tolerance for reported numbers. */
  tolerance?: number;
}

export interface ValidationReport {
  ok: boolean;
  violations: string[];
  /** Recomputed totals. */
  distance: number;
  exactDistance?: number;
  cost: number;
}

const INF = Number.POSITIVE_INFINITY;

export function validateSolution(input: VrpInput, sol: Solution, opts: ValidateOptions = {}): ValidationReport {
  const out: string[] = [];
  const tol = opts.tolerance ?? 1e-6;
  const n = input.places;
  const stops = input.stops;
  const vehicles = input.vehicles;
  const timeMs = (Array.isArray(input.time) && typeof (input.time as unknown[])[0] === 'object'
    ? (input.time as ArrayLike<number>[])
    : [input.time as ArrayLike<number>]);
  const distList = input.distance === undefined ? null
    : Array.isArray(input.distance) && typeof (input.distance as unknown[])[0] === 'object' ? (input.distance as ArrayLike<number>[]) : [input.distance as ArrayLike<number>];
  /** The distance matrix of a vehicle's profile (one for all, or one per profile). */
  const distOf = (p: number): ArrayLike<number> => (distList === null ? timeMs[0] : distList.length > 1 ? distList[p] : distList[0]);
  const K = input.dimensions ?? Math.max(0, ...stops.map((s) => s.demand?.length ?? 0), ...vehicles.map((v) => v.capacity?.length ?? 0));
  const objective = input.objective ?? 'distance';
  const rd = (m: ArrayLike<number>, a: number | undefined, b: number | undefined): number => {
    if (a === undefined || b === undefined) return 0;
    const x = m[a * n + b];
    return x >= 0 && Number.isFinite(x) ? Math.round(x) : INF;
  };
  const norm = (x: string | number): string => (typeof x === 'string' ? x.trim().toLowerCase() : `#${x}`);

  // ---- coverage
  const seen = new Int32Array(stops.length).fill(-1);
  const posIn = new Int32Array(stops.length).fill(-1);
  const usedVeh = new Set<number>();
  sol.routes.forEach((r, ri) => {
    if (!(r.vehicle >= 0 && r.vehicle < vehicles.length)) { out.push(`route ${ri}: vehicle ${r.vehicle} does not exist`); return; }
    if (usedVeh.has(r.vehicle)) out.push(`vehicle ${r.vehicle} has more than one route`);
    usedVeh.add(r.vehicle);
    if (r.stops.length === 0) out.push(`route ${ri} (vehicle ${r.vehicle}) is empty`);
    r.stops.forEach((x, i) => {
      if (!(x.stop >= 0 && x.stop < stops.length)) { out.push(`route ${ri}: stop ${x.stop} does not exist`); return; }
      if (seen[x.stop] >= 0) out.push(`stop ${x.stop} is visited more than once`);
      seen[x.stop] = r.vehicle;
      posIn[x.stop] = i;
    });
  });
  const unassigned = new Set<number>();
  for (const u of sol.unassigned) {
    if (seen[u.stop] >= 0) out.push(`stop ${u.stop} is both routed and unassigned`);
    if (unassigned.has(u.stop)) out.push(`stop ${u.stop} is listed unassigned twice`);
    unassigned.add(u.stop);
    if (!u.reason) out.push(`stop ${u.stop} is unassigned without a reason`);
  }
  for (let s = 0; s < stops.length; s++) if (seen[s] < 0 && !unassigned.has(s) && !stops[s].optional) out.push(`stop ${s} is neither routed nor reported unassigned`);
  for (const u of sol.unassigned) if (stops[u.stop]?.optional) out.push(`optional stop ${u.stop} is reported unassigned`);

  // ---- pairs
  for (const [i, p] of (input.pairs ?? []).entries()) {
    const a = seen[p.pickup], b = seen[p.delivery];
    if ((a < 0) !== (b < 0)) { out.push(`pair ${i}: only one of pickup ${p.pickup} / delivery ${p.delivery} is served`); continue; }
    if (a < 0) continue;
    if (a !== b) { out.push(`pair ${i}: pickup and delivery on different vehicles (${a}, ${b})`); continue; }
    if (posIn[p.pickup] >= posIn[p.delivery]) out.push(`pair ${i}: delivery ${p.delivery} comes before pickup ${p.pickup}`);
    if (p.nonStop && posIn[p.delivery] !== posIn[p.pickup] + 1) out.push(`pair ${i}: non-stop delivery ${p.delivery} is not right after its pickup`);
  }
  const pairRole = new Map<number, { role: 'p' | 'd'; other: number }>();
  for (const p of input.pairs ?? []) { pairRole.set(p.pickup, { role: 'p', other: p.delivery }); pairRole.set(p.delivery, { role: 'd', other: p.pickup }); }

  // ---- per route
  let totalDist = 0;
  let totalExact = 0;
  let totalCost = 0;
  let reportedDist = 0;
  for (const [ri, r] of sol.routes.entries()) {
    const v = r.vehicle;
    const ve = vehicles[v];
    if (!ve) continue;
    const tag = `route ${ri} (vehicle ${v})`;
    const T = timeMs[ve.timeProfile ?? 0];
    const vskills = new Set((ve.skills ?? []).map(norm));
    const seq = r.stops.map((x) => x.stop).filter((s) => s >= 0 && s < stops.length);
    // eligibility
    for (const s of seq) {
      const st = stops[s];
      if (st.vehicle !== undefined && st.vehicle !== v) out.push(`${tag}: stop ${s} is pre-assigned to vehicle ${st.vehicle}`);
      for (const k of st.skills ?? []) if (!vskills.has(norm(k))) out.push(`${tag}: stop ${s} needs skill "${k}"`);
    }
    // keep order
    let lastKeep = -1;
    for (const s of seq) if (stops[s].keepOrder) { if (s < lastKeep) out.push(`${tag}: keep-order stop ${s} comes after stop ${lastKeep}`); lastKeep = s; }
    // stops limit
    const nStops = seq.filter((s) => !stops[s].reload).length; // reload points are not stops of the vehicle's work
    if ((ve.maxStops ?? 0) > 0 && nStops > ve.maxStops!) out.push(`${tag}: ${nStops} stops exceed MaxStops ${ve.maxStops}`);
    // loads: what the stops up to the next reload point need leaves the depot (or that reload point)
    const needUntilReload = (from: number, k: number): number => {
      let q = 0;
      for (let i = from; i < seq.length && !stops[seq[i]].reload; i++) if (!pairRole.has(seq[i])) q += stops[seq[i]].demand?.[k] ?? 0;
      return q;
    };
    {
      const open = new Set<number>();
      for (const s of seq) {
        const pr = pairRole.get(s);
        if (stops[s].reload && open.size > 0) out.push(`${tag}: reload stop ${s} visited while a pickup/delivery pair is open`);
        if (pr?.role === 'p') open.add(s);
        else if (pr?.role === 'd') open.delete(pr.other);
      }
    }
    for (let k = 0; k < K; k++) {
      const cap = ve.capacity && k < ve.capacity.length && ve.capacity[k] > 0 ? ve.capacity[k] : INF;
      let load = needUntilReload(0, k);
      if (load > cap + 1e-9) out.push(`${tag}: load ${load} at the start exceeds capacity ${cap} (dimension ${k})`);
      if (Math.abs(load - (r.startLoad[k] ?? 0)) > tol) out.push(`${tag}: reported start load ${r.startLoad[k]} ≠ ${load} (dimension ${k})`);
      for (const [i, s] of seq.entries()) {
        const pr = pairRole.get(s);
        if (stops[s].reload) {
          load = needUntilReload(i + 1, k);
          if (load > cap + 1e-9) out.push(`${tag}: load ${load} after reload stop ${s} exceeds capacity ${cap} (dimension ${k})`);
        } else if (!pr) load -= stops[s].demand?.[k] ?? 0;
        else {
          const pk = pr.role === 'p' ? s : pr.other;
          const dl = pr.role === 'p' ? pr.other : s;
          const q = (stops[pk].demand?.[k] ?? 0) + (stops[dl].demand?.[k] ?? 0);
          load += pr.role === 'p' ? q : -q;
        }
        if (load > cap + 1e-9) out.push(`${tag}: load ${load} after stop ${s} exceeds capacity ${cap} (dimension ${k})`);
        if (load < -1e-9) out.push(`${tag}: negative load after stop ${s}`);
        const rep = r.stops[i]?.load[k];
        if (rep !== undefined && Math.abs(rep - load) > tol) out.push(`${tag}: reported load ${rep} after stop ${s} ≠ ${load}`);
      }
    }
    // schedule from the reported departure, with the input's (rounded) matrix
    const tin = ve.shift ? ve.shift[0] : (input.startTime ?? 0);
    const tout = ve.shift ? ve.shift[1] : INF;
    const windowsOk = (s: number, t: number, eps: number): boolean => {
      const ws = (stops[s].windows ?? []).filter((w) => !(w[0] === -Infinity && w[1] === Infinity));
      if (ws.length === 0) return true;
      return ws.some((w) => t >= w[0] - eps && t <= w[1] + eps);
    };
    // breaks without a place: which apply (window closing before the shift starts: none), where taken
    const brs = (ve.breaks ?? []).map((b, i) => ({ i, a: b.window ? b.window[0] : -INF, b: b.window ? b.window[1] : INF, w: b.duration }))
      .filter((b) => b.b >= tin);
    const taken = r.breaks ?? [];
    for (const b of taken) if (!brs.some((x) => x.i === b.index)) out.push(`${tag}: break ${b.index} reported but the vehicle has no such break`);
    const runSchedule = (travel: (a: number | undefined, b: number | undefined) => number, eps: number, label: string, strict: boolean): void => {
      let t = r.startTime;
      if (t < tin - eps) out.push(`${tag}${label}: leaves at ${t}, before its shift starts (${tin})`);
      let prev = ve.start;
      if (ve.start === undefined && seq.length > 0) t = Math.min(r.stops[0].arrival, taken.length > 0 && taken[0].at === -1 ? taken[0].start : INF); // starts at its first stop
      const breaksAt = (at: number, before: boolean): void => {
        for (const b of taken) {
          if (b.at !== at || b.beforeService !== before) continue;
          const x = brs.find((y) => y.i === b.index);
          if (!x) continue;
          if (b.start < t - eps) out.push(`${tag}${label}: break ${b.index} starts at ${b.start}, before the driver is free (${t})`);
          if (b.start < x.a - eps || b.start > x.b + eps) out.push(`${tag}${label}: break ${b.index} starts at ${b.start}, outside its window [${x.a}, ${x.b}]`);
          if (Math.abs(b.end - b.start - x.w) > tol) out.push(`${tag}: break ${b.index} lasts ${b.end - b.start}, not ${x.w}`);
          t = Math.max(t, b.start + x.w);
        }
      };
      breaksAt(-1, false);
      for (const [i, s] of seq.entries()) {
        const pl = stops[s].place;
        const arrival = prev === undefined ? t : t + travel(prev, pl);
        const rep = r.stops[i];
        t = strict ? rep.arrival : arrival;
        breaksAt(i, true);
        // earliest feasible start given the arrival (and breaks): first window closing at or after it
        const ws = (stops[s].windows ?? []).filter((w) => !(w[0] === -Infinity && w[1] === Infinity)).slice().sort((a, b) => a[0] - b[0]);
        let start = t;
        if (ws.length > 0) {
          const w = ws.find((x) => t <= x[1] + eps);
          if (!w) { out.push(`${tag}${label}: stop ${s} reached at ${t}, after its last window closes`); start = t; }
          else start = Math.max(t, w[0]);
        }
        if (strict) {
          if (Math.abs(rep.arrival - arrival) > tol) out.push(`${tag}: reported arrival ${rep.arrival} at stop ${s} ≠ ${arrival}`);
          if (rep.start < t - tol) out.push(`${tag}: stop ${s} starts before arrival (or before its break ends)`);
          if (!windowsOk(s, rep.start, tol)) out.push(`${tag}: stop ${s} served at ${rep.start}, outside its windows`);
          if (Math.abs(rep.departure - rep.start - (stops[s].service ?? 0)) > tol) out.push(`${tag}: stop ${s} departure ≠ start + service`);
          t = rep.departure;
        } else t = start + (stops[s].service ?? 0);
        breaksAt(i, false);
        prev = pl;
      }
      const end = ve.end === undefined ? t : t + travel(prev, ve.end);
      if (end > tout + eps) out.push(`${tag}${label}: ends at ${end}, after its shift ends (${tout})`);
      const md = ve.maxDuration ?? 0;
      if (md > 0 && md !== INF && end - r.startTime > md + eps) out.push(`${tag}${label}: duration ${end - r.startTime} exceeds ${md}`);
      if (strict && Math.abs(end - r.endTime) > tol) out.push(`${tag}: reported end ${r.endTime} ≠ ${end}`);
      // every applicable break is taken once, unless the route is over before its window opens
      if (strict) for (const x of brs) {
        const n = taken.filter((b) => b.index === x.i).length;
        if (n > 1) out.push(`${tag}: break ${x.i} taken ${n} times`);
        if (n === 0 && !(end < x.a)) out.push(`${tag}: break ${x.i} (window [${x.a}, ${x.b}]) not taken though the route runs until ${end}`);
      }
    };
    runSchedule((a, b) => rd(T, a, b), tol, '', true);
    if (opts.exact) runSchedule((a, b) => (a === undefined || b === undefined ? 0 : opts.exact!(a, b)), 1e-7, ' (exact)', false);
    // distance and cost
    let d = 0, dx = 0, c = 0;
    let prev = ve.start;
    const distM = distOf(ve.timeProfile ?? 0);
    const C = objective === 'distance' ? distM : T;
    for (const s of [...seq, -1]) {
      const pl = s < 0 ? ve.end : stops[s].place;
      d += rd(distM, prev, pl);
      c += rd(C, prev, pl);
      if (opts.exact && prev !== undefined && pl !== undefined) dx += opts.exact(prev, pl);
      if (pl !== undefined) prev = pl;
    }
    // An empty route (a violation of its own, above) is priced at its raw start → end leg cost,
    // not at routeObjective's 0, as the checker always did.
    if (seq.length > 0) {
      const terms = vehicleCostTerms(ve);
      c = routeObjective(terms.costFactor, terms.fixedCost, c, true);
    }
    if (Math.abs(d - r.distance) > tol) out.push(`${tag}: reported distance ${r.distance} ≠ ${d}`);
    if (Math.abs(c - r.cost) > tol) out.push(`${tag}: reported cost ${r.cost} ≠ ${c}`);
    totalDist += d;
    totalExact += dx;
    totalCost += c;
    reportedDist += r.distance;
  }
  if (Math.abs(totalDist - sol.distance) > tol * Math.max(1, sol.routes.length)) out.push(`total distance ${sol.distance} ≠ ${totalDist}`);
  if (Math.abs(totalCost - sol.cost) > tol * Math.max(1, sol.routes.length)) out.push(`total cost ${sol.cost} ≠ ${totalCost}`);
  void reportedDist;
  return { ok: out.length === 0, violations: out, distance: totalDist, exactDistance: opts.exact ? totalExact : undefined, cost: totalCost };
}
