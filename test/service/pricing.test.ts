/**
 * One price, whatever the face: a call is priced from its validated record (case-insensitive
 * binding, as the records bind) by its row's units, never from raw JSON. A fast-check property
 * (1,000 cases) sends the same work over REST, SOAP 1.1, SOAP 1.2, jobs and the page, each with
 * its own random field letter-casing and order, and checks that every face answers the same
 * result record and takes the same credit; then the ledger audit finds every account's charges
 * equal to the work recorded. And the regressions that started it: a lower-case `addresses`
 * Geocode is charged per address; a long route costs by its legs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { inProcessServer, post, type TestServer } from '../helpers/service.js';
import { reachablePool, type LL } from '../helpers/monaco-stops.js';
import { OPERATIONS, operationNamed, parseRequest, routeUnits, type ServiceOperation } from '../../src/service/operations.js';
import { quote, costOf, DEFAULT_PRICES } from '../../src/service/prices.js';
import { writeFields, readRecord } from '../../src/server/soap/codec.js';
import { parseXml, XmlWriter, type XmlElement } from '../../src/server/soap/xml.js';

const NS = 'http://TrackService.TrackRoad.com/';
const ENV = { 11: 'http://schemas.xmlsoap.org/soap/envelope/', 12: 'http://www.w3.org/2003/05/soap-envelope' } as const;
const FACES = ['rest', 'soap11', 'soap12', 'job', 'page'] as const;
type Face = (typeof FACES)[number];

let server: TestServer;
let pool: LL[];
let cookie: string;
const START = 10_000_000;

beforeAll(async () => {
  server = await inProcessServer({
    accounts: [...FACES.map((f) => ({ name: f, credit: START, ...(f === 'page' ? { password: 'pw' } : {}) })), { name: 'plain', credit: START }],
  });
  pool = reachablePool(server.engine);
  const login = await fetch(`${server.url}/ui/login`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-DK-UI': '1' }, body: JSON.stringify({ UserName: 'page', Password: 'pw' }) });
  cookie = login.headers.get('set-cookie')!.split(';')[0];
}, 120_000);
afterAll(() => server?.close());

// ------------------------------------------------------------------ random casing and order

/** Every property name re-cased by `pick` and the properties reordered (deep; arrays keep their order). */
function scramble(v: unknown, rnd: () => number): unknown {
  if (Array.isArray(v)) return v.map((x) => scramble(x, rnd));
  if (v === null || typeof v !== 'object') return v;
  const entries = Object.entries(v as Record<string, unknown>).map(([k, x]) => [recase(k, rnd), scramble(x, rnd)] as const);
  for (let i = entries.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [entries[i], entries[j]] = [entries[j], entries[i]];
  }
  return Object.fromEntries(entries);
}
function recase(k: string, rnd: () => number): string {
  const r = rnd();
  if (r < 0.25) return k;
  if (r < 0.45) return k.toLowerCase();
  if (r < 0.6) return k.toUpperCase();
  return [...k].map((c) => (rnd() < 0.5 ? c.toLowerCase() : c.toUpperCase())).join('');
}
/** A seeded generator (mulberry32) so each case's scrambling repeats. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ------------------------------------------------------------------ the faces

/** A SOAP envelope for a record: written by the records' serializer, then every element inside the specification re-cased and siblings shuffled. */
function envelope(v: 11 | 12, row: ServiceOperation, input: unknown, key: string, rnd: () => number): string {
  const parsed = row.spec!.safeParse(input);
  const w = new XmlWriter();
  if (parsed.ok) writeFields(w, parsed.value as Record<string, unknown>, row.spec!);
  // an invalid record is sent as it is (its fields as elements), for the service to refuse
  else writeLoose(w, input);
  const inner = scrambleXml(w.toString(), rnd);
  return `<?xml version="1.0" encoding="utf-8"?><env:Envelope xmlns:env="${ENV[v]}"><env:Header><SessionIDHeader xmlns="${NS}"><SessionID>${key}</SessionID></SessionIDHeader></env:Header>`
    + `<env:Body><${row.name} xmlns="${NS}"><specification>${inner}</specification></${row.name}></env:Body></env:Envelope>`;
}
function writeLoose(w: XmlWriter, v: unknown): void {
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (x === null || x === undefined) continue;
    if (Array.isArray(x)) { w.open(k); for (const it of x) { w.open('Item'); if (typeof it === 'object') writeLoose(w, it); w.close('Item'); } w.close(k); }
    else if (typeof x === 'object') { w.open(k); writeLoose(w, x); w.close(k); }
    else w.leaf(k, String(x));
  }
}
/** Re-cases every element name and shuffles the children of every element (list items keep their order). */
function scrambleXml(xml: string, rnd: () => number): string {
  const root = parseXml(`<r>${xml}</r>`);
  const out: string[] = [];
  const emit = (el: XmlElement, inList: boolean): void => {
    const name = recase(el.local, rnd);
    const kids = [...el.children];
    const isList = kids.length > 1 && kids.every((c) => c.local === kids[0].local);
    if (!isList) for (let i = kids.length - 1; i > 0; i--) { const j = Math.floor(rnd() * (i + 1)); [kids[i], kids[j]] = [kids[j], kids[i]]; }
    out.push(`<${name}>`);
    if (kids.length === 0) out.push(el.text.replace(/&/g, '&amp;').replace(/</g, '&lt;'));
    for (const k of kids) emit(k, isList);
    out.push(`</${name}>`);
    void inList;
  };
  for (const c of root.children) emit(c, false);
  return out.join('');
}

