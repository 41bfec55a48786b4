/**
 * Forward and reverse geocoding on a {@link GeocodeIndex}.
 *
 * Forward: the Street field is parsed (number, name, units, hints); City/State/PostalCode/Country
 * are resolved against the index's place and postcode tables (exact key, then trigram + edit
 * distance). Street-name candidates come from the trigram index (plus a phonetic-key table as a
 * second chance) and are re-ranked by a bounded Damerau–Levenshtein distance on three keys (core,
 * core without articles, core + type). Each candidate street is then resolved at the finest level
 * its data allows — address point, interpolation (OSM ranges, between known numbers, TIGER), street
 * point — and scored BC-geocoder style: level points minus fault penalties. The MatchCode follows
 * from the level and the faults; a contradicting postcode/city/state/country caps it at Poor.
 *
 * Reverse: nearest address point (≤ 75 m by default) else nearest street segment.
 */
import { haversine, isValidLatLon, metresPerDegree } from '../core/geo.js';
import type { GeocodeIndex } from './geocode-index.js';
import { PlaceRank, DIR_CODES, RangeSource } from './geocode-index.js';
import { parseStreetLine, type HouseNumber, type ParsedStreet } from './parse.js';
import { analyzeName, countryKey, placeKey, postcodeKey, postcodeVariants, phonetic, stateKey, type NameKey } from './normalize.js';
import { osaDistance } from './fuzzy.js';
import { typesCompatible } from './dict.js';
import { pointAtMeasure, projectOnLine, rangeFraction, type Line } from './interpolate.js';
import { foldWords } from './text.js';
import { NumberPlacer, type NumberPlacement } from './house-numbers.js';
import { WayClass } from './extract.js';

export type MatchCodeName = 'None' | 'Poor' | 'Approx' | 'Good' | 'Exact';
export const MATCH_CODE_VALUE: Record<MatchCodeName, number> = { None: 0, Poor: 1, Approx: 2, Good: 3, Exact: 4 };
const CODE_NAMES: MatchCodeName[] = ['None', 'Poor', 'Approx', 'Good', 'Exact'];

export interface AddressQuery {
  Street?: string | null;
  City?: string | null;
  State?: string | null;
  PostalCode?: string | null;
  Country?: string | null;
}

/** An address as one line for messages: its non-blank fields, comma-separated, at most 200 characters. */
export function describeAddress(a: AddressQuery): string {
  return [a.Street, a.City, a.State, a.PostalCode, a.Country].filter((v) => v && v.trim().length > 0).join(', ').slice(0, 200);
}

export interface MatchedAddress {
  Street?: string;
  City?: string;
  State?: string;
  PostalCode?: string;
  Country?: string;
}

export type CandidateKind = 'address' | 'interpolated' | 'street' | 'postcode' | 'locality';

export interface GeocodeCandidate {
  lat: number;
  lon: number;
  matchCode: MatchCodeName;
  /** 0..1; best-first order follows it. */
  score: number;
  kind: CandidateKind;
  /** The address of the matched feature (what was found, not what was asked). */
  address: MatchedAddress;
  /** What lowered the score, e.g. "name:typo1", "postcode:conflict". */
  faults: string[];
}

export interface SearchOptions {
  /** Maximum candidates (default 5). */
  limit?: number;
}

export interface ReverseResult {
  lat: number;
  lon: number;
  /** Metres from the query point to the feature. */
  distance: number;
  kind: 'address' | 'interpolated' | 'street' | 'locality';
  address: MatchedAddress;
}

export interface ReverseOptions {
  /** Farthest street considered, metres (default 1000). */
  maxDistance?: number;
  /** An address point this close wins over a nearer street (default 75 m). */
  addressRadius?: number;
}

// ----------------------------------------------------------------------------- reverse: way classes

/** How much farther than it is a street segment of each WayClass counts in reverse geocoding (metres, summed). */
export const REVERSE_PENALTY_M: Record<keyof typeof WayClass, number> = { Underground: 200, Covered: 50, Motorway: 150, Link: 150, Path: 40 };
const MAX_PENALTY_M = 300;
const PENALTY_BY_CLASS = new Float64Array(256);
for (let c = 1; c < 256; c++) {
  let p = 0;
  for (const [k, bit] of Object.entries(WayClass)) if (c & bit) p += REVERSE_PENALTY_M[k as keyof typeof WayClass];
  PENALTY_BY_CLASS[c] = Math.min(MAX_PENALTY_M, p);
}
function classPenalty(c: number): number {
  return PENALTY_BY_CLASS[c];
}

// ----------------------------------------------------------------------------- scoring constants

const BASE = { address: 100, rangeOsm: 93, between: 92, tiger: 90, near: 80, street: 75, postcode: 62, locality: 58, region: 48 };
const KIND_ORDER: Record<CandidateKind, number> = { address: 0, interpolated: 1, street: 2, postcode: 3, locality: 4 };

/** Edits allowed for a name key of this length. */
function allowedEdits(len: number): number {
  return len <= 3 ? 0 : len <= 5 ? 1 : len <= 9 ? 2 : 3;
}

interface NameMatch {
  name: number;
  penalty: number;
  edits: number;
  phoneticOnly: boolean;
  partial: boolean;
  faults: string[];
  weak: boolean;
}

/** Evidence about one of City/State/Country: places the query may mean. */
interface PlaceEvidence {
  given: boolean;
  /** place id → penalty of having matched it (0 exact, 2 fuzzy). */
  places: Map<number, number>;
}

interface PostcodeEvidence {
  given: boolean;
  /** postcode id, −1 when not found */
  id: number;
  key: string;
}

interface Resolved {
  lat: number;
  lon: number;
  level: keyof typeof BASE;
  kind: CandidateKind;
  houseNumber: string;
  faults: string[];
  penalty: number;
  /** postcode id of the feature, −1 unknown */
  pc: number;
  /** locality sets to check City/State/Country against */
  locSets: number[];
  /** interpolation reliability: false when the bracket was wide */
  tight: boolean;
}

/** A forward candidate before de-duplication; the address of a street candidate is described only if returned. */
interface Cand extends Omit<GeocodeCandidate, 'address'> {
  address: MatchedAddress | (() => MatchedAddress);
  /** tie-break id (street, postcode or place) */
  tie: number;
  conflict: boolean;
  weak: boolean;
  /** address point or interpolated number (for the ambiguity check) */
  addrLevel: boolean;
}

/** The chosen reading of the Street field. */
interface StreetReading {
  parsed: ParsedStreet;
  /** name matches of the reading, best first */
  names: NameMatch[];
  /** trailing street-line words that name a place, when the name matched only without them */
  cityHint: string;
}

