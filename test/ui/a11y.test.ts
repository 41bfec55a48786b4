/**
 * The page usable by everyone (issue #25 item 8), in Debian's Chromium: axe-core (from npm) finds
 * no serious or critical violation — signed out, with stops and vans, with a plan and its
 * timeline, with a stop's panel, a move's check and a driver's sheet open —; every control of the
 * day's work is reachable by the keyboard (a move included: see workday.test.ts); the page works at
 * 1280×720 and at a tablet's width (768×1024) without content pushed off the side.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { FIXTURES, HAVE_CHROMIUM, usePage } from './harness.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const STOPS_50 = join(FIXTURES, 'monaco-50.csv');

interface AxeViolation { id: string; impact: string; help: string; nodes: { target: string[] }[] }
declare const axe: { run(ctx: unknown, o: unknown): Promise<{ violations: AxeViolation[] }> };
declare const document: { documentElement: { scrollWidth: number }; activeElement: { getAttribute(n: string): string | null; tagName: string } | null };
declare const window: { innerWidth: number };

describe.skipIf(!HAVE_CHROMIUM)('the page for everyone', () => {
  const t = usePage('a11y');

  /** Serious and critical violations of axe's WCAG 2.1 A/AA rules on the page as it is now. */
  async function serious(): Promise<string[]> {
    await t.page.addScriptTag({ path: AXE });
    const r = await t.page.evaluate(() => axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] }, resultTypes: ['violations'] }));
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
  }

  async function planOnShow(): Promise<void> {
    await t.signIn();
    await t.loadStops(STOPS_50);
    await t.addVehicle(60, 'Van 1');
    await t.addVehicle(60, 'Van 2');
    await t.page.fill('#optimization', '1');
    expect(await t.runAndWait()).toBe('completed');
    await t.page.waitForSelector('[data-testid="timeline-row"]');
  }

  it('has no serious accessibility violation signed out, with a plan, a stop\'s panel, a move\'s check and a driver\'s sheet', async () => {
    await t.openPage(undefined, { bypassCSP: true });
    await t.page.goto(`${t.url}/`);
    await t.page.waitForSelector('#signin:not([hidden])');
    expect(await serious(), 'signed out').toEqual([]);
    await planOnShow();
    expect(await serious(), 'a plan with its timeline').toEqual([]);
    await t.page.click('[data-testid="timeline-stop"] >> nth=0');
    await t.page.waitForSelector('#stop-panel:not([hidden])');
    expect(await serious(), 'a stop\'s panel').toEqual([]);
    await t.page.keyboard.press('Escape');
    await t.page.locator('[data-testid="timeline-stop"] >> nth=0').dragTo(t.page.locator('[data-testid="timeline-row"][data-vehicle="Van 2"] .tl-track'));
    await t.page.waitForSelector('[data-testid="move-check"]:not([hidden]):is([data-state="ok"],[data-state="broken"])');
    expect(await serious(), 'a move\'s check').toEqual([]);
    await t.page.click('[data-testid="move-cancel"]');
    await t.page.click('[data-testid="driver-sheet"] >> nth=0');
    await t.page.waitForSelector('[data-testid="sheet"]');
    expect(await serious(), 'a driver\'s sheet').toEqual([]);
  });

  it('reaches the day\'s controls with Tab alone, and the timeline\'s stops too', async () => {
    await t.openPage();
    await planOnShow();
    const reached = new Set<string>();
    await t.page.focus('body');
    // (undo is disabled until something is done: not a stop on the way)
    const want = ['driver-sheet', 'lock', 'reoptimise', 'run', 'timeline-stop'];
    for (let i = 0; i < 400 && reached.size < want.length; i++) {
      await t.page.keyboard.press('Tab');
      const id = await t.page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.getAttribute('id') ?? '');
      if (want.includes(id)) reached.add(id);
    }
    expect([...reached].sort()).toEqual(want);
  });

  for (const [name, viewport] of [['1280×720', { width: 1280, height: 720 }], ['a tablet (768×1024)', { width: 768, height: 1024 }]] as const) {
    it(`works at ${name}: nothing pushed off the side, the timeline and the run within reach`, async () => {
      await t.openPage(viewport, { bypassCSP: true });
      await planOnShow();
      expect(await t.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
      for (const sel of ['[data-testid="run"]', '[data-testid="timeline"]', '[data-testid="reoptimise"]', '#map']) {
        await t.page.locator(sel).scrollIntoViewIfNeeded();
        expect(await t.page.locator(sel).isVisible(), sel).toBe(true);
      }
      const tl = (await t.page.locator('[data-testid="timeline"]').boundingBox())!;
      expect(tl.width).toBeGreaterThan(300);
      expect(tl.height).toBeGreaterThan(40);
      await t.shot(`layout-${viewport.width}`);
      expect(await serious(), name).toEqual([]);
    });
  }
});
