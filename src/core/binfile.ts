/**
 * A single-buffer container of named typed-array sections (the dataset file format).
 *
 * Layout (little-endian):
 *   0   u8[4]  magic "DKIT"
 *   4   u16    container version (CONTAINER_VERSION)
 *   6   u16    number of sections
 *   8   u32    user format tag (e.g. dataset kind)
 *   12  u32    user format version
 *   16  f64    total byte length
 *   24  u8[8]  reserved
 *   32  section table: per section 56 bytes:
 *         u8[32] name (ASCII, zero padded), u32 dtype, u32 reserved, f64 byteOffset, f64 byteLength
 *   then the section bodies, each 8-byte aligned.
 *
 * Sections are zero-copy views onto the buffer, so a SharedArrayBuffer loaded once can be handed
 * to worker threads and reopened there with {@link BinFile.from} at no parsing cost.
 */
import { closeSync, fstatSync, openSync, readSync, writeFileSync, renameSync } from 'node:fs';
import { EngineError } from './errors.js';

export const CONTAINER_MAGIC = 0x54494b44; // "DKIT" little-endian
export const CONTAINER_VERSION = 1;
const HEADER_BYTES = 32;
const ENTRY_BYTES = 56; // name[32] + dtype u32 + reserved u32 + offset f64 + length f64
const NAME_BYTES = 32;

export type TypedArray =
  | Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array | Float32Array | Float64Array;

const DTYPES = [
  null, Uint8Array, Int8Array, Uint16Array, Int16Array, Uint32Array, Int32Array, Float32Array, Float64Array,
] as const;
const DTYPE_JSON = 9;

function dtypeOf(a: TypedArray): number {
  for (let i = 1; i < DTYPES.length; i++) if (a instanceof (DTYPES[i] as any)) return i;
  throw new EngineError('Internal', 'Unsupported typed array type in BinWriter');
}

const align8 = (n: number): number => (n + 7) & ~7;

/** Collects sections and produces one buffer. */
export class BinWriter {
  private sections: { name: string; dtype: number; bytes: Uint8Array }[] = [];
  constructor(private readonly formatTag: number, private readonly formatVersion: number) {}

  add(name: string, arr: TypedArray): this {
    this.check(name);
    this.sections.push({ name, dtype: dtypeOf(arr), bytes: new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength) });
    return this;
  }

  addJson(name: string, value: unknown): this {
    this.check(name);
    this.sections.push({ name, dtype: DTYPE_JSON, bytes: new TextEncoder().encode(JSON.stringify(value)) });
    return this;
  }

  private check(name: string): void {
    if (name.length === 0 || name.length > NAME_BYTES || !/^[\x20-\x7e]+$/.test(name)) {
      throw new EngineError('Internal', `Bad section name "${name}"`);
    }
    if (this.sections.some((s) => s.name === name)) throw new EngineError('Internal', `Duplicate section "${name}"`);
  }

  /** Total size in bytes of the buffer {@link toBuffer} will produce. */
  byteLength(): number {
    let off = align8(HEADER_BYTES + ENTRY_BYTES * this.sections.length);
    for (const s of this.sections) off = align8(off + s.bytes.byteLength);
    return off;
  }

  toBuffer(shared = false): ArrayBufferLike {
    const total = this.byteLength();
    const buf = shared ? new SharedArrayBuffer(total) : new ArrayBuffer(total);
    const dv = new DataView(buf);
    const u8 = new Uint8Array(buf);
    dv.setUint32(0, CONTAINER_MAGIC, true);
    dv.setUint16(4, CONTAINER_VERSION, true);
    dv.setUint16(6, this.sections.length, true);
    dv.setUint32(8, this.formatTag, true);
    dv.setUint32(12, this.formatVersion, true);
    dv.setFloat64(16, total, true);
    let off = align8(HEADER_BYTES + ENTRY_BYTES * this.sections.length);
    this.sections.forEach((s, i) => {
      const e = HEADER_BYTES + i * ENTRY_BYTES;
      for (let k = 0; k < s.name.length; k++) u8[e + k] = s.name.charCodeAt(k);
      dv.setUint32(e + NAME_BYTES, s.dtype, true);
      dv.setFloat64(e + NAME_BYTES + 8, off, true);
      dv.setFloat64(e + NAME_BYTES + 16, s.bytes.byteLength, true);
      u8.set(s.bytes, off);
      off = align8(off + s.bytes.byteLength);
    });
    return buf;
  }

  /** Writes atomically (temp file + rename). */
  writeFile(path: string): number {
    const buf = this.toBuffer();
    const tmp = `${path}.tmp-${process.pid}`;
    writeFileSync(tmp, new Uint8Array(buf));
    renameSync(tmp, path);
    return buf.byteLength;
  }
}

