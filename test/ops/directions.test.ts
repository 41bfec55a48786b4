/**
 * CalculateRoute(s) directions and maps on the Monaco fixture: itinerary invariants (property over
 * random stop lists), cultures and their fallback, SVG maps (size, colour, markers, attribution,
 * view), and bad input that fails naming the field.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import type { RouteResult } from '../../src/records/index.js';
import { fixtureDataset } from '../helpers/datasets.js';
import { A, B, C, loc, reachablePool, type LL } from '../helpers/monaco-stops.js';
import { findAll, parseXml, type XmlElement } from '../render/helpers.js';

let engine: Engine;
/** Grid points that snap and reach each other both ways under both metrics. */
let pool: LL[] = [];

beforeAll(async () => {
  engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 2 });
  pool = reachablePool(engine);
});
afterAll(() => engine.close());

const ABC = [loc(A), loc(B), loc(C)];

const SEVERITIES = ['None', 'LowImpact', 'Minor', 'Moderate', 'Serious'];
const HINT_TYPES = ['PreviousIntersection', 'NextIntersection', 'Landmark'];
const SVG_URL = 'data:image/svg+xml;base64,';

const svgOf = (url: string | undefined): string => {
  expect(url).toBeDefined();
  expect(url!.startsWith(SVG_URL)).toBe(true);
  return Buffer.from(url!.slice(SVG_URL.length), 'base64').toString('utf8');
};
/** The texts of the white marker labels (the scale bar and attribution are #333333). */
const markerLabels = (svg: XmlElement): string[] => findAll(svg, 'text').filter((t) => t.attrs.fill === '#ffffff').map((t) => t.text);
/** Route strokes: the 5-px coloured paths drawn over the 8-px white casing. */
const routeStrokes = (svg: XmlElement): { stroke: string; opacity: number }[] => findAll(svg, 'path')
  .filter((p) => p.attrs['stroke-width'] === '5' && p.attrs.stroke !== '#ffffff')
  .map((p) => ({ stroke: p.attrs.stroke, opacity: Number(p.attrs['stroke-opacity']) }));
const texts = (r: RouteResult): string[][] => r.Route!.RouteLegs!.map((l) => l.Itinerary!.Items!.map((i) => i.Text ?? ''));
/** The route's figures without words or maps. */
const figures = (r: RouteResult) => ({
  Distance: r.Route!.Distance, Time: r.Route!.Time, Points: r.Route!.Points,
  legs: r.Route!.RouteLegs!.map((l) => ({
    Distance: l.Distance, Time: l.Time,
    items: l.Itinerary!.Items!.map((i) => ({ Distance: i.Distance, Time: i.Time, LatLong: i.LatLong, w: i.Warnings!.map((w) => w.Severity), h: i.Hints!.map((h) => h.Type) })),
  })),
});

