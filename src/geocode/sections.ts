/**
 * The geocoder's persistence helpers: a named set of typed arrays (what the builder produces and
 * `toSections` writes), a typed reader over it, and UTF-8 string pools (one byte blob + offsets)
 * that decode lazily, so opening an index never parses anything.
 */
import type { TypedArray } from '../core/binfile.js';
import { EngineError } from '../core/errors.js';
import { utf8Decode, utf8Encode } from './text.js';

export type Sections = Map<string, TypedArray>;

type Ctor<T extends TypedArray> = { new (b: ArrayBufferLike, o: number, l: number): T; BYTES_PER_ELEMENT: number };

/** Typed access to sections by name (from a builder's map or from a BinFile). */
export interface SectionReader {
  get<T extends TypedArray>(name: string, ctor: Ctor<T>): T;
}

export function mapReader(m: Sections): SectionReader {
  return {
    get<T extends TypedArray>(name: string, ctor: Ctor<T>): T {
      const a = m.get(name);
      if (!a) throw new EngineError('DatasetFormat', `Geocode index has no section "${name}".`);
      if (!(a instanceof (ctor as any))) throw new EngineError('DatasetFormat', `Geocode section "${name}" has another element type.`);
      return a as T;
    },
  };
}

/** Deduplicating string pool builder. Id 0 is always the empty string. */
export class StringPoolBuilder {
  private readonly ids = new Map<string, number>();
  readonly list: string[] = [];
  constructor() {
    this.add('');
  }
  add(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.list.length;
      this.ids.set(s, id);
      this.list.push(s);
    }
    return id;
  }
  has(s: string): boolean {
    return this.ids.has(s);
  }
  write(m: Sections, name: string): void {
    const parts = this.list.map((s) => utf8Encode(s));
    const offs = new Uint32Array(parts.length + 1);
    let total = 0;
    for (let i = 0; i < parts.length; i++) {
      offs[i] = total;
      total += parts[i].length;
    }
    offs[parts.length] = total;
    const bytes = new Uint8Array(total);
    for (let i = 0; i < parts.length; i++) bytes.set(parts[i], offs[i]);
    m.set(`${name}.b`, bytes);
    m.set(`${name}.o`, offs);
  }
}

/** Read side of a string pool: decodes on first access and caches. */
export class StringPool {
  private readonly bytes: Uint8Array;
  private readonly offs: Uint32Array;
  private readonly cache: (string | undefined)[];
  constructor(r: SectionReader, name: string) {
    this.bytes = r.get(`${name}.b`, Uint8Array);
    this.offs = r.get(`${name}.o`, Uint32Array);
    this.cache = new Array(this.offs.length - 1);
  }
  get size(): number {
    return this.offs.length - 1;
  }
  get(i: number): string {
    let s = this.cache[i];
    if (s === undefined) {
      s = utf8Decode(this.bytes, this.offs[i], this.offs[i + 1]);
      this.cache[i] = s;
    }
    return s;
  }
  /** Estimated bytes of the pool. */
  get byteLength(): number {
    return this.bytes.byteLength + this.offs.byteLength;
  }
}