/** City/State/Country/PostalCode of a query, resolved against the index. */
interface QueryEvidence {
  city: PlaceEvidence;
  state: PlaceEvidence;
  country: PlaceEvidence;
  pc: PostcodeEvidence;
}

/** A candidate street with its name match and pre-rank. */
interface StreetPick {
  street: number;
  nm: NameMatch;
  pre: number;
}

// ----------------------------------------------------------------------------- the geocoder

export class Geocoder {
  private seen = new Uint32Array(0);
  private epoch = 0;

  private readonly placer: NumberPlacer;
  /** Whether the dataset knows any country / city-like place / postcode (else such fields cannot be judged). */
  private readonly knows: { country: boolean; city: boolean; postcode: boolean };

  constructor(readonly index: GeocodeIndex) {
    this.placer = new NumberPlacer(index);
    let country = false, city = false;
    for (let p = 0; p < index.plRank.length; p++) {
      if (index.plRank[p] === PlaceRank.Country) country = true;
      else if (index.plRank[p] > PlaceRank.County) city = true;
    }
    this.knows = { country, city, postcode: index.pcKey.length > 0 };
  }

  /**
   * Whether the query asks for a place this dataset does not cover: a Country it does not know,
   * or a City and a PostalCode neither of which it knows (a single unknown one may be a typo the
   * other corrects). Such a query gets no location rather than the nearest-sounding street of
   * another country (see docs/geocoding.md, "Outside the extract").
   */
  private outsideDataset(ev: QueryEvidence): boolean {
    if (ev.country.given && this.knows.country && ev.country.places.size === 0) return true;
    const cityUnknown = ev.city.given && this.knows.city && ev.city.places.size === 0;
    const pcUnknown = ev.pc.given && this.knows.postcode && ev.pc.id < 0;
    if (cityUnknown && pcUnknown) return true;
    return (cityUnknown && !ev.pc.given) || (pcUnknown && !ev.city.given);
  }

  // ------------------------------------------------------------------ lookups

