/** `dispatchkit geocode` end to end (child processes): JSON spec, CSV mode, reverse, bad input. */
import { execFileSync } from 'node:child_process';
import { CLI, ROOT, runCli } from '../helpers/cli.js';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const OSM = join(ROOT, 'fixtures/monaco-latest.osm.pbf');
const run = (args: string[], input?: string) => runCli(['geocode', '--osm', OSM, '-q', ...args], input);

describe('dispatchkit geocode', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dk-geocode-'));

  it('prints a GeocodeResult for a specification', () => {
    const spec = join(dir, 'spec.json');
    writeFileSync(spec, JSON.stringify({ IsNeedMatchCode: true, Addresses: [{ Street: '9 Rue du Castelleretto', City: 'Monaco' }] }));
    const r = run([spec, '--names']);
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.Status).toBe('Success');
    expect(out.Items[0].Locations[0]).toMatchObject({ MatchCode: 'Exact', Address: { Street: '9 Rue du Castelleretto' } });
  });

  it('geocodes a CSV file, keeping its columns', () => {
    const csv = join(dir, 'in.csv');
    const out = join(dir, 'out.csv');
    writeFileSync(csv, 'id;Address;City\n1;22 Avenue Princesse Grace;Monaco\n2;"Qxzqxz";Nowhere\n');
    const r = run(['--csv', csv, '-o', out]);
    expect(r.status).toBe(0);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('id,Address,City,lat,lon,matchcode,score,kind,matched_street,matched_city,matched_postcode,error');
    expect(lines[1]).toMatch(/^1,22 Avenue Princesse Grace,Monaco,43\.74782\d*,7\.43625\d*,Exact,/);
    expect(lines[2]).toMatch(/^2,Qxzqxz,Nowhere,,,None,/);
    expect(r.stderr).toContain('1/2 rows geocoded');
  });

  it('reverse-geocodes a coordinate', () => {
    const r = run(['--reverse', '43.7478266,7.4362537']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).address.Street).toBe('22 Avenue Princesse Grace');
  });

  it('fails cleanly on bad input', () => {
    const bad = run(['-'], '{"Addresses":[{"Street":{}}]}');
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout).Errors[0].Message).toMatch(/^Addresses\[0\]\.Street: must be a string/);
    expect(run(['--reverse', 'north']).status).toBe(2);
    const usage = runCli(['geocode']);
    expect(usage.status).toBe(2);
    expect(execFileSync(process.execPath, [...CLI, 'geocode', '--help'], { cwd: ROOT, encoding: 'utf8' })).toContain('Usage: dispatchkit geocode');
  });
});