describe('itineraries', () => {
  it('has a usable pool of stops', () => {
    expect(pool.length, JSON.stringify(pool)).toBeGreaterThanOrEqual(6);
  });

  it('random 2–4 stop routes: depart first, arrive last (0, 0), items sum to their leg, lie in the route bbox, warnings and hints well-formed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat(), { minLength: 2, maxLength: 4 }),
        fc.constantFrom('MinimizeTime', 'MinimizeDistance'),
        fc.constantFrom('Mile', 'Kilometer'),
        async (idx, RouteOptimize, DistanceUnit) => {
          const stops = idx.map((i) => pool[i % pool.length]);
          const r = await engine.calculateRoute({ Locations: stops.map(loc), RouteOptions: { RouteOptimize, DistanceUnit } });
          expect(r.Status).toBe('Success');
          expect(r.Errors).toEqual([]);
          const route = r.Route!;
          const pts = route.Points!;
          const lats = pts.map((p) => p.Latitude);
          const lons = pts.map((p) => p.Longitude);
          const [s, n, w, e] = [Math.min(...lats), Math.max(...lats), Math.min(...lons), Math.max(...lons)];
          const legs = route.RouteLegs!;
          expect(legs).toHaveLength(stops.length - 1);
          legs.forEach((leg, li) => {
            const items = leg.Itinerary?.Items ?? [];
            expect(items.length, `leg ${li}`).toBeGreaterThanOrEqual(2);
            expect(items[0].Text).toMatch(/^Head (north|south|east|west|northeast|northwest|southeast|southwest)\b/);
            const last = items[items.length - 1];
            expect(last.Text).toMatch(/^You have arrived (at your destination|at stop \d+)/);
            if (li === legs.length - 1) expect(last.Text).toMatch(/^You have arrived at your destination/);
            else expect(last.Text).toMatch(new RegExp(`^You have arrived at stop ${li + 2}\\b`));
            expect(last.Distance).toBe(0);
            expect(last.Time).toBe(0);
            for (const [k, it] of items.entries()) {
              expect(Number.isInteger(it.Time), `item ${k} Time ${it.Time}`).toBe(true);
              expect(it.Time).toBeGreaterThanOrEqual(0);
              expect(it.Distance).toBeGreaterThanOrEqual(0);
              expect(typeof it.Text === 'string' && it.Text.length > 0).toBe(true);
              const p = it.LatLong!;
              expect(p.Latitude, `item ${k} lat`).toBeGreaterThanOrEqual(s);
              expect(p.Latitude, `item ${k} lat`).toBeLessThanOrEqual(n);
              expect(p.Longitude, `item ${k} lon`).toBeGreaterThanOrEqual(w);
              expect(p.Longitude, `item ${k} lon`).toBeLessThanOrEqual(e);
              for (const x of it.Warnings ?? []) {
                expect(SEVERITIES).toContain(x.Severity);
                expect((x.Text ?? '').trim().length).toBeGreaterThan(0);
              }
              for (const h of it.Hints ?? []) {
                expect(HINT_TYPES).toContain(h.Type);
                expect((h.Text ?? '').trim().length).toBeGreaterThan(0);
              }
            }
            expect(items.reduce((a, it) => a + it.Time, 0)).toBe(leg.Time);
            expect(Math.abs(items.reduce((a, it) => a + it.Distance, 0) - leg.Distance)).toBeLessThanOrEqual(1e-5);
          });
        },
      ),
      { numRuns: 30, seed: 20261124 },
    );
  });

  it('a fixed route has hints of every kind and a tunnel warning (the property above is not vacuous on them)', async () => {
    const r = await engine.calculateRoute({ Locations: ABC });
    const warnings = r.Route!.RouteLegs!.flatMap((l) => l.Itinerary!.Items!.flatMap((i) => i.Warnings!));
    expect(warnings).toContainEqual({ Severity: 'LowImpact', Text: 'Tunnel ahead' });
    const hints = r.Route!.RouteLegs!.flatMap((l) => l.Itinerary!.Items!.flatMap((i) => i.Hints!));
    expect(new Set(hints.map((h) => h.Type))).toEqual(new Set(HINT_TYPES));
    expect(hints.find((h) => h.Type === 'Landmark')!.Text).toMatch(/^Landmark: /);
    expect(hints.find((h) => h.Type === 'NextIntersection')!.Text).toMatch(/^The next intersection is /);
  });
});

