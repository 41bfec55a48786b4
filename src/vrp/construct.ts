/**
 * Construction heuristics.
 *
 * - Clarke–Wright savings (parallel version) when every vehicle is alike (one vehicle class):
 *   start from one route per job (a pickup with its delivery count as one), merge route ends in
 *   order of decreasing saving c(i,end) + c(start,j) − c(i,j) over granular pairs (i, j),
 *   checking each merge with O(1) segment concatenation. Surplus routes beyond the fleet are
 *   dropped (their jobs go to the insertion phase).
 * - Regret-2 insertion (lazy): repeatedly insert the job whose best and second-best routes differ
 *   most; priorities first. Used alone, and to complete savings.
 *
 * The caller keeps the better of the two (lexicographic: unassigned profile, then cost).
 */
import { cancelledError } from '../core/cancel.js';
import { BIG } from './model.js';
import type { Neighbours } from './neighbours.js';
import type { State } from './state.js';
import { Insertion } from './insertion.js';
import { exactCheckStops, hasBreaks } from './model.js';

/** Builds savings routes into `st` (which must be empty). Returns false when not applicable. */
export function savings(st: State, nb: Neighbours): boolean {
  const pb = st.pb;
  if (pb.V === 0 || pb.nClasses !== 1) return false;
  const J = pb.J;
  const K = pb.K;
  const v0 = 0;
  const prof = pb.vProfile[v0];
  const C = pb.cost[prof];
  const T = pb.time[prof];
  const NN = J + 2 * pb.V;
  const off = prof * NN;
  const outRow = pb.outRow, inPl = pb.inPl;
  const sn = pb.startNode(v0), en = pb.endNode(v0);
  const next = new Int32Array(J).fill(-1);
  const head = new Int32Array(J).fill(-1); // route id → head job
  const tail = new Int32Array(J).fill(-1);
  const rid = new Int32Array(J).fill(-1);
  // aggregates per route id (route id = its first unit's job id)
  const E = new Float64Array(J), L = new Float64Array(J), D = new Float64Array(J);
  const dep = new Float64Array(J * K), S = new Float64Array(J * K), M = new Float64Array(J * K);
  const nst = new Int32Array(J), nmul = new Int32Array(J), kFirst = new Int32Array(J), kLast = new Int32Array(J);
  const cap = pb.vCap.subarray(0, K);
  const ids: number[] = [];
  const addNodeTo = (r: number, u: number, first: boolean): boolean => {
    const o = off + u;
    if (first) {
      E[r] = pb.nE[o]; L[r] = pb.nL[o]; D[r] = pb.nD[o];
    } else {
      const t = T[outRow[tail[r]] + inPl[u]];
      const delta = D[r] + t;
      if (E[r] + delta > pb.nL[o]) return false;
      const wt = Math.max(pb.nE[o] - delta - L[r], 0);
      E[r] = Math.max(pb.nE[o] - delta, E[r]) - wt;
      L[r] = Math.min(pb.nL[o] - delta, L[r]);
      D[r] = delta + pb.nD[o] + wt;
      next[tail[r]] = u;
    }
    tail[r] = u;
    rid[u] = r;
    nst[r] += pb.jStops[u];
    nmul[r] += pb.nMulti[u];
    const kr = pb.jKeep[u];
    if (kr >= 0) { if (kFirst[r] < 0) kFirst[r] = kr; kLast[r] = kr; }
    for (let k = 0; k < K; k++) {
      const i = r * K + k, q = u * K + k;
      M[i] = Math.max(M[i], S[i] + pb.jRise[q]);
      S[i] += pb.jDelta[q];
      dep[i] += pb.jDep[q];
    }
    return true;
  };
  kFirst.fill(-1);
  kLast.fill(-1);
  for (let u = 0; u < J; u++) {
    if (st.excluded[u] || pb.jOptional[u] || pb.jPairRole[u] === 2) continue;
    head[u] = u;
    addNodeTo(u, u, true);
    if (pb.jPairRole[u] === 1) addNodeTo(u, pb.jMate[u], false);
    ids.push(u);
  }
  // feasibility of a route aggregate with the depots
  const withDepots = (e: number, l: number, d: number, first: number, last: number): number => {
    // returns the route duration or Infinity
    const t0 = T[outRow[sn] + inPl[first]];
    const sE = pb.nE[off + sn], sL = pb.nL[off + sn];
    let delta = t0;
    if (sE + delta > l) return Infinity;
    let wt = Math.max(e - delta - sL, 0);
    let E2 = Math.max(e - delta, sE) - wt;
    let L2 = Math.min(l - delta, sL);
    let D2 = delta + d + wt;
    const t1 = T[outRow[last] + inPl[en]];
    delta = D2 + t1;
    if (E2 + delta > pb.nL[off + en]) return Infinity;
    wt = Math.max(pb.nE[off + en] - delta - L2, 0);
    D2 = delta + wt;
    void E2; void L2;
    return D2;
  };
  // savings list over granular pairs
  const kk = Math.min(nb.k, 40);
  const cand: number[] = [];
  const sav: number[] = [];
  for (const u0 of ids) {
    const u = tail[u0];
    for (let i = 0; i < kk; i++) {
      const w = nb.list[u0 * nb.k + i];
      if (w < 0) break;
      if (st.excluded[w] || pb.jOptional[w] || head[w] !== w || w === u0) continue;
      const s = C[outRow[u] + inPl[en]] + C[outRow[sn] + inPl[w]] - C[outRow[u] + inPl[w]];
      if (s <= 0) continue;
      cand.push(u0, w);
      sav.push(s);
    }
  }
  const order = Array.from({ length: sav.length }, (_, i) => i).sort((a, b) => sav[b] - sav[a] || cand[2 * a] - cand[2 * b] || cand[2 * a + 1] - cand[2 * b + 1]);
  const scratch = new Int32Array(2 * J + 2);
  for (const oi of order) {
    const a = rid[cand[2 * oi]];
    const b = rid[cand[2 * oi + 1]];
    if (a === b || a < 0 || b < 0) continue;
    const ta = tail[a];
    // the saving was computed for "tail of a's unit" → "head of b"; both must still be route ends
    if (ta !== (pb.jPairRole[cand[2 * oi]] === 1 ? pb.jMate[cand[2 * oi]] : cand[2 * oi]) || head[b] !== cand[2 * oi + 1]) continue;
    // concat a ⊕ b
    const t = T[outRow[ta] + inPl[head[b]]];
    const delta = D[a] + t;
    if (E[a] + delta > L[b]) continue;
    const wt = Math.max(E[b] - delta - L[a], 0);
    const nE = Math.max(E[b] - delta, E[a]) - wt;
    const nL = Math.min(L[b] - delta, L[a]);
    const nD = delta + D[b] + wt;
    if (nst[a] + nst[b] > pb.vMaxStops[v0]) continue;
    if (kLast[a] >= 0 && kFirst[b] >= 0 && kFirst[b] < kLast[a]) continue;
    let okLoad = true;
    for (let k = 0; k < K; k++) {
      const m = Math.max(M[a * K + k], S[a * K + k] + M[b * K + k]);
      if (dep[a * K + k] + dep[b * K + k] + m > cap[k]) { okLoad = false; break; }
    }
    if (!okLoad) continue;
    const dur = withDepots(nE, nL, nD, head[a], tail[b]);
    if (dur === Infinity || dur > pb.vMaxDur[v0]) continue;
    if (nmul[a] + nmul[b] > 0 || hasBreaks(pb, v0)) {
      let n = 0;
      for (const r of [a, b]) for (let u = head[r]; u >= 0; u = next[u]) {
        scratch[n++] = pb.jStop0[u];
        if (pb.jStop1[u] >= 0) scratch[n++] = pb.jStop1[u];
      }
      if (exactCheckStops(pb, v0, scratch.subarray(0, n)) !== 'ok') continue;
    }
    // merge b into a
    next[ta] = head[b];
    for (let u = head[b]; u >= 0; u = next[u]) rid[u] = a;
    tail[a] = tail[b];
    E[a] = nE; L[a] = nL; D[a] = nD;
    nst[a] += nst[b]; nmul[a] += nmul[b];
    if (kFirst[b] >= 0) { if (kFirst[a] < 0) kFirst[a] = kFirst[b]; kLast[a] = kLast[b]; }
    for (let k = 0; k < K; k++) {
      M[a * K + k] = Math.max(M[a * K + k], S[a * K + k] + M[b * K + k]);
      S[a * K + k] += S[b * K + k];
      dep[a * K + k] += dep[b * K + k];
    }
    head[b] = -1;
  }
  // collect routes; keep the largest when there are more than vehicles
  const routes: number[][] = [];
  for (const u of ids) {
    if (head[u] !== u) continue;
    const seq: number[] = [];
    for (let x = u; x >= 0; x = next[x]) seq.push(x);
    routes.push(seq);
  }
  routes.sort((x, y) => y.length - x.length || x[0] - y[0]);
  const nv = Math.min(routes.length, pb.V);
  for (let v = 0; v < nv; v++) {
    // verify with the real evaluator (defensive: routes must be feasible)
    st.setRoute(v, routes[v], routes[v].length);
    if (!st.routes[v].rebuild()) st.setRoute(v, [], 0);
  }
  void BIG;
  return true;
}

