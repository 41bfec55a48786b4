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
 *   24  u32    header checksum: {@link checksum32} of the section table seeded with that of bytes 0..23 (v2)
 *   28  u32    reserved (0)
 *   32  section table: per section 56 bytes:
 *         u8[32] name (ASCII, zero padded), u32 dtype, u32 checksum of the body (v2), f64 byteOffset, f64 byteLength
 *   then the section bodies, each 8-byte aligned; padding bytes are zero.
 *
 * Every byte is covered (v2): the header and table by the header checksum, bodies by their own
 * checksums, padding by being zero. Version 1 files (no checksums, zeros in those fields) still
 * open, with structural checks only.
 *
 * Sections are zero-copy views onto the buffer, so a SharedArrayBuffer loaded once can be handed
 * to worker threads and reopened there with {@link BinFile.from}: the bodies are verified once
 * per buffer object and thread (see {@link BinFileOptions.verify}).
 */
import { closeSync, fstatSync, openSync, readSync, writeFileSync, renameSync } from 'node:fs';
import { EngineError, isEngineError } from './errors.js';

export const CONTAINER_MAGIC = 0x54494b44; // "DKIT" little-endian
export const CONTAINER_VERSION = 2;
/** The last version without checksums; still read, unverified. */
const CONTAINER_VERSION_UNCHECKED = 1;
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

const MIX = 0x9e3779b1 | 0;

/**
 * The section checksum: four interleaved lanes over little-endian 32-bit words, each step
 * `h = imul(h ^ word, 0x9e3779b1); h ^= h >>> 15` (a bijection of the lane state for a fixed
 * word, so a change confined to one word is always detected; the shift carries high-bit changes
 * down, so single-byte changes in two words cannot cancel), lanes folded with rotations, then
 * the 0–3 trailing bytes and the length. About 4 GB/s once optimised; Porto (39 MiB): ~10 ms.
 * `offset` must be a multiple of 4. Not cryptographic: it detects damage, not tampering.
 */
export function checksum32(buf: ArrayBufferLike, offset: number, length: number, seed = 0): number {
  const nw = length >>> 2;
  const w = new Int32Array(buf, offset, nw);
  let a = (0x811c9dc5 ^ seed) | 0;
  let b = (0x050c5d1f + seed) | 0;
  let c = (0x1b873593 ^ seed) | 0;
  let d = (0x6b43a9b5 - seed) | 0;
  const end = nw - (nw & 3);
  let i = 0;
  for (; i < end; i += 4) {
    a = Math.imul(a ^ w[i], MIX); a ^= a >>> 15;
    b = Math.imul(b ^ w[i + 1], MIX); b ^= b >>> 15;
    c = Math.imul(c ^ w[i + 2], MIX); c ^= c >>> 15;
    d = Math.imul(d ^ w[i + 3], MIX); d ^= d >>> 15;
  }
  let h = (a + ((b << 7) | (b >>> 25)) + ((c << 13) | (c >>> 19)) + ((d << 19) | (d >>> 13))) | 0;
  for (; i < nw; i++) { h = Math.imul(h ^ w[i], MIX); h ^= h >>> 15; }
  if ((length & 3) !== 0) {
    const u8 = new Uint8Array(buf, offset + (nw << 2), length & 3);
    let t = 0;
    for (let k = 0; k < u8.length; k++) t |= u8[k] << (8 * k);
    h = Math.imul(h ^ t, MIX); h ^= h >>> 15;
  }
  h = Math.imul(h ^ length, MIX);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

/**
 * The structural-check helper of components opening their sections (one function, so one
 * optimised copy serves every array on a cold open): the first index whose value is ≥ `limit`
 * or, with `monotone`, that breaks "starts at 0 and never decreases"; -1 when there is none.
 */
export function firstBad(arr: Uint32Array, limit: number, monotone = false): number {
  if (monotone && arr.length > 0 && arr[0] !== 0) return 0;
  let prev = 0;
  for (let i = 0; i < arr.length; i++) {
    const v = arr[i];
    if (v >= limit || (monotone && v < prev)) return i;
    prev = v;
  }
  return -1;
}

/** The header checksum: bytes 0..23 then the section table. */
function headerChecksum(buf: ArrayBufferLike, tableEnd: number): number {
  return checksum32(buf, HEADER_BYTES, tableEnd - HEADER_BYTES, checksum32(buf, 0, 24));
}

/** Buffers whose section bodies this thread has verified (see {@link BinFileOptions.verify}). */
const verifiedBuffers = new WeakSet<object>();

/**
 * A file read on demand ({@link BinFile.openFile}): the buffer has the file's size, but a section's
 * bytes are read into it only when the section is first taken, then verified; `loaded` (one Int32
 * per section-table entry, on shared memory) says which are in. The file stays open (`fd`, one
 * per process, shared by its threads) so that a dataset rebuilt over the same path while a server
 * runs (a rename) leaves the opened one readable; before each read the descriptor's identity
 * (device, inode, size, mtime) is checked, so a file changed in place is refused, never read into
 * the old layout. A plain record, so it crosses to worker threads with the buffer ({@link adoptBackings}).
 */
export interface FileBacking {
  buffer: SharedArrayBuffer;
  /** The open descriptor, or -1 once closed ({@link closeBacking}): a later read opens the path again (same identity required). */
  fd: number;
  path: string;
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  /** Per section-table entry: 0 not read, 2 being read by one thread (the others wait), 1 read and verified. */
  loaded: Int32Array;
}

/** This thread's backed buffers (the file behind each, see {@link FileBacking}). */
const backings = new WeakMap<object, FileBacking>();

/** Closes a file read on demand once the thread that opened it drops its buffer (or at {@link closeBacking}). */
const closeWhenDropped = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    /* already closed */
  }
});