  private findKey(table: Uint32Array, key: string): number {
    const keys = this.index.keys;
    let lo = 0;
    let hi = table.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = keys.get(table[mid]);
      if (v < key) lo = mid + 1;
      else if (v > key) hi = mid - 1;
      else return mid;
    }
    return -1;
  }

  private placesOfKey(k: number): Uint32Array {
    return this.index.pkIds.subarray(this.index.pkOff[k], this.index.pkOff[k + 1]);
  }

  /** Places a City/State/Country value may denote: exact key first, else fuzzy on the place-key trigrams. */
  private resolvePlace(raw: string | null | undefined, kind: 'city' | 'state' | 'country'): PlaceEvidence {
    const ev: PlaceEvidence = { given: false, places: new Map() };
    if (!raw) return ev;
    const key = kind === 'state' ? stateKey(raw) : kind === 'country' ? countryKey(raw) : placeKey(raw);
    if (key.length === 0) return ev;
    ev.given = true;
    const add = (k: number, pen: number) => {
      for (const p of this.placesOfKey(k)) {
        const rank = this.index.plRank[p];
        if (kind === 'state' && rank !== PlaceRank.State && rank !== PlaceRank.County) continue;
        if (kind === 'country' && rank !== PlaceRank.Country) continue;
        const prev = ev.places.get(p);
        if (prev === undefined || pen < prev) ev.places.set(p, pen);
      }
    };
    const exact = this.findKey(this.index.pkKey, key);
    if (exact >= 0) add(exact, 0);
    if (kind === 'state' || kind === 'country') {
      if (exact < 0) {
        const alt = this.findKey(this.index.pkKey, placeKey(raw));
        if (alt >= 0) add(alt, 0);
      }
      return ev;
    }
    if (ev.places.size === 0 && key.length >= 4) {
      const allowed = allowedEdits(key.length);
      for (const h of this.index.placeGrams.search(key, 20, 0.3)) {
        const cand = this.index.keys.get(this.index.pkKey[h.id]);
        const d = osaDistance(key, cand, allowed);
        if (d <= allowed) add(h.id, 1 + d);
        else if (phonetic(key) === phonetic(cand) && d <= allowed + 1) add(h.id, 4);
      }
    }
    if (ev.places.size === 0) {
      // "9490 Vaduz", "Vaduz LI", "Monaco, MC": try each word run
      const ws = foldWords(raw).split(' ').filter((w) => w.length >= 3 && !/^\d+$/.test(w));
      if (ws.length >= 1 && ws.join('') !== key) {
        for (let len = ws.length; len >= 1 && ev.places.size === 0; len--) {
          for (let i = 0; i + len <= ws.length; i++) {
            const k = this.findKey(this.index.pkKey, placeKey(ws.slice(i, i + len).join(' ')));
            if (k >= 0) add(k, 2);
          }
        }
      }
    }
    return ev;
  }

  private resolvePostcode(raw: string | null | undefined): PostcodeEvidence {
    const ev: PostcodeEvidence = { given: false, id: -1, key: '' };
    if (!raw) return ev;
    const key = postcodeKey(raw);
    if (key.length === 0) return ev;
    ev.given = true;
    ev.key = key;
    for (const v of postcodeVariants(key)) {
      const i = this.findKey(this.index.pcKey, v);
      if (i >= 0) { ev.id = i; ev.key = v; break; }
    }
    return ev;
  }

  /** Street-name candidates for a query name, best first. */
  private matchNames(q: NameKey): NameMatch[] {
    const idx = this.index;
    const K = idx.keys;
    if (q.nsKey.length === 0) return [];
    if (this.seen.length < idx.nameCount) this.seen = new Uint32Array(idx.nameCount);
    const epoch = ++this.epoch;
    const seen = this.seen;
    const out: NameMatch[] = [];
    const qPh = phonetic(q.nsKey);
    const consider = (n: number) => {
      if (seen[n] === epoch) return;
      seen[n] = epoch;
      const m = this.scoreName(q, qPh, n);
      if (m) out.push(m);
    };
    for (const h of idx.nameGrams.search(q.nsKey, 48, 0.2)) consider(h.id);
    // whole names too (unless the name was found as typed): a typo in a short stem of a compound
    // ("Nuegasse") or in an article ("An fdder Halde") leaves the core keys little in common
    if (!out.some((m) => m.penalty === 0)) for (const h of idx.fullGrams.search(q.fullKey, 48, 0.3)) consider(h.id);
    // phonetic table
    if (qPh.length >= 2) {
      const ord = idx.nmPhOrder;
      let lo = 0, hi = ord.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (K.get(idx.nmPh[ord[mid]]) < qPh) lo = mid + 1;
        else hi = mid;
      }
      for (let k = lo, c = 0; k < ord.length && c < 40 && K.get(idx.nmPh[ord[k]]) === qPh; k++, c++) consider(ord[k]);
    }
    out.sort((a, b) => a.penalty - b.penalty || a.name - b.name);
    return out;
  }

  private scoreName(q: NameKey, qPh: string, n: number): NameMatch | null {
    const idx = this.index;
    const K = idx.keys;
    const nNs = K.get(idx.nmNs[n]);
    const nCore = K.get(idx.nmCore[n]);
    const nFull = K.get(idx.nmFull[n]);
    const nDigits = K.get(idx.nmDigits[n]);
    if (q.digits !== nDigits) return null;
    const allowed = allowedEdits(Math.max(nNs.length, q.nsKey.length) - (q.digits.length > 0 ? q.digits.length : 0));
    const cap = allowed + 2;
    const dNs = osaDistance(q.nsKey, nNs, cap);
    const dCore = q.coreKey === q.nsKey && nCore === nNs ? dNs : osaDistance(q.coreKey, nCore, cap);
    // Whole-name keys (type included; words as written) catch typos that break the type split or a
    // synonym ("Gapetschstrase", "An dr Halde"); they get an allowance from their own length, one
    // edit less since type words are shared by many names.
    let edits = Math.min(dNs, dCore);
    let within = edits <= allowed;
    if (!within && q.fullKey.length >= 5) {
      const allowedWhole = Math.max(allowed, allowedEdits(Math.min(q.fullKey.length, nFull.length)) - 1);
      const dFull = osaDistance(q.fullKey, nFull, allowedWhole);
      const dRaw = dFull <= allowedWhole ? dFull : osaDistance(q.rawKey, K.get(idx.nmRaw[n]), allowedWhole);
      const dWhole = Math.min(dFull, dRaw);
      if (dWhole <= allowedWhole) { edits = Math.max(1, dWhole); within = true; }
    }
    const faults: string[] = [];
    let penalty = 0;
    let phoneticOnly = false;
    let partial = false;
    let weak = false;
    if (dCore > 0 && dNs === 0) { penalty += 1; faults.push('name:articles'); }
    if (!within) {
      const nPh = K.get(idx.nmPh[n]);
      const nWords = K.get(idx.nmWords[n]).split(' ').filter((w) => w.length > 0);
      if (qPh === nPh && qPh.length >= 3 && edits <= allowed + 2) {
        phoneticOnly = true;
        penalty += 10 + 2 * edits;
        faults.push('name:phonetic');
        weak = edits > allowed + 1;
      } else {
        // token containment: one side's significant words all present, in order, in the other
        const qWords = q.core.filter((w) => w.length > 0);
        const miss = containedMissing(qWords, nWords);
        if (miss > 0 && miss <= 2) {
          partial = true;
          penalty += 8 + 3 * miss;
          faults.push('name:partial');
          edits = 0;
        } else return null;
      }
    } else if (edits > 0) {
      // short names: a different first letter makes a different word ("Sand" is not "Land")
      if (Math.max(nNs.length, q.nsKey.length) <= 5 && q.nsKey[0] !== nNs[0] && q.coreKey[0] !== nCore[0]) return null;
      penalty += 6 * edits;
      faults.push(`name:typo${edits}`);
      if (edits >= 2 && edits * 5 > Math.max(nNs.length, 1)) weak = true;
    }
    // type
    const nType = K.get(idx.nmType[n]);
    if (q.typeCanon && nType) {
      if (!typesCompatible(q.type, nType) && !typesCompatible(q.typeCanon, nType)) { penalty += 8; faults.push('type:mismatch'); }
    } else if (!q.typeCanon && nType) { penalty += 2; faults.push('type:missing'); }
    else if (q.typeCanon && !nType) {
      // "Hauptstr." against an index name without a type word is fine when the full keys agree
      if (q.fullKey !== nFull) { penalty += 3; faults.push('type:extra'); }
    }
    // directionals
    for (const [qd, nd, side] of [[q.predir, DIR_CODES[idx.nmPre[n]], 'pre'], [q.postdir, DIR_CODES[idx.nmPost[n]], 'post']] as const) {
      if (qd === nd) continue;
      // "W 26th St" typed as "26th St W": same directional on the other side
      const other = side === 'pre' ? DIR_CODES[idx.nmPost[n]] : DIR_CODES[idx.nmPre[n]];
      const qOther = side === 'pre' ? q.postdir : q.predir;
      if (qd && !nd && other === qd) continue;
      if (!qd && nd && qOther === nd) continue;
      if (qd && nd) { penalty += 12; faults.push('dir:mismatch'); }
      else if (!qd) { penalty += 2; faults.push('dir:missing'); }
      else { penalty += 4; faults.push('dir:extra'); }
    }
    return { name: n, penalty, edits, phoneticOnly, partial, faults, weak };
  }

  // ------------------------------------------------------------------ consistency checks

  private setHasRank(set: number, pred: (rank: number) => boolean): boolean {
    const idx = this.index;
    for (let k = idx.lsOff[set]; k < idx.lsOff[set + 1]; k++) if (pred(idx.plRank[idx.lsIds[k]])) return true;
    return false;
  }

  /** Penalty and fault for one piece of place evidence against the candidate's locality sets. */
  private checkPlace(ev: PlaceEvidence, sets: number[], what: 'city' | 'state' | 'country', faults: string[]): { penalty: number; conflict: boolean } {
    if (!ev.given) return { penalty: what === 'city' ? 1 : 0, conflict: false };
    const idx = this.index;
    let best = Infinity;
    for (const s of sets) {
      for (let k = idx.lsOff[s]; k < idx.lsOff[s + 1]; k++) {
        const pen = ev.places.get(idx.lsIds[k]);
        if (pen !== undefined && pen < best) best = pen;
      }
    }
    if (best < Infinity) {
      if (best > 0) faults.push(`${what}:fuzzy`);
      return { penalty: best, conflict: false };
    }
    const relevant = what === 'city' ? (r: number) => r >= PlaceRank.County : what === 'state' ? (r: number) => r === PlaceRank.State : (r: number) => r === PlaceRank.Country;
    const verifiable = sets.some((s) => this.setHasRank(s, relevant));
    if (ev.places.size === 0) {
      faults.push(`${what}:unknown`);
      return { penalty: what === 'city' ? 4 : 1, conflict: false };
    }
    if (!verifiable) {
      faults.push(`${what}:unverified`);
      return { penalty: 2, conflict: false };
    }
    faults.push(`${what}:conflict`);
    return { penalty: what === 'city' ? 25 : 15, conflict: true };
  }

  private checkPostcode(ev: PostcodeEvidence, pc: number, street: number, lat: number, lon: number, faults: string[]): { penalty: number; conflict: boolean } {
    if (!ev.given) return { penalty: 1, conflict: false };
    if (ev.id < 0) { faults.push('postcode:unknown'); return { penalty: 3, conflict: false }; }
    if (pc === ev.id) return { penalty: 0, conflict: false };
    const idx = this.index;
    if (street >= 0) {
      for (let k = idx.stPcOff[street]; k < idx.stPcOff[street + 1]; k++) if (idx.stPcIds[k] === ev.id) {
        if (pc >= 0) faults.push('postcode:street');
        return { penalty: pc >= 0 ? 1 : 0, conflict: false };
      }
    }
    if (pc < 0 && (street < 0 || idx.stPcOff[street + 1] === idx.stPcOff[street])) {
      const d = haversine(lat, lon, idx.pcLat[ev.id], idx.pcLon[ev.id]);
      if (d <= idx.pcRad[ev.id] + 1000) { faults.push('postcode:unverified'); return { penalty: 2, conflict: false }; }
    }
    faults.push('postcode:conflict');
    return { penalty: 20, conflict: true };
  }

  // ------------------------------------------------------------------ house numbers on a street

  /**
   * The finest positions number h has on the street, as a cascade: every address point with that
   * number ({@link addressPoints}); else an OSM interpolation range; else a tight interpolation
   * between known numbers; else a TIGER range; else a loose interpolation; else, at street level,
   * a point past the known numbers, near the known number closest in value, or the street's point.
   */
  private resolveNumber(street: number, h: HouseNumber | null): Resolved[] {
    const idx = this.index;
    const streetPc = idx.stPcOff[street + 1] > idx.stPcOff[street] ? idx.stPcIds[idx.stPcOff[street]] : -1;
    if (!h) return [this.streetLevel(street, streetPc, [])];
    const points = this.addressPoints(street, h);
    if (points) return points;
    const n = h.num;
    const osmR = this.onRange(street, n, RangeSource.Osm, streetPc);
    if (osmR) return [osmR];
    // from the street's known numbers: between two of them, past the last of its side, or the closest in value
    const placed = this.placer.place(street, n);
    const between = placed && placed.how === 'between' ? this.betweenResolved(placed, n) : null;
    if (between && between.tight) return [between];
    const tigerR = this.onRange(street, n, RangeSource.Tiger, streetPc);
    if (tigerR) return [tigerR];
    if (between) return [between];
    // close to the known numbers: at (or extrapolated from) the last known number, street level
    if (placed && placed.how === 'beyond') return [this.streetLevel(street, streetPc, ['number:beyond'], placed.lat, placed.lon, 'near')];
    // otherwise the known number closest in value (same parity first) says more about where n
    // is than the middle of a long street does; still street level (Approx)
    if (placed) return [this.streetLevel(street, streetPc, ['number:notfound'], placed.lat, placed.lon)];
    return [this.streetLevel(street, streetPc, ['number:notfound'])];
  }

  /** A street-level position (by default the street's representative point) with the street's first postcode and locality set. */
  private streetLevel(street: number, pc: number, faults: string[], lat = this.index.stLat[street], lon = this.index.stLon[street], level: keyof typeof BASE = 'street'): Resolved {
    return { lat, lon, level, kind: 'street', houseNumber: '', faults, penalty: 0, pc, locSets: [this.index.stLoc[street]], tight: false };
  }

  /**
   * Every address point of the street with h's number (a street may cross a town line), those
   * with h's suffix if any (else the others, with a suffix fault), at most 8; null when the
   * number has no point.
   */
  private addressPoints(street: number, h: HouseNumber): Resolved[] | null {
    const idx = this.index;
    const a0 = idx.stAddrOff[street], a1 = idx.stAddrOff[street + 1];
    let lo = a0, hi = a1;
    while (lo < hi) { const mid = (lo + hi) >>> 1; if (idx.adNum[mid] < h.num) lo = mid + 1; else hi = mid; }
    if (!(lo < a1 && idx.adNum[lo] === h.num)) return null;
    const same: number[] = [];
    const other: number[] = [];
    const qs = h.suffix.replace(/[^a-z0-9]/g, '');
    for (let k = lo; k < a1 && idx.adNum[k] === h.num; k++) {
      const s = idx.keys.get(idx.adSfx[k]).replace(/[^a-z0-9]/g, '');
      if (s === qs) same.push(k); else other.push(k);
    }
    const picks = (same.length > 0 ? same : other).slice(0, 8);
    return picks.map((k) => {
      const faults: string[] = [];
      let penalty = 0;
      if (same.length === 0) {
        const s = idx.keys.get(idx.adSfx[k]).replace(/[^a-z0-9]/g, '');
        // "39a" asked, "39a/b" found: a close variant
        faults.push('number:suffix');
        penalty += qs.length > 0 && s.includes(qs) ? 1 : 3;
      }
      if (idx.adFlags[k] & 1) penalty += 0.3; // street taken from proximity: a tagged twin wins ties
      return {
        lat: idx.adLat[k], lon: idx.adLon[k], level: 'address', kind: 'address', houseNumber: idx.strings.get(idx.adHn[k]),
        faults, penalty, pc: idx.adPc[k], locSets: [idx.adLoc[k]], tight: true,
      } as Resolved;
    });
  }

  /** Number n on the first of the street's ranges from `src` (OSM or TIGER) that holds it, placed by its fraction of the line; null if none. */
  private onRange(street: number, n: number, src: number, streetPc: number): Resolved | null {
    const idx = this.index;
    const r0 = idx.stRangeOff[street], r1 = idx.stRangeOff[street + 1];
    for (let k = r0; k < r1; k++) {
      if (idx.rgSrc[k] !== src) continue;
      const f = rangeFraction(idx.rgFrom[k], idx.rgTo[k], idx.rgStep[k], n);
      if (f === null) continue;
      const line: Line = { lat: idx.rgLat, lon: idx.rgLon, start: idx.rgPtOff[k], end: idx.rgPtOff[k + 1] };
      let len = 0;
      for (let i = line.start; i + 1 < line.end; i++) len += haversine(idx.rgLat[i], idx.rgLon[i], idx.rgLat[i + 1], idx.rgLon[i + 1]);
      const p = pointAtMeasure(line, f * len);
      const loc = idx.rgLoc[k] !== 0 ? [idx.rgLoc[k], idx.stLoc[street]] : [idx.stLoc[street]];
      return {
        lat: p.lat, lon: p.lon, level: src === RangeSource.Osm ? 'rangeOsm' : 'tiger', kind: 'interpolated', houseNumber: String(n),
        faults: [src === RangeSource.Osm ? 'number:interpolated' : 'number:tiger'], penalty: 0,
        pc: idx.rgPc[k] >= 0 ? idx.rgPc[k] : streetPc, locSets: loc, tight: len <= 1500,
      };
    }
    return null;
  }

  private betweenResolved(bp: NumberPlacement, n: number): Resolved {
    const idx = this.index;
    const pb = idx.adPc[bp.below], pa = idx.adPc[bp.above];
    return {
      lat: bp.lat, lon: bp.lon, level: 'between', kind: 'interpolated', houseNumber: String(n), faults: ['number:interpolated'], penalty: 0,
      pc: pb === pa ? pb : pb >= 0 ? pb : pa, locSets: [idx.adLoc[bp.below], idx.adLoc[bp.above]], tight: bp.tight,
    };
  }

  // ------------------------------------------------------------------ forward search

  /**
   * Forward geocoding, as a sequence of stages: read the Street field ({@link readStreetLine}),
   * resolve City/State/Country/PostalCode ({@link resolveEvidence}), pick candidate streets
   * ({@link preferNamesAsTyped}, {@link candidateStreets}), place the house number on each and
   * score it ({@link addStreetCandidates}), add area fallbacks ({@link addPostcodeCandidate},
   * {@link addLocalityCandidates}), order and flag ambiguity ({@link rankCandidates}), and
   * return the best distinct ones ({@link distinctCandidates}).
   */
  search(q: AddressQuery, opts: SearchOptions = {}): GeocodeCandidate[] {
    const limit = Math.max(1, Math.min(50, opts.limit ?? 5));
    const streetRaw = typeof q.Street === 'string' ? q.Street : '';
    const reading = this.readStreetLine(streetRaw);
    const ev = this.resolveEvidence(q, reading);
    if (this.outsideDataset(ev)) return [];
    const cands: Cand[] = [];
    const streets = this.candidateStreets(preferNamesAsTyped(reading.names), ev);
    this.addStreetCandidates(cands, streets, reading.parsed.number, ev, streetRaw);
    this.addPostcodeCandidate(cands, ev, streetRaw);
    this.addLocalityCandidates(cands, ev, streetRaw);
    const kept = cands.filter((c) => !tooWeak(c));
    rankCandidates(kept);
    return distinctCandidates(kept, limit);
  }

  /**
   * Stage 1: the reading of the Street field whose name matches best. Takes the raw Street;
   * returns the parse (the first reading, else an alternative whose best name match is better),
   * the analysed name, its name matches, and a city hint when the name only matched without
   * trailing words that are a place ("Main St Vaduz").
   */
  private readStreetLine(streetRaw: string): StreetReading {
    const idx = this.index;
    let parsed = parseStreetLine(streetRaw);
    let qName = analyzeName(parsed.name);
    let names = this.matchNames(qName);
    for (const alt of parsed.alts ?? []) {
      if (names.length > 0 && names[0].penalty <= 2) break;
      const altName = analyzeName(alt.name);
      const altNames = this.matchNames(altName);
      if (altNames.length > 0 && (names.length === 0 || altNames[0].penalty < names[0].penalty)) {
        parsed = alt;
        qName = altName;
        names = altNames;
      }
    }
    let cityHint = '';
    if (names.length === 0 && qName.words.length >= 2) {
      // "Main St Vaduz": trailing words that are a place → city hint
      for (let cut = 1; cut <= Math.min(2, qName.words.length - 1) && names.length === 0; cut++) {
        const tail = qName.words.slice(-cut).join(' ');
        if (this.findKey(idx.pkKey, placeKey(tail)) >= 0) {
          const n2 = analyzeName(qName.words.slice(0, -cut).join(' '));
          const m2 = this.matchNames(n2);
          if (m2.length > 0) { qName = n2; names = m2; cityHint = tail; }
        }
      }
    }
    return { parsed, names, cityHint };
  }

  /**
   * Stage 2: what the query says besides the street. Hints from the Street field (and the city
   * hint) fill an empty City/PostalCode — never override them — and a postcode typed into City
   * ("9490 Vaduz") is taken as the postcode; then each field is resolved against the place and
   * postcode tables.
   */
  private resolveEvidence(q: AddressQuery, reading: StreetReading): QueryEvidence {
    let cityRaw = typeof q.City === 'string' ? q.City : '';
    let pcRaw = typeof q.PostalCode === 'string' ? q.PostalCode : '';
    for (const hint of reading.parsed.hints) {
      for (const w of hint.split(' ')) if (!pcRaw && /\d/.test(w) && w.length >= 3 && this.resolvePostcode(w).id >= 0) pcRaw = w;
      const words = hint.split(' ').filter((w) => !/\d/.test(w));
      if (!cityRaw && words.length > 0) cityRaw = words.join(' ');
    }
    if (!cityRaw && reading.cityHint) cityRaw = reading.cityHint;
    // postcode typed into City ("9490 Vaduz")
    if (!pcRaw && cityRaw) {
      for (const w of foldWords(cityRaw).split(' ')) if (/\d/.test(w) && w.length >= 3 && this.resolvePostcode(w).id >= 0) { pcRaw = w; break; }
    }
    return {
      city: this.resolvePlace(cityRaw, 'city'),
      state: this.resolvePlace(typeof q.State === 'string' ? q.State : '', 'state'),
      country: this.resolvePlace(typeof q.Country === 'string' ? q.Country : '', 'country'),
      pc: this.resolvePostcode(pcRaw),
    };
  }

  /**
   * Stage 3: the streets to resolve. Takes the name matches (best first) and the evidence; returns
   * the streets of the 12 best names, pre-ranked by name penalty plus City and postcode
   * agreement, at most 24.
   */
  private candidateStreets(names: NameMatch[], ev: QueryEvidence): StreetPick[] {
    const idx = this.index;
    const { city, pc } = ev;
    const pre: StreetPick[] = [];
    for (const nm of names.slice(0, 12)) {
      for (let s = idx.nmStreetOff[nm.name]; s < idx.nmStreetOff[nm.name + 1]; s++) {
        let p = nm.penalty;
        if (city.given) p += this.checkPlace(city, [idx.stLoc[s]], 'city', []).penalty;
        if (pc.given && pc.id >= 0) {
          let has = false;
          for (let k = idx.stPcOff[s]; k < idx.stPcOff[s + 1]; k++) if (idx.stPcIds[k] === pc.id) has = true;
          if (!has) p += 5;
        }
        pre.push({ street: s, nm, pre: p });
      }
    }
    pre.sort((a, b) => a.pre - b.pre || a.street - b.street);
    if (pre.length > 24) pre.length = 24;
    return pre;
  }

  /**
   * Stage 4: address-level and street-level candidates. For each candidate street, every
   * position of the house number ({@link resolveNumber}) becomes a candidate scored as level
   * points minus name, number and place faults, with its MatchCode ({@link matchCodeOf}).
   * Appends to `cands`; the address is described lazily (only returned candidates need it).
   */
  private addStreetCandidates(cands: Cand[], streets: StreetPick[], number: HouseNumber | null, ev: QueryEvidence, streetRaw: string): void {
    const idx = this.index;
    const { city, state, country, pc } = ev;
    const numberFirst = /^[^\p{L}\p{N}]*\d/u.test(streetRaw);
    const rawLower = streetRaw.toLowerCase();
    for (const { street, nm } of streets) for (const r of this.resolveNumber(street, number)) {
      const faults = [...nm.faults, ...r.faults];
      let penalty = nm.penalty + r.penalty;
      let conflict = false;
      const c1 = this.checkPlace(city, r.locSets.concat(r.pc >= 0 ? [idx.pcLoc[r.pc]] : []), 'city', faults);
      const c2 = this.checkPlace(state, r.locSets, 'state', faults);
      const c3 = this.checkPlace(country, r.locSets, 'country', faults);
      const c4 = this.checkPostcode(pc, r.pc, street, r.lat, r.lon, faults);
      penalty += c1.penalty + c2.penalty + c3.penalty + c4.penalty;
      conflict = c1.conflict || c2.conflict || c3.conflict || c4.conflict;
      // tie-break between names that fold alike ("Bödastrasse" / "Bodastrasse"): the one written as asked
      if (!rawLower.includes(idx.strings.get(idx.stDisp[street]).toLowerCase())) penalty += 0.5;
      if (!number && streetRaw.length > 0) faults.push('number:missing');
      const score = Math.max(0, BASE[r.level] - penalty);
      cands.push({
        lat: r.lat, lon: r.lon, matchCode: CODE_NAMES[Math.max(1, matchCodeOf(r, nm, faults, conflict))], score: score / 100, kind: r.kind,
        address: () => this.describe(street, r.houseNumber, r.pc, r.locSets, city, numberFirst),
        faults, tie: street, conflict, weak: nm.weak, addrLevel: r.kind === 'address' || r.kind === 'interpolated',
      });
    }
  }

  /** Stage 5a: the postcode's centroid as an area fallback (when the postcode is known). */
  private addPostcodeCandidate(cands: Cand[], ev: QueryEvidence, streetRaw: string): void {
    const idx = this.index;
    const { city, country, pc } = ev;
    if (pc.id < 0) return;
    const faults: string[] = ['level:postcode'];
    let penalty = 0;
    const sets = [idx.pcLoc[pc.id]];
    const c1 = this.checkPlace(city, sets, 'city', faults);
    const c2 = this.checkPlace(country, sets, 'country', faults);
    penalty += c1.penalty + c2.penalty;
    if (streetRaw.trim().length > 0) { penalty += 6; faults.push('street:notfound'); }
    const conflict = c1.conflict || c2.conflict;
    cands.push({
      lat: idx.pcLat[pc.id], lon: idx.pcLon[pc.id], matchCode: conflict ? 'Poor' : 'Approx', score: Math.max(0, BASE.postcode - penalty) / 100,
      kind: 'postcode', address: { PostalCode: idx.strings.get(idx.pcDisp[pc.id]), ...this.placeParts(sets) }, faults, tie: pc.id, conflict, weak: false, addrLevel: false,
    });
  }

  /**
   * Stage 5b: locality centroids as area fallbacks — the places City may mean (else, with no City
   * and nothing found so far, State's or Country's): up to 3 distinct names among the 6 best.
   */
  private addLocalityCandidates(cands: Cand[], ev: QueryEvidence, streetRaw: string): void {
    const idx = this.index;
    const { city, state, country, pc } = ev;
    if (!(city.places.size > 0 || (!city.given && (state.places.size > 0 || country.places.size > 0) && cands.length === 0))) return;
    const places = city.places.size > 0 ? city : state.places.size > 0 ? state : country;
    // the best place: lowest penalty, then most local rank, then id
    const list = [...places.places].sort((a, b) => a[1] - b[1] || idx.plRank[b[0]] - idx.plRank[a[0]] || a[0] - b[0]);
    const used = new Set<string>();
    for (const [p, pen] of list.slice(0, 6)) {
      // one candidate per place name (a town's boundary and its place node are the same place)
      const nm = idx.strings.get(idx.plName[p]);
      if (used.has(nm) || used.size >= 3) continue;
      used.add(nm);
      const faults = ['level:locality'];
      let penalty = pen;
      if (streetRaw.trim().length > 0) { penalty += 6; faults.push('street:notfound'); }
      let conflict = false;
      if (pc.id >= 0) {
        const d = haversine(idx.plLat[p], idx.plLon[p], idx.pcLat[pc.id], idx.pcLon[pc.id]);
        if (d > idx.pcRad[pc.id] + 5000) { conflict = true; penalty += 20; faults.push('postcode:conflict'); }
      }
      const rank = idx.plRank[p];
      const base = rank <= PlaceRank.State ? BASE.region : BASE.locality;
      cands.push({
        lat: idx.plLat[p], lon: idx.plLon[p], matchCode: conflict ? 'Poor' : 'Approx', score: Math.max(0, base - penalty) / 100, kind: 'locality',
        address: this.placeOnly(p), faults, tie: p, conflict, weak: false, addrLevel: false,
      });
    }
  }

  // ------------------------------------------------------------------ describing results

  /** City/State/Country of a set of localities: the most local city-like place, the state, the country. */
  private placeParts(sets: number[], prefer?: PlaceEvidence): MatchedAddress {
    const idx = this.index;
    let city = -1, cityRank = 0, st = -1, co = -1;
    for (const s of sets) {
      for (let k = idx.lsOff[s]; k < idx.lsOff[s + 1]; k++) {
        const p = idx.lsIds[k];
        const r = idx.plRank[p];
        if (prefer && prefer.places.has(p) && r >= PlaceRank.County) { city = p; cityRank = 99; }
        if (r === PlaceRank.City && cityRank < 4) { city = p; cityRank = 4; }
        else if (r === PlaceRank.Suburb && cityRank < 3) { city = p; cityRank = 3; }
        else if (r === PlaceRank.Hamlet && cityRank < 2) { city = p; cityRank = 2; }
        else if (r === PlaceRank.County && cityRank < 1) { city = p; cityRank = 1; }
        else if (r === PlaceRank.State && st < 0) st = p;
        else if (r === PlaceRank.Country && co < 0) co = p;
      }
    }
    const out: MatchedAddress = {};
    if (city >= 0) out.City = idx.strings.get(idx.plName[city]);
    if (st >= 0) out.State = idx.strings.get(idx.plName[st]);
    if (co >= 0) out.Country = idx.strings.get(idx.plName[co]);
    return out;
  }

  private placeOnly(p: number): MatchedAddress {
    const idx = this.index;
    const r = idx.plRank[p];
    const name = idx.strings.get(idx.plName[p]);
    return r === PlaceRank.Country ? { Country: name } : r === PlaceRank.State ? { State: name } : { City: name };
  }

  private describe(street: number, hn: string, pc: number, sets: number[], city: PlaceEvidence, numberFirst: boolean): MatchedAddress {
    const idx = this.index;
    const name = idx.strings.get(idx.stDisp[street]);
    const out: MatchedAddress = { Street: hn ? (numberFirst ? `${hn} ${name}` : `${name} ${hn}`) : name, ...this.placeParts(sets, city) };
    if (pc < 0 && idx.stPcOff[street + 1] > idx.stPcOff[street]) pc = idx.stPcIds[idx.stPcOff[street]];
    if (pc >= 0) out.PostalCode = idx.strings.get(idx.pcDisp[pc]);
    return out;
  }

  // ------------------------------------------------------------------ reverse

  /**
   * Reverse geocoding, finest first: an interpolation line nearer than any address point
   * ({@link reverseOnRange}), else the nearest address point within `addressRadius`
   * ({@link reverseAtAddress}), else the nearest street segment within `maxDistance`, way classes
   * counting farther ({@link reverseOnStreet}), else the nearest settlement within 20 km.
   */
  reverse(lat: number, lon: number, opts: ReverseOptions = {}): ReverseResult | null {
    if (!isValidLatLon(lat, lon)) return null;
    const idx = this.index;
    const maxDist = opts.maxDistance ?? 1000;
    const addrRadius = Math.min(opts.addressRadius ?? 75, maxDist);
    const { kx, ky } = metresPerDegree(lat);
    const a = idx.addrIndex.nearest(lat, lon, addrRadius, (k) => {
      const dx = (idx.adLon[k] - lon) * kx, dy = (idx.adLat[k] - lat) * ky;
      return Math.sqrt(dx * dx + dy * dy);
    });
    // An interpolation line (OSM addr:interpolation, TIGER range) nearer than any address point
    // gives a house number by its position along the line (Nominatim's rule).
    const rangeRadius = Math.min(50, a.item >= 0 ? a.dist : addrRadius);
    const rl = idx.rangeCount > 0 ? idx.rangeIndex.nearest(lat, lon, rangeRadius, (i) => {
      return projectOnLine({ lat: idx.rgLat, lon: idx.rgLon, start: i, end: i + 2 }, lat, lon).dist;
    }) : { item: -1, dist: Infinity };
    if (rl.item >= 0 && (a.item < 0 || rl.dist < a.dist)) return this.reverseOnRange(idx.rgPtRange[rl.item], rl.dist, lat, lon);
    if (a.item >= 0) return this.reverseAtAddress(a.item, a.dist);
    return this.reverseOnStreet(lat, lon, maxDist) ?? this.nearestSettlement(lat, lon, 20000);
  }

  /** The street holding item `k` of a per-street offset table (`stAddrOff`, `stRangeOff`): binary search. */
  private streetOfItem(off: Uint32Array, k: number): number {
    let lo = 0, hi = this.index.streetCount - 1;
    while (lo < hi) { const mid = (lo + hi + 1) >>> 1; if (off[mid] <= k) lo = mid; else hi = mid - 1; }
    return lo;
  }

  /** A house number on range `k` at the query's position along it (the range's parity), with the range's street. */
  private reverseOnRange(k: number, dist: number, lat: number, lon: number): ReverseResult {
    const idx = this.index;
    const line: Line = { lat: idx.rgLat, lon: idx.rgLon, start: idx.rgPtOff[k], end: idx.rgPtOff[k + 1] };
    const p = projectOnLine(line, lat, lon);
    let len = 0;
    for (let i = line.start; i + 1 < line.end; i++) len += haversine(idx.rgLat[i], idx.rgLon[i], idx.rgLat[i + 1], idx.rgLon[i + 1]);
    const from = idx.rgFrom[k], to = idx.rgTo[k], step = idx.rgStep[k];
    const f = len > 0 ? Math.min(1, Math.max(0, p.measure / len)) : 0.5;
    // the number at fraction f, on the range's parity
    const num = to >= from
      ? Math.min(to, from + Math.round((f * (to - from)) / step) * step)
      : Math.max(to, from - Math.round((f * (from - to)) / step) * step);
    const st = this.streetOfItem(idx.stRangeOff, k);
    const sets = idx.rgLoc[k] !== 0 ? [idx.rgLoc[k], idx.stLoc[st]] : [idx.stLoc[st]];
    const address: MatchedAddress = { Street: `${num} ${idx.strings.get(idx.stDisp[st])}`, ...this.placeParts(sets) };
    const pcId = idx.rgPc[k] >= 0 ? idx.rgPc[k] : idx.stPcOff[st + 1] > idx.stPcOff[st] ? idx.stPcIds[idx.stPcOff[st]] : -1;
    if (pcId >= 0) address.PostalCode = idx.strings.get(idx.pcDisp[pcId]);
    return { lat: p.lat, lon: p.lon, distance: dist, kind: 'interpolated', address };
  }

  /** Address point `k` with its house number, street, places and postcode. */
  private reverseAtAddress(k: number, dist: number): ReverseResult {
    const idx = this.index;
    const st = this.streetOfItem(idx.stAddrOff, k);
    const hn = idx.strings.get(idx.adHn[k]);
    const name = idx.strings.get(idx.stDisp[st]);
    const address: MatchedAddress = { Street: `${hn} ${name}`, ...this.placeParts([idx.adLoc[k]]) };
    if (idx.adPc[k] >= 0) address.PostalCode = idx.strings.get(idx.pcDisp[idx.adPc[k]]);
    return { lat: idx.adLat[k], lon: idx.adLon[k], distance: dist, kind: 'address', address };
  }

  /**
   * The nearest street segment within `maxDist`, a tunnel, motorway, link road or path counting
   * farther than it is (REVERSE_PENALTY_M): a stop above a road tunnel gets the street or square
   * it stands on. Null when none.
   */
  private reverseOnStreet(lat: number, lon: number, maxDist: number): ReverseResult | null {
    const idx = this.index;
    const cls = idx.ptClass;
    const s = idx.nearestStreet(lat, lon, maxDist + MAX_PENALTY_M, (i) => {
      const line: Line = { lat: idx.ptLat, lon: idx.ptLon, start: i, end: idx.ptNext[i] ? i + 2 : i + 1 };
      const d = projectOnLine(line, lat, lon).dist;
      return d > maxDist ? Infinity : d + (cls[i] === 0 ? 0 : classPenalty(cls[i]));
    });
    if (s.item < 0) return null;
    const i = s.item;
    const line: Line = { lat: idx.ptLat, lon: idx.ptLon, start: i, end: idx.ptNext[i] ? i + 2 : i + 1 };
    const p = projectOnLine(line, lat, lon);
    const st = idx.ptStreet[i];
    const address: MatchedAddress = { Street: idx.strings.get(idx.stDisp[st]), ...this.placeParts([idx.stLoc[st]]) };
    if (idx.stPcOff[st + 1] > idx.stPcOff[st] && idx.stPcIds[idx.stPcOff[st]] >= 0) address.PostalCode = idx.strings.get(idx.pcDisp[idx.stPcIds[idx.stPcOff[st]]]);
    return { lat: p.lat, lon: p.lon, distance: p.dist, kind: 'street', address };
  }

  /** The nearest place of city rank or finer within `maxDist` metres (a linear scan: places are few), or null. */
  private nearestSettlement(lat: number, lon: number, maxDist: number): ReverseResult | null {
    const idx = this.index;
    let best = -1, bd = maxDist;
    for (let p = 0; p < idx.placeCount; p++) {
      const r = idx.plRank[p];
      if (r < PlaceRank.City) continue;
      const d = haversine(lat, lon, idx.plLat[p], idx.plLon[p]);
      if (d < bd) { bd = d; best = p; }
    }
    if (best >= 0) return { lat: idx.plLat[best], lon: idx.plLon[best], distance: bd, kind: 'locality', address: this.placeOnly(best) };
    return null;
  }
}

