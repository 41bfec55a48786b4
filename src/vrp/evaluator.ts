/**
 * Move evaluation by concatenation. Every candidate route is described as a short list of
 * *pieces* — ranges of existing routes (forward or reversed) and single jobs — and evaluated
 * in O(number of pieces) from the routes' cached segment data, walking only short ranges that
 * are neither a prefix nor a suffix (and reversed ranges when time matters).
 *
 * The evaluator owns every constraint and objective term; operators only describe candidate
 * routes. Constraint families: time windows (two per stop: the hull in O(1), then an exact
 * check when a two-window stop is involved), shift, maximum duration, capacities (with pickups
 * and deliveries), maximum stops, keep-order, pickup/delivery precedence, vehicle eligibility.
 * Objective per route: {@link routeObjective} (objective.ts) of the candidate's arc and internal
 * costs. New route-level terms (balancing, …) belong in objective.ts / {@link Evaluator.check}.
 */
import { BIG, exactCheckStops, hasBreaks, UNREACHABLE, type Problem, type UnassignedReason } from './model.js';
import { balancePenalty, routeObjective } from './objective.js';
import { NO_RANK, type Route } from './route.js';

export const P_RANGE = 0;
export const P_REV = 1;
export const P_NODE = 2;

/** A candidate route: up to 16 pieces, 4 ints each (kind, route, a, b). */
export class Pieces {
  readonly k = new Int32Array(64);
  n = 0;
  clear(): this { this.n = 0; return this; }
  /** Positions a..b of route r, forward (skipped when empty). a = 0 means "with its start depot" (own route only). */
  range(r: number, a: number, b: number): this {
    if (a > b) return this;
    const i = this.n++ * 4;
    this.k[i] = P_RANGE; this.k[i + 1] = r; this.k[i + 2] = a; this.k[i + 3] = b;
    return this;
  }
  /** Positions a..b of route r, visited from b down to a. */
  rev(r: number, a: number, b: number): this {
    if (a > b) return this;
    if (a === b) return this.range(r, a, b);
    const i = this.n++ * 4;
    this.k[i] = P_REV; this.k[i + 1] = r; this.k[i + 2] = a; this.k[i + 3] = b;
    return this;
  }
  node(u: number): this {
    const i = this.n++ * 4;
    this.k[i] = P_NODE; this.k[i + 1] = -1; this.k[i + 2] = u; this.k[i + 3] = u;
    return this;
  }
}

export class Evaluator {
  readonly NN: number;
  /** Work units done (deterministic effort clock). */
  work = 0;
  /** Why the last failed {@link check} failed. */
  reason: UnassignedReason = 'timeWindow';

  // accumulator
  private E = 0; private L = 0; private D = 0;
  private last = 0;
  private nst = 0;
  private nmulti = 0;
  private keep = -1;
  private ok = true;
  private keepFail = false;
  private readonly dep: Float64Array;
  private readonly S: Float64Array;
  private readonly M: Float64Array;
  /** Largest load of the segments closed by reload points so far. */
  private readonly Cl: Float64Array;
  /** The problem has reload points (the segment bookkeeping is needed). */
  private readonly reloads: boolean;
  /** Loads are the only constraint that can fail ({@link loadOnly}): {@link check} sums them in O(pieces). */
  private readonly loadsOnly: boolean;
  // vehicle
  private T!: Int32Array;
  private C!: Int32Array;
  private off = 0;
  private prof = 0;
  private v = 0;
  // scratch
  private readonly seq: Int32Array;
  private readonly jobBuf: Int32Array;
  private readonly stamp: Int32Array;
  private stampNow = 1;

  constructor(readonly pb: Problem, readonly routes: Route[]) {
    this.NN = pb.J + 2 * pb.V;
    this.dep = new Float64Array(pb.K);
    this.S = new Float64Array(pb.K);
    this.M = new Float64Array(pb.K);
    this.Cl = new Float64Array(pb.K);
    this.reloads = pb.hasReset;
    this.loadsOnly = loadOnly(pb);
    this.seq = new Int32Array(2 * pb.J + 4);
    this.jobBuf = new Int32Array(pb.J + 1);
    this.stamp = new Int32Array(pb.J);
  }

