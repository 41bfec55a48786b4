/**
 * Dispatches on a flat plane, for tests of the record mapping and the fleet rules: matrices from
 * the Locations' LatLongs (1° = 100 km, 10 m/s; a place without LatLong is 0 from everything),
 * and every solution through the independent checker (a violation throws).
 */
import { dispatchOnMatrix, dispatchPlaces, type DispatchOptions, type DispatchTravel } from '../../src/ops/dispatch/index.js';
import { DispatchSpecificationSchema, type DispatchResult, type DispatchSpecification, type DispatchSpecificationInput } from '../../src/records/index.js';
import { validateSolution } from '../../src/vrp/validate.js';
import { checkServiceWindows } from '../../src/ops/dispatch/check.js';

export const ll = (lat: number, lon: number) => ({ Latitude: lat, Longitude: lon });

/** Parses a spec (throws on issues) and builds its flat-plane matrices. */
export function planeSetup(raw: DispatchSpecificationInput): { spec: DispatchSpecification; travel: DispatchTravel } {
  const r = DispatchSpecificationSchema.safeParse(raw);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  const spec = r.value;
  const places = dispatchPlaces(spec);
  const n = places.length;
  const time = new Float64Array(n * n);
  const distance = new Float64Array(n * n);
  for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) {
    const pa = places[a].location.LatLong, pb = places[b].location.LatLong;
    const d = pa && pb ? Math.round(Math.hypot(pa.Latitude - pb.Latitude, pa.Longitude - pb.Longitude) * 100_000) : 0;
    distance[a * n + b] = d;
    time[a * n + b] = Math.round(d / 10);
  }
  return { spec, travel: { time, distance } };
}

/** How many solutions the checker has accepted in this process. */
export const checks = { count: 0 };

/**
 * dispatchOnMatrix with every solution checked by the solver's checker (and the caller's
 * onSolution after), and the answer by the contract's window checker.
 */
export async function checkedDispatch(spec: DispatchSpecification, travel: DispatchTravel, opts: DispatchOptions = {}): Promise<DispatchResult> {
  const result = await dispatchOnMatrix(spec, travel, {
    ...opts,
    onSolution: (input, sol) => {
      const rep = validateSolution(input, sol);
      if (!rep.ok) throw new Error(rep.violations.join('; '));
      checks.count++;
      opts.onSolution?.(input, sol);
    },
  });
  const late = checkServiceWindows(result);
  if (late.length > 0) throw new Error(late.join('; '));
  return result;
}

/** A raw spec dispatched on the plane with seed 1 (unless `opts` says otherwise), checked. */
export function dispatchOnPlane(raw: DispatchSpecificationInput, opts: DispatchOptions = {}): Promise<DispatchResult> {
  const { spec, travel } = planeSetup(raw);
  return checkedDispatch(spec, travel, { seed: 1, ...opts });
}
