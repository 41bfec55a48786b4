/** `dispatchkit solve`: output shape, ids as the files number them, determinism across runs. */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { CLI, ROOT } from '../helpers/cli.js';

const cli = (...args: string[]): string =>
  execFileSync(process.execPath, [...CLI, 'solve', ...args, '--quiet'], { cwd: ROOT, encoding: 'utf8' });

describe('dispatchkit solve', () => {
  it('Solomon: customer numbers, fleet within NUMBER, same JSON twice (time-limit mode, seconds omitted)', () => {
    const a = cli('fixtures/vrp/C101.txt', '--format', 'solomon', '--time-limit', '0.3', '--seed', '4', '--workers', '1', '--no-seconds');
    const b = cli('fixtures/vrp/C101.txt', '--format', 'solomon', '--time-limit', '0.3', '--seed', '4', '--workers', '1', '--no-seconds');
    expect(a).toBe(b);
    const out = JSON.parse(a) as { vehicles: number; distance: number; routes: number[][] };
    expect(Object.keys(out)).toEqual(['vehicles', 'distance', 'routes']);
    expect(out.vehicles).toBe(out.routes.length);
    expect(out.vehicles).toBeLessThanOrEqual(25);
    expect(out.routes.flat().sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(out.distance).toBeGreaterThanOrEqual(828.93);
  });

  it('VRPLIB: node ids (depot 1 left out), nint distances, seconds reported', () => {
    const out = JSON.parse(cli('fixtures/vrp/A-n32-k5.vrp', '--iterations', '300', '--workers', '1')) as { distance: number; routes: number[][]; seconds: number };
    expect(out.routes.flat().sort((x, y) => x - y)).toEqual(Array.from({ length: 31 }, (_, i) => i + 2));
    expect(Number.isInteger(out.distance)).toBe(true);
    expect(out.distance).toBeGreaterThanOrEqual(784);
    expect(out.seconds).toBeGreaterThan(0);
  });
});
