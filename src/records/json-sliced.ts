/**
 * JSON text ⇄ records in slices, so that a large request or answer never holds a server's event
 * loop for long (each step hands the loop back every few milliseconds):
 *
 * - {@link jsonSliced}: a record's JSON text, the same as `JSON.stringify(rec.encode(value))`, long
 *   lists (a dispatch's stops, a track's points, the routes of a CalculateRoutes, the features of
 *   a GeoJSON document) written item by item; a {@link RawJson} value is written as the text it holds
 *   (GeoJSON made on a worker thread crosses as text and is never parsed here);
 * - {@link parseJsonSliced}: `JSON.parse` of a long text, its large containers walked item by item
 *   and each item parsed by the native parser;
 * - {@link safeParseSliced}: a record's validation (`RecordDef.safeParse`), its long lists
 *   validated item by item.
 *
 * Small values take one native call each, as before.
 */
import { Ticker } from '../core/cancel.js';
import { describeType, RecordDef, type AnyField, type EncodeOptions, type Issue, type Ty } from './schema.js';

/** JSON text made elsewhere (a worker thread), written into an answer as it is. */
export class RawJson {
  constructor(readonly text: string) {}
  /** A plain `JSON.stringify` of a value holding one writes the JSON it holds (the sliced writers never call this). */
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/**
 * A record value may carry its own JSON encoding, made elsewhere (a worker thread) as UTF-8 bytes
 * with one enum form: under this key, `{ enums, bytes }`. The sliced writer writes those bytes in
 * its place when it encodes with the same enum form (and walks the value otherwise); nothing else
 * sees the key. Large answers then cross the event loop as bytes, never as objects to encode.
 */
export const ENCODED: unique symbol = Symbol.for('dispatchkit.encoded');
export interface Encoded { enums: 'int' | 'name'; bytes: Uint8Array }
const encodedOf = (v: unknown, enums: 'int' | 'name'): Uint8Array | undefined => {
  const e = v !== null && typeof v === 'object' ? (v as { [ENCODED]?: Encoded })[ENCODED] : undefined;
  return e && e.enums === enums ? e.bytes : undefined;
};

/** A piece of a sliced answer: text, or UTF-8 bytes made elsewhere. */
export type Chunk = string | Uint8Array;

/** Values of more nodes than this (array elements and object properties, counted to this budget) are written piece by piece; smaller ones by one native `JSON.stringify`. */
const NODES = 2000;
/** How long the writer holds the thread before it yields (ms). */
const SLICE_MS = 5;

/** Pieces are gathered into chunks of about this many characters (what an answer is sent in). */
const CHUNK = 64 * 1024;

class Writer extends Ticker {
  /** The current chunk's pieces, and the finished chunks. */
  private parts: string[] = [];
  private size = 0;
  readonly chunks: Chunk[] = [];
  /** `signal`: read at each slice's end (Cancelled). */
  constructor(readonly o: EncodeOptions, signal?: AbortSignal) { super(SLICE_MS, signal); }
  /** UTF-8 bytes made elsewhere, as they are (views of at most {@link CHUNK} bytes). */
  pushBytes(b: Uint8Array): void {
    this.flush();
    for (let i = 0; i < b.length; i += CHUNK) this.chunks.push(b.subarray(i, Math.min(b.length, i + CHUNK)));
  }
  push(s: string): void {
    if (s.length >= CHUNK) {
      this.flush();
      // a long text (RawJson) in chunks: each is turned into bytes on its own when sent
      for (let i = 0; i < s.length; i += CHUNK) this.chunks.push(s.slice(i, i + CHUNK));
      return;
    }
    this.parts.push(s);
    this.size += s.length;
    if (this.size >= CHUNK) this.flush();
  }
  flush(): Chunk[] {
    if (this.parts.length > 0) this.chunks.push(this.parts.join(''));
    this.parts = [];
    this.size = 0;
    return this.chunks;
  }
}

/**
 * Whether a value is large: more than {@link NODES} array elements and object properties in all
 * (counting stops at the budget), or holds {@link RawJson}. A large value is written (and
 * validated) piece by piece; a small one in one native call.
 */
function hasLong(v: unknown, _depth?: number): boolean {
  return sizeOf(v, NODES) > NODES;
}

/** Array elements and object properties of a value, counted up to `budget + 1` (RawJson: past the budget). */
function sizeOf(v: unknown, budget: number): number {
  let n = 0;
  const walk = (x: unknown): boolean => {
    if (x instanceof RawJson || (x !== null && typeof x === 'object' && ENCODED in x)) { n = budget + 1; return true; }
    if (x === null || typeof x !== 'object') return false;
    if (Array.isArray(x)) {
      if ((n += x.length) > budget) return true;
      for (const y of x) if (walk(y)) return true;
      return false;
    }
    for (const k in x as Record<string, unknown>) {
      if (++n > budget) return true;
      if (walk((x as Record<string, unknown>)[k])) return true;
    }
    return false;
  };
  walk(v);
  return Math.min(n, budget + 1);
}

async function typed(w: Writer, ty: Ty<any, any>, v: unknown): Promise<void> {
  if (v instanceof RawJson) { w.push(v.text); return; }
  const pre = encodedOf(v, w.o.enums === 'name' ? 'name' : 'int');
  if (pre) { w.pushBytes(pre); return; }
  const d = describeType(ty);
  if (d.record && !hasLong(v, 3)) { w.push(JSON.stringify(d.record.encode(v as never, w.o))); return; }
  if (d.record) {
    w.push('{');
    let first = true;
    for (const [k, f] of Object.entries(d.record.fields) as [string, AnyField][]) {
      const x = (v as Record<string, unknown>)[k];
      if (x === undefined || x === null) continue;
      w.push(`${first ? '' : ','}${JSON.stringify(k)}:`);
      first = false;
      await typed(w, f.ty, x);
    }
    w.push('}');
    return;
  }
  if (d.list && Array.isArray(v)) {
    const item = d.list;
    const itemRec = describeType(item).record;
    await list(w, v, (x) => (itemRec ? itemRec.encode(x as never, w.o) : item.encode(x as never, w.o)), (x) => typed(w, item, x));
    return;
  }
  // the service's JSON fields (records/service.ts) pass any value through
  if ((d.xsd as string | undefined) === 'json') { await raw(w, v); return; }
  w.push(JSON.stringify(ty.encode(v as never, w.o)));
}

/**
 * A list: its small items in batches of about {@link NODES} nodes, each batch by one native
 * stringify of its items as `encode` gives them; a large item by `big` (piece by piece).
 */
async function list(w: Writer, v: unknown[], encode: (x: unknown) => unknown, big: (x: unknown) => Promise<void>): Promise<void> {
  w.push('[');
  let batch: unknown[] = [];
  let nodes = 0;
  let first = true;
  const flush = (): void => {
    if (batch.length === 0) return;
    w.push(`${first ? '' : ','}${JSON.stringify(batch).slice(1, -1)}`);
    first = false;
    batch = [];
    nodes = 0;
  };
  for (let i = 0; i < v.length; i++) {
    const x = v[i] === undefined ? null : v[i];
    const n = x !== null && typeof x === 'object' ? sizeOf(x, NODES) : 1;
    if (n > NODES) {
      flush();
      if (!first) w.push(',');
      first = false;
      await big(x);
    } else {
      batch.push(x === null ? null : encode(x));
      if ((nodes += n + 1) >= NODES) flush();
    }
    await w.tick();
  }
  flush();
  w.push(']');
}

/** Any JSON value (GeoJSON, a job's result), long arrays item by item. */
async function raw(w: Writer, v: unknown): Promise<void> {
  if (v instanceof RawJson) { w.push(v.text); return; }
  if (!hasLong(v, 4)) { w.push(JSON.stringify(v) ?? 'null'); return; }
  if (Array.isArray(v)) {
    await list(w, v, (x) => x, (x) => raw(w, x));
    return;
  }
  w.push('{');
  let first = true;
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (x === undefined) continue;
    w.push(`${first ? '' : ','}${JSON.stringify(k)}:`);
    first = false;
    await raw(w, x);
  }
  w.push('}');
}

