/**
 * A solution under search: one {@link Route} per vehicle, job → (route, position) maps, the
 * unassigned jobs, and a per-iteration undo log (routes are saved on first change and restored
 * on rejection, so rejecting a ruin-and-recreate step costs only the touched routes).
 *
 * Solutions are compared lexicographically: first by unassigned jobs per priority rank, from
 * the highest rank down (fewer is better), then by cost. Optional jobs (reload points) are never
 * counted.
 */
import type { Problem } from './model.js';
import { Route } from './route.js';
import { Evaluator, type Pieces } from './evaluator.js';

export class State {
  readonly routes: Route[];
  readonly routeOf: Int32Array;
  readonly posOf: Int32Array;
  readonly ev: Evaluator;
  /** Unassigned counts per priority rank. */
  readonly unassigned: Int32Array;
  /** Jobs excluded from the search (infeasible in isolation). */
  readonly excluded: Uint8Array;
  /** Iteration stamp (local search bookkeeping). */
  clock = 1;

  // undo log
  private readonly saved: (Int32Array | null)[];
  private readonly savedLen: Int32Array;
  private readonly savedList: number[] = [];
  private logging = false;
  private logId = 0;
  private readonly savedAt: Int32Array;
  private readonly buf: Int32Array;
  private readonly buf2: Int32Array;

  /** Vehicles of each class, ascending. */
  readonly classVehicles: Int32Array[];
  private readonly hint: Int32Array;
  private readonly classIndex: Int32Array;

  constructor(readonly pb: Problem) {
    const cv: number[][] = Array.from({ length: pb.nClasses }, () => []);
    for (let v = 0; v < pb.V; v++) cv[pb.vClass[v]].push(v);
    this.classVehicles = cv.map((l) => Int32Array.from(l));
    this.hint = new Int32Array(pb.nClasses);
    this.classIndex = new Int32Array(pb.V);
    for (const l of cv) l.forEach((v, i) => { this.classIndex[v] = i; });
    this.routes = [];
    for (let v = 0; v < pb.V; v++) this.routes.push(new Route(pb, v));
    for (const r of this.routes) r.rebuild();
    this.routeOf = new Int32Array(pb.J).fill(-1);
    this.posOf = new Int32Array(pb.J).fill(-1);
    this.ev = new Evaluator(pb, this.routes);
    this.unassigned = new Int32Array(pb.R);
    this.excluded = new Uint8Array(pb.J);
    for (let j = 0; j < pb.J; j++) {
      if (pb.jInfeasible[j] >= 0) this.excluded[j] = 1;
      else if (!pb.jOptional[j]) this.unassigned[pb.jPrio[j]]++;
    }
    this.saved = new Array(pb.V).fill(null);
    this.savedLen = new Int32Array(pb.V);
    this.savedAt = new Int32Array(pb.V);
    this.buf = new Int32Array(pb.J + 2);
    this.buf2 = new Int32Array(pb.J + 2);
  }

  /** The lowest-numbered empty vehicle of class c, or -1. */
  emptyVehicle(c: number): number {
    const list = this.classVehicles[c];
    for (let i = this.hint[c]; i < list.length; i++) if (this.routes[list[i]].len === 0) { this.hint[c] = i; return list[i]; }
    this.hint[c] = list.length;
    return -1;
  }

  /** Keeps the empty-vehicle hint valid: every vehicle of the class before the hint is in use. */
  private changed(v: number): void {
    this.ev.work += 2 * this.routes[v].len + 4;
    if (this.routes[v].len === 0) {
      const c = this.pb.vClass[v];
      const i = this.classIndex[v];
      if (i < this.hint[c]) this.hint[c] = i;
    }
  }

  totalCost(): number {
    let c = 0;
    for (const r of this.routes) c += r.cost;
    return c;
  }

  countUnassigned(): number {
    let n = 0;
    for (let i = 0; i < this.unassigned.length; i++) n += this.unassigned[i];
    return n;
  }

  /** Compares unassigned profiles: <0 when a is better (fewer unassigned at the highest differing rank). */
  static compareUnassigned(a: Int32Array, b: Int32Array): number {
    for (let i = a.length - 1; i >= 0; i--) if (a[i] !== b[i]) return a[i] - b[i];
    return 0;
  }

  // ------------------------------------------------------------------ undo log
  beginLog(): void {
    this.logging = true;
    this.logId++;
    this.savedList.length = 0;
  }

  private save(v: number): void {
    if (!this.logging || this.savedAt[v] === this.logId) return;
    this.savedAt[v] = this.logId;
    const r = this.routes[v];
    let s = this.saved[v];
    if (s === null || s.length < r.len) s = this.saved[v] = new Int32Array(Math.max(8, r.len * 2));
    s.set(r.nodes.subarray(1, r.len + 1));
    this.savedLen[v] = r.len;
    this.savedList.push(v);
  }

