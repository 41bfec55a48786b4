/**
 * The dispatcher's page against a hostile trial of its input (issue #25 item 7), in Debian's
 * Chromium (playwright-core, headless) against a real server in this process — the harness of
 * test/ui/harness.ts: a Windows-1252 CSV read as such and said so; files read through the API's
 * record rules (CheckSpecification), taken whole or refused with the field named; the CLI's
 * multilingual CSV columns; the working day kept across reloads per account; an ended session
 * spoken of as a session; an old "Done" cleared by a change; the linter's warnings (FleetTooSmall
 * on 10,000 stops) under the Run button before running. A page error, an unexpected console error
 * or a failed request fails the test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Page } from 'playwright-core';
import { csvRecords, detectHeader } from '../../src/cli/csv.js';
import { CHROMIUM, FIXTURES, HAVE_CHROMIUM, USER, usePage } from './harness.js';

if (!HAVE_CHROMIUM) console.warn(`test/ui/page-input.test.ts skipped: ${CHROMIUM} is missing (Debian's chromium package; .ci/run installs it).`);

const STOPS_50 = join(FIXTURES, 'monaco-50.csv');
const OTHER = 'planner';
const SIGNED_OUT = 'You are signed out (your session ended): sign in again.';

/** What the tests read of the page inside functions that run in the browser (the project compiles without the DOM library). */
declare const document: {
  body: { innerText: string; dataset: Record<string, string | undefined> };
  querySelectorAll(selector: string): { length: number };
  getElementById(id: string): { textContent: string | null; hidden?: boolean } | null;
};
declare const localStorage: { getItem(k: string): string | null };

