/**
 * Turn-by-turn text in five cultures: instruction sentences for maneuvers, distances, warnings
 * and hints, from one message catalog per culture (en.ts, de.ts, fr.ts, es.ts, it.ts; all with
 * the same keys, see common.ts `Catalog`). Style after OSRM's osrm-text-instructions: imperative,
 * no final period. Kernel: plain functions over plain data.
 */
import { METRES_PER_MILE } from '../../core/units.js';
import type { HintKind, Landmark, Maneuver, WarningKind } from '../maneuver-types.js';
import { LANDMARK_KINDS, formatNumber, partsOf, type Catalog, type LandmarkKind } from './common.js';
import { de } from './de.js';
import { en } from './en.js';
import { es } from './es.js';
import { fr } from './fr.js';
import { it } from './it.js';

export type { Catalog, Parts, RoadRef, RoadClass, LandmarkKind, Compass, Side, DistanceUnit } from './common.js';
export { ROAD_CLASSES, LANDMARK_KINDS, COMPASS } from './common.js';

export type Culture = 'en-US' | 'de-DE' | 'fr-FR' | 'es-ES' | 'it-IT';
export const CULTURES: readonly Culture[] = ['en-US', 'de-DE', 'fr-FR', 'es-ES', 'it-IT'];
export const CATALOGS: Record<Culture, Catalog> = { 'en-US': en, 'de-DE': de, 'fr-FR': fr, 'es-ES': es, 'it-IT': it };

const BY_LANGUAGE: Record<string, Culture> = Object.fromEntries(CULTURES.map((c) => [c.slice(0, 2), c]));

/**
 * The culture for a tag: none/'' → en-US; case-insensitive, '_' read as '-'; an exact match, or
 * else the culture of the same language ("de", "de-AT", "fr-CA" → de-DE, fr-FR; not a fallback);
 * an unsupported language → en-US with `fallback` and a message.
 */
export function resolveCulture(tag: string | undefined | null): { culture: Culture; fallback: boolean; message?: string } {
  const t = (tag ?? '').trim();
  if (t === '') return { culture: 'en-US', fallback: false };
  const norm = t.replace(/_/g, '-').toLowerCase();
  const exact = CULTURES.find((c) => c.toLowerCase() === norm);
  if (exact) return { culture: exact, fallback: false };
  const lang = /^([a-z]{2,3})(?:-|$)/.exec(norm)?.[1];
  const same = lang !== undefined ? BY_LANGUAGE[lang] : undefined;
  if (same) return { culture: same, fallback: false };
  return {
    culture: 'en-US',
    fallback: true,
    message: `Culture '${t}' is not supported; directions are in en-US (supported: ${CULTURES.join(', ')})`,
  };
}

/** The instruction sentence for one maneuver ("Turn left onto Main Street (A1) towards Boston"). */
export function maneuverText(m: Maneuver, culture: Culture): string {
  const cat = CATALOGS[culture];
  return cat.maneuver[m.type](partsOf(m, cat));
}

/**
 * A distance as spoken in directions. Rounding:
 * - Mile: below 0.1 mi (528 ft) in feet to the nearest 10 ft; then miles with one decimal below
 *   10 miles (a trailing ".0" dropped: "1 mile", "1.5 miles"), whole miles from 10.
 * - Kilometer: below 1 km in metres, to the nearest 10 m below 500 m and the nearest 50 m from
 *   500 m (975 m and up reads "1 km"); then kilometres with one decimal below 10 km, whole from 10.
 * Negative or non-finite input reads as 0. Plural forms follow the rounded value.
 */
export function distanceText(metres: number, culture: Culture, unit: 'Mile' | 'Kilometer'): string {
  const cat = CATALOGS[culture];
  const m = Number.isFinite(metres) && metres > 0 ? metres : 0;
  const num = (x: number, d: 0 | 1) => {
    const r = d === 1 ? Math.round(x * 10) / 10 : Math.round(x);
    return { s: formatNumber(r, d, cat), n: r };
  };
  if (unit === 'Mile') {
    const mi = m / METRES_PER_MILE;
    if (mi < 0.1) {
      const ft = Math.round(m / 0.3048 / 10) * 10;
      return cat.units.ft(formatNumber(ft, 0, cat), ft);
    }
    const { s, n } = num(mi, mi < 9.95 ? 1 : 0);
    return cat.units.mi(s, n);
  }
  if (m < 975) {
    const r = m < 500 ? Math.round(m / 10) * 10 : Math.round(m / 50) * 50;
    return cat.units.m(formatNumber(r, 0, cat), r);
  }
  const km = m / 1000;
  const { s, n } = num(km, km < 9.95 ? 1 : 0);
  return cat.units.km(s, n);
}

/**
 * A short warning sentence. `low-speed` says the speed when `detail.speedKmh` is given: in km/h,
 * or (unit 'Mile') converted to mph; both rounded to a whole number.
 */
export function warningText(kind: WarningKind, culture: Culture, detail?: { speedKmh?: number; unit?: 'Mile' | 'Kilometer' }): string {
  const kmh = detail?.speedKmh;
  let speed: string | undefined;
  if (kmh !== undefined && Number.isFinite(kmh) && kmh > 0) {
    speed = detail?.unit === 'Mile' ? `${Math.round((kmh * 1000) / METRES_PER_MILE)} mph` : `${Math.round(kmh)} km/h`;
  }
  return CATALOGS[culture].warning[kind](speed);
}

const isLandmarkKind = (k: string): k is LandmarkKind => (LANDMARK_KINDS as readonly string[]).includes(k);

/** A landmark as "Café Z (café), 40 m": the kind word only for known kinds, the distance in metres when known. */
function landmarkPhrase(l: Landmark, culture: Culture, unit: 'Mile' | 'Kilometer'): string {
  const cat = CATALOGS[culture];
  const kind = isLandmarkKind(l.kind) ? cat.landmarkKinds[l.kind] : '';
  const name = l.name.trim();
  const head = name ? (kind ? `${name} (${kind})` : name) : kind;
  const dist = Number.isFinite(l.distanceM) && l.distanceM >= 0 ? distanceText(l.distanceM, culture, unit) : '';
  return [head, dist].filter(Boolean).join(', ');
}

/**
 * A hint sentence: the previous/next intersection ("The next intersection is Rua Y"), or a
 * landmark ("Landmark: Café Z (café), 40 m", its distance in the request's DistanceUnit). A
 * Landmark given to an intersection hint stands by its name.
 */
export function hintText(kind: HintKind, culture: Culture, subject: string | Landmark, unit: 'Mile' | 'Kilometer' = 'Kilometer'): string {
  const s = typeof subject === 'string' ? subject : kind === 'landmark' ? landmarkPhrase(subject, culture, unit) : subject.name;
  return CATALOGS[culture].hint[kind](s);
}
