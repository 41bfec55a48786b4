/**
 * Cheapest feasible insertion of one job (or of a pickup with its delivery) into the current
 * routes. Candidate positions are either every position of every route (small instances), or
 * granular: every position of the routes holding the job's nearest neighbours, plus one empty
 * vehicle per vehicle class — and, widened ({@link Insertion.widen}), every other used route when
 * those offer nothing better than the empty vehicle.
 * The cost delta is computed first in O(1); the feasibility check (O(1) from the cached
 * segments) only runs for candidates that would beat the best so far. Optional "blinks"
 * (SISR) skip each candidate with a small probability.
 */
import type { Rng } from '../core/rng.js';
import { Pieces } from './evaluator.js';
import type { Neighbours } from './neighbours.js';
import type { State } from './state.js';
import { exactCheckStops, REASON_CODES, REASON_RANK, serviceStart, type UnassignedReason } from './model.js';
import { objectiveDelta } from './objective.js';

export class Insertion {
  /** Best: cost delta, vehicle, position after which to insert (pickup position for pairs), delivery position for pairs. */
  bestCost = Infinity;
  bestV = -1;
  bestP = -1;
  bestQ = -1;
  /** Second best in another route (for regret). */
  secondCost = Infinity;
  /** Reason the last job found no position (most frequent check failure). */
  failReason: UnassignedReason = 'notInserted';

  /**
   * Attribute time failures exactly (the final report): a candidate the evaluator rejects on time
   * is re-scheduled stop by stop to tell the shift's end ('shift') from a window of the job itself
   * ('timeWindow') or of the stops already on the route ('otherWindows'). Off during the search.
   */
  classify = false;

  private readonly P = new Pieces();
  private seqBuf: Int32Array | null = null;
  private readonly seenStamp: Int32Array;
  private stamp = 1;
  private readonly reasonCount = new Int32Array(REASON_CODES.length);
  private readonly bestPerRoute: Float64Array;
  private readonly routeList: Int32Array;

  /**
   * Granular search only: when the neighbours' routes offer nothing better than an empty vehicle,
   * every other used route is scanned too.
   */
  widen = false;

  constructor(readonly st: State, readonly nb: Neighbours, readonly kIns: number) {
    this.seenStamp = new Int32Array(st.pb.V * 1);
    this.bestPerRoute = new Float64Array(st.pb.V).fill(Infinity);
    this.routeList = new Int32Array(st.pb.V);
  }

  /**
   * Finds the best insertion of job u (its delivery too when u is a pickup of a separate pair).
   * `full` = scan every position of every route. Returns false when there is none.
   */
  find(u: number, full: boolean, blink = 0, rng: Rng | null = null, wantSecond = false): boolean {
    const st = this.st;
    const pb = st.pb;
    this.bestCost = Infinity;
    this.bestV = -1;
    this.bestP = -1;
    this.bestQ = -1;
    this.secondCost = Infinity;
    this.reasonCount.fill(0);
    this.lastTimeV = -1;
    if (pb.jPairRole[u] !== 0) return this.findPair(pb.jPairRole[u] === 1 ? u : pb.jMate[u], full, blink, rng, wantSecond);
    let nr = this.candidateRoutes(full, u, -1);
    for (let i = 0; i < nr; i++) this.scanRoute(u, this.routeList[i], blink, rng, wantSecond);
    // granular and nothing better than an empty vehicle: every other used route is looked at too
    if (!full && this.widen && (this.bestV < 0 || st.routes[this.bestV].len === 0)) {
      const routes = st.routes;
      const now = this.stamp;
      for (let v = 0; v < pb.V; v++) {
        if (routes[v].len === 0 || this.seenStamp[v] === now) continue;
        this.routeList[nr++] = v;
        this.scanRoute(u, v, blink, rng, wantSecond);
      }
    }
    return this.finishSearch(nr, wantSecond);
  }

