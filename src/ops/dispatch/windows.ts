/**
 * Stage "windows": a Location's time constraints as the solver's windows on the start of service.
 */
import type { Location } from '../../records/index.js';
import type { Clock } from './clock.js';

/**
 * A stop's service window from one pair of its time constraints, in seconds on the dispatch clock
 * (semantics: service starts at or after TimeConstraintArrival and ends — the vehicle departs — at
 * or before TimeConstraintDeparture; one bound alone is only that bound; CanArriveEarly changes
 * where the vehicle waits, not the window). The solver's window is on the start of service:
 * [A, D − Wait], in whole seconds rounded inwards. null: no constraint; 'empty': no start fits.
 */
export function serviceWindow(a: number | null, d: number | null, service: number): [number, number] | null | 'empty' {
  if (a === null && d === null) return null;
  const open = a === null ? -Infinity : Math.ceil(a);
  const close = d === null ? Infinity : Math.floor(d) - service;
  return close >= open ? [open, close] : 'empty';
}

const PAIRS = [['TimeConstraintArrival', 'TimeConstraintDeparture'], ['TimeConstraintArrival2', 'TimeConstraintDeparture2']] as const;

/**
 * A stop's windows (both pairs; either may be used). `empty`: it has constraints but no start
 * fits any of them (it is left out with that reason).
 */
export function stopWindows(l: Location, clock: Clock): { windows: [number, number][]; empty: boolean } {
  const service = l.Wait ?? 0;
  const windows: [number, number][] = [];
  let bad = 0;
  for (const [af, df] of PAIRS) {
    const w = serviceWindow(clock.rel(l[af]), clock.rel(l[df]), service);
    if (w === 'empty') bad++;
    else if (w !== null) windows.push(w);
  }
  return { windows, empty: windows.length === 0 && bad > 0 };
}

/**
 * A Break's window: when it must start, [TimeConstraintArrival, TimeConstraintDeparture], either
 * open (whole seconds, inwards). null: no window; 'empty': it closes before it opens.
 */
export function breakWindow(l: Location, clock: Clock): [number, number] | null | 'empty' {
  const a = clock.rel(l.TimeConstraintArrival);
  const d = clock.rel(l.TimeConstraintDeparture);
  if (a === null && d === null) return null;
  const win: [number, number] = [a === null ? -Infinity : Math.ceil(a), d === null ? Infinity : Math.floor(d)];
  return win[1] < win[0] ? 'empty' : win;
}
