/**
 * What the page's input rests on, without a browser (issue #25 item 7; the page itself in
 * Chromium: test/ui/page-input.test.ts): CheckSpecification (POST /rest/check and /ui/rest/check)
 * reads a specification as the API does; the page's session cookie slides with every authorized
 * call; an ended session is spoken of as a session, never a key; the CSV column table is served to
 * the page from the one the CLI reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessServer, post, type TestServer } from '../helpers/service.js';
import { CSV_COLUMNS, HEADER_FOLD } from '../../src/records/columns.js';
import { OPERATIONS } from '../../src/service/operations.js';
import { openApiDocument } from '../../src/server/openapi.js';
import { DispatchSpecificationSchema } from '../../src/records/index.js';

const T0 = Date.UTC(2026, 10, 26, 8, 0, 0);
const HOUR = 3_600_000;
let now = T0;
let server: TestServer;
let key: string;

beforeAll(async () => {
  server = await inProcessServer({ service: { clock: () => now }, accounts: [{ name: 'demo', credit: 1_000, password: 'demo' }] });
  key = server.keys.demo;
});
afterAll(() => server?.close());

const DEPOT = { Latitude: 43.7314, Longitude: 7.42 };
const FAR = { Latitude: 44.5, Longitude: 7.42 };

async function signIn(): Promise<string> {
  const r = await fetch(`${server.url}/ui/login`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-DK-UI': '1' }, body: JSON.stringify({ UserName: 'demo', Password: 'demo' }) });
  expect(r.status).toBe(200);
  return r.headers.get('set-cookie')!.split(';')[0];
}
const ui = (path: string, cookie: string | null, body?: unknown, method = 'POST') => fetch(`${server.url}/ui/rest/${path}`, {
  method, headers: { 'Content-Type': 'application/json', 'X-DK-UI': '1', ...(cookie ? { Cookie: cookie } : {}) }, body: body === undefined ? undefined : JSON.stringify(body),
});
const maxAge = (r: Response): number | null => {
  const c = r.headers.get('set-cookie');
  const m = c ? /Max-Age=(\d+)/.exec(c) : null;
  return m ? Number(m[1]) : null;
};

describe('CheckSpecification', () => {
  it('is one row: REST POST /rest/check and the page, no SOAP, an extension, free, on the calling thread; in the OpenAPI document', () => {
    const row = OPERATIONS.CheckSpecification;
    expect(row.faces).toEqual({ rest: { method: 'POST', path: 'check' }, page: true });
    expect(row.extension).toBe(true);
    expect(row.runsOn).toBe('caller');
    expect('price' in row).toBe(false);
    const doc = openApiDocument() as { paths: Record<string, Record<string, { operationId: string }>>; components: { schemas: Record<string, unknown> } };
    expect(doc.paths['/rest/check'].post.operationId).toBe('CheckSpecification');
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['CheckSpecification', 'CheckResult', 'SpecificationWarning']));
  });

  it('coerces values exactly as the API does (strings to numbers, enums by name), applies defaults, and charges nothing', async () => {
    const raw = {
      dispatchmode: 8, distanceunit: '1',
      Vehicles: [{ Name: 'Van 1', MaxWeight: '30', StartLocation: { LatLong: { Latitude: '43.7314', Longitude: '7.42' } } }],
      Locations: [{ Name: 'A', LatLong: { Latitude: '43.73', Longitude: 7.421 }, Weight: '2.5', Colour: 'red' }],
    };
    const r = await post(server.url, '/rest/check', { Specification: raw }, key);
    expect(r.status).toBe(200);
    expect(r.json.Status).toBe(1); // Success, as an integer without ?enums=name
    expect(r.json.Kind).toBe('Dispatch');
    const spec = r.json.Specification;
    // exactly the record the API reads: the schema's parse, encoded with enum names
    const parsed = DispatchSpecificationSchema.safeParse(raw);
    if (!parsed.ok) throw new Error('the record does not validate');
    expect(spec).toEqual(JSON.parse(JSON.stringify(DispatchSpecificationSchema.encode(parsed.value, { enums: 'name' }))));
    expect(spec.Vehicles[0].StartLocation.LatLong.Latitude).toBe(43.7314);
    expect(spec.Vehicles[0].MaxWeight).toBe(30);
    expect(spec.Locations[0].Weight).toBe(2.5);
    expect(spec.DispatchMode).toBe('Optima');
    expect(spec.DistanceUnit).toBe('Kilometer');
    expect(spec.Locations[0].LocationType).toBe('Midway'); // a default
    expect(spec.Locations[0].Colour).toBeUndefined();
    expect(r.json.Warnings).toEqual([{ Code: 'UnknownProperty', Path: 'Locations[0].Colour', Message: 'is not a field of Location and is ignored' }]);
    const credit = await post(server.url, '/rest/credit', {}, key);
    expect(credit.json.Credit).toBe(1_000);
  });

  it('a bad value: Status Failed, Errors naming the contract field (the same words as the operation), no Specification', async () => {
    const raw = { Vehicles: [{ Name: 'V', StartLocation: { LatLong: { Latitude: 'north', Longitude: 7.42 } } }], Locations: [{ LatLong: { Latitude: 43.73, Longitude: 7.42 }, Weight: -1 }] };
    const r = await post(server.url, '/rest/check?enums=name', { Specification: raw }, key);
    expect(r.json.Status).toBe('Failed');
    expect(r.json.Specification).toBeUndefined();
    const messages = r.json.Errors.map((e: { Message: string }) => e.Message);
    expect(messages).toEqual([
      'Vehicles[0].StartLocation.LatLong.Latitude: must be a finite number (got "north")',
      expect.stringMatching(/^Locations\[0\]\.Weight: must be between 0 and /),
    ]);
    // what the Dispatch operation itself answers for the same record
    const d = await post(server.url, '/rest/dispatch?enums=name', raw, key);
    expect(d.json.Errors.map((e: { Message: string }) => e.Message)).toEqual(messages);
  });

  it('warnings with the engine context (FarFromRoad) and the linter\'s new FleetTooSmall; the kind told or given; ReturnSpecification false leaves the record out', async () => {
    const stops = Array.from({ length: 40 }, (_, i) => ({ Name: `S${i}`, LatLong: i === 0 ? FAR : { Latitude: 43.73 + i * 1e-4, Longitude: 7.42 }, Weight: 1 }));
    const r = await post(server.url, '/rest/check?enums=name', { Kind: 'dispatch', ReturnSpecification: false, Specification: { Vehicles: [{ Name: 'Van', MaxWeight: 30, StartLocation: { LatLong: DEPOT } }], Locations: stops } }, key);
    expect(r.json.Status).toBe('Success');
    expect(r.json.Specification).toBeUndefined();
    expect(r.json.Warnings.map((w: { Code: string; Path: string }) => `${w.Path} ${w.Code}`)).toEqual(['Locations[0].LatLong FarFromRoad', 'Vehicles FleetTooSmall']);
    expect(r.json.Warnings[1].Message).toMatch(/can carry 30 of Weight in all .* adds up to 40: at least 10 of it will not be served/);
    const g = await post(server.url, '/rest/check?enums=name', { Specification: { Addresses: [{ Stret: 'x' }] } }, key);
    expect(g.json.Kind).toBe('Geocode');
    expect(g.json.Warnings[0].Path).toBe('Addresses[0].Stret');
    const dist = await post(server.url, '/rest/check?enums=name', { Kind: 'CalculateDistance', Specification: { StartLocation: { LatLong: FAR }, FinishLocation: { LatLong: DEPOT } } }, key);
    expect([dist.json.Kind, dist.json.Warnings.map((w: { Code: string }) => w.Code)]).toEqual(['Distance', ['FarFromRoad']]);
    const unknown = await post(server.url, '/rest/check?enums=name', { Specification: { Foo: 1 } }, key);
    expect(unknown.json.Status).toBe('Failed');
    expect(unknown.json.Errors[0].Message).toMatch(/^Kind: cannot tell/);
    const badKind = await post(server.url, '/rest/check?enums=name', { Kind: 'Route', Specification: {} }, key);
    expect(badKind.json.Errors[0].Message).toBe('Kind: must be Dispatch, Geocode, Distance (got "Route")');
    const none = await post(server.url, '/rest/check?enums=name', {}, key);
    expect(none.json.Errors[0].Message).toBe('Specification: is required');
  });

  it('10,000 stops: checked in slices (the server answers a health probe meanwhile) within a few seconds', async () => {
    const stops = Array.from({ length: 10_000 }, (_, i) => ({ Name: `S${i}`, LatLong: { Latitude: 43.727 + (i % 100) * 2e-4, Longitude: 7.415 + Math.floor(i / 100) * 2e-4 }, Weight: 1 }));
    const t0 = performance.now();
    const pending = post(server.url, '/rest/check?enums=name', { ReturnSpecification: false, Specification: { Vehicles: [{ Name: 'Van', MaxWeight: 30, StartLocation: { LatLong: DEPOT } }], Locations: stops } }, key);
    // probes while the check runs: each answered without waiting for it
    const gaps: number[] = [];
    let done = false;
    void pending.finally(() => { done = true; });
    while (!done) {
      const s = performance.now();
      await fetch(`${server.url}/health`);
      gaps.push(performance.now() - s);
      await new Promise((r) => setTimeout(r, 20));
    }
    const r = await pending;
    const ms = performance.now() - t0;
    console.log(`CheckSpecification of 10,000 stops: ${Math.round(ms)} ms, ${gaps.length} health probes meanwhile, the slowest ${Math.round(Math.max(...gaps))} ms`);
    expect(r.json.Warnings.filter((w: { Code: string }) => w.Code === 'FleetTooSmall')).toHaveLength(1);
    expect(gaps.length).toBeGreaterThan(1);
    expect(ms).toBeLessThan(20_000);
  });
});

describe("the page's session", () => {
  it('every authorized /ui/rest/ call re-sets the cookie with a fresh Max-Age: the session slides, and so does the cookie (a stream too)', async () => {
    now = T0;
    const cookie = await signIn();
    const ttl = server.service.sessionTtlMs / 1000;
    now = T0 + 3 * HOUR;
    const a = await ui('credit', cookie, {});
    expect(a.status).toBe(200);
    expect(a.headers.get('set-cookie')).toBe(`${cookie}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${ttl}`);
    // 6 h after signing in, 3 h after that call: still signed in, and renewed again
    now = T0 + 6 * HOUR;
    const b = await ui('check', cookie, { Specification: { Locations: [{ LatLong: DEPOT }] } });
    expect(b.status).toBe(200);
    expect(maxAge(b)).toBe(ttl);
    // a GET and a server-sent stream renew it too
    const job = await ui('jobs', cookie, { Operation: 'Geocode', Specification: { Addresses: [{ Street: 'Avenue Princesse Grace', City: 'Monaco' }] } });
    const { JobID } = await job.json() as { JobID: string };
    expect(maxAge(await ui(`jobs/${JobID}`, cookie, undefined, 'GET'))).toBe(ttl);
    const ac = new AbortController();
    const events = await fetch(`${server.url}/ui/rest/jobs/${JobID}/events`, { headers: { Cookie: cookie }, signal: ac.signal });
    expect(events.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(maxAge(events)).toBe(ttl);
    ac.abort();
    // calls without a session renew nothing; the API key's face never sets a cookie
    expect((await fetch(`${server.url}/ui/rest/dataset`)).headers.get('set-cookie')).toBeNull();
    expect((await post(server.url, '/rest/credit', {}, key)).headers.get('set-cookie')).toBeNull();
    // past the lifetime after the last use: signed out
    now = T0 + 6 * HOUR + ttl * 1000 + 1000;
    expect((await ui('credit', cookie, {})).status).toBe(401);
    now = T0;
  });

  it('an ended, unknown or missing session is spoken of as the session, never a key — at every path the page calls', async () => {
    now = T0;
    const cookie = await signIn();
    await fetch(`${server.url}/ui/logout`, { method: 'POST', headers: { 'X-DK-UI': '1', Cookie: cookie } });
    const paths: [string, string | null, string, unknown][] = [
      ['credit', cookie, 'POST', {}], ['check', cookie, 'POST', { Specification: {} }], ['jobs', null, 'POST', { Operation: 'Dispatch', Specification: {} }],
      ['jobs/abc', 'dk_session=not-a-session', 'GET', undefined], ['jobs/abc/events', cookie, 'GET', undefined], ['routes/1/live', 'dk_session=x', 'GET', undefined],
      ['plan', 'dk_session=' + 'k'.repeat(600), 'POST', { Specification: {}, Result: { Status: 'Success' } }],
    ];
    for (const [path, c, method, body] of paths) {
      const r = await ui(path, c, body, method);
      expect(r.status, path).toBe(401);
      const text = (await r.json() as { Errors: { Message: string }[] }).Errors[0].Message;
      expect(text, path).toBe('You are signed out (your session ended): sign in again.');
      expect(text, path).not.toMatch(/key/i);
    }
    const me = await fetch(`${server.url}/ui/me`, { headers: { Cookie: cookie } });
    expect(me.status).toBe(401);
    expect(JSON.stringify(await me.json())).not.toMatch(/key/i);
    // the API's own face still speaks of keys (its callers send one)
    expect((await post(server.url, '/rest/credit', {}, 'nope')).json.Errors[0].Message).toMatch(/key/);
  });
});

describe('the CSV column names the page reads', () => {
  it('/ui/columns.js is the table of src/records/columns.ts (the CLI\'s), as an ES module with an ETag', async () => {
    const r = await fetch(`${server.url}/ui/columns.js`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/javascript/);
    const text = await r.text();
    const data = (name: string) => JSON.parse(new RegExp(`export const ${name} = (.*);`).exec(text)![1]);
    expect(data('CSV_COLUMNS')).toEqual(CSV_COLUMNS);
    expect(data('HEADER_FOLD')).toEqual(HEADER_FOLD);
    const again = await fetch(`${server.url}/ui/columns.js`, { headers: { 'If-None-Match': r.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });
});