describe.skipIf(!HAVE_CHROMIUM)("the dispatcher's page: input, session and checks", () => {
  const t = usePage('ui-input', { accounts: [OTHER] });
  let page: Page;
  const out = t.out;
  const figures: Record<string, number> = {};
  const { signInHere, addVehicle, runAndWait } = t;

  async function signOut(): Promise<void> {
    await page.click('#sign-out');
    await page.waitForSelector('#signin:not([hidden])');
  }

  /** Loads a file through the page's file input; waits for its message. */
  async function load(path: string): Promise<string> {
    await page.evaluate(() => { const t = document.getElementById('toast')!; t.hidden = true; t.textContent = ''; });
    await page.setInputFiles('#stops-file', path);
    await page.waitForSelector('#toast:not([hidden])', { timeout: 60_000 });
    return (await page.textContent('#toast'))!;
  }

  const text = async (selector: string): Promise<string> => (await page.textContent(selector)) ?? '';
  const stopNames = (): Promise<string[]> => page.$$eval('#stop-table td.name', (els) => els.map((e) => e.textContent ?? ''));
  const file = (name: string, content: string | Buffer): string => {
    const p = join(out, name);
    writeFileSync(p, content);
    return p;
  };
  const clearAll = async (): Promise<void> => {
    await page.click('#clear-stops');
    while ((await page.locator('#vehicle-list .remove').count()) > 0) await page.click('#vehicle-list .remove >> nth=0');
  };
  const lintCodes = (): Promise<string[]> => page.$$eval('[data-testid=lint] li[data-code]', (els) => els.map((e) => (e as unknown as { dataset: Record<string, string> }).dataset.code));

  beforeAll(async () => {
    page = await t.openPage();
    await t.signIn();
  });

  afterAll(() => {
    console.log(`page-input figures: ${JSON.stringify(figures)} (files in ${out})`);
  });

  it('a Windows-1252 CSV loads with the right names and the page says it read Windows-1252; UTF-8 (with or without BOM) and UTF-16 too', async () => {
    const csv = 'Name;Street;Latitude;Longitude\r\nCafé São João;Rua São João 3;43,7310;7,4200\r\nPâtisserie Müller;Boulevard des Moulins;43.7395;7.4280\r\n';
    const names = ['Café São João', 'Pâtisserie Müller'];
    // every character of the text is in Windows-1252 (and Latin-1): one byte each, not UTF-8
    const cp1252 = Buffer.from(csv, 'latin1');
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(cp1252)).toThrow();
    expect(await load(file('excel.csv', cp1252))).toBe('excel.csv (read as Windows-1252): 2 stops');
    expect(await stopNames()).toEqual(names);
    expect(await load(file('utf8.csv', csv))).toBe('utf8.csv: 2 stops');
    expect(await stopNames()).toEqual(names);
    expect(await load(file('utf8-bom.csv', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(csv)])))).toBe('utf8-bom.csv: 2 stops');
    expect(await stopNames()).toEqual(names);
    expect(await load(file('utf16.csv', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(csv, 'utf16le')])))).toBe('utf16.csv (read as UTF-16LE): 2 stops');
    expect(await stopNames()).toEqual(names);
    // the decoder itself: a Windows-1252-only character (€ is 0x80 there), a UTF-16BE BOM
    const decoded = await page.evaluate(`import('/ui/assets/decode.js').then((m) => [m.decodeBytes(new Uint8Array([0x80, 0x20, 0x41])), m.decodeBytes(new Uint8Array([0xfe, 0xff, 0, 0x41, 0, 0xe9]))])`);
    expect(decoded).toEqual([{ text: '€ A', encoding: 'Windows-1252' }, { text: 'Aé', encoding: 'UTF-16BE' }]);
    await clearAll();
  });

  it("files are read by the API's rules: string coordinates become numbers; a bad value is refused naming the field (and a CSV's line); nothing half-applies", async () => {
    const spec = {
      DispatchMode: 'Optima', DistanceUnit: 'Kilometer',
      Vehicles: [{ Name: 'Van S', MaxWeight: '40', StartLocation: { Name: 'Depot', LatLong: { Latitude: '43.7314', Longitude: '7.42' } } }],
      Locations: [{ Name: 'A', LatLong: { Latitude: '43.73', Longitude: '7.4215' }, Weight: '2' }, { Name: 'B', latlong: { latitude: 43.7395, longitude: 7.428 }, Colour: 'red' }],
    };
    // before: `p.Latitude.toFixed is not a function`, the stops taken and the vehicles not
    expect(await load(file('strings.json', JSON.stringify(spec)))).toBe('strings.json: 2 stops');
    expect(await text('#vehicle-count')).toBe('1');
    expect(await text('#stop-count')).toBe('2');
    expect(await text('#vehicle-list')).toContain('from 43.7314, 7.4200');
    expect(await page.inputValue('#mode')).toBe('Optima');
    // what the page keeps is the API's record: numbers, the contract's names, no unknown property, no defaults it was not given
    await expect.poll(() => page.evaluate(() => JSON.parse(localStorage.getItem('dispatchkit.workday:dispatcher') ?? 'null')?.stops?.[1])).toEqual({ Name: 'B', LatLong: { Latitude: 43.7395, Longitude: 7.428 } });
    const kept = await page.evaluate(() => JSON.parse(localStorage.getItem('dispatchkit.workday:dispatcher')!));
    expect(kept.vehicles[0]).toEqual({ Name: 'Van S', MaxWeight: 40, StartLocation: { Name: 'Depot', LatLong: { Latitude: 43.7314, Longitude: 7.42 } } });
    expect(kept.stops[0]).toEqual({ Name: 'A', LatLong: { Latitude: 43.73, Longitude: 7.4215 }, Weight: 2 });

    // a bad value anywhere: refused with the API's words naming the field; the lists stay as they were
    t.expectedErrors = [/refused by the API's rules/];
    const bad = structuredClone(spec) as typeof spec;
    bad.Vehicles = [...bad.Vehicles, { Name: 'Van T', MaxWeight: '40', StartLocation: { Name: 'Depot', LatLong: { Latitude: 'north', Longitude: '7.42' } } }];
    bad.Locations = [...bad.Locations, { Name: 'C', LatLong: { Latitude: '43.735', Longitude: '7.425' }, Weight: '2' }];
    expect(await load(file('bad.json', JSON.stringify(bad)))).toBe('bad.json: refused by the API\'s rules: Vehicles[1].StartLocation.LatLong.Latitude: must be a finite number (got "north")');
    expect([await text('#vehicle-count'), await text('#stop-count')]).toEqual(['1', '2']);
    // a list of Locations, wrapped as a DispatchSpecification's
    expect(await load(file('list.json', JSON.stringify([{ Name: 'L1', LatLong: { Latitude: '43.7301', Longitude: '7.4201' } }, { Name: 'L2', LatLong: { Latitude: 43.7302, Longitude: 7.4202 }, Priority: 'high' }])))).toBe('list.json: refused by the API\'s rules: Locations[1].Priority: must be a whole number (got "high")');
    expect([await text('#vehicle-count'), await text('#stop-count')]).toEqual(['1', '2']);
    // a CSV: the API's message with the line the row came from
    expect(await load(file('bad.csv', 'Name,Latitude,Longitude,Weight,Priority\nX,43.7301,7.4201,1,0\nY,43.7302,7.4202,2,99999999\n'))).toMatch(/^bad\.csv: refused by the API's rules: line 3 \(Locations\[1\]\.Priority\): must be between -\d+ and \d+ \(got 99999999\)$/);
    expect([await text('#vehicle-count'), await text('#stop-count')]).toEqual(['1', '2']);
    // times of day: checked on the form's date, kept as times of day (the page puts them on its date when it runs)
    expect(await load(file('times.csv', 'Name,Latitude,Longitude,From,To\nT,43.7301,7.4201,9:30,11:00\n'))).toBe('times.csv: 1 stops');
    await expect.poll(() => page.evaluate(() => JSON.parse(localStorage.getItem('dispatchkit.workday:dispatcher') ?? 'null')?.stops)).toEqual([
      { Name: 'T', LatLong: { Latitude: 43.7301, Longitude: 7.4201 }, TimeConstraintArrival: '9:30', TimeConstraintDeparture: '11:00' },
    ]);
    expect(await load(file('late.csv', 'Name,Latitude,Longitude,From\nU,43.7301,7.4201,25:00\n'))).toMatch(/^late\.csv: refused by the API's rules: line 2 \(Locations\[0\]\.TimeConstraintArrival\): is not a valid calendar date-time/);
    expect(await text('#stop-count')).toBe('1');
    await clearAll();
  });

  it('CSV headers in French, German, Portuguese and Spanish load on the page exactly as the CLI reads them (one table of names)', async () => {
    const files: Record<string, string> = {
      fr: 'Nom;Rue;Ville;Code postal;Latitude;Longitude;Poids\nBoulangerie;12 Rue Grimaldi;Monaco;98000;43,7318;7,4197;2\nCafé;Avenue de la Costa;Monte-Carlo;98000;43,7392;7,4262;1\n',
      de: 'Name;Straße;PLZ;Ort;Breite;Länge;Gewicht\nBäckerei;Boulevard des Moulins 3;98000;Monaco;43,7420;7,4265;3\n',
      pt: 'Nome;Morada;Localidade;Código postal;Latitude;Longitude;Peso\nPadaria;Rua Grimaldi 5;Mónaco;98000;43,7316;7,4192;1\n',
      es: 'Nombre;Dirección;Ciudad;Código Postal;Latitud;Longitud;Peso\nPanadería;Avenida Princesa Grace 7;Mónaco;98000;43,7452;7,4340;4\n',
    };
    for (const [lang, csv] of Object.entries(files)) {
      // the CLI: its records and header detection (src/cli/csv.ts)
      const records = [];
      for await (const r of csvRecords(Readable.from([csv]))) records.push(r);
      const columns = detectHeader(records[0].cells!)!;
      expect(columns, lang).not.toBeNull();
      const cli = records.slice(1).map((r) => Object.fromEntries(Object.entries(columns).map(([f, i]) => [f, r.cells![i as number]])));
      // the page's parser on the same text
      const parsed = await page.evaluate(`import('/ui/assets/stops.js').then((m) => m.stopsFromCsv(${JSON.stringify(csv)}))`) as { locations: { Name: string; Address: Record<string, string>; LatLong: unknown; Weight: number }[]; errors: string[] };
      expect(parsed.errors, lang).toEqual([]);
      expect(parsed.locations.map((l) => l.Address), lang).toEqual(cli);
      for (const l of parsed.locations) {
        expect(l.LatLong, lang).toEqual({ Latitude: expect.any(Number), Longitude: expect.any(Number) });
        expect(l.Weight, lang).toBeGreaterThan(0);
      }
    }
    // through the file input: names, weights, no geocoding needed (coordinates given)
    expect(await load(file('adressen.csv', files.de))).toBe('adressen.csv: 1 stops');
    expect(await stopNames()).toEqual(['Bäckerei']);
    expect(await load(file('adresses.csv', files.fr))).toBe('adresses.csv: 2 stops');
    expect(await stopNames()).toEqual(['Boulangerie', 'Café']);
    expect(await page.$$eval('#stop-table td.num.muted', (els) => els.map((e) => e.textContent))).toEqual(['2', '1']);
    // the page's hint names them
    expect(await text('.sidebar .hint')).toMatch(/French, German, Italian, Spanish, Portuguese/);
    await clearAll();
  });

  it('an old "Done" goes when the stops, vehicles or options change; the working day (stops, vehicles, options, date, plan) survives a reload, per account', async () => {
    const ten = file('ten.csv', readFileSync(STOPS_50, 'utf8').trim().split('\n').slice(0, 11).join('\n') + '\n');
    expect(await load(ten)).toBe('ten.csv: 10 stops');
    await addVehicle(60);
    await page.selectOption('#mode', 'EqualStop');
    await page.fill('#optimization', '1');
    await page.fill('#date', '2026-12-03');
    await page.dispatchEvent('#date', 'change');
    expect(await runAndWait()).toBe('completed');
    expect(await text('#run-state')).toMatch(/^Done in .* s: \d+ of 10 stops served/);
    // an option changes: the old run's line goes
    await page.selectOption('#unit', 'Mile');
    expect(await page.getAttribute('#run-state', 'data-state')).toBe('idle');
    expect(await text('#run-state')).toBe('');
    await page.selectOption('#unit', 'Kilometer');
    expect(await runAndWait()).toBe('completed');
    // a stop removed
    await page.click('#stop-table tbody tr:last-child button[title^=Remove]');
    expect(await text('#run-state')).toBe('');
    expect(await text('#stop-count')).toBe('9');
    expect(await runAndWait()).toBe('completed');
    // a vehicle added (and removed again: a change too)
    await addVehicle(10);
    expect(await text('#run-state')).toBe('');
    await page.click('#vehicle-list li:last-child .remove');
    expect(await runAndWait()).toBe('completed');
    const summary = await text('#summary');
    expect(summary).toMatch(/^\d+ of 9 stops on 1 vehicle .* stored as route \d+$/);

    // a reload: the same day, its plan drawn again
    await page.waitForTimeout(400);
    await page.reload();
    await page.waitForSelector('body[data-ready=true]');
    await expect.poll(() => text('#stop-count')).toBe('9');
    expect(await text('#vehicle-count')).toBe('1');
    expect(await page.inputValue('#mode')).toBe('EqualStop');
    expect(await page.inputValue('#optimization')).toBe('1');
    expect(await page.inputValue('#date')).toBe('2026-12-03');
    await page.waitForSelector('#results:not([hidden])');
    expect(await text('#summary')).toBe(summary);
    expect(await text('#run-state')).toBe('The last plan, kept from before the reload.');

    // another account on this browser: its own (empty) day; then back: the first one's
    await signOut();
    expect(await text('#stop-count')).toBe('0');
    await signInHere(OTHER);
    expect([await text('#account-name'), await text('#stop-count'), await text('#vehicle-count')]).toEqual([OTHER, '0', '0']);
    expect(await page.inputValue('#mode')).toBe('Auto');
    expect(await page.isHidden('#results')).toBe(true);
    await page.click('#click-mode');
    const box = (await page.locator('#map').boundingBox())!;
    await page.mouse.click(box.x + box.width * 0.5, box.y + box.height * 0.5);
    await page.click('#click-mode');
    expect(await text('#stop-count')).toBe('1');
    await signOut();
    await signInHere(USER);
    await expect.poll(() => text('#stop-count')).toBe('9');
    expect(await text('#vehicle-count')).toBe('1');
    await signOut();
    await signInHere(OTHER);
    expect(await text('#stop-count')).toBe('1');
    await signOut();
    await signInHere(USER);
    await expect.poll(() => text('#stop-count')).toBe('9');
    await page.waitForSelector('#results:not([hidden])');
    await clearAll();
  });

  it('an ended session: the page says it is signed out, never a "key" — from the check, a run, a reload', async () => {
    await addVehicle(null);
    const endSession = async (): Promise<void> => {
      const cookie = (await t.context.cookies()).find((c) => c.name === 'dk_session')!;
      const r = await fetch(`${t.url}/ui/logout`, { method: 'POST', headers: { 'X-DK-UI': '1', Cookie: `dk_session=${cookie.value}` } });
      expect(r.status).toBe(200);
    };
    const noKey = async (): Promise<void> => {
      const all = await page.evaluate(() => document.body.innerText);
      expect(all).not.toMatch(/\bkey\b/i);
    };
    // the check after a change meets the ended session
    await endSession();
    t.expected401.add('/ui/rest/check').add('/ui/rest/jobs');
    await page.click('#click-mode');
    const box = (await page.locator('#map').boundingBox())!;
    await page.mouse.click(box.x + box.width * 0.5, box.y + box.height * 0.5);
    await page.waitForSelector('#signin:not([hidden])', { timeout: 10_000 });
    expect(await text('#signin-error')).toBe(SIGNED_OUT);
    await noKey();
    await signInHere(USER);
    expect(await text('#stop-count')).toBe('1'); // the day was kept through it
    await page.click('#click-mode');
    await page.waitForSelector('#lint[data-state=done]', { state: 'attached' });
    // a run meets the ended session
    await endSession();
    t.expectedErrors = [/signed out/];
    await page.click('#run');
    await page.waitForSelector('#signin:not([hidden])', { timeout: 10_000 });
    expect(await text('#signin-error')).toBe(SIGNED_OUT);
    await noKey();
    await signInHere(USER);
    await page.waitForSelector('#lint[data-state=done]', { state: 'attached' });
    // a reload with the ended session's cookie
    await endSession();
    await page.reload();
    await page.waitForSelector('#signin:not([hidden])');
    expect(await text('#signin-error')).toBe(SIGNED_OUT);
    await noKey();
    await signInHere(USER);
    await page.waitForSelector('body[data-ready=true]');
    await clearAll();
  });

  it('warnings are listed under Run before running and never block it; Errors block it with the message', async () => {
    // five stops of weight 10 on one van of capacity 30
    const five = file('five.csv', ['Name,Latitude,Longitude,Weight', ...readFileSync(STOPS_50, 'utf8').trim().split('\n').slice(1, 6).map((r) => { const c = r.split(','); return `${c[0]},${c[1]},${c[2]},10`; })].join('\n') + '\n');
    expect(await load(five)).toBe('five.csv: 5 stops');
    await addVehicle(30);
    await page.waitForSelector('[data-testid=lint] li[data-code=FleetTooSmall]');
    expect(await text('[data-testid=lint] li[data-code=FleetTooSmall]')).toBe("Vehicles: can carry 30 of Weight in all (MaxWeight × trips, 1 vehicle), but the 5 stops' Weight adds up to 50: at least 20 of it will not be served");
    expect(await page.isEnabled('#run')).toBe(true);
    await page.fill('#optimization', '1');
    expect(await runAndWait()).toBe('completed');
    expect(await text('#summary')).toMatch(/^3 of 5 stops/);
    // an Error: MinimumOptimization above the contract's bound blocks the run, with the API's message
    await page.fill('#optimization', '99');
    await page.waitForSelector('[data-testid=lint] li.error');
    expect(await text('[data-testid=lint] li.error')).toBe('MinimumOptimization: must be between 1 and 10 (got 99)');
    expect(await page.isDisabled('#run')).toBe(true);
    expect(await page.getAttribute('#run', 'title')).toBe('Fix first: MinimumOptimization: must be between 1 and 10 (got 99)');
    await page.fill('#optimization', '2');
    await page.waitForSelector('#run:not([disabled])');
    expect(await lintCodes()).toEqual(['FleetTooSmall']);
    // enough capacity: the warning goes
    await page.click('#vehicle-list .remove');
    await addVehicle(50);
    await page.waitForFunction(() => document.getElementById('lint')!.hidden === true);
    await clearAll();
  });

  it('10,000 stops in Monaco and one van of capacity 30: FleetTooSmall shows under Run before running', async () => {
    const w = t.engine.datasetInfo();
    const rows = ['Name,Latitude,Longitude,Weight'];
    for (let i = 0, k = 0; rows.length <= 10_000; i++) {
      // a fine grid over the extent, points near a road only (FarFromRoad would drown the list)
      const lat = Math.round((w.south + 0.1 * (w.north - w.south) + ((i % 137) / 137) * 0.8 * (w.north - w.south)) * 1e6) / 1e6;
      const lon = Math.round((w.west + 0.1 * (w.east - w.west) + ((Math.floor(i / 137) % 139) / 139) * 0.8 * (w.east - w.west)) * 1e6) / 1e6;
      try {
        if (t.engine.placeLocation({ LatLong: { Latitude: lat, Longitude: lon } } as never, 'p').snap.distanceM > 40) continue;
      } catch {
        continue;
      }
      rows.push(`S${++k},${lat},${lon},1`);
    }
    const big = file('ten-thousand.csv', rows.join('\n') + '\n');
    page.on('requestfinished', (r) => {
      if (new URL(r.url()).pathname === '/ui/rest/check') figures[`check${Object.keys(figures).filter((k) => k.startsWith('check')).length}Ms`] = Math.round(r.timing().responseEnd);
    });
    // the van first (the page redraws every stop marker on a vehicle change: at 10,000, Leaflet's DOM markers take seconds)
    await addVehicle(30);
    await page.waitForSelector('#lint[data-state=done]', { state: 'attached' });
    const t0 = Date.now();
    expect(await load(big)).toBe('ten-thousand.csv: 10000 stops');
    figures.load10000Ms = Date.now() - t0;
    expect(await text('#stop-count')).toBe('10000');
    await page.waitForSelector('[data-testid=lint] li[data-code=FleetTooSmall]', { timeout: 120_000 });
    figures.lint10000Ms = Date.now() - t0 - figures.load10000Ms;
    expect(await text('[data-testid=lint] li[data-code=FleetTooSmall]')).toBe("Vehicles: can carry 30 of Weight in all (MaxWeight × trips, 1 vehicle), but the 10000 stops' Weight adds up to 10000: at least 9970 of it will not be served");
    // before running: nothing ran, and Run is there to press (a warning never blocks)
    expect(await page.getAttribute('#run-state', 'data-state')).toBe('idle');
    expect(await page.isEnabled('#run')).toBe(true);
    await page.screenshot({ path: join(out, 'lint-10000.png') });
    await page.click('#clear-stops', { timeout: 120_000 });
    await page.click('#vehicle-list .remove', { timeout: 120_000 });
  }, 400_000);
});
