/**
 * Granular local search (first improvement) over the operators
 *   relocate (before/after a neighbour), Or-opt (2 and 3 consecutive jobs, 2 also reversed),
 *   swap, cross-exchange (2↔1, 2↔2), 2-opt (intra-route reversal), 2-opt* (tail exchange),
 *   move to an empty vehicle, and SWAP* (Vidal 2022) between route pairs.
 *
 * Each move is a description of the one or two new routes as pieces (see evaluator.ts): its cost
 * delta is computed in O(pieces), and only an improving move is checked for feasibility. The
 * search is driven by a work queue of jobs (initially all, or only those around a ruined area);
 * when a move is applied, the jobs of the changed routes are queued again, and a (u, v) pair is
 * only re-evaluated when one of the two routes changed since u was last examined.
 */
import type { Rng } from '../core/rng.js';
import { EngineError } from '../core/errors.js';
import { cancelledError } from '../core/cancel.js';
import { Pieces, type Evaluator } from './evaluator.js';
import type { Neighbours } from './neighbours.js';
import type { State } from './state.js';

export interface LsParams {
  /** Neighbours examined per job. */
  k: number;
  /** Run SWAP* between overlapping routes. */
  swapStar: boolean;
}

export class LocalSearch {
  private readonly A = new Pieces();
  private readonly B = new Pieces();
  private readonly queue: Int32Array;
  private qHead = 0;
  private qLen = 0;
  private readonly inQueue: Uint8Array;
  private readonly lastTest: Int32Array;
  /** Moves applied (statistics). */
  moves = 0;
  private readonly swapStamp: Int32Array;
  private readonly pairSeen: Int32Array;
  private pairStamp = 1;
  /**
   * While set, {@link run} reads it every few jobs and throws Cancelled once it says so — between
   * moves, so the routes stay valid. Set only around a full run (construction): a localized run
   * inside a search iteration is short and must not be cut.
   */
  cancelled: (() => boolean) | null = null;

  constructor(readonly st: State, readonly nb: Neighbours, readonly rng: Rng, public params: LsParams) {
    const J = st.pb.J;
    const pb = st.pb;
    this.fast = pb.uniformCost && pb.pureArcObjective && pb.V > 0;
    this.mul = pb.V > 0 ? pb.vCostMul[0] || 1 : 1;
    this.evaluateAll = !this.fast || LocalSearch.verify;
    this.ev = st.ev;
    this.C = pb.cost[pb.V > 0 ? pb.vProfile[0] : 0];
    this.outRow = pb.outRow;
    this.inPl = pb.inPl;
    this.queue = new Int32Array(J);
    this.inQueue = new Uint8Array(J);
    this.lastTest = new Int32Array(J);
    this.swapStamp = new Int32Array(st.pb.V);
    this.pairSeen = new Int32Array(st.pb.V);
  }

  private push(u: number): void {
    if (this.inQueue[u]) return;
    this.inQueue[u] = 1;
    const J = this.queue.length;
    this.queue[(this.qHead + this.qLen) % J] = u;
    this.qLen++;
  }

  private pop(): number {
    const u = this.queue[this.qHead];
    this.qHead = (this.qHead + 1) % this.queue.length;
    this.qLen--;
    this.inQueue[u] = 0;
    return u;
  }

  /** Queues every job of route v. */
  private pushRoute(v: number): void {
    const r = this.st.routes[v];
    for (let i = 1; i <= r.len; i++) this.push(r.nodes[i]);
  }

  /** Runs to a local optimum. `seeds`: jobs to start from (default: every assigned job, shuffled). */
  run(seeds?: ArrayLike<number>, swapStar = this.params.swapStar): void {
    const st = this.st;
    const J = st.pb.J;
    if (seeds === undefined) {
      const all: number[] = [];
      for (let u = 0; u < J; u++) if (st.routeOf[u] >= 0) all.push(u);
      this.rng.shuffle(all);
      for (const u of all) { this.lastTest[u] = 0; this.push(u); }
    } else {
      for (let i = 0; i < seeds.length; i++) { const u = seeds[i]; if (st.routeOf[u] >= 0) { this.lastTest[u] = 0; this.push(u); } }
    }
    let n = 0;
    for (;;) {
      while (this.qLen > 0) {
        if (this.cancelled !== null && (++n & 63) === 0 && this.cancelled()) throw cancelledError();
        const u = this.pop();
        if (st.routeOf[u] < 0) continue;
        this.examine(u);
      }
      if (!swapStar || !this.swapStarPass()) break;
    }
  }

