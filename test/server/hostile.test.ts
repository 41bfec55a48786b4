/**
 * What a hostile trial found, each fixed: Login attempts limited per (user name, address) so no
 * one can lock a user out from elsewhere, and password hashing bounded per address (made-up user
 * names cannot slow a real Login down); any Content-Type on REST, SOAP faults on the SOAP face;
 * one account's long jobs never hold another account's job queued; `serve --prefix` and a worker
 * that says when no server uses its queue; a DELETE during a large job's setup frees the jobs at
 * once; bounded sizes refused as TooBig before any work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { Jobs, LocalJobBackend } from '../../src/service/jobs.js';
import { isRefusal } from '../../src/service/refusals.js';
import { reachablePool, type LL } from '../helpers/monaco-stops.js';
import { inProcessServer, post, type TestServer } from '../helpers/service.js';
import { CLI, ROOT } from '../helpers/cli.js';

let server: TestServer;
let pool: LL[];
beforeAll(async () => {
  server = await inProcessServer({
    accounts: [{ name: 'alice', credit: 1e9, password: 'right' }, { name: 'bob', credit: 1e9 }, { name: 'carol', credit: 1e9 }],
    jobs: (s) => new Jobs(s, new LocalJobBackend(s)),
    service: { jobTimeLimitMs: 4000 },
  });
  pool = reachablePool(server.engine);
});
afterAll(() => server?.close());

const login = (user: string, password: string, client: string) => server.service.call('Login', { UserName: user, Password: password }, { client });
const status = (o: Awaited<ReturnType<typeof login>>): string => (isRefusal(o) ? o.code : `${o.result.Status}: ${o.result.Message}`);

describe('Login under attack', () => {
  it('wrong passwords from one address delay that address only: the user signs in from another at once, her key and sessions untouched', async () => {
    const session = await login('alice', 'right', '10.0.0.1');
    expect(status(session)).toMatch(/^Success/);
    const sessionKey = String((session as unknown as { result: { Key: string } }).result.Key);
    for (let i = 0; i < 12; i++) await login('alice', 'wrong', '10.6.6.6');
    const locked = await login('alice', 'right', '10.6.6.6');
    expect(status(locked)).toMatch(/Too many failed Login attempts for this user name from this address: retry in \d+ s/);
    // elsewhere: at once
    const t = performance.now();
    expect(status(await login('alice', 'right', '10.0.0.2'))).toMatch(/^Success/);
    expect(performance.now() - t).toBeLessThan(1000);
    // the API key and the open session still work
    expect(isRefusal(await server.service.call('CreditRemaining', undefined, { key: server.keys.alice }))).toBe(false);
    expect(isRefusal(await server.service.call('CreditRemaining', undefined, { key: sessionKey }))).toBe(false);
  });

  it('the delays grow with each failure past five, and a success clears them', async () => {
    const clock = { now: 1_000_000 };
    const { LoginGuard } = await import('../../src/service/login-guard.js');
    const g = new LoginGuard({ clock: () => clock.now, hashesPerAddress: { perSecond: 0 } });
    const waits: number[] = [];
    for (let i = 0; i < 9; i++) {
      clock.now += 600_000; // past any delay, within the hour that keeps the count
      const v = g.admit('bob', 'x');
      expect(v.ok).toBe(true);
      if (v.ok) v.release();
      g.record('bob', 'x', false);
      const after = g.admit('bob', 'x');
      waits.push(after.ok ? 0 : Number(/retry in (\d+) s/.exec(after.message)![1]));
      if (after.ok) after.release();
    }
    expect(waits).toEqual([0, 0, 0, 0, 1, 2, 4, 8, 16]);
    // another address is not delayed
    const other = g.admit('bob', 'y');
    expect(other.ok).toBe(true);
    if (other.ok) other.release();
    clock.now += 3_600_000;
    const ok = g.admit('bob', 'x');
    expect(ok.ok).toBe(true);
    if (ok.ok) ok.release();
    g.record('bob', 'x', true);
    const again = g.admit('bob', 'x');
    expect(again.ok).toBe(true);
  });

  it('800 Logins with made-up user names from one address: most are turned away without hashing, and a real Login from elsewhere takes well under a second', async () => {
    const t0 = performance.now();
    const flood = await Promise.all(Array.from({ length: 800 }, (_, i) => login(`nobody-${i}`, 'x', '203.0.113.9')));
    const floodMs = performance.now() - t0;
    const turned = flood.filter((o) => /Too many Login attempts from this address|busy with Login/.test(status(o))).length;
    expect(turned).toBeGreaterThanOrEqual(700);
    const t = performance.now();
    expect(status(await login('alice', 'right', '198.51.100.7'))).toMatch(/^Success/);
    const ms = performance.now() - t;
    console.log(`login flood: 800 attempts in ${floodMs.toFixed(0)} ms, ${turned} turned away without hashing; a real Login then took ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(1000);
  });
});

describe('Content-Type', () => {
  const body = () => JSON.stringify({ StartLocation: { LatLong: pool[0] }, FinishLocation: { LatLong: pool[1] }, DistanceUnit: 1 });
  for (const ct of [undefined, '', 'text/plain', 'garbage', 'application/x-www-form-urlencoded']) {
    it(`REST takes ${JSON.stringify(ct)} as JSON; the SOAP endpoint answers it with a SOAP 1.1 fault (415)`, async () => {
      const headers: Record<string, string> = { 'X-API-Key': server.keys.bob };
      if (ct !== undefined) headers['Content-Type'] = ct;
      const r = await fetch(`${server.url}/rest/distance`, { method: 'POST', headers, body: body() });
      expect(r.status).toBe(200);
      expect(((await r.json()) as { Status: number }).Status).toBe(1);
      const s = await fetch(`${server.url}/TrackService.asmx`, { method: 'POST', headers, body: '<x/>' });
      expect(s.status).toBe(415);
      expect(s.headers.get('content-type')).toMatch(/^text\/xml/);
      const text = await s.text();
      expect(text).toContain('<faultcode>soap:Client</faultcode>');
      // (without a Content-Type, fetch sends its own text/plain for a string body)
      expect(text).toContain(ct === undefined ? 'got "text/plain' : `got "${ct === '' ? 'none' : ct}"`);
    });
  }
});

describe('jobs share the machine fairly between accounts', () => {
  it("one account's three long jobs do not hold another account's job queued: it starts at once and ends long before them", async () => {
    const heavy = {
      MinimumOptimization: 10, DispatchMode: 'Optima',
      Vehicles: [{ Name: 'V', StartLocation: { LatLong: pool[0] } }, { Name: 'W', StartLocation: { LatLong: pool[0] } }],
      Locations: Array.from({ length: 60 }, (_, i) => ({ Name: `S${i}`, LatLong: { Latitude: pool[i % pool.length].Latitude + (i % 5) * 1e-5, Longitude: pool[i % pool.length].Longitude } })),
    };
    const small = { Addresses: [{ Street: 'Boulevard des Moulins', City: 'Monaco' }] };
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await post(server.url, '/rest/jobs', { Operation: 'Dispatch', Specification: heavy }, server.keys.carol)).json.JobID);
    await new Promise((r) => setTimeout(r, 300));
    const t = performance.now();
    const mine = (await post(server.url, '/rest/jobs', { Operation: 'Geocode', Specification: small }, server.keys.bob)).json.JobID as string;
    let ended = 0;
    for (;;) {
      const j = await (await fetch(`${server.url}/rest/jobs/${mine}`, { headers: { 'X-API-Key': server.keys.bob } })).json() as { State: string };
      if (j.State === 'completed') { ended = performance.now() - t; break; }
      await new Promise((r) => setTimeout(r, 20));
    }
    const states = await Promise.all(ids.map(async (id) => ((await (await fetch(`${server.url}/rest/jobs/${id}`, { headers: { 'X-API-Key': server.keys.carol } })).json()) as { State: string }).State));
    console.log(`fair jobs: bob's Geocode job ended ${ended.toFixed(0)} ms after submission; carol's dispatches: ${states.join(', ')}`);
    expect(ended).toBeLessThan(2000);
    // carol's first job is still running (4 s limit) and her others wait for it (one at a time per account)
    expect(states.filter((s) => s === 'completed')).toHaveLength(0);
    for (const id of ids) await fetch(`${server.url}/rest/jobs/${id}`, { method: 'DELETE', headers: { 'X-API-Key': server.keys.carol } });
  });
});

describe('a DELETE during a large job\'s setup', () => {
  it('ends the job and frees the jobs queue within a second (the setup stops at its next check)', async () => {
    const big = {
      MinimumOptimization: 4,
      Vehicles: Array.from({ length: 20 }, (_, v) => ({ Name: `V${v}`, StartLocation: { LatLong: pool[0] } })),
      Locations: Array.from({ length: 3000 }, (_, i) => ({ Name: `S${i}`, LatLong: { Latitude: pool[i % pool.length].Latitude + ((i * 7) % 13) * 2e-5, Longitude: pool[i % pool.length].Longitude + ((i * 3) % 11) * 2e-5 } })),
    };
    const id = (await post(server.url, '/rest/jobs', { Operation: 'Dispatch', Specification: big }, server.keys.bob)).json.JobID as string;
    // into its setup (placement, matrix)
    for (;;) {
      const j = await (await fetch(`${server.url}/rest/jobs/${id}`, { headers: { 'X-API-Key': server.keys.bob } })).json() as { State: string };
      if (j.State === 'active') break;
      await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => setTimeout(r, 300));
    const t = performance.now();
    const d = await (await fetch(`${server.url}/rest/jobs/${id}`, { method: 'DELETE', headers: { 'X-API-Key': server.keys.bob } })).json() as { State: string };
    expect(d.State).toBe('cancelled');
    // the next job of the same account starts and ends promptly: the queue is free
    const next = (await post(server.url, '/rest/jobs', { Operation: 'Geocode', Specification: { Addresses: [{ City: 'Monaco' }] } }, server.keys.bob)).json.JobID as string;
    for (;;) {
      const j = await (await fetch(`${server.url}/rest/jobs/${next}`, { headers: { 'X-API-Key': server.keys.bob } })).json() as { State: string };
      if (j.State === 'completed') break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const ms = performance.now() - t;
    console.log(`cancel during setup: the next job completed ${ms.toFixed(0)} ms after the DELETE`);
    expect(ms).toBeLessThan(1500);
  });
});

describe('serve and worker agree on a queue prefix', () => {
  it('serve --prefix needs --redis (a clear error)', () => {
    const r = spawnSync(process.execPath, [...CLI, 'serve', '--prefix', 'x', '--port', '0'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/--prefix names the Redis keys of --redis/);
  });

  const REDIS = process.env.REDIS_URL;
  it.skipIf(!REDIS)(`a worker whose prefix no server uses says so${REDIS ? '' : ' (skipped: REDIS_URL is not set)'}`, async () => {
    const child = spawn(process.execPath, [...CLI, 'worker', '--redis', REDIS!, '--prefix', `nobody-${process.pid}`, '--db', 'sqlite::memory:', '--threads', '1'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
    const seen = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 45_000);
      child.stderr!.on('data', () => { if (/no server has used/.test(err)) { clearTimeout(timer); resolve(true); } });
    });
    child.kill('SIGKILL');
    expect(seen, err).toBe(true);
    expect(err).toMatch(/prefix 'nobody-\d+'/);
    expect(err).toMatch(/serve --redis … --prefix nobody-\d+/);
  }, 60_000);
});