/**
 * The JSON text of `value` encoded by `rec` (enums as `o.enums`), written in slices: one string
 * for a small value, the text's consecutive chunks (about 64 K characters each) for a large one —
 * send them one after the other (joining megabytes of text would hold the loop again).
 */
export async function jsonSliced(rec: RecordDef<any>, value: unknown, o: EncodeOptions = {}): Promise<string | Chunk[]> {
  if (!hasLong(value, 4)) return JSON.stringify(rec.encode(value as never, o));
  const w = new Writer(o);
  await typed(w, rec, value);
  return w.flush();
}

/** The JSON text of any value, written in slices (chunks for a large one, see {@link jsonSliced}); `signal` is read between slices (Cancelled). */
export async function rawJsonSliced(value: unknown, signal?: AbortSignal): Promise<string | Chunk[]> {
  if (!hasLong(value, 4)) return JSON.stringify(value);
  const w = new Writer({}, signal);
  await raw(w, value);
  return w.flush();
}

/** The whole text of {@link jsonSliced} or {@link rawJsonSliced}'s answer (for tests and small uses). */
export function joined(t: string | readonly Chunk[]): string {
  if (typeof t === 'string') return t;
  const dec = new TextDecoder();
  return t.map((c) => (typeof c === 'string' ? c : dec.decode(c))).join('');
}

// ---------------------------------------------------------------------------------------------
// parsing