  private examine(u: number): void {
    const st = this.st;
    const nb = this.nb;
    const k = Math.min(this.params.k, nb.k);
    const since = this.lastTest[u];
    this.lastTest[u] = st.clock;
    for (let i = 0; i < k; i++) {
      const v = nb.list[u * nb.k + i];
      if (v < 0) break;
      const rv = st.routeOf[v];
      const ru = st.routeOf[u];
      if (rv < 0) continue;
      if (st.routes[ru].stamp <= since && st.routes[rv].stamp <= since) continue;
      if (this.tryPair(u, v)) { this.push(u); return; }
    }
    if (this.tryEmpty(u)) this.push(u);
  }

  private applied(va: number, vb: number): void {
    this.moves++;
    this.pushRoute(va);
    if (vb >= 0 && vb !== va) this.pushRoute(vb);
  }

  /**
   * Evaluates candidate(s); applies and returns true when strictly improving and feasible.
   * `improving`: the caller's exact fast delta already proved the move strictly improving, so the
   * candidates' costs are not computed again (their work units are still counted, so budgets
   * and plans are the same either way).
   */
  private attempt(va: number, vb: number, improving = false): boolean {
    const st = this.st;
    const ev = st.ev;
    const ra = st.routes[va];
    if (vb < 0) {
      if (improving) ev.work++;
      else if (ev.cost(va, this.A) - ra.cost >= 0) return false;
      if (!ev.check(va, this.A)) return false;
      st.apply(va, this.A);
      this.applied(va, -1);
      return true;
    }
    const rb = st.routes[vb];
    if (improving) ev.work += 2;
    else if (ev.cost(va, this.A) + ev.cost(vb, this.B) - ra.cost - rb.cost >= 0) return false;
    if (!ev.check(va, this.A) || !ev.check(vb, this.B)) return false;
    st.apply(va, this.A, vb, this.B);
    this.applied(va, vb);
    return true;
  }

  private readonly ev: Evaluator;
  private readonly C: Int32Array;
  private readonly outRow: Int32Array;
  private readonly inPl: Int32Array;
  private readonly fast: boolean;
  private readonly mul: number;
  /** Test hook: compare every fast delta with the generic evaluation. */
  static verify = false;

  /**
   * O(1) lower-level filter on a move's exact cost delta from arc costs, valid when every vehicle
   * shares one cost matrix and factor (`fast`): a move is only built into pieces when it is
   * negative (or when every candidate is evaluated). The callers (`tryPair`, `relocateIntra`) read
   * the arc costs as `C[oR[a] + iP[b]]` inline, not through a method: V8 inlines only the first few
   * dozen calls of a large function, and the calls it left were 15 % of a CVRP search's time.
   */
  private filt(delta: number): boolean {
    this.ev.work++;
    return this.mul * delta < 0 || this.evaluateAll;
  }
  /** Every candidate is evaluated: no exact fast delta, or the verify hook (read when the search starts). */
  private readonly evaluateAll: boolean;

  /** attempt() with the fast delta checked against the generic cost in verify mode. */
  private tryMove(va: number, vb: number, delta: number): boolean {
    if (LocalSearch.verify && this.fast) {
      const st = this.st;
      const d = st.ev.cost(va, this.A) - st.routes[va].cost + (vb >= 0 ? st.ev.cost(vb, this.B) - st.routes[vb].cost : 0);
      if (Math.abs(d - this.mul * delta) > 1e-6) throw new EngineError('Internal', `fast delta ${this.mul * delta} ≠ ${d}`);
      LocalSearch.verified++;
    }
    return this.attempt(va, vb, this.fast && this.mul * delta < 0);
  }
  static verified = 0;

  /** What a route saves when it becomes empty (its start→end arc and fixed cost), in arc units. */
  private emptied(v: number): number {
    const pb = this.st.pb;
    return this.C[this.outRow[pb.startNode(v)] + this.inPl[pb.endNode(v)]] + pb.vFixed[v] / this.mul;
  }

