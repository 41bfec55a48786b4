/**
 * Seeded noisy-query generator for the geocoder benchmark (research notes §5.2). It is written
 * from the research protocol's perturbation table with its own small word lists, deliberately
 * NOT from the geocoder's dictionaries or normaliser, so that it does not share the matcher's
 * blind spots. Every query records the perturbation classes applied.
 */
import type { Rng } from '../../src/core/rng.js';

export interface TruthAddress {
  street: string;
  hn: string;
  city: string;
  postcode: string;
  state: string;
  country: string;
  /** 'US'-style number-first or European number-last street line. */
  numberFirst: boolean;
}

export interface Query {
  Street?: string;
  City?: string;
  State?: string;
  PostalCode?: string;
  Country?: string;
}

export const NOISE_CLASSES = ['case', 'abbreviation', 'omission', 'typo', 'phonetic', 'accents', 'token', 'postcode', 'number', 'field', 'language'] as const;
export type NoiseClass = (typeof NOISE_CLASSES)[number];
const WEIGHTS: Record<NoiseClass, number> = { case: 25, abbreviation: 25, omission: 20, typo: 15, phonetic: 5, accents: 5, token: 5, postcode: 5, number: 5, field: 3, language: 15 };
const TOTAL_WEIGHT = Object.values(WEIGHTS).reduce((a, b) => a + b, 0);

/**
 * How addresses are written in Italian, Spanish, Catalan, Portuguese, French and German: the
 * short forms of street types (full name → short forms), and the articles and prepositions
 * people leave out ("Via della Spiga" → "Via Spiga", "Rua do Almada" → "Rua Almada").
 */
const LANGUAGE_TYPES: [string, string[]][] = [
  ['corso', ['c.so']], ['viale', ['v.le']], ['piazza', ['p.za', 'p.zza']], ['piazzale', ['p.le']], ['largo', ['l.go', 'lgo.']],
  ['vicolo', ['v.lo']], ['calle', ['c/', 'c.', 'cl.']], ['carrer', ['c/', 'c.']], ['avinguda', ['av.', 'avda.']], ['avenida', ['av.', 'avda.']],
  ['plaça', ['pl.', 'pça.']], ['plaza', ['pl.', 'pza.']], ['passeig', ['pg.', 'ptge.']], ['paseo', ['p.º', 'pº']], ['carretera', ['ctra.']],
  ['rua', ['r.']], ['praça', ['pç.', 'pça.', 'pr.']], ['avenida', ['av.']], ['travessa', ['tv.', 'trav.']], ['estrada', ['estr.']], ['largo', ['lg.']],
  ['boulevard', ['bd', 'bd.', 'bld']], ['avenue', ['av.', 'ave']], ['place', ['pl.']], ['chemin', ['ch.']], ['impasse', ['imp.']], ['route', ['rte']],
  ['strasse', ['str.']], ['straße', ['str.']], ['platz', ['pl.']], ['gasse', ['g.']],
];
const LANGUAGE_PARTICLES = new Set(['della', 'delle', 'dello', 'degli', 'dei', 'del', 'di', 'de', 'da', 'do', 'dos', 'das', 'des', 'du', 'la', 'las', 'los', 'les', 'el', 'els', "d'", 'von', 'vom', 'zu', 'zum', 'zur', 'der', 'den', 'dem']);

