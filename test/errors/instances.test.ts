/**
 * Bad VRP instance files (Solomon, VRPLIB): `InvalidInput` with the file, line and field in
 * `details` (path `instance`); valid-but-unsupported VRPLIB features are `Unsupported`. Never a
 * TypeError or `Internal`.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { parseSolomon } from '../../src/vrp/io/solomon.js';
import { parseVrplib } from '../../src/vrp/io/vrplib.js';
import { errorOf, outcome } from './helpers.js';

const FIX = new URL('../../fixtures/vrp/', import.meta.url).pathname;
const C101 = readFileSync(FIX + 'C101.txt', 'utf8');
const A32 = readFileSync(FIX + 'A-n32-k5.vrp', 'utf8');

/** Replaces line `n` (1-based) of `text`. */
const setLine = (text: string, n: number, line: string): string => {
  const l = text.split('\n');
  l[n - 1] = line;
  return l.join('\n');
};
const lineOf = (text: string, re: RegExp): number => text.split('\n').findIndex((l) => re.test(l)) + 1;

function expectBad(fn: () => unknown, file: string, line?: number, field?: string, code = 'InvalidInput'): void {
  const e = errorOf(fn);
  expect(e.code).toBe(code);
  expect(e.path).toBe('instance');
  expect(e.details?.file).toBe(file);
  if (line !== undefined) expect(e.details?.line).toBe(line);
  if (field !== undefined) expect(e.details?.field).toBe(field);
}

describe('Solomon files', () => {
  const sol = (text: string) => () => parseSolomon(text, 'C101', { file: 'C101.txt' });
  const vehLine = lineOf(C101, /^\s*25\s+200/);
  const firstCust = lineOf(C101, /^\s*0\s+40\s+50/);

  it('the fixture reads', () => {
    expect(outcome(sol(C101)).ok).toBe(true);
  });

  it('structure: empty, no NUMBER CAPACITY, ends after it, no CUST NO. header, no customers', () => {
    expectBad(sol(''), 'C101.txt');
    expectBad(sol('hello\nworld\n'), 'C101.txt');
    expectBad(sol('C101\n\nVEHICLE\nNUMBER     CAPACITY\n\n'), 'C101.txt');
    expectBad(sol(C101.split('\n').filter((l) => !/CUST\s*NO/.test(l)).join('\n')), 'C101.txt');
    expectBad(sol(C101.split('\n').slice(0, firstCust).join('\n')), 'C101.txt'); // the depot only
  });

  it('the vehicle line: missing values, not numbers, zero', () => {
    expectBad(sol(setLine(C101, vehLine, '  25')), 'C101.txt', vehLine);
    expectBad(sol(setLine(C101, vehLine, '  x   200')), 'C101.txt', vehLine, 'NUMBER');
    expectBad(sol(setLine(C101, vehLine, '  2.5 200')), 'C101.txt', vehLine, 'NUMBER');
    expectBad(sol(setLine(C101, vehLine, '  25  0')), 'C101.txt', vehLine, 'CAPACITY');
  });

  it('customer lines: too few fields, not numbers, repeated ids, negative values, inverted windows', () => {
    const n = firstCust + 3;
    expectBad(sol(setLine(C101, n, '    3      42         66         10')), 'C101.txt', n);
    expectBad(sol(setLine(C101, n, '    3      42         6x6        10         65        146         90')), 'C101.txt', n, 'YCOORD.');
    expectBad(sol(setLine(C101, n, '    1      42         66         10         65        146         90')), 'C101.txt', n, 'CUST NO.');
    expectBad(sol(setLine(C101, n, '    3      42         66        -10         65        146         90')), 'C101.txt', n, 'DEMAND');
    expectBad(sol(setLine(C101, n, '    3      42         66         10        165        146         90')), 'C101.txt', n, 'READY TIME');
    expectBad(sol(setLine(C101, n, '    3      42         66         10         65        146        -90')), 'C101.txt', n, 'SERVICE TIME');
  });

  it('without a file name the error still says which line', () => {
    const e = errorOf(() => parseSolomon(setLine(C101, vehLine, '  x 200')));
    expect(e.code).toBe('InvalidInput');
    expect(e.details?.line).toBe(vehLine);
    expect(e.details?.file).toBeUndefined();
  });
});

