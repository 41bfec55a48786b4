/**
 * Jobs through real HTTP with the in-process backend (no Redis): POST /rest/jobs → JobID, GET
 * /rest/jobs/{id} → state, progress and result, DELETE → cancelled; credit reserved at submission
 * and settled once at the end; the page's /ui/rest/jobs with server-sent events. (Jobs on Redis with
 * worker processes and their faults: queue.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine.js';
import type { Store } from '../../src/store/types.js';
import { Service } from '../../src/service/service.js';
import { Jobs, LocalJobBackend } from '../../src/service/jobs.js';
import { EXAMPLES } from '../../src/server/openapi.js';
import { reachablePool } from '../helpers/monaco-stops.js';
import { inProcessServer, post, type TestServer } from '../helpers/service.js';

let engine: Engine;
let store: Store;
let service: Service;
let jobs: Jobs;
let url: string;
let key: string;
let poorKey: string;

let server: TestServer;
beforeAll(async () => {
  server = await inProcessServer({
    accounts: [{ name: 'demo', credit: 100_000, password: 'demo' }, { name: 'poor', credit: 2 }],
    jobs: (s) => (jobs = new Jobs(s, new LocalJobBackend(s))),
  });
  ({ engine, store, service, url } = server);
  key = server.keys.demo;
  poorKey = server.keys.poor;
});
afterAll(() => server?.close());

async function getJob(id: string, k = key, q = ''): Promise<{ status: number; json: any }> {
  const r = await fetch(`${url}/rest/jobs/${id}${q}`, { headers: { 'X-API-Key': k } });
  return { status: r.status, json: await r.json() };
}

async function waitFinal(id: string): Promise<any> {
  for (let i = 0; i < 600; i++) {
    const j = (await getJob(id)).json;
    if (['completed', 'failed', 'cancelled'].includes(j.State)) return j;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`job ${id} did not finish`);
}

const balance = async (name: string): Promise<number> => (await store.accountByName(name))!.balance;

function bigDispatch(n: number, effort: number): Record<string, unknown> {
  const pool = reachablePool(engine);
  const pts = Array.from({ length: n }, (_, i) => pool[i % pool.length]);
  return {
    CurrentTime: '2026-12-01T09:00:00', DistanceUnit: 1, MinimumOptimization: effort,
    Vehicles: [{ Name: 'V1', StartLocation: { LatLong: pool[0] } }, { Name: 'V2', StartLocation: { LatLong: pool[0] } }],
    Locations: pts.map((p, i) => ({ Name: `S${i}`, LatLong: { Latitude: p.Latitude + (i >= pool.length ? 1e-5 * i : 0), Longitude: p.Longitude } })),
  };
}

describe('jobs over REST (in-process backend)', () => {
  it('a Dispatch job: 202 with a JobID, then completed with the same result as the synchronous call, credit reserved at submission and settled once, the route stored', async () => {
    const before = await balance('demo');
    const r = await post(url, '/rest/jobs', { Operation: 'Dispatch', Specification: EXAMPLES.Dispatch }, key);
    expect(r.status).toBe(202);
    expect(r.json.JobID).toMatch(/^[0-9a-f-]{36}$/);
    const j = await waitFinal(r.json.JobID);
    expect(j).toMatchObject({ State: 'completed', Operation: 'Dispatch', Cost: 3, Attempts: 1 });
    expect(j.Result.Status).toBe(1); // integer enums by default
    const sync = await post(url, '/rest/dispatch', EXAMPLES.Dispatch, key);
    expect(j.Result).toEqual(sync.json);
    expect(j.RouteID).toBeGreaterThan(0);
    const stored = await post(url, '/rest/getroute', { RouteID: j.RouteID }, key);
    expect(stored.json).toEqual(sync.json);
    expect(await balance('demo')).toBe(before - 6);
    const named = await getJob(r.json.JobID, key, '?enums=name');
    expect(named.json.Result.Status).toBe('Success');
    const acct = (await store.accountByName('demo'))!;
    expect(await store.ledgerSum(acct.id)).toBe(acct.balance);
  });

  it('progress while it runs; DELETE cancels: state cancelled, the credit refunded in full, nothing stored', async () => {
    const before = await balance('demo');
    const routes = (await store.listRoutes((await store.accountByName('demo'))!.id)).length;
    const r = await post(url, '/rest/jobs', { Operation: 'Dispatch', Specification: bigDispatch(80, 9) }, key);
    expect(await balance('demo')).toBe(before - 80); // reserved at submission
    let progress = null;
    for (let i = 0; i < 400 && !progress; i++) {
      const j = (await getJob(r.json.JobID)).json;
      if (j.State === 'active' && j.Progress) progress = j.Progress;
      else await new Promise((res) => setTimeout(res, 25));
    }
    expect(progress).toMatchObject({ phase: expect.any(String), done: expect.any(Number), total: expect.any(Number) });
    const del = await fetch(`${url}/rest/jobs/${r.json.JobID}`, { method: 'DELETE', headers: { 'X-API-Key': key } });
    expect(del.status).toBe(200);
    expect(((await del.json()) as { State: string }).State).toBe('cancelled');
    const j = await waitFinal(r.json.JobID);
    expect(j).toMatchObject({ State: 'cancelled', Cost: 0 });
    await new Promise((res) => setTimeout(res, 300)); // the run notices within a second and stops
    expect(await balance('demo')).toBe(before);
    expect((await store.listRoutes((await store.accountByName('demo'))!.id)).length).toBe(routes);
  });

  it('refusals: 401 without a key, 403 without the credit (nothing queued), 400 an unknown operation, 404 another account\'s job', async () => {
    expect((await post(url, '/rest/jobs', { Operation: 'Dispatch', Specification: EXAMPLES.Dispatch })).status).toBe(401);
    const poor = await post(url, '/rest/jobs', { Operation: 'Geocode', Specification: { Addresses: [{ City: 'Monaco' }, { City: 'Monaco' }, { City: 'Monaco' }] } }, poorKey);
    expect(poor.status).toBe(403);
    expect(poor.json.Errors[0].Message).toContain('Not enough credit');
    const bad = await post(url, '/rest/jobs', { Operation: 'Login', Specification: {} }, key);
    expect(bad.status).toBe(400);
    expect(bad.json.Errors[0].Message).toMatch(/^Operation: must be one of Dispatch, CalculateRoutes, Geocode/);
    // no or a bad Specification: 400, nothing submitted (was 202 with Location /rest/jobs/undefined)
    for (const body of [{ Operation: 'Dispatch' }, {}, { Operation: 'Dispatch', Specification: [] }]) {
      const r = await fetch(`${url}/rest/jobs`, { method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.headers.get('location')).toBeNull();
      expect(((await r.json()) as { Errors: { Message: string }[] }).Errors[0].Message).toMatch(/Specification|Operation/);
    }
    // a JobID past Fastify's 100-character parameter cut still gets the record's answer naming JobID
    const long = await getJob('a'.repeat(150));
    expect(long.status).toBe((await getJob('not~an~id')).status); // as a short bad one (was Fastify's 414)
    expect(long.json.Errors[0].Message).toMatch(/^JobID/);
    const mine = await post(url, '/rest/jobs', { operation: 'geocode', specification: EXAMPLES.Geocode }, key);
    expect(mine.status).toBe(202);
    expect((await getJob(mine.json.JobID, poorKey)).status).toBe(404);
    expect((await waitFinal(mine.json.JobID)).State).toBe('completed');
  });

  it('a job whose operation answers Failed completes with that result and costs nothing', async () => {
    const before = await balance('demo');
    const r = await post(url, '/rest/jobs', { Operation: 'CalculateRoutes', Specification: { Specifications: [{ Locations: [{ LatLong: { Latitude: 95, Longitude: 7 } }] }] } }, key);
    const j = await waitFinal(r.json.JobID);
    expect(j.State).toBe('completed');
    expect(j.Cost).toBe(0);
    expect(await balance('demo')).toBe(before);
  });
});

describe('the page\'s jobs', () => {
  it('/ui/rest/jobs with the session cookie, and server-sent events until the job ends', async () => {
    const login = await fetch(`${url}/ui/login`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-DK-UI': '1' }, body: JSON.stringify({ UserName: 'demo', Password: 'demo' }) });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie')!;
    expect(cookie).toMatch(/dk_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict/);
    const session = cookie.split(';')[0];
    // without the anti-CSRF header: refused
    const csrf = await fetch(`${url}/ui/rest/jobs`, { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: session }, body: JSON.stringify({ Operation: 'Dispatch', Specification: EXAMPLES.Dispatch }) });
    expect(csrf.status).toBe(403);
    const sub = await fetch(`${url}/ui/rest/jobs`, { method: 'POST', headers: { 'Content-Type': 'application/json', Cookie: session, 'X-DK-UI': '1' }, body: JSON.stringify({ Operation: 'Dispatch', Specification: EXAMPLES.Dispatch }) });
    expect(sub.status).toBe(202);
    const { JobID } = await sub.json() as { JobID: string };
    const ev = await fetch(`${url}/ui/rest/jobs/${JobID}/events`, { headers: { Cookie: session } });
    expect(ev.headers.get('content-type')).toContain('text/event-stream');
    const text = await ev.text();
    const updates = [...text.matchAll(/event: update\ndata: (.*)\n\n/g)].map((m) => JSON.parse(m[1]));
    expect(updates.length).toBeGreaterThanOrEqual(1);
    expect(updates.at(-1)).toMatchObject({ JobID, State: 'completed', Result: { Status: 'Success' } });
  });
});

describe('two servers on one database (in-process jobs)', () => {
  // a second server's recovery took over the first one's live jobs (no grace): each of its starts
  // ran the job again, and the third failed a healthy job ("Gave up after 3 attempts")
  it('neither takes the other\'s running or waiting jobs; a job left by a server that closed is taken over after the grace', async () => {
    let a!: LocalJobBackend;
    const srv = await inProcessServer({
      accounts: [{ name: 'acme', credit: 100_000 }],
      jobs: (s) => new Jobs(s, (a = new LocalJobBackend(s, { slots: 1 }))),
    });
    const b = new LocalJobBackend(srv.service);
    try {
      a.start(100, 2500);
      b.start(100, 2500); // the other server, on the same store
      const spec = { Operation: 'Dispatch', Specification: bigDispatch(80, 9) };
      const first = (await post(srv.url, '/rest/jobs', spec, srv.keys.acme)).json.JobID as string;
      // waits behind the first; a short one (effort 3), so that B's run of it ends soon on a loaded machine
      const second = (await post(srv.url, '/rest/jobs', { Operation: 'Dispatch', Specification: bigDispatch(80, 3) }, srv.keys.acme)).json.JobID as string;
      await new Promise((r) => setTimeout(r, 4000)); // past the grace: both still A's
      const rows = await Promise.all([first, second].map((id) => srv.store.getJob(id)));
      expect(rows.map((j) => j?.attempts)).toEqual([1, 0]);
      // A closes (its loop stops, its running job is aborted): B takes the job A held waiting over after the grace
      await a.close();
      for (let i = 0; i < 400; i++) {
        const js = await Promise.all([first, second].map((id) => srv.store.getJob(id)));
        if (js.every((j) => j && ['completed', 'failed', 'cancelled'].includes(j.state))) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const done = await Promise.all([first, second].map((id) => srv.store.getJob(id)));
      expect(done[1]).toMatchObject({ state: 'completed', attempts: 1 });
    } finally {
      await b.close();
      await srv.close();
    }
  }, 120_000);
});
