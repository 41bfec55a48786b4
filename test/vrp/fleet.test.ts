/**
 * Fleet minimisation (search.ts, `fleetPhase`): the first share of a large search empties routes
 * one by one (SISR's absence counters), then every vehicle opens again. On by default from 1,000
 * jobs when the objective is a sum of arc costs; forced on small instances here.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { buildProblem } from '../../src/vrp/model.js';
import { capacityFloor, defaultParams, Search } from '../../src/vrp/search.js';
import { assemble, fleetPhaseFor, solve, WORK_PER_MS, WORK_SHARE } from '../../src/vrp/solve.js';
import { validateSolution } from '../../src/vrp/validate.js';
import { parseVrplib } from '../../src/vrp/io/vrplib.js';
import { parseSolomon } from '../../src/vrp/io/solomon.js';
import { packingInstance as packing, randomInstance } from './gen.js';

const FIX = new URL('../../fixtures/vrp/', import.meta.url).pathname;
const used = (routes: Int32Array[]): number => routes.filter((r) => r.length > 0).length;

describe('fleet minimisation', () => {
  it('empties routes on R101: fewer vehicles than the same search without it, every customer served, the plan valid', async () => {
    const inst = parseSolomon(readFileSync(FIX + 'R101.txt', 'utf8'));
    const run = (fleetPhase: number): { built: number; final: number; unassigned: number } => {
      const pb = buildProblem(inst.input);
      const s = new Search(pb, { ...defaultParams(pb), fleetPhase, fleetRetry: 0.1, ejectRate: 0 }, 3);
      s.setBudget({ iterations: 3000 });
      s.construct();
      const built = used(s.best);
      s.runSlice(Infinity);
      const r = s.result('iterations');
      return { built, final: used(r.routes), unassigned: r.unassigned.reduce((a, b) => a + b, 0) };
    };
    const plain = run(0), fleet = run(0.8);
    expect(fleet.built).toBe(plain.built);
    expect(fleet.final).toBeLessThan(plain.final); // 19 vehicles against 20 (21 built)
    expect(fleet.unassigned).toBe(0);
    const sol = await solve(inst.input, { seed: 3, iterations: 3000, params: { fleetPhase: 0.8, fleetRetry: 0.1, ejectRate: 0 } });
    expect(validateSolution(inst.input, sol, { exact: inst.exact }).violations).toEqual([]);
    expect(sol.unassigned).toEqual([]);
  });

  it("leaves the problem's own allowed sets untouched and opens every vehicle again after the phase", () => {
    for (let seed = 1; seed <= 6; seed++) {
      const input = randomInstance(4100 + seed, { stops: [60, 90], vehicles: [4, 7], pSkill: 0.3 });
      const pb = buildProblem(input);
      const before = pb.allowed === null ? null : pb.allowed.slice();
      const s = new Search(pb, { ...defaultParams(pb), fleetPhase: 0.5 }, seed);
      s.setBudget({ iterations: 400 });
      s.construct();
      s.runSlice(Infinity);
      expect(pb.allowed === null ? null : Array.from(pb.allowed)).toEqual(before === null ? null : Array.from(before));
      expect(s.pb.allowed === null ? null : Array.from(s.pb.allowed)).toEqual(before === null ? null : Array.from(before));
    }
  });

  it('random instances with every constraint: valid plans, never more left out than without the phase', async () => {
    for (let seed = 1; seed <= 12; seed++) {
      const input = randomInstance(4200 + seed, { stops: [40, 80], vehicles: [3, 6] });
      const a = await solve(input, { seed, iterations: 300, params: { fleetPhase: 0.5 } });
      expect(validateSolution(input, a).violations, `seed ${seed}`).toEqual([]);
      const b = await solve(input, { seed, iterations: 300, params: { fleetPhase: 0 } });
      expect(a.unassigned.length, `seed ${seed}`).toBeLessThanOrEqual(b.unassigned.length + 1);
    }
  });

  it('is on by default from 1,000 jobs only where fewer vehicles pay, and never with a balancing objective', () => {
    const small = buildProblem({ ...randomInstance(4301, { stops: [50, 60], vehicles: [3, 4] }), vehiclesFirst: true });
    expect(defaultParams(small).fleetPhase).toBe(0);
    const bigInput = randomInstance(4302, { stops: [1200, 1201], vehicles: [10, 12], rich: false, pPair: 0 });
    const big = buildProblem({ ...bigInput, vehiclesFirst: true });
    expect(big.J).toBeGreaterThanOrEqual(1000);
    expect(defaultParams(big).fleetPhase).toBeGreaterThan(0);
    big.pureArcObjective = false;
    expect(defaultParams(big).fleetPhase).toBe(0);
    // the same instance where a vehicle costs nothing: off
    expect(defaultParams(buildProblem(bigInput)).fleetPhase).toBe(0);
  });

  it('runs only on long budgets: G&H 1000 at 300 s keeps it; a 10,000-stop dispatch in 115 s, 1,000 stops at 20 s or MinimumOptimization 4 do not; iterations alone keep it', () => {
    const work = (ms: number): { work: number } => ({ work: Math.round(ms * WORK_SHARE * WORK_PER_MS) });
    expect(fleetPhaseFor(0.5, work(300_000), 1000)).toBe(0.5);
    expect(fleetPhaseFor(0.5, work(115_000), 10_000)).toBe(0);
    expect(fleetPhaseFor(0.5, work(140_000), 5000)).toBe(0);
    expect(fleetPhaseFor(0.5, work(20_000), 1000)).toBe(0);
    expect(fleetPhaseFor(0.5, { iterations: 20_000, work: 8700 * WORK_PER_MS }, 1000)).toBe(0);
    expect(fleetPhaseFor(0.5, { iterations: 3000 }, 1000)).toBe(0.5);
    // a wall-clock deadline alone: its remaining time per job
    expect(fleetPhaseFor(0.5, { deadlineAt: 1_000 + 200_000 }, 1000, 1_000)).toBe(0.5);
    expect(fleetPhaseFor(0.5, { deadlineAt: 1_000 + 50_000 }, 1000, 1_000)).toBe(0);
    expect(fleetPhaseFor(0, work(300_000), 1000)).toBe(0);
  });

  it('ejection insertion: the open job left open most often goes in for one left open less often, the plan stays feasible and as full', () => {
    let ejections = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const input = seed <= 6 ? packing(5100 + seed, 120) : randomInstance(5100 + seed, { stops: [50, 80], vehicles: [3, 6], pPair: 0 });
      const pb = buildProblem(input);
      const s = new Search(pb, { ...defaultParams(pb), fleetPhase: 1, ejectRate: 0 }, seed);
      s.setBudget({ iterations: 200 });
      s.construct();
      s.runSlice(Infinity); // fleet minimisation only: a route shut, its jobs open
      const t = s as unknown as { st: { routeOf: Int32Array; excluded: Uint8Array; routes: { len: number; nodes: Int32Array }[] }; absence: Float64Array | null; ejectInsert(abs: Float64Array): boolean };
      const abs = t.absence;
      if (abs === null) continue;
      const open = (): number[] => { const o: number[] = []; for (let u = 0; u < pb.J; u++) if (t.st.routeOf[u] < 0 && !t.st.excluded[u] && !pb.jOptional[u]) o.push(u); return o; };
      const before = open();
      if (before.length === 0) continue;
      // (stats of a cancelled solve: the open jobs are reported as they are, no last insertion tries)
      const stats = { seed, workers: 1, iterations: 0, work: 0, improvements: 0, seconds: 0, stoppedBy: 'cancelled', bestWorker: 0, perWorker: [] };
      const planOf = (): ReturnType<typeof assemble> => assemble(pb, (t.st as unknown as { snapshot(): Int32Array[] }).snapshot(), stats);
      const openStops = planOf().unassigned.length;
      for (let k = 0; k < 5; k++) {
        const o0 = open();
        const sum0 = o0.reduce((a, u) => a + abs[u], 0);
        const top = o0.filter((u) => pb.jPairRole[u] === 0).reduce((a, u) => (a < 0 || abs[u] > abs[a] ? u : a), -1);
        if (!t.ejectInsert(abs)) break;
        ejections++;
        const o1 = open();
        expect(o1.length, `seed ${seed}`).toBe(o0.length);
        expect(o1.includes(top), `seed ${seed}: the most absent job went in`).toBe(false);
        expect(o1.reduce((a, u) => a + abs[u], 0), `seed ${seed}`).toBeLessThan(sum0);
        for (const u of o1) abs[u]++;
      }
      // every route still feasible: the plan as it stands (open jobs left out) passes the independent checker
      const plan = planOf();
      expect(validateSolution(input, plan).violations, `seed ${seed}`).toEqual([]);
      expect(plan.unassigned.length, `seed ${seed}`).toBe(openStops);
    }
    expect(ejections).toBeGreaterThanOrEqual(4);
  });

  it('ends at the floor: a plan on as few routes as the loads allow has nothing left to empty', () => {
    const input = packing(5201, 40, 0); // small jobs only: the construction fills routes to the floor
    const pb = buildProblem(input);
    const s = new Search(pb, { ...defaultParams(pb), fleetPhase: 1, ejectRate: 0.3 }, 1); // a phase as long as the search: only the floor ends it
    s.setBudget({ iterations: 300 });
    s.construct();
    s.runSlice(Infinity);
    const floor = capacityFloor(pb);
    const r = s.result('iterations');
    expect(used(r.routes)).toBe(floor);
    expect((s as unknown as { fleetState: number }).fleetState).toBe(2); // over (1: still emptying routes)
    // the floor: the summed delivered amount over the capacity, with every vehicle alike
    const x = parseVrplib(readFileSync(FIX + 'X-n101-k25.vrp', 'utf8'));
    expect(capacityFloor(buildProblem(x.input))).toBe(25); // the k of X-n101-k25
    const mixed = { ...x.input, vehicles: x.input.vehicles.map((v, i) => ({ ...v, capacity: [i % 2 ? 100 : 120] })) };
    expect(capacityFloor(buildProblem(mixed))).toBe(1);
  });
});
