/**
 * Name normalisation: a street name is folded, split into words, glued German type suffixes are
 * split off ("Hauptstr." → haupt + str), ordinals and number words become digits, and the words
 * are classified into directionals, one street type and the "core" name. The same analysis runs
 * on index names and on queries, so both sides meet on the same keys:
 *
 * - `coreKey`: the core words concatenated without spaces (so "Cedar Hill" = "Cedarhill");
 * - `nsKey`: the core without articles/prepositions ("Boulevard Moulins" = "Boulevard des Moulins");
 * - `fullKey`: the core with its canonical type glued on the side it stands, for typos that break
 *   the type split ("Gapetschstrase" vs "Gapetsch|strasse").
 */
import { foldWords } from './text.js';
import {
  DIRECTIONAL, GLUED_SUFFIXES, NUMBER_WORD, STOPWORDS, TYPE_PHRASES, TYPE_WORDS, WORD_SYNONYM, STATE_ALIAS, COUNTRY_ALIAS,
  type TypeInfo,
} from './dict.js';

export interface NameKey {
  /** Words after folding, splitting and digit normalisation (before classification). */
  words: string[];
  /** The street-type word as written (folded), or ''. */
  type: string;
  /** Its canonical form, or ''. */
  typeCanon: string;
  /** 0 none, 1 the type stands before the name, 2 after it. */
  typeAt: 0 | 1 | 2;
  predir: string;
  postdir: string;
  /** Core words (synonyms applied). */
  core: string[];
  coreKey: string;
  nsKey: string;
  fullKey: string;
  /** All words as written (after folding/splitting), concatenated: no synonyms, no classification. */
  rawKey: string;
  /** Digit runs of the core, joined by ','. Names that differ in digits are different streets. */
  digits: string;
}

const ORDINAL_RE = /^(\d+)(st|nd|rd|th|er|re|ere|eme|e|o|a|ieme|de|te|ste)$/;

function splitGlued(w: string, out: string[], glued?: number[]): void {
  if (w.length >= 5 && !/\d/.test(w)) {
    for (const suf of GLUED_SUFFIXES) {
      // long suffixes may follow a two-letter stem ("Austrasse"), short ones need three ("Alvierweg")
      if (w.length - suf.length >= (suf.length >= 5 ? 2 : 3) && w.endsWith(suf)) {
        out.push(w.slice(0, w.length - suf.length), suf);
        glued?.push(out.length - 1);
        return;
      }
    }
  }
  out.push(w);
}

/** Folds a street name into words, splitting glued type suffixes and normalising ordinals/number words. */
export function nameWords(s: string, glued?: number[]): string[] {
  const f = foldWords(s);
  if (f.length === 0) return [];
  const out: string[] = [];
  for (const w of f.split(' ')) {
    const m = ORDINAL_RE.exec(w);
    if (m) { out.push(String(Number(m[1]))); continue; }
    if (/^\d+$/.test(w)) { out.push(String(Number(w))); continue; }
    const n = NUMBER_WORD.get(w);
    if (n !== undefined) { out.push(n); continue; }
    splitGlued(w, out, glued);
  }
  return out;
}

function phraseAt<T>(ws: string[], i: number, j: number, map: Map<string, T>, single: Map<string, T>): { len: number; v: T } | null {
  // Longest phrase (3, 2 words) starting at i within [i, j), then a single word.
  for (let n = 3; n >= 2; n--) {
    if (i + n > j) continue;
    const v = map.get(ws.slice(i, i + n).join(' '));
    if (v !== undefined) return { len: n, v };
  }
  const v = single.get(ws[i]);
  return v !== undefined ? { len: 1, v } : null;
}

function phraseEndingAt<T>(ws: string[], i: number, j: number, map: Map<string, T>, single: Map<string, T>): { len: number; v: T } | null {
  for (let n = 3; n >= 2; n--) {
    if (j - n < i) continue;
    const v = map.get(ws.slice(j - n, j).join(' '));
    if (v !== undefined) return { len: n, v };
  }
  const v = single.get(ws[j - 1]);
  return v !== undefined ? { len: 1, v } : null;
}

