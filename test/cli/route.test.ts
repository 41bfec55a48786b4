/** `dispatchkit route` end to end in child processes: readable directions, cultures, --json, map and GeoJSON files, bad input. */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { fixtureDatasetFile } from '../helpers/datasets.js';
import { runCli } from '../helpers/cli.js';
import { decodePng, findAll, parseXml } from '../render/helpers.js';

let data: string;
let dir: string;
let spec: string;

const loc = (Latitude: number, Longitude: number) => ({ LatLong: { Latitude, Longitude } });
const THREE = { Locations: [loc(43.7395, 7.428), loc(43.7276, 7.4155), loc(43.7335, 7.4205)] };

function writeSpec(name: string, value: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(value));
  return p;
}

beforeAll(async () => {
  data = await fixtureDatasetFile('monaco');
  dir = mkdtempSync(join(tmpdir(), 'dk-route-cli-'));
  spec = writeSpec('three.json', THREE);
});

describe('dispatchkit route', () => {
  it('prints readable directions: a Route line, Leg lines, numbered steps, arrival; exit 0', () => {
    const r = runCli(['route', '--data', data, spec]);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^Route: \d+(\.\d)? miles?, \d+ min \(3 stops\)$/);
    expect(lines.filter((l) => /^Leg \d+:/.test(l))).toEqual([
      expect.stringMatching(/^Leg 1: stop 1 → stop 2 — .+, .+$/),
      expect.stringMatching(/^Leg 2: stop 2 → stop 3 — .+, .+$/),
    ]);
    // Numbered steps from 1, each leg starting with a depart and ending with an arrival.
    const steps = lines.filter((l) => /^\s+\d+\. /.test(l));
    expect(steps.length).toBeGreaterThanOrEqual(6);
    expect(steps[0]).toMatch(/^\s+1\. Head \w+/);
    expect(r.stdout).toMatch(/\d+\. You have arrived at stop 2\b/);
    expect(lines.filter((l) => l.trim() !== '').at(-1)).toMatch(/^\s+\d+\. You have arrived at your destination/);
    // Steps other than the arrival carry a distance in parentheses.
    expect(steps[0]).toMatch(/\((\d+ ft|\d+(\.\d)? miles?)\)$/);
  });

  it('--culture de-DE gives German; --culture xx exits 0 in English with a note naming the culture', () => {
    const de = runCli(['route', '--data', data, spec, '--culture', 'de-DE']);
    expect(de.status).toBe(0);
    expect(de.stderr).toBe('');
    expect(de.stdout).toMatch(/Sie haben Stopp 2 erreicht/);
    expect(de.stdout).toMatch(/Sie haben Ihr Ziel erreicht/);
    expect(de.stdout).not.toMatch(/You have arrived/);
    const xx = runCli(['route', '--data', data, spec, '--culture', 'xx']);
    expect(xx.status).toBe(0);
    expect(xx.stderr).toMatch(/^note: RouteOptions\.Culture: Culture 'xx' is not supported; directions are in en-US/m);
    expect(xx.stdout).toMatch(/You have arrived at your destination/);
    // -q silences the note.
    const quiet = runCli(['route', '--data', data, spec, '--culture', 'xx', '-q']);
    expect(quiet.status).toBe(0);
    expect(quiet.stderr).toBe('');
    expect(quiet.stdout).toBe(xx.stdout);
  });

  it('--json prints the RouteResult (Status 1 on the wire; Success with --names)', () => {
    const r = runCli(['route', '--data', data, spec, '--json']);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.Status).toBe(1);
    expect(out.Route.RouteLegs).toHaveLength(2);
    expect(out.Route.RouteLegs[0].Itinerary.Items[0].Text).toMatch(/^Head /);
    expect(out.Route.Map).toBeUndefined();
    const named = JSON.parse(runCli(['route', '--data', data, '-', '--json', '--names'], JSON.stringify(THREE)).stdout);
    expect(named.Status).toBe('Success');
    expect(named.Route.Distance).toBe(out.Route.Distance);
    expect(named.Route.Time).toBe(out.Route.Time);
  });

  it('--svg --png --geojson write the map (800×600 by default) and the route', () => {
    const svgPath = join(dir, 'a.svg');
    const pngPath = join(dir, 'a.png');
    const gjPath = join(dir, 'a.geojson');
    const r = runCli(['route', '--data', data, spec, '--svg', svgPath, '--png', pngPath, '--geojson', gjPath]);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`Map written to ${svgPath}`);
    expect(r.stderr).toContain(`Map written to ${pngPath}`);
    expect(r.stderr).toContain(`GeoJSON written to ${gjPath}`);
    expect(r.stdout).toMatch(/^Route: /);
    for (const p of [svgPath, pngPath, gjPath]) expect(existsSync(p)).toBe(true);

    const doc = parseXml(readFileSync(svgPath, 'utf8'));
    expect(doc.name).toBe('svg');
    expect([doc.attrs.width, doc.attrs.height]).toEqual(['800', '600']);
    expect(findAll(doc, 'text').filter((t) => t.attrs.fill === '#ffffff').map((t) => t.text)).toEqual(['1', '2', '3']);
    expect(findAll(doc, 'path').some((p) => p.attrs.stroke === '#00a9eb')).toBe(true);

    const png = new Uint8Array(readFileSync(pngPath));
    expect([...png.subarray(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
    const img = decodePng(png);
    expect([img.width, img.height]).toEqual([800, 600]);

    const gj = JSON.parse(readFileSync(gjPath, 'utf8'));
    expect(gj.type).toBe('FeatureCollection');
    const lines = gj.features.filter((f: { geometry: { type: string } | null }) => f.geometry?.type === 'LineString');
    expect(lines).toHaveLength(1);
    expect(lines[0].geometry.coordinates.length).toBeGreaterThanOrEqual(2);
    const maneuvers = gj.features.filter((f: { properties: { kind: string } }) => f.properties.kind === 'maneuver');
    expect(maneuvers.length).toBeGreaterThanOrEqual(6);
    for (const m of maneuvers) expect(m.geometry.type).toBe('Point');
    expect(maneuvers[0].properties.Text).toMatch(/^Head /);
    expect(gj.features.filter((f: { properties: { kind: string } }) => f.properties.kind === 'leg')).toHaveLength(2);
  });

  it('--map-size 300x200 sizes the SVG; --map-size nope exits 2 with a message', () => {
    const svgPath = join(dir, 'small.svg');
    const r = runCli(['route', '--data', data, spec, '--svg', svgPath, '--map-size', '300x200', '-q']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    const doc = parseXml(readFileSync(svgPath, 'utf8'));
    expect([doc.attrs.width, doc.attrs.height]).toEqual(['300', '200']);
    const bad = runCli(['route', '--data', data, spec, '--svg', join(dir, 'nope.svg'), '--map-size', 'nope']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--map-size must be WIDTHxHEIGHT in pixels.*\(got nope\)/);
    expect(bad.stdout).toBe('');
    expect(existsSync(join(dir, 'nope.svg'))).toBe(false);
  });

  it('a bad specification (one location) exits 1 with a Failed: line naming Locations', () => {
    const one = writeSpec('one.json', { Locations: [loc(43.7395, 7.428)] });
    const r = runCli(['route', '--data', data, one, '--svg', join(dir, 'one.svg')]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('Failed: Locations: needs at least two locations (got 1)\n');
    expect(existsSync(join(dir, 'one.svg'))).toBe(false);
  });

  it('the specification\'s DistanceUnit (integer 1 = Kilometer) gives metric distances, in the --culture language', () => {
    const km = writeSpec('km.json', { ...THREE, RouteOptions: { DistanceUnit: 1 } });
    const r = runCli(['route', '--data', data, km, '--culture', 'de-DE']);
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^Route: \d+(,\d)? km, \d+ min \(3 stops\)$/);
    expect(r.stdout).toMatch(/^Leg 1: stop 1 → stop 2 — 3,3 km, /m); // German decimal comma
    expect(r.stdout).not.toMatch(/\d (Meilen?|Fuß|miles?|ft)(?!\p{L})/u);
    expect(r.stdout).toMatch(/ fahren {2}\(\d+ m\)/);
  });

  // The CLI formats figures in the unit and culture the operation read (field names bind
  // case-insensitively, enums may be numeric strings); --culture replaces the spec's own however spelt.
  it('a lower-case distanceUnit key or a numeric-string DistanceUnit is honoured in the text', () => {
    for (const o of [{ distanceUnit: 'Kilometer' }, { DistanceUnit: '1' }]) {
      const p = writeSpec('km2.json', { Locations: THREE.Locations.slice(0, 2), RouteOptions: o });
      const r = runCli(['route', '--data', data, p]);
      expect(r.status).toBe(0);
      expect(r.stdout.split('\n')[0]).toMatch(/^Route: \d+\.\d km, /);
    }
  });

  it('a lower-case culture key: distances in that culture; --culture overrides it', () => {
    const p = writeSpec('culture.json', { Locations: THREE.Locations.slice(0, 2), RouteOptions: { culture: 'de-DE' } });
    const de = runCli(['route', '--data', data, p]);
    expect(de.stdout).toMatch(/^Route: 2 Meilen, /);
    expect(de.stdout).toMatch(/fahren {2}\(\d+ Fuß\)/);
    const fr = runCli(['route', '--data', data, p, '--culture', 'fr-FR']);
    expect(fr.stdout).toMatch(/1\. Dirigez-vous /);
  });

  it('--help lists the options', () => {
    const r = runCli(['route', '--help']);
    expect(r.status).toBe(0);
    const text = r.stdout + r.stderr;
    for (const flag of ['--culture', '--svg', '--png', '--geojson', '--json', '--map-size', '--names']) expect(text).toContain(flag);
  });
});
