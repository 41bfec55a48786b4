/**
 * A small schema language for the service contract's records. One definition per record gives:
 * the TypeScript types (parsed and input forms), runtime validation with field paths, the
 * contract's defaults, enum names ⇄ integers, case-insensitive property binding, JSON encoding,
 * and JSON Schema (later XSD/WSDL) export. It knows the contract's XML Schema types (int, long,
 * double, boolean, dateTime, unsignedByte, string) so every output format is derived from here.
 */
import { EngineError } from '../core/errors.js';

/** One validation problem: the field path and what is wrong with it. */
export interface Issue {
  path: string;
  message: string;
}

export interface EncodeOptions {
  /** Enum encoding on output: integers (the original service's JSON clients) or names. */
  enums?: 'int' | 'name';
}

export type XsdType = 'string' | 'int' | 'long' | 'double' | 'boolean' | 'dateTime' | 'unsignedByte';

// ---------------------------------------------------------------------------------------------
// Value types
// ---------------------------------------------------------------------------------------------

/** A value type: `T` is the parsed form, `I` what callers may pass. */
export abstract class Ty<T, I = T> {
  declare readonly _t: T;
  declare readonly _i: I;
  abstract readonly label: string;
  /** Returns the parsed value, or undefined after pushing issues. `v` is never null/undefined here. */
  abstract parse(v: unknown, path: string, issues: Issue[]): T | undefined;
  abstract encode(v: T, o: EncodeOptions): unknown;
  abstract jsonSchema(refs: SchemaRefs): object;
  /** The same type restricted to [min, max] (numeric types only; see {@link Field.range}). */
  withRange(_min: number, _max: number): Ty<T, I> {
    throw new EngineError('Internal', `${this.label} has no numeric range`);
  }
  /** Inclusive bounds of a numeric type (undefined for others or when unbounded). */
  get bounds(): { min?: number; max?: number } | undefined { return undefined; }
}

export interface SchemaRefs {
  ref(r: RecordDef<any>): object;
  refEnum(e: EnumDef<any>): object;
}

function describe(v: unknown): string {
  if (typeof v === 'string') return v.length > 40 ? `"${v.slice(0, 37)}..."` : JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'an object' : typeof v;
}

class StringTy extends Ty<string> {
  readonly label = 'string';
  parse(v: unknown, path: string, issues: Issue[]): string | undefined {
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
    if (typeof v !== 'string') {
      issues.push({ path, message: `must be a string (got ${describe(v)})` });
      return undefined;
    }
    // NUL cannot be stored (PostgreSQL text) nor written in XML: never a character of a real value
    if (v.includes('\u0000')) {
      issues.push({ path, message: 'must not contain NUL (\\u0000) characters' });
      return undefined;
    }
    return v;
  }
  encode(v: string): unknown { return v; }
  jsonSchema(): object { return { type: 'string' }; }
}

/** A number from a number or a numeric string; -0 becomes 0 (the wire has no negative zero). */
function numberFrom(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(v) ? Number(v) : undefined;
  return n === 0 ? 0 : n;
}

/** Bounds as written in messages: plain digits (no exponent) up to 1e21, so `1000000000000`, never `1e12`. */
function num(x: number): string {
  return Number.isInteger(x) && Math.abs(x) < 1e21 ? x.toFixed(0) : String(x);
}

class IntTy extends Ty<number> {
  constructor(readonly label: 'int' | 'long' | 'unsignedByte', private readonly min: number, private readonly max: number) { super(); }
  override withRange(min: number, max: number): IntTy {
    return new IntTy(this.label, Math.max(this.min, Math.ceil(min)), Math.min(this.max, Math.floor(max)));
  }
  override get bounds(): { min: number; max: number } { return { min: this.min, max: this.max }; }
  parse(v: unknown, path: string, issues: Issue[]): number | undefined {
    const n = numberFrom(v);
    if (n === undefined || !Number.isFinite(n)) {
      issues.push({ path, message: `must be a whole number (got ${describe(v)})` });
      return undefined;
    }
    if (!Number.isInteger(n)) {
      issues.push({ path, message: `must be a whole number (got ${n})` });
      return undefined;
    }
    if (n < this.min || n > this.max) {
      issues.push({ path, message: `must be between ${num(this.min)} and ${num(this.max)} (got ${n})` });
      return undefined;
    }
    return n;
  }
  encode(v: number): unknown { return Math.round(v); }
  jsonSchema(): object { return { type: 'integer', minimum: this.min, maximum: this.max }; }
}