/**
 * Closes the file behind a buffer read on demand, in the thread that opened it, once no other
 * thread reads it (the owner's worker threads are gone): sections not read yet are then read by
 * opening the path again, which must still be the same file.
 */
export function closeBacking(buffer: ArrayBufferLike): void {
  const b = backings.get(buffer);
  if (!b || b.fd < 0) return;
  closeWhenDropped.unregister(b);
  const fd = b.fd;
  b.fd = -1;
  try {
    closeSync(fd);
  } catch {
    /* already closed */
  }
}

/**
 * Marks unread again every section of a file-backed buffer that a thread had begun reading and
 * never finished — for the owner of threads that are all gone (a pool closed while a thread read a
 * section), so that the next reader reads it at once instead of waiting to take it over.
 */
export function releaseUnfinishedReads(b: FileBacking): void {
  for (let i = 0; i < b.loaded.length; i++) {
    if (Atomics.compareExchange(b.loaded, i, 2, 0) === 2) Atomics.notify(b.loaded, i);
  }
}

/** How long a thread waits for another one reading the same section before looking again. */
const SECTION_WAIT_MS = 1000;
/** Looks after which a thread reads a section itself that another has been reading all along. */
const SECTION_TAKEOVER_WAITS = 30;

/** The file behind a buffer read on demand (to hand to worker threads with it), if any. */
export function backingOf(buffer: ArrayBufferLike): FileBacking | undefined {
  return backings.get(buffer);
}

/** Registers backings received from another thread, so that {@link BinFile.from} of their buffers reads on demand too. */
export function adoptBackings(list: unknown): void {
  if (!Array.isArray(list)) return;
  for (const b of list as FileBacking[]) if (b && b.buffer instanceof SharedArrayBuffer && b.loaded instanceof Int32Array) backings.set(b.buffer, b);
}

/** Lengths of the arrays {@link onDemand} left unread, by object and property. */
const pendingLengths = new WeakMap<object, Map<string, number>>();

/**
 * Makes `obj[key]` an array read from its section only when first used: a getter that calls
 * `load` (a {@link BinFile.get}) and puts the array in its place as a plain property. `length` is
 * the array's length from the section table ({@link BinFile.elementCount}); {@link lengthOf}
 * answers it meanwhile, so that a component checks its shape without reading the data. For the
 * parts of a component only some operations use (the hierarchy's unpacking data: a dispatch or a
 * matrix never unpacks a path).
 */
export function onDemand<T extends object>(obj: T, key: keyof T & string, length: number, load: () => { length: number }): void {
  let lengths = pendingLengths.get(obj);
  if (!lengths) pendingLengths.set(obj, (lengths = new Map()));
  lengths.set(key, length);
  Object.defineProperty(obj, key, {
    configurable: true,
    enumerable: true,
    get(): unknown {
      const v = load();
      Object.defineProperty(obj, key, { value: v, configurable: true, enumerable: true, writable: false });
      pendingLengths.get(obj)?.delete(key);
      return v;
    },
  });
}

/** The length of `obj[key]` if {@link onDemand} left it unread, else undefined. */
export function pendingLength(obj: object, key: string): number | undefined {
  return pendingLengths.get(obj)?.get(key);
}

/** `obj[key].length`, without reading an array {@link onDemand} left unread. */
export function lengthOf(obj: object, key: string): number {
  return pendingLengths.get(obj)?.get(key) ?? (obj as Record<string, { length: number }>)[key].length;
}

