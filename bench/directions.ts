/**
 * CalculateRoute(s) with directions on the Porto dataset (issue #9 targets):
 *
 * 1. CalculateRoute, 2 stops, full itinerary (en-US text, warnings, hints) and geometry, against
 *    CalculateDistance on the same pairs in the same run (benny, ops/s inverted): mean ≤ 1 ms
 *    and ≤ 20× CalculateDistance.
 * 2. The same with an 800×600 map (Route.Map + RouteLeg.Map): median ≤ 30 ms.
 * 3. CalculateRoutes of 100 routes × 5 stops, maps off, on the worker pool (2 threads): ≤ 1 s.
 * 4. Maneuver quality on 200 random routes: no maneuver within 10 m of the previous one except
 *    at roundabouts (depart and arrive are where the stops are, not maneuvers, and are left
 *    out), and no turn-like maneuver where the road merely bends (a junction maneuver at a node
 *    where fewer than three roads meet).
 *
 *   node --import tsx bench/directions.ts            # writes the `directions` section of bench/README.md
 *   node --import tsx bench/directions.ts --print    # prints JSON only
 *
 * Needs bench/out/porto.dkds (`node --import tsx src/cli/main.ts build ../shared/data/osm/porto_portugal.osm.pbf -o bench/out/porto.dkds`).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import b from 'benny';
import { Rng } from '../src/core/rng.js';
import { Engine } from '../src/engine.js';
import { DatasetTravel } from '../src/dataset/travel.js';
import { JunctionIndex } from '../src/route/junctions.js';
import { median, table, writeSection } from './lib/report.js';

const DATASET = fileURLToPath(new URL('out/porto.dkds', import.meta.url));
const print = process.argv.includes('--print');
if (!existsSync(DATASET)) {
  console.error(`bench/directions: ${DATASET} is missing; build it first (see the header of this script). Nothing measured.`);
  process.exit(0);
}

const engine = await Engine.open(DATASET, { threads: 2 });
const ds = engine.dataset;
const bb = ds.meta.bbox;
const rng = new Rng(909);
type LL = { Latitude: number; Longitude: number };
const point = (): LL => ({
  Latitude: bb.minLat + (bb.maxLat - bb.minLat) * (0.2 + 0.6 * rng.next()),
  Longitude: bb.minLon + (bb.maxLon - bb.minLon) * (0.2 + 0.6 * rng.next()),
});
const snaps = (p: LL) => ds.snapper.trySnap(p.Latitude, p.Longitude) !== null;
const pairs: [LL, LL][] = [];
while (pairs.length < 500) {
  const a = point();
  const c = point();
  if (snaps(a) && snaps(c)) pairs.push([a, c]);
}
const routeSpecs = pairs.map(([a, c]) => ({ Locations: [{ LatLong: a }, { LatLong: c }], RouteOptions: { DistanceUnit: 'Kilometer' } }));
const distSpecs = pairs.map(([a, c]) => ({ StartLocation: { LatLong: a }, FinishLocation: { LatLong: c }, DistanceUnit: 'Kilometer' }));

// 1. CalculateRoute vs CalculateDistance (same pairs, same run).
let k1 = 0;
let k2 = 0;
let failed = 0;
let items = 0;
const summary = await b.suite(
  'directions',
  b.add('calculateDistance', () => {
    const r = engine.calculateDistance(distSpecs[k1++ % distSpecs.length]);
    if (r.Status !== 'Success') failed++;
  }),
  b.add('calculateRoute', async () => {
    const r = await engine.calculateRoute(routeSpecs[k2++ % routeSpecs.length]);
    if (r.Status !== 'Success') failed++;
    items += r.Route?.RouteLegs?.[0]?.Itinerary?.Items?.length ?? 0;
  }),
  b.cycle(() => {}),
);
const cdMs = 1000 / summary.results[0].ops;
const crMs = 1000 / summary.results[1].ops;

// 2. With an 800×600 map.
const mapTimes: number[] = [];
let mapBytes = 0;
for (let i = 0; i < 40; i++) {
  const spec = { ...routeSpecs[i], RouteOptions: { DistanceUnit: 'Kilometer', MapSize: { Width: 800, Height: 600 } } };
  const t0 = performance.now();
  const r = await engine.calculateRoute(spec);
  const dt = performance.now() - t0;
  if (i >= 5) mapTimes.push(dt); // the first maps build the backdrop's index
  if (r.Status !== 'Success') failed++;
  mapBytes = Math.max(mapBytes, (r.Route?.Map ?? '').length);
}

// 3. CalculateRoutes, 100 × 5 stops, maps off, on the pool.
const batch = { Specifications: Array.from({ length: 100 }, () => ({ Locations: Array.from({ length: 5 }, () => ({ LatLong: pairs[rng.int(pairs.length)][rng.int(2)] })) })), RoutesOptions: { DistanceUnit: 'Kilometer' } };
await engine.calculateRoutes(batch, { offload: true }); // warm-up: starts the pool, opens the dataset in each thread
const batchTimes: number[] = [];
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  const r = await engine.calculateRoutes(batch, { offload: true });
  batchTimes.push(performance.now() - t0);
  if (r.Status !== 'Success') failed++;
}

// 4. Maneuver quality on 200 routes.
const travel = new DatasetTravel(ds);
const J = JunctionIndex.of(ds.graph);
let routes = 0;
let maneuvers = 0;
let tooClose = 0;
let bends = 0;
const byType: Record<string, number> = {};
const examples: string[] = [];
for (const [a, c] of pairs.slice(0, 200)) {
  const pa = travel.place({ lat: a.Latitude, lon: a.Longitude }, 'a');
  const pc = travel.place({ lat: c.Latitude, lon: c.Longitude }, 'c');
  const r = travel.routePath(pa, pc, { metric: 'time' }, { fromStop: 1, toStop: 2, lastStop: true });
  if (!r.found || !r.steps) continue;
  routes++;
  const steps = r.steps.map((s) => s.maneuver);
  for (let i = 1; i < steps.length - 1; i++) {
    const m = steps[i];
    maneuvers++;
    byType[m.type] = (byType[m.type] ?? 0) + 1;
    const prev = steps[i - 1];
    if (i > 1 && prev.lengthCm < 1000 && m.type !== 'roundabout' && prev.type !== 'roundabout') {
      tooClose++;
      if (examples.length < 5) examples.push(`${prev.type}→${m.type} ${(prev.lengthCm / 100).toFixed(1)} m at ${m.lat.toFixed(5)},${m.lon.toFixed(5)}`);
    }
    if (m.type !== 'name-change' && m.type !== 'roundabout' && m.node !== undefined && J.degree(m.node) < 3) {
      bends++;
      if (examples.length < 10) examples.push(`${m.type} at a bend (node ${m.node}) ${m.lat.toFixed(5)},${m.lon.toFixed(5)}`);
    }
  }
}
await engine.close();

const result = {
  calculateDistanceMs: cdMs, calculateRouteMs: crMs, ratio: crMs / cdMs, itemsPerRoute: items / Math.max(1, k2),
  mapMedianMs: median(mapTimes), mapKB: Math.round((mapBytes * 3) / 4 / 1024),
  routes100x5MedianMs: median(batchTimes), failed,
  quality: { routes, maneuvers, tooClose, bends, byType, examples },
};
if (print) {
  console.log(JSON.stringify(result, null, 2));
} else {
  writeSection('directions', 'Directions: CalculateRoute(s) with itineraries and maps (Porto)', [
    '`node --import tsx bench/directions.ts`. Porto dataset (`bench/out/porto.dkds`), random stops in the middle 60 % of',
    'the bbox that snap, distances in km. CalculateRoute and CalculateDistance run on the same 500 pairs in one benny',
    'suite (mean = 1 / ops/s); the route has its full itinerary (en-US text, warnings, hints) and geometry.',
    '',
    table(['measure', 'figure', 'target'], [
      ['CalculateDistance, mean', `${(cdMs * 1000).toFixed(0)} µs`, ''],
      ['CalculateRoute 2 stops + itinerary + geometry, mean', `**${(crMs * 1000).toFixed(0)} µs**`, '≤ 1 ms'],
      ['ratio CalculateRoute / CalculateDistance', `**${(crMs / cdMs).toFixed(1)}×**`, '≤ 20×'],
      ['itinerary items per route', (items / Math.max(1, k2)).toFixed(1), ''],
      ['CalculateRoute with an 800×600 map (route + leg), median of 35', `**${median(mapTimes).toFixed(1)} ms**`, '≤ 30 ms'],
      ['its SVG, largest (before base64)', `${result.mapKB} KB`, ''],
      ['CalculateRoutes 100 × 5 stops, maps off, 2 threads, median of 5', `**${median(batchTimes).toFixed(0)} ms**`, '≤ 1 s'],
    ]),
    '',
    `Maneuver quality, ${routes} routes, ${maneuvers} maneuvers between depart and arrive (${Object.entries(byType).map(([t, n]) => `${t} ${n}`).join(', ')}):`,
    '',
    table(['check', 'violations'], [
      ['a maneuver within 10 m of the previous one (roundabouts excepted)', `**${tooClose}**`],
      ['a turn-like maneuver where fewer than three roads meet (a bend)', `**${bends}**`],
    ]),
    ...(examples.length ? ['', 'Examples:', ...examples.map((e) => `- ${e}`)] : []),
    ...(failed ? ['', `${failed} calls did not succeed.`] : []),
  ].join('\n'));
  console.log(JSON.stringify(result));
}