const NO_PHRASES = new Map<string, string>();
const DIR_PHRASES = new Map<string, string>([...DIRECTIONAL].filter(([k]) => k.includes(' ')));
const DIR_WORDS = new Map<string, string>([...DIRECTIONAL].filter(([k]) => !k.includes(' ')));

/** Analyses a street name (without house number) into its keys. */
export function analyzeName(s: string): NameKey {
  const glued: number[] = [];
  const ws = nameWords(s, glued);
  return analyzeWords(ws, glued);
}

/** Classifies words; `glued` lists the indices of type suffixes split off a word ("au|strasse"). */
export function analyzeWords(ws: string[], glued: number[] = []): NameKey {
  let i = 0;
  let j = ws.length;
  let predir = '';
  let postdir = '';
  let type = '';
  let typeInfo: TypeInfo | null = null;
  let typeAt: 0 | 1 | 2 = 0;
  // A directional needs enough other words: single letters need two ("E Main St"), words one.
  const dirOk = (word: string, len: number): boolean => ws.length - len >= (word.length === 1 ? 2 : 1);

  if (j - i >= 2) {
    const d = phraseEndingAt(ws, i, j, DIR_PHRASES, DIR_WORDS);
    if (d && dirOk(ws[j - 1], d.len)) { postdir = d.v; j -= d.len; }
  }
  // A name that opens with a type standing before names ("Rue …", "Via …", or "Avenue du …",
  // "Avenue of …") keeps that type even when its last word is also a type word ("Avenue du Port").
  const lead = j - i >= 2 ? phraseAt(ws, i, j, TYPE_PHRASES, TYPE_WORDS) : null;
  const prefixFirst = lead !== null && (lead.v.pos & 1) !== 0 && j - i > lead.len
    && (lead.v.pos === 1 || STOPWORDS.has(ws[i + lead.len])) && !DIRECTIONAL.has(ws[i]);
  if (j - i >= 2 && !prefixFirst) {
    const t = phraseEndingAt(ws, i, j, TYPE_PHRASES, TYPE_WORDS);
    if (t && (t.v.pos & 2) && !(t.len === 1 && ws[j - 1].length === 1)) {
      type = ws.slice(j - t.len, j).join(' '); typeInfo = t.v; typeAt = 2; j -= t.len;
    }
  }
  if (j - i >= 2) {
    const d = phraseAt(ws, i, j, DIR_PHRASES, DIR_WORDS);
    if (d && dirOk(ws[i], d.len) && j - i - d.len >= 1) { predir = d.v; i += d.len; }
  }
  if (!typeInfo && j - i >= 2) {
    const t = phraseAt(ws, i, j, TYPE_PHRASES, TYPE_WORDS);
    if (t && (t.v.pos & 1)) { type = ws.slice(i, i + t.len).join(' '); typeInfo = t.v; typeAt = 1; i += t.len; }
  }
  // A type word that is all the name has besides articles is the name ("An der Halde", "Im Winkel").
  const typeGlued = typeAt === 2 && glued.includes(j);
  if (typeInfo && !typeGlued && ws.slice(i, j).every((w) => STOPWORDS.has(w) && w.length > 1)) {
    if (typeAt === 2) j += type.split(' ').length;
    else i -= type.split(' ').length;
    type = ''; typeInfo = null; typeAt = 0;
  }
  // A directional after a prefix type is part of the name ("Rue E"); one before a suffix type was handled.
  const core: string[] = [];
  for (let k = i; k < j; k++) {
    const syn = WORD_SYNONYM.get(ws[k]);
    if (syn !== undefined && !(k === j - 1 && ws[k] === 'st' && typeAt !== 2)) {
      for (const w of syn.split(' ')) core.push(w);
    } else core.push(ws[k]);
  }
  const typeCanon = typeInfo ? typeInfo.canon[0] : '';
  const coreKey = core.join('');
  let ns = '';
  for (const w of core) if (!STOPWORDS.has(w)) ns += w;
  const nsKey = ns.length > 0 ? ns : coreKey;
  const fullKey = typeAt === 1 ? typeCanon + coreKey : typeAt === 2 ? coreKey + typeCanon : coreKey;
  const digits = core.filter((w) => /\d/.test(w)).map((w) => w.replace(/\D+/g, '')).join(',');
  return { words: ws, type, typeCanon, typeAt, predir, postdir, core, coreKey, nsKey, fullKey, rawKey: ws.join(''), digits };
}