/** Street-type words and their common written variants (full ↔ short), several languages. */
const TYPE_VARIANTS: [string, string[]][] = [
  ['street', ['st', 'st.', 'str']], ['avenue', ['ave', 'av', 'av.']], ['boulevard', ['blvd', 'bd', 'bd.', 'boul']], ['road', ['rd', 'rd.']],
  ['drive', ['dr', 'dr.']], ['lane', ['ln']], ['place', ['pl', 'pl.']], ['court', ['ct']], ['circle', ['cir']], ['highway', ['hwy']],
  ['parkway', ['pkwy']], ['terrace', ['ter']], ['square', ['sq']], ['route', ['rte', 'rte.']], ['chemin', ['ch.', 'chem.']],
  ['impasse', ['imp.']], ['allée', ['all.', 'allee']], ['strasse', ['str.', 'straße', 'str']], ['straße', ['str.', 'strasse']],
  ['gasse', ['g.', 'gasse']], ['weg', ['wg.']], ['platz', ['pl.', 'plz.']], ['piazza', ['p.za', 'pza']], ['via', ['v.']],
  ['viale', ['v.le']], ['calle', ['c/', 'cl.']], ['avenida', ['av.', 'avda.']], ['rua', ['r.']], ['quai', ['q.']],
];
const PREFIX_TYPES = new Set(['avenue', 'boulevard', 'place', 'route', 'chemin', 'impasse', 'allée', 'piazza', 'via', 'viale', 'calle', 'avenida', 'rua', 'quai', 'square', 'rue']);
const DIR_VARIANTS: [string, string][] = [['north', 'n'], ['south', 's'], ['east', 'e'], ['west', 'w'], ['northwest', 'nw'], ['northeast', 'ne'], ['southwest', 'sw'], ['southeast', 'se']];
const KEYBOARD = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
const PHONETIC_SWAPS: [string, string][] = [['ph', 'f'], ['f', 'ph'], ['ee', 'ea'], ['ea', 'ee'], ['ck', 'k'], ['c', 'k'], ['k', 'c'], ['z', 's'], ['y', 'i'], ['ai', 'ei'], ['ei', 'ai'], ['th', 't'], ['dt', 't'], ['ou', 'u']];
const ACCENT_ADD: Record<string, string> = { e: 'é', a: 'à', u: 'ü', o: 'ö', i: 'ï', c: 'ç', n: 'ñ' };
const UNITS = ['Apt 4B', '#5', 'Ste 200', 'Unit 3', 'Flat 2', 'App. 12', 'Top 7'];

function cap(w: string): string {
  return w.length === 0 ? w : w[0].toUpperCase() + w.slice(1);
}

function stripAccents(s: string): string {
  return s.replace(/ß/g, 'ss').normalize('NFD').replace(/\p{M}/gu, '');
}

function adjacentKey(c: string, rng: Rng): string {
  for (const row of KEYBOARD) {
    const i = row.indexOf(c);
    if (i >= 0) {
      const opts = [row[i - 1], row[i + 1]].filter((x) => x !== undefined);
      return opts[rng.int(opts.length)];
    }
  }
  return 'e';
}

/** One edit on a random letter run of `s` (never on digits): delete, insert, substitute (adjacent key), transpose. */
export function typo(s: string, rng: Rng): string {
  const letters: number[] = [];
  for (let i = 0; i < s.length; i++) if (/\p{L}/u.test(s[i])) letters.push(i);
  if (letters.length < 4) return s;
  const i = letters[1 + rng.int(letters.length - 2)];
  const op = rng.int(4);
  const c = s[i].toLowerCase();
  if (op === 0) return s.slice(0, i) + s.slice(i + 1);
  if (op === 1) return s.slice(0, i) + adjacentKey(c, rng) + s.slice(i);
  if (op === 2) return s.slice(0, i) + adjacentKey(c, rng) + s.slice(i + 1);
  if (i + 1 < s.length && /\p{L}/u.test(s[i + 1]) && s[i + 1] !== s[i]) return s.slice(0, i) + s[i + 1] + s[i] + s.slice(i + 2);
  return s.slice(0, i) + s.slice(i + 1);
}

export interface Parts {
  street: string;
  hn: string;
  unit: string;
  numberFirst: boolean;
  city: string;
  postcode: string;
  state: string;
  country: string;
  extraStreetTail: string;
}