class DoubleTy extends Ty<number> {
  readonly label = 'double';
  constructor(private readonly min = -Infinity, private readonly max = Infinity) { super(); }
  override withRange(min: number, max: number): DoubleTy {
    return new DoubleTy(Math.max(this.min, min), Math.min(this.max, max));
  }
  override get bounds(): { min?: number; max?: number } | undefined {
    if (this.min === -Infinity && this.max === Infinity) return undefined;
    return { ...(this.min > -Infinity ? { min: this.min } : {}), ...(this.max < Infinity ? { max: this.max } : {}) };
  }
  parse(v: unknown, path: string, issues: Issue[]): number | undefined {
    const n = numberFrom(v);
    if (n === undefined || !Number.isFinite(n)) {
      issues.push({ path, message: `must be a finite number (got ${describe(v)})` });
      return undefined;
    }
    if (n < this.min || n > this.max) {
      const range = this.max === Infinity ? `${num(this.min)} or more` : this.min === -Infinity ? `at most ${num(this.max)}` : `between ${num(this.min)} and ${num(this.max)}`;
      issues.push({ path, message: `must be ${range} (got ${n})` });
      return undefined;
    }
    return n;
  }
  encode(v: number): unknown { return v; }
  jsonSchema(): object {
    return { type: 'number', ...(this.min > -Infinity ? { minimum: this.min } : {}), ...(this.max < Infinity ? { maximum: this.max } : {}) };
  }
}

class BoolTy extends Ty<boolean> {
  readonly label = 'boolean';
  parse(v: unknown, path: string, issues: Issue[]): boolean | undefined {
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === '1' || v === 1 || v === 'True') return true;
    if (v === 'false' || v === '0' || v === 0 || v === 'False') return false;
    issues.push({ path, message: `must be true or false (got ${describe(v)})` });
    return undefined;
  }
  encode(v: boolean): unknown { return v; }
  jsonSchema(): object { return { type: 'boolean' }; }
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const MS_DATE_RE = /^\/Date\((-?\d+)([+-]\d{4})?\)\/$/;
/** Dates beyond this year are refused: a plan's times (days after its clock) must stay 4-digit years. */
const MAX_YEAR = 9000;
const MAX_DATE_MS = Date.UTC(MAX_YEAR, 0, 1);

/** dateTime: ISO 8601 strings (with or without zone), .NET `/Date(ms)/`, or a JS Date. Kept as an ISO string. */
class DateTy extends Ty<string, string | Date> {
  readonly label = 'dateTime';
  parse(v: unknown, path: string, issues: Issue[]): string | undefined {
    if (v instanceof Date) {
      if (Number.isNaN(v.getTime())) { issues.push({ path, message: 'is an invalid Date' }); return undefined; }
      return v.toISOString();
    }
    if (typeof v !== 'string') {
      issues.push({ path, message: `must be a date-time string like 2026-12-01T09:00:00 (got ${describe(v)})` });
      return undefined;
    }
    const s = v.trim();
    const ms = MS_DATE_RE.exec(s);
    if (ms) {
      const t = Number(ms[1]);
      if (!(Math.abs(t) <= MAX_DATE_MS)) {
        issues.push({ path, message: `is out of range: years 1 to ${MAX_YEAR} (got ${describe(v)})` });
        return undefined;
      }
      return new Date(t).toISOString();
    }
    const m = DATE_RE.exec(s);
    if (!m) {
      issues.push({ path, message: `must be a date-time like 2026-12-01T09:00:00 (got ${describe(v)})` });
      return undefined;
    }
    const [, y, mo, d, h = '00', mi = '00', se = '00', , zone] = m;
    const month = +mo, day = +d, hour = +h, min = +mi, sec = +se;
    const dim = new Date(Date.UTC(+y, month, 0)).getUTCDate();
    const zm = zone && zone !== 'Z' ? /^[+-](\d{2}):?(\d{2})$/.exec(zone) : null;
    if (month < 1 || month > 12 || day < 1 || day > dim || hour > 23 || min > 59 || sec > 59 || (zm !== null && (+zm[1] > 14 || +zm[2] > 59))) {
      issues.push({ path, message: `is not a valid calendar date-time (got ${describe(v)})` });
      return undefined;
    }
    if (+y > MAX_YEAR) {
      issues.push({ path, message: `is out of range: years 1 to ${MAX_YEAR} (got ${describe(v)})` });
      return undefined;
    }
    return s.replace(' ', 'T');
  }
  encode(v: string): unknown { return v; }
  jsonSchema(): object {
    // not `format: date-time`: the contract's dates may have no zone (wall clock) and may be .NET's /Date(ms)/
    return {
      type: 'string',
      pattern: '^(\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?)?(Z|[+-]\\d{2}:?\\d{2})?|/Date\\(-?\\d+([+-]\\d{4})?\\)/)$',
      description: 'ISO 8601 date-time, with or without a zone (without: wall-clock time), or /Date(ms)/; at or before 2012-01-01 means "not set".',
    };
  }
}

