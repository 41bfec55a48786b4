/**
 * Fuzzy-matching primitives: a bounded Damerau–Levenshtein distance (optimal string alignment:
 * insert, delete, substitute, transpose adjacent) and a trigram inverted index persisted as typed
 * arrays (sorted gram codes → posting lists) whose queries own their scratch memory.
 */
import type { Sections, SectionReader } from './sections.js';

let rowA = new Int32Array(64);
let rowB = new Int32Array(64);
let rowC = new Int32Array(64);

/**
 * Optimal-string-alignment distance between a and b, or `max + 1` as soon as it is certain to
 * exceed `max` (length difference, or a whole DP row above max).
 */
export function osaDistance(a: string, b: string, max = 255): number {
  if (a === b) return 0;
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return max + 1;
  if (n === 0) return m;
  if (m === 0) return n;
  if (m + 1 > rowA.length) {
    rowA = new Int32Array(m + 1);
    rowB = new Int32Array(m + 1);
    rowC = new Int32Array(m + 1);
  }
  let prev2 = rowA; // row i-2
  let prev = rowB; // row i-1
  let cur = rowC; // row i
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= m; j++) {
      const cb = b.charCodeAt(j - 1);
      let v = prev[j - 1] + (ca === cb ? 0 : 1);
      const del = prev[j] + 1;
      if (del < v) v = del;
      const ins = cur[j - 1] + 1;
      if (ins < v) v = ins;
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) {
        const tr = prev2[j - 2] + 1;
        if (tr < v) v = tr;
      }
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  const d = prev[m];
  return d > max ? max + 1 : d;
}

/** The distinct trigram codes of a key padded with one boundary mark on each side. */
export function trigrams(key: string, out: number[] = []): number[] {
  out.length = 0;
  const p = `\u0001${key}\u0002`;
  for (let i = 0; i + 3 <= p.length; i++) {
    const code = p.charCodeAt(i) * 4294967296 + p.charCodeAt(i + 1) * 65536 + p.charCodeAt(i + 2);
    if (!out.includes(code)) out.push(code);
  }
  return out;
}

/** Build side: keys by item id → sections `<name>.k` (gram codes), `.o` (offsets), `.i` (ids), `.n` (grams per id). */
export function buildTrigramSections(w: Sections, name: string, keys: string[]): void {
  const pairs: { code: number; id: number }[] = [];
  const counts = new Uint16Array(keys.length);
  const g: number[] = [];
  for (let id = 0; id < keys.length; id++) {
    trigrams(keys[id], g);
    counts[id] = Math.min(65535, g.length);
    for (const code of g) pairs.push({ code, id });
  }
  pairs.sort((x, y) => x.code - y.code || x.id - y.id);
  const codes: number[] = [];
  const offs: number[] = [];
  const ids = new Uint32Array(pairs.length);
  for (let k = 0; k < pairs.length; k++) {
    if (k === 0 || pairs[k].code !== pairs[k - 1].code) {
      codes.push(pairs[k].code);
      offs.push(k);
    }
    ids[k] = pairs[k].id;
  }
  offs.push(pairs.length);
  w.set(`${name}.k`, Float64Array.from(codes));
  w.set(`${name}.o`, Uint32Array.from(offs));
  w.set(`${name}.i`, ids);
  w.set(`${name}.n`, counts);
}

export interface TrigramHit {
  id: number;
  /** Dice coefficient of the gram sets, in [0, 1]. */
  sim: number;
  shared: number;
}

/** Read side: trigram retrieval with reusable scratch. */
export class TrigramIndex {
  readonly codes: Float64Array;
  readonly offs: Uint32Array;
  readonly ids: Uint32Array;
  readonly counts: Uint16Array;
  private scratch: Uint16Array;
  private touched: Uint32Array;
  private readonly grams: number[] = [];

  constructor(s: SectionReader, name: string) {
    this.codes = s.get(`${name}.k`, Float64Array);
    this.offs = s.get(`${name}.o`, Uint32Array);
    this.ids = s.get(`${name}.i`, Uint32Array);
    this.counts = s.get(`${name}.n`, Uint16Array);
    this.scratch = new Uint16Array(0);
    this.touched = new Uint32Array(0);
  }

  get size(): number {
    return this.counts.length;
  }

  private find(code: number): number {
    let lo = 0;
    let hi = this.codes.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.codes[mid];
      if (v < code) lo = mid + 1;
      else if (v > code) hi = mid - 1;
      else return mid;
    }
    return -1;
  }

  /**
   * The `limit` items sharing the most trigrams with `key` (Dice similarity ≥ minSim), best first,
   * ties by id. Grams whose posting list covers more than an eighth of the items ("rua", "str")
   * are skipped when the query has at least three other grams: they discriminate little and cost
   * the most (candidates are re-ranked by edit distance anyway).
   */
  search(key: string, limit: number, minSim = 0): TrigramHit[] {
    const n = this.counts.length;
    if (n === 0 || key.length === 0) return [];
    if (this.scratch.length < n) {
      this.scratch = new Uint16Array(n);
      this.touched = new Uint32Array(n);
    }
    const sc = this.scratch;
    const touched = this.touched;
    let nt = 0;
    const g = trigrams(key, this.grams);
    const qn = g.length;
    const slots: number[] = [];
    for (const code of g) {
      const s = this.find(code);
      if (s >= 0) slots.push(s);
    }
    const big = Math.max(64, n >> 3);
    const small = slots.filter((s) => this.offs[s + 1] - this.offs[s] <= big);
    const use = small.length >= 3 ? small : slots;
    for (const s of use) {
      for (let k = this.offs[s], e = this.offs[s + 1]; k < e; k++) {
        const id = this.ids[k];
        if (sc[id] === 0) touched[nt++] = id;
        sc[id]++;
      }
    }
    const skipped = slots.length - use.length;
    const hits: TrigramHit[] = [];
    for (let t = 0; t < nt; t++) {
      const id = touched[t];
      const shared = sc[id] + Math.min(skipped, 0);
      sc[id] = 0;
      const sim = (2 * shared) / (qn + this.counts[id]);
      if (sim >= minSim) hits.push({ id, sim, shared });
    }
    hits.sort((a, b) => b.sim - a.sim || a.id - b.id);
    if (hits.length > limit) hits.length = limit;
    return hits;
  }
}