  /** Number of jobs in a candidate. */
  size(P: Pieces): number {
    let n = 0;
    const k = P.k;
    for (let i = 0; i < P.n; i++) {
      const o = i * 4;
      n += k[o] === P_NODE ? 1 : k[o + 3] - (k[o + 2] === 0 ? 1 : k[o + 2]) + 1;
    }
    return n;
  }

  /** Cost of the candidate route for vehicle v (objective only, no feasibility). */
  cost(v: number, P: Pieces): number {
    const pb = this.pb;
    const p = pb.vProfile[v];
    const C = pb.cost[p];
    const off = p * this.NN;
    const outRow = pb.outRow, inPl = pb.inPl, nInt = pb.nIntCost;
    const routes = this.routes;
    const k = P.k;
    let last = pb.J + 2 * v;
    let c = 0;
    let jobs = 0;
    for (let i = 0; i < P.n; i++) {
      const o = i * 4;
      const kind = k[o];
      if (kind === P_NODE) {
        const u = k[o + 2];
        c += C[outRow[last] + inPl[u]] + nInt[off + u];
        last = u;
        jobs++;
        continue;
      }
      const r = routes[k[o + 1]];
      const a = k[o + 2], b = k[o + 3];
      const same = pb.vProfile[r.v] === p;
      if (kind === P_RANGE) {
        if (a === 0) {
          c = r.arcF[b] + r.icum[b];
          jobs += b;
        } else {
          c += C[outRow[last] + inPl[r.nodes[a]]];
          if (same) c += r.arcF[b] - r.arcF[a] + r.icum[b] - r.icum[a - 1];
          else for (let x = a; x <= b; x++) c += nInt[off + r.nodes[x]] + (x > a ? C[outRow[r.nodes[x - 1]] + inPl[r.nodes[x]]] : 0);
          jobs += b - a + 1;
        }
        last = r.nodes[b];
      } else {
        c += C[outRow[last] + inPl[r.nodes[b]]];
        if (same) c += r.arcR[b] - r.arcR[a] + r.icum[b] - r.icum[a - 1];
        else for (let x = b; x >= a; x--) c += nInt[off + r.nodes[x]] + (x < b ? C[outRow[r.nodes[x + 1]] + inPl[r.nodes[x]]] : 0);
        jobs += b - a + 1;
        last = r.nodes[a];
      }
    }
    this.work++;
    if (jobs === 0) return 0;
    c += C[outRow[last] + inPl[pb.J + 2 * v + 1]];
    return routeObjective(pb.vCostMul[v], pb.vFixed[v], c, true) + balancePenalty(pb.balance, c, jobs);
  }

  /** Whether the candidate route is feasible for vehicle v (every constraint). Sets `reason` when not. */
  check(v: number, P: Pieces): boolean {
    if (this.loadsOnly) return this.checkLoads(v, P);
    const pb = this.pb;
    this.begin(v);
    const routes = this.routes;
    const k = P.k;
    const allowed = pb.allowed;
    const V = pb.V;
    for (let i = 0; i < P.n; i++) {
      const o = i * 4;
      const kind = k[o];
      if (kind === P_NODE) {
        const u = k[o + 2];
        if (allowed !== null && allowed[u * V + v] === 0) { this.reason = 'skills'; return false; }
        this.addNode(u);
      } else {
        const r = routes[k[o + 1]];
        const a = k[o + 2], b = k[o + 3];
        if (allowed !== null && r.v !== v) {
          for (let x = a; x <= b; x++) if (allowed[r.nodes[x] * V + v] === 0) { this.reason = 'skills'; return false; }
        }
        if (kind === P_RANGE) {
          if (a === 0) this.addPrefix(r, b);
          else if (b === r.len && pb.vTimeProf[r.v] === pb.vTimeProf[v]) this.addSuffix(r, a);
          else for (let x = a; x <= b; x++) this.addNode(r.nodes[x]);
        } else {
          for (let x = b; x >= a; x--) this.addNode(r.nodes[x]);
        }
      }
      if (!this.ok) { this.reason = this.keepFail ? 'keepOrder' : 'timeWindow'; return false; }
    }
    this.addNode(pb.J + 2 * v + 1);
    if (!this.ok) { this.reason = 'timeWindow'; return false; }
    if (this.D > pb.vMaxDur[v]) { this.reason = 'maxDuration'; return false; }
    if (this.nst > pb.vMaxStops[v]) { this.reason = 'maxStops'; return false; }
    const K = pb.K;
    for (let q = 0; q < K; q++) {
      const cap = pb.vCap[v * K + q];
      if (this.dep[q] + this.M[q] > cap || (this.reloads && this.Cl[q] > cap)) { this.reason = 'capacity'; return false; }
    }
    if (pb.hasPairs && !this.pairsOk(P)) { this.reason = 'pair'; return false; }
    if (this.nmulti > 0 || (this.nst > 0 && hasBreaks(pb, v))) {
      // two-window stops, or breaks without a place: the exact schedule
      const n = this.expandStops(P);
      const r = exactCheckStops(pb, v, this.seq.subarray(0, n));
      this.work += n;
      if (r !== 'ok') { this.reason = r; return false; }
    }
    return true;
  }