/** An enumeration with integer values; names are emitted on request. Aliases share a value. */
export class EnumDef<N extends string> extends Ty<N, N | number> {
  readonly label: string;
  private readonly byLower = new Map<string, N>();
  private readonly byValue = new Map<number, N>();
  constructor(readonly name: string, readonly values: Readonly<Record<N, number>>, readonly aliases: Readonly<Record<string, N>> = {}) {
    super();
    this.label = name;
    for (const [k, v] of Object.entries(values) as [N, number][]) {
      this.byLower.set(k.toLowerCase(), k);
      if (!this.byValue.has(v)) this.byValue.set(v, k);
    }
    for (const [alias, target] of Object.entries(aliases)) this.byLower.set(alias.toLowerCase(), target);
  }
  get names(): N[] { return Object.keys(this.values) as N[]; }
  /** All accepted names, aliases included. */
  get acceptedNames(): string[] {
    return [...this.names, ...Object.keys(this.aliases)];
  }
  numberOf(name: N): number { return this.values[name]; }
  fromValue(v: number): N | undefined { return this.byValue.get(v); }
  parse(v: unknown, path: string, issues: Issue[]): N | undefined {
    if (typeof v === 'number' || (typeof v === 'string' && /^\s*\d+\s*$/.test(v))) {
      const n = this.byValue.get(Number(v));
      if (n !== undefined) return n;
    } else if (typeof v === 'string') {
      const n = this.byLower.get(v.trim().toLowerCase());
      if (n !== undefined) return n;
    }
    issues.push({ path, message: `must be one of ${this.describeValues()} (got ${describe(v)})` });
    return undefined;
  }
  describeValues(): string {
    return [...this.byValue.entries()].map(([v, n]) => `${n}=${v}`).join(', ');
  }
  encode(v: N, o: EncodeOptions): unknown { return o.enums === 'name' ? v : this.values[v]; }
  jsonSchema(refs: SchemaRefs): object { return refs.refEnum(this); }
}

class ListTy<T, I> extends Ty<T[], (I | null)[]> {
  readonly label: string;
  constructor(readonly item: Ty<T, I>) {
    super();
    this.label = `ArrayOf${item.label}`;
  }
  parse(v: unknown, path: string, issues: Issue[]): T[] | undefined {
    if (!Array.isArray(v)) {
      issues.push({ path, message: `must be a list (got ${describe(v)})` });
      return undefined;
    }
    const out: T[] = [];
    let ok = true;
    for (let i = 0; i < v.length; i++) {
      const p = `${path}[${i}]`;
      if (v[i] === null || v[i] === undefined) {
        issues.push({ path: p, message: 'is empty (null)' });
        ok = false;
        continue;
      }
      const r = this.item.parse(v[i], p, issues);
      if (r === undefined) ok = false;
      else out.push(r);
    }
    return ok ? out : undefined;
  }
  encode(v: T[], o: EncodeOptions): unknown { return v.map((x) => this.item.encode(x, o)); }
  jsonSchema(refs: SchemaRefs): object { return { type: 'array', items: this.item.jsonSchema(refs) }; }
}