describe('cultures', () => {
  let en: RouteResult;
  beforeAll(async () => {
    en = await engine.calculateRoute({ Locations: ABC, RouteOptions: { Culture: 'en-US' } });
  });

  it('en-US is the default and reads in English', async () => {
    expect(en.Status).toBe('Success');
    expect(texts(en)[0][0]).toMatch(/^Head /);
    expect(texts(en)[1].at(-1)).toMatch(/^You have arrived at your destination/);
    const dflt = await engine.calculateRoute({ Locations: ABC });
    expect(dflt).toEqual(en);
  });

  it.each([
    ['de-DE', /fahren$/, /^Sie haben Stopp 2 erreicht/, /^Sie haben Ihr Ziel erreicht/],
    ['fr-FR', /^Dirigez-vous /, /^Vous êtes arrivé à l'arrêt 2/, /^Vous êtes arrivé à destination/],
    ['es-ES', /^Diríjase /, /^Ha llegado a la parada 2/, /^Ha llegado a su destino/],
    ['it-IT', /^Dirigiti /, /^Sei arrivato alla tappa 2/, /^Sei arrivato a destinazione/],
    ['de', /fahren$/, /^Sie haben Stopp 2 erreicht/, /^Sie haben Ihr Ziel erreicht/],
    ['fr-CA', /^Dirigez-vous /, /^Vous êtes arrivé à l'arrêt 2/, /^Vous êtes arrivé à destination/],
  ])('%s: Success, no errors, its own words, same figures as en-US', async (Culture, depart, arriveStop, arriveEnd) => {
    const r = await engine.calculateRoute({ Locations: ABC, RouteOptions: { Culture } });
    expect(r.Status).toBe('Success');
    expect(r.Errors).toEqual([]);
    const t = texts(r);
    for (const leg of t) expect(leg[0]).toMatch(depart);
    expect(t[0].at(-1)).toMatch(arriveStop);
    expect(t[1].at(-1)).toMatch(arriveEnd);
    // Every sentence differs from the English one except those that are only names.
    const differ = t.flat().filter((x, k) => x !== texts(en).flat()[k]).length;
    expect(differ).toBe(t.flat().length);
    expect(figures(r)).toEqual(figures(en));
  });

  it.each(['xx-YY', 'ja-JP'])('%s: SuccessWithErrors naming RouteOptions.Culture and en-US; English text; same figures', async (Culture) => {
    const r = await engine.calculateRoute({ Locations: ABC, RouteOptions: { Culture } });
    expect(r.Status).toBe('SuccessWithErrors');
    expect(r.Errors).toHaveLength(1);
    expect(r.Errors![0].Message).toBe(`RouteOptions.Culture: Culture '${Culture}' is not supported; directions are in en-US (supported: en-US, de-DE, fr-FR, es-ES, it-IT)`);
    expect(texts(r)).toEqual(texts(en));
    expect(figures(r)).toEqual(figures(en));
  });

  it('a numeric Culture is read as a string (7 → "7"): a clean en-US fallback with SuccessWithErrors, not Failed', async () => {
    const r = await engine.calculateRoute({ Locations: ABC, RouteOptions: { Culture: 7 } });
    expect(r.Status).toBe('SuccessWithErrors');
    expect(r.Errors![0].Message).toMatch(/^RouteOptions\.Culture: Culture '7' is not supported; directions are in en-US/);
    expect(texts(r)).toEqual(texts(en));
  });

  it('a Culture that is neither string nor number (true, an object) fails cleanly naming RouteOptions.Culture', async () => {
    for (const Culture of [true, { tag: 'de' }]) {
      const r = await engine.calculateRoute({ Locations: ABC, RouteOptions: { Culture } });
      expect(r.Status).toBe('Failed');
      expect(r.Errors![0].Message).toMatch(/^RouteOptions\.Culture: must be a string/);
      expect(r.Route).toBeUndefined();
    }
  });
});

describe('maps', () => {
  it('no MapSize, or a zero Width or Height: no Map fields anywhere', async () => {
    for (const RouteOptions of [{}, { MapSize: { Width: 0, Height: 480 } }, { MapSize: { Width: 640, Height: 0 } }, { MapSize: { Width: 640 } }]) {
      const r = await engine.calculateRoute({ Locations: ABC, RouteOptions });
      expect(r.Status, JSON.stringify(RouteOptions)).toBe('Success');
      expect('Map' in r.Route!).toBe(false);
      for (const leg of r.Route!.RouteLegs!) expect('Map' in leg).toBe(false);
    }
  });

  it('MapSize 640×480: route and leg maps are SVG data URLs of that size, route colour #00a9eb at ~0.7, numbered stops, attribution', async () => {
    const r = await engine.calculateRoute({ Locations: ABC, RouteOptions: { MapSize: { Width: 640, Height: 480 } } });
    expect(r.Status).toBe('Success');
    const svg = svgOf(r.Route!.Map);
    const doc = parseXml(svg);
    expect(doc.name).toBe('svg');
    expect(doc.attrs.width).toBe('640');
    expect(doc.attrs.height).toBe('480');
    expect(doc.attrs.viewBox).toBe('0 0 640 480');
    const strokes = routeStrokes(doc);
    expect(strokes).toHaveLength(1);
    expect(strokes[0].stroke).toBe('#00a9eb');
    expect(strokes[0].opacity).toBeCloseTo(179 / 255, 2);
    expect(markerLabels(doc)).toEqual(['1', '2', '3']);
    expect(findAll(doc, 'text').map((t) => t.text)).toContain('© OpenStreetMap contributors');
    // Imperial scale bar for the default unit (Mile).
    expect(findAll(doc, 'text').some((t) => / (ft|mi)$/.test(t.text))).toBe(true);
    const legs = r.Route!.RouteLegs!;
    expect(legs).toHaveLength(2);
    legs.forEach((leg, i) => {
      const ld = parseXml(svgOf(leg.Map));
      expect([ld.attrs.width, ld.attrs.height]).toEqual(['640', '480']);
      expect(markerLabels(ld)).toEqual([String(i + 1), String(i + 2)]);
      expect(routeStrokes(ld).map((x) => x.stroke)).toEqual(['#00a9eb']);
    });
    expect(legs[0].Map).not.toBe(legs[1].Map);
    expect(legs[0].Map).not.toBe(r.Route!.Map);
  });

  it('a one-leg route: the leg map is the route map; Kilometer gives a metric scale bar', async () => {
    const r = await engine.calculateRoute({ Locations: [loc(A), loc(B)], RouteOptions: { MapSize: { Width: 320, Height: 240 }, DistanceUnit: 'Kilometer' } });
    expect(r.Route!.RouteLegs![0].Map).toBe(r.Route!.Map);
    const doc = parseXml(svgOf(r.Route!.Map));
    expect(markerLabels(doc)).toEqual(['1', '2']);
    expect(findAll(doc, 'text').some((t) => / (m|km)$/.test(t.text))).toBe(true);
  });

  it('HideStops: no marker labels on any map; the route is still drawn', async () => {
    const r = await engine.calculateRoute({ Locations: ABC, RouteOptions: { MapSize: { Width: 640, Height: 480 }, HideStops: true } });
    for (const url of [r.Route!.Map, ...r.Route!.RouteLegs!.map((l) => l.Map)]) {
      const doc = parseXml(svgOf(url));
      expect(markerLabels(doc)).toEqual([]);
      expect(findAll(doc, 'circle')).toHaveLength(0);
      expect(routeStrokes(doc)).toHaveLength(1);
    }
  });

  it('a custom RouteColor {A:255,R:255,G:0,B:0} draws #ff0000 at opacity 1; partial colours take the defaults for the rest', async () => {
    const red = await engine.calculateRoute({ Locations: ABC, RouteOptions: { MapSize: { Width: 640, Height: 480 }, RouteColor: { A: 255, R: 255, G: 0, B: 0 } } });
    const s = routeStrokes(parseXml(svgOf(red.Route!.Map)));
    expect(s).toEqual([{ stroke: '#ff0000', opacity: 1 }]);
    const partial = await engine.calculateRoute({ Locations: ABC, RouteOptions: { MapSize: { Width: 640, Height: 480 }, RouteColor: { R: 16 } } });
    const p = routeStrokes(parseXml(svgOf(partial.Route!.Map)));
    expect(p[0].stroke).toBe('#10a9eb');
    expect(p[0].opacity).toBeCloseTo(0.702, 3);
  });

  it('MapCenter + ZoomLevel 17 draw a different view than the fitted map, same size; the same request gives the same bytes', async () => {
    const base = { Locations: ABC, RouteOptions: { MapSize: { Width: 640, Height: 480 } } };
    const fit = await engine.calculateRoute(base);
    const spec = { Locations: ABC, RouteOptions: { MapSize: { Width: 640, Height: 480 }, MapCenter: { Latitude: 43.7335, Longitude: 7.4205 }, ZoomLevel: 17 } };
    const z17 = await engine.calculateRoute(spec);
    expect(z17.Status).toBe('Success');
    expect(z17.Route!.Map).not.toBe(fit.Route!.Map);
    const doc = parseXml(svgOf(z17.Route!.Map));
    expect([doc.attrs.width, doc.attrs.height]).toEqual(['640', '480']);
    expect((await engine.calculateRoute(spec)).Route!.Map).toBe(z17.Route!.Map);
    expect((await engine.calculateRoute(base)).Route!.Map).toBe(fit.Route!.Map);
    // The route figures do not depend on the map.
    expect(figures(z17)).toEqual(figures(fit));
  });

  it('CalculateRoutes with RoutesOptions.MapSize: a top-level Map with one distinct colour per route, the first in RouteColor', async () => {
    const specs = [[A, B], [B, C], [C, A], [A, C]].map((ps) => ({ Locations: ps.map(loc) }));
    const r = await engine.calculateRoutes({ Specifications: specs, RoutesOptions: { MapSize: { Width: 500, Height: 400 }, RouteColor: { A: 255, R: 1, G: 2, B: 3 } } });
    expect(r.Status).toBe('Success');
    const doc = parseXml(svgOf(r.Map));
    expect([doc.attrs.width, doc.attrs.height]).toEqual(['500', '400']);
    const strokes = routeStrokes(doc).map((x) => x.stroke);
    expect(strokes).toHaveLength(4);
    expect(strokes[0]).toBe('#010203');
    expect(new Set(strokes).size).toBe(4);
    expect(markerLabels(doc)).toEqual(['1', '2', '3', '4']);
    // Without a MapSize there is no top-level Map.
    const none = await engine.calculateRoutes({ Specifications: specs });
    expect(none.Status).toBe('Success');
    expect(none.Map).toBeUndefined();
  });
});

describe('bad input: Failed with an Error naming the field, never throws', () => {
  const failed = async (spec: unknown, message: RegExp | string): Promise<void> => {
    let r: RouteResult | undefined;
    await expect((async () => { r = await engine.calculateRoute(spec); })()).resolves.toBeUndefined();
    expect(r!.Status, JSON.stringify(spec)).toBe('Failed');
    expect(r!.Errors).toHaveLength(1);
    if (typeof message === 'string') expect(r!.Errors![0].Message).toBe(message);
    else expect(r!.Errors![0].Message).toMatch(message);
    expect(r!.Route).toBeUndefined();
  };
  const withMap = (o: object) => ({ Locations: ABC, RouteOptions: { MapSize: { Width: 640, Height: 480 }, ...o } });

  it('fewer than two locations (0 and 1)', async () => {
    await failed({ Locations: [] }, 'Locations: needs at least two locations (got 0)');
    await failed({ Locations: [loc(A)] }, 'Locations: needs at least two locations (got 1)');
  });

  it('an unplaceable stop (0, 0 in the sea) names Locations[1]', async () => {
    await failed({ Locations: [loc(A), loc({ Latitude: 0, Longitude: 0 }), loc(B)] }, /^Locations\[1\]\.LatLong: .*nearest road.* \[NoSegment\]$/);
  });

  it('MapSize negative, or too large (mentions 4096)', async () => {
    await failed(withMap({ MapSize: { Width: -1, Height: 480 } }), 'RouteOptions.MapSize: Width and Height must not be negative (got -1×480)');
    await failed(withMap({ MapSize: { Width: 640, Height: -480 } }), /^RouteOptions\.MapSize: .*negative/);
    await failed(withMap({ MapSize: { Width: 5000, Height: 5000 } }), /^RouteOptions\.MapSize: MapSize 5000×5000 is too large: at most 4096 px a side/);
    await failed(withMap({ MapSize: { Width: 4096, Height: 4096 } }), /^RouteOptions\.MapSize: .*too large.*8388608 pixels/);
  });

  it('ZoomLevel 25 and -1 (with a MapSize)', async () => {
    await failed(withMap({ ZoomLevel: 25 }), 'RouteOptions.ZoomLevel: must be between 0 (fit the route) and 20 (got 25)');
    await failed(withMap({ ZoomLevel: -1 }), 'RouteOptions.ZoomLevel: must be between 0 (fit the route) and 20 (got -1)');
  });

  // The view's fields are checked whether or not a map is asked for (docs/directions.md, Limits).
  it('ZoomLevel 25 / MapCenter latitude 95 without a MapSize fail too', async () => {
    await failed({ Locations: ABC, RouteOptions: { ZoomLevel: 25 } }, /^RouteOptions\.ZoomLevel: /);
    await failed({ Locations: ABC, RouteOptions: { MapCenter: { Latitude: 95, Longitude: 7 }, ZoomLevel: 10 } }, /^RouteOptions\.MapCenter: /);
  });

  it('MapCenter latitude 95 with ZoomLevel 10', async () => {
    await failed(withMap({ MapCenter: { Latitude: 95, Longitude: 7 }, ZoomLevel: 10 }), 'RouteOptions.MapCenter: must be a latitude within ±85 and a longitude within ±180 (got 95, 7)');
  });

  it('RouteColor out of 0..255 names the channel', async () => {
    await failed(withMap({ RouteColor: { R: 300 } }), 'RouteOptions.RouteColor.R: must be between 0 and 255 (got 300)');
    await failed(withMap({ RouteColor: { A: -1 } }), 'RouteOptions.RouteColor.A: must be between 0 and 255 (got -1)');
    // Checked by the record parser, so even without a map.
    await failed({ Locations: ABC, RouteOptions: { RouteColor: { G: 256 } } }, /^RouteOptions\.RouteColor\.G: must be between 0 and 255/);
  });

  it('CalculateRoutes: a bad RoutesOptions map field fails the whole call naming RoutesOptions', async () => {
    const r = await engine.calculateRoutes({ Specifications: [{ Locations: [loc(A), loc(B)] }], RoutesOptions: { MapSize: { Width: 5000, Height: 10 } } });
    expect(r.Status).toBe('Failed');
    expect(r.Errors![0].Message).toMatch(/^RoutesOptions\.MapSize: .*4096/);
    expect(r.Results).toEqual([]);
  });
});
