/**
 * The page's HTTP face without a browser (src/server/ui.ts): the session probe /ui/me and the
 * assets' revalidation. (The page itself in Chromium: test/ui/page.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessServer, type TestServer } from '../helpers/service.js';

let server: TestServer;
beforeAll(async () => {
  server = await inProcessServer({ accounts: [{ name: 'demo', credit: 1_000, password: 'demo' }] });
});
afterAll(() => server?.close());

describe('/ui/me', () => {
  it('without a session cookie: 200 and signed out (no 401 on every first visit); a stale cookie: 401; a session: the account', async () => {
    const none = await fetch(`${server.url}/ui/me`);
    expect(none.status).toBe(200);
    expect(await none.json()).toEqual({ Name: null, Credit: null });

    const stale = await fetch(`${server.url}/ui/me`, { headers: { Cookie: 'dk_session=not-a-session' } });
    expect(stale.status).toBe(401);

    const login = await fetch(`${server.url}/ui/login`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-DK-UI': '1' }, body: JSON.stringify({ UserName: 'demo', Password: 'demo' }) });
    expect(login.status).toBe(200);
    const session = login.headers.get('set-cookie')!.split(';')[0];
    const me = await fetch(`${server.url}/ui/me`, { headers: { Cookie: session } });
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ Name: 'demo', Credit: 1_000 });
  });
});

describe('/ui/rest/dataset', () => {
  it('the dataset\'s name, attribution and extent (its road graph\'s bounding box, west,south,east,north) and centre; the same answer twice', async () => {
    const a = (await (await fetch(`${server.url}/ui/rest/dataset`)).json()) as { Bounds: number[]; Center: number[]; Attribution: string; Status: string };
    expect(a.Status).toBe('Success');
    const b = server.engine.dataset.graph.bbox();
    expect(a.Bounds).toEqual([b.minLon, b.minLat, b.maxLon, b.maxLat]);
    expect(a.Center).toEqual([(b.minLat + b.maxLat) / 2, (b.minLon + b.maxLon) / 2]);
    expect(a.Bounds[0]).toBeGreaterThan(7.3);
    expect(a.Bounds[2]).toBeLessThan(7.5);
    expect(a.Attribution).toContain('OpenStreetMap');
    expect(await (await fetch(`${server.url}/ui/rest/dataset`)).json()).toEqual(a);
  });
});

describe('assets', () => {
  for (const path of ['/', '/ui/assets/app.js', '/ui/vendor/leaflet/leaflet.js']) {
    it(`${path}: an ETag, and a 304 without a body when it matches (a different one: 200 with the body)`, async () => {
      const first = await fetch(`${server.url}${path}`);
      expect(first.status).toBe(200);
      const body = await first.text();
      expect(body.length).toBeGreaterThan(100);
      const etag = first.headers.get('etag')!;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      expect(first.headers.get('cache-control')).toBe('no-cache');

      const again = await fetch(`${server.url}${path}`, { headers: { 'If-None-Match': `"other", ${etag}` } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');

      const weak = await fetch(`${server.url}${path}`, { headers: { 'If-None-Match': `W/${etag}` } });
      expect(weak.status).toBe(304);

      const changed = await fetch(`${server.url}${path}`, { headers: { 'If-None-Match': '"stale"' } });
      expect(changed.status).toBe(200);
      expect(await changed.text()).toBe(body);
    });
  }
});