  /**
   * {@link check} where only loads can fail ({@link loadOnly}): the candidate's deliveries summed
   * from the routes' prefix sums, O(pieces) instead of O(jobs walked). Counts the work units the
   * generic walk counts (begin, each piece or each job walked, the end depot), so that budgets in
   * work — and hence the plans — do not change with it.
   */
  private checkLoads(v: number, P: Pieces): boolean {
    const pb = this.pb;
    const K = pb.K;
    const dep = this.dep;
    const routes = this.routes;
    const jDep = pb.jDep, tProf = pb.vTimeProf;
    const k = P.k;
    for (let q = 0; q < K; q++) dep[q] = 0;
    let w = 2;
    for (let i = 0; i < P.n; i++) {
      const o = i * 4;
      const kind = k[o];
      if (kind === P_NODE) {
        const u = k[o + 2];
        for (let q = 0; q < K; q++) dep[q] += jDep[u * K + q];
        w++;
        continue;
      }
      const r = routes[k[o + 1]];
      const a = k[o + 2], b = k[o + 3];
      const f = r.fDep;
      if (a === 0) {
        // with the start depot (no load): a prefix, or that prefix walked backwards
        for (let q = 0; q < K; q++) dep[q] += f[b * K + q];
        w += kind === P_RANGE ? 1 : b + 1;
      } else {
        for (let q = 0; q < K; q++) dep[q] += f[b * K + q] - f[(a - 1) * K + q];
        w += kind === P_RANGE && b === r.len && tProf[r.v] === tProf[v] ? 1 : b - a + 1;
      }
    }
    this.work += w;
    for (let q = 0; q < K; q++) {
      if (dep[q] > pb.vCap[v * K + q]) { this.reason = 'capacity'; return false; }
    }
    return true;
  }

  private begin(v: number): void {
    const pb = this.pb;
    this.v = v;
    this.prof = pb.vProfile[v];
    this.T = pb.time[this.prof];
    this.C = pb.cost[this.prof];
    this.off = this.prof * this.NN;
    const sn = pb.J + 2 * v;
    this.E = pb.nE[this.off + sn];
    this.L = pb.nL[this.off + sn];
    this.D = 0;
    this.last = sn;
    this.nst = 0;
    this.nmulti = 0;
    this.keep = -1;
    this.ok = true;
    this.keepFail = false;
    // loops, not fill(): K is 1–3 and a builtin call per array costs more than the stores
    const dep = this.dep, S = this.S, M = this.M;
    for (let q = 0; q < dep.length; q++) { dep[q] = 0; S[q] = 0; M[q] = 0; }
    if (this.reloads) for (let q = 0; q < dep.length; q++) this.Cl[q] = 0;
    this.work++;
  }

  private addPrefix(r: Route, b: number): void {
    this.E = r.fE[b]; this.L = r.fL[b]; this.D = r.fD[b];
    this.last = r.nodes[b];
    this.nst = r.stops[b];
    this.nmulti = r.multi[b];
    this.keep = r.lastKeep[b];
    const K = this.pb.K;
    for (let q = 0; q < K; q++) {
      this.dep[q] = r.fDep[b * K + q]; this.S[q] = r.fS[b * K + q]; this.M[q] = r.fM[b * K + q];
    }
    if (this.reloads) for (let q = 0; q < K; q++) this.Cl[q] = r.fC[b * K + q];
    this.work++;
  }

