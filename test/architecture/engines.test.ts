/**
 * A clean install on the supported Node prints no engine warning: every package in the lock file
 * whose `engines.node` says which Node it needs accepts the running one (npm's EBADENGINE check,
 * done here so that a dependency bump that needs a newer Node fails the tests, not a user's
 * install). fastify 5.12's light-my-request 6.8 needs cookie 2, which wants Node ≥ 22: package.json
 * overrides it with 6.6 (cookie 1), the same API for what fastify uses.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

type V = [number, number, number];
const parse = (s: string): V | null => {
  const m = /^v?(\d+|x|\*)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?/.exec(s.trim());
  if (!m) return null;
  const n = (x: string | undefined): number => (x === undefined || x === 'x' || x === '*' ? 0 : Number(x));
  return [n(m[1]), n(m[2]), n(m[3])];
};
const cmp = (a: V, b: V): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
const parts = (s: string): number => s.trim().replace(/^v/, '').split('.').filter((p) => p !== 'x' && p !== '*' && p !== '').length;

/** Whether `version` satisfies an npm range of the forms engines use (>=, >, <, <=, ^, ~, x, *, ||, spaces for AND). */
export function satisfies(version: string, range: string): boolean {
  const v = parse(version)!;
  return range.split('||').some((alt) => {
    const a = alt.trim();
    if (a === '' || a === '*') return true;
    const terms = a.replace(/(>=|<=|>|<|\^|~)\s+/g, '$1').split(/\s+/);
    return terms.every((t) => {
      const op = /^(>=|<=|>|<|\^|~|=)?(.*)$/.exec(t)!;
      const b = parse(op[2]);
      if (!b) return true;
      const n = parts(op[2]);
      switch (op[1]) {
        case '>=': return cmp(v, b) >= 0;
        case '>': return cmp(v, b) > 0;
        case '<': return cmp(v, b) < 0;
        case '<=': return cmp(v, b) <= 0;
        case '^': return v[0] === b[0] && cmp(v, b) >= 0;
        case '~': return v[0] === b[0] && (n < 2 || v[1] === b[1]) && cmp(v, b) >= 0;
        default: return n === 1 ? v[0] === b[0] : n === 2 ? v[0] === b[0] && v[1] === b[1] : cmp(v, b) === 0;
      }
    });
  });
}

describe('engines', () => {
  it('reads npm ranges as npm does on the forms the lock file holds', () => {
    expect(satisfies('20.20.2', '>=22')).toBe(false);
    expect(satisfies('20.20.2', '^20.19.0 || ^22.13.0 || >=23.5.0')).toBe(true);
    expect(satisfies('20.18.0', '^20.19.0 || >=22.12.0')).toBe(false);
    expect(satisfies('20.20.2', '20.x || 22.x')).toBe(true);
    expect(satisfies('20.20.2', '10.* || >= 12.*')).toBe(true);
    expect(satisfies('20.20.2', '>= 10')).toBe(true);
    expect(satisfies('20.20.2', '>=v12.22.7')).toBe(true);
    expect(satisfies('20.20.2', '^8.16.0 || ^10.6.0')).toBe(false);
  });

  it(`every locked package accepts this Node (${process.version}) and the package's own floor`, () => {
    const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as { packages: Record<string, { engines?: { node?: string }; dev?: boolean; optional?: boolean }> };
    const own = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
    const floor = own.engines.node.replace(/^>=\s*/, '');
    const refused: string[] = [];
    for (const [path, p] of Object.entries(lock.packages)) {
      const range = p.engines?.node;
      if (!range || path === '') continue;
      for (const v of [process.versions.node, `${floor}.0.0`.split('.').slice(0, 3).join('.')]) {
        if (!satisfies(v, range)) refused.push(`${path.replace(/^node_modules\//, '')} wants node ${range} (not ${v})`);
      }
    }
    expect(refused).toEqual([]);
  });
});
