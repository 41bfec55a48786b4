/**
 * `npm start`: the main job on the embedded Monaco extract. Builds the dataset on first run
 * (data/monaco-latest.dkds), then answers sample requests: CalculateDistance, a travel matrix,
 * Geocode, a Dispatch, and a CalculateRoute with directions whose map it writes next to the dataset.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { Engine } from '../../engine.js';
import { buildDatasetFile } from '../../dataset/build.js';
import { Dataset } from '../../dataset/dataset.js';
import { closeBacking } from '../../core/binfile.js';
import { isEngineError } from '../../core/errors.js';
import { WorkerPool } from '../../workers/pool.js';
import { DistanceResultSchema, type Location } from '../../records/index.js';
import { ProgressPrinter } from '../progress.js';
import { PACKAGE_ROOT } from '../io.js';
import { directionsText, svgOfDataUrl } from './route.js';

export const DEMO_PLACES: { name: string; lat: number; lon: number }[] = [
  { name: 'Casino de Monte-Carlo', lat: 43.7395, lon: 7.428 },
  { name: 'Palais Princier', lat: 43.7314, lon: 7.42 },
  { name: 'Port Hercule', lat: 43.735, lon: 7.4225 },
  { name: 'Stade Louis II', lat: 43.7276, lon: 7.4155 },
  { name: 'Jardin Exotique', lat: 43.7311, lon: 7.4135 },
  { name: 'Plage du Larvotto', lat: 43.745, lon: 7.4365 },
  { name: 'Gare de Monaco', lat: 43.739, lon: 7.42 },
];

function fmtDuration(s: number): string {
  const m = Math.floor(s / 60);
  return m > 0 ? `${m} min ${String(Math.round(s % 60)).padStart(2, '0')} s` : `${Math.round(s)} s`;
}

/**
 * Why the demo dataset at `path` cannot serve this version (a DatasetFormat message: written by a
 * version with another format, or damaged), or null when every part of it opens.
 */
function unreadable(path: string): string | null {
  try {
    const ds = Dataset.open(path);
    try {
      ds.openAll();
    } finally {
      closeBacking(ds.buffer);
    }
    return null;
  } catch (e) {
    if (isEngineError(e) && e.code === 'DatasetFormat') return e.message;
    throw e;
  }
}

/**
 * The demo dataset (data/monaco-latest.dkds), built from the embedded extract when absent — or
 * built again when it is one an earlier version wrote in another format (it is this package's own
 * cache: a checkout updated in place must not fail on it).
 */
export async function ensureDemoDataset(quiet = false, dataDir = fileURLToPath(new URL('data/', PACKAGE_ROOT))): Promise<string> {
  const path = join(dataDir, 'monaco-latest.dkds');
  const stale = existsSync(path) ? unreadable(path) : 'absent';
  if (stale === null) return path;
  mkdirSync(dataDir, { recursive: true });
  const extract = fileURLToPath(new URL('fixtures/monaco-latest.osm.pbf', PACKAGE_ROOT));
  process.stderr.write(stale === 'absent'
    ? `Building the demo dataset from ${extract} (first run only) …\n`
    : `The demo dataset cannot be read by this version (${stale}); building it again from ${extract} …\n`);
  const progress = new ProgressPrinter(process.stderr, quiet);
  const pool = new WorkerPool({ threads: 2 });
  try {
    const r = await buildDatasetFile(extract, path, { executor: pool, onProgress: progress.onProgress });
    progress.end();
    process.stderr.write(`Built ${path} in ${(r.totalMs / 1000).toFixed(1)} s.\n\n`);
  } finally {
    await pool.close();
  }
  return path;
}