  /** Accept: drop the log. */
  commit(): void {
    this.logging = false;
    this.savedList.length = 0;
  }

  /** Reject: restore every route changed since beginLog. */
  rollback(): void {
    const pb = this.pb;
    for (const v of this.savedList) {
      const r = this.routes[v];
      for (let i = 1; i <= r.len; i++) { const u = r.nodes[i]; this.routeOf[u] = -1; this.posOf[u] = -1; }
    }
    for (const v of this.savedList) {
      const r = this.routes[v];
      const s = this.saved[v]!;
      r.setJobs(s, this.savedLen[v], this.routeOf, this.posOf);
      r.stamp = ++this.clock;
      this.changed(v);
    }
    // recount unassigned
    this.unassigned.fill(0);
    for (let j = 0; j < pb.J; j++) if (this.routeOf[j] < 0 && !this.excluded[j] && !pb.jOptional[j]) this.unassigned[pb.jPrio[j]]++;
    this.logging = false;
    this.savedList.length = 0;
  }

  touched(): readonly number[] {
    return this.savedList;
  }

  // ------------------------------------------------------------------ edits
  /** Sets route v's jobs (each given job must be unassigned or already in route v). */
  setRoute(v: number, jobs: ArrayLike<number>, len: number): void {
    this.save(v);
    const r = this.routes[v];
    const pb = this.pb;
    const routeOf = this.routeOf;
    for (let i = 1; i <= r.len; i++) routeOf[r.nodes[i]] = -2;
    for (let i = 0; i < len; i++) {
      const u = jobs[i];
      if (routeOf[u] === -1 && !pb.jOptional[u]) this.unassigned[pb.jPrio[u]]--;
      routeOf[u] = -3;
    }
    for (let i = 1; i <= r.len; i++) {
      const u = r.nodes[i];
      if (routeOf[u] === -2) { routeOf[u] = -1; this.posOf[u] = -1; if (!pb.jOptional[u]) this.unassigned[pb.jPrio[u]]++; }
    }
    r.setJobs(jobs, len, routeOf, this.posOf);
    r.stamp = ++this.clock;
    this.changed(v);
  }

  /** Inserts job u into route v after position p. */
  insert(u: number, v: number, p: number): void {
    const r = this.routes[v];
    const b = this.buf;
    let n = 0;
    for (let i = 1; i <= p; i++) b[n++] = r.nodes[i];
    b[n++] = u;
    for (let i = p + 1; i <= r.len; i++) b[n++] = r.nodes[i];
    this.setRoute(v, b, n);
  }

  /** Removes the jobs at positions of route v flagged in `drop` (by job id). */
  removeJobs(v: number, drop: Uint8Array): void {
    const r = this.routes[v];
    const b = this.buf;
    let n = 0;
    for (let i = 1; i <= r.len; i++) { const u = r.nodes[i]; if (!drop[u]) b[n++] = u; }
    this.setRoute(v, b, n);
  }

  /** Applies a move: candidate pieces for route va (and vb). Pieces are materialised before either route changes. */
  apply(va: number, A: Pieces, vb = -1, B: Pieces | null = null): void {
    const na = this.ev.jobsOf(A, this.buf);
    let nb = 0;
    if (vb >= 0 && B) nb = this.ev.jobsOf(B, this.buf2);
    if (vb >= 0 && B) {
      // Clear both first so that jobs moving between the two routes are not counted as unassigned.
      this.save(va);
      this.save(vb);
      const ra = this.routes[va], rb = this.routes[vb];
      ra.setJobs(this.buf, na, this.routeOf, this.posOf);
      rb.setJobs(this.buf2, nb, this.routeOf, this.posOf);
      ra.stamp = ++this.clock;
      rb.stamp = this.clock;
      this.changed(va);
      this.changed(vb);
    } else {
      this.setRoute(va, this.buf, na);
    }
  }

  /** Snapshot of all routes (for keeping the best solution). */
  snapshot(): Int32Array[] {
    return this.routes.map((r) => r.nodes.slice(1, r.len + 1));
  }

  /** Restores a snapshot (full rebuild). */
  load(snap: Int32Array[]): void {
    const pb = this.pb;
    this.routeOf.fill(-1);
    this.posOf.fill(-1);
    for (let v = 0; v < pb.V; v++) {
      this.routes[v].setJobs(snap[v], snap[v].length, this.routeOf, this.posOf);
      this.routes[v].stamp = ++this.clock;
      this.changed(v);
    }
    this.unassigned.fill(0);
    for (let j = 0; j < pb.J; j++) if (this.routeOf[j] < 0 && !this.excluded[j] && !pb.jOptional[j]) this.unassigned[pb.jPrio[j]]++;
  }
}
