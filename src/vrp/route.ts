/**
 * One vehicle's route with per-position cached segment data (à la Vidal et al. 2013):
 * prefix data [0..pos] (start depot included) and suffix data [pos..len] (end depot excluded,
 * so the suffix can be concatenated to another vehicle's end). Positions: 0 = start depot,
 * 1..len = jobs, len+1 = end depot.
 *
 * Cached per position:
 * - costs: cumulative forward arc cost, reverse arc cost (for reversed segments on asymmetric
 *   matrices) and internal job costs — any segment's cost in O(1);
 * - time: (E, L, D) of the prefix and of the suffix — earliest/latest start without waiting and
 *   minimal duration (time windows, shifts, max duration in O(1) per concatenation);
 * - load per dimension: amount from the depot, net change and maximal rise (pickups and
 *   deliveries in O(1));
 * - stop counts, number of two-window stops, open pickup/delivery pairs, keep-order ranks.
 *
 * Routes are only ever materialised feasible. `rebuild` is O(len · K) and runs for changed
 * routes only.
 */
import { BIG, type Problem } from './model.js';
import { balancePenalty, routeObjective } from './objective.js';

export const NO_RANK = 0x3fffffff;

export class Route {
  len = 0;
  cap = 0;
  nodes!: Int32Array;
  arcF!: Float64Array;
  arcR!: Float64Array;
  icum!: Float64Array;
  fE!: Float64Array;
  fL!: Float64Array;
  fD!: Float64Array;
  bE!: Float64Array;
  bL!: Float64Array;
  bD!: Float64Array;
  stops!: Int32Array;
  multi!: Int32Array;
  /** Cumulative count of jobs belonging to separate pickup/delivery pairs. */
  pairCum!: Int32Array;
  lastKeep!: Int32Array;
  firstKeep!: Int32Array;
  fDep!: Float64Array;
  fS!: Float64Array;
  fM!: Float64Array;
  bDep!: Float64Array;
  bS!: Float64Array;
  bM!: Float64Array;
  /**
   * Reload points (MidwayDrop) split the load into segments. The prefix/suffix load triples above are
   * those of the prefix's last segment / the suffix's first one; fC/bC hold the largest load of
   * the segments closed before it (prefix) / after it, to the end (suffix); resetCum counts reloads.
   */
  fC!: Float64Array;
  bC!: Float64Array;
  resetCum!: Int32Array;
  /** Cost of the route ({@link routeObjective} of its arc and internal costs; 0 when empty). */
  cost = 0;
  /** Last iteration stamp at which this route changed (local search bookkeeping). */
  stamp = 0;

  constructor(readonly pb: Problem, readonly v: number, capacity = 8) {
    this.alloc(Math.max(4, capacity));
    this.nodes[0] = pb.startNode(v);
    this.nodes[1] = pb.endNode(v);
    this.len = 0;
  }

  private alloc(cap: number): void {
    const K = this.pb.K;
    const old = this.nodes;
    this.cap = cap;
    this.nodes = new Int32Array(cap);
    if (old) this.nodes.set(old.subarray(0, Math.min(old.length, cap)));
    this.arcF = new Float64Array(cap);
    this.arcR = new Float64Array(cap);
    this.icum = new Float64Array(cap);
    this.fE = new Float64Array(cap);
    this.fL = new Float64Array(cap);
    this.fD = new Float64Array(cap);
    this.bE = new Float64Array(cap);
    this.bL = new Float64Array(cap);
    this.bD = new Float64Array(cap);
    this.stops = new Int32Array(cap);
    this.multi = new Int32Array(cap);
    this.pairCum = new Int32Array(cap);
    this.lastKeep = new Int32Array(cap);
    this.firstKeep = new Int32Array(cap);
    this.fDep = new Float64Array(cap * K);
    this.fS = new Float64Array(cap * K);
    this.fM = new Float64Array(cap * K);
    this.bDep = new Float64Array(cap * K);
    this.bS = new Float64Array(cap * K);
    this.bM = new Float64Array(cap * K);
    this.fC = new Float64Array(cap * K);
    this.bC = new Float64Array(cap * K);
    this.resetCum = new Int32Array(cap);
  }