// ----------------------------------------------------------------------------- forward search stages (pure)

/**
 * A street named exactly as asked outranks spelling corrections: "Avenue Princesse Alice 2" must
 * not become "Avenue Princesse Grace 2" (3 edits) because Alice has no number 2. Takes the name
 * matches best first; when the best is an exact match, returns them with every correction 30
 * points down (`name:other`), re-sorted; else the same array.
 */
/**
 * A street-level answer that agrees with the query on nothing precise: the house number was given
 * but not found, the name only matches fuzzily (typo, phonetic, articles, partial) and the street
 * type differs. Measured on real addresses of other extracts asked of each extract
 * (bench/geocode/outside.ts): such answers are the false accepts of queries from outside the
 * dataset, and none of 22,579 correct answers to noisy in-extract queries has this shape.
 */
function tooWeak(c: Cand): boolean {
  if (c.kind !== 'street') return false;
  let number = false, name = false, type = false;
  for (const f of c.faults) {
    if (f === 'number:notfound') number = true;
    else if (/^name:(typo\d|phonetic|articles|partial)/.test(f)) name = true;
    else if (f === 'type:mismatch' || f === 'type:missing' || f === 'type:extra') type = true;
  }
  return number && name && type;
}

function preferNamesAsTyped(names: NameMatch[]): NameMatch[] {
  if (!(names.length > 1 && names[0].edits === 0 && !names[0].phoneticOnly && !names[0].partial)) return names;
  const out = names.map((m) => (m.edits > 0 || m.phoneticOnly || m.partial ? { ...m, penalty: m.penalty + 30, faults: [...m.faults, 'name:other'] } : m));
  out.sort((a, b) => a.penalty - b.penalty || a.name - b.name);
  return out;
}

