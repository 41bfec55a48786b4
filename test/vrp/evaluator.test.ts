/**
 * The O(1) concatenation evaluator must agree with a from-scratch recomputation (independent
 * code below) on the cost and the feasibility of every candidate route, for random instances
 * with every constraint kind and random moves of every shape.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Rng } from '../../src/core/rng.js';
import { buildProblem, exactCheckStops, type Problem, type VrpInput } from '../../src/vrp/model.js';
import { loadOnly, Pieces } from '../../src/vrp/evaluator.js';
import { State } from '../../src/vrp/state.js';
import { Insertion } from '../../src/vrp/insertion.js';
import { buildNeighbours } from '../../src/vrp/neighbours.js';
import { regretInsert } from '../../src/vrp/construct.js';
import { packingInstance, randomInstance } from './gen.js';
import { validateSolution } from '../../src/vrp/validate.js';

/** Reference: cost of visiting `jobs` with vehicle v. */
function refCost(pb: Problem, v: number, jobs: number[]): number {
  if (jobs.length === 0) return 0;
  const C = pb.cost[pb.vProfile[v]];
  const N = pb.N;
  let prev = pb.vStartPl[v];
  let c = 0;
  for (const u of jobs) {
    const a = pb.jStop0[u], b = pb.jStop1[u];
    c += C[prev * N + pb.sPlace[a]];
    prev = pb.sPlace[a];
    if (b >= 0) { c += C[prev * N + pb.sPlace[b]]; prev = pb.sPlace[b]; }
  }
  c += C[prev * N + pb.vEndPl[v]];
  return pb.vCostMul[v] * c + pb.vFixed[v];
}

/** Reference feasibility of visiting `jobs` with vehicle v (walks stops one by one). */
function refFeasible(pb: Problem, v: number, jobs: number[]): boolean {
  const K = pb.K;
  if (pb.allowed) for (const u of jobs) if (!pb.allowed[u * pb.V + v]) return false;
  const reload = (u: number): boolean => pb.jStop1[u] < 0 && pb.jReset[u] === 1;
  let nst = 0;
  for (const u of jobs) nst += pb.jStop1[u] >= 0 ? 2 : reload(u) ? 0 : 1;
  if (nst > pb.vMaxStops[v]) return false;
  // pairs
  const pos = new Map<number, number>();
  jobs.forEach((u, i) => pos.set(u, i));
  for (const u of jobs) {
    const m = pb.jMate[u];
    if (m < 0) continue;
    if (!pos.has(m)) return false;
    if (pb.jPairRole[u] === 1 && pos.get(m)! < pos.get(u)!) return false;
  }
  // keep order
  let last = -1;
  for (const u of jobs) if (pb.jKeep[u] >= 0) { if (pb.jKeep[u] < last) return false; last = pb.jKeep[u]; }
  // no pair open across a reload point
  let openPairs = 0;
  for (const u of jobs) {
    if (reload(u) && openPairs > 0) return false;
    if (pb.jPairRole[u] === 1) openPairs++;
    else if (pb.jPairRole[u] === 2) openPairs--;
  }
  // loads: stop by stop; at a reload point the vehicle is emptied and loaded for the stops up to the next one
  const need = (from: number, k: number): number => {
    let q = 0;
    for (let i = from; i < jobs.length && !reload(jobs[i]); i++) {
      const u = jobs[i];
      if (pb.jPairRole[u] === 0 && pb.jStop1[u] < 0) q += pb.sDemand[pb.jStop0[u] * K + k];
    }
    return q;
  };
  for (let k = 0; k < K; k++) {
    const cap = pb.vCap[v * K + k];
    let load = need(0, k);
    if (load > cap) return false;
    for (const [i, u] of jobs.entries()) {
      if (reload(u)) {
        load = need(i + 1, k);
        if (load > cap) return false;
      } else if (pb.jStop1[u] >= 0) {
        const q = pb.sDemand[pb.jStop0[u] * K + k] + pb.sDemand[pb.jStop1[u] * K + k];
        if (load + q > cap) return false;
      } else if (pb.jPairRole[u] === 1) {
        load += pb.sDemand[pb.jStop0[u] * K + k] + pb.sDemand[pb.jStop0[pb.jMate[u]] * K + k];
        if (load > cap) return false;
      } else if (pb.jPairRole[u] === 2) {
        load -= pb.sDemand[pb.jStop0[u] * K + k] + pb.sDemand[pb.jStop0[pb.jMate[u]] * K + k];
      } else load -= pb.sDemand[pb.jStop0[u] * K + k];
    }
  }
  const seq: number[] = [];
  for (const u of jobs) { seq.push(pb.jStop0[u]); if (pb.jStop1[u] >= 0) seq.push(pb.jStop1[u]); }
  return exactCheckStops(pb, v, seq) === 'ok';
}