  /** Replaces the jobs of the route (positions 1..len) and rebuilds the caches. */
  setJobs(jobs: ArrayLike<number>, len: number, routeOf: Int32Array, posOf: Int32Array): void {
    if (len + 2 > this.cap) this.alloc(Math.max(len + 2, this.cap * 2));
    const nodes = this.nodes;
    nodes[0] = this.pb.startNode(this.v);
    for (let i = 0; i < len; i++) {
      const u = jobs[i];
      nodes[i + 1] = u;
      routeOf[u] = this.v;
      posOf[u] = i + 1;
    }
    nodes[len + 1] = this.pb.endNode(this.v);
    this.len = len;
    this.rebuild();
  }

  jobs(): Int32Array {
    return this.nodes.slice(1, this.len + 1);
  }

  /** Recomputes every cache from `nodes`. Returns false if the route is infeasible in time (a bug if it happens). */
  rebuild(): boolean {
    const pb = this.pb;
    const len = this.len;
    const K = pb.K;
    const J = pb.J;
    const p = pb.vProfile[this.v];
    const T = pb.time[p];
    const C = pb.cost[p];
    const NN = J + 2 * pb.V;
    const off = p * NN;
    const nE = pb.nE, nL = pb.nL, nD = pb.nD, nInt = pb.nIntCost;
    const inPl = pb.inPl, outRow = pb.outRow;
    const nodes = this.nodes;
    const arcF = this.arcF, arcR = this.arcR, icum = this.icum;
    const fE = this.fE, fL = this.fL, fD = this.fD;
    let ok = true;
    /** Reload points in the problem: the segment caches (fC, bC, resetCum) are kept; else they stay 0. */
    const reloads = pb.hasReset;

    const s0 = nodes[0];
    arcF[0] = 0; arcR[0] = 0; icum[0] = 0;
    fE[0] = nE[off + s0]; fL[0] = nL[off + s0]; fD[0] = 0;
    this.stops[0] = 0; this.multi[0] = 0; this.pairCum[0] = 0; this.lastKeep[0] = -1;
    for (let k = 0; k < K; k++) { this.fDep[k] = 0; this.fS[k] = 0; this.fM[k] = 0; this.fC[k] = 0; }
    this.resetCum[0] = 0;

    for (let pos = 1; pos <= len + 1; pos++) {
      const u = nodes[pos];
      const prev = nodes[pos - 1];
      const ru = outRow[prev] + inPl[u];
      arcF[pos] = arcF[pos - 1] + C[ru];
      arcR[pos] = arcR[pos - 1] + C[outRow[u] + inPl[prev]];
      icum[pos] = icum[pos - 1] + nInt[off + u];
      // time
      const t = T[ru];
      const delta = fD[pos - 1] + t;
      const E1 = fE[pos - 1], L1 = fL[pos - 1];
      const E2 = nE[off + u], L2 = nL[off + u];
      if (E1 + delta > L2) ok = false;
      const wt = E2 - delta - L1 > 0 ? E2 - delta - L1 : 0;
      fE[pos] = (E2 - delta > E1 ? E2 - delta : E1) - wt;
      fL[pos] = L2 - delta < L1 ? L2 - delta : L1;
      fD[pos] = fD[pos - 1] + nD[off + u] + t + wt;
      if (u < J) {
        this.stops[pos] = this.stops[pos - 1] + pb.jStops[u];
        this.multi[pos] = this.multi[pos - 1] + pb.nMulti[u];
        this.pairCum[pos] = this.pairCum[pos - 1] + (pb.jPairRole[u] !== 0 ? 1 : 0);
        const kr = pb.jKeep[u];
        this.lastKeep[pos] = kr >= 0 ? kr : this.lastKeep[pos - 1];
        if (reloads && pb.jReset[u]) {
          this.resetCum[pos] = this.resetCum[pos - 1] + 1;
          for (let k = 0; k < K; k++) {
            const i = pos * K + k, j = (pos - 1) * K + k;
            const seg = this.fDep[j] + this.fM[j];
            this.fC[i] = seg > this.fC[j] ? seg : this.fC[j];
            this.fDep[i] = 0; this.fS[i] = 0; this.fM[i] = 0;
          }
        } else {
          if (reloads) this.resetCum[pos] = this.resetCum[pos - 1];
          for (let k = 0; k < K; k++) {
            const i = pos * K + k, j = (pos - 1) * K + k, q = u * K + k;
            this.fDep[i] = this.fDep[j] + pb.jDep[q];
            const m = this.fS[j] + pb.jRise[q];
            this.fM[i] = m > this.fM[j] ? m : this.fM[j];
            this.fS[i] = this.fS[j] + pb.jDelta[q];
            if (reloads) this.fC[i] = this.fC[j];
          }
        }
      } else {
        if (reloads) this.resetCum[pos] = this.resetCum[pos - 1];
        this.stops[pos] = this.stops[pos - 1];
        this.multi[pos] = this.multi[pos - 1];
        this.pairCum[pos] = this.pairCum[pos - 1];
        this.lastKeep[pos] = this.lastKeep[pos - 1];
        for (let k = 0; k < K; k++) {
          const i = pos * K + k, j = (pos - 1) * K + k;
          this.fDep[i] = this.fDep[j]; this.fS[i] = this.fS[j]; this.fM[i] = this.fM[j];
          if (reloads) this.fC[i] = this.fC[j];
        }
      }
    }
    if (fD[len + 1] > pb.vMaxDur[this.v]) ok = false;

    // suffixes [pos..len]
    const bE = this.bE, bL = this.bL, bD = this.bD;
    this.firstKeep[len + 1] = NO_RANK;
    bE[len + 1] = -BIG; bL[len + 1] = BIG; bD[len + 1] = 0;
    for (let k = 0; k < K; k++) { const i = (len + 1) * K + k; this.bDep[i] = 0; this.bS[i] = 0; this.bM[i] = 0; this.bC[i] = 0; }
    for (let pos = len; pos >= 1; pos--) {
      const u = nodes[pos];
      const o = off + u;
      if (pos === len) {
        bE[pos] = nE[o]; bL[pos] = nL[o]; bD[pos] = nD[o];
      } else {
        const t = T[outRow[u] + inPl[nodes[pos + 1]]];
        const delta = nD[o] + t;
        const E1 = nE[o], L1 = nL[o];
        const E2 = bE[pos + 1], L2 = bL[pos + 1];
        const wt = E2 - delta - L1 > 0 ? E2 - delta - L1 : 0;
        bE[pos] = (E2 - delta > E1 ? E2 - delta : E1) - wt;
        bL[pos] = L2 - delta < L1 ? L2 - delta : L1;
        bD[pos] = nD[o] + bD[pos + 1] + t + wt;
      }
      const kr = pb.jKeep[u];
      this.firstKeep[pos] = kr >= 0 ? kr : this.firstKeep[pos + 1];
      if (!reloads) for (let k = 0; k < K; k++) {
        const i = pos * K + k, j = (pos + 1) * K + k, q = u * K + k;
        this.bDep[i] = pb.jDep[q] + this.bDep[j];
        const m = pb.jDelta[q] + this.bM[j];
        this.bM[i] = m > pb.jRise[q] ? m : pb.jRise[q];
        this.bS[i] = pb.jDelta[q] + this.bS[j];
      } else if (pb.jReset[u]) {
        // the suffix's first segment is empty; the one after the reload is now closed
        for (let k = 0; k < K; k++) {
          const i = pos * K + k, j = (pos + 1) * K + k;
          const seg = this.bDep[j] + this.bM[j];
          this.bC[i] = seg > this.bC[j] ? seg : this.bC[j];
          this.bDep[i] = 0; this.bS[i] = 0; this.bM[i] = 0;
        }
      } else for (let k = 0; k < K; k++) {
        const i = pos * K + k, j = (pos + 1) * K + k, q = u * K + k;
        this.bDep[i] = pb.jDep[q] + this.bDep[j];
        const m = pb.jDelta[q] + this.bM[j];
        this.bM[i] = m > pb.jRise[q] ? m : pb.jRise[q];
        this.bS[i] = pb.jDelta[q] + this.bS[j];
        this.bC[i] = this.bC[j];
      }
    }
    const travel = arcF[len + 1] + icum[len + 1];
    this.cost = routeObjective(pb.vCostMul[this.v], pb.vFixed[this.v], travel, len > 0) + (len > 0 ? balancePenalty(pb.balance, travel, len) : 0);
    return ok;
  }

  /** Total load from the depot (dimension k) — the load on board at departure (without reloads). */
  depLoad(k: number): number {
    return this.fDep[(this.len + 1) * this.pb.K + k];
  }
}
