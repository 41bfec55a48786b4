/**
 * Regions for SingleRegion and MultipleRegion (docs/dispatch-modes.md): every stop gets the
 * skill of one region and every vehicle the skills of its regions, so the solver keeps each
 * stop in its region; stops a region cannot take (capacity, shifts, limits) are set free for a
 * second solve ({@link relaxRegions}).
 *
 * - MultipleRegion ('nearest'): a region per distinct vehicle start (else end) place; a stop goes
 *   to the region of the vehicle nearest to it by travel time (start → stop, or stop → end).
 * - SingleRegion ('clusters'): one compact region per vehicle, with balanced sizes. Vehicles at
 *   different places: each keeps the stops nearest to it by travel time (at most ⌈1.2·J/V⌉).
 *   Vehicles at a few depots, several at some: stops to the nearest depot (up to twice its
 *   vehicles' share), then pie slices around each depot, one per vehicle there.
 *   Vehicles sharing a depot: sectors around the depot — the stops sorted by bearing from it,
 *   cut at the widest empty angle, then into V runs of ⌊J/V⌋ or ⌈J/V⌉ (pie slices, whose hulls
 *   do not overlap); without coordinates, balanced k-medoids on the travel-time matrix.
 *
 * Pure functions on the solver's input (records are mapped already); deterministic. "Nearest"
 * is by travel time, read from the matrix the dispatch has: no spatial index answers that (a
 * nearest-by-distance lookup would put about a quarter of Porto's stops in another region, and
 * is slower than the scan: bench/README.md, "Spatial indexes").
 */
import { UNREACHABLE, type VrpInput, type VrpStop, type VrpVehicle } from '../../vrp/model.js';

export type RegionKind = 'nearest' | 'clusters';

const REGION = 'region:';
/** Vehicle places closer than this (seconds, there and back) are one depot. */
const SAME_PLACE_S = 60;
/** Size bound of a SingleRegion cluster, relative to J/V. */
const CLUSTER_SLACK = 1.2;
/**
 * Size bound of a depot's share in SingleRegion's mixed case, relative to its vehicles' share of J:
 * loose, since a tighter one sends stops from beside one depot to the vans of another, across the
 * first one's territory (Andorra, two depots: 47 % of stops inside another van's hull at 1.2).
 */
const DEPOT_SLACK = 2;

function timeMatrix(input: VrpInput): ArrayLike<number> {
  const t = input.time as ArrayLike<number> | ReadonlyArray<ArrayLike<number>>;
  return typeof (t as ArrayLike<number>)[0] === 'number' || (t as ArrayLike<number>).length === 0 ? (t as ArrayLike<number>) : (t as ReadonlyArray<ArrayLike<number>>)[0];
}

/** Travel time a → b, Infinity when unreachable. */
function tt(m: ArrayLike<number>, n: number, a: number, b: number): number {
  const x = m[a * n + b];
  return x >= 0 && x < UNREACHABLE ? x : Infinity; // negative, non-finite or the rounded matrices' unreachable
}

/** Cost of serving `place` from a vehicle (its start → the stop, else the stop → its end). */
function reach(m: ArrayLike<number>, n: number, v: VrpVehicle, place: number): number {
  if (v.start !== undefined) return tt(m, n, v.start, place);
  if (v.end !== undefined) return tt(m, n, place, v.end);
  return 0;
}

/** Gives every stop a region skill and every vehicle its regions' skills; returns the region of each stop. */
export function assignRegions(input: VrpInput, kind: RegionKind, coords?: ReadonlyArray<{ lat: number; lon: number } | undefined>): number[] {
  const m = timeMatrix(input);
  const n = input.places;
  const stops = input.stops as VrpStop[];
  const vehicles = input.vehicles as VrpVehicle[];
  const V = vehicles.length;
  if (V < 2 || stops.length === 0) return stops.map(() => 0);
  const region = kind === 'nearest' ? nearestRegions(m, n, stops, vehicles) : clusterRegions(m, n, stops, vehicles, coords);
  const vehRegions: Set<number>[] = vehicles.map(() => new Set<number>());
  if (kind === 'nearest') {
    const key = vehicleRegionKeys(m, n, vehicles);
    vehicles.forEach((_, v) => {
      // A vehicle with neither start nor end serves every region.
      if (key[v] < 0) for (const r of new Set(region)) vehRegions[v].add(r);
      else vehRegions[v].add(key[v]);
    });
  } else vehicles.forEach((_, v) => vehRegions[v].add(v));
  stops.forEach((s, i) => {
    if (s.vehicle !== undefined) return; // pre-assigned: its vehicle decides, not a region
    stops[i] = { ...s, skills: [...(s.skills ?? []), `${REGION}${region[i]}`] };
  });
  vehicles.forEach((ve, v) => {
    vehicles[v] = { ...ve, skills: [...(ve.skills ?? []), ...[...vehRegions[v]].map((r) => `${REGION}${r}`)] };
  });
  return region;
}