interface Entry { dtype: number; offset: number; length: number }

/** Bytes per element of each dtype (JSON: 1). */
const DTYPE_BYTES = [0, 1, 1, 2, 2, 4, 4, 4, 8, 1];

/**
 * Read side: zero-copy views onto one buffer.
 *
 * Opening checks the structure, cheaply (O(number of sections), no pass over the data): magic,
 * container version, total length (so every truncation is caught), the section table lying
 * inside the file, and each section's name, type, alignment, bounds, element-size multiple and
 * order (sections follow the table in order and do not overlap). Every failure is a
 * `DatasetFormat` EngineError naming the file (when known), the section and the byte offset,
 * with `details: { file, section?, offset? }`. Section contents are not checked (no checksums).
 */
export class BinFile {
  private readonly entries = new Map<string, Entry>();
  readonly formatTag: number;
  readonly formatVersion: number;

  private constructor(readonly buffer: ArrayBufferLike, readonly source?: string) {
    const size = buffer.byteLength;
    if (size < HEADER_BYTES) throw this.error(`the file is too small to be a dispatchkit dataset (${size} bytes; the header alone is ${HEADER_BYTES})`, { offset: 0 });
    const dv = new DataView(buffer);
    if (dv.getUint32(0, true) !== CONTAINER_MAGIC) throw this.error('Not a dispatchkit dataset (bad magic)', { offset: 0 });
    const v = dv.getUint16(4, true);
    if (v !== CONTAINER_VERSION) throw this.error(`container format v${v} cannot be read by this version (expects v${CONTAINER_VERSION}); rebuild the dataset`, { offset: 4 });
    const n = dv.getUint16(6, true);
    this.formatTag = dv.getUint32(8, true);
    this.formatVersion = dv.getUint32(12, true);
    const total = dv.getFloat64(16, true);
    if (total !== size) {
      throw this.error(Number.isInteger(total) && total > size
        ? `truncated: the header says ${total} bytes, the file has ${size}`
        : `damaged header or trailing bytes: the file has ${size} bytes, its header says ${total}`, { offset: 16 });
    }
    const tableEnd = HEADER_BYTES + n * ENTRY_BYTES;
    if (tableEnd > size) throw this.error(`the section table (${n} entries, up to byte ${tableEnd}) runs past the end of the file (${size} bytes)`, { offset: 6 });
    const u8 = new Uint8Array(buffer);
    let prevEnd = tableEnd;
    for (let i = 0; i < n; i++) {
      const e = HEADER_BYTES + i * ENTRY_BYTES;
      let name = '';
      for (let k = 0; k < NAME_BYTES && u8[e + k] !== 0; k++) {
        const c = u8[e + k];
        if (c < 0x20 || c > 0x7e) throw this.error(`section table entry ${i} has a damaged name (byte ${c} in "${name}…")`, { offset: e + k });
        name += String.fromCharCode(c);
      }
      if (name === '') throw this.error(`section table entry ${i} has an empty name`, { offset: e });
      if (this.entries.has(name)) throw this.error(`section "${name}" appears twice in the section table`, { section: name, offset: e });
      const dtype = dv.getUint32(e + NAME_BYTES, true);
      const offset = dv.getFloat64(e + NAME_BYTES + 8, true);
      const length = dv.getFloat64(e + NAME_BYTES + 16, true);
      if (dtype < 1 || dtype > DTYPE_JSON) throw this.error(`section "${name}" has unknown element type ${dtype}`, { section: name, offset: e + NAME_BYTES });
      if (!Number.isInteger(offset) || offset < prevEnd || offset % 8 !== 0) {
        throw this.error(`section "${name}" starts at ${offset}, not at an 8-byte boundary after the section table and the previous section (byte ${prevEnd})`, { section: name, offset: e + NAME_BYTES + 8 });
      }
      if (!Number.isInteger(length) || length < 0 || length > size - offset) {
        throw this.error(`section "${name}" (${length} bytes at byte ${offset}) runs past the end of the file (${size} bytes)`, { section: name, offset: e + NAME_BYTES + 16 });
      }
      if (length % DTYPE_BYTES[dtype] !== 0) {
        throw this.error(`section "${name}" has ${length} bytes, not a multiple of its ${DTYPE_BYTES[dtype]}-byte elements`, { section: name, offset: e + NAME_BYTES + 16 });
      }
      prevEnd = offset + length;
      this.entries.set(name, { dtype, offset, length });
    }
  }