  /** {@link find}'s scan of every position of route v for job u. */
  private scanRoute(u: number, v: number, blink: number, rng: Rng | null, wantSecond: boolean): void {
    const st = this.st;
    const pb = st.pb;
    const allowed = pb.allowed;
    const V = pb.V;
    const outRow = pb.outRow, inPl = pb.inPl;
    if (allowed !== null && allowed[u * V + v] === 0) return;
    const r = st.routes[v];
    const prof = pb.vProfile[v];
    const C = pb.cost[prof];
    const mul = pb.vCostMul[v];
    const fixed = pb.vFixed[v];
    const empty = r.len === 0;
    const intc = pb.nIntCost[prof * (pb.J + 2 * V) + u];
    let routeBest = Infinity;
    // quick capacity filter (loads only grow by insertion)
    if (pb.hasLoad && r.resetCum[r.len] === 0 && !this.fitsLoad(u, v)) { this.note('capacity'); return; }
    if (pb.hasMaxStops && r.stops[r.len + 1] + pb.jStops[u] > pb.vMaxStops[v]) { this.note('maxStops'); return; }
    for (let p = 0; p <= r.len; p++) {
      const a = r.nodes[p], b = r.nodes[p + 1];
      // an empty vehicle costs nothing, so its start→end arc is not saved
      let d = objectiveDelta(mul, fixed, C[outRow[a] + inPl[u]] + C[outRow[u] + inPl[b]] - (empty ? 0 : C[outRow[a] + inPl[b]]) + intc, empty);
      if (!pb.pureArcObjective) d = st.ev.cost(v, this.P.clear().range(v, 0, p).node(u).range(v, p + 1, r.len)) - r.cost;
      this.st.ev.work++;
      if (d >= this.bestCost && (!wantSecond || d >= routeBest)) continue;
      if (blink > 0 && rng !== null && rng.next() < blink) continue;
      if (!this.feasibleSingle(u, v, p)) continue;
      if (d < routeBest) routeBest = d;
      if (d < this.bestCost) { this.bestCost = d; this.bestV = v; this.bestP = p; }
    }
    if (wantSecond) this.bestPerRoute[v] = routeBest;
  }

  private fitsLoad(u: number, v: number): boolean {
    const pb = this.st.pb;
    const K = pb.K;
    const r = this.st.routes[v];
    for (let k = 0; k < K; k++) {
      const cap = pb.vCap[v * K + k];
      if (cap === Infinity) continue;
      if (r.depLoad(k) + pb.jDep[u * K + k] > cap) return false;
    }
    return true;
  }

  private note(reason: UnassignedReason): void {
    this.reasonCount[REASON_CODES.indexOf(reason)]++;
  }

  /** The reason of the closest failures (latest check), then the most frequent. */
  private topReason(): UnassignedReason {
    let best: UnassignedReason = 'notInserted';
    let n = 0;
    let rank = -1;
    for (let i = 0; i < REASON_CODES.length; i++) {
      const c = this.reasonCount[i];
      if (c === 0) continue;
      const r = REASON_CODES[i];
      const k = REASON_RANK[r];
      if (k > rank || (k === rank && c > n)) { rank = k; n = c; best = r; }
    }
    return best;
  }

  feasibleSingle(u: number, v: number, p: number): boolean {
    const r = this.st.routes[v];
    const P = this.P.clear().range(v, 0, p).node(u).range(v, p + 1, r.len);
    const ok = this.st.ev.check(v, P);
    if (!ok) this.note(this.classify && this.st.ev.reason === 'timeWindow' ? this.sampledTimeReason(u, -1, v, p, -1) : this.st.ev.reason);
    return ok;
  }

  private lastTimeV = -1;
  private lastTimeReason: UnassignedReason = 'timeWindow';