  private tryPair(u: number, v: number): boolean {
    const C = this.C, oR = this.outRow, iP = this.inPl;
    const st = this.st;
    const J = st.pb.J;
    const va = st.routeOf[u], vb = st.routeOf[v];
    const ra = st.routes[va], rb = st.routes[vb];
    const pu = st.posOf[u], pv = st.posOf[v];
    const A = this.A, B = this.B;
    const la = ra.len, lb = rb.len;
    const na = ra.nodes, nbn = rb.nodes;
    const x = na[pu + 1];
    const xJob = x < J;
    const x2Job = xJob && pu + 2 <= la;
    const yJob = pv + 1 <= lb;
    const pU = na[pu - 1];
    const pV = nbn[pv - 1];
    const y = nbn[pv + 1];
    if (va !== vb) {
      const cUx = C[oR[u] + iP[x]], cPu = C[oR[pU] + iP[u]], cVy = C[oR[v] + iP[y]], cPv = C[oR[pV] + iP[v]];
      const remU = C[oR[pU] + iP[x]] - cPu - cUx - (la === 1 ? this.emptied(va) : 0);
      // relocate u after v
      if (this.filt(remU + C[oR[v] + iP[u]] + C[oR[u] + iP[y]] - cVy)) {
        A.clear().range(va, 0, pu - 1).range(va, pu + 1, la);
        B.clear().range(vb, 0, pv).node(u).range(vb, pv + 1, lb);
        if (this.tryMove(va, vb, remU + C[oR[v] + iP[u]] + C[oR[u] + iP[y]] - cVy)) return true;
      }
      // relocate u before v
      if (this.filt(remU + C[oR[pV] + iP[u]] + C[oR[u] + iP[v]] - cPv)) {
        A.clear().range(va, 0, pu - 1).range(va, pu + 1, la);
        B.clear().range(vb, 0, pv - 1).node(u).range(vb, pv, lb);
        if (this.tryMove(va, vb, remU + C[oR[pV] + iP[u]] + C[oR[u] + iP[v]] - cPv)) return true;
      }
      if (xJob) {
        const x2 = na[pu + 2];
        const cXx2 = C[oR[x] + iP[x2]];
        const rem2 = C[oR[pU] + iP[x2]] - cPu - cXx2 - (la === 2 ? this.emptied(va) : 0);
        // Or-opt 2, forward and reversed
        let d = rem2 + C[oR[v] + iP[u]] + C[oR[x] + iP[y]] - cVy;
        if (this.filt(d)) {
          A.clear().range(va, 0, pu - 1).range(va, pu + 2, la);
          B.clear().range(vb, 0, pv).range(va, pu, pu + 1).range(vb, pv + 1, lb);
          if (this.tryMove(va, vb, d)) return true;
        }
        d = rem2 + C[oR[v] + iP[x]] + C[oR[x] + iP[u]] - cUx + C[oR[u] + iP[y]] - cVy;
        if (this.filt(d)) {
          A.clear().range(va, 0, pu - 1).range(va, pu + 2, la);
          B.clear().range(vb, 0, pv).rev(va, pu, pu + 1).range(vb, pv + 1, lb);
          if (this.tryMove(va, vb, d)) return true;
        }
        if (x2Job) {
          const x3 = na[pu + 3];
          d = C[oR[pU] + iP[x3]] - cPu - C[oR[x2] + iP[x3]] - (la === 3 ? this.emptied(va) : 0) + C[oR[v] + iP[u]] + C[oR[x2] + iP[y]] - cVy;
          if (this.filt(d)) {
            A.clear().range(va, 0, pu - 1).range(va, pu + 3, la);
            B.clear().range(vb, 0, pv).range(va, pu, pu + 2).range(vb, pv + 1, lb);
            if (this.tryMove(va, vb, d)) return true;
          }
        }
      }
      // swap u ↔ v
      let d = C[oR[pU] + iP[v]] + C[oR[v] + iP[x]] - cPu - cUx + C[oR[pV] + iP[u]] + C[oR[u] + iP[y]] - cPv - cVy;
      if (this.filt(d)) {
        A.clear().range(va, 0, pu - 1).node(v).range(va, pu + 1, la);
        B.clear().range(vb, 0, pv - 1).node(u).range(vb, pv + 1, lb);
        if (this.tryMove(va, vb, d)) return true;
      }
      if (xJob) {
        const x2 = na[pu + 2];
        const cXx2 = C[oR[x] + iP[x2]];
        // (u,x) ↔ v
        d = C[oR[pU] + iP[v]] + C[oR[v] + iP[x2]] - cPu - cXx2 + C[oR[pV] + iP[u]] + C[oR[x] + iP[y]] - cPv - cVy;
        if (this.filt(d)) {
          A.clear().range(va, 0, pu - 1).node(v).range(va, pu + 2, la);
          B.clear().range(vb, 0, pv - 1).range(va, pu, pu + 1).range(vb, pv + 1, lb);
          if (this.tryMove(va, vb, d)) return true;
        }
        if (yJob) {
          // (u,x) ↔ (v,y)
          const y2 = nbn[pv + 2];
          const cYy2 = C[oR[y] + iP[y2]];
          d = C[oR[pU] + iP[v]] + C[oR[y] + iP[x2]] - cPu - cXx2 + C[oR[pV] + iP[u]] + C[oR[x] + iP[y2]] - cPv - cYy2;
          if (this.filt(d)) {
            A.clear().range(va, 0, pu - 1).range(vb, pv, pv + 1).range(va, pu + 2, la);
            B.clear().range(vb, 0, pv - 1).range(va, pu, pu + 1).range(vb, pv + 2, lb);
            if (this.tryMove(va, vb, d)) return true;
          }
        }
      }
      // 2-opt*: u → v, pred(v) → x (tails exchanged; each keeps its own end depot)
      const endA = na[la + 1], endB = nbn[lb + 1];
      const lastA = na[la], lastB = nbn[lb];
      d = C[oR[u] + iP[v]] + C[oR[lastB] + iP[endA]] - C[oR[lastB] + iP[endB]] - cUx - cPv
        + (xJob ? C[oR[pV] + iP[x]] + C[oR[lastA] + iP[endB]] - C[oR[lastA] + iP[endA]] : C[oR[pV] + iP[endB]]);
      if (pv === 1 && !xJob) d -= C[oR[pV] + iP[endB]] + this.st.pb.vFixed[vb] / this.mul; // B becomes empty
      if (this.filt(d)) {
        A.clear().range(va, 0, pu).range(vb, pv, lb);
        B.clear().range(vb, 0, pv - 1).range(va, pu + 1, la);
        if (this.tryMove(va, vb, d)) return true;
      }
      // 2-opt*: u → y, v → x
      if (yJob || xJob) {
        d = -cUx - cVy
          + (yJob ? C[oR[u] + iP[y]] + C[oR[lastB] + iP[endA]] - C[oR[lastB] + iP[endB]] : C[oR[u] + iP[endA]])
          + (xJob ? C[oR[v] + iP[x]] + C[oR[lastA] + iP[endB]] - C[oR[lastA] + iP[endA]] : C[oR[v] + iP[endB]]);
        if (this.filt(d)) {
          A.clear().range(va, 0, pu).range(vb, pv + 1, lb);
          B.clear().range(vb, 0, pv).range(va, pu + 1, la);
          if (this.tryMove(va, vb, d)) return true;
        }
      }
      return false;
    }
    // ---- intra-route
    if (this.relocateIntra(va, pu, 1, pv, false)) return true;
    if (pv - 1 !== pu && this.relocateIntra(va, pu, 1, pv - 1, false)) return true;
    if (xJob) {
      if (this.relocateIntra(va, pu, 2, pv, false)) return true;
      if (this.relocateIntra(va, pu, 2, pv, true)) return true;
      if (x2Job && this.relocateIntra(va, pu, 3, pv, false)) return true;
    }
    // swap
    {
      const a = Math.min(pu, pv), b = Math.max(pu, pv);
      const na_ = na[a], nb_ = na[b];
      const pa = na[a - 1], sa = na[a + 1], pb_ = na[b - 1], sb = na[b + 1];
      const d = b === a + 1
        ? C[oR[pa] + iP[nb_]] + C[oR[nb_] + iP[na_]] + C[oR[na_] + iP[sb]] - C[oR[pa] + iP[na_]] - C[oR[na_] + iP[nb_]] - C[oR[nb_] + iP[sb]]
        : C[oR[pa] + iP[nb_]] + C[oR[nb_] + iP[sa]] - C[oR[pa] + iP[na_]] - C[oR[na_] + iP[sa]] + C[oR[pb_] + iP[na_]] + C[oR[na_] + iP[sb]] - C[oR[pb_] + iP[nb_]] - C[oR[nb_] + iP[sb]];
      if (this.filt(d)) {
        A.clear().range(va, 0, a - 1).node(nb_).range(va, a + 1, b - 1).node(na_).range(va, b + 1, la);
        if (this.tryMove(va, -1, d)) return true;
      }
    }
    // 2-opt: create arc u → v (reverse pu+1..pv), or v → u (reverse pv+1..pu)
    const i = pu < pv ? pu + 1 : pv + 1, j = pu < pv ? pv : pu;
    if (j > i) {
      const d = C[oR[na[i - 1]] + iP[na[j]]] + C[oR[na[i]] + iP[na[j + 1]]] - C[oR[na[i - 1]] + iP[na[i]]] - C[oR[na[j]] + iP[na[j + 1]]]
        + (ra.arcR[j] - ra.arcR[i]) - (ra.arcF[j] - ra.arcF[i]);
      if (this.filt(d)) {
        A.clear().range(va, 0, i - 1).rev(va, i, j).range(va, j + 1, la);
        if (this.tryMove(va, -1, d)) return true;
      }
    }
    return false;
  }

