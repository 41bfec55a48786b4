/**
 * The street-line parser: a hand-written tokenizer plus dictionary classifier. Input is only the
 * Street field (City/State/PostalCode come separately and are never re-assigned by the parser);
 * it yields the house number (first or last: "12a Main St", "Hauptstrasse 12a", "12-14",
 * "123 1/2", "39A/B", "12 bis"), the street name, the unit designators it removed ("Apt 4B",
 * "#5", "Ste 200", "Flat 2", "2nd floor") and extra comma sections / trailing words (e.g. a city
 * or postcode typed into Street), returned as hints.
 */
import { fold } from './text.js';
import { UNIT_DESIGNATORS, UNIT_STANDALONE, UNIT_STRONG, TYPE_WORDS, DIRECTIONAL } from './dict.js';

export interface HouseNumber {
  /** Normalised text, e.g. "12a", "12-14", "39a/b". */
  text: string;
  /** Leading numeric value. */
  num: number;
  /** Letters/fraction after the number, lower case without separators ("a", "bis", "1/2" → "1/2"). */
  suffix: string;
  /** End of a range "12-14" (else equal to num). */
  to: number;
}

export interface ParsedStreet {
  number: HouseNumber | null;
  /** The street name as written (folded), without number and units; '' when absent. */
  name: string;
  /** Unit designators that were removed ("apt 4b", "#5"). */
  units: string[];
  /** Other comma sections and words after a trailing house number. */
  hints: string[];
  /** True when the line is a post-office box (no street position). */
  poBox: boolean;
  /**
   * Other readings, tried when the first finds no street: a number inside the name taken as the
   * house number ("Landstrasse 12 Triesen" vs "Rue du 4 Septembre"); commas read as spaces
   * ("Avenue , Princesse , Grace 26").
   */
  alts?: ParsedStreet[];
}

/** Index-side cleaning of a tagged street name: parenthesised remarks and text after a comma go. */
export function cleanStreetName(s: string): string {
  let t = s.replace(/\([^)]*\)/g, ' ').replace(/\[[^\]]*\]/g, ' ');
  const c = t.indexOf(',');
  if (c > 0) t = t.slice(0, c);
  t = t.replace(/\s+/g, ' ').trim();
  return t.length > 0 ? t : s.trim();
}

const NUM_RE = /^(\d{1,8})(?:\s*([a-z]{1,3}))?$/;
const RANGE_RE = /^(\d{1,6})([a-z]?)\s*([-/])\s*(\d{1,6}|[a-z])([a-z]?)$/;
const SUFFIX_WORDS = new Set(['bis', 'ter', 'quater', 'quinquies']);
/** Words after which a number is part of a road's name ("Route 66", "Highway 7", "A 13"). */
const ROAD_NUMBER_WORDS = new Set([
  'route', 'rte', 'rt', 'highway', 'hwy', 'hiway', 'us', 'sr', 'cr', 'interstate', 'ih', 'autoroute', 'autobahn', 'bab', 'ss', 'sp', 'sr',
  'strada', 'statale', 'provinciale', 'carretera', 'ctra', 'rn', 'rd', 'road', 'fm', 'rr', 'county', 'state', 'township', 'km', 'exit',
  'estrada', 'rodovia', 'landesstrasse', 'bundesstrasse', 'kantonsstrasse', 'nationale', 'departementale',
]);
const NUMBER_MARKERS = new Set(['no', 'nr', 'nro', 'num', 'number', 'n', 'nbr', 'numero']);
const DIR_LETTERS = new Set(['n', 's', 'e', 'w']);