/** The last result record the REST face answered (for the expected price; the faces of one case run at once, each on its own account). */
let lastRest: unknown = null;

/** The result record a face answered, in one canonical form (the SOAP serializer's: defaults written). */
function canonical(row: ServiceOperation, value: unknown): string {
  const p = row.result.safeParse(value);
  if (!p.ok) return `unparsable: ${JSON.stringify(p.issues.slice(0, 3))}`;
  const w = new XmlWriter();
  writeFields(w, p.value as Record<string, unknown>, row.result);
  return w.toString();
}

async function viaFace(face: Face, row: ServiceOperation, input: unknown, rnd: () => number): Promise<string> {
  const key = server.keys[face];
  const path = row.faces.rest!.path;
  if (face === 'rest') {
    const r = await post(server.url, `/rest/${path}`, scramble(input, rnd), key);
    expect(r.status, r.text).toBe(200);
    const p = row.result.safeParse(r.json);
    lastRest = p.ok ? p.value : null;
    return canonical(row, r.json);
  }
  if (face === 'page') {
    const r = await post(server.url, `/ui/rest/${path}`, scramble(input, rnd), undefined, { Cookie: cookie, 'X-DK-UI': '1' });
    expect(r.status, r.text).toBe(200);
    return canonical(row, r.json);
  }
  if (face === 'job') {
    const s = await post(server.url, '/rest/jobs', { Operation: row.name, Specification: scramble(input, rnd) }, key);
    expect(s.status, s.text).toBe(202);
    for (;;) {
      const g = await fetch(`${server.url}/rest/jobs/${s.json.JobID}?enums=name`, { headers: { 'X-API-Key': key } });
      const j = await g.json() as { State: string; Result?: unknown; Error?: string };
      if (j.State === 'completed') return canonical(row, j.Result);
      if (j.State === 'failed' || j.State === 'cancelled') return `job ${j.State}: ${j.Error}`;
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  const v = face === 'soap11' ? 11 : 12;
  const r = await fetch(`${server.url}/TrackService.asmx`, {
    method: 'POST',
    headers: v === 11 ? { 'Content-Type': 'text/xml; charset=utf-8' } : { 'Content-Type': 'application/soap+xml; charset=utf-8' },
    body: envelope(v, row, input, key, rnd),
  });
  const text = await r.text();
  expect(r.status, text).toBe(200);
  const body = parseXml(text).children.find((c) => c.local === 'Body')!;
  const res = body.children[0].children.find((c) => c.local === `${row.name}Result`)!;
  return canonical(row, readRecord(res, row.result, NS));
}

// ------------------------------------------------------------------ the work

const ADDRESSES = [
  { Street: '9 Rue du Castelleretto', City: 'Monaco' }, { Street: '22 Avenue Princesse Grace', City: 'Monaco' },
  { Street: 'Boulevard des Moulins', City: 'Monaco' }, { Street: 'Quai Jean-Charles Rey' }, { City: 'Monaco' },
  { Street: 'Qxzqxz nowhere' }, { Street: '16 Rue Comte Félix Gastaldi', PostalCode: '98000' },
];

type Work = { op: string; input: Record<string, unknown> };

function workArb(): fc.Arbitrary<Work> {
  const p = fc.integer({ min: 0, max: pool.length - 1 }).map((i) => ({ LatLong: pool[i] }));
  const bad = fc.constant({ LatLong: { Latitude: 123, Longitude: 7.42 } });
  return fc.oneof(
    { weight: 6, arbitrary: fc.tuple(p, fc.oneof(p, bad), fc.constantFrom('Mile', 'Kilometer')).map(([a, b, u]) => ({ op: 'CalculateDistance', input: { StartLocation: a, FinishLocation: b, DistanceUnit: u } })) },
    { weight: 6, arbitrary: fc.array(fc.constantFrom(...ADDRESSES), { minLength: 0, maxLength: 40 }).map((a) => ({ op: 'Geocode', input: { Addresses: a, IsNeedMatchCode: true } })) },
    // mostly short routes, some past 25 legs (2 units)
    { weight: 3, arbitrary: fc.oneof({ weight: 5, arbitrary: fc.array(p, { minLength: 1, maxLength: 6 }) }, { weight: 1, arbitrary: fc.array(p, { minLength: 26, maxLength: 28 }) })
      .map((l) => ({ op: 'CalculateRoute', input: { Locations: l, RouteOptions: { DistanceUnit: 'Kilometer' } } })) },
    { weight: 2, arbitrary: fc.array(fc.array(fc.oneof({ weight: 5, arbitrary: p }, { weight: 1, arbitrary: bad }), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 })
      .map((ss) => ({ op: 'CalculateRoutes', input: { Specifications: ss.map((l) => ({ Locations: l })) } })) },
    { weight: 2, arbitrary: fc.tuple(fc.array(p, { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 2 }), fc.boolean()).map(([stops, v, wrong]) => ({
      op: 'Dispatch',
      input: {
        MinimumOptimization: wrong ? 99 : 1, DispatchMode: 'Optima', CurrentTime: '2026-12-01T08:00:00',
        Vehicles: Array.from({ length: v }, (_, i) => ({ Name: `V${i}`, StartLocation: { Name: 'Depot', LatLong: pool[0] } })),
        Locations: stops.map((s, i) => ({ Name: `S${i}`, ...s, Wait: 60 })),
      },
    })) },
  );
}

async function balance(face: Face | 'plain'): Promise<number> {
  const a = await server.store.accountByName(face);
  return a!.balance;
}

describe('one price, whatever the face', () => {
  it('1,000 random calls over REST, SOAP 1.1, SOAP 1.2, jobs and the page, each with its own letter-casing and order: identical results, identical charges', async () => {
    let n = 0;
    const spent = new Map<string, number>();
    const byOp = new Map<string, number>();
    await fc.assert(fc.asyncProperty(workArb(), fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (w, seed) => {
      const row = operationNamed(w.op)!;
      const results = new Map<Face, string>();
      const charged = new Map<Face, number>();
      // the faces at once (each has its own account)
      await Promise.all(FACES.filter((face) => face !== 'job' || row.faces.job).map(async (face) => {
        const before = await balance(face);
        const t0 = performance.now();
        results.set(face, await viaFace(face, row, w.input, rng(seed ^ face.length)));
        spent.set(`${w.op} ${face}`, (spent.get(`${w.op} ${face}`) ?? 0) + performance.now() - t0);
        charged.set(face, before - (await balance(face)));
      }));
      const first = [...results.values()][0];
      for (const [face, r] of results) expect(r, `${w.op} over ${face}`).toBe(first);
      const c = [...charged.values()][0];
      for (const [face, x] of charged) expect(x, `${w.op} charged over ${face}`).toBe(c);
      // the price is the row's, from the validated record and the result
      const parsed = await parseRequest(row, w.input);
      const expected = parsed.ok && lastRest ? costOf(row, quote(row, DEFAULT_PRICES, parsed.value), parsed.value, lastRest as never).cost : 0;
      expect(c, `${w.op}: charged ${c}, the price list says ${expected}`).toBe(expected);
      n++;
      byOp.set(w.op, (byOp.get(w.op) ?? 0) + 1);
    }), { numRuns: Number(process.env.DK_PRICING_RUNS ?? 1000), seed: 20261125, endOnFailure: true });
    console.log([...spent].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, v]) => `${k} ${v.toFixed(0)} ms`).join('\n'));
    console.log(`pricing property: ${n} cases over ${FACES.length} faces: ${[...byOp].map(([k, v]) => `${k} ${v}`).join(', ')}`);
    // every account's charges against the work recorded
    for (const face of FACES) {
      const audit = await server.store.audit((await server.store.accountByName(face))!.id);
      for (const a of audit) expect(a.problems, face).toEqual([]);
    }
  }, 600_000);
});

