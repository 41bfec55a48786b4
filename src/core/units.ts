/**
 * Unit conversions, in one place. Inside the engine road costs are integers: travel time in
 * milliseconds, length in centimetres (see docs/ARCHITECTURE.md); matrices handed to the solver
 * are seconds and metres; records carry seconds and miles or kilometres.
 */

/** The international mile. */
export const METRES_PER_MILE = 1609.344;
export const METRES_PER_KILOMETRE = 1000;

/** A contract DistanceUnit by name. */
export type LengthUnit = 'Mile' | 'Kilometer';

/** Metres in one `unit`. */
export function metresPerUnit(unit: LengthUnit): number {
  return unit === 'Kilometer' ? METRES_PER_KILOMETRE : METRES_PER_MILE;
}

/** Metres → miles or kilometres. */
export function metresToUnit(m: number, unit: LengthUnit): number {
  return m / metresPerUnit(unit);
}

/** Miles or kilometres → metres. */
export function unitToMetres(x: number, unit: LengthUnit): number {
  return x * metresPerUnit(unit);
}

export const cmToMetres = (cm: number): number => cm / 100;
export const msToSeconds = (ms: number): number => ms / 1000;

/** Seconds to drive `metres` at a constant `speed` given in `unit`s per hour. */
export function constantSpeedSeconds(metres: number, speed: number, unit: LengthUnit): number {
  return (metres / metresPerUnit(unit) / speed) * 3600;
}

/**
 * A record Distance at the precision the engine has (centimetres): kilometres to 5 decimals,
 * miles to 6 (1.6 mm), so that float noise (7.045439999999999) never reaches the records.
 */
export function roundDistance(x: number, unit: LengthUnit): number {
  const f = unit === 'Kilometer' ? 1e5 : 1e6;
  return Math.round(x * f) / f;
}

/** Metres → a record Distance in `unit` (see {@link roundDistance}). */
export function recordDistance(m: number, unit: LengthUnit): number {
  return roundDistance(metresToUnit(m, unit), unit);
}