export function applyClass(cls: NoiseClass, p: Parts, t: TruthAddress, rng: Rng): boolean {
  switch (cls) {
    case 'case': {
      const m = rng.int(3);
      const f = (s: string) => (m === 0 ? s.toUpperCase() : m === 1 ? s.toLowerCase() : [...s].map((c) => (rng.chance(0.5) ? c.toUpperCase() : c.toLowerCase())).join(''));
      p.street = f(p.street);
      p.city = f(p.city);
      return true;
    }
    case 'abbreviation': {
      const words = p.street.split(' ');
      const opts: (() => void)[] = [];
      words.forEach((w, i) => {
        const lw = w.toLowerCase();
        // a type word stands last, or first for the types that precede the name ("Rue", "Via");
        // a short form elsewhere is something else ("Dr." Josef Hoop-Strasse is a title)
        const typePos = i === words.length - 1 || (i === 0 && PREFIX_TYPES.has(lw));
        for (const [full, shorts] of TYPE_VARIANTS) {
          if (lw === full && (typePos || i === 0)) opts.push(() => { words[i] = cap(shorts[rng.int(shorts.length)]); });
          else if (shorts.includes(lw) && (i === words.length - 1 || (i === 0 && PREFIX_TYPES.has(full)))) opts.push(() => { words[i] = cap(full); });
          else if (lw.endsWith(full) && lw.length > full.length + 2) opts.push(() => { words[i] = w.slice(0, w.length - full.length) + shorts[rng.int(shorts.length)]; });
        }
        for (const [full, short] of DIR_VARIANTS) {
          if (lw === full) opts.push(() => { words[i] = short.toUpperCase(); });
          else if (lw === short) opts.push(() => { words[i] = cap(full); });
        }
        if (lw === 'saint' || lw === 'sankt') opts.push(() => { words[i] = 'St.'; });
        if (/^\d+(st|nd|rd|th)$/.test(lw)) opts.push(() => { words[i] = lw.replace(/\D+$/, ''); });
      });
      if (opts.length === 0) return false;
      opts[rng.int(opts.length)]();
      p.street = words.join(' ');
      return true;
    }
    case 'omission': {
      const opts: (() => void)[] = [];
      if (p.postcode) opts.push(() => { p.postcode = ''; });
      if (p.city) opts.push(() => { p.city = ''; });
      if (p.state) opts.push(() => { p.state = ''; });
      const words = p.street.split(' ');
      if (words.length >= 2) {
        words.forEach((w, i) => {
          const lw = w.toLowerCase();
          if (TYPE_VARIANTS.some(([full, s]) => lw === full || s.includes(lw)) || DIR_VARIANTS.some(([f, s]) => lw === f || lw === s)) {
            opts.push(() => { p.street = words.filter((_, k) => k !== i).join(' '); });
          }
        });
      }
      if (opts.length === 0) return false;
      opts[rng.int(opts.length)]();
      return true;
    }
    case 'typo': {
      if (rng.chance(0.75) || !p.city) { const s = typo(p.street, rng); if (s === p.street) return false; p.street = s; }
      else { const s = typo(p.city, rng); if (s === p.city) return false; p.city = s; }
      return true;
    }
    case 'phonetic': {
      const lower = p.street.toLowerCase();
      const opts: (() => void)[] = [];
      for (const [a, b] of PHONETIC_SWAPS) {
        const i = lower.indexOf(a, 1);
        if (i > 0) opts.push(() => { p.street = p.street.slice(0, i) + b + p.street.slice(i + a.length); });
      }
      const dbl = /([a-z])\1/i.exec(p.street.slice(1));
      if (dbl) opts.push(() => { const i = dbl.index + 1; p.street = p.street.slice(0, i) + p.street.slice(i + 1); });
      else {
        const m = /[bdfglmnprst](?=[aeiou])/i.exec(p.street.slice(2));
        if (m) opts.push(() => { const i = m.index + 2; p.street = p.street.slice(0, i) + p.street[i] + p.street.slice(i); });
      }
      if (opts.length === 0) return false;
      opts[rng.int(opts.length)]();
      return true;
    }
    case 'accents': {
      const s = p.street + '|' + p.city;
      if (/[^\x00-\x7f]/.test(s)) {
        const r = rng.int(3);
        const f = (x: string) => (r === 0 ? stripAccents(x) : r === 1 ? x.replace(/ß/g, 'ss').replace(/ä/g, 'ae').replace(/ö/g, 'oe').replace(/ü/g, 'ue').replace(/Ä/g, 'Ae').replace(/Ö/g, 'Oe').replace(/Ü/g, 'Ue') : stripAccents(x).toUpperCase());
        p.street = f(p.street);
        p.city = f(p.city);
        return true;
      }
      const idxs: number[] = [];
      for (let i = 1; i < p.street.length; i++) if (ACCENT_ADD[p.street[i]]) idxs.push(i);
      if (idxs.length === 0) return false;
      const i = idxs[rng.int(idxs.length)];
      p.street = p.street.slice(0, i) + ACCENT_ADD[p.street[i]] + p.street.slice(i + 1);
      return true;
    }
    case 'token': {
      const words = p.street.split(' ');
      const opts: (() => void)[] = [];
      words.forEach((w, i) => {
        for (const suf of ['strasse', 'straße', 'gasse', 'weg', 'platz', 'hill', 'wood', 'field', 'land', 'dale']) {
          if (w.toLowerCase().endsWith(suf) && w.length > suf.length + 2) opts.push(() => { words[i] = w.slice(0, w.length - suf.length) + ' ' + cap(w.slice(w.length - suf.length)); });
        }
        if (w.includes('-')) opts.push(() => { words[i] = rng.chance(0.5) ? w.replace(/-/g, ' ') : w.replace(/-/g, ''); });
        if (i + 1 < words.length && /^\p{L}{3,}$/u.test(w) && /^\p{L}{3,}$/u.test(words[i + 1])) opts.push(() => { words[i] = w + words[i + 1].toLowerCase(); words[i + 1] = ''; });
        const lw = w.toLowerCase();
        if (lw === 'saint') opts.push(() => { words[i] = 'St'; });
        if (lw === 'mount') opts.push(() => { words[i] = 'Mt'; });
      });
      if (opts.length === 0) return false;
      opts[rng.int(opts.length)]();
      p.street = words.filter((w) => w.length > 0).join(' ');
      return true;
    }
    case 'postcode': {
      if (!p.postcode) return false;
      const digits = /^\d+$/.test(p.postcode);
      const opts: (() => void)[] = [];
      if (digits && p.postcode.length === 5 && t.country.toUpperCase() === 'US') opts.push(() => { p.postcode = `${p.postcode}-${String(1000 + rng.int(9000))}`; });
      if (digits) opts.push(() => { p.postcode = String(Number(p.postcode) + (rng.chance(0.5) ? 1 : -1) * (1 + rng.int(2))).padStart(p.postcode.length, '0'); });
      if (digits && p.postcode.startsWith('0')) opts.push(() => { p.postcode = p.postcode.slice(1); });
      if (t.country) opts.push(() => { p.postcode = `${t.country.toUpperCase().slice(0, 2)}-${p.postcode}`; });
      if (opts.length === 0) return false;
      opts[rng.int(opts.length)]();
      return true;
    }
    case 'number': {
      const r = rng.int(3);
      if (r === 0 && /^\d+$/.test(p.hn)) p.hn = rng.chance(0.5) ? `${p.hn}A` : `${p.hn} a`;
      else if (r === 1 && /^\d+$/.test(p.hn)) p.hn = `${p.hn}-${Number(p.hn) + 2}`;
      else p.unit = UNITS[rng.int(UNITS.length)];
      return true;
    }
    case 'language': {
      const words = p.street.split(' ');
      const opts: (() => void)[] = [];
      words.forEach((w, i) => {
        const lw = w.toLowerCase();
        for (const [full, shorts] of LANGUAGE_TYPES) {
          if (lw === full) opts.push(() => { words[i] = cap(shorts[rng.int(shorts.length)]); });
          else if (lw.endsWith(full) && lw.length > full.length + 2) opts.push(() => { words[i] = w.slice(0, w.length - full.length) + shorts[rng.int(shorts.length)]; });
        }
        // an article or preposition inside the name ("Rua do Almada", "Via della Spiga", "Carrer de la Unió")
        if (i > 0 && i < words.length - 1 && LANGUAGE_PARTICLES.has(lw)) opts.push(() => { words[i] = ''; });
        if (i > 0 && i < words.length - 1 && /^d'|^l'/i.test(w) && w.length > 3) opts.push(() => { words[i] = w.slice(2); });
      });
      // the number on the other side of the street, or after a comma ("Rua do Almada, 123")
      opts.push(() => { p.numberFirst = !p.numberFirst; });
      if (!p.numberFirst) opts.push(() => { p.street = `${p.street},`; });
      if (opts.length === 0) return false;
      opts[rng.int(opts.length)]();
      p.street = words.filter((w) => w.length > 0).join(' ') + (p.street.endsWith(',') ? ',' : '');
      return true;
    }
    case 'field': {
      const r = rng.int(3);
      if (r === 0 && p.city) { p.extraStreetTail = `, ${p.city}`; if (rng.chance(0.5)) p.city = ''; }
      else if (r === 1 && p.city && (p.state || p.country)) p.city = `${p.city} ${p.state || p.country}`;
      else { p.street = `  ${p.street.replace(/ /g, rng.chance(0.5) ? '  ' : ' , ')} `; }
      return true;
    }
  }
}

