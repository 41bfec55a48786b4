/**
 * Stage "clock": the dispatch's times as engine seconds relative to an origin, so that numbers
 * stay small (docs/semantics.md, "The clock of a dispatch"): CurrentTime, else the earliest Tin;
 * with neither, 00:00 of the day of the earliest time given anywhere (a window or a Tout), in
 * that value's zone.
 */
import { dateToSeconds, hasZone, type DispatchSpecification, type Vehicle } from '../../records/index.js';

export interface Clock {
  /** Engine seconds of the clock's zero. */
  origin: number;
  /** CurrentTime in engine seconds, or null. */
  current: number | null;
  /** Any time at all in the request (else estimates stay unset). */
  hasClock: boolean;
  /** The estimates are written with `Z` (the reference time had a zone). */
  utc: boolean;
  /** A date of the request on the clock (seconds from the origin), null when unset. */
  rel(s: string | undefined): number | null;
}

/** 00:00 of the day of `t` (engine seconds of the date string `s`) in `s`'s own zone (zoneless = wall clock). */
export function dayStart(t: number, s: string): number {
  const m = /([+-])(\d{2}):?(\d{2})$/.exec(s);
  const offset = m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60) : 0;
  return Math.floor((t + offset) / 86400) * 86400 - offset;
}

const WINDOW_FIELDS = ['TimeConstraintArrival', 'TimeConstraintDeparture', 'TimeConstraintArrival2', 'TimeConstraintDeparture2'] as const;

export function dispatchClock(spec: DispatchSpecification): Clock {
  const current = dateToSeconds(spec.CurrentTime);
  const vehicles = (spec.Vehicles ?? []).filter((v): v is Vehicle => !!v);
  const tins = vehicles.map((v) => dateToSeconds(v.Tin)).filter((x): x is number => x !== null);
  let refStr = spec.CurrentTime && current !== null ? spec.CurrentTime : vehicles.find((v) => dateToSeconds(v.Tin) !== null)?.Tin;
  let earliest: { t: number; s: string } | null = null;
  const consider = (s: string | undefined): void => {
    const t = dateToSeconds(s);
    if (t !== null && (earliest === null || t < earliest.t)) earliest = { t, s: s! };
  };
  for (const v of vehicles) consider(v.Tout);
  for (const l of spec.Locations ?? []) for (const f of WINDOW_FIELDS) consider(l?.[f]);
  let origin: number;
  if (current !== null) origin = current;
  else if (tins.length > 0) origin = Math.min(...tins);
  else if (earliest !== null) {
    const e: { t: number; s: string } = earliest;
    origin = dayStart(e.t, e.s);
    refStr = e.s;
  } else origin = 0;
  return {
    origin, current,
    hasClock: current !== null || tins.length > 0 || earliest !== null,
    utc: hasZone(refStr),
    rel: (s) => { const t = dateToSeconds(s); return t === null ? null : t - origin; },
  };
}