describe('VRPLIB files', () => {
  const vrp = (text: string) => () => parseVrplib(text, 'A-n32-k5', { file: 'A-n32-k5.vrp' });
  const dimLine = lineOf(A32, /^DIMENSION/);
  const capLine = lineOf(A32, /^CAPACITY/);
  const coordLine = lineOf(A32, /^NODE_COORD_SECTION/);
  const demandLine = lineOf(A32, /^DEMAND_SECTION/);

  it('the fixture reads', () => {
    expect(outcome(vrp(A32)).ok).toBe(true);
  });

  it('header: DIMENSION missing, not a number, too small; CAPACITY, VEHICLES, SERVICE_TIME bad', () => {
    expectBad(vrp(A32.split('\n').filter((l) => !/^DIMENSION/.test(l)).join('\n')), 'A-n32-k5.vrp', undefined, 'DIMENSION');
    expectBad(vrp(setLine(A32, dimLine, 'DIMENSION : thirty-two')), 'A-n32-k5.vrp', dimLine, 'DIMENSION');
    expectBad(vrp(setLine(A32, dimLine, 'DIMENSION : 1')), 'A-n32-k5.vrp', dimLine, 'DIMENSION');
    expectBad(vrp(setLine(A32, dimLine, 'DIMENSION : 33')), 'A-n32-k5.vrp', coordLine, 'NODE_COORD_SECTION');
    expectBad(vrp(setLine(A32, capLine, 'CAPACITY : lots')), 'A-n32-k5.vrp', capLine, 'CAPACITY');
    expectBad(vrp(setLine(A32, capLine, 'VEHICLES : 0')), 'A-n32-k5.vrp', capLine, 'VEHICLES');
    expectBad(vrp(setLine(A32, capLine, 'SERVICE_TIME : -1')), 'A-n32-k5.vrp', capLine, 'SERVICE_TIME');
  });

  it('a line that is neither a header nor in a section; a section given twice', () => {
    expectBad(vrp(setLine(A32, 2, 'this is not VRPLIB')), 'A-n32-k5.vrp', 2);
    expectBad(vrp(A32.replace('DEPOT_SECTION', 'DEMAND_SECTION')), 'A-n32-k5.vrp', lineOf(A32, /^DEPOT_SECTION/), 'DEMAND_SECTION');
  });

  it('section rows: coordinates, node ids, demands, time windows', () => {
    expectBad(vrp(setLine(A32, coordLine + 3, ' 3 50 five')), 'A-n32-k5.vrp', coordLine + 3);
    expectBad(vrp(setLine(A32, coordLine + 3, ' 3 50')), 'A-n32-k5.vrp', coordLine + 3);
    expectBad(vrp(setLine(A32, coordLine + 3, ' 2 50 5')), 'A-n32-k5.vrp', coordLine + 3, 'NODE_COORD_SECTION');
    expectBad(vrp(setLine(A32, demandLine + 2, '99 19')), 'A-n32-k5.vrp', demandLine + 2, 'DEMAND_SECTION');
    expectBad(vrp(setLine(A32, demandLine + 2, '2 many')), 'A-n32-k5.vrp', demandLine + 2);
    const tw = A32.replace('DEPOT_SECTION', 'TIME_WINDOW_SECTION\n1 0 100\n2 50 10\nDEPOT_SECTION');
    expectBad(vrp(tw), 'A-n32-k5.vrp', lineOf(tw, /^2 50 10/), 'TIME_WINDOW_SECTION');
    expectBad(vrp(A32.replace(/DEPOT_SECTION\s*\n\s*1/, 'DEPOT_SECTION\n 77')), 'A-n32-k5.vrp', undefined, 'DEPOT_SECTION');
  });

  it('explicit weights: section missing, too short, not numbers; unsupported types and formats', () => {
    const explicit = ['NAME : t', 'DIMENSION : 3', 'EDGE_WEIGHT_TYPE : EXPLICIT', 'EDGE_WEIGHT_FORMAT : LOWER_ROW', 'CAPACITY : 10', 'EDGE_WEIGHT_SECTION', '4', '5 6', 'DEMAND_SECTION', '1 0', '2 1', '3 1', 'DEPOT_SECTION', '1', '-1', 'EOF'].join('\n');
    const t = (s: string) => () => parseVrplib(s, 't', { file: 't.vrp' });
    expect(outcome(t(explicit)).ok).toBe(true);
    expectBad(t(explicit.replace('5 6', '5')), 't.vrp', 6, 'EDGE_WEIGHT_SECTION');
    expectBad(t(explicit.replace('5 6', '5 x')), 't.vrp', 8, 'EDGE_WEIGHT_SECTION');
    expectBad(t(explicit.replace('EDGE_WEIGHT_SECTION\n4\n5 6\n', '')), 't.vrp', 3, 'EDGE_WEIGHT_SECTION');
    expectBad(t(explicit.replace('LOWER_ROW', 'FUNCTION')), 't.vrp', 4, 'EDGE_WEIGHT_FORMAT', 'Unsupported');
    expectBad(t(explicit.replace('EXPLICIT', 'GEO')), 't.vrp', 3, 'EDGE_WEIGHT_TYPE', 'Unsupported');
    expectBad(t(explicit.replace('EXPLICIT', 'EUC_2D')), 't.vrp', 3, 'NODE_COORD_SECTION');
  });

  it('property: cut anywhere, both formats read or give InvalidInput (Unsupported for a cut-off keyword)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: C101.length }), fc.integer({ min: 0, max: A32.length }), (a, b) => {
        for (const o of [outcome(() => parseSolomon(C101.slice(0, a), 'C101', { file: 'C101.txt' })), outcome(() => parseVrplib(A32.slice(0, b), 'A', { file: 'A.vrp' }))]) {
          if (!o.ok) {
            expect(['InvalidInput', 'Unsupported']).toContain(o.code); // e.g. "EDGE_WEIGHT_TYPE : EUC"
            expect(o.error.path).toBe('instance');
          }
        }
      }),
      { numRuns: 150, seed: 42 },
    );
  });
});