/** Texts shorter than this are parsed by one `JSON.parse`. */
export const SLICED_PARSE_FROM = 256 * 1024;
/** Containers longer than this (characters) are walked item by item; shorter ones parsed natively. */
const BIG_CONTAINER = 64 * 1024;
/** Nesting down to which large containers are walked (deeper ones are parsed whole). */
const WALK_DEPTH = 5;

class SlicedJson extends Ticker {
  i = 0;
  constructor(readonly s: string, private readonly big: number) { super(SLICE_MS); }

  fail(message: string, at = this.i): never {
    throw new SyntaxError(`${message} in JSON at position ${at}`);
  }

  ws(): void {
    const s = this.s;
    let i = this.i;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else break;
    }
    this.i = i;
  }

  /** The index just after the string starting at `i`. */
  stringEnd(i: number): number {
    const s = this.s;
    for (let j = i + 1; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c === 92) j++;
      else if (c === 34) return j + 1;
    }
    return this.fail('Unterminated string', i);
  }

  /** The index just after the value starting at `i`, scanning (in slices: a large container is long to scan). */
  async valueEnd(i: number): Promise<number> {
    const s = this.s;
    const c = s.charCodeAt(i);
    if (c === 34) return this.stringEnd(i);
    if (c === 123 || c === 91) {
      let depth = 0;
      let check = i + 0x10000;
      for (let j = i; j < s.length; j++) {
        const d = s.charCodeAt(j);
        if (d === 34) j = this.stringEnd(j) - 1;
        else if (d === 123 || d === 91) depth++;
        else if (d === 125 || d === 93) {
          if (--depth === 0) return j + 1;
        }
        if (j >= check) {
          check = j + 0x10000;
          await this.tick();
        }
      }
      return this.fail('Unexpected end of input', s.length);
    }
    let j = i;
    while (j < s.length) {
      const d = s.charCodeAt(j);
      if (d === 44 || d === 93 || d === 125 || d === 32 || d === 10 || d === 13 || d === 9) break;
      j++;
    }
    if (j === i) this.fail(`Unexpected ${i < s.length ? `token '${s[i]}'` : 'end of input'}`, i);
    return j;
  }

  async value(depth: number): Promise<unknown> {
    this.ws();
    const start = this.i;
    const c = this.s.charCodeAt(start);
    const end = await this.valueEnd(start);
    if ((c === 123 || c === 91) && end - start > this.big && depth < WALK_DEPTH) {
      return c === 91 ? this.array(depth, end) : this.object(depth, end);
    }
    this.i = end;
    try {
      return JSON.parse(this.s.slice(start, end));
    } catch (e) {
      return this.fail((e as Error).message.replace(/ in JSON at position \d+.*$/, ''), start);
    }
  }

  private async array(depth: number, end: number): Promise<unknown[]> {
    const out: unknown[] = [];
    this.i++;
    this.ws();
    if (this.s.charCodeAt(this.i) === 93) { this.i++; return out; }
    for (;;) {
      out.push(await this.value(depth + 1));
      await this.tick();
      this.ws();
      const c = this.s.charCodeAt(this.i++);
      if (c === 93) break;
      if (c !== 44) this.fail(`Expected ',' or ']' after an array element`, this.i - 1);
    }
    if (this.i !== end) this.fail('Unexpected content in an array');
    return out;
  }

  private async object(depth: number, end: number): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    this.i++;
    this.ws();
    if (this.s.charCodeAt(this.i) === 125) { this.i++; return out; }
    for (;;) {
      this.ws();
      if (this.s.charCodeAt(this.i) !== 34) this.fail('Expected a property name');
      const kEnd = this.stringEnd(this.i);
      const key = JSON.parse(this.s.slice(this.i, kEnd)) as string;
      this.i = kEnd;
      this.ws();
      if (this.s.charCodeAt(this.i++) !== 58) this.fail(`Expected ':' after a property name`, this.i - 1);
      const v = await this.value(depth + 1);
      // as JSON.parse does: an own property, even "__proto__"
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      this.ws();
      const c = this.s.charCodeAt(this.i++);
      if (c === 125) break;
      if (c !== 44) this.fail(`Expected ',' or '}' after a property value`, this.i - 1);
    }
    if (this.i !== end) this.fail('Unexpected content in an object');
    return out;
  }
}

/**
 * `JSON.parse(text)` in slices (the same value; a SyntaxError for text that is not JSON). `o`
 * lowers the thresholds (tests).
 */
export async function parseJsonSliced(text: string, o: { from?: number; big?: number } = {}): Promise<unknown> {
  if (text.length < (o.from ?? SLICED_PARSE_FROM)) return JSON.parse(text);
  const p = new SlicedJson(text, o.big ?? BIG_CONTAINER);
  const v = await p.value(0);
  p.ws();
  if (p.i !== text.length) p.fail('Unexpected non-whitespace character after JSON');
  return v;
}

