/**
 * The REST face through real HTTP (fastify listening on a free port, `fetch` as the client):
 * every operation, the wire rules the original's official client depends on, the refusals,
 * the OpenAPI document (validated by a real OpenAPI validator) and every response body
 * validated against it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import type { FastifyInstance } from 'fastify';
import { Engine } from '../../src/engine.js';
import type { Store } from '../../src/store/types.js';
import { Service } from '../../src/service/service.js';
import { operations } from '../../src/service/operations.js';

/** The contract's operations and TrackPoints: the rows on the SOAP face too (POST with a body). */
const CONTRACT_OPS = operations().filter((o) => o.faces.soap);
import { buildServer, loggedUrl } from '../../src/server/http.js';
import { EXAMPLES, openApiDocument } from '../../src/server/openapi.js';
import { inProcessServer, post, type TestServer } from '../helpers/service.js';
import { reachablePool } from '../helpers/monaco-stops.js';
import { SAMPLE_1, SAMPLE_3, sample2 } from '../helpers/client-samples.js';

let engine: Engine;
let store: Store;
let service: Service;
let app: FastifyInstance;
let url: string;
let key: string;
let poorKey: string;
const doc = openApiDocument();
// every response body is checked against the document's schema for it
const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, allErrors: true });
ajv.addSchema({ $id: 'doc', components: doc.components });
function validBody(schemaName: string, body: unknown): string[] {
  const v = ajv.getSchema(`doc#/components/schemas/${schemaName}`)!;
  return v(body) ? [] : (v.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

let server: TestServer;
beforeAll(async () => {
  server = await inProcessServer({ accounts: [{ name: 'demo', credit: 100_000 }, { name: 'poor', credit: 0 }], server: { bodyLimit: 1 << 20 } });
  ({ engine, store, service, app, url } = server);
  key = server.keys.demo;
  poorKey = server.keys.poor;
});
afterAll(() => server?.close());

describe('OpenAPI', () => {
  it('is a valid OpenAPI 3.1 document (a real validator) served at /openapi.json, listing every operation', async () => {
    const r = await fetch(`${url}/openapi.json`);
    expect(r.status).toBe(200);
    const served = (await r.json()) as any;
    const res = await new Validator().validate(served);
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(served.openapi).toBe('3.1.0');
    for (const op of operations()) if (op.faces.rest) expect(served.paths[`/rest/${op.faces.rest.path.replace(':id', '{id}')}`]?.[op.faces.rest.method.toLowerCase()]?.operationId).toBe(op.name);
  });

  it('serves the schema browser and its assets locally (no CDN)', async () => {
    const page = await (await fetch(`${url}/docs`)).text();
    expect(page).toContain('/docs/swagger-ui-bundle.js');
    expect(page).not.toMatch(/https?:\/\//);
    for (const a of ['swagger-ui-bundle.js', 'swagger-ui.css', 'swagger-ui-standalone-preset.js', 'init.js']) {
      const r = await fetch(`${url}/docs/${a}`);
      expect(r.status, a).toBe(200);
      expect((await r.arrayBuffer()).byteLength, a).toBeGreaterThan(100);
    }
  });
});

describe('every operation through HTTP, with its documented example', () => {
  for (const op of CONTRACT_OPS) {
    it(`${op.name}: POST /rest/${op.faces.rest!.path} → 200, Status Success, body valid against the document`, async () => {
      let body = EXAMPLES[op.name as keyof typeof EXAMPLES];
      if (op.name === 'GetRoute') {
        const d = await post(url, '/rest/dispatch', EXAMPLES.Dispatch, key);
        body = { RouteID: Number(d.headers.get('x-route-id')) };
      }
      if (op.name === 'Login') {
        await store.updateAccount('demo', { passwordHash: await (await import('../../src/store/hash.js')).hashPassword('demo') });
      }
      const r = await post(url, `/rest/${op.faces.rest!.path}`, body ?? undefined, op.auth ? key : undefined);
      expect(r.status, r.text).toBe(200);
      expect(r.json.Status, r.text).toBe(1); // Success, as an integer
      expect(validBody(op.result.name, r.json)).toEqual([]);
    });
  }
});

describe('the wire rules of the official REST client', () => {
  it('POST /rest/Credit with an empty body under application/json; charset=utf-8; paths case-insensitive; trailing slash without redirect', async () => {
    for (const path of ['/rest/Credit', '/rest/credit', '/REST/CREDIT', '/rest/Credit/']) {
      const r = await fetch(`${url}${path}`, { method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': '0' }, redirect: 'manual' });
      expect(r.status, path).toBe(200);
      const j = (await r.json()) as any;
      expect(Number.isInteger(j.Credit)).toBe(true);
      expect(j).toMatchObject({ Status: 1, Errors: [] });
    }
  });

  it('integers in integer fields (never 10.0), integer enums unless ?enums=name, unset fields omitted', async () => {
    const r = await post(url, '/rest/Distance', EXAMPLES.CalculateDistance, key);
    expect(r.text).toMatch(/"Time":\d+[,}]/);
    expect(r.json.StartLocationMatchCode).toBe(4);
    const names = await post(url, '/rest/distance?enums=name', EXAMPLES.CalculateDistance, key);
    expect(names.json).toMatchObject({ Status: 'Success', StartLocationMatchCode: 'Exact' });
    expect(names.text).not.toContain('null');
    const d = await post(url, '/rest/Dispatch', EXAMPLES.Dispatch, key);
    for (const m of d.text.matchAll(/"(Time|Wait|Priority|Skids|MaxStops|MinimumOptimization)":(-?[\d.eE+-]+)/g)) expect(m[2], m[0]).toMatch(/^-?\d+$/);
    expect(d.text).not.toContain('null');
  });

  it("the original client's three sample dispatches come back as its deserializer reads them (types of ../shared/research/trackroad-rest-client.md §4–5)", async () => {
    // the client's DTO types (Newtonsoft, no StringEnumConverter): int fields must be JSON integers
    // (`10.0` fails it), enums integers, dates ISO 8601, first and last entries Start (1) and Finish (2)
    const INT = ['Priority', 'Wait', 'Skids', 'Time', 'Speed', 'MaxStops', 'MaxSkids', 'MaxMinutes'];
    const DOUBLE = ['Distance', 'Volume', 'Weight', 'MaxWeight', 'MaxVolume', 'FuelCost', 'Latitude', 'Longitude'];
    const ENUM: Record<string, number> = { LocationType: 5, MatchCode: 4, Status: 3, Restriction: 1 };
    const DATE = ['TimeEstimatedArrival', 'TimeConstraintArrival', 'TimeConstraintDeparture', 'TimeConstraintArrival2', 'TimeConstraintDeparture2', 'Tin', 'Tout'];
    const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,7})?(Z|[+-]\d\d:\d\d)?$/;
    const problems: string[] = [];
    const walk = (v: unknown, path: string): void => {
      if (Array.isArray(v)) { v.forEach((x, i) => walk(x, `${path}[${i}]`)); return; }
      if (v === null) { problems.push(`${path}: null (the client expects the field absent)`); return; }
      if (typeof v !== 'object') return;
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        const at = `${path}.${k}`;
        if (INT.includes(k) && !Number.isInteger(x)) problems.push(`${at}: ${JSON.stringify(x)} is not an integer`);
        if (DOUBLE.includes(k) && typeof x !== 'number') problems.push(`${at}: ${JSON.stringify(x)} is not a number`);
        if (k in ENUM && !(Number.isInteger(x) && (x as number) >= 0 && (x as number) <= ENUM[k])) problems.push(`${at}: ${JSON.stringify(x)} is not an enum integer`);
        if (DATE.includes(k) && !(typeof x === 'string' && ISO.test(x))) problems.push(`${at}: ${JSON.stringify(x)} is not an ISO date`);
        walk(x, at);
      }
    };
    for (const [name, spec] of [['example 1', SAMPLE_1], ['example 2', sample2()], ['example 2, CanArriveEarly false', sample2(false)], ['example 3', SAMPLE_3]] as const) {
      const r = await post(url, '/rest/Dispatch', spec, key); // the client's path, casing and headers
      expect(r.status, name).toBe(200);
      expect(r.json.Status, `${name}: ${r.text.slice(0, 300)}`).toBe(1);
      walk(r.json, name);
      for (const item of r.json.Items) {
        const types = item.Locations.map((l: { LocationType: number }) => l.LocationType);
        expect(types[0], name).toBe(1);
        expect(types.at(-1), name).toBe(2);
        expect(types.slice(1, -1).every((t: number) => t === 0), name).toBe(true);
      }
    }
    expect(problems).toEqual([]);
  });

  it('binds camelCase and odd-case property names, ignores unknown ones, accepts enum names or integers, a BOM, and no charset', async () => {
    const body = '\ufeff' + JSON.stringify({
      startLocation: { latLong: { latitude: 43.7395, longitude: 7.428 } }, FINISHLOCATION: { LatLong: { Latitude: 43.7276, Longitude: 7.4155 } },
      distanceUnit: 'Kilometer', RouteOptimize: 1, SomethingElse: [1, 2, 3],
    });
    const r = await post(url, '/rest/distance', body, key);
    expect(r.status).toBe(200);
    expect(r.json.Status).toBe(1);
  });

  it('answers 200 with Status Failed (and Errors naming the field) for bad operation input', async () => {
    const r = await post(url, '/rest/distance', { DistanceUnit: 7 }, key);
    expect(r.status).toBe(200);
    expect(r.json.Status).toBe(2);
    expect(JSON.stringify(r.json.Errors)).toContain('DistanceUnit');
    const empty = await post(url, '/rest/dispatch', {}, key);
    expect(empty.status).toBe(200);
    expect(empty.json.Status).toBe(2);
  });

  it('does not compress, even when asked nothing (the official client sends no Accept-Encoding)', async () => {
    const r = await fetch(`${url}/rest/routes`, { method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify(EXAMPLES.CalculateRoutes) });
    expect(r.headers.get('content-encoding')).toBeNull();
  });
});

describe('refusals', () => {
  it('401 without a key or with an unknown one; 403 without credit; bodies are Result records', async () => {
    const none = await post(url, '/rest/credit', undefined);
    expect(none.status).toBe(401);
    expect(none.json).toMatchObject({ Status: 2, Errors: [{ Message: expect.stringContaining('X-API-Key') }] });
    expect(validBody('Result', none.json)).toEqual([]);
    expect((await post(url, '/rest/credit', undefined, 'wrong')).status).toBe(401);
    expect((await post(url, '/rest/credit', undefined, key.slice(0, -1))).status).toBe(401);
    const poor = await post(url, '/rest/distance', EXAMPLES.CalculateDistance, poorKey);
    expect(poor.status).toBe(403);
    expect(poor.json.Errors[0].Message).toContain('Not enough credit');
    expect((await post(url, '/rest/credit', undefined, poorKey)).status).toBe(200); // free operations still work
  });

  it('400 for a body that is not JSON or is nested too deep; 413 past the body limit', async () => {
    const bad = await post(url, '/rest/distance', '{"DistanceUnit": ', key);
    expect(bad.status).toBe(400);
    expect(bad.json.Status).toBe(2);
    const deep = await post(url, '/rest/distance', '['.repeat(10_000) + ']'.repeat(10_000), key);
    expect(deep.status).toBe(400);
    expect(deep.json.Errors[0].Message).toContain('nested');
    const big = await post(url, '/rest/geocode', JSON.stringify({ Addresses: [{ Street: 'x'.repeat(2 << 20) }] }), key);
    expect(big.status).toBe(413);
  });

  it('429 with Retry-After past the per-account rate', async () => {
    const s = new Service(engine, store, { rateLimit: { perSecond: 1, burst: 2 } });
    const a = buildServer(s, { logger: false });
    const u = await a.listen({ port: 0, host: '127.0.0.1' });
    try {
      const codes = [];
      let retry: string | null = null;
      for (let i = 0; i < 4; i++) {
        const r = await post(u, '/rest/credit', undefined, key);
        codes.push(r.status);
        if (r.status === 429) retry = r.headers.get('retry-after');
      }
      expect(codes).toEqual([200, 200, 429, 429]);
      expect(Number(retry)).toBeGreaterThanOrEqual(1);
    } finally {
      await a.close();
      await s.close();
    }
  });

  it('GET on an operation is 405 (Allow: POST); an unknown path is 404; no CORS headers unless configured', async () => {
    const g = await fetch(`${url}/rest/credit`);
    expect(g.status).toBe(405);
    expect(g.headers.get('allow')).toBe('POST');
    expect((await fetch(`${url}/rest/nothing`, { method: 'POST' })).status).toBe(404);
    const c = await fetch(`${url}/rest/credit`, { method: 'POST', headers: { Origin: 'https://evil.example', 'X-API-Key': key } });
    expect(c.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('CORS for configured origins only, with preflight', async () => {
    const a = buildServer(service, { logger: false, corsOrigins: ['https://app.example'] });
    const u = await a.listen({ port: 0, host: '127.0.0.1' });
    try {
      const pre = await fetch(`${u}/rest/credit`, { method: 'OPTIONS', headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' } });
      expect(pre.status).toBe(204);
      expect(pre.headers.get('access-control-allow-origin')).toBe('https://app.example');
      const other = await fetch(`${u}/rest/credit`, { method: 'POST', headers: { Origin: 'https://other.example', 'X-API-Key': key } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await a.close();
    }
  });
});

describe('hostile input (findings of a hostile trial)', () => {
  it('refuses a keyless or unknown-key request before reading its body (401, not 400 for the broken JSON)', async () => {
    const r = await post(url, '/rest/credit', '{"not json', undefined);
    expect(r.status).toBe(401);
    const big = await post(url, '/rest/trackpoints', '[' + '0,'.repeat(3_000_000) + '0]', 'dk_unknown');
    expect(big.status).toBe(401);
  });

  it('a huge user name at Login is a quick Failed, not memory held by the limiter', async () => {
    const r = await post(url, '/rest/login', { UserName: 'u'.repeat(900_000), Password: 'p' });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ Status: 2, Message: 'Wrong user name or password.' });
  });

  it('a client that disconnects from a dispatch is not charged and nothing is stored', async () => {
    const pool = reachablePool(engine).slice(0, 30);
    const spec = {
      CurrentTime: '2026-12-01T09:00:00', DistanceUnit: 1, MinimumOptimization: 6,
      Vehicles: [{ Name: 'V1', StartLocation: { LatLong: pool[0] } }],
      Locations: pool.slice(1).map((p, i) => ({ Name: `S${i}`, LatLong: p })),
    };
    const acct = (await store.accountByName('demo'))!;
    const routes = (await store.listRoutes(acct.id)).length;
    const ac = new AbortController();
    const pending = fetch(`${url}/rest/dispatch`, { method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify(spec), signal: ac.signal }).catch(() => null);
    while (service.inFlight === 0) await new Promise((r) => setTimeout(r, 5));
    const during = (await store.accountByName('demo'))!.balance;
    expect(during).toBe(acct.balance - 29); // reserved
    ac.abort();
    await pending;
    while (service.inFlight > 0) await new Promise((r) => setTimeout(r, 20));
    expect((await store.accountByName('demo'))!.balance).toBe(acct.balance);
    expect((await store.listRoutes(acct.id)).length).toBe(routes);
    expect(await store.openReservations()).toBe(0);
  });

  it('X-Route-Name / X-Route-Owner sent as UTF-8 bytes are stored as the text they are', async () => {
    const latin1 = (t: string) => Buffer.from(t, 'utf8').toString('latin1');
    const res = await new Promise<{ status: number; id: string }>((resolve, reject) => {
      const req = httpRequest(`${url}/rest/dispatch`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json', 'X-Route-Name': latin1('Tournée été ✓'), 'X-Route-Owner': latin1('Zoë') },
      }, (r) => { r.resume(); r.on('end', () => resolve({ status: r.statusCode!, id: String(r.headers['x-route-id']) })); });
      req.on('error', reject);
      req.end(Buffer.from(JSON.stringify(EXAMPLES.Dispatch))); // a Buffer: Node writes the headers as Latin-1 with it (a string body would re-encode them as UTF-8)
    });
    expect(res.status).toBe(200);
    const list = await post(url, '/rest/routelist', { RouteName: 'ÉTÉ', Owner: 'ZOË' }, key);
    expect(list.json.Routes.map((x: { RouteID: number; RouteName: string }) => [x.RouteID, x.RouteName])).toEqual([[Number(res.id), 'Tournée été ✓']]);
  });

  it('headers past 16 KiB get a Result-shaped 431; every method but POST on an operation is 405', async () => {
    const r = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${url}/rest/credit`, { method: 'POST', headers: { 'X-API-Key': key, 'X-Padding': 'x'.repeat(20_000) } }, (res) => {
        let b = '';
        res.on('data', (d) => { b += d; });
        res.on('end', () => resolve({ status: res.statusCode!, body: b }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(r.status).toBe(431);
    expect(JSON.parse(r.body)).toMatchObject({ Status: 2, Errors: [{ Message: expect.any(String) }] });
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const m = await fetch(`${url}/rest/credit`, { method, headers: { 'X-API-Key': key } });
      expect(m.status, method).toBe(405);
    }
    const names = await fetch(`${url}/rest/credit?enums=name`, { method: 'PUT' });
    expect(await names.json()).toMatchObject({ Status: 'Failed' });
  });
});

describe('health and shutdown', () => {
  it('liveness and readiness', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const r = await fetch(`${url}/readyz`);
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ status: 'ready' });
  });

  it('graceful shutdown finishes a running dispatch before closing', async () => {
    const a = buildServer(service, { logger: false });
    const u = await a.listen({ port: 0, host: '127.0.0.1' });
    const pool = reachablePool(engine).slice(0, 40);
    const spec = {
      CurrentTime: '2026-12-01T09:00:00', DistanceUnit: 1, MinimumOptimization: 5,
      Vehicles: [{ Name: 'V1', StartLocation: { LatLong: pool[0] } }, { Name: 'V2', StartLocation: { LatLong: pool[0] } }],
      Locations: pool.slice(1).map((p, i) => ({ Name: `S${i}`, LatLong: p, Wait: 60 })),
    };
    const pending = post(u, '/rest/dispatch', spec, key);
    while (service.inFlight === 0) await new Promise((r) => setTimeout(r, 5));
    const closing = a.close();
    expect(service.inFlight).toBe(1); // still running when the server starts closing
    const r = await pending;
    await closing;
    expect(r.status).toBe(200);
    expect(r.json.Status).toBe(1);
  });
});

describe('logs', () => {
  it('mask secret query values, percent-encoded names included', () => {
    expect(loggedUrl('/rest/credit?%6Bey=S1&Session%49D=S2&enums=name&PASSWORD=S3&x=1')).toBe('/rest/credit?%6Bey=***&Session%49D=***&enums=name&PASSWORD=***&x=1');
    expect(loggedUrl('/rest/credit')).toBe('/rest/credit');
  });

  it('never log the key (header or query)', async () => {
    const lines: string[] = [];
    const stream = { write: (s: string) => { lines.push(s); } };
    const a = buildServer(service, { logger: { level: 'info', stream } });
    const u = await a.listen({ port: 0, host: '127.0.0.1' });
    try {
      await post(u, `/rest/credit?SessionID=${key}`, undefined, key);
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest(`${u}/rest/credit`, { method: 'POST', headers: { 'X-API-Key': key } }, (res) => { res.resume(); res.on('end', () => resolve()); });
        req.on('error', reject);
        req.end();
      });
    } finally {
      await a.close();
    }
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('')).not.toContain(key);
  });
});
