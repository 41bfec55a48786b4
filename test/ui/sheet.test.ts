/**
 * The driver sheet (ui/sheet.js, ui/sheet.css, ui/pdf.js) in Debian's Chromium (playwright-core
 * driving /usr/bin/chromium, headless) against a real server in this process (test/ui/harness.ts:
 * fastify on a free port, the Monaco fixture, SQLite in memory): sign in,
 * add a van, load 50 Monaco stops, run, open the sheet of the van from its route; the stops in
 * order with ETAs, the directions (then in German), the server-drawn map, the PDF download read
 * back (the stops, the directions, the map as a JPEG), the print media (the sheet alone), Escape
 * and Close giving the focus back. A page error, a console error or a failed request fails it.
 *
 * Screenshots and the measured timings go to a folder under the OS tmp dir (printed). With
 * UPDATE_DOCS_SCREENSHOT=1 the sheet's screenshot is also written to docs/sheet.png.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { copyFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { CHROMIUM, FIXTURES, HAVE_CHROMIUM, usePage } from './harness.js';

if (!HAVE_CHROMIUM) console.warn(`test/ui/sheet.test.ts skipped: ${CHROMIUM} is missing (Debian's chromium package; .ci/run installs it).`);

const STOPS_50 = join(FIXTURES, 'monaco-50.csv');
const DOCS_SCREENSHOT = fileURLToPath(new URL('../../docs/sheet.png', import.meta.url));
const VAN = 'Van 1';

/** What the tests read of the page inside functions that run in the browser (the project compiles without the DOM library). */
declare const document: {
  activeElement: { getAttribute(name: string): string | null } | null;
};
type Img = { naturalWidth: number; naturalHeight: number; complete: boolean };

const squash = (s: string): string => s.replace(/\s+/g, ' ').trim();

// ------------------------------------------------------------------------------ reading the PDF

/** Windows-1252 → Unicode for 0x80–0x9F (Node's TextDecoder reads them as Latin-1). */
const HIGH: Record<number, number> = {
  0x80: 0x20ac, 0x82: 0x201a, 0x83: 0x0192, 0x84: 0x201e, 0x85: 0x2026, 0x86: 0x2020, 0x87: 0x2021, 0x88: 0x02c6,
  0x89: 0x2030, 0x8a: 0x0160, 0x8b: 0x2039, 0x8c: 0x0152, 0x8e: 0x017d, 0x91: 0x2018, 0x92: 0x2019, 0x93: 0x201c,
  0x94: 0x201d, 0x95: 0x2022, 0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02dc, 0x99: 0x2122, 0x9a: 0x0161, 0x9b: 0x203a,
  0x9c: 0x0153, 0x9e: 0x017e, 0x9f: 0x0178,
};

/** The strings a PDF's content streams show (Tj), decoded from WinAnsi, and its image streams. */
function pdfContents(bytes: Buffer): { strings: string[]; images: { dict: string; data: Buffer }[]; pages: number } {
  const text = bytes.toString('latin1');
  const strings: string[] = [];
  const images: { dict: string; data: Buffer }[] = [];
  for (const m of text.matchAll(/(<<[^\n]*?\/Length (\d+) >>)\nstream\n/g)) {
    const from = m.index! + m[0].length;
    const data = bytes.subarray(from, from + Number(m[2]));
    expect(text.slice(from + data.length, from + data.length + 10)).toBe('\nendstream');
    if (/\/Subtype \/Image/.test(m[1])) { images.push({ dict: m[1], data }); continue; }
    for (const s of data.toString('latin1').matchAll(/\(((?:\\[0-7]{1,3}|\\.|[^\\()])*)\) Tj/g)) {
      const out: number[] = [];
      const body = s[1];
      for (let i = 0; i < body.length; i++) {
        if (body[i] !== '\\') { out.push(body.charCodeAt(i)); continue; }
        const oct = /^[0-7]{1,3}/.exec(body.slice(i + 1))?.[0];
        if (oct) { out.push(parseInt(oct, 8)); i += oct.length; } else out.push(body.charCodeAt(++i));
      }
      strings.push(String.fromCodePoint(...out.map((b) => HIGH[b] ?? b)));
    }
  }
  return { strings, images, pages: Number(/\/Type \/Pages \/Count (\d+)/.exec(text)?.[1] ?? 0) };
}

// ------------------------------------------------------------------------------ without a browser

/** A minimal JPEG (SOI, SOF0 with the size, EOI): what the PDF needs to embed one. */
const tinyJpeg = (w: number, h: number): Uint8Array => new Uint8Array([
  0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 0x08, h >> 8, h & 0xff, w >> 8, w & 0xff, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01, 0xff, 0xd9,
]);

