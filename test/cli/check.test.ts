/** `dispatchkit check` and the lint warnings of the operation commands, end to end in child processes. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { fixtureDatasetFile } from '../helpers/datasets.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'dk-check-cli-'));
const cli = runCli;
let data: string;

beforeAll(async () => {
  data = await fixtureDatasetFile('monaco');
});

const DEPOT = { Name: 'Depot', LatLong: { Latitude: 43.7314, Longitude: 7.42 } };
const spec = {
  DistanceUnit: 'Kilometer', MinimumOptimization: 1,
  Vehicles: [{ Name: 'V1', MaxWeigth: 10, StartLocation: { ...DEPOT, TimeConstraintArrival: '2026-12-01T07:00:00' } }],
  Locations: [
    { Name: 'Casino', LatLong: { Latitude: 43.7395, Longitude: 7.428 }, TimeConstraintArrival: '2026-12-01T12:00:00', TimeConstraintDeparture: '2026-12-01T13:00:00' },
    { Name: 'Stade', LatLong: { Latitude: 43.7276, Longitude: 7.4155 } },
  ],
};

describe('dispatchkit check', () => {
  it('is registered once', () => {
    expect(COMMANDS.filter((c) => c.name === 'check')).toHaveLength(1);
  });

  it('prints one warning per line (path: message [code]) and exits 0 when there are only warnings; --json prints them as JSON', () => {
    const file = join(dir, 'spec.json');
    writeFileSync(file, JSON.stringify(spec));
    const r = cli(['check', file]);
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^Vehicles\[0\]\.MaxWeigth: .*did you mean MaxWeight\? \[UnknownProperty\]$/);
    expect(lines[1]).toMatch(/^Vehicles\[0\]\.StartLocation\.TimeConstraintArrival: .*Tin and Tout.* \[IgnoredField\]$/);
    const j = cli(['check', '--json', '-'], JSON.stringify(spec));
    expect(j.status).toBe(0);
    const out = JSON.parse(j.stdout);
    expect(out.kind).toBe('Dispatch');
    expect(out.errors).toEqual([]);
    expect(out.warnings.map((w: { code: string }) => w.code)).toEqual(['UnknownProperty', 'IgnoredField']);
  });

  it('with --data checks stops against the road network; --kind overrides detection; validation errors exit 1', () => {
    const far = { DistanceUnit: 1, StartLocation: { LatLong: { Latitude: 44.5, Longitude: 7.42 } }, FinishLocation: DEPOT, Extra: 1 };
    const r = cli(['check', '--data', data, '--json', '-'], JSON.stringify(far));
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.kind).toBe('CalculateDistance');
    expect(out.warnings.map((w: { path: string; code: string }) => `${w.path} ${w.code}`)).toEqual(['Extra UnknownProperty', 'StartLocation.LatLong FarFromRoad']);
    // the same record checked as a Dispatch: its fields are unknown there
    const asDispatch = JSON.parse(cli(['check', '--kind', 'dispatch', '--json', '-'], JSON.stringify(far)).stdout);
    expect(asDispatch.kind).toBe('Dispatch');
    expect(asDispatch.warnings.map((w: { path: string }) => w.path)).toEqual(['StartLocation', 'FinishLocation', 'Extra']);
    // a record that would fail: errors after the warnings, exit 1
    const bad = cli(['check', '-'], JSON.stringify({ Locations: [{ Name: 'A', Wait: 'long', Wiat: 3 }] }));
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/^Locations\[0\]\.Wiat: .*\[UnknownProperty\]\nerror: Locations\[0\]\.Wait: must be a whole number/);
  });

  it('exits 2 on unreadable JSON, an unknown kind or a bad --kind', () => {
    expect(cli(['check', '-'], '{ not json').status).toBe(2);
    const unknown = cli(['check', '-'], JSON.stringify({ Foo: 1 }));
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/--kind/);
    expect(cli(['check', '--kind', 'Route', '-'], '{}').status).toBe(2);
    expect(cli(['check', join(dir, 'missing.json')]).status).toBe(2);
  });

  it('dispatch prints the warnings to stderr before running (not with --quiet); the result is the same', () => {
    const loud = cli(['dispatch', '--data', data, '-', '--names', '--seed', '2'], JSON.stringify(spec));
    const quiet = cli(['dispatch', '--data', data, '-', '--names', '--seed', '2', '-q'], JSON.stringify(spec));
    expect(loud.status).toBe(0);
    expect(quiet.status).toBe(0);
    expect(loud.stderr).toMatch(/^warning: Vehicles\[0\]\.MaxWeigth: .*\[UnknownProperty\]$/m);
    expect(loud.stderr).toMatch(/^warning: Vehicles\[0\]\.StartLocation\.TimeConstraintArrival: .*\[IgnoredField\]$/m);
    expect(quiet.stderr).not.toMatch(/warning:/);
    expect(loud.stdout).toBe(quiet.stdout);
    expect(JSON.parse(loud.stdout).Status).toBe('Success');
  });
});