function materialize(st: State, P: Pieces): number[] {
  const out = new Int32Array(st.pb.J + 2);
  const n = st.ev.jobsOf(P, out);
  return Array.from(out.subarray(0, n));
}

/**
 * A random candidate route for a random vehicle (returned; -1 = none drawn): its own route with a
 * job inserted, a range removed or reversed, a job after its suffix, or ranges of another route.
 */
function randomCandidate(st: State, rng: Rng, P: Pieces): number {
  const pb = st.pb;
  const v = rng.int(pb.V), w = rng.int(pb.V);
  const ra = st.routes[v], rb = st.routes[w];
  const a = rng.int(ra.len + 1);
  const b = a + rng.int(ra.len - a + 1);
  const c = 1 + rng.int(Math.max(1, rb.len));
  const d = c + rng.int(Math.max(1, rb.len - c + 1));
  const u = rng.int(pb.J);
  P.clear();
  const shape = rng.int(6);
  if (shape === 5 && a < ra.len) P.range(v, 0, a).range(v, a + 1, ra.len).node(u); // a job after a suffix
  else if (shape === 0) P.range(v, 0, a).node(u).range(v, a + 1, ra.len);
  else if (shape === 1) P.range(v, 0, a).range(v, b + 1, ra.len);
  else if (shape === 2 && rb.len > 0 && w !== v) P.range(v, 0, a).range(w, c, Math.min(d, rb.len));
  else if (shape === 3 && b > a) P.range(v, 0, a).rev(v, a + 1, b).range(v, b + 1, ra.len);
  else if (rb.len > 0 && w !== v) P.range(v, 0, a).range(w, c, Math.min(d, rb.len)).range(v, a + 1, ra.len);
  else return -1;
  return v;
}