describe('the letter case of a field never makes work free', () => {
  it('POST /rest/Geocode {"addresses": [40 addresses]} is geocoded and charged 40; "ADDRESSES" too; SOAP <addresses> too', async () => {
    const key = server.keys.plain;
    const forty = Array.from({ length: 40 }, (_, i) => ADDRESSES[i % ADDRESSES.length]);
    for (const body of [{ addresses: forty }, { ADDRESSES: forty }, { aDdReSsEs: forty, isneedmatchcode: true }]) {
      const before = await balance('plain');
      const r = await post(server.url, '/rest/Geocode', body, key);
      expect(r.status).toBe(200);
      expect(r.json.Items).toHaveLength(40);
      expect(before - (await balance('plain'))).toBe(40);
    }
  });

  it('a route costs one unit per 25 legs (a long route is not one credit); CalculateRoutes counts each route so', async () => {
    expect([2, 26, 27, 51, 52, 5001].map(routeUnits)).toEqual([1, 1, 2, 2, 3, 200]);
    const key = server.keys.plain;
    const locs = Array.from({ length: 30 }, (_, i) => ({ LatLong: pool[i % pool.length] }));
    const before = await balance('plain');
    const r = await post(server.url, '/rest/route', { locations: locs }, key);
    expect(r.json.Status).toBe(1);
    expect(before - (await balance('plain'))).toBe(2);
    const b2 = await balance('plain');
    await post(server.url, '/rest/routes', { specifications: [{ locations: locs }, { Locations: locs.slice(0, 3) }] }, key);
    expect(b2 - (await balance('plain'))).toBe(3);
  });

  it('each priced row counts from its validated record: Dispatch stops (not Start/Finish entries), less those left out', async () => {
    const row = OPERATIONS.Dispatch as ServiceOperation;
    const spec = row.spec!.safeParse({ locations: [{ Name: 'a', LatLong: pool[1] }, { Name: 'b', LatLong: pool[2] }, { Name: 'end', LocationType: 'Finish', LatLong: pool[0] }] });
    expect(spec.ok).toBe(true);
    if (!spec.ok) return;
    expect(row.maxUnits!(spec.value)).toBe(2);
    expect(row.units!(spec.value, { Status: 'SuccessWithErrors', Errors: [{ Message: "'b' was not dispatched" }] })).toBe(1);
    expect(row.units!(spec.value, { Status: 'Failed', Errors: [] })).toBe(0);
  });
});