/** Removes the region skill of the given stops (they may then go to any vehicle). */
export function relaxRegions(input: VrpInput, stopIdx: Iterable<number>): void {
  const stops = input.stops as VrpStop[];
  for (const i of stopIdx) {
    const s = stops[i];
    if (s?.skills) stops[i] = { ...s, skills: s.skills.filter((k) => !(typeof k === 'string' && k.startsWith(REGION))) };
  }
}

/**
 * The region key of each vehicle for MultipleRegion: its start (else end) place, vehicles at one
 * place (≤ {@link SAME_PLACE_S} apart there and back; separate Locations at one depot are
 * separate places) sharing the first one's; -1 for a vehicle with neither.
 */
export function vehicleRegionKeys(m: ArrayLike<number>, n: number, vehicles: VrpVehicle[]): number[] {
  const keys: number[] = [];
  vehicles.forEach((v, i) => {
    const p = v.start ?? v.end;
    if (p === undefined) { keys.push(-1); return; }
    for (let j = 0; j < i; j++) {
      const q = keys[j];
      if (q >= 0 && tt(m, n, p, q) + tt(m, n, q, p) <= SAME_PLACE_S) { keys.push(q); return; }
    }
    keys.push(p);
  });
  return keys;
}

/** MultipleRegion: region = the region key of the nearest vehicle. */
function nearestRegions(m: ArrayLike<number>, n: number, stops: VrpStop[], vehicles: VrpVehicle[]): number[] {
  const keys = vehicleRegionKeys(m, n, vehicles);
  return stops.map((s) => {
    let best = -1;
    let bestT = Infinity;
    vehicles.forEach((v, k) => {
      if (keys[k] < 0) return;
      const t = reach(m, n, v, s.place);
      if (t < bestT) { bestT = t; best = keys[k]; }
    });
    return best < 0 ? Math.max(0, keys.find((x) => x >= 0) ?? 0) : best;
  });
}

/** SingleRegion: balanced k-medoids (k = V) on travel time; region r belongs to vehicle r. */
function clusterRegions(m: ArrayLike<number>, n: number, stops: VrpStop[], vehicles: VrpVehicle[], coords?: ReadonlyArray<{ lat: number; lon: number } | undefined>): number[] {
  const J = stops.length;
  const V = vehicles.length;
  const k = Math.min(V, J);
  const starts0 = vehicles.map((v) => v.start ?? v.end ?? -1);
  // Vehicles at one place (separate Locations at the same depot are separate places): ≤ 1 min apart both ways.
  const near = (a: number, b: number) => a >= 0 && b >= 0 && tt(m, n, a, b) + tt(m, n, b, a) <= SAME_PLACE_S;
  const shared = starts0.every((s) => near(starts0[0], s));
  if (shared && coords) {
    const sectors = sectorRegions(stops, k, coords, starts0[0]);
    if (sectors) return sectors;
  }
  /** Symmetrised travel time (mean of both directions when both exist). */
  const d2 = (a: number, b: number) => {
    const x = tt(m, n, a, b), y = tt(m, n, b, a);
    return Number.isFinite(x) && Number.isFinite(y) ? (x + y) / 2 : Math.min(x, y);
  };
  if (!shared && coords) {
    const byDepot = depotRegions(m, n, stops, vehicles, coords, d2);
    if (byDepot) return byDepot;
  }
  const starts = starts0;
  const scattered = starts.every((a, i) => a >= 0 && starts.every((b, j) => i === j || !near(a, b)));
  // Seeds (places): the vehicles' own places when they all differ; else farthest-first, starting
  // with the stop farthest from the depot.
  let seeds: number[];
  if (scattered) seeds = starts.slice(0, k);
  else {
    const depot = starts.find((s) => s >= 0);
    seeds = [];
    const dmin = new Float64Array(J).fill(Infinity);
    if (depot !== undefined) for (let i = 0; i < J; i++) dmin[i] = d2(depot, stops[i].place);
    for (let c = 0; c < k; c++) {
      let far = -1;
      for (let i = 0; i < J; i++) if (dmin[i] >= 0 && (far < 0 || dmin[i] > dmin[far])) far = i;
      seeds.push(stops[far].place);
      dmin[far] = -1;
      for (let i = 0; i < J; i++) {
        if (dmin[i] < 0) continue;
        const d = d2(stops[far].place, stops[i].place);
        dmin[i] = c === 0 ? d : Math.min(dmin[i], d);
      }
    }
  }
  const cap = Math.ceil((CLUSTER_SLACK * J) / k);
  let region = new Array<number>(J).fill(0);
  for (let iter = 0; iter < 8; iter++) {
    region = balancedAssign(stops, seeds, cap, d2);
    if (scattered) break; // the vehicles' places stay the centres
    // New medoid per cluster: the member minimising the sum of travel times to the others.
    let moved = false;
    for (let c = 0; c < k; c++) {
      const members = region.map((r, i) => (r === c ? i : -1)).filter((i) => i >= 0);
      if (members.length === 0) continue;
      const sample = members.length > 200 ? members.filter((_, x) => x % Math.ceil(members.length / 200) === 0) : members;
      let best = seeds[c];
      let bestSum = Infinity;
      for (const i of sample) {
        let sum = 0;
        for (const j of members) sum += d2(stops[i].place, stops[j].place);
        if (sum < bestSum) { bestSum = sum; best = stops[i].place; }
      }
      if (best !== seeds[c]) { seeds[c] = best; moved = true; }
    }
    if (!moved) break;
  }
  return region;
}