describe('evaluator', () => {
  it('agrees with a from-scratch recomputation on random moves', () => {
    let nOk = 0, nBad = 0, nMulti = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (seed) => {
        const input = randomInstance(seed);
        const pb = buildProblem(input);
        const st = new State(pb);
        const nb = buildNeighbours(pb, 8, st.excluded);
        regretInsert(st, new Insertion(st, nb, 8), true);
        const rng = new Rng(seed);
        const P = new Pieces();
        let checked = 0;
        for (let t = 0; t < 60; t++) {
          // random candidate: pieces from up to two routes plus unassigned or routed jobs
          const v = rng.int(pb.V);
          const w = rng.int(pb.V);
          const ra = st.routes[v], rb = st.routes[w];
          P.clear();
          const shape = rng.int(6);
          const a = rng.int(ra.len + 1);
          const b = a + rng.int(ra.len - a + 1);
          const c = 1 + rng.int(Math.max(1, rb.len));
          const d = c + rng.int(Math.max(1, rb.len - c + 1));
          const u = rng.int(pb.J);
          if (st.excluded[u]) continue;
          if (shape === 0) P.range(v, 0, a).node(u).range(v, a + 1, ra.len);
          else if (shape === 1) P.range(v, 0, a).range(v, b + 1, ra.len);
          else if (shape === 2 && rb.len > 0 && w !== v) P.range(v, 0, a).range(w, c, Math.min(d, rb.len));
          else if (shape === 3 && b > a) P.range(v, 0, a).rev(v, a + 1, b).range(v, b + 1, ra.len);
          else if (shape === 4 && rb.len > 0 && w !== v) P.range(v, 0, a).range(w, c, Math.min(d, rb.len)).range(v, a + 1, ra.len);
          else P.node(u);
          const jobs = materialize(st, P);
          if (new Set(jobs).size !== jobs.length) continue; // a job twice is not a real move
          expect(st.ev.cost(v, P)).toBe(refCost(pb, v, jobs));
          const ok = st.ev.check(v, P);
          const ref = refFeasible(pb, v, jobs);
          if (ok !== ref) throw new Error(`seed ${seed}: evaluator says ${ok}, reference ${ref} for vehicle ${v} jobs ${jobs} (reason ${st.ev.reason})`);
          checked++;
          if (ok) nOk++; else nBad++;
          if (ok && jobs.some((x) => pb.nMulti[x])) nMulti++;
        }
        return checked >= 0;
      }),
      { numRuns: 150, seed: 4242 },
    );
    // both outcomes (and feasible routes through two-window stops) were exercised
    expect(nOk).toBeGreaterThan(200);
    expect(nBad).toBeGreaterThan(200);
    expect(nMulti).toBeGreaterThan(10);
  });

  it('agrees with the recomputation with reload points (MidwayDrop) in the routes', () => {
    let nOk = 0, nBad = 0, withReload = 0;
    for (let seed = 1; seed <= 120; seed++) {
      const input = randomInstance(seed, { reloads: 2, reloadCopies: 3, stops: [6, 16] });
      const pb = buildProblem(input);
      const st = new State(pb);
      // routes: random sequences that include reload jobs, kept only when feasible (routes are materialised feasible)
      const rng = new Rng(seed);
      for (let v = 0; v < pb.V; v++) {
        const jobs: number[] = [];
        for (let u = 0; u < pb.J; u++) if (st.routeOf[u] < 0 && !st.excluded[u] && pb.jPairRole[u] === 0 && rng.chance(0.5)) jobs.push(u);
        for (let i = jobs.length - 1; i > 0; i--) { const j = rng.int(i + 1); [jobs[i], jobs[j]] = [jobs[j], jobs[i]]; }
        while (jobs.length > 0 && !refFeasible(pb, v, jobs)) jobs.pop();
        if (jobs.length > 0) st.setRoute(v, Int32Array.from(jobs), jobs.length);
      }
      const P = new Pieces();
      for (let t = 0; t < 80; t++) {
        const v = randomCandidate(st, rng, P);
        if (v < 0) continue;
        const jobs = materialize(st, P);
        if (new Set(jobs).size !== jobs.length || jobs.some((x) => st.excluded[x])) continue;
        const ok = st.ev.check(v, P);
        const ref = refFeasible(pb, v, jobs);
        if (ok !== ref) throw new Error(`seed ${seed}: evaluator says ${ok}, reference ${ref} for vehicle ${v} jobs ${jobs} (reason ${st.ev.reason})`);
        if (ok) nOk++; else nBad++;
        if (ok && jobs.some((x) => pb.jReset[x]) && jobs.some((x) => !pb.jReset[x])) withReload++;
      }
    }
    expect(nOk).toBeGreaterThan(300);
    expect(nBad).toBeGreaterThan(300);
    expect(withReload).toBeGreaterThan(100);
  });

  it('loads alone: the O(pieces) check gives the generic walk\'s answer, reason and work units', () => {
    let nOk = 0, nBad = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const input = randomInstance(seed, { rich: false, pWindow: 0, pPair: 0, pSkill: 0, pPre: 0, pKeep: 0, stops: [6, 24] });
      for (const st of input.stops) delete st.windows; // deadlines only come with pWindow's else branch
      // its twin: a window on every stop that never binds here, but that a route crossing unreachable
      // arcs could reach, so the evaluator walks the candidates as for any problem with windows
      const twin: VrpInput = { ...input, stops: input.stops.map((st) => ({ ...st, windows: [[0, 5e9]] as [number, number][] })) };
      const pb = buildProblem(input), pt = buildProblem(twin);
      expect(loadOnly(pb)).toBe(true);
      expect(loadOnly(pt)).toBe(false);
      const st = new State(pb), tt = new State(pt);
      regretInsert(st, new Insertion(st, buildNeighbours(pb, 8, st.excluded), 8), true);
      tt.load(st.snapshot());
      const rng = new Rng(seed);
      const P = new Pieces();
      for (let t = 0; t < 80; t++) {
        const v = randomCandidate(st, rng, P);
        if (v < 0) continue;
        const w0 = st.ev.work, t0 = tt.ev.work;
        const ok = st.ev.check(v, P);
        expect(tt.ev.check(v, P)).toBe(ok);
        expect(st.ev.work - w0).toBe(tt.ev.work - t0);
        if (!ok) expect(st.ev.reason).toBe(tt.ev.reason);
        if (ok) nOk++; else nBad++;
      }
    }
    expect(nOk).toBeGreaterThan(300);
    expect(nBad).toBeGreaterThan(300);
  });

  it('takes the loads-only check only where nothing else can fail', () => {
    const base = packingInstance(3, 30);
    expect(loadOnly(buildProblem(base))).toBe(true);
    const withStop = (f: (st: VrpInput['stops'][number], i: number) => object): VrpInput => ({ ...base, stops: base.stops.map((st, i) => ({ ...st, ...f(st, i) })) });
    const cases: [string, VrpInput][] = [
      ['a fractional demand', withStop((_, i) => (i === 4 ? { demand: [2.5] } : {}))],
      ['a window', withStop((_, i) => (i === 4 ? { windows: [[0, 50_000]] } : {}))],
      ['keep-order', withStop((_, i) => (i === 4 ? { keepOrder: true } : {}))],
      ['a pickup/delivery pair', { ...base, pairs: [{ pickup: 1, delivery: 2 }] }],
      ['a shift end', { ...base, vehicles: base.vehicles.map((v) => ({ ...v, shift: [0, 1e6] as [number, number] })) }],
      ['a maximum duration', { ...base, vehicles: base.vehicles.map((v) => ({ ...v, maxDuration: 1e6 })) }],
      ['a maximum of stops', { ...base, vehicles: base.vehicles.map((v) => ({ ...v, maxStops: 9 })) }],
      ['skills', { ...withStop((_, i) => (i === 4 ? { skills: ['lift'] } : {})), vehicles: base.vehicles.map((v, i) => ({ ...v, skills: i % 2 ? ['lift'] : [] })) }],
      ['a break', { ...base, vehicles: base.vehicles.map((v) => ({ ...v, breaks: [{ window: [100, 200] as [number, number], duration: 10 }] })) }],
    ];
    for (const [what, input] of cases) expect(loadOnly(buildProblem(input)), what).toBe(false);
  });

  it('keeps cached routes consistent after edits (rebuild = reference)', () => {
    for (let seed = 1; seed <= 30; seed++) {
      const pb = buildProblem(randomInstance(seed));
      const st = new State(pb);
      const nb = buildNeighbours(pb, 8, st.excluded);
      regretInsert(st, new Insertion(st, nb, 8), true);
      for (const r of st.routes) {
        const jobs = Array.from(r.jobs());
        expect(r.cost).toBe(refCost(pb, r.v, jobs));
        expect(refFeasible(pb, r.v, jobs)).toBe(true);
      }
    }
  });
});