  /** Moves the block of `len` jobs starting at position s (optionally reversed) to after position t, within route v. */
  private relocateIntra(v: number, s: number, len: number, t: number, reversed: boolean): boolean {
    const C = this.C, oR = this.outRow, iP = this.inPl;
    const r = this.st.routes[v];
    const e = s + len - 1;
    if (e > r.len) return false;
    if (t >= s - 1 && t <= e) return false;
    const n = r.nodes;
    const first = reversed ? n[e] : n[s], last = reversed ? n[s] : n[e];
    let d = C[oR[n[s - 1]] + iP[n[e + 1]]] - C[oR[n[s - 1]] + iP[n[s]]] - C[oR[n[e]] + iP[n[e + 1]]]
      + C[oR[n[t]] + iP[first]] + C[oR[last] + iP[n[t + 1]]] - C[oR[n[t]] + iP[n[t + 1]]];
    if (reversed) d += (r.arcR[e] - r.arcR[s]) - (r.arcF[e] - r.arcF[s]);
    if (!this.filt(d)) return false;
    const A = this.A.clear();
    if (t < s) {
      A.range(v, 0, t);
      if (reversed) A.rev(v, s, e); else A.range(v, s, e);
      A.range(v, t + 1, s - 1).range(v, e + 1, r.len);
    } else {
      A.range(v, 0, s - 1).range(v, e + 1, t);
      if (reversed) A.rev(v, s, e); else A.range(v, s, e);
      A.range(v, t + 1, r.len);
    }
    return this.tryMove(v, -1, d);
  }

