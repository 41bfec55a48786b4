/**
 * The dispatcher's page in Debian's Chromium (playwright-core driving /usr/bin/chromium, headless),
 * against a real server in this process (fastify on a free port, the Monaco fixture, SQLite in
 * memory, jobs in this process): sign in through the form, load 50 Monaco stops from a CSV
 * file, add vehicles, run, count the route lines and markers, read the tables and directions,
 * export JSON, CSV and GeoJSON and parse them; a 150-stop dispatch timed from submit to drawn;
 * a long solve cancelled during its progress. A page error, a console error (the page logs every
 * failed action there) or a failed request of the page fails the test.
 *
 * Screenshots and the measured timings go to a folder under the OS tmp dir (printed). With
 * UPDATE_DOCS_SCREENSHOT=1 the plan's screenshot is also written to docs/page.png.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { EXAMPLES } from '../../src/server/openapi.js';
import { CHROMIUM, DEPOT, FIXTURES, HAVE_CHROMIUM, PASSWORD, USER, usePage, type Tagged } from './harness.js';

if (!HAVE_CHROMIUM) console.warn(`test/ui/page.test.ts skipped: ${CHROMIUM} is missing (Debian's chromium package; .ci/run installs it).`);

const STOPS_50 = join(FIXTURES, 'monaco-50.csv');
const STOPS_150 = join(FIXTURES, 'monaco-150.csv');
const DOCS_SCREENSHOT = fileURLToPath(new URL('../../docs/page.png', import.meta.url));
const FIRST_PAINT_MS = 1000;
const DRAWN_150_MS = 3000;
/**
 * MinimumOptimization of the timed 150-stop dispatch: 1 by default, DK_PAGE_150_MO to choose.
 * At the page's default level 4 a 150-stop search ends on its iteration budget (20 per stop): it
 * is drawn in ~1.3 s on the development machine (DK_PAGE_150_MO=4, asserted against the same
 * target), but CI hosts have run this suite up to 2.2× slower, which would put level 4 at the
 * 3 s bound; level 1 (~0.25 s) keeps the assertion meaningful there without making it a coin flip.
 */
const MO_150 = process.env.DK_PAGE_150_MO ?? '1';

/** What the tests read of the page's elements inside functions that run in the browser (the project compiles without the DOM library). */
declare const document: {
  cookie: string;
  body: Tagged;
  querySelectorAll(selector: string): { length: number };
  getElementById(id: string): { textContent: string | null } | null;
};