  /**
   * {@link timeReason} at about 5 sampled positions per route (the first failure, every
   * len/4-th position, the end; O(route) each); other positions of the route reuse the last
   * sampled answer, so that the final report costs O(route) per route, not O(route²).
   */
  private sampledTimeReason(u: number, du: number, v: number, p: number, q: number): UnassignedReason {
    const len = this.st.routes[v].len;
    const step = Math.max(1, Math.ceil(len / 4));
    const x = du >= 0 ? q : p;
    if (this.lastTimeV !== v || x === len || (x % step === 0 && (du < 0 || p % step === 0))) {
      this.lastTimeV = v;
      this.lastTimeReason = this.timeReason(u, du, v, p, q);
    }
    return this.lastTimeReason;
  }

  /**
   * Why the candidate "job u after position p (its mate du after position q ≥ p, or -1) of route
   * v" misses on time: 'shift' when it would fit with an open-ended shift, 'maxDuration' when only
   * MaxMinutes is exceeded, 'timeWindow' when the first window missed (earliest schedule from the
   * shift start) is one of the job's own stops, 'otherWindows' when it is another stop's.
   */
  private timeReason(u: number, du: number, v: number, p: number, q: number): UnassignedReason {
    const pb = this.st.pb;
    const r = this.st.routes[v];
    if (this.seqBuf === null) this.seqBuf = new Int32Array(pb.nStops + 2);
    const seq = this.seqBuf;
    let n = 0;
    const push = (j: number): void => { seq[n++] = pb.jStop0[j]; if (pb.jStop1[j] >= 0) seq[n++] = pb.jStop1[j]; };
    for (let x = 1; x <= p; x++) push(r.nodes[x]);
    push(u);
    const mid = du >= 0 ? q : r.len;
    for (let x = p + 1; x <= mid; x++) push(r.nodes[x]);
    if (du >= 0) {
      push(du);
      for (let x = q + 1; x <= r.len; x++) push(r.nodes[x]);
    }
    const cand = seq.subarray(0, n);
    const c = exactCheckStops(pb, v, cand, true);
    if (c === 'shift' || c === 'maxDuration') return c;
    // the first window missed on the earliest schedule, ignoring the shift's end
    const T = pb.time[pb.vProfile[v]];
    const N = pb.N;
    let t = pb.vTin[v];
    let prev = pb.vStartPl[v];
    for (let i = 0; i < n; i++) {
      const s = cand[i];
      const st = serviceStart(pb, s, t + T[prev * N + pb.sPlace[s]]);
      if (st === null) {
        const own = s === pb.jStop0[u] || s === pb.jStop1[u] || (du >= 0 && (s === pb.jStop0[du] || s === pb.jStop1[du]));
        return own ? 'timeWindow' : 'otherWindows';
      }
      t = st + pb.sService[s];
      prev = pb.sPlace[s];
    }
    return 'timeWindow';
  }

  /**
   * Fills `routeList` with the routes to try for job(s) `a` (and `b` when ≥ 0): every used route
   * when `full`, else the routes of their granular neighbours; then one empty vehicle per class.
   * Returns the count.
   */
  private candidateRoutes(full: boolean, a: number, b: number): number {
    const st = this.st;
    const pb = st.pb;
    let nr = 0;
    if (full) {
      const routes = st.routes;
      for (let v = 0; v < pb.V; v++) if (routes[v].len > 0) this.routeList[nr++] = v;
    } else {
      const now = ++this.stamp;
      const k = Math.min(this.kIns, this.nb.k);
      const list = this.nb.list;
      for (let x = a; x >= 0; x = x === a ? b : -1) {
        for (let i = 0; i < k; i++) {
          const w = list[x * this.nb.k + i];
          if (w < 0) break;
          const v = st.routeOf[w];
          if (v < 0 || this.seenStamp[v] === now) continue;
          this.seenStamp[v] = now;
          this.routeList[nr++] = v;
        }
      }
    }
    for (let c = 0; c < pb.nClasses; c++) {
      const v = st.emptyVehicle(c);
      if (v >= 0) this.routeList[nr++] = v;
    }
    return nr;
  }