  /** Moves u alone into an empty vehicle (one per vehicle class). */
  private tryEmpty(u: number): boolean {
    const st = this.st;
    const pb = st.pb;
    const va = st.routeOf[u];
    const ra = st.routes[va];
    if (ra.len === 1 && pb.nClasses === 1) return false;
    const pu = st.posOf[u];
    for (let c = 0; c < pb.nClasses; c++) {
      const v = st.emptyVehicle(c);
      if (v < 0 || v === va) continue;
      this.A.clear().range(va, 0, pu - 1).range(va, pu + 1, ra.len);
      this.B.clear().node(u);
      if (this.attempt(va, v)) return true;
    }
    return false;
  }

  // ------------------------------------------------------------------ SWAP*
  /** One pass of SWAP* over route pairs changed since their last test. Returns true if any move was applied. */
  private swapStarPass(): boolean {
    const st = this.st;
    const pb = st.pb;
    const V = pb.V;
    const J = pb.J;
    const nb = this.nb;
    const kk = Math.min(8, nb.k);
    let improved = false;
    for (let va = 0; va < V; va++) {
      const ra = st.routes[va];
      if (ra.len === 0) continue;
      // routes that neighbour ra
      const stamp = ++this.pairStamp;
      const cand: number[] = [];
      for (let i = 1; i <= ra.len; i++) {
        const u = ra.nodes[i];
        for (let j = 0; j < kk; j++) {
          const w = nb.list[u * nb.k + j];
          if (w < 0) break;
          const vb = st.routeOf[w];
          if (vb <= va || this.pairSeen[vb] === stamp) continue;
          this.pairSeen[vb] = stamp;
          cand.push(vb);
        }
      }
      for (const vb of cand) {
        const rb = st.routes[vb];
        const last = Math.max(this.swapStamp[va], this.swapStamp[vb]);
        if (ra.stamp <= last && rb.stamp <= last) continue;
        if (this.swapStar(va, vb)) { improved = true; this.pushRoute(va); this.pushRoute(vb); }
        if (st.routes[va].len === 0) break;
      }
    }
    for (let v = 0; v < V; v++) this.swapStamp[v] = st.clock;
    void J;
    return improved;
  }