export interface BinFileOptions {
  /** A file name, used only in error messages. */
  source?: string;
  /**
   * Verify the section checksums: `'once'` (default) unless this thread already verified this
   * buffer object (a worker reopening the shared dataset pays it once), `true` always, `false`
   * never (the caller trusts the buffer). The header, section table and padding are always checked.
   */
  verify?: boolean | 'once';
}

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
      dv.setUint32(e + NAME_BYTES + 4, checksum32(buf, off, s.bytes.byteLength), true);
      off = align8(off + s.bytes.byteLength);
    });
    dv.setUint32(24, headerChecksum(buf, HEADER_BYTES + ENTRY_BYTES * this.sections.length), true);
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

interface Entry { dtype: number; offset: number; length: number; checksum: number; index: number; padEnd: number }

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
 * with `details: { file, section?, offset? }`. Then (container v2) the header checksum, zero
 * padding, and — unless `verify` says otherwise — every section body's checksum (one pass over
 * the file, ~10 ms on Porto's 39 MiB); a mismatch names the section.
 */
export class BinFile {
  private readonly entries = new Map<string, Entry>();
  readonly formatTag: number;
  readonly formatVersion: number;
  /** Container version of the file (1: no checksums). */
  readonly containerVersion: number;
  /** True when the section checksums were verified (by this open or an earlier one of the same buffer in this thread). */
  readonly verified: boolean;