describe('the sheet\'s model and PDF (ui/sheet.js sheetModel, sheetPdf; no browser)', () => {
  const at = (lat: number, lon: number): { Latitude: number; Longitude: number } => ({ Latitude: lat, Longitude: lon });
  const depot = { Name: 'Depot', LatLong: at(43.7314, 7.42) };
  const cafe = {
    Name: 'Café “Le Zinc” (rear) \\ door', LatLong: at(43.735, 7.421), Weight: 2.5, Wait: 300,
    Address: { Street: '1 Rue Grimaldi', PostalCode: '98000', City: 'Monaco' },
    TimeConstraintArrival: '2026-12-01T09:00:00', TimeConstraintDeparture: '2026-12-01T12:00:00',
    TimeConstraintArrival2: '2026-12-01T14:00:00', TimeConstraintDeparture2: '2026-12-01T16:00:00',
  };
  const shop = { Name: 'Straße 5 — 20 €', LatLong: at(43.74, 7.425), Weight: 4, TimeConstraintDeparture: '2026-12-01T10:30:00' };
  const specification = {
    DistanceUnit: 'Kilometer', Vehicles: [{ Name: 'Van/1', StartLocation: depot, FinishLocation: depot, MaxWeight: 10 }], Locations: [cafe, shop],
  };
  const result = {
    Status: 'Success', Items: [{
      Vehicle: { Name: 'Van/1' }, Locations: [
        { ...depot, TimeEstimatedArrival: '2026-12-01T08:30:00' },
        { ...cafe, TimeEstimatedArrival: '2026-12-01T09:00:00', Distance: 1.2, Time: 240 },
        { ...shop, TimeEstimatedArrival: '2026-12-01T09:12:00', Distance: 0.8, Time: 180 },
        { ...depot, TimeEstimatedArrival: '2026-12-01T09:25:00', Distance: 1.5, Time: 300 },
      ],
    }],
  };

  it('shows every place in order: number, name, address, ETA, windows, service, weight, load', async () => {
    // @ts-expect-error the page is plain JavaScript without declarations
    const { makePlan } = await import('../../ui/plan.js');
    // @ts-expect-error the page is plain JavaScript without declarations
    const { sheetModel, cultureOf } = await import('../../ui/sheet.js');
    const plan = makePlan(specification, result, null);
    const model = sheetModel(plan, plan.routes[0]);
    expect(model.vehicle).toBe('Van/1');
    expect(model.date).toBe('2026-12-01');
    expect(model.summary).toEqual(['2 stops', '3.50 km', '12 min 00 s driving', 'load 6.5 / 10', '08:30–09:25']);
    expect(model.hasAddress).toBe(true);
    expect(model.rows.map((r: Record<string, unknown>) => [r.number, r.name, r.address, r.eta, r.window, r.service, r.weight, r.load])).toEqual([
      ['1', 'Depot', '', '08:30', '', '', '', ''],
      ['2', cafe.Name, '1 Rue Grimaldi, 98000 Monaco', '09:00', '09:00–12:00, 14:00–16:00', '5 min 00 s', '2.5', '2.5'],
      ['3', shop.Name, '', '09:12', '–10:30', '', '4', '6.5'],
      ['4', 'Depot', '', '09:25', '', '', '', ''],
    ]);
    expect([cultureOf('de-AT'), cultureOf('fr'), cultureOf('it_IT'), cultureOf('pt-BR'), cultureOf(undefined)]).toEqual(['de-DE', 'fr-FR', 'it-IT', 'en-US', 'en-US']);
  });

  it('writes the same data into the PDF: the table, the windows, each leg\'s steps and warnings, the map', async () => {
    // @ts-expect-error the page is plain JavaScript without declarations
    const { makePlan } = await import('../../ui/plan.js');
    // @ts-expect-error the page is plain JavaScript without declarations
    const { sheetModel, sheetPdf } = await import('../../ui/sheet.js');
    const plan = makePlan(specification, result, null);
    const model = sheetModel(plan, plan.routes[0]);
    const directions = {
      culture: 'fr-FR', notes: [], map: null,
      legs: [
        { from: 'Depot', to: cafe.Name, distance: 1.2, time: 240, steps: [{ text: 'Prendre la direction nord sur Rue Grimaldi', distance: 1.2, warnings: [] }, { text: 'Vous êtes arrivé à l’arrêt 2', distance: 0, warnings: [] }] },
        { from: cafe.Name, to: shop.Name, distance: 0.8, time: 180, steps: [{ text: 'Tourner à droite (péage) sur A8', distance: 0.8, warnings: ['Péage'] }] },
        { from: shop.Name, to: 'Depot', distance: 1.5, time: 300, steps: [{ text: 'Vous êtes arrivé à destination', distance: 0, warnings: [] }] },
      ],
    };
    const pdf = pdfContents(Buffer.from(sheetPdf(model, directions, tinyJpeg(1600, 900))));
    const text = squash(pdf.strings.join(' '));
    expect(text).toContain('Driver sheet · Van/1');
    expect(text).toContain('1 Depot 08:30');
    expect(text).toContain(`2 ${cafe.Name} 1 Rue Grimaldi, 98000 Monaco 09:00 09:00–12:00, 14:00–16:00 5 min 00 s 2.5 2.5`);
    expect(text).toContain(`3 ${shop.Name} 09:12 –10:30 4 6.5`);
    expect(text).toContain('Directions (fr-FR)');
    expect(text).toContain(`2. ${cafe.Name} -> ${shop.Name} · 0.80 km · 3 min 00 s`); // the arrow: no WinAnsi "→"
    expect(text).toContain('1. Tourner à droite (péage) sur A8 (0.80 km)');
    expect(text).toContain('! Péage');
    expect(text).toContain('Vous êtes arrivé à l’arrêt 2');
    expect(pdf.images).toHaveLength(1);
    expect(pdf.images[0].dict).toMatch(/\/Width 1600 \/Height 900 .*\/Filter \/DCTDecode/);
    // without a map or directions: a sheet all the same, saying so
    const bare = squash(pdfContents(Buffer.from(sheetPdf(model, null, null))).strings.join(' '));
    expect(bare).toContain('The directions could not be calculated.');
    expect(bare).toContain(`3 ${shop.Name} 09:12`);
    // bytes that are not a JPEG: the sheet says the map is missing instead of failing
    const broken = pdfContents(Buffer.from(sheetPdf(model, directions, new Uint8Array([1, 2, 3]))));
    expect(broken.images).toHaveLength(0);
    expect(squash(broken.strings.join(' '))).toContain('(The map could not be included.)');
  });
});

