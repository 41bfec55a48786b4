/**
 * Golden directions: fixed routes on both fixtures, printed as the CLI prints them, in every
 * culture, compared with the files in test/ops/golden/. Any change to maneuvers, wording,
 * distances, warnings or hints shows up as a diff there, to be reviewed by eye.
 *
 *   UPDATE_GOLDEN=1 npx vitest run test/ops/directions-golden.test.ts    # rewrite the files
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { directionsText } from '../../src/cli/commands/route.js';
import { Engine } from '../../src/engine.js';
import { CULTURES } from '../../src/route/text/index.js';
import { fixtureDataset } from '../helpers/datasets.js';

const DIR = new URL('./golden/', import.meta.url).pathname;
const UPDATE = process.env.UPDATE_GOLDEN === '1';

const ROUTES = {
  monaco: [
    { name: 'Casino → Palais → Stade Louis II, km', unit: 'Kilometer', stops: [[43.7395, 7.428], [43.7314, 7.42], [43.7276, 7.4155]] },
    { name: 'Larvotto → Jardin Exotique, miles, shortest', unit: 'Mile', optimize: 'MinimizeDistance', stops: [[43.745, 7.4365], [43.7311, 7.4135]] },
  ],
  andorra: [
    { name: 'Andorra la Vella → Encamp, km', unit: 'Kilometer', stops: [[42.5078, 1.5211], [42.5347, 1.5801]] },
    { name: 'Escaldes → Sant Julià de Lòria, miles', unit: 'Mile', stops: [[42.5092, 1.5389], [42.4637, 1.4913]] },
  ],
} as const;

const engines: Engine[] = [];
afterAll(async () => {
  for (const e of engines) await e.close();
});

describe.each(Object.keys(ROUTES) as (keyof typeof ROUTES)[])('golden directions on %s', (fixture) => {
  it.each([...CULTURES])('%s', async (culture) => {
    const engine = await Engine.open((await fixtureDataset(fixture)).buffer, { threads: 1 });
    engines.push(engine);
    const lines: string[] = [];
    for (const r of ROUTES[fixture]) {
      const spec = {
        Locations: r.stops.map(([Latitude, Longitude]) => ({ LatLong: { Latitude, Longitude } })),
        RouteOptions: { DistanceUnit: r.unit, Culture: culture, RouteOptimize: 'optimize' in r ? r.optimize : 'MinimizeTime' },
      };
      const res = await engine.calculateRoute(spec);
      expect(res.Status, JSON.stringify(res.Errors)).toBe('Success');
      lines.push(`## ${r.name}`, ...directionsText(res, culture, r.unit), '');
    }
    const text = lines.join('\n');
    const file = `${DIR}${fixture}-${culture}.txt`;
    if (UPDATE || !existsSync(file)) {
      mkdirSync(DIR, { recursive: true });
      writeFileSync(file, text);
      if (!UPDATE) throw new Error(`${file} was missing and has been written: review it and run again`);
    }
    expect(text).toBe(readFileSync(file, 'utf8'));
  });
});
