/**
 * Text primitives of the geocoder: Unicode folding (accents, ß, ligatures, full-width forms),
 * tokenisation, and a small UTF-8 codec that also works on views of a SharedArrayBuffer
 * (TextDecoder refuses those).
 */

/** Letters that NFKD does not decompose into base + combining mark. */
const SPECIAL: Record<string, string> = {
  'ß': 'ss', 'ẞ': 'ss', 'æ': 'ae', 'Æ': 'ae', 'œ': 'oe', 'Œ': 'oe', 'ø': 'o', 'Ø': 'o', 'ł': 'l', 'Ł': 'l',
  'đ': 'd', 'Đ': 'd', 'ð': 'd', 'Ð': 'd', 'þ': 'th', 'Þ': 'th', 'ı': 'i', 'ħ': 'h', 'Ħ': 'h', 'ŧ': 't', 'Ŧ': 't',
  'ŋ': 'n', 'Ŋ': 'n', 'ĸ': 'k', 'ſ': 's', 'ƒ': 'f', 'ɐ': 'a',
  // typographic punctuation that NFKD keeps
  '‘': "'", '’': "'", '‚': "'", '‛': "'", '′': "'", '`': "'", '´': "'",
  '“': '"', '”': '"', '„': '"', '«': '"', '»': '"',
  '‐': '-', '‑': '-', '‒': '-', '–': '-', '—': '-', '―': '-', '−': '-',
  '№': 'no ', '°': 'o', 'º': 'o', 'ª': 'a',
};
const SPECIAL_RE = new RegExp(`[${Object.keys(SPECIAL).join('')}]`, 'g');
const MARKS_RE = /\p{M}+/gu;
// C0/C1 controls, zero-width and bidi formatting characters.
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff]/g;

/** True when the string is plain printable ASCII (the fast path of {@link fold}). */
function isPlainAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x60) return false;
  }
  return true;
}

/**
 * Folds a string for comparison: lower case, accents removed (NFKD + mark stripping), the
 * letters NFKD leaves alone mapped (ß→ss, æ→ae, ø→o, ł→l, …), ligatures and full-width forms
 * decomposed (NFKD), control characters turned into spaces. Punctuation is kept.
 */
export function fold(s: string): string {
  if (isPlainAscii(s)) return s.toLowerCase();
  let t = s.replace(CONTROL_RE, ' ');
  t = t.replace(SPECIAL_RE, (c) => SPECIAL[c] ?? c);
  t = t.normalize('NFKD').replace(MARKS_RE, '');
  // NFKD may expose more specials (e.g. full-width forms of them); one more pass is cheap.
  t = t.replace(SPECIAL_RE, (c) => SPECIAL[c] ?? c);
  return t.toLowerCase();
}

/** Folds and replaces every character that is not a letter, digit or space by a space; collapses spaces. */
export function foldWords(s: string): string {
  return fold(s).replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/** Words of a folded string (letters/digits runs). */
export function words(s: string): string[] {
  const t = foldWords(s);
  return t.length === 0 ? [] : t.split(' ');
}

// ----------------------------------------------------------------------------- UTF-8

const encoder = new TextEncoder();

export function utf8Encode(s: string): Uint8Array {
  return encoder.encode(s);
}

/** Decodes UTF-8 bytes `[start, end)` of `b` (any backing buffer, shared or not). */
export function utf8Decode(b: Uint8Array, start: number, end: number): string {
  let out = '';
  let i = start;
  while (i < end) {
    const c = b[i++];
    if (c < 0x80) {
      out += String.fromCharCode(c);
    } else if (c < 0xe0) {
      out += String.fromCharCode(((c & 0x1f) << 6) | (b[i++] & 0x3f));
    } else if (c < 0xf0) {
      out += String.fromCharCode(((c & 0x0f) << 12) | ((b[i++] & 0x3f) << 6) | (b[i++] & 0x3f));
    } else {
      const cp = ((c & 0x07) << 18) | ((b[i++] & 0x3f) << 12) | ((b[i++] & 0x3f) << 6) | (b[i++] & 0x3f);
      out += String.fromCodePoint(cp);
    }
  }
  return out;
}