// ---------------------------------------------------------------------------------------------
// Fields and records
// ---------------------------------------------------------------------------------------------

export type Presence = 'opt' | 'req' | 'def';

export class Field<T, I, P extends Presence = 'opt'> {
  constructor(readonly ty: Ty<T, I>, readonly presence: P, readonly dflt?: T, readonly doc?: string) {}
  /** The contract marks the field required. */
  req(): Field<T, I, 'req'> { return new Field(this.ty, 'req', undefined, this.doc); }
  /** The contract's default, applied when the field is omitted (or null). */
  def(v: T): Field<T, I, 'def'> { return new Field(this.ty, 'def', v, this.doc); }
  describe(doc: string): Field<T, I, P> { return new Field(this.ty, this.presence, this.dflt, doc); }
  /**
   * Restricts a numeric field to [min, max] (inclusive; ints are bounded to whole numbers inside
   * the type's own range). Validation reports a value outside with the field's path; JSON Schema
   * (and so OpenAPI) shows the bounds as minimum/maximum, and {@link describeType} hands them to
   * the XSD writer. The contract's default must lie inside.
   */
  range(min: number, max: number): Field<T, I, P> {
    const ty = this.ty.withRange(min, max);
    const b = ty.bounds;
    if (this.presence === 'def' && typeof this.dflt === 'number' && b && ((b.min !== undefined && this.dflt < b.min) || (b.max !== undefined && this.dflt > b.max))) {
      throw new EngineError('Internal', `default ${this.dflt} outside the range ${min}..${max}`);
    }
    return new Field(ty, this.presence, this.dflt, this.doc);
  }
}

export type AnyField = Field<any, any, Presence>;
export type Shape = Record<string, AnyField>;

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type FieldT<F> = F extends Field<infer T, any, any> ? T : never;
type FieldI<F> = F extends Field<any, infer I, any> ? I : never;

/** The parsed form: required and defaulted fields are present; the rest optional. */
export type Out<S extends Shape> = Simplify<
  { [K in keyof S as S[K] extends Field<any, any, 'opt'> ? never : K]: FieldT<S[K]> } &
  { [K in keyof S as S[K] extends Field<any, any, 'opt'> ? K : never]?: FieldT<S[K]> }
>;

/** What a caller may pass: everything optional (validation reports missing required fields), enums by name or number. */
export type In<S extends Shape> = Simplify<{ [K in keyof S]?: FieldI<S[K]> | null }>;

export class RecordDef<S extends Shape> extends Ty<Out<S>, In<S>> {
  readonly label: string;
  private readonly lower = new Map<string, string>();
  constructor(readonly name: string, readonly fields: S, readonly base?: RecordDef<any>, readonly doc?: string) {
    super();
    this.label = name;
    for (const k of Object.keys(fields)) this.lower.set(k.toLowerCase(), k);
  }

  parse(v: unknown, path: string, issues: Issue[]): Out<S> | undefined {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) {
      issues.push({ path: path || this.name, message: `must be a ${this.name} object (got ${describe(v)})` });
      return undefined;
    }
    // Case-insensitive binding; unknown properties are ignored.
    const given = new Map<string, unknown>();
    for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
      const canon = this.lower.get(k.toLowerCase());
      if (canon !== undefined && !given.has(canon)) given.set(canon, val);
    }
    const out: Record<string, unknown> = {};
    const before = issues.length;
    for (const [k, f] of Object.entries(this.fields)) {
      const p = path ? `${path}.${k}` : k;
      const raw = given.get(k);
      if (raw === undefined || raw === null) {
        if (f.presence === 'req') issues.push({ path: p, message: 'is required' });
        else if (f.presence === 'def') out[k] = cloneDefault(f.dflt);
        continue;
      }
      const r = f.ty.parse(raw, p, issues);
      if (r !== undefined) out[k] = r;
    }
    return issues.length === before ? (out as Out<S>) : undefined;
  }

  /** Validates input; returns the parsed record or the list of issues. */
  safeParse(v: unknown, path = ''): { ok: true; value: Out<S> } | { ok: false; issues: Issue[] } {
    // a record this schema validated a moment ago (the service validates, then its handler's
    // operation would again) is not walked twice
    if (path === '' && typeof v === 'object' && v !== null && this.validated.has(v)) return { ok: true, value: v as Out<S> };
    const issues: Issue[] = [];
    const value = this.parse(v, path, issues);
    if (value !== undefined && issues.length === 0) {
      if (path === '') this.validated.add(value);
      return { ok: true, value };
    }
    return { ok: false, issues };
  }

  /** The values this schema's safeParse returned at the top level: passed to it again, they are known valid. */
  private readonly validated = new WeakSet<object>();

  /** A record of this type with every default applied (required fields left out). */
  defaults(): Out<S> {
    const out: Record<string, unknown> = {};
    for (const [k, f] of Object.entries(this.fields)) if (f.presence === 'def') out[k] = cloneDefault(f.dflt);
    return out as Out<S>;
  }

  /** JSON encoding for output (enums as integers unless asked for names; undefined fields omitted). */
  encode(v: Out<S>, o: EncodeOptions = {}): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, f] of Object.entries(this.fields)) {
      const x = (v as Record<string, unknown>)[k];
      if (x === undefined || x === null) continue;
      out[k] = f.ty.encode(x, o);
    }
    return out;
  }

  jsonSchema(refs: SchemaRefs): object { return refs.ref(this); }
}