/** Parses a house number text ("12", "12a", "12 A", "12-14", "39A/B", "12/1", "12 bis"); null if it is not one. */
export function parseHouseNumber(raw: string): HouseNumber | null {
  const s = fold(raw).replace(/^(no|nr|n|#)\.?\s*/, '').replace(/\s+/g, ' ').trim();
  let m = NUM_RE.exec(s);
  if (m) {
    const num = Number(m[1]);
    const suffix = m[2] ?? '';
    return { text: `${num}${suffix}`, num, suffix, to: num };
  }
  m = /^(\d{1,6})\s+(bis|ter|quater)$/.exec(s);
  if (m) return { text: `${Number(m[1])}${m[2]}`, num: Number(m[1]), suffix: m[2], to: Number(m[1]) };
  m = RANGE_RE.exec(s);
  if (m) {
    const num = Number(m[1]);
    if (/^\d+$/.test(m[4])) {
      const b = Number(m[4]);
      if (m[3] === '-' && b > num && b - num <= 20 && !m[2]) return { text: `${num}-${b}${m[5]}`, num, suffix: '', to: b };
      // "12/1" (sub-number) or "12-1"
      return { text: `${num}${m[2]}${m[3]}${b}${m[5]}`, num, suffix: `${m[2]}${m[3]}${b}${m[5]}`, to: num };
    }
    // "39a/b", "12a-c"
    return { text: `${num}${m[2]}${m[3]}${m[4]}`, num, suffix: `${m[2]}${m[3]}${m[4]}`, to: num };
  }
  return null;
}

/** Splits a value that holds several house numbers ("12;14", "12, 14") into single ones. */
export function splitHouseNumbers(raw: string): (HouseNumber & { display: string })[] {
  const out: (HouseNumber & { display: string })[] = [];
  for (const part of raw.split(/[;,&+]|\s(?:and|et|und)\s/)) {
    const h = parseHouseNumber(part);
    if (h) out.push({ ...h, display: part.trim().replace(/\s+/g, ' ') });
  }
  return out;
}

function isNumToken(t: string): boolean {
  return /^\d{1,8}[a-z]{0,3}$/.test(t) || /^\d{1,6}[a-z]?[-/](\d{1,6}|[a-z])[a-z]?$/.test(t);
}

function isIdentifier(t: string): boolean {
  return /\d/.test(t) || /^[a-z]$/.test(t) || /^[ivx]{1,4}$/.test(t);
}

/** Clean a raw token: strip surrounding punctuation but keep inner '-', '/', '#'. */
function cleanToken(t: string): string {
  if (t === '&' || t === '+') return t;
  return t.replace(/^[^\p{L}\p{N}#]+/u, '').replace(/[^\p{L}\p{N}]+$/u, '');
}

/** Removes unit designators from a token list; returns what was removed. */
function stripUnits(toks: string[], first: boolean, alone: boolean, units: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    if (t.startsWith('#')) {
      const rest = t.slice(1);
      if (rest.length > 0) { units.push(t); continue; }
      if (i + 1 < toks.length && isIdentifier(toks[i + 1])) { units.push(`# ${toks[i + 1]}`); i++; continue; }
      continue;
    }
    const bare = t.replace(/\.$/, '');
    // "2nd floor", "3e etage", "2. og"
    if (/^\d+(st|nd|rd|th|e|er|eme|o|a)?$/.test(bare) && i + 1 < toks.length && /^(floor|fl|flr|etage|og|stock|piso|level|lvl)$/.test(toks[i + 1])) {
      if (out.length > 0 || i + 2 < toks.length || !first || alone) { units.push(`${t} ${toks[i + 1]}`); i++; continue; }
    }
    // A designator may open the line only when its section holds nothing else ("Flat 2, 12 Baker St").
    const notFirstWord = !(first && out.length === 0) || (alone && toks.length === 2);
    if (UNIT_DESIGNATORS.has(bare) && notFirstWord && i + 1 < toks.length) {
      let k = i + 1;
      if (toks[k] === '#' || toks[k] === 'no' || toks[k] === 'nr') k++;
      // the only number of the line is the house number, not a unit ("Top 7" alone stays)
      const otherNumber = toks.some((t2, j) => (j < i || j > k) && isNumToken(t2));
      if (k < toks.length && isIdentifier(toks[k].replace(/^#/, '')) && (otherNumber || !first || UNIT_STRONG.has(bare) || !/^\d/.test(toks[k]))) {
        units.push(toks.slice(i, k + 1).join(' '));
        i = k;
        continue;
      }
    }
    out.push(t);
  }
  return out;
}

/** Parses the Street field. */
export function parseStreetLine(raw: string): ParsedStreet {
  const p = parseOnce(raw);
  if (/[,;]/.test(raw) && !p.poBox) {
    const q = parseOnce(raw.replace(/[,;]/g, ' '));
    if (q.name !== p.name || q.number?.text !== p.number?.text) (p.alts ??= []).push(q);
  }
  return p;
}

function parseOnce(raw: string): ParsedStreet {
  let s = fold(raw.length > 400 ? raw.slice(0, 400) : raw);
  s = s.replace(/\([^)]*\)/g, ' ').replace(/\[[^\]]*\]/g, ' ').replace(/\s+/g, ' ').trim();
  const units: string[] = [];
  const hints: string[] = [];
  const result: ParsedStreet = { number: null, name: '', units, hints, poBox: false };
  if (s.length === 0) return result;
  if (/^(p\.?\s*o\.?\s*box|post\s*office\s*box|pobox|postbox|box|pmb|gpo\s*box|apartado|postfach|case postale|bp|cp|casella postale)\b\.?\s*\d/.test(s)) {
    result.poBox = true;
    units.push(s);
    return result;
  }
  // "12, Main St" and "Main St, 12" → keep the number with the name.
  const sections = s.split(/[,;]/).map((x) => x.trim()).filter((x) => x.length > 0);
  const tokSections = sections.map((sec, idx) => stripUnits(sec.split(' ').map(cleanToken).filter((t) => t.length > 0), idx === 0, sections.length > 1, units));
  // Later sections that are only a unit designator ("rear") are dropped.
  for (let k = tokSections.length - 1; k >= 1; k--) {
    const ts = tokSections[k];
    if (ts.length === 0 || (ts.length === 1 && UNIT_STANDALONE.has(ts[0]))) {
      if (ts.length === 1) units.push(ts[0]);
      tokSections.splice(k, 1);
    }
  }
  if (tokSections.length === 0) return result;
  let primary = 0;
  let leadNumber: string[] | null = null;
  const hasLetters = (ts: string[]) => ts.some((t) => /\p{L}/u.test(t) && !isNumToken(t));
  if (!hasLetters(tokSections[0]) && tokSections.length > 1) {
    // "12, Main St": the first section is the number only.
    leadNumber = tokSections[0];
    primary = 1;
  }
  while (primary < tokSections.length - 1 && !hasLetters(tokSections[primary])) primary++;
  let toks = tokSections[primary].slice();
  // "Rua do Almada, 123" / "Via Roma, 12b": a short number-only section right after a name that
  // has no number is its house number (longer ones are more likely postcodes, kept as hints).
  let trailNumber = -1;
  const next = tokSections[primary + 1];
  if (!leadNumber && next && !hasLetters(next) && !toks.some(isNumToken) && /^\d{1,4}(?: ?[a-z])?$/.test(next.join(' '))) trailNumber = primary + 1;
  for (let k = 0; k < tokSections.length; k++) if (k !== primary && k !== trailNumber && !(leadNumber && k === 0)) hints.push(tokSections[k].join(' '));
  if (leadNumber) toks = [...leadNumber, ...toks];
  if (trailNumber >= 0) toks = [...toks, ...tokSections[trailNumber]];
  // Number markers: "No. 12 Main St" / "Main St Nr 12"
  toks = toks.filter((t, k) => !(NUMBER_MARKERS.has(t.replace(/\.$/, '')) && k + 1 < toks.length && isNumToken(toks[k + 1]) && (k === 0 || k === toks.length - 2)));

  let numText: string | null = null;
  let altNumber: { k: number; end: number; text: string } | null = null;
  if (toks.length >= 1 && isNumToken(toks[0])) {
    numText = toks[0];
    let k = 1;
    // "1 & 3 Rue X", "1+3", "1 et 3": a range
    if (toks.length > 3 && JOINERS.has(toks[1]) && /^\d+$/.test(toks[2]) && /^\d+$/.test(toks[0])) { numText = `${toks[0]}-${toks[2]}`; k = 3; }
    // "12 a Main St" (suffix) but "1705 P St NW" (the street is called P): a letter is a suffix only
    // when a name word remains after it
    else if (toks.length > 2 && /^[a-z]$/.test(toks[1]) && !DIR_LETTERS.has(toks[1]) && toks.slice(2).some((t) => !TYPE_WORDS.has(t) && !DIRECTIONAL.has(t))) { numText += toks[1]; k = 2; }
    else if (toks.length > 2 && SUFFIX_WORDS.has(toks[1])) { numText += ' ' + toks[1]; k = 2; }
    else if (toks.length > 2 && /^1\/[234]$/.test(toks[1])) { numText += ' ' + toks[1]; k = 2; }
    toks = toks.slice(k);
  } else {
    // Number after the name: the line's last token(s), or a number followed by a postcode-like token
    // ("Landstrasse 12 9495 Triesen"). A number followed by words stays in the name ("Rue du 4
    // Septembre") but is offered as the alternative reading.
    for (let k = 1; k < toks.length; k++) {
      if (!isNumToken(toks[k])) continue;
      if (ROAD_NUMBER_WORDS.has(toks[k - 1]) || (k === 1 && /^[a-z]{1,2}$/.test(toks[k - 1]))) continue;
      let end = k + 1;
      let text = toks[k];
      if (end + 1 < toks.length && JOINERS.has(toks[end]) && /^\d+$/.test(toks[end + 1]) && /^\d+$/.test(text)) { text = `${text}-${toks[end + 1]}`; end += 2; }
      else if (end < toks.length && /^[a-z]$/.test(toks[end])) { text += toks[end]; end++; }
      else if (end < toks.length && SUFFIX_WORDS.has(toks[end])) { text += ' ' + toks[end]; end++; }
      if (end === toks.length || /^\d{3,6}$/.test(toks[end]) || /^[a-z]{1,2}-?\d{4,5}$/.test(toks[end])) {
        numText = text;
        const tail = toks.slice(end);
        if (tail.length > 0) hints.push(tail.join(' '));
        toks = toks.slice(0, k);
        break;
      }
      if (!altNumber) altNumber = { k, end, text };
    }
  }
  const toNumber = (text: string): HouseNumber | null => {
    const h = parseHouseNumber(text);
    if (h) return h;
    if (/ 1\/[234]$/.test(text)) {
      const base = parseHouseNumber(text.split(' ')[0]);
      if (base) return { ...base, text: `${base.text} ${text.split(' ')[1]}`, suffix: text.split(' ')[1] };
    }
    return null;
  };
  if (numText !== null) result.number = toNumber(numText);
  result.name = toks.join(' ');
  if (numText === null && altNumber) {
    const tail = toks.slice(altNumber.end);
    (result.alts ??= []).push({ number: toNumber(altNumber.text), name: toks.slice(0, altNumber.k).join(' '), units, hints: tail.length > 0 ? [...hints, tail.join(' ')] : [...hints], poBox: false });
  }
  return result;
}

const JOINERS = new Set(['&', '+', 'and', 'et', 'und', 'y', 'e']);