/** Draws the number of perturbations (0: 30 %, 1: 45 %, 2: 20 %, 3: 5 %). */
export function drawK(rng: Rng): number {
  const x = rng.next();
  return x < 0.3 ? 0 : x < 0.75 ? 1 : x < 0.95 ? 2 : 3;
}

export function renderQuery(p: Parts): Query {
  const hn = p.hn;
  const line = p.numberFirst ? `${hn} ${p.street}` : `${p.street} ${hn}`;
  const q: Query = { Street: (p.unit ? `${line} ${p.unit}` : line) + p.extraStreetTail };
  if (p.city) q.City = p.city;
  if (p.postcode) q.PostalCode = p.postcode;
  if (p.state) q.State = p.state;
  if (p.country) q.Country = p.country;
  return q;
}

export function cleanParts(t: TruthAddress): Parts {
  return { street: t.street, hn: t.hn, unit: '', numberFirst: t.numberFirst, city: t.city, postcode: t.postcode, state: t.state, country: t.country, extraStreetTail: '' };
}

/** A noisy query with k perturbation classes (k drawn), and the classes actually applied. */
export function noisyQuery(t: TruthAddress, rng: Rng, k = drawK(rng)): { q: Query; classes: NoiseClass[] } {
  const p = cleanParts(t);
  // country: always random among code / name / empty
  const cr = rng.int(3);
  p.country = cr === 0 ? t.country : cr === 1 ? '' : t.country.length === 2 ? t.country.toLowerCase() : t.country;
  const classes: NoiseClass[] = [];
  let tries = 0;
  while (classes.length < k && tries < 20) {
    tries++;
    let x = rng.next() * TOTAL_WEIGHT;
    let cls: NoiseClass = 'case';
    for (const c of NOISE_CLASSES) { x -= WEIGHTS[c]; if (x < 0) { cls = c; break; } }
    if (classes.includes(cls)) continue;
    if (applyClass(cls, p, t, rng)) classes.push(cls);
  }
  return { q: renderQuery(p), classes };
}