// ---------------------------------------------------------------------------------------------
// validation

/**
 * `rec.safeParse(v, path)` with long lists validated item by item between turns of the event
 * loop: the same value and the same issues (those of the long lists after the others). `signal`
 * is read between slices (Cancelled).
 */
export async function safeParseSliced(rec: RecordDef<any>, v: unknown, path = '', signal?: AbortSignal): Promise<{ ok: true; value: any } | { ok: false; issues: Issue[] }> {
  if (!hasLong(v, 4) || typeof v !== 'object' || v === null || Array.isArray(v)) return rec.safeParse(v, path);
  const w = new Writer({}, signal);
  // the fields holding long lists (or records holding them), bound case-insensitively as RecordDef binds
  const canon = new Map(Object.keys(rec.fields).map((k) => [k.toLowerCase(), k]));
  const seen = new Set<string>();
  const heavy = new Map<string, { key: string; raw: unknown }>();
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const c = canon.get(k.toLowerCase());
    if (c === undefined || seen.has(c)) continue;
    seen.add(c);
    const d = describeType((rec.fields[c] as AnyField).ty);
    if ((d.list || d.record) && x !== null && x !== undefined && hasLong(x, 3)) heavy.set(c, { key: k, raw: x });
  }
  if (heavy.size === 0) return rec.safeParse(v, path);
  // the rest of the record as usual (the heavy fields stand in as empty)
  const light: Record<string, unknown> = { ...(v as Record<string, unknown>) };
  for (const [c, h] of heavy) light[h.key] = describeType((rec.fields[c] as AnyField).ty).list ? [] : {};
  const base = rec.safeParse(light, path);
  const issues: Issue[] = base.ok ? [] : base.issues.filter((i) => ![...heavy.keys()].some((c) => i.path.startsWith(path ? `${path}.${c}` : c)));
  const value: Record<string, unknown> = base.ok ? base.value : {};
  for (const [c, h] of heavy) {
    const p = path ? `${path}.${c}` : c;
    const d = describeType((rec.fields[c] as AnyField).ty);
    if (d.record) {
      const r = await safeParseSliced(d.record, h.raw, p, signal);
      if (r.ok) value[c] = r.value;
      else issues.push(...r.issues);
      continue;
    }
    if (!Array.isArray(h.raw)) { issues.push({ path: p, message: 'must be a list' }); continue; }
    const item = d.list!;
    const itemRec = describeType(item).record;
    const out: unknown[] = [];
    for (let i = 0; i < h.raw.length; i++) {
      const x = h.raw[i];
      const ip = `${p}[${i}]`;
      if (x === null || x === undefined) { issues.push({ path: ip, message: 'is empty (null)' }); continue; }
      if (itemRec && hasLong(x, 3)) {
        const r = await safeParseSliced(itemRec, x, ip, signal);
        if (r.ok) out.push(r.value);
        else issues.push(...r.issues);
      } else {
        const before = issues.length;
        const r = item.parse(x, ip, issues);
        if (r !== undefined && issues.length === before) out.push(r);
      }
      await w.tick();
    }
    value[c] = out;
  }
  return issues.length === 0 ? { ok: true, value } : { ok: false, issues };
}

// ---------------------------------------------------------------------------------------------
// across threads

/**
 * A record whose long list field crosses threads as text: the record without it (`head`) and each
 * item as its own JSON text. Strings cross a thread boundary at once (a large object graph holds
 * the receiving event loop while it is rebuilt), and each small text is parsed natively on the
 * other side, between turns of the event loop ({@link fromTexts}).
 */
export interface Texts {
  head: string;
  field: string;
  items: string[];
}

/** The worker's side of {@link Texts}. */
export function toTexts(value: Record<string, unknown>, field: string): Texts {
  const list = value[field];
  const head: Record<string, unknown> = { ...value };
  delete head[field];
  return { head: JSON.stringify(head), field, items: Array.isArray(list) ? list.map((x) => JSON.stringify(x) ?? 'null') : [] };
}

/** JSON texts parsed one by one between turns of the event loop (the items of a list that crossed threads as text). */
export async function parseEach<T>(texts: readonly string[]): Promise<T[]> {
  const ticker = new Ticker(SLICE_MS);
  const out: T[] = new Array(texts.length);
  for (let i = 0; i < texts.length; i++) {
    out[i] = JSON.parse(texts[i]) as T;
    await ticker.tick();
  }
  return out;
}

/** The receiving side of {@link Texts}: the record again, its items parsed one by one between turns of the event loop. */
export async function fromTexts<T>(t: Texts): Promise<T> {
  const out = JSON.parse(t.head) as Record<string, unknown>;
  const items = await parseEach(t.items);
  // the field back where it was among the others (its order is the record's)
  return { ...out, [t.field]: items } as T;
}