/**
 * MatchCode value (1 Poor … 4 Exact; 0 only if nothing caps it from below) of a street candidate
 * from its level and faults: Exact needs an address point with no fault that changes meaning;
 * interpolations are Good when tight with at most one name edit; weak or partial names drop a
 * level, a type/directional mismatch caps at Good, a contradiction at Poor.
 */
function matchCodeOf(r: Resolved, nm: NameMatch, faults: string[], conflict: boolean): number {
  let code: number;
  if (r.kind === 'address') {
    const clean = nm.edits === 0 && !nm.phoneticOnly && !nm.partial && !faults.some((f) => f === 'type:mismatch' || f === 'dir:mismatch' || f === 'dir:extra' || f === 'type:missing' || f === 'dir:missing' || f === 'number:suffix' || f.endsWith(':unknown') || f === 'name:articles' || f === 'type:extra');
    code = clean ? 4 : 3;
  } else if (r.kind === 'interpolated') {
    code = r.tight && nm.edits <= 1 && !nm.partial ? 3 : 2;
  } else code = 2;
  if (nm.weak || nm.partial) code = Math.min(code, nm.partial ? 2 : code - 1);
  if (faults.includes('dir:mismatch') || faults.includes('type:mismatch')) code = Math.min(code, 3);
  if (conflict) code = Math.min(code, 1);
  return code;
}

