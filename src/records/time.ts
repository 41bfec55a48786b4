/**
 * Dates of the contract. A dateTime at or before 2012-01-01T00:00:00 means "not set".
 * A dateTime without a zone is wall-clock time: it is placed on a clock whose labels equal the
 * given wall time (computed as if UTC), so nothing depends on the process's time zone. A zone or
 * `Z`, where given, is honoured (converted to that same clock as UTC). See docs/semantics.md.
 */

const CUTOFF_SECONDS = Date.UTC(2012, 0, 1) / 1000;
const ZONE_RE = /(Z|[+-]\d{2}:?\d{2})$/;

/** Seconds on the engine's clock, or null when the date is "not set". */
export function dateToSeconds(s: string | undefined | null): number | null {
  if (s === undefined || s === null || s === '') return null;
  const hasZone = ZONE_RE.test(s);
  let iso = s;
  if (!hasZone) iso = `${s.length === 10 ? `${s}T00:00:00` : s}Z`;
  else if (/[+-]\d{4}$/.test(s)) iso = `${s.slice(0, -2)}:${s.slice(-2)}`;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return null;
  const sec = ms / 1000;
  return sec <= CUTOFF_SECONDS ? null : sec;
}

export function isDateSet(s: string | undefined | null): boolean {
  return dateToSeconds(s) !== null;
}

/** True when the string carries an explicit zone (`Z` or an offset). */
export function hasZone(s: string | undefined | null): boolean {
  return !!s && ZONE_RE.test(s);
}

/**
 * Formats engine-clock seconds back into a dateTime string: zoneless wall clock by default
 * (`2026-12-01T09:30:00`), or UTC with `Z` when `utc` is true. Seconds are rounded.
 */
export function secondsToDate(sec: number, utc = false): string {
  const d = new Date(Math.round(sec) * 1000);
  const s = d.toISOString().slice(0, 19);
  return utc ? `${s}Z` : s;
}