describe.skipIf(!HAVE_CHROMIUM)("the dispatcher's page in Chromium", () => {
  const t = usePage('ui');
  let page: Page;
  const timings: Record<string, number | number[]> = {};
  const { expected401 } = t;
  const out = t.out;
  const url = (): string => t.url;
  const shot = (name: string): Promise<void> => t.shot(name);
  const count = (selector: string): Promise<number> => t.count(selector);
  /** A new page (its own cookie jar) that records the page's errors. */
  const openPage = async (): Promise<Page> => (page = await t.openPage());
  const signIn = (): Promise<void> => t.signIn();
  const addVehicle = (capacity: number): Promise<void> => t.addVehicle(capacity);
  const loadStops = (file: string): Promise<void> => t.loadStops(file);
  const runAndWait = (timeout = 90_000): Promise<string> => t.runAndWait(timeout);

  async function download(button: string): Promise<{ name: string; text: string }> {
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
    const path = await dl.path();
    return { name: dl.suggestedFilename(), text: readFileSync(path, 'utf8') };
  }

  afterAll(() => {
    writeFileSync(join(out, 'timings.json'), JSON.stringify(timings, null, 2));
    console.log(`page timings: ${JSON.stringify(timings)}`);
  });

  it('paints first within the target, from the package alone (no request leaves the server)', async () => {
    const paints: number[] = [];
    const ready: number[] = [];
    for (let i = 0; i < 5; i++) {
      page = await openPage();
      const foreign: string[] = [];
      page.on('request', (r) => { if (!r.url().startsWith(url()) && !r.url().startsWith('data:')) foreign.push(r.url()); });
      await page.goto(`${url()}/`);
      await page.waitForSelector('body[data-ready=true]');
      const t = await page.evaluate(() => ({
        paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
        ready: performance.getEntriesByName('dk-map-ready')[0]?.startTime ?? NaN,
      }));
      paints.push(Math.round(t.paint));
      ready.push(Math.round(t.ready));
      expect(foreign).toEqual([]);
    }
    await shot('01-signin');
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    timings.firstContentfulPaintMs = paints;
    timings.mapReadyMs = ready;
    expect(median(paints)).toBeLessThanOrEqual(FIRST_PAINT_MS);
    // the dataset's roads are the backdrop: a canvas, no tile images
    expect(await count('.leaflet-pane canvas')).toBeGreaterThan(0);
    expect(await count('img.leaflet-tile')).toBe(0);
  });

  it('signs in with a name and password: an HttpOnly session cookie the scripts cannot read, no API key', async () => {
    page = await openPage();
    await page.goto(`${url()}/`);
    await page.waitForSelector('#signin:not([hidden])');
    await page.fill('#username', USER);
    await page.fill('#password', 'wrong');
    expected401.add('/ui/login');
    await page.click('#signin-form button[type=submit]');
    await expect.poll(() => page.textContent('#signin-error'), { timeout: 10_000 }).toContain('Wrong user name or password');
    await page.fill('#password', PASSWORD);
    await page.click('#signin-form button[type=submit]');
    await page.waitForSelector('#account:not([hidden])');
    expected401.delete('/ui/login');
    expect(await page.textContent('#account-name')).toBe(USER);
    expect(await page.evaluate(() => document.cookie)).toBe('');
    const cookie = (await t.context.cookies()).find((c) => c.name === 'dk_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(await page.content()).not.toMatch(/dk_[A-Za-z0-9_-]{20,}|X-API-Key/i);
    // a reload keeps the session
    await page.reload();
    await page.waitForSelector('#account:not([hidden])');
    expect(await page.isHidden('#signin')).toBe(true);
  });

  it('adds stops and a vehicle\'s start by clicking the map', async () => {
    await page.waitForSelector('body[data-ready=true]');
    const box = (await page.locator('#map').boundingBox())!;
    await page.click('#click-mode');
    await page.mouse.click(box.x + box.width * 0.55, box.y + box.height * 0.5);
    await page.mouse.click(box.x + box.width * 0.6, box.y + box.height * 0.4);
    await page.click('#click-mode');
    expect(await page.textContent('#stop-count')).toBe('2');
    expect(await count('.dk-marker.dk-pending')).toBe(2);
    await page.click('#pick-start');
    await page.mouse.click(box.x + box.width * 0.5, box.y + box.height * 0.5);
    expect(await page.inputValue('#vehicle-form input[name=start]')).toMatch(/^43\.7\d*, 7\.4\d*$/);
    expect(await page.getAttribute('#pick-start', 'aria-pressed')).toBe('false');
    await page.click('#vehicle-form button[type=submit]');
    expect(await page.textContent('#vehicle-count')).toBe('1');
    expect(await count('.dk-marker.dk-depot')).toBe(1);
    expect(await page.isEnabled('#run')).toBe(true);
    await shot('02-clicked');
    await page.click('#clear-stops');
    await page.click('.vehicle-list .remove');
    expect(await page.isEnabled('#run')).toBe(false);
  });

  it('reads stop files: CSV with quotes, other separators and bad rows named by line; a DispatchSpecification; addresses geocoded', async () => {
    // the page's parser itself, in the page (a string: vitest would rewrite an import() in a function)
    const csv = '\uFEFFname;lat;lon;Weight;From\r\n"Quai ""A""; 1";43,73;7,42;2,5;09:30\r\nB;43.74;;1;\r\nC;x;7.42;;\r\n"D\nsecond line";43.735;7.425;;\r\n';
    const parsed = await page.evaluate(`import('/ui/assets/stops.js').then((m) => m.stopsFromCsv(${JSON.stringify(csv)}))`) as { locations: unknown[]; errors: string[] };
    expect(parsed.locations).toEqual([
      { Name: 'Quai "A"; 1', LatLong: { Latitude: 43.73, Longitude: 7.42 }, Weight: 2.5, TimeConstraintArrival: '09:30' },
      { Name: 'D\nsecond line', LatLong: { Latitude: 43.735, Longitude: 7.425 } },
    ]);
    expect(parsed.errors).toEqual(['line 3: Latitude and Longitude go together', 'line 4: Latitude "x" is not a number']);

    const spec = join(out, 'spec.json');
    writeFileSync(spec, JSON.stringify(EXAMPLES.Dispatch));
    await page.setInputFiles('#stops-file', spec);
    await expect.poll(() => page.textContent('#stop-count'), { timeout: 10_000 }).toBe('3');
    expect(await page.textContent('#vehicle-count')).toBe('1');
    expect(await page.inputValue('#mode')).toBe('Optima');
    expect(await page.inputValue('#unit')).toBe('Kilometer');
    expect(await count('.dk-marker.dk-pending')).toBe(3);

    const addresses = join(out, 'addresses.csv');
    writeFileSync(addresses, 'Name,Street,City\nBank,Boulevard des Moulins,Monaco\nShop,Avenue Princesse Grace,Monaco\n');
    await page.setInputFiles('#stops-file', addresses);
    await expect.poll(() => count('.dk-marker.dk-pending'), { timeout: 20_000 }).toBe(2);
    expect(await page.textContent('#stop-count')).toBe('2');
    await page.click('#clear-stops');
    await page.click('.vehicle-list .remove');
  });

  it('loads 50 stops from a CSV file, runs a dispatch on two vans and draws every route and marker', async () => {
    await page.waitForSelector('body[data-ready=true]');
    expect(await page.inputValue('#optimization'), 'the page\'s default MinimumOptimization').toBe('4');
    await loadStops(STOPS_50);
    expect(await page.textContent('#stop-count')).toBe('50');
    await addVehicle(60);
    await addVehicle(60);
    expect(await page.textContent('#vehicle-count')).toBe('2');
    await page.selectOption('#mode', 'Optima');
    await page.fill('#optimization', '2');
    await shot('03-stops-loaded');
    expect(await runAndWait()).toBe('completed');

    const routes = await page.$$eval('details.route', (els) => els.map((e) => ({ vehicle: (e as unknown as Tagged).dataset.vehicle, rows: e.querySelectorAll('tbody tr').length })));
    expect(routes.map((r) => r.vehicle).sort()).toEqual(['Van 1', 'Van 2']);
    // one line per vehicle, in its own color, on the roads (many points, not straight lines between stops)
    const lines = await page.$$eval('path.dk-route', (els) => els.map((e) => ({ vehicle: (e as unknown as Tagged).dataset.vehicle, color: e.getAttribute('stroke'), points: (e.getAttribute('d') ?? '').split(/[ML]/).length })));
    expect(lines.map((l) => l.vehicle).sort()).toEqual(['Van 1', 'Van 2']);
    expect(new Set(lines.map((l) => l.color)).size).toBe(2);
    for (const l of lines) expect(l.points).toBeGreaterThan(50);
    // markers: every stop (served or not) and the one shared depot
    const served = await count('.dk-marker.dk-stop');
    const unserved = await count('.dk-marker.dk-unserved');
    expect(served + unserved).toBe(50);
    expect(await count('.dk-marker.dk-depot')).toBe(1);
    expect(await count('.dk-marker.dk-pending')).toBe(0);
    // 2 × 60 of capacity for 125 of weight: some stops are left out, each with its reason
    expect(unserved).toBeGreaterThan(0);
    expect(await count('#unserved li')).toBe(unserved);
    // why, and the van closest to taking it (EvaluatePlan): by how much it misses the capacity
    expect(await page.textContent('#unserved')).toMatch(/Van \d comes closest .*: Van \d would carry [\d.]+ Weight where its MaxWeight is/);
    // the tables: each route's stops plus its start and finish rows, with ETAs
    expect(routes.reduce((a, r) => a + r.rows - 2, 0)).toBe(served);
    expect(await page.textContent('details.route[data-vehicle="Van 1"] tbody tr:nth-child(2) td:nth-child(3)')).toMatch(/^\d\d:\d\d$/);
    expect(await page.textContent('#summary')).toContain(`${served} of 50 stops on 2 vehicles`);
    await shot('04-plan');
    if (process.env.UPDATE_DOCS_SCREENSHOT) {
      await page.screenshot({ path: DOCS_SCREENSHOT });
      expect(statSync(DOCS_SCREENSHOT).size).toBeLessThan(300 * 1024);
    }

    // turn-by-turn directions of a route
    await page.click('details.route[data-vehicle="Van 1"] .directions-button');
    await page.waitForSelector('details.route[data-vehicle="Van 1"] .legs');
    const legs = await count('details.route[data-vehicle="Van 1"] .legs > li');
    expect(legs).toBe(routes.find((r) => r.vehicle === 'Van 1')!.rows - 1);
    expect(await page.textContent('details.route[data-vehicle="Van 1"] .steps li')).toMatch(/^Head /);
    await shot('05-directions');
  });

  it('exports the plan as JSON (the DispatchResult), CSV and GeoJSON', async () => {
    const json = await download('#export-json');
    expect(json.name).toMatch(/\.json$/);
    const result = JSON.parse(json.text);
    expect(result.Status).toBe('SuccessWithErrors');
    expect(result.Items.map((i: { Vehicle: { Name: string } }) => i.Vehicle.Name).sort()).toEqual(['Van 1', 'Van 2']);
    const unserved = await count('.dk-marker.dk-unserved');
    expect(result.Errors).toHaveLength(unserved);

    const csv = await download('#export-csv');
    const rows = csv.text.trim().split(/\r\n/);
    expect(rows[0]).toMatch(/^Vehicle,Sequence,Name,LocationType,Latitude,Longitude,TimeEstimatedArrival/);
    const locations = result.Items.reduce((a: number, i: { Locations: unknown[] }) => a + i.Locations.length, 0);
    expect(rows.length - 1).toBe(locations + unserved);
    expect(rows.filter((r) => r.includes(',no,')).length).toBe(unserved);

    const geo = await download('#export-geojson');
    expect(geo.name).toMatch(/\.geojson$/);
    const fc = JSON.parse(geo.text);
    expect(fc.type).toBe('FeatureCollection');
    const kinds = (k: string): { geometry: { type: string; coordinates: number[] }; properties: Record<string, unknown> }[] =>
      fc.features.filter((f: { properties: { kind: string } }) => f.properties.kind === k);
    expect(kinds('vehicle-route').map((f) => f.properties.vehicle).sort()).toEqual(['Van 1', 'Van 2']);
    for (const f of kinds('vehicle-route')) expect(f.geometry.type).toBe('LineString');
    expect(kinds('stop')).toHaveLength(locations);
    expect(kinds('unserved')).toHaveLength(unserved);
    for (const f of fc.features.filter((x: { geometry: { type: string } }) => x.geometry.type === 'Point')) {
      const [lon, lat] = f.geometry.coordinates;
      expect(lon).toBeGreaterThan(7.4);
      expect(lon).toBeLessThan(7.45);
      expect(lat).toBeGreaterThan(43.72);
      expect(lat).toBeLessThan(43.76);
    }
    writeFileSync(join(out, 'plan.geojson'), geo.text);
  });

  it('follows the plan live: a van\'s position, a stop done greyed; an order added on the map joins at "Re-plan now", with the change list', async () => {
    // today's plan (the one above is on a loaded specification's date): vans on shift all day (00:00–23:59 UTC),
    // on the day of the next half hour: in the day's last half hour, tomorrow's (today's shifts would end before
    // the re-plan below, or before the vans are done with the stops they are at)
    while (await count('#vehicle-list .remove')) await page.click('#vehicle-list .remove');
    for (let k = 0; k < 2; k++) {
      await page.fill('#vehicle-form input[name=tin]', '00:00');
      await page.fill('#vehicle-form input[name=tout]', '23:59');
      await addVehicle(60);
    }
    await page.fill('#date', new Date(Date.now() + 30 * 60_000).toISOString().slice(0, 10));
    await page.dispatchEvent('#date', 'change');
    await page.fill('#optimization', '2');
    expect(await runAndWait()).toBe('completed');
    await page.waitForSelector('#live:not([hidden])');
    await page.waitForFunction(() => /version 1/.test(document.getElementById('live-state')?.textContent ?? ''));
    const rest = async (path: string, body: unknown): Promise<any> => (await fetch(`${url()}/rest/${path}?enums=name`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-Key': t.apiKey }, body: JSON.stringify(body) })).json();
    const routeId = (await rest('routelist', {})).Routes[0].RouteID;
    const plan = await rest('getroute', { RouteID: routeId });
    const van = plan.Items.find((i: any) => i.Vehicle.Name === 'Van 1');
    const first = van.Locations.find((l: any) => l.LocationType !== 'Start');
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString().slice(0, 19) + 'Z';
    expect((await rest('stopevents', { RouteID: routeId, Events: [{ Vehicle: 'Van 1', Location: first.Name, Event: 'Done', TimeStamp: iso(now - 60_000) }] })).Status).toBe('Success');
    expect((await rest('trackpoints', { Account: 'Van 1', TrackPoints: [{ ...first.LatLong, TimeStamp: iso(now - 30_000) }] })).Status).toBe('Success');
    // the stream brings the change: the van on the map, its stop greyed
    await page.waitForSelector('.dk-marker.dk-van', { timeout: 20_000 });
    await page.waitForSelector('.dk-marker.dk-done');
    expect(await page.textContent('#live-vehicles li[data-vehicle="Van 1"]')).toMatch(/1 done/);
    // the driver of Van 2 reports its next stop done from the page
    await page.click('#live-vehicles li[data-vehicle="Van 2"] button[data-event=Done]');
    await page.waitForFunction(() => /1 done/.test(document.getElementById('live-vehicles')?.textContent?.split('Van 2')[1] ?? ''));
    await shot('06-live');
    // an order on the map, then a re-plan from now
    await page.click('#add-order');
    // a corner of the map clear of the plan's markers (a click on a marker is not a click on the map)
    const box = (await page.locator('#map').boundingBox())!;
    await page.mouse.click(box.x + box.width * 0.15, box.y + box.height * 0.85);
    await page.waitForSelector('.dk-marker.dk-order');
    await page.click('#add-order');
    await page.click('#replan');
    await page.waitForSelector('#changes:not([hidden])', { timeout: 60_000 });
    expect(await page.textContent('#changes')).toMatch(/Version 2/);
    expect(await page.textContent('#changes')).toContain('Order 1');
    await page.waitForFunction(() => /version 2/.test(document.getElementById('live-state')?.textContent ?? ''));
    expect(await count('.dk-marker.dk-order')).toBe(0);
    // the stop done is no longer in a route, and not "not served" either
    expect(await page.textContent('#routes')).not.toContain(first.Name);
    expect(await page.textContent('#unserved')).not.toContain(first.Name);
    await shot('07-replanned');
  });

  it('draws a 150-stop dispatch within the target after submit', async () => {
    await page.click('#clear-stops');
    while ((await count('.vehicle-list .remove')) > 0) await page.click('.vehicle-list .remove >> nth=0');
    await loadStops(STOPS_150);
    for (let i = 0; i < 3; i++) await addVehicle(150);
    await page.selectOption('#mode', 'Auto');
    await page.fill('#optimization', MO_150);
    const t0 = Date.now();
    await page.click('#run');
    await page.waitForFunction(() => document.querySelectorAll('path.dk-route').length > 0 && document.body.dataset.run === 'completed', undefined, { timeout: 60_000 });
    const wall = Date.now() - t0;
    const inPage = await page.evaluate(() => [
      performance.measure('dk-draw', 'dk-run', 'dk-plan-drawn').duration,
      performance.measure('dk-solve', 'dk-run', 'dk-solved').duration,
    ]);
    timings.drawn150Ms = Math.round(wall);
    // in the page: submit → plan drawn, and of it submit → the job's result received
    timings.drawn150InPageMs = Math.round(inPage[0]);
    timings.solved150InPageMs = Math.round(inPage[1]);
    expect(await count('path.dk-route')).toBe(3);
    expect((await count('.dk-marker.dk-stop')) + (await count('.dk-marker.dk-unserved'))).toBe(150);
    expect(await count('.dk-marker.dk-depot')).toBe(1);
    await shot('06-plan-150');
    expect(inPage[0]).toBeLessThanOrEqual(DRAWN_150_MS);
  });

  it('shows a long solve\'s progress live and cancels it (nothing charged)', async () => {
    const credit = await page.textContent('#account-credit');
    await page.fill('#optimization', '8');
    await page.click('#run');
    // progress from the job's event stream: the solver's iterations
    await page.waitForFunction(() => /Optimising: \d+ %/.test(document.getElementById('progress-text')?.textContent ?? ''), undefined, { timeout: 30_000 });
    expect(await page.isVisible('#cancel')).toBe(true);
    await shot('07-progress');
    await page.click('#cancel');
    await page.waitForSelector('#run-state[data-state=cancelled]', { timeout: 15_000 });
    expect(await page.textContent('#run-state')).toContain('Cancelled');
    expect(await page.isHidden('#progress')).toBe(true);
    expect(await count('path.dk-route')).toBe(0);
    await expect.poll(() => page.textContent('#account-credit'), { timeout: 10_000 }).toBe(credit);
    await shot('08-cancelled');
  });
});