  private addSuffix(r: Route, a: number): void {
    const pb = this.pb;
    const first = r.nodes[a];
    const t = this.T[pb.outRow[this.last] + pb.inPl[first]];
    const delta = this.D + t;
    const E2 = r.bE[a], L2 = r.bL[a];
    if (this.E + delta > L2) { this.ok = false; return; }
    const wt = E2 - delta - this.L > 0 ? E2 - delta - this.L : 0;
    this.E = (E2 - delta > this.E ? E2 - delta : this.E) - wt;
    this.L = L2 - delta < this.L ? L2 - delta : this.L;
    this.D = delta + r.bD[a] + wt;
    this.last = r.nodes[r.len];
    this.nst += r.stops[r.len] - r.stops[a - 1];
    this.nmulti += r.multi[r.len] - r.multi[a - 1];
    const fk = r.firstKeep[a];
    if (fk !== NO_RANK) {
      if (fk < this.keep) { this.ok = false; this.keepFail = true; return; }
      this.keep = r.lastKeep[r.len];
    }
    const K = pb.K;
    if (this.reloads && r.resetCum[r.len] > r.resetCum[a - 1]) {
      // The open segment ends at the suffix's first reload. The suffix's last segment stays open
      // (jobs may follow the suffix in a candidate): it is the route's own last segment, i.e. its
      // prefix data at len. bC counts it too, harmlessly: a segment's largest load only grows as
      // jobs are appended to it.
      const e = r.len * K;
      for (let q = 0; q < K; q++) {
        const m = this.S[q] + r.bM[a * K + q];
        const seg = this.dep[q] + r.bDep[a * K + q] + (m > this.M[q] ? m : this.M[q]);
        const c = r.bC[a * K + q];
        this.Cl[q] = Math.max(this.Cl[q], seg, c);
        this.dep[q] = r.fDep[e + q]; this.S[q] = r.fS[e + q]; this.M[q] = r.fM[e + q];
      }
    } else for (let q = 0; q < K; q++) {
      const m = this.S[q] + r.bM[a * K + q];
      if (m > this.M[q]) this.M[q] = m;
      this.S[q] += r.bS[a * K + q];
      this.dep[q] += r.bDep[a * K + q];
    }
    this.work++;
  }

  private addNode(u: number): void {
    const pb = this.pb;
    const o = this.off + u;
    const t = this.T[pb.outRow[this.last] + pb.inPl[u]];
    const delta = this.D + t;
    const E2 = pb.nE[o], L2 = pb.nL[o];
    if (this.E + delta > L2) { this.ok = false; return; }
    const wt = E2 - delta - this.L > 0 ? E2 - delta - this.L : 0;
    this.E = (E2 - delta > this.E ? E2 - delta : this.E) - wt;
    this.L = L2 - delta < this.L ? L2 - delta : this.L;
    this.D = delta + pb.nD[o] + wt;
    this.last = u;
    if (u < pb.J) {
      this.nst += pb.jStops[u];
      this.nmulti += pb.nMulti[u];
      const kr = pb.jKeep[u];
      if (kr >= 0) {
        if (kr < this.keep) { this.ok = false; this.keepFail = true; return; }
        this.keep = kr;
      }
      const K = pb.K;
      if (this.reloads && pb.jReset[u]) {
        for (let q = 0; q < K; q++) {
          const seg = this.dep[q] + this.M[q];
          if (seg > this.Cl[q]) this.Cl[q] = seg;
          this.dep[q] = 0; this.S[q] = 0; this.M[q] = 0;
        }
      } else for (let q = 0; q < K; q++) {
        const i = u * K + q;
        const m = this.S[q] + pb.jRise[i];
        if (m > this.M[q]) this.M[q] = m;
        this.S[q] += pb.jDelta[i];
        this.dep[q] += pb.jDep[i];
      }
    }
    this.work++;
  }