/** Binary max-heap over job ids with float keys (lexicographic via composite arrays). */
class JobHeap {
  readonly a: number[] = [];
  constructor(private readonly better: (x: number, y: number) => boolean) {}
  push(x: number): void {
    const a = this.a;
    a.push(x);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.better(a[i], a[p])) break;
      [a[i], a[p]] = [a[p], a[i]];
      i = p;
    }
  }
  pop(): number {
    const a = this.a;
    const top = a[0];
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < a.length && this.better(a[l], a[m])) m = l;
        if (r < a.length && this.better(a[r], a[m])) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]];
        i = m;
      }
    }
    return top;
  }
  get size(): number { return this.a.length; }
  peek(): number { return this.a[0]; }
}

/**
 * Regret-2 insertion of every unassigned job of `st` (lazy re-evaluation: a popped job is
 * re-priced; if its regret dropped below the next candidate's, it goes back to the heap).
 * Returns the per-job failure reasons for jobs that could not be inserted. `cancelled` (optional)
 * is read every few jobs: once it says so, Cancelled is thrown (the routes then hold the jobs
 * inserted so far).
 */
export function regretInsert(st: State, ins: Insertion, full: boolean, cancelled?: () => boolean): Map<number, string> {
  const pb = st.pb;
  const J = pb.J;
  const regret = new Float64Array(J);
  const bestC = new Float64Array(J);
  const tries = new Int32Array(J);
  const prio = pb.jPrio;
  const better = (x: number, y: number): boolean =>
    prio[x] !== prio[y] ? prio[x] > prio[y]
      : regret[x] !== regret[y] ? regret[x] > regret[y]
        : bestC[x] !== bestC[y] ? bestC[x] > bestC[y] : x < y;
  const heap = new JobHeap(better);
  const failed = new Map<number, string>();
  const price = (u: number): boolean => {
    if (!ins.find(u, full, 0, null, true)) return false;
    regret[u] = ins.secondCost === Infinity ? 1e15 : ins.secondCost - ins.bestCost;
    bestC[u] = ins.bestCost;
    return true;
  };
  let n = 0;
  const check = (): void => {
    if (cancelled !== undefined && (++n & 15) === 0 && cancelled()) throw cancelledError();
  };
  for (let u = 0; u < J; u++) {
    if (st.routeOf[u] >= 0 || st.excluded[u] || pb.jOptional[u] || pb.jPairRole[u] === 2) continue;
    check();
    if (price(u)) heap.push(u);
    else failed.set(u, ins.failReason);
  }
  while (heap.size > 0) {
    check();
    const u = heap.pop();
    if (st.routeOf[u] >= 0) continue;
    const oldR = regret[u];
    if (!price(u)) { failed.set(u, ins.failReason); continue; }
    if (heap.size > 0 && tries[u] < 2 && regret[u] < oldR && better(heap.peek(), u)) {
      tries[u]++;
      heap.push(u);
      continue;
    }
    tries[u] = 0;
    ins.apply(u);
    failed.delete(u);
  }
  // mates of failed pickups fail with them
  for (const [u, r] of [...failed]) if (pb.jPairRole[u] === 1) failed.set(pb.jMate[u], r);
  return failed;
}