/** A place (city, suburb, state, country) name as a comparison key: folded words, synonyms, no spaces. */
export function placeKey(s: string): string {
  const f = foldWords(s);
  if (f.length === 0) return '';
  let out = '';
  for (const w of f.split(' ')) out += WORD_SYNONYM.get(w)?.replace(/ /g, '') ?? w;
  return out;
}

/** Canonical key of a state/province: full name for known abbreviations, else the place key. */
export function stateKey(s: string): string {
  const f = foldWords(s);
  const full = STATE_ALIAS.get(f) ?? STATE_ALIAS.get(f.replace(/ /g, ''));
  return placeKey(full ?? f);
}

/** Canonical key of a country (English name for known codes and names), else the place key. */
export function countryKey(s: string): string {
  const f = foldWords(s);
  const full = COUNTRY_ALIAS.get(f) ?? COUNTRY_ALIAS.get(f.replace(/ /g, ''));
  return placeKey(full ?? f);
}

/** Postcode as a key: upper-case letters and digits only ("GU2 7UP" → "GU27UP", "FL-9490" → "FL9490"). */
export function postcodeKey(s: string): string {
  return foldWords(s).replace(/ /g, '').toUpperCase();
}

/**
 * Variants a typed postcode may stand for, best first: itself; the first five digits of a
 * ZIP+4; a 4-digit ZIP that lost its leading zero; the digits without a country prefix ("FL-9490").
 */
export function postcodeVariants(key: string): string[] {
  const out = [key];
  if (/^\d{9}$/.test(key)) out.push(key.slice(0, 5));
  if (/^\d{4}$/.test(key)) out.push('0' + key);
  const m = /^([A-Z]{1,3})(\d{4,6})$/.exec(key);
  if (m) out.push(m[2]);
  return out;
}

// ----------------------------------------------------------------------------- phonetic key

/**
 * A phonetic key for second-chance matching (our own, metaphone-like, for Latin-script names):
 * common spelling alternations are merged (ph/f, c/k/q, z/s, w/v, y/i, th/t, dt/t, sch/sh/ch,
 * double letters), then vowels after the first letter are dropped.
 */
export function phonetic(key: string): string {
  let s = key.replace(/[^a-z0-9]/g, '');
  if (s.length === 0) return '';
  s = s
    .replace(/sch/g, 's').replace(/sh/g, 's').replace(/ch/g, 's').replace(/ph/g, 'f').replace(/ck/g, 'k').replace(/qu/g, 'k')
    .replace(/q/g, 'k').replace(/x/g, 'ks').replace(/tz/g, 's').replace(/z/g, 's').replace(/w/g, 'v').replace(/y/g, 'i')
    .replace(/dt/g, 't').replace(/th/g, 't').replace(/gh/g, 'g').replace(/kh/g, 'k').replace(/gn/g, 'n')
    .replace(/c([eiy])/g, 's$1').replace(/c/g, 'k').replace(/j/g, 'i').replace(/d$/, 't')
    .replace(/ae|oe/g, 'e').replace(/ue/g, 'u');
  let out = s[0];
  for (let i = 1; i < s.length; i++) {
    const c = s[i];
    if (c === 'h' || 'aeiou'.includes(c)) continue;
    if (c === out[out.length - 1] && !(c >= '0' && c <= '9')) continue;
    out += c;
  }
  return out;
}
