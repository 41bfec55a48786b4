/**
 * `dispatchkit route`: CalculateRoute on a dataset, printed as readable turn-by-turn directions
 * (or the record with --json), with the map written as SVG or PNG and the route as GeoJSON.
 */
import { writeFileSync } from 'node:fs';
import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { Engine } from '../../engine.js';
import { METRES_PER_MILE } from '../../core/units.js';
import { routeResultToGeoJson } from '../../ops/geojson.js';
import { OPERATIONS } from '../../ops/table.js';
import { RouteSpecificationSchema, type RouteResult } from '../../records/index.js';
import { svgToPng } from '../../render/index.js';
import { distanceText, resolveCulture, type Culture } from '../../route/text/index.js';
import { checkOutputPath, DATA_OPTION, NAMES_OPTION, parseCommandArgs, printJson, QUIET_OPTION, readJson } from '../io.js';

const USAGE = 'dispatchkit route --data <dataset.dkds> <spec.json|-> [--culture de-DE] [--svg out.svg] [--png out.png] [--geojson out.json] [--map-size 800x600] [--json [--names]]';

type Raw = Record<string, unknown>;
const isObject = (x: unknown): x is Raw => !!x && typeof x === 'object' && !Array.isArray(x);

/** `1 h 05 min`, `9 min`, `40 s`. */
export function formatDuration(s: number): string {
  if (s < 60) return `${Math.round(s)} s`;
  const m = Math.round(s / 60);
  return m >= 60 ? `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min` : `${m} min`;
}

const SEVERITY_MARK: Record<string, string> = { None: 'i', LowImpact: 'i', Minor: '!', Moderate: '!!', Serious: '!!!' };

/** The route as lines of text: a summary, then each leg's numbered steps with distances, warnings and hints. */
export function directionsText(r: RouteResult, culture: Culture, unit: 'Mile' | 'Kilometer'): string[] {
  const route = r.Route;
  if (!route) return [];
  const metres = (d: number) => (unit === 'Mile' ? d * METRES_PER_MILE : d * 1000);
  const legs = route.RouteLegs ?? [];
  const out = [`Route: ${distanceText(metres(route.Distance), culture, unit)}, ${formatDuration(route.Time)} (${legs.length + 1} stops)`];
  legs.forEach((leg, i) => {
    out.push('', `Leg ${i + 1}: stop ${i + 1} → stop ${i + 2} — ${distanceText(metres(leg.Distance), culture, unit)}, ${formatDuration(leg.Time)}`);
    const items = leg.Itinerary?.Items ?? [];
    const w = String(items.length).length;
    items.forEach((it, k) => {
      const dist = k === items.length - 1 ? '' : `  (${distanceText(metres(it.Distance), culture, unit)})`;
      out.push(`  ${String(k + 1).padStart(w)}. ${it.Text ?? ''}${dist}`);
      for (const x of it.Warnings ?? []) out.push(`  ${' '.repeat(w)}  ${SEVERITY_MARK[String(x.Severity)] ?? '!'} ${x.Text ?? ''}`);
      for (const h of it.Hints ?? []) out.push(`  ${' '.repeat(w)}  · ${h.Text ?? ''}`);
    });
  });
  return out;
}

/** The SVG inside a `data:image/svg+xml;base64,…` URL. */
export function svgOfDataUrl(url: string): string {
  const i = url.indexOf('base64,');
  return Buffer.from(url.slice(i + 7), 'base64').toString('utf8');
}