describe('local search fast deltas', () => {
  it('equal the generic evaluation for every move shape (uniform-cost fleets, fixed costs, open routes, multiple depots)', async () => {
    const { LocalSearch } = await import('../../src/vrp/localsearch.js');
    const { solve } = await import('../../src/vrp/solve.js');
    LocalSearch.verify = true;
    LocalSearch.verified = 0;
    try {
      for (let seed = 1; seed <= 40; seed++) {
        const input = randomInstance(seed, { stops: [8, 30], vehicles: [2, 5] });
        input.vehicles = input.vehicles.map((v) => ({ ...v, costFactor: undefined, timeProfile: undefined }));
        const sol = await solve(input, { seed, iterations: 20 });
        expect(validateSolution(input, sol).violations).toEqual([]);
      }
    } finally {
      LocalSearch.verify = false;
    }
    expect(LocalSearch.verified).toBeGreaterThan(5000);
  });
});

describe('TopK (SWAP* candidate list)', () => {
  it('keeps the k smallest offered since clear(), sorted, with their payloads', async () => {
    const { TopK } = await import('../../src/vrp/localsearch.js');
    const top = new TopK(6, 4);
    const rng = new Rng(9);
    for (let round = 0; round < 200; round++) {
      top.clear();
      const offered: [number, number][] = [];
      const m = rng.int(15);
      for (let i = 0; i < m; i++) {
        const d = rng.int(20) - 10;
        offered.push([d, i]);
        top.offer(d, i, i + 1, i + 2, i + 3);
      }
      const want = offered.sort((a, b) => a[0] - b[0] || a[1] - b[1]).slice(0, 6);
      expect(top.n).toBe(want.length);
      for (let q = 0; q < top.n; q++) {
        expect(top.key[q]).toBe(want[q][0]);
        expect(top.data[q * 4]).toBe(want[q][1]);
        expect(top.data[q * 4 + 3]).toBe(want[q][1] + 3);
      }
    }
  });
});
