/**
 * Decomposition for large problems: after the independent searches have a plan, the threads stop
 * competing and cooperate. Each round cuts the plan's routes into one part per thread — routes
 * ordered by the travel time of their middle stop from a random route's, cut into contiguous runs —
 * and every thread improves its part only (warm start from the plan; its `allowed` keeps its jobs
 * on its part's vehicles and every other job where it is; ruins start and spread only on its
 * routes). The parts are merged — a part's new routes are taken only when they are no worse on
 * its own jobs — and the next round cuts elsewhere, so that borders move and get repaired.
 * Deterministic: the cuts come from the seed, the searches run on work budgets.
 */
import { yieldTurn } from '../core/cancel.js';
import { Rng } from '../core/rng.js';
import { Problem } from './model.js';
import { State } from './state.js';

/** Parts of one round: per part, its vehicles (1 = in the part) and its `allowed`; per job, the part that owns it. */
export interface RoundParts {
  focus: Uint8Array[];
  allowed: Uint8Array[];
  owner: Int32Array;
}

/** The middle job's place of each used route (-1 for an empty route). */
function routeCentres(pb: Problem, routes: readonly Int32Array[]): Int32Array {
  const c = new Int32Array(pb.V).fill(-1);
  routes.forEach((r, v) => { if (r.length > 0) c[v] = pb.inPl[r[r.length >> 1]]; });
  return c;
}

/**
 * Cuts the plan into `W` parts around a random route: used routes by travel time from that route's
 * centre, in contiguous runs of equal job counts; empty vehicles dealt round-robin; unassigned
 * jobs go to the part of the route nearest to them (by the same travel times).
 */
export function cutParts(pb: Problem, routes: readonly Int32Array[], W: number, rng: Rng): RoundParts {
  const V = pb.V, J = pb.J;
  const T = pb.time[0];
  const N = pb.N;
  const centre = routeCentres(pb, routes);
  const used: number[] = [];
  for (let v = 0; v < V; v++) if (centre[v] >= 0) used.push(v);
  const part = new Int32Array(V).fill(-1);
  if (used.length > 0) {
    const seed = centre[used[rng.int(used.length)]];
    const d = (v: number): number => T[seed * N + centre[v]] + T[centre[v] * N + seed];
    used.sort((a, b) => d(a) - d(b) || a - b);
    const total = used.reduce((a, v) => a + routes[v].length, 0);
    let acc = 0;
    for (const v of used) {
      part[v] = Math.min(W - 1, Math.floor((acc * W) / Math.max(1, total)));
      acc += routes[v].length;
    }
  }
  let k = rng.int(W);
  for (let v = 0; v < V; v++) if (part[v] < 0) part[v] = k++ % W;
  // owners: a routed job its route's part; an unassigned one the part of the nearest route centre
  const routeOf = new Int32Array(J).fill(-1);
  routes.forEach((r, v) => { for (const u of r) routeOf[u] = v; });
  const owner = new Int32Array(J);
  for (let u = 0; u < J; u++) {
    if (routeOf[u] >= 0) { owner[u] = part[routeOf[u]]; continue; }
    let best = Infinity, bp = u % W;
    const pl = pb.inPl[u];
    for (const v of used) { const x = T[pl * N + centre[v]] + T[centre[v] * N + pl]; if (x < best) { best = x; bp = part[v]; } }
    owner[u] = bp;
  }
  // a pair's two jobs have one owner (the pickup's)
  for (let u = 0; u < J; u++) if (pb.jPairRole[u] === 2 && routeOf[u] < 0) owner[u] = owner[pb.jMate[u]];
  const focus: Uint8Array[] = [], allowed: Uint8Array[] = [];
  for (let w = 0; w < W; w++) {
    const f = new Uint8Array(V);
    for (let v = 0; v < V; v++) if (part[v] === w) f[v] = 1;
    const a = new Uint8Array(J * V);
    for (let u = 0; u < J; u++) {
      const o = u * V;
      if (owner[u] === w) {
        for (let v = 0; v < V; v++) if (f[v] && (pb.allowed === null || pb.allowed[o + v])) a[o + v] = 1;
      } else if (routeOf[u] >= 0) a[o + routeOf[u]] = 1; // stays on its route
    }
    focus.push(f);
    allowed.push(a);
  }
  return { focus, allowed, owner };
}

/**
 * The problem as one part's search sees it: `allowed` replaced, and the vehicle classes split by
 * part (a search opens a new route with the first empty vehicle of a class: it must be its own).
 * Matrices and every other array are shared with `pb`.
 */
export function focusedProblem(pb: Problem, allowed: Uint8Array, focus: Uint8Array): Problem {
  const q = Object.assign(new Problem(), pb) as Problem;
  q.allowed = allowed;
  q.vClass = Int32Array.from(pb.vClass, (c, v) => 2 * c + focus[v]);
  q.nClasses = 2 * pb.nClasses;
  return q;
}

/**
 * Merges the parts' routes into `base` (job ids per vehicle): a part's routes replace base's on
 * its vehicles when its own jobs are no worse off — fewer unassigned at the highest differing
 * priority, then no higher cost. Returns the merged routes.
 */
export async function mergeParts(pb: Problem, base: readonly Int32Array[], parts: RoundParts, results: readonly (readonly Int32Array[])[]): Promise<Int32Array[]> {
  const merged = base.map((r) => r.slice());
  const st = new State(pb);
  const score = (routes: readonly Int32Array[], focus: Uint8Array, w: number): { un: Int32Array; cost: number } => {
    const only = routes.map((r, v) => (focus[v] ? r : new Int32Array(0)));
    st.load(only);
    const un = new Int32Array(pb.R);
    for (let u = 0; u < pb.J; u++) if (parts.owner[u] === w && st.routeOf[u] < 0 && !st.excluded[u] && !pb.jOptional[u]) un[pb.jPrio[u]]++;
    return { un, cost: st.totalCost() };
  };
  // a turn of the calling thread's loop between scores (a few ms each at 1,000 stops): it coordinates the searches
  for (let w = 0; w < parts.focus.length; w++) {
    const focus = parts.focus[w];
    await yieldTurn();
    const before = score(base, focus, w);
    await yieldTurn();
    const after = score(results[w], focus, w);
    const c = State.compareUnassigned(after.un, before.un);
    if (c < 0 || (c === 0 && after.cost <= before.cost)) {
      for (let v = 0; v < pb.V; v++) if (focus[v]) merged[v] = results[w][v].slice();
    }
  }
  return merged;
}
