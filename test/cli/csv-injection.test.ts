/** CSV written by the CLI and by the page never holds a live formula (issue #25, OWASP "CSV injection"); numbers stay numbers. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { csvField } from '../../src/cli/csv.js';
// the page's own module (plain browser JavaScript, no DOM at import)
// @ts-expect-error the page is plain JavaScript without declarations
import { csvField as pageCsvField } from '../../ui/plan.js';

describe('csvField (CLI and page)', () => {
  for (const [name, f] of [['CLI', csvField], ['page', pageCsvField]] as const) {
    it(`${name}: formulas are escaped, numbers and plain text kept`, () => {
      expect(f('=1+1')).toBe("'=1+1");
      expect(f('@SUM(A1)')).toBe("'@SUM(A1)");
      expect(f('+33 6 12')).toBe("'+33 6 12");
      expect(f('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
      expect(f('-cmd|calc')).toBe("'-cmd|calc");
      expect(f('-8.61')).toBe('-8.61');
      expect(f('+1e5')).toBe('+1e5');
      expect(f('Rue de la Paix, 3')).toBe('"Rue de la Paix, 3"');
      expect(f('Monaco')).toBe('Monaco');
    });
    it(`${name}: property — no field a spreadsheet would read as a formula`, () => {
      fc.assert(fc.property(fc.string(), (s) => {
        const out = f(s);
        const cell = out.startsWith('"') ? out.slice(1, -1).replace(/""/g, '"') : out;
        if (/^[=+\-@\t\r]/.test(cell)) expect(cell).toMatch(/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/);
      }), { numRuns: 2000, seed: 20261126 });
    });
  }
});
