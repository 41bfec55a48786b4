/** The operation commands the CLI takes from the operation table (`distance`, `dispatch`), end to end in child processes. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { operations as serviceOperations } from '../../src/service/operations.js';
import { OPERATIONS } from '../../src/ops/table.js';
import { COMMANDS } from '../../src/cli/commands/index.js';
import { fixtureDatasetFile } from '../helpers/datasets.js';
import { runCli } from '../helpers/cli.js';

const cli = runCli;
let data: string;

beforeAll(async () => {
  data = await fixtureDatasetFile('monaco');
});

describe('dispatch --geojson', () => {
  it('writes the plan as GeoJSON next to the record', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dk-plan-'));
    const out = join(dir, 'plan.geojson');
    const depot = { Name: 'Depot', LatLong: { Latitude: 43.7314, Longitude: 7.42 } };
    const spec = JSON.stringify({
      DistanceUnit: 'Kilometer', MinimumOptimization: 1, Vehicles: [{ Name: 'V1', StartLocation: depot, FinishLocation: depot }],
      Locations: [{ Name: 'Casino', LatLong: { Latitude: 43.7395, Longitude: 7.428 } }, { Name: 'Stade', LatLong: { Latitude: 43.7276, Longitude: 7.4155 } }],
    });
    const r = runCli(['dispatch', '--data', data, '-', '--geojson', out], spec);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).Status).toBe(1);
    const fc = JSON.parse(readFileSync(out, 'utf8'));
    expect(fc.type).toBe('FeatureCollection');
    expect(fc.features.filter((f: { properties: { kind: string } }) => f.properties.kind === 'vehicle-route').length).toBe(1);
    expect(fc.features.filter((f: { properties: { kind: string } }) => f.properties.kind === 'stop').length).toBe(4);
    expect(r.stderr).toMatch(/Plan written to /);
    expect(r.stderr).toMatch(/note: DispatchMode Auto runs as Optima \(no stop has a time window\)/);
    expect(runCli(['dispatch', '--data', data, '-', '--geojson', dir], spec).status).toBe(2); // a folder
  });
});

describe('operation commands', () => {
  it('every engine operation of the operation table has exactly one command, named by its row', () => {
    const rows = serviceOperations().filter((o) => o.engine);
    expect(rows.map((o) => o.engine).sort()).toEqual(Object.keys(OPERATIONS).sort());
    for (const op of rows) expect(COMMANDS.filter((c) => c.name === op.faces.cli)).toHaveLength(1);
  });

  it('distance answers a DistanceSpecification (integers on the wire, names with --names)', () => {
    const spec = JSON.stringify({ DistanceUnit: 'Kilometer', StartLocation: { LatLong: { Latitude: 43.7395, Longitude: 7.428 } }, FinishLocation: { LatLong: { Latitude: 43.7276, Longitude: 7.4155 } } });
    const r = cli(['distance', '--data', data, '-'], spec);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.Status).toBe(1); // OperationStatus Success on the wire
    expect(out.Distance).toBeGreaterThan(1);
    const named = JSON.parse(cli(['distance', '--data', data, '-', '--names'], spec).stdout);
    expect(named.Status).toBe('Success');
    expect(named.Distance).toBe(out.Distance);
  });

  it('dispatch answers a DispatchSpecification; bad input exits 1 with Failed; bad flags exit 2', () => {
    const depot = { Name: 'Depot', LatLong: { Latitude: 43.7314, Longitude: 7.42 } };
    const spec = JSON.stringify({
      DistanceUnit: 'Kilometer', MinimumOptimization: 1,
      Vehicles: [{ Name: 'V1', StartLocation: depot }],
      Locations: [{ Name: 'Casino', LatLong: { Latitude: 43.7395, Longitude: 7.428 } }, { Name: 'Stade', LatLong: { Latitude: 43.7276, Longitude: 7.4155 } }],
    });
    const r = cli(['dispatch', '--data', data, '-', '--names', '-q', '--seed', '2'], spec);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.Status).toBe('Success');
    expect(out.Items[0].Locations.map((l: { Name: string }) => l.Name).sort()).toEqual(['Casino', 'Depot', 'Stade']);
    const bad = cli(['dispatch', '--data', data, '-', '--names', '-q'], JSON.stringify({ Locations: [{ LatLong: { Latitude: 123, Longitude: 7 } }], Vehicles: [{ StartLocation: { LatLong: { Latitude: 123, Longitude: 7 } } }] }));
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout).Status).toBe('Failed');
    expect(cli(['dispatch', '--data', data, '-', '--seed', 'x'], spec).status).toBe(2);
    const many = cli(['dispatch', '--data', data, '-', '--workers', '100000'], spec);
    expect(many.status).toBe(2);
    expect(many.stderr).toMatch(/--workers must be a whole number from 1 to \d+/);
  });
});