  /** Pickup pu with its delivery: best (p, q): pickup after position p, delivery after position q ≥ p. */
  private findPair(pu: number, full: boolean, blink: number, rng: Rng | null, wantSecond: boolean): boolean {
    const st = this.st;
    const pb = st.pb;
    const du = pb.jMate[pu];
    const routes = st.routes;
    const allowed = pb.allowed;
    const V = pb.V;
    const nr = this.candidateRoutes(full, pu, du);
    const P = this.P;
    for (let i = 0; i < nr; i++) {
      const v = this.routeList[i];
      if (allowed !== null && (allowed[pu * V + v] === 0 || allowed[du * V + v] === 0)) { this.note('skills'); continue; }
      const r = routes[v];
      let routeBest = Infinity;
      if (pb.hasMaxStops && r.stops[r.len + 1] + pb.jStops[pu] + pb.jStops[du] > pb.vMaxStops[v]) { this.note('maxStops'); continue; }
      for (let p = 0; p <= r.len; p++) {
        for (let q = p; q <= r.len; q++) {
          P.clear().range(v, 0, p).node(pu).range(v, p + 1, q).node(du).range(v, q + 1, r.len);
          const d = st.ev.cost(v, P) - r.cost;
          if (d >= this.bestCost && (!wantSecond || d >= routeBest)) continue;
          if (blink > 0 && rng !== null && rng.next() < blink) continue;
          if (!st.ev.check(v, P)) { this.note(this.classify && st.ev.reason === 'timeWindow' ? this.sampledTimeReason(pu, du, v, p, q) : st.ev.reason); continue; }
          if (d < routeBest) routeBest = d;
          if (d < this.bestCost) { this.bestCost = d; this.bestV = v; this.bestP = p; this.bestQ = q; }
        }
      }
      if (wantSecond) this.bestPerRoute[v] = routeBest;
    }
    return this.finishSearch(nr, wantSecond);
  }

  /** Ends a search over `routeList[0..nr)`: the second-best route cost (regret) or the failure reason. */
  private finishSearch(nr: number, wantSecond: boolean): boolean {
    if (wantSecond && this.bestV >= 0) {
      for (let i = 0; i < nr; i++) {
        const v = this.routeList[i];
        if (v !== this.bestV && this.bestPerRoute[v] < this.secondCost) this.secondCost = this.bestPerRoute[v];
      }
      for (let i = 0; i < nr; i++) this.bestPerRoute[this.routeList[i]] = Infinity;
    }
    if (this.bestV < 0) this.failReason = this.topReason();
    return this.bestV >= 0;
  }

  // ---------------------------------------------------------------- reload points (MidwayDrop)
  private reloadGroups: Int32Array[] | null = null;
  /** The reload job of the last {@link findWithReload}, and after which position it goes (bestP: the job's, in the original route). */
  bestReload = -1;
  bestReloadP = -1;
  private bestJobFirst = false;

  /** Reload jobs grouped by place and time data (copies of one reload point are interchangeable). */
  private groups(): Int32Array[] {
    if (this.reloadGroups !== null) return this.reloadGroups;
    const pb = this.st.pb;
    const by = new Map<string, number[]>();
    for (let u = 0; u < pb.J; u++) {
      if (!pb.jReset[u]) continue;
      const key = `${pb.inPl[u]}|${pb.nE[u]}|${pb.nL[u]}|${pb.nD[u]}|${pb.jStop0[u] >= 0 ? pb.sWinCount[pb.jStop0[u]] : 0}`;
      const l = by.get(key) ?? [];
      l.push(u);
      by.set(key, l);
    }
    this.reloadGroups = [...by.values()].map((l) => Int32Array.from(l));
    return this.reloadGroups;
  }