  private constructor(readonly buffer: ArrayBufferLike, readonly source: string | undefined, verify: boolean | 'once') {
    const size = buffer.byteLength;
    if (size < HEADER_BYTES) throw this.error(`the file is too small to be a dispatchkit dataset (${size} bytes; the header alone is ${HEADER_BYTES})`, { offset: 0 });
    const dv = new DataView(buffer);
    if (dv.getUint32(0, true) !== CONTAINER_MAGIC) throw this.error('Not a dispatchkit dataset (bad magic)', { offset: 0 });
    const v = dv.getUint16(4, true);
    if (v !== CONTAINER_VERSION && v !== CONTAINER_VERSION_UNCHECKED) throw this.error(`container format v${v} cannot be read by this version (expects v${CONTAINER_VERSION}); rebuild the dataset`, { offset: 4 });
    this.containerVersion = v;
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
      const checksum = dv.getUint32(e + NAME_BYTES + 4, true);
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
      this.entries.set(name, { dtype, offset, length, checksum, index: i, padEnd: size });
    }
    let last: Entry | null = null;
    for (const e of this.entries.values()) {
      if (last) last.padEnd = e.offset;
      last = e;
    }
    this.backing = backings.get(buffer) ?? null;
    this.verified = this.checkIntegrity(u8, dv, tableEnd, verify);
  }

  private readonly backing: FileBacking | null;

  /**
   * A dataset file read on demand: the header and section table now (checked), each section's
   * bytes when it is first taken ({@link get}, {@link json}) — read into a shared buffer of the
   * file's size, whose untouched pages take no memory — and verified then (checksum, zero padding
   * up to the next section). Worker threads given the buffer and its {@link FileBacking} read the
   * sections they take the same way; each is read once for all threads.
   */
  static openFile(path: string): BinFile {
    const fd = openSync(path, 'r');
    let backing: FileBacking;
    try {
      const st = fstatSync(fd);
      const size = st.size;
      const buffer = new SharedArrayBuffer(size);
      const u8 = new Uint8Array(buffer);
      readFully(fd, u8, 0, Math.min(size, HEADER_BYTES));
      const n = size >= HEADER_BYTES ? new DataView(buffer).getUint16(6, true) : 0;
      const tableEnd = Math.min(size, HEADER_BYTES + n * ENTRY_BYTES);
      if (n > 0) readFully(fd, u8, HEADER_BYTES, tableEnd - HEADER_BYTES);
      // and the padding up to the first section, checked with the table (the constructor checks the offset itself)
      const first = tableEnd === HEADER_BYTES + n * ENTRY_BYTES && n > 0 ? new DataView(buffer).getFloat64(HEADER_BYTES + NAME_BYTES + 8, true) : tableEnd;
      if (Number.isInteger(first) && first > tableEnd && first <= size) readFully(fd, u8, tableEnd, first - tableEnd);
      backing = { buffer, fd, path, dev: st.dev, ino: st.ino, size, mtimeMs: st.mtimeMs, loaded: new Int32Array(new SharedArrayBuffer(4 * Math.max(1, n))) };
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    backings.set(backing.buffer, backing);
    let f: BinFile;
    try {
      f = new BinFile(backing.buffer, path, true);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    closeWhenDropped.register(backing.buffer, fd, backing);
    return f;
  }

  /**
   * Reads a section of a file-backed buffer if no thread has yet (see {@link openFile}): one thread
   * reads and verifies it (the flag goes 0 → 2 → 1), the others wait for it; a failed read puts
   * the flag back to 0 and throws, so no thread ever sees a section marked read that was not.
   */
  private ensure(name: string, e: Entry): void {
    const b = this.backing;
    if (b === null) return;
    const flags = b.loaded;
    for (let waits = 0; ; waits++) {
      const state = Atomics.compareExchange(flags, e.index, 0, 2);
      if (state === 1) return;
      if (state === 0) break;
      // another thread is reading it; one that died reading it (never in the engine's own use) is taken over after a while
      if (waits === SECTION_TAKEOVER_WAITS) break;
      Atomics.wait(flags, e.index, 2, SECTION_WAIT_MS);
    }
    try {
      this.readSection(b, name, e);
    } catch (err) {
      Atomics.store(flags, e.index, 0);
      Atomics.notify(flags, e.index);
      throw err;
    }
    Atomics.store(flags, e.index, 1);
    Atomics.notify(flags, e.index);
  }

  /** {@link ensure}'s read: the file's identity, the bytes up to the next section, padding and checksum. */
  private readSection(b: FileBacking, name: string, e: Entry): void {
    const own = b.fd < 0;
    let fd = b.fd;
    try {
      if (own) fd = openSync(b.path, 'r');
      const st = fstatSync(fd);
      if (st.dev !== b.dev || st.ino !== b.ino || st.size !== b.size || st.mtimeMs !== b.mtimeMs) {
        // (not ctime: the opened file's changes when another is renamed over its path)
        throw this.error(`section "${name}" cannot be read: the file changed on disk since it was opened; reopen the dataset`, { section: name });
      }
      readFully(fd, new Uint8Array(this.buffer), e.offset, e.padEnd - e.offset);
    } catch (err) {
      if (isEngineError(err)) throw err;
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new EngineError('InvalidInput', `Dataset file "${b.path}": section "${name}" cannot be read (${code}); reopen the dataset.`, { path: 'dataset', details: { file: b.path, section: name }, cause: err });
    } finally {
      if (own && fd >= 0) closeSync(fd);
    }
    if (this.containerVersion !== CONTAINER_VERSION_UNCHECKED) {
      this.checkZeros(new Uint8Array(this.buffer), e.offset + e.length, e.padEnd, `section "${name}"`, name);
      this.checkBody(name, e);
    }
  }

  /** Padding bytes [from, to) must be zero. */
  private checkZeros(u8: Uint8Array, from: number, to: number, after: string, section?: string): void {
    for (let at = from; at < to; at++) if (u8[at] !== 0) throw this.error(`damaged padding after ${after} (a non-zero byte)`, { ...(section ? { section } : {}), offset: at });
  }

  /** A section body's checksum must match its table entry's. */
  private checkBody(name: string, e: Entry): void {
    const got = checksum32(this.buffer, e.offset, e.length);
    if (got !== e.checksum) throw this.error(`section "${name}" is damaged (checksum ${got.toString(16)}, expected ${e.checksum.toString(16)})`, { section: name, offset: e.offset });
  }

  /** Sections read so far of a file read on demand (all of them for a buffer given whole), bytes. */
  loadedBytes(): number {
    let sum = 0;
    for (const e of this.entries.values()) if (this.backing === null || Atomics.load(this.backing.loaded, e.index) === 1) sum += e.length;
    return sum;
  }

  /**
   * v2: header checksum, reserved and padding bytes zero, then the bodies' checksums (per
   * `verify`). v1: the fields v2 uses must be zero (so a v2 file whose version byte was damaged
   * is not read unverified). Returns whether the bodies are verified.
   */
  private checkIntegrity(u8: Uint8Array, dv: DataView, tableEnd: number, verify: boolean | 'once'): boolean {
    const size = u8.length;
    if (this.containerVersion === CONTAINER_VERSION_UNCHECKED) {
      let stray = dv.getUint32(24, true) !== 0 || dv.getUint32(28, true) !== 0;
      for (let e = HEADER_BYTES; e < tableEnd && !stray; e += ENTRY_BYTES) stray = dv.getUint32(e + NAME_BYTES + 4, true) !== 0;
      if (stray) throw this.error('damaged header: a container v1 file with checksum fields set', { offset: 4 });
      return false;
    }
    const stored = dv.getUint32(24, true);
    if (stored !== headerChecksum(this.buffer, tableEnd)) {
      throw this.error('the header or section table is damaged (checksum mismatch)', { offset: 24 });
    }
    if (dv.getUint32(28, true) !== 0) throw this.error('damaged header (reserved bytes are not zero)', { offset: 28 });
    // Padding: between the table and the first section, between sections, after the last.
    const first = this.entries.values().next().value;
    this.checkZeros(u8, tableEnd, first?.offset ?? size, 'the section table');
    // read on demand: the other padding and the bodies are checked as each section is read (ensure)
    if (this.backing !== null) return true;
    for (const [name, e] of this.entries) this.checkZeros(u8, e.offset + e.length, e.padEnd, `section "${name}"`);
    if (verify === false) return false;
    if (verify === 'once' && verifiedBuffers.has(this.buffer)) return true;
    for (const [name, e] of this.entries) this.checkBody(name, e);
    verifiedBuffers.add(this.buffer);
    return true;
  }

  /**
   * Opens a buffer; `opts` may be a file name (only used in error messages) or
   * {@link BinFileOptions} (`source`, `verify`).
   */
  static from(buffer: ArrayBufferLike, opts: string | BinFileOptions = {}): BinFile {
    const o = typeof opts === 'string' ? { source: opts } : opts;
    return new BinFile(buffer, o.source, o.verify ?? 'once');
  }

  /** Reads a file into a (by default shared) buffer and opens it, verifying its checksums. */
  static readFile(path: string, shared = true): BinFile {
    return new BinFile(readFileInto(path, shared), path, true);
  }

  /**
   * A `DatasetFormat` error about this file: "<file>: <what>." with `details.file`, and the
   * section and byte offset when given. Components use it for their own structural checks.
   */
  error(what: string, at: { section?: string; offset?: number } = {}, cause?: unknown): EngineError {
    // a worker thread reopening a buffer read on demand names its file too
    const source = this.source ?? this.backing?.path;
    const file = source === undefined ? 'Dataset' : `Dataset file "${source}"`;
    const where = at.offset === undefined ? '' : ` (at byte offset ${at.offset})`;
    return new EngineError('DatasetFormat', `${file}: ${what}${where}.`, { details: { file: source, ...at }, cause });
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

  /**
   * True when this file's sections are read when first taken (a file opened by path, in any
   * thread) and their checksums are verified then: a component may then leave the arrays it needs
   * only for some operations unread until one asks for them ({@link onDemand}).
   */
  get readsOnDemand(): boolean {
    return this.backing !== null && this.verified;
  }

  /** Elements of a section as `ctor` (from the section table: nothing is read), after checking its element type. */
  elementCount(name: string, ctor: { BYTES_PER_ELEMENT: number }): number {
    const e = this.entries.get(name);
    if (!e) throw this.error(`no section "${name}" (the file is damaged or was written by another version)`, { section: name });
    if (DTYPES[e.dtype] !== (ctor as any)) throw this.error(`section "${name}" has another element type than expected`, { section: name });
    return e.length / ctor.BYTES_PER_ELEMENT;
  }

  get<T extends TypedArray>(name: string, ctor: { new (b: ArrayBufferLike, o: number, l: number): T; BYTES_PER_ELEMENT: number }): T {
    const e = this.entries.get(name);
    if (!e) throw this.error(`no section "${name}" (the file is damaged or was written by another version)`, { section: name });
    if (DTYPES[e.dtype] !== (ctor as any)) throw this.error(`section "${name}" has another element type than expected`, { section: name });
    this.ensure(name, e);
    return new ctor(this.buffer, e.offset, e.length / ctor.BYTES_PER_ELEMENT);
  }

  json<T = unknown>(name: string): T {
    const e = this.entries.get(name);
    if (!e || e.dtype !== DTYPE_JSON) throw this.error(`no JSON section "${name}"`, { section: name });
    this.ensure(name, e);
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

/** Reads `len` bytes at file position `at` into `u8` at the same offset (short reads repeated; a short file stops it). */
function readFully(fd: number, u8: Uint8Array, at: number, len: number): void {
  let off = 0;
  while (off < len) {
    const n = readSync(fd, u8, at + off, Math.min(len - off, 1 << 30), at + off);
    if (n <= 0) break;
    off += n;
  }
}

/** Reads a whole file straight into a (Shared)ArrayBuffer, without an intermediate copy. */
export function readFileInto(path: string, shared = true): ArrayBufferLike {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const buf = shared ? new SharedArrayBuffer(size) : new ArrayBuffer(size);
    readFully(fd, new Uint8Array(buf), 0, size);
    return buf;
  } finally {
    closeSync(fd);
  }
}