/**
 * Stage 6: orders candidates best first (score, kind, tie id, latitude) in place, and marks the
 * best as ambiguous (Poor) when another address-level candidate within 0.02 of its score stands
 * more than 250 m away with nothing to tell them apart.
 */
function rankCandidates(cands: Cand[]): void {
  cands.sort((a, b) => b.score - a.score || KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.tie - b.tie || a.lat - b.lat);
  if (cands.length >= 2 && cands[0].addrLevel) {
    const b = cands[0];
    for (let i = 1; i < cands.length; i++) {
      const o = cands[i];
      if (!o.addrLevel || b.score - o.score > 0.02) break;
      if (haversine(b.lat, b.lon, o.lat, o.lon) > 250) {
        b.faults.push('ambiguous');
        b.matchCode = CODE_NAMES[Math.min(MATCH_CODE_VALUE[b.matchCode], 1)];
        break;
      }
    }
  }
}

/** Stage 7: the first `limit` ranked candidates that are not the same point and kind as a better one, with their addresses described and scores rounded. */
function distinctCandidates(cands: Cand[], limit: number): GeocodeCandidate[] {
  const out: GeocodeCandidate[] = [];
  for (const c of cands) {
    if (out.some((o) => o.kind === c.kind && Math.abs(o.lat - c.lat) < 1e-7 && Math.abs(o.lon - c.lon) < 1e-7)) continue;
    const address = typeof c.address === 'function' ? c.address() : c.address;
    out.push({ lat: c.lat, lon: c.lon, matchCode: c.matchCode, score: Math.round(c.score * 1e4) / 1e4, kind: c.kind, address, faults: c.faults });
    if (out.length >= limit) break;
  }
  return out;
}

/** Missing-word count when all of `a`'s significant words appear in order in `b` (or vice versa); 0 if not contained. */
function containedMissing(a: string[], b: string[]): number {
  const sig = (w: string) => w.length >= 4 || /\d/.test(w);
  const check = (x: string[], y: string[]): number => {
    if (x.length === 0 || !x.some(sig)) return 0;
    let j = 0;
    for (const w of x) {
      while (j < y.length && y[j] !== w) j++;
      if (j === y.length) return 0;
      j++;
    }
    const missing = y.length - x.length;
    return missing > 0 ? missing : 0;
  };
  return check(a, b) || check(b, a);
}

export function matchCodeValue(c: MatchCodeName): number {
  return MATCH_CODE_VALUE[c];
}