export const routeCommand: Command = {
  name: 'route',
  summary: 'CalculateRoute: turn-by-turn directions through locations in the given order, with a map (RouteSpecification JSON)',
  usage: USAGE,
  options: [
    { flag: '-d, --data <dataset.dkds>', description: 'the dataset to answer on (built with `dispatchkit build`)' },
    { flag: '--culture <tag>', description: 'language of the directions: en-US, de-DE, fr-FR, es-ES, it-IT (overrides RouteOptions.Culture)', default: 'the specification\'s, else en-US' },
    { flag: '--svg <file>', description: 'write the route map as SVG' },
    { flag: '--png <file>', description: 'write the route map as PNG (rendered offline with resvg)' },
    { flag: '--map-size <WxH>', description: 'map size in pixels when the specification has no MapSize', default: '800x600' },
    { flag: '--geojson <file>', description: 'write the route (legs and maneuvers as features) as GeoJSON' },
    { flag: '--json', description: 'print the RouteResult record instead of directions' },
    { flag: '--names', description: 'with --json: enum values as names (Success) instead of the contract\'s integers (1)' },
    { flag: '-q, --quiet', description: 'no notes on stderr' },
  ],
  examples: [
    'dispatchkit route --data data/monaco-latest.dkds route.json',
    'dispatchkit route --data data/monaco-latest.dkds route.json --culture fr-FR --svg route.svg --png route.png --geojson route.geojson',
    'cat route.json | dispatchkit route --data data/monaco-latest.dkds - --json --names',
  ],
  async run(argv) {
    const { values, positionals } = parseCommandArgs(argv, {
      ...DATA_OPTION, ...NAMES_OPTION, ...QUIET_OPTION,
      culture: { type: 'string' }, svg: { type: 'string' }, png: { type: 'string' }, geojson: { type: 'string' },
      'map-size': { type: 'string' }, json: { type: 'boolean' },
    });
    if (!values.data || positionals.length !== 1) {
      process.stderr.write(`Usage: ${USAGE}\n`);
      return EXIT.usage;
    }
    let size: [number, number] = [800, 600];
    if (values['map-size'] !== undefined) {
      const m = /^(\d+)x(\d+)$/i.exec(values['map-size']);
      if (!m) {
        process.stderr.write(`--map-size must be WIDTHxHEIGHT in pixels, e.g. 800x600 (got ${values['map-size']})\n`);
        return EXIT.usage;
      }
      size = [Number(m[1]), Number(m[2])];
    }
    for (const [flag, path] of [['--svg', values.svg], ['--png', values.png], ['--geojson', values.geojson]] as const) {
      if (path !== undefined) checkOutputPath(path, flag);
    }
    const spec = readJson(positionals[0]);
    if (isObject(spec)) {
      // Field names bind case-insensitively: an option set here replaces the spec's own, however spelt.
      const key = Object.keys(spec).find((k) => k.toLowerCase() === 'routeoptions');
      const o: Raw = { ...(key && isObject(spec[key]) ? (spec[key] as Raw) : {}) };
      if (key) delete spec[key];
      const drop = (name: string) => {
        for (const k of Object.keys(o)) if (k.toLowerCase() === name) delete o[k];
      };
      if (values.culture !== undefined) {
        drop('culture');
        o.Culture = values.culture;
      }
      const hasSize = Object.keys(o).some((k) => k.toLowerCase() === 'mapsize');
      if ((values.svg !== undefined || values.png !== undefined) && !hasSize) o.MapSize = { Width: size[0], Height: size[1] };
      spec.RouteOptions = o;
    }
    const engine = await Engine.open(values.data);
    try {
      const r = await engine.calculateRoute(spec);
      if (values.json) printJson(OPERATIONS.CalculateRoute.result.encode(r, { enums: values.names ? 'name' : 'int' }));
      else if (r.Status === 'Failed') {
        process.stdout.write(`Failed: ${(r.Errors ?? []).map((e) => e.Message).join('; ')}\n`);
      } else {
        // The unit and culture as the operation read them (the record parser's reading of the spec).
        const parsed = RouteSpecificationSchema.safeParse(spec);
        const o = parsed.ok ? parsed.value.RouteOptions : undefined;
        const unit = o?.DistanceUnit ?? 'Mile';
        const culture = resolveCulture(o?.Culture).culture;
        for (const e of r.Errors ?? []) if (!values.quiet) process.stderr.write(`note: ${e.Message}\n`);
        process.stdout.write(directionsText(r, culture, unit).join('\n') + '\n');
      }
      if (r.Status !== 'Failed') {
        const map = r.Route?.Map;
        if ((values.svg !== undefined || values.png !== undefined) && !map) {
          process.stderr.write('No map: RouteOptions.MapSize has a zero Width or Height.\n');
        } else if (map) {
          const svg = svgOfDataUrl(map);
          if (values.svg !== undefined) {
            writeFileSync(values.svg, svg);
            if (!values.quiet) process.stderr.write(`Map written to ${values.svg}\n`);
          }
          if (values.png !== undefined) {
            writeFileSync(values.png, await svgToPng(svg));
            if (!values.quiet) process.stderr.write(`Map written to ${values.png}\n`);
          }
        }
        if (values.geojson !== undefined) {
          writeFileSync(values.geojson, JSON.stringify(routeResultToGeoJson(r)) + '\n');
          if (!values.quiet) process.stderr.write(`GeoJSON written to ${values.geojson}\n`);
        }
      }
      return r.Status === 'Failed' ? EXIT.failed : EXIT.ok;
    } finally {
      await engine.close();
    }
  },
};
