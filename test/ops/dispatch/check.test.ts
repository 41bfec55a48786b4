/** checkServiceWindows: the contract-level schedule checker, on hand-made answers. */
import { describe, expect, it } from 'vitest';
import { checkServiceWindows } from '../../../src/ops/dispatch/check.js';
import type { DispatchResult, Location } from '../../../src/records/index.js';

const D = (hm: string): string => `2026-12-01T${hm}`;
const plan = (...locs: Partial<Location>[]): DispatchResult => ({ Status: 'Success', Items: [{ Vehicle: { Name: 'V' }, Locations: locs }] }) as unknown as DispatchResult;
const depot = (eta: string, type: 'Start' | 'Finish' = 'Start', time = 0): Partial<Location> => ({ Name: 'Depot', LocationType: type, TimeEstimatedArrival: D(eta), Time: time });

describe('checkServiceWindows', () => {
  it('accepts an early arrival that waits at the door, and a CanArriveEarly-false estimate at the opening', () => {
    expect(checkServiceWindows(plan(
      depot('09:00:00'),
      { Name: 'A', TimeEstimatedArrival: D('09:10:00'), Time: 600, Wait: 30, TimeConstraintArrival: D('10:00:00'), TimeConstraintDeparture: D('15:00:00') },
      { Name: 'C', TimeEstimatedArrival: D('11:00:00'), Time: 300, Wait: 50, CanArriveEarly: false, TimeConstraintArrival: D('11:00:00'), TimeConstraintDeparture: D('14:00:00') },
      depot('11:20:00', 'Finish', 600),
    ))).toEqual([]);
  });

  it('catches the old reading (windows as deadlines): stops served an hour before their windows open', () => {
    // as the original's sample came back: A and C "visited" at 09:01-09:05, windows 10-15 and 11-14
    const found = checkServiceWindows(plan(
      depot('09:00:00'),
      { Name: 'A', TimeEstimatedArrival: D('09:01:00'), Time: 60, Wait: 30, TimeConstraintArrival: D('10:00:00'), TimeConstraintDeparture: D('15:00:00') },
      { Name: 'C', TimeEstimatedArrival: D('09:03:00'), Time: 90, Wait: 50, TimeConstraintArrival: D('11:00:00'), TimeConstraintDeparture: D('14:00:00') },
      depot('09:05:00', 'Finish', 70),
    ));
    expect(found).toHaveLength(2);
    expect(found[0]).toMatch(/Locations\[2\] \('C'.*reached before the previous entry is done/);
    expect(found[1]).toMatch(/Locations\[3\] \('Depot'.*reached before/);
  });

  it('catches service that cannot end by the departure, an estimate before the opening when early arrival is not allowed, and uses the second window', () => {
    const found = checkServiceWindows(plan(
      depot('08:00:00'),
      { Name: 'Short', TimeEstimatedArrival: D('09:00:00'), Time: 60, Wait: 600, TimeConstraintArrival: D('09:00:00'), TimeConstraintDeparture: D('09:05:00') },
      { Name: 'Strict', TimeEstimatedArrival: D('09:30:00'), Time: 60, CanArriveEarly: false, TimeConstraintArrival: D('10:00:00') },
      { Name: 'Second', TimeEstimatedArrival: D('12:00:00'), Time: 60, Wait: 60, TimeConstraintArrival: D('09:00:00'), TimeConstraintDeparture: D('09:30:00'), TimeConstraintArrival2: D('12:00:00'), TimeConstraintDeparture2: D('12:30:00') },
    ));
    expect(found).toEqual([
      expect.stringMatching(/'Short'.*Wait 600 s.*does not fit/),
      expect.stringMatching(/'Strict'.*CanArriveEarly is false/),
    ]);
  });

  it('a Break starts inside its window and holds the vehicle for its Wait; no clock, nothing to check', () => {
    const ok = plan(
      depot('09:00:00'),
      { Name: 'Lunch', LocationType: 'Break', TimeEstimatedArrival: D('12:00:00'), Time: 600, Wait: 1800, TimeConstraintArrival: D('12:00:00'), TimeConstraintDeparture: D('12:00:00') },
      { Name: 'S', TimeEstimatedArrival: D('12:30:00'), Time: 0, Wait: 60 },
    );
    expect(checkServiceWindows(ok)).toEqual([]);
    const during = structuredClone(ok);
    during.Items![0].Locations![2].TimeEstimatedArrival = D('12:10:00');
    expect(checkServiceWindows(during)).toEqual([expect.stringMatching(/'S'.*1200 s early/)]);
    const unset = plan({ Name: 'A', TimeEstimatedArrival: '0001-01-01T00:00:00', TimeConstraintArrival: D('10:00:00'), TimeConstraintDeparture: D('09:00:00') });
    expect(checkServiceWindows(unset)).toEqual([]);
  });
});