function cloneDefault<T>(v: T): T {
  return v !== null && typeof v === 'object' ? structuredClone(v) : v;
}

// ---------------------------------------------------------------------------------------------
// Builders
// ---------------------------------------------------------------------------------------------

const STRING = new StringTy();
const INT = new IntTy('int', -2147483648, 2147483647);
const LONG = new IntTy('long', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
const UBYTE = new IntTy('unsignedByte', 0, 255);
const DOUBLE = new DoubleTy();
const BOOL = new BoolTy();
const DATE = new DateTy();

export const t = {
  string: () => new Field(STRING, 'opt'),
  int: () => new Field(INT, 'opt'),
  long: () => new Field(LONG, 'opt'),
  unsignedByte: () => new Field(UBYTE, 'opt'),
  double: () => new Field(DOUBLE, 'opt'),
  boolean: () => new Field(BOOL, 'opt'),
  dateTime: () => new Field(DATE, 'opt'),
  enum: <N extends string>(e: EnumDef<N>) => new Field(e, 'opt'),
  record: <S extends Shape>(r: RecordDef<S>) => new Field(r, 'opt'),
  list: <T, I>(item: Ty<T, I> | RecordDef<any>) => new Field(new ListTy(item as Ty<T, I>), 'opt'),
};

export function defineEnum<N extends string>(name: string, values: Record<N, number>, aliases?: Record<string, NoInfer<N>>): EnumDef<N> {
  return new EnumDef(name, values, aliases);
}

export function defineRecord<S extends Shape>(name: string, fields: S, doc?: string): RecordDef<S> {
  return new RecordDef(name, fields, undefined, doc);
}

/** A record extending another (XSD extension): the base's fields come first. */
export function extendRecord<B extends Shape, S extends Shape>(base: RecordDef<B>, name: string, fields: S, doc?: string): RecordDef<B & S> {
  return new RecordDef(name, { ...base.fields, ...fields } as B & S, base, doc);
}

export interface TypeDescription {
  xsd?: XsdType;
  list?: Ty<any, any>;
  record?: RecordDef<any>;
  enumDef?: EnumDef<any>;
  /** Inclusive bounds of a numeric field restricted with {@link Field.range} (XSD minInclusive/maxInclusive). */
  min?: number;
  max?: number;
}

export type XsdOf = (ty: Ty<any, any>) => TypeDescription;

/** Structural introspection used by the JSON Schema / XSD writers. */
export function describeType(ty: Ty<any, any>): TypeDescription {
  if (ty instanceof RecordDef) return { record: ty };
  if (ty instanceof EnumDef) return { enumDef: ty };
  if (ty instanceof ListTy) return { list: ty.item };
  const out: TypeDescription = { xsd: ty.label as XsdType };
  const b = ty.bounds;
  if (b && ty !== INT && ty !== LONG && ty !== UBYTE) {
    if (b.min !== undefined) out.min = b.min;
    if (b.max !== undefined) out.max = b.max;
  }
  return out;
}
