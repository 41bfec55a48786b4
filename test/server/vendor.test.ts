/**
 * The page's clustering library from the package (src/server/vendor.ts): supercluster's UMD build
 * served as one ES module at /ui/vendor/supercluster/supercluster.js, headed by the licences of
 * supercluster and of the kdbush it bundles; it loads as a module (no global), clusters, and is
 * cached like the page's other assets (ETag, 304).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inProcessServer, type TestServer } from '../helpers/service.js';

let server: TestServer;
beforeAll(async () => { server = await inProcessServer(); });
afterAll(() => server?.close());

const PATH = '/ui/vendor/supercluster/supercluster.js';

describe('supercluster for the page', () => {
  it('is one ES module headed by both licences, served with an ETag (304 when unchanged)', async () => {
    const r = await fetch(`${server.url}${PATH}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/javascript/);
    const text = await r.text();
    const head = text.slice(0, text.indexOf('const module'));
    expect(head).toMatch(/supercluster \d+\.\d+\.\d+[\s\S]*ISC License[\s\S]*Copyright \(c\) \d{4}, Mapbox/);
    expect(head).toMatch(/kdbush \d+\.\d+\.\d+[\s\S]*ISC License[\s\S]*Vladimir Agafonkin/);
    expect(text).toMatch(/export default module\.exports;\s*$/);
    const etag = r.headers.get('etag')!;
    expect(etag).toBeTruthy();
    expect((await fetch(`${server.url}${PATH}`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
    expect((await fetch(`${server.url}/ui/vendor/supercluster/../../../package.json`)).status).toBe(404);
  });

  it('loads as a module without a global and clusters points', async () => {
    const text = await (await fetch(`${server.url}${PATH}`)).text();
    const file = join(mkdtempSync(join(tmpdir(), 'dk-vendor-')), 'supercluster.mjs');
    writeFileSync(file, text);
    const Supercluster = (await import(pathToFileURL(file).href)).default as new (o: object) => {
      load(points: object[]): void;
      getClusters(bbox: number[], zoom: number): { properties: { cluster?: boolean; point_count?: number } }[];
    };
    expect((globalThis as Record<string, unknown>).Supercluster).toBeUndefined();
    const index = new Supercluster({ radius: 50, extent: 256, maxZoom: 17 });
    index.load(Array.from({ length: 1000 }, (_, i) => ({ type: 'Feature', properties: { i }, geometry: { type: 'Point', coordinates: [7.41 + (i % 40) * 0.0007, 43.727 + Math.floor(i / 40) * 0.0005] } })));
    const far = index.getClusters([7.3, 43.6, 7.5, 43.8], 12);
    expect(far.length).toBeLessThan(20);
    expect(far.reduce((a, f) => a + (f.properties.cluster ? f.properties.point_count! : 1), 0)).toBe(1000);
    expect(index.getClusters([7.3, 43.6, 7.5, 43.8], 18).length).toBe(1000);
  });
});