export const demoCommand: Command = {
  name: 'demo',
  summary: 'The main job on the embedded Monaco extract: build the dataset if absent, answer sample requests',
  usage: 'dispatchkit demo [--data <dataset.dkds>]',
  options: [{ flag: '--data <dataset.dkds>', description: 'answer on this dataset instead', default: 'data/monaco-latest.dkds, built from the embedded extract on first run' }],
  examples: ['dispatchkit demo'],
  async run(argv) {
    const { values } = parseArgs({ args: argv, options: { data: { type: 'string' } } });
    const path = values.data ?? (await ensureDemoDataset());
    const t0 = performance.now();
    const engine = await Engine.open(path);
    const loadMs = performance.now() - t0;
    const out: string[] = [];
    const m = engine.dataset.meta;
    out.push(`dispatchkit — ${m.name}: ${m.counts.nodes.toLocaleString('en-US')} junctions, ${m.counts.arcs.toLocaleString('en-US')} road arcs (loaded in ${loadMs.toFixed(0)} ms)`);
    out.push(`Map data ${m.attribution}`);
    out.push('');

    // 1. CalculateDistance, records in and out.
    const [a, b] = [DEMO_PLACES[0], DEMO_PLACES[3]];
    const spec = {
      StartLocation: { Name: a.name, LatLong: { Latitude: a.lat, Longitude: a.lon } },
      FinishLocation: { Name: b.name, LatLong: { Latitude: b.lat, Longitude: b.lon } },
      DistanceUnit: 'Kilometer',
      RouteOptimize: 'MinimizeTime',
    };
    const t1 = performance.now();
    const r = engine.calculateDistance(spec);
    const us = (performance.now() - t1) * 1000;
    out.push(`CalculateDistance: ${a.name} → ${b.name}`);
    if (r.Status === 'Success') {
      out.push(`  ${r.Distance.toFixed(2)} km, ${fmtDuration(r.Time)} by the fastest path (answered in ${us.toFixed(0)} µs)`);
    } else {
      out.push(`  ${r.Status}: ${r.Errors?.map((e) => e.Message).join('; ')}`);
    }
    out.push(`  DistanceResult: ${JSON.stringify(DistanceResultSchema.encode(r, { enums: 'name' }))}`);
    out.push('');

    // 2. A travel matrix between the sample places.
    const places = DEMO_PLACES.map((p, i) => engine.placeLocation({ Name: p.name, LatLong: { Latitude: p.lat, Longitude: p.lon } } as Location, `places[${i}]`));
    const mx = await engine.travelMatrix(places, { metric: 'time' });
    // Columns are lettered like the rows, so no name is cut.
    const letter = (i: number): string => String.fromCharCode(65 + i);
    out.push('Travel times by car, minutes (rows: from, columns: to)');
    out.push(''.padEnd(28) + DEMO_PLACES.map((_, j) => letter(j).padStart(6)).join(''));
    DEMO_PLACES.forEach((p, i) => {
      const cells = DEMO_PLACES.map((_, j) => (mx.timeS[i * mx.size + j] / 60).toFixed(1).padStart(6));
      out.push(`${letter(i)}  ${p.name}`.padEnd(28) + cells.join(''));
    });
    out.push('');

    // 3. Geocode messy addresses.
    const queries = [
      { Street: 'bd des moulins 12', City: 'monaco' },
      { Street: 'Avenue Princesse Grce', PostalCode: '98000' },
      { Street: 'Rue Grimaldi', City: 'Monte Carlo' },
    ];
    const g = await engine.geocode({ Addresses: queries, IsNeedMatchCode: true });
    out.push('Geocode (best candidate per address)');
    g.Items?.forEach((it, i) => {
      const best = it.Locations?.[0];
      const q = `${queries[i].Street}, ${queries[i].City ?? queries[i].PostalCode}`;
      out.push(best?.LatLong
        ? `  ${q.padEnd(38)} → ${best.Address?.Street ?? '?'}, ${best.Address?.City ?? ''} (${best.LatLong.Latitude.toFixed(5)}, ${best.LatLong.Longitude.toFixed(5)}) ${best.MatchCode}`
        : `  ${q.padEnd(38)} → not found`);
    });
    out.push('');

    // 4. A small dispatch: the sample places as stops, two vans from the palace.
    const depot = { Name: 'Depot (Palais)', LatLong: { Latitude: DEMO_PLACES[1].lat, Longitude: DEMO_PLACES[1].lon } };
    const d = await engine.dispatch({
      CurrentTime: '2026-12-01T09:00:00',
      DistanceUnit: 'Kilometer',
      Vehicles: [
        { Name: 'Van 1', MaxWeight: 10, StartLocation: depot, FinishLocation: depot },
        { Name: 'Van 2', MaxWeight: 10, StartLocation: depot, FinishLocation: depot },
      ],
      Locations: DEMO_PLACES.filter((_, i) => i !== 1).map((p, i) => ({
        Name: p.name, LatLong: { Latitude: p.lat, Longitude: p.lon }, Weight: 3, Wait: 300,
        ...(i === 0 ? { CanArriveEarly: false, TimeConstraintArrival: '2026-12-01T10:00:00', TimeConstraintDeparture: '2026-12-01T10:30:00' } : {}),
      })),
    }, { seed: 1 });
    out.push(`Dispatch: ${DEMO_PLACES.length - 1} stops (3 units each, 5 min service; the Casino only 10:00-10:30), 2 vans of 10 units → ${d.Status}`);
    for (const it of d.Items ?? []) {
      const stops = it.Locations ?? [];
      const km = stops.reduce((a, l) => a + l.Distance, 0);
      out.push(`  ${it.Vehicle?.Name}: ${stops.map((l) => `${l.Name} ${l.TimeEstimatedArrival.slice(11, 16)}`).join(' → ')}  (${km.toFixed(1)} km)`);
    }
    for (const e of d.Errors ?? []) out.push(`  ! ${e.Message}`);
    out.push('');

    // 5. Turn-by-turn directions with a map.
    const [from, to] = [DEMO_PLACES[0], DEMO_PLACES[4]];
    const rr = await engine.calculateRoute({
      Locations: [from, to].map((p) => ({ Name: p.name, LatLong: { Latitude: p.lat, Longitude: p.lon } })),
      RouteOptions: { DistanceUnit: 'Kilometer', Culture: 'en-US', MapSize: { Width: 800, Height: 600 } },
    });
    out.push(`CalculateRoute: ${from.name} → ${to.name} → ${rr.Status}`);
    if (rr.Route) {
      out.push(...directionsText(rr, 'en-US', 'Kilometer').slice(2).map((l) => `  ${l}`));
      if (rr.Route.Map) {
        const mapPath = join(dirname(path), 'demo-route.svg');
        writeFileSync(mapPath, svgOfDataUrl(rr.Route.Map));
        out.push(`  Map of the route (SVG, offline): ${mapPath}`);
      }
    }
    for (const e of rr.Errors ?? []) out.push(`  ! ${e.Message}`);
    out.push('');
    out.push('Next: `dispatchkit --help` for build, distance, dispatch, geocode, route, check and solve (`dispatchkit <command> --help` for each).');
    process.stdout.write(out.join('\n') + '\n');
    await engine.close();
    return EXIT.ok;
  },
};