/**
 * SingleRegion with vehicles at a few depots, several at some (the mixed case): the stops go to
 * the nearest depot with room (sizes up to {@link DEPOT_SLACK} × its vehicles' share),
 * then each depot's stops into pie slices around it, one per vehicle there. Region = the vehicle's
 * index. null when a vehicle has no place or a coordinate is missing, or every depot has one vehicle.
 */
function depotRegions(m: ArrayLike<number>, n: number, stops: VrpStop[], vehicles: VrpVehicle[], coords: ReadonlyArray<{ lat: number; lon: number } | undefined>, d: (a: number, b: number) => number): number[] | null {
  const keys = vehicleRegionKeys(m, n, vehicles);
  if (keys.some((x) => x < 0)) return null;
  const groups = new Map<number, number[]>();
  keys.forEach((x, v) => groups.set(x, [...(groups.get(x) ?? []), v]));
  const list = [...groups.entries()];
  if (list.every(([, g]) => g.length === 1)) return null;
  const J = stops.length, V = vehicles.length;
  const group = balancedAssign(stops, list.map(([place]) => place), list.map(([, g]) => Math.ceil((DEPOT_SLACK * J * g.length) / V)), d);
  const region = new Array<number>(J).fill(0);
  for (let gi = 0; gi < list.length; gi++) {
    const [place, vs] = list[gi];
    const members = group.map((x, i) => (x === gi ? i : -1)).filter((i) => i >= 0);
    if (members.length === 0) continue;
    const sectors = vs.length === 1 ? members.map(() => 0) : sectorRegions(members.map((i) => stops[i]), Math.min(vs.length, members.length), coords, place);
    if (!sectors) return null;
    members.forEach((i, x) => { region[i] = vs[sectors[x]]; });
  }
  return region;
}

/** Pie slices around the depot place (null when a coordinate is missing). */
function sectorRegions(stops: VrpStop[], k: number, coords: ReadonlyArray<{ lat: number; lon: number } | undefined>, depot: number): number[] | null {
  const c = coords[depot];
  if (!c) return null;
  const J = stops.length;
  const ang: number[] = [];
  const kx = Math.cos((c.lat * Math.PI) / 180);
  for (const s of stops) {
    const p = coords[s.place];
    if (!p) return null;
    ang.push(Math.atan2(p.lat - c.lat, (p.lon - c.lon) * kx));
  }
  const order = ang.map((_, i) => i).sort((a, b) => ang[a] - ang[b] || a - b);
  // Start after the widest angular gap, so that no sector straddles a crowded direction.
  let startAt = 0;
  let widest = -1;
  for (let x = 0; x < J; x++) {
    const a = ang[order[x]];
    const b = x + 1 < J ? ang[order[x + 1]] : ang[order[0]] + 2 * Math.PI;
    if (b - a > widest) { widest = b - a; startAt = (x + 1) % J; }
  }
  const region = new Array<number>(J).fill(0);
  for (let x = 0; x < J; x++) region[order[(startAt + x) % J]] = Math.min(k - 1, Math.floor((x * k) / J));
  return region;
}

/** Each stop to the nearest seed with room (pairs in order of travel time; ties by index); `cap` per seed or for all. */
function balancedAssign(stops: VrpStop[], seeds: number[], cap: number | readonly number[], d: (a: number, b: number) => number): number[] {
  const J = stops.length;
  const k = seeds.length;
  const pairs: [number, number, number][] = [];
  for (let i = 0; i < J; i++) for (let c = 0; c < k; c++) pairs.push([d(seeds[c], stops[i].place), i, c]);
  pairs.sort((x, y) => x[0] - y[0] || x[1] - y[1] || x[2] - y[2]);
  const region = new Array<number>(J).fill(-1);
  const size = new Array<number>(k).fill(0);
  for (const [, i, c] of pairs) {
    if (region[i] >= 0 || size[c] >= (typeof cap === 'number' ? cap : cap[c])) continue;
    region[i] = c;
    size[c]++;
  }
  for (let i = 0; i < J; i++) if (region[i] < 0) region[i] = 0;
  return region;
}