  // scratch for SWAP*
  private ssPos = new Int32Array(0);
  private ssCost = new Float64Array(0);
  private ssRem = new Float64Array(0);

  private consider(nodes: Int32Array, p: number, u: number, o: number, C: Int32Array, mul: number, intc: number): void {
    const outRow = this.outRow, inPl = this.inPl;
    const sp = this.ssPos;
    const a = nodes[p], b = nodes[p + 1];
    const d = mul * (C[outRow[a] + inPl[u]] + C[outRow[u] + inPl[b]] - C[outRow[a] + inPl[b]] + intc);
    if (p === sp[o] || p === sp[o + 1]) return;
    this.keep3(o, d, p);
  }

  /** Keeps position p with cost change d among the three cheapest at `o` of the SWAP* scratch. */
  private keep3(o: number, d: number, p: number): void {
    const sc = this.ssCost, sp = this.ssPos;
    if (d >= sc[o + 2]) return;
    if (d < sc[o + 1]) {
      sc[o + 2] = sc[o + 1]; sp[o + 2] = sp[o + 1];
      if (d < sc[o]) { sc[o + 1] = sc[o]; sp[o + 1] = sp[o]; sc[o] = d; sp[o] = p; }
      else { sc[o + 1] = d; sp[o + 1] = p; }
    } else { sc[o + 2] = d; sp[o + 2] = p; }
  }

  /**
   * Top-3 cheapest insertion positions (by cost only) of each job of `from` into route `into`:
   * every position for short routes, else the positions next to the job's nearest neighbours
   * that are in `into` (granular SWAP*).
   */
  private top3(from: number, into: number, base: number): void {
    const st = this.st;
    const pb = st.pb;
    const rf = st.routes[from], ri = st.routes[into];
    const prof = pb.vProfile[into];
    const C = pb.cost[prof];
    const mul = pb.vCostMul[into];
    const NN = pb.J + 2 * pb.V;
    const granular = ri.len > 25;
    const nb = this.nb;
    const kk = Math.min(nb.k, 12);
    const nodes = ri.nodes;
    const len = ri.len;
    // every position of a short route: its arcs' matrix offsets and costs once, then per job a
    // tight loop of two lookups (the hottest loop of SWAP*; same values as consider())
    const outRow = this.outRow, inPl = this.inPl;
    if (!granular) {
      if (this.tOut.length <= len) { this.tOut = new Int32Array(2 * len + 2); this.tIn = new Int32Array(2 * len + 2); this.tArc = new Int32Array(2 * len + 2); }
      const tOut = this.tOut, tIn = this.tIn, tArc = this.tArc;
      for (let p = 0; p <= len; p++) {
        tOut[p] = outRow[nodes[p]];
        tIn[p] = inPl[nodes[p + 1]];
        tArc[p] = C[tOut[p] + tIn[p]];
      }
    }
    const sc = this.ssCost, sp = this.ssPos;
    for (let i = 1; i <= rf.len; i++) {
      const u = rf.nodes[i];
      const o = base + (i - 1) * 3;
      sc[o] = sc[o + 1] = sc[o + 2] = Infinity;
      sp[o] = sp[o + 1] = sp[o + 2] = -1;
      const intc = pb.nIntCost[prof * NN + u];
      if (!granular) {
        const tOut = this.tOut, tIn = this.tIn, tArc = this.tArc;
        const ou = outRow[u], iu = inPl[u];
        for (let p = 0; p <= len; p++) {
          this.keep3(o, mul * (C[tOut[p] + iu] + C[ou + tIn[p]] - tArc[p] + intc), p);
        }
        st.ev.work += len + 1;
      } else {
        for (let k = 0; k < kk; k++) {
          const w = nb.list[u * nb.k + k];
          if (w < 0) break;
          if (st.routeOf[w] !== into) continue;
          const pw = st.posOf[w];
          this.consider(nodes, pw - 1, u, o, C, mul, intc);
          this.consider(nodes, pw, u, o, C, mul, intc);
        }
        st.ev.work += kk;
      }
    }
  }

