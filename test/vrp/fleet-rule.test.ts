/**
 * Where the fleet minimisation runs (search.ts `fewerVehiclesPay`, issue #26 item 6): only where
 * fewer vehicles pay — MinimumVehicles, vehicles that all carry a fixed cost that matters, or
 * instances defined vehicles first (Solomon, Gehring & Homberger) — never on a plain dispatch, nor
 * because of the small fixed costs that keep a vehicle's trips in order.
 */
import { describe, expect, it } from 'vitest';
import { buildProblem, type VrpInput } from '../../src/vrp/model.js';
import { defaultParams, fewerVehiclesPay } from '../../src/vrp/search.js';
import { parseSolomon } from '../../src/vrp/io/solomon.js';
import { buildDispatchInput } from '../../src/ops/dispatch/index.js';
import { Rng } from '../../src/core/rng.js';
import type { DispatchSpecificationInput } from '../../src/records/index.js';
import { ll, planeSetup } from '../helpers/plane.js';
import { randomInstance } from './gen.js';

const phase = (input: VrpInput): number => defaultParams(buildProblem(input)).fleetPhase;
const withFixed = (input: VrpInput, f: (v: number) => number): VrpInput => ({ ...input, vehicles: input.vehicles.map((ve, v) => ({ ...ve, fixedCost: f(v) })) });

/** 1,000 stops around a depot on the flat plane, 10 vehicles. */
function planeSpec(extra: Partial<DispatchSpecificationInput> = {}, vehicle: Record<string, unknown> = {}): DispatchSpecificationInput {
  const rng = new Rng(26);
  const depot = { Name: 'Depot', LatLong: ll(41.15, -8.61) };
  return {
    RouteOptimize: 'MinimizeTime',
    Vehicles: Array.from({ length: 10 }, (_, v) => ({ Name: `V${v}`, StartLocation: depot, FinishLocation: depot, ...vehicle })),
    Locations: Array.from({ length: 1000 }, (_, i) => ({ Name: `S${i}`, LatLong: ll(41.15 + (rng.next() - 0.5) * 0.1, -8.61 + (rng.next() - 0.5) * 0.1), Wait: 120 })),
    ...extra,
  } as DispatchSpecificationInput;
}

function dispatchInput(raw: DispatchSpecificationInput): VrpInput {
  const { spec, travel } = planeSetup(raw);
  const built = buildDispatchInput(spec, travel);
  if ('issues' in built) throw new Error(JSON.stringify(built.issues));
  return built.input;
}

describe('fleet minimisation: where fewer vehicles pay', () => {
  const big = randomInstance(4402, { stops: [1100, 1101], vehicles: [10, 12], rich: false, pPair: 0 });

  it('fixed costs: on when every vehicle pays at least a mean depot leg, off for token costs or a free vehicle', () => {
    expect(buildProblem(big).J).toBeGreaterThanOrEqual(1000);
    expect(phase(big)).toBe(0);
    expect(phase(withFixed(big, () => 1000))).toBe(0.5);
    expect(phase(withFixed(big, () => 1))).toBe(0); // a tie-break, not a reason to empty routes (mean leg ≈ 50 here)
    expect(phase(withFixed(big, (v) => (v === 0 ? 0 : 1000)))).toBe(0);
    // the yardstick scales with the cost factor
    const costly = { ...big, vehicles: big.vehicles.map((ve) => ({ ...ve, costFactor: 100, fixedCost: 1000 })) };
    expect(phase(costly)).toBe(0);
    // an instance defined vehicles first, whatever its costs
    expect(phase({ ...big, vehiclesFirst: true })).toBe(0.5);
    expect(fewerVehiclesPay(buildProblem({ ...big, vehiclesFirst: true }))).toBe(true);
  });

  it('Solomon and Gehring & Homberger files are read as defined vehicles first (on from 1,000 customers)', () => {
    const rng = new Rng(7);
    const rows = ['    0     250     250       0        0     1824       0'];
    for (let c = 1; c <= 1000; c++) {
      const a = rng.int(1500);
      rows.push(`${c} ${rng.int(500)} ${rng.int(500)} ${1 + rng.int(40)} ${a} ${a + 100 + rng.int(200)} 10`);
    }
    const text = ['gh_like', '', 'VEHICLE', 'NUMBER     CAPACITY', '  250          200', '', 'CUSTOMER',
      'CUST NO.  XCOORD.   YCOORD.    DEMAND   READY TIME  DUE DATE   SERVICE TIME', '', ...rows].join('\n');
    const inst = parseSolomon(text);
    expect(inst.input.vehiclesFirst).toBe(true);
    expect(inst.input.vehicles.every((v) => !v.fixedCost)).toBe(true); // the objective stays distance
    expect(phase(inst.input)).toBe(0.5);
  });

  it('dispatch of 1,000 stops: off for a plain dispatch and for trips, on for MinimumVehicles', () => {
    const plain = dispatchInput(planeSpec());
    expect(plain.stops.length).toBeGreaterThanOrEqual(1000);
    expect(phase(plain)).toBe(0);

    const fewest = dispatchInput(planeSpec({ DispatchMode: 'MinimumVehicles' }));
    expect(fewest.vehicles.every((v) => (v.fixedCost ?? 0) > 0)).toBe(true);
    expect(phase(fewest)).toBe(0.5);

    // trips: later trips carry a small fixed cost to keep them in order; the first ones none
    const trips = dispatchInput(planeSpec({}, { MaxStops: 60 }));
    expect(trips.vehicles.length).toBeGreaterThan(10);
    expect(trips.vehicles.some((v) => (v.fixedCost ?? 0) > 0)).toBe(true);
    expect(phase(trips)).toBe(0);
    // trips under MinimumVehicles: every trip is a vehicle that pays
    expect(phase(dispatchInput(planeSpec({ DispatchMode: 'MinimumVehicles' }, { MaxStops: 60 })))).toBe(0.5);
  });
});