  /** Pickup/delivery precedence within the candidate: every pair complete, pickup first. */
  private pairsOk(P: Pieces): boolean {
    const pb = this.pb;
    const role = pb.jPairRole;
    const mate = pb.jMate;
    const now = ++this.stampNow;
    const stamp = this.stamp;
    let open = 0;
    const reset = pb.jReset;
    const visit = (u: number): boolean => {
      const ro = role[u];
      if (reset[u] && open > 0) return false; // no pair open across a reload point
      if (ro === 1) { stamp[u] = now; open++; }
      else if (ro === 2) {
        if (stamp[mate[u]] !== now) return false;
        open--;
      }
      return true;
    };
    const k = P.k;
    for (let i = 0; i < P.n; i++) {
      const o = i * 4;
      const kind = k[o];
      if (kind === P_NODE) { if (!visit(k[o + 2])) return false; continue; }
      const r = this.routes[k[o + 1]];
      const a = k[o + 2] === 0 ? 1 : k[o + 2], b = k[o + 3];
      if (r.pairCum[b] - r.pairCum[a - 1] === 0) {
        if (open > 0 && r.resetCum[b] > r.resetCum[a - 1]) return false;
        continue;
      }
      if (kind === P_RANGE) { for (let x = a; x <= b; x++) if (!visit(r.nodes[x])) return false; }
      else for (let x = b; x >= a; x--) if (!visit(r.nodes[x])) return false;
      this.work += b - a + 1;
    }
    return open === 0;
  }

  /** Writes the candidate's jobs in order into `out`; returns the count. */
  jobsOf(P: Pieces, out: Int32Array): number {
    let n = 0;
    const k = P.k;
    for (let i = 0; i < P.n; i++) {
      const o = i * 4;
      const kind = k[o];
      if (kind === P_NODE) { out[n++] = k[o + 2]; continue; }
      const r = this.routes[k[o + 1]];
      const a = k[o + 2] === 0 ? 1 : k[o + 2], b = k[o + 3];
      if (kind === P_RANGE) for (let x = a; x <= b; x++) out[n++] = r.nodes[x];
      else for (let x = b; x >= a; x--) out[n++] = r.nodes[x];
    }
    return n;
  }

  private expandStops(P: Pieces): number {
    const pb = this.pb;
    const jobs = this.jobBuf;
    const nj = this.jobsOf(P, jobs);
    let n = 0;
    for (let i = 0; i < nj; i++) {
      const u = jobs[i];
      this.seq[n++] = pb.jStop0[u];
      if (pb.jStop1[u] >= 0) this.seq[n++] = pb.jStop1[u];
    }
    return n;
  }
}

/**
 * Whether loads are the only constraint {@link Evaluator.check} can find broken, with sums that
 * do not depend on their order: no pickups, pairs, reload points, keep-order, maximum stops,
 * skills, breaks or two-window stops; whole non-negative deliveries whose total is exact in a
 * double; and no time constraint that a route could reach even through unreachable arcs (every
 * latest time above the earliest start plus (jobs + 1) × (the longest arc + the longest service),
 * every maximum duration above the latter).
 */
export function loadOnly(pb: Problem): boolean {
  if (pb.hasPairs || pb.hasReset || pb.hasKeep || pb.hasMaxStops || pb.hasMulti || pb.allowed !== null) return false;
  const J = pb.J, V = pb.V, K = pb.K, NN = J + 2 * V;
  let total = 0;
  for (let i = 0; i < J * K; i++) {
    const d = pb.jDep[i];
    if (!(Number.isInteger(d) && d >= 0) || pb.jDelta[i] !== -d || pb.jRise[i] !== 0) return false;
    total += d;
  }
  if (!(total < 2 ** 52)) return false;
  let maxE = -Infinity, minL = Infinity, minDur = Infinity, maxSvc = 0;
  for (let v = 0; v < V; v++) {
    if (hasBreaks(pb, v)) return false;
    maxE = Math.max(maxE, pb.vTin[v]);
    minL = Math.min(minL, pb.vTout[v]);
    minDur = Math.min(minDur, pb.vMaxDur[v]);
  }
  for (let p = 0; p < pb.P; p++) {
    for (let j = 0; j < J; j++) {
      const o = p * NN + j;
      maxE = Math.max(maxE, pb.nE[o]);
      minL = Math.min(minL, pb.nL[o]);
      maxSvc = Math.max(maxSvc, pb.nD[o]);
    }
  }
  const longest = (J + 1) * (UNREACHABLE + maxSvc);
  return longest < minDur && maxE + longest < minL;
}

export { BIG };