  private readonly top = new TopK(6, 4);
  // top3's per-route scratch: matrix row / column offsets and cost of each arc of the route
  private tOut = new Int32Array(0);
  private tIn = new Int32Array(0);
  private tArc = new Int32Array(0);

  /** Cost change of removing the job at position pos of route v. */
  private ssRemoval(v: number, pos: number): number {
    const pb = this.st.pb;
    const r = this.st.routes[v];
    const prof = pb.vProfile[v];
    const C = pb.cost[prof];
    const a = r.nodes[pos - 1], u = r.nodes[pos], b = r.nodes[pos + 1];
    const outRow = pb.outRow, inPl = pb.inPl;
    return pb.vCostMul[v] * (C[outRow[a] + inPl[b]] - C[outRow[a] + inPl[u]] - C[outRow[u] + inPl[b]] - pb.nIntCost[prof * (pb.J + 2 * pb.V) + u]);
  }

  /** Cost change of putting w in the place of the job at position pr of route v (that job removed separately). */
  private ssInPlace(v: number, pr: number, w: number): number {
    const pb = this.st.pb;
    const r = this.st.routes[v];
    const prof = pb.vProfile[v];
    const C = pb.cost[prof];
    const a = r.nodes[pr - 1], b = r.nodes[pr + 1];
    const outRow = pb.outRow, inPl = pb.inPl;
    return pb.vCostMul[v] * (C[outRow[a] + inPl[w]] + C[outRow[w] + inPl[b]] - C[outRow[a] + inPl[b]] + pb.nIntCost[prof * (pb.J + 2 * pb.V) + w]);
  }

  /** Approximate SWAP* delta for u (position i of va) ↔ v (position j of vb); keeps the best few candidates. */
  private ssPair(va: number, vb: number, i: number, j: number, la: number): void {
    let d = this.ssRem[i - 1] + this.ssRem[la + j - 1];
    if (d >= 0) return;
    const ra = this.st.routes[va], rb = this.st.routes[vb];
    const u = ra.nodes[i], v = rb.nodes[j];
    // v into A without u: best non-adjacent top-3 position, or in u's place
    const ov = 3 * la + (j - 1) * 3;
    let insV = this.ssInPlace(va, i, v);
    let posV = -2;
    for (let t = 0; t < 3; t++) {
      const p = this.ssPos[ov + t];
      if (p < 0) break;
      if (p === i - 1 || p === i) continue;
      if (this.ssCost[ov + t] < insV) { insV = this.ssCost[ov + t]; posV = p; }
      break;
    }
    d += insV;
    if (d >= 0) return;
    const ou = (i - 1) * 3;
    let insU = this.ssInPlace(vb, j, u);
    let posU = -2;
    for (let t = 0; t < 3; t++) {
      const p = this.ssPos[ou + t];
      if (p < 0) break;
      if (p === j - 1 || p === j) continue;
      if (this.ssCost[ou + t] < insU) { insU = this.ssCost[ou + t]; posU = p; }
      break;
    }
    d += insU;
    if (d >= 0) return;
    this.top.offer(d, i, j, posV, posU);
  }

