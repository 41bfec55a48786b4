/** `dispatchkit live` and `dispatchkit redispatch` on files (issue #24). */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fixtureDatasetFile } from '../helpers/datasets.js';
import { MONACO_STOPS } from '../helpers/service.js';

let data: string;
const dir = mkdtempSync(join(tmpdir(), 'dk-live-cli-'));
const file = (name: string, v: unknown): string => { const p = join(dir, name); writeFileSync(p, typeof v === 'string' ? v : JSON.stringify(v)); return p; };
let plan: any;

beforeAll(async () => {
  data = await fixtureDatasetFile('monaco');
  const depot = { Name: 'Depot', LatLong: MONACO_STOPS[0].LatLong };
  const spec = { CurrentTime: '2026-11-02T08:00:00Z', DistanceUnit: 'Kilometer', Vehicles: [{ Name: 'Van', StartLocation: depot, FinishLocation: depot }], Locations: MONACO_STOPS.slice(1) };
  file('spec.json', spec);
  const r = runCli(['dispatch', '--data', data, '--names', file('spec.json', spec)]);
  expect(r.status, r.stderr).toBe(0);
  plan = JSON.parse(r.stdout);
  file('plan.json', plan);
}, 120_000);

describe('dispatchkit live / redispatch', () => {
  it('live: a Done event ends a stop; the rest are remaining with estimates', () => {
    const first = plan.Items[0].Locations[1];
    file('events.json', [{ Vehicle: 'Van', Location: first.Name, Event: 'Done', TimeStamp: '2026-11-02T08:20:00Z' }]);
    const r = runCli(['live', '--data', data, '--plan', join(dir, 'plan.json'), '--spec', join(dir, 'spec.json'), '--events', join(dir, 'events.json'), '--as-of', '2026-11-02T08:30:00Z']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.Vehicles[0]).toMatchObject({ Name: 'Van', Done: [first.Name] });
    expect(out.Vehicles[0].Remaining.length).toBe(MONACO_STOPS.length - 2);
  });

  it('redispatch: the next plan without the done stop, with a new order, and the file the next re-dispatch starts from', () => {
    const first = plan.Items[0].Locations[1];
    const req = file('req.json', { RouteID: 0, CurrentTime: '2026-11-02T08:30:00Z', Locations: [{ Name: 'Late order', LatLong: MONACO_STOPS[2].LatLong, Wait: 60 }] });
    const next = join(dir, 'next.json');
    const r = runCli(['redispatch', '--data', data, '--plan', join(dir, 'plan.json'), '--spec', join(dir, 'spec.json'), '--events', join(dir, 'events.json'), '--next', next, req]);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    const names = out.Items.flatMap((i: any) => i.Locations.filter((l: any) => l.LocationType !== 'Start' && l.LocationType !== 1).map((l: any) => l.Name));
    expect(names).toContain('Late order');
    expect(names).not.toContain(first.Name);
    // with no position sent, the van is where it was last seen: at the stop it did
    expect(out.Items[0].Locations[0]).toMatchObject({ Name: first.Name });
    const kept = JSON.parse(readFileSync(next, 'utf8'));
    expect(kept.Done.map((d: any) => d.Location)).toEqual([first.Name]);
  });

  it('bad files are named; usage without --data', () => {
    expect(runCli(['redispatch', file('x.json', {})]).status).toBe(2);
    const r = runCli(['live', '--data', data, '--plan', file('bad.json', { Items: 5 }), '--spec', join(dir, 'spec.json')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/bad\.json: not a DispatchResult/);
    const t = runCli(['live', '--data', data, '--plan', join(dir, 'plan.json'), '--spec', join(dir, 'spec.json'), '--tracks', file('t.json', { Van: [{ Latitude: 99, Longitude: 7, TimeStamp: 'x' }] })]);
    expect(t.status).toBe(2);
    expect(t.stderr).toMatch(/t\.json: Van\[0\]/);
  });
});