  /** Opens a buffer; `source` (a file name) is only used in error messages. */
  static from(buffer: ArrayBufferLike, source?: string): BinFile {
    return new BinFile(buffer, source);
  }

  /** Reads a file into a (by default shared) buffer and opens it. */
  static readFile(path: string, shared = true): BinFile {
    return new BinFile(readFileInto(path, shared), path);
  }

  /**
   * A `DatasetFormat` error about this file: "<file>: <what>." with `details.file`, and the
   * section and byte offset when given. Components use it for their own structural checks.
   */
  error(what: string, at: { section?: string; offset?: number } = {}, cause?: unknown): EngineError {
    const file = this.source === undefined ? 'Dataset' : `Dataset file "${this.source}"`;
    const where = at.offset === undefined ? '' : ` (at byte offset ${at.offset})`;
    return new EngineError('DatasetFormat', `${file}: ${what}${where}.`, { details: { file: this.source, ...at }, cause });
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  sectionBytes(name: string): number {
    return this.entries.get(name)?.length ?? 0;
  }

  get<T extends TypedArray>(name: string, ctor: { new (b: ArrayBufferLike, o: number, l: number): T; BYTES_PER_ELEMENT: number }): T {
    const e = this.entries.get(name);
    if (!e) throw this.error(`no section "${name}" (the file is damaged or was written by another version)`, { section: name });
    if (DTYPES[e.dtype] !== (ctor as any)) throw this.error(`section "${name}" has another element type than expected`, { section: name });
    return new ctor(this.buffer, e.offset, e.length / ctor.BYTES_PER_ELEMENT);
  }

  json<T = unknown>(name: string): T {
    const e = this.entries.get(name);
    if (!e || e.dtype !== DTYPE_JSON) throw this.error(`no JSON section "${name}"`, { section: name });
    // TextDecoder refuses views of SharedArrayBuffer: copy the (small) JSON bytes first.
    const bytes = new Uint8Array(e.length);
    bytes.set(new Uint8Array(this.buffer, e.offset, e.length));
    try {
      return JSON.parse(new TextDecoder().decode(bytes)) as T;
    } catch (err) {
      throw this.error(`JSON section "${name}" is damaged (${(err as Error).message})`, { section: name, offset: e.offset }, err);
    }
  }
}

/** Reads a whole file straight into a (Shared)ArrayBuffer, without an intermediate copy. */
export function readFileInto(path: string, shared = true): ArrayBufferLike {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const buf = shared ? new SharedArrayBuffer(size) : new ArrayBuffer(size);
    const u8 = new Uint8Array(buf);
    let off = 0;
    while (off < size) {
      const n = readSync(fd, u8, off, Math.min(size - off, 1 << 30), off);
      if (n <= 0) break;
      off += n;
    }
    return buf;
  } finally {
    closeSync(fd);
  }
}
