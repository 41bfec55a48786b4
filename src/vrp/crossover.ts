/**
 * Route-based crossover of two plans (as in the recombination step of hybrid genetic searches,
 * in the spirit of Nagata's selective route exchange): the routes of parent A nearest a random job
 * are kept whole (about half of A's used routes), then parent B's routes with those jobs taken
 * out fill the other vehicles (on the same vehicle when it is free, else on a free vehicle of
 * the same class). Jobs that end up nowhere are left for the caller's warm start, which also
 * checks every route and runs the local search ({@link Search.warmStart}).
 *
 * Plans are job lists per vehicle index. O(J + V) besides sorting the routes of A.
 */
import type { Rng } from '../core/rng.js';
import type { Problem } from './model.js';

export function crossover(pb: Problem, a: readonly Int32Array[], b: readonly Int32Array[], rng: Rng): Int32Array[] {
  const V = pb.V;
  const child: Int32Array[] = Array.from({ length: V }, () => new Int32Array(0));
  const usedA: number[] = [];
  for (let v = 0; v < V; v++) if ((a[v]?.length ?? 0) > 0) usedA.push(v);
  if (usedA.length === 0) return b.map((r) => r.slice());
  // A's routes by how near they pass to a random routed job (the nearest job of each route)
  const seedRoute = a[usedA[rng.int(usedA.length)]];
  const seed = seedRoute[rng.int(seedRoute.length)];
  const C = pb.cost[pb.vProfile[0]];
  const N = pb.N;
  const from = pb.outPl[seed] * N;
  const near = new Float64Array(V).fill(Infinity);
  for (const v of usedA) for (const u of a[v]) near[v] = Math.min(near[v], C[from + pb.inPl[u]]);
  usedA.sort((x, y) => near[x] - near[y] || x - y);
  const take = Math.max(1, Math.min(usedA.length - 1, Math.round(usedA.length * (0.3 + 0.4 * rng.next()))));
  const placed = new Uint8Array(pb.J);
  const busy = new Uint8Array(V);
  for (let i = 0; i < take; i++) {
    const v = usedA[i];
    child[v] = a[v].slice();
    busy[v] = 1;
    for (const u of a[v]) placed[u] = 1;
  }
  // B's routes without A's kept jobs, each on its own vehicle when free, else on a free one of its class
  for (let v = 0; v < V; v++) {
    const r = b[v];
    if (r === undefined || r.length === 0) continue;
    const rest = r.filter((u) => !placed[u]);
    if (rest.length === 0) continue;
    let w = busy[v] ? -1 : v;
    for (let x = 0; w < 0 && x < V; x++) if (!busy[x] && pb.vClass[x] === pb.vClass[v] && (b[x]?.length ?? 0) === 0) w = x;
    for (let x = 0; w < 0 && x < V; x++) if (!busy[x] && pb.vClass[x] === pb.vClass[v]) w = x;
    if (w < 0) continue; // its jobs are inserted again by the warm start
    child[w] = rest;
    busy[w] = 1;
    for (const u of rest) placed[u] = 1;
  }
  return child;
}