describe.skipIf(!HAVE_CHROMIUM)("the driver sheet in Chromium", () => {
  const t = usePage('sheet');
  let page: Page;
  const out = t.out;
  const timings: Record<string, number | number[]> = {};

  /** The sheet's leg headings and step texts, per leg. */
  const sheetSteps = (): Promise<string[][]> => page.$$eval('#sheet .sheet-leg', (legs) => legs.map((leg) =>
    [...leg.querySelectorAll('.sheet-steps > li')].map((li) => (li.firstChild?.textContent ?? '').trim())));

  afterAll(() => {
    Object.assign(timings, { routeAnswerBytes: routeBytes });
    writeFileSync(join(out, 'timings.json'), JSON.stringify(timings, null, 2));
    console.log(`sheet timings: ${JSON.stringify(timings)}`);
  });

  /** The route's rows in the page's route table: [name, ETA]. */
  let routeRows: [string, string][] = [];
  /** The sheet's table: per row the cells' text (#, Stop, Address, ETA, Window, Service, Weight, Load). */
  let sheetTable: string[][] = [];
  /** Sizes of the CalculateRoute answers the sheet got. */
  const routeBytes: number[] = [];
  /** The English directions, per leg. */
  let english: string[][] = [];

  it('opens a van\'s sheet from its route: every stop in order with its ETA, window and load, the directions and the map', async () => {
    page = await t.openPage(undefined, { locale: 'en-US' });
    await t.signIn();
    await t.loadStops(STOPS_50);
    await t.addVehicle(60);
    await page.fill('#optimization', '2');
    expect(await t.runAndWait()).toBe('completed');
    // the route list's table: its Stop and ETA columns, found by their headings
    routeRows = await page.$eval(`details.route[data-vehicle="${VAN}"] table`, (table) => {
      const heads = [...table.querySelectorAll('thead th')].map((th) => th.textContent);
      const [name, eta] = [heads.indexOf('Stop'), heads.indexOf('ETA')];
      return [...table.querySelectorAll('tbody tr')].map((tr) => {
        const td = tr.querySelectorAll('td');
        return [td[name]?.textContent ?? '', td[eta]?.textContent ?? ''] as [string, string];
      });
    });
    expect(routeRows.length).toBeGreaterThan(10); // the start, ~20 stops within 60 of weight, the finish

    // the size of each CalculateRoute answer (the first with the maps, then without)
    page.on('response', (r) => {
      if (new URL(r.url()).pathname !== '/ui/rest/route') return;
      void r.body().then((b) => { routeBytes.push(b.length); }, () => {});
    });
    const t0 = Date.now();
    await page.click(`button[data-testid=driver-sheet][data-vehicle="${VAN}"]`);
    await page.waitForSelector('#sheet[role=dialog][data-directions=ready][data-map=ready]', { timeout: 30_000 });
    timings.openToReadyMs = Date.now() - t0;
    expect(await page.getAttribute('#sheet', 'aria-labelledby')).toBe('sheet-title');
    expect(await page.textContent('#sheet-title')).toContain(VAN);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('sheet-close');

    // the stops in the route's order, each with its ETA (HH:MM)
    const sheetRows = await page.$$eval('#sheet .sheet-stops tbody tr', (trs) => trs.map((tr) => [
      tr.querySelector('.sheet-stop-name')?.textContent ?? '', tr.querySelector('.sheet-eta')?.textContent ?? '',
    ] as [string, string]));
    expect(sheetRows).toEqual(routeRows);
    for (const [, eta] of sheetRows) expect(eta).toMatch(/^\d\d:\d\d$/);
    // the header: the date and the totals; the columns: the windows, service times, weights and loads
    expect(await page.textContent('#sheet .sheet-meta')).toMatch(/^\d{4}-\d\d-\d\d · \d+ stops · [\d.]+ km · .* driving · load \d+ \/ 60/);
    // (the dispatch gives each place its address: the Address column is there)
    expect(await page.$$eval('#sheet .sheet-stops thead th', (ths) => ths.map((th) => th.textContent))).toEqual(['#', 'Stop', 'Address', 'ETA', 'Window', 'Service', 'Weight', 'Load']);
    sheetTable = await page.$$eval('#sheet .sheet-stops tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    const served = sheetTable.slice(1, -1);
    // '#': the place's number on the route, the start 1 (as the map's markers and the directions count)
    expect(sheetTable.map((r) => r[0])).toEqual(sheetTable.map((_, i) => String(i + 1)));
    for (const r of sheetTable) expect(r[2]).toMatch(/Monaco$/);
    for (const r of served) expect(r[5]).toMatch(/^\d+ min \d\d s$|^\d+ s$/); // every fixture stop has a service time (Wait)
    const loads = served.map((r) => Number(r[7]));
    expect(loads[0]).toBe(Number(served[0][6]));
    for (let i = 1; i < loads.length; i++) expect(loads[i] - loads[i - 1]).toBe(Number(served[i][6]));

    // the directions: one leg per pair of places, first steps "Head …", each leg ending at its stop
    english = await sheetSteps();
    expect(english).toHaveLength(routeRows.length - 1);
    english.forEach((leg, k) => {
      expect(leg[0]).toMatch(/^Head /);
      // leg k ends at the place numbered k + 2 in the table; the last at the van's finish
      expect(leg.at(-1)).toMatch(k < english.length - 1 ? new RegExp(`^You have arrived at stop ${sheetTable[k + 1][0]}\\b`) : /^You have arrived at your destination/);
    });
    // the map: the server's drawing of the route, loaded
    const img = await page.$eval('#sheet img[data-testid=sheet-map]', (el) => ({ w: (el as unknown as Img).naturalWidth, h: (el as unknown as Img).naturalHeight, src: el.getAttribute('src') ?? '' }));
    expect(img.w).toBeGreaterThan(0);
    expect(img.h).toBeGreaterThan(0);
    expect(img.src).toMatch(/^data:image\/svg\+xml;base64,/);
    timings.mapDataUrlBytes = img.src.length;
    await page.screenshot({ path: join(out, '01-sheet.png') });
  });

  it('changes the directions\' culture: German text for the same legs', async () => {
    const t0 = Date.now();
    await page.selectOption('#sheet [data-testid=sheet-culture]', 'de-DE');
    await page.waitForSelector('#sheet[data-culture=de-DE][data-directions=ready]', { timeout: 30_000 });
    timings.cultureChangeMs = Date.now() - t0;
    const german = await sheetSteps();
    expect(german).toHaveLength(english.length);
    german.forEach((leg, k) => {
      expect(leg[0]).toMatch(/\bfahren$/);
      expect(leg.at(-1)).toMatch(k < german.length - 1 ? new RegExp(`^Sie haben Stopp ${sheetTable[k + 1][0]} erreicht`) : /^Sie haben Ihr Ziel erreicht/);
    });
    expect(german.flat().join('\n')).not.toContain('Head ');
    // the map stays
    expect(await page.$eval('#sheet img[data-testid=sheet-map]', (el) => (el as unknown as Img).naturalWidth)).toBeGreaterThan(0);
  });

  it('downloads the sheet as a PDF: the stops in order with ETAs, every leg\'s directions, the map as a JPEG', async () => {
    const t0 = Date.now();
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#sheet [data-testid=sheet-pdf]')]);
    const path = await dl.path();
    timings.pdfDownloadMs = Date.now() - t0;
    expect(dl.suggestedFilename()).toBe(`${VAN}-sheet.pdf`);
    const bytes = readFileSync(path);
    copyFileSync(path, join(out, 'sheet.pdf'));
    timings.pdfBytes = bytes.length;
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(bytes.subarray(-6).toString('latin1')).toBe('%%EOF\n');
    const pdf = pdfContents(bytes);
    timings.pdfPages = pdf.pages;
    // the page footers ("Van 1 · 2026-… · page 2 of 3") left out: a paragraph may go on over a page break
    const text = squash(pdf.strings.filter((s) => !/ · page \d+ of \d+$/.test(s)).join(' '));
    expect(pdf.strings.filter((s) => / · page \d+ of \d+$/.test(s))).toHaveLength(pdf.pages);
    expect(text).toContain(`Driver sheet · ${VAN}`);
    // the stops, in order, each row as on the page: #, name, address, ETA, window, service, weight, load
    expect(sheetTable).toHaveLength(routeRows.length);
    let at = 0;
    for (const row of sheetTable) {
      const cells = squash(row.filter((c) => c !== '').join(' '));
      const i = text.indexOf(cells, at);
      expect(i, `"${cells}" in the PDF after offset ${at}`).toBeGreaterThanOrEqual(at);
      at = i + 1;
    }
    for (const [name, eta] of routeRows) expect(text).toMatch(new RegExp(`${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} .*? ${eta}`));
    // the directions shown (now German), every step of every leg
    expect(text).toContain('Directions (de-DE)');
    const german = await sheetSteps();
    for (const step of german.flat()) expect(text).toContain(squash(step));
    // the map: one JPEG image XObject
    expect(pdf.images).toHaveLength(1);
    expect(pdf.images[0].dict).toMatch(/\/Filter \/DCTDecode/);
    expect([...pdf.images[0].data.subarray(0, 2)]).toEqual([0xff, 0xd8]);
    const size = /\/Width (\d+) \/Height (\d+)/.exec(pdf.images[0].dict)!;
    expect([Number(size[1]), Number(size[2])]).toEqual([1600, 900]);
  });

  it('prints the sheet alone: in print media the map and the sidebar are hidden, the sheet shown', async () => {
    await page.emulateMedia({ media: 'print' });
    expect(await page.isVisible('#sheet')).toBe(true);
    expect(await page.isVisible('#sheet .sheet-stops')).toBe(true);
    expect(await page.isVisible('#sheet img[data-testid=sheet-map]')).toBe(true);
    expect(await page.isHidden('#map')).toBe(true);
    expect(await page.isHidden('.sidebar')).toBe(true);
    expect(await page.isHidden('.topbar')).toBe(true);
    expect(await page.isHidden('#sheet .sheet-toolbar')).toBe(true);
    await page.screenshot({ path: join(out, '02-print.png'), fullPage: true });
    await page.emulateMedia({ media: 'screen' });
    expect(await page.isVisible('#map')).toBe(true);
    await page.screenshot({ path: join(out, '03-sheet-german.png') });
    if (process.env.UPDATE_DOCS_SCREENSHOT) {
      await page.screenshot({ path: DOCS_SCREENSHOT });
      expect(statSync(DOCS_SCREENSHOT).size).toBeLessThan(400 * 1024);
    }
  });

  it('closes with Escape and with Close, the focus back on the route\'s button; Tab stays in the sheet', async () => {
    await page.keyboard.press('Escape');
    expect(await page.locator('#sheet').count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('driver-sheet');
    // without the sheet, printing shows the page as before
    await page.emulateMedia({ media: 'print' });
    expect(await page.isVisible('#map')).toBe(true);
    await page.emulateMedia({ media: 'screen' });
    await page.click(`button[data-testid=driver-sheet][data-vehicle="${VAN}"]`);
    await page.waitForSelector('#sheet[data-directions=ready]');
    // Tab stays within the dialog: from Close (its last control) back to its first
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('sheet-close');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('sheet-culture');
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('sheet-close');
    await page.click('#sheet [data-testid=sheet-close]');
    expect(await page.locator('#sheet').count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('driver-sheet');
  });
});