  private swapStar(va: number, vb: number): boolean {
    const st = this.st;
    const pb = st.pb;
    const ra = st.routes[va], rb = st.routes[vb];
    const la = ra.len, lb = rb.len;
    if (la === 0 || lb === 0) return false;
    const allowed = pb.allowed;
    const V = pb.V;
    const need = 3 * (la + lb);
    if (this.ssPos.length < need) { this.ssPos = new Int32Array(need * 2); this.ssCost = new Float64Array(need * 2); }
    if (this.ssRem.length < la + lb) this.ssRem = new Float64Array((la + lb) * 2);
    this.top3(va, vb, 0); // jobs of A into B: offset 0
    this.top3(vb, va, 3 * la); // jobs of B into A
    for (let i = 1; i <= la; i++) this.ssRem[i - 1] = this.ssRemoval(va, i);
    for (let i = 1; i <= lb; i++) this.ssRem[la + i - 1] = this.ssRemoval(vb, i);
    this.top.clear();
    const granular = la > 25 || lb > 25;
    const nb = this.nb;
    const kk = Math.min(nb.k, 12);
    for (let i = 1; i <= la; i++) {
      const u = ra.nodes[i];
      if (allowed !== null && allowed[u * V + vb] === 0) continue;
      if (granular) {
        // only partners among u's nearest neighbours
        for (let k = 0; k < kk; k++) {
          const v = nb.list[u * nb.k + k];
          if (v < 0) break;
          if (st.routeOf[v] !== vb || (allowed !== null && allowed[v * V + va] === 0)) continue;
          this.ssPair(va, vb, i, st.posOf[v], la);
        }
        st.ev.work += kk;
      } else {
        for (let j = 1; j <= lb; j++) {
          const v = rb.nodes[j];
          if (allowed !== null && allowed[v * V + va] === 0) continue;
          this.ssPair(va, vb, i, j, la);
        }
        st.ev.work += lb;
      }
    }
    // evaluate the most promising candidates exactly (feasibility can fail under time windows)
    const n = this.top.n;
    const ti = this.top.data;
    for (let q = 0; q < n; q++) {
      const i = ti[q * 4], j = ti[q * 4 + 1], posV = ti[q * 4 + 2], posU = ti[q * 4 + 3];
      const u = ra.nodes[i], v = rb.nodes[j];
      this.buildSwapStar(this.A, va, i, v, posV);
      this.buildSwapStar(this.B, vb, j, u, posU);
      if (this.attempt(va, vb)) return true;
    }
    return false;
  }

  /** Route v with the job at position i removed and job w inserted after position p (or in its place when p = -2). */
  private buildSwapStar(P: Pieces, v: number, i: number, w: number, p: number): void {
    const r = this.st.routes[v];
    P.clear();
    if (p === -2) { P.range(v, 0, i - 1).node(w).range(v, i + 1, r.len); return; }
    if (p < i) P.range(v, 0, p).node(w).range(v, p + 1, i - 1).range(v, i + 1, r.len);
    else P.range(v, 0, i - 1).range(v, i + 1, p).node(w).range(v, p + 1, r.len);
  }
}

/** The k smallest keys offered since `clear()`, sorted ascending (ties keep the offer order), each with `width` ints. */
export class TopK {
  readonly key: Float64Array;
  readonly data: Int32Array;
  n = 0;
  constructor(readonly k: number, readonly width: number) {
    this.key = new Float64Array(k);
    this.data = new Int32Array(k * width);
  }
  clear(): void {
    this.n = 0;
  }
  offer(d: number, a: number, b = 0, c = 0, e = 0): void {
    const k = this.k, w = this.width;
    let i: number;
    if (this.n === k) {
      if (d >= this.key[k - 1]) return;
      i = k - 1;
    } else i = this.n++;
    while (i > 0 && this.key[i - 1] > d) {
      this.key[i] = this.key[i - 1];
      for (let q = 0; q < w; q++) this.data[i * w + q] = this.data[(i - 1) * w + q];
      i--;
    }
    this.key[i] = d;
    const o = i * w;
    this.data[o] = a;
    if (w > 1) this.data[o + 1] = b;
    if (w > 2) this.data[o + 2] = c;
    if (w > 3) this.data[o + 3] = e;
  }
}