  /**
   * Job u (not a pair's) together with a visit to a free reload point, in one route: the best
   * feasible (reload position, job position) over every route. Tried when u fits nowhere alone.
   */
  findWithReload(u: number): boolean {
    const st = this.st;
    const pb = st.pb;
    this.bestCost = Infinity;
    this.bestV = -1;
    this.bestReload = -1;
    if (!pb.hasReset || pb.jPairRole[u] !== 0 || pb.jReset[u]) return false;
    const allowed = pb.allowed;
    const V = pb.V;
    const nr = this.candidateRoutes(true, u, -1);
    const P = this.P;
    for (const g of this.groups()) {
      let d = -1;
      for (let i = 0; i < g.length; i++) if (st.routeOf[g[i]] < 0 && !st.excluded[g[i]]) { d = g[i]; break; }
      if (d < 0) continue;
      for (let i = 0; i < nr; i++) {
        const v = this.routeList[i];
        if (allowed !== null && (allowed[u * V + v] === 0 || allowed[d * V + v] === 0)) continue;
        const r = st.routes[v];
        if (pb.hasMaxStops && r.stops[r.len + 1] + pb.jStops[u] > pb.vMaxStops[v]) continue;
        for (let p = 0; p <= r.len; p++) {
          for (let q = 0; q <= r.len; q++) {
            // u after position q of the route; at q === p, u goes before the reload (jobFirst) or after it
            for (let f = 0; f < (q === p ? 2 : 1); f++) {
              const jobFirst = q < p || (q === p && f === 0);
              if (jobFirst) P.clear().range(v, 0, q).node(u).range(v, q + 1, p).node(d).range(v, p + 1, r.len);
              else P.clear().range(v, 0, p).node(d).range(v, p + 1, q).node(u).range(v, q + 1, r.len);
              const c = st.ev.cost(v, P) - r.cost;
              if (c >= this.bestCost) continue;
              if (!st.ev.check(v, P)) continue;
              this.bestCost = c; this.bestV = v; this.bestP = q; this.bestReload = d; this.bestReloadP = p; this.bestJobFirst = jobFirst;
            }
          }
        }
      }
    }
    return this.bestV >= 0;
  }

  /** Applies the last {@link findWithReload}. */
  applyWithReload(u: number): void {
    const v = this.bestV, p = this.bestReloadP, q = this.bestP, d = this.bestReload;
    const r = this.st.routes[v];
    const P = this.P;
    if (this.bestJobFirst) P.clear().range(v, 0, q).node(u).range(v, q + 1, p).node(d).range(v, p + 1, r.len);
    else P.clear().range(v, 0, p).node(d).range(v, p + 1, q).node(u).range(v, q + 1, r.len);
    this.st.apply(v, P);
  }

  /** Removes, from the given routes, the reload visits the route no longer needs. Returns how many. */
  dropUselessReloads(vs: Iterable<number>): number {
    const st = this.st;
    const pb = st.pb;
    if (!pb.hasReset) return 0;
    let n = 0;
    for (const v of vs) {
      for (let pos = 1; pos <= st.routes[v].len; pos++) {
        const r = st.routes[v];
        const u = r.nodes[pos];
        if (!pb.jReset[u] || !pb.jOptional[u]) continue;
        const P = this.P.clear().range(v, 0, pos - 1).range(v, pos + 1, r.len);
        if (st.ev.cost(v, P) > r.cost || !st.ev.check(v, P)) continue;
        st.apply(v, P);
        n++;
        pos--;
      }
    }
    return n;
  }

  /** Applies the last found insertion of u. */
  apply(u: number): void {
    const st = this.st;
    const pb = st.pb;
    if (pb.jPairRole[u] === 0) { st.insert(u, this.bestV, this.bestP); return; }
    const pu = pb.jPairRole[u] === 1 ? u : pb.jMate[u];
    const du = pb.jMate[pu];
    const v = this.bestV;
    const r = st.routes[v];
    const P = this.P.clear().range(v, 0, this.bestP).node(pu).range(v, this.bestP + 1, this.bestQ).node(du).range(v, this.bestQ + 1, r.len);
    st.apply(v, P);
  }
}
