/**
 * The page tests' harness: a real server in this process (fastify on a free port, the Monaco
 * fixture, SQLite in memory, jobs in this process) with one account (more if asked), Debian's Chromium driven by
 * playwright-core, and helpers that act as a dispatcher would (sign in, add a van, load stops,
 * run). A page error, a console error or a failed request of the page is recorded in `problems`;
 * each test file fails a test that leaves any (see `usePage`). A test may expect some for itself
 * (`expected401`, `expectedErrors`): both are put back after each test.
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { Engine } from '../../src/engine.js';
import { openStore } from '../../src/store/index.js';
import { hashPassword, keyHash, newApiKey } from '../../src/store/hash.js';
import type { Store } from '../../src/store/types.js';
import { Service } from '../../src/service/service.js';
import { buildServer } from '../../src/server/http.js';
import { fixtureDataset } from '../helpers/datasets.js';

export const CHROMIUM = '/usr/bin/chromium';
export const HAVE_CHROMIUM = existsSync(CHROMIUM);
export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
export const USER = 'dispatcher';
export const PASSWORD = 'correct horse battery';
/** A depot in Monaco's port. */
export const DEPOT = '43.7314, 7.42';

export const csvRows = (file: string): number => readFileSync(file, 'utf8').trim().split('\n').length - 1;

/** What the tests read of the page inside functions that run in the browser (the project compiles without the DOM library). */
export type Tagged = { dataset: Record<string, string | undefined> };

export interface PageHarness {
  url: string;
  apiKey: string;
  page: Page;
  out: string;
  service: Service;
  engine: Engine;
  problems: string[];
  /** Paths whose 401 is expected (a wrong password's /ui/login; /ui/me always: a stale session cookie). */
  expected401: Set<string>;
  /** Console errors a test provokes on purpose (the page logs every failed action). */
  expectedErrors: RegExp[];
  /** The current page's browser context (its cookies). */
  readonly context: BrowserContext;
  /** A new page with its own cookie jar; `bypassCSP` lets a test inject a checker script (axe-core). */
  openPage(viewport?: { width: number; height: number }, o?: { bypassCSP?: boolean; locale?: string }): Promise<Page>;
  /** Opens the page and signs in as `user` (USER unless told). */
  signIn(user?: string): Promise<void>;
  /** Signs in as `user` through the page's dialog, already showing. */
  signInHere(user?: string): Promise<void>;
  /** A van from the depot; `null` leaves its capacity empty. */
  addVehicle(capacity: number | null, name?: string): Promise<void>;
  /** Loads a CSV file; waits until its stops are listed and drawn. */
  loadStops(file: string): Promise<void>;
  runAndWait(timeout?: number): Promise<string>;
  shot(name: string): Promise<void>;
  count(selector: string): Promise<number>;
}

export interface PageOptions {
  /** Accounts beside USER, each with PASSWORD. */
  accounts?: string[];
}

/** Sets up the server and the browser for the calling test file (beforeAll / afterAll / afterEach). */
export function usePage(prefix: string, options: PageOptions = {}): PageHarness {
  let store: Store;
  let app: FastifyInstance;
  let browser: Browser;
  let context: BrowserContext | undefined;
  const h = {
    url: '', apiKey: newApiKey(), page: undefined as unknown as Page, out: mkdtempSync(join(tmpdir(), `dispatchkit-${prefix}-`)),
    service: undefined as unknown as Service, problems: [] as string[], expected401: new Set(['/ui/me']), expectedErrors: [] as RegExp[],
  } as PageHarness;
  Object.defineProperty(h, 'context', { get: () => context });

  h.openPage = async (viewport = { width: 1400, height: 900 }, o = {}) => {
    await context?.close();
    context = await browser.newContext({ viewport, acceptDownloads: true, bypassCSP: o.bypassCSP ?? false, locale: o.locale });
    const p = await context.newPage();
    p.on('pageerror', (e) => h.problems.push(`page error: ${e.message}`));
    p.on('console', (m) => {
      if (m.type() !== 'error') return;
      if (m.text().includes('status of 401') && h.expected401.has(new URL(m.location().url).pathname)) return;
      if (h.expectedErrors.some((r) => r.test(m.text()))) return;
      h.problems.push(`console error: ${m.text()} (${m.location().url})`);
    });
    p.on('requestfailed', (r) => {
      const path = new URL(r.url()).pathname;
      if (r.failure()?.errorText === 'net::ERR_ABORTED' && path === '/ui/rest/roads') return;
      if (/^\/ui\/rest\/(jobs\/[^/]+\/events|routes\/\d+\/live\/events)$/i.test(path)) return;
      h.problems.push(`request failed: ${r.method()} ${r.url()} ${r.failure()?.errorText}`);
    });
    h.page = p;
    return p;
  };
  h.signIn = async (user = USER) => {
    await h.page.goto(`${h.url}/`);
    await h.page.waitForSelector('#signin:not([hidden])');
    await h.signInHere(user);
    await h.page.waitForSelector('body[data-ready=true]');
  };
  h.signInHere = async (user = USER) => {
    const page = h.page;
    await page.fill('#username', user);
    await page.fill('#password', PASSWORD);
    await page.click('#signin-form button[type=submit]');
    await page.waitForSelector('#account:not([hidden])');
  };
  h.addVehicle = async (capacity, name) => {
    const page = h.page;
    if (name) await page.fill('#vehicle-form input[name=name]', name);
    await page.fill('#vehicle-form input[name=start]', DEPOT);
    await page.fill('#vehicle-form input[name=capacity]', capacity === null ? '' : String(capacity));
    await page.click('#vehicle-form button[type=submit]');
  };
  h.loadStops = async (file) => {
    await h.page.setInputFiles('[data-testid="file-input"]', file);
    await h.page.waitForFunction((n) => document.querySelectorAll('#stop-table tbody tr').length === n && document.querySelectorAll('.dk-marker.dk-pending').length === n, csvRows(file));
  };
  h.runAndWait = async (timeout = 90_000) => {
    await h.page.click('[data-testid="run"]');
    await h.page.waitForSelector('#run-state:is([data-state=completed],[data-state=failed],[data-state=cancelled])', { timeout });
    return (await h.page.getAttribute('#run-state', 'data-state'))!;
  };
  h.shot = async (name) => { await h.page.screenshot({ path: join(h.out, `${name}.png`) }); };
  h.count = (selector) => h.page.locator(selector).count();

  beforeAll(async () => {
    h.engine = await Engine.open((await fixtureDataset('monaco')).buffer, { threads: 2, offload: true });
    store = await openStore('sqlite::memory:');
    h.service = new Service(h.engine, store, { rateLimit: { perSecond: 0 } });
    await h.service.start();
    for (const name of [USER, ...(options.accounts ?? [])]) {
      const apiKey = name === USER ? h.apiKey : newApiKey();
      await store.createAccount({ name, keyHash: keyHash(apiKey), passwordHash: await hashPassword(PASSWORD), credit: 1_000_000, now: Date.now() });
    }
    app = buildServer(h.service, { logger: false });
    h.url = await app.listen({ port: 0, host: '127.0.0.1' });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    console.log(`${prefix} test output (screenshots): ${h.out}`);
  });
  afterEach(() => {
    const found = h.problems.splice(0);
    h.expectedErrors = [];
    h.expected401.clear();
    h.expected401.add('/ui/me');
    expect(found, 'errors in the page').toEqual([]);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await app?.close();
    await h.service?.close();
    await store?.close();
    await h.engine?.close();
  });
  return h;
}

declare const document: { querySelectorAll(selector: string): { length: number } };
