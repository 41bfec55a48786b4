/**
 * A minimal protocol-buffers wire reader over a Uint8Array (only what OSM PBF needs).
 *
 * Malformed input (a varint or a length running past the end of the message, an over-long
 * varint, a negative length, a wire type that does not exist) throws {@link PbfFormatError}, an
 * `InvalidInput` EngineError carrying the byte offset within `buf`. The reader does not know
 * where `buf` came from: callers catch it and name the file and blob (see osm/pbf.ts).
 */
import { EngineError } from '../core/errors.js';

/** A malformed protobuf message; `offset` is relative to the reader's buffer. */
export class PbfFormatError extends EngineError {
  constructor(readonly what: string, readonly offset: number) {
    super('InvalidInput', `malformed protobuf data: ${what} at byte ${offset}`, { details: { offset } });
  }
}

export class PbfReader {
  pos: number;
  constructor(readonly buf: Uint8Array, start = 0, readonly end = buf.length) {
    this.pos = start;
  }

  /** Reads a field key; returns field number * 8 + wire type, or -1 at the end. */
  key(): number {
    return this.pos < this.end ? this.varint() : -1;
  }

  varint(): number {
    const b = this.buf;
    let p = this.pos;
    // Near the end of the message every byte is bounds-checked; elsewhere the first four bytes
    // cannot run past it, and varintTail checks the rest.
    if (this.end - p < 5) return this.varintTail(p, p, 0, 1);
    let byte = b[p++];
    let v = byte & 0x7f;
    if (byte < 0x80) { this.pos = p; return v; }
    byte = b[p++]; v |= (byte & 0x7f) << 7; if (byte < 0x80) { this.pos = p; return v; }
    byte = b[p++]; v |= (byte & 0x7f) << 14; if (byte < 0x80) { this.pos = p; return v; }
    byte = b[p++]; v |= (byte & 0x7f) << 21; if (byte < 0x80) { this.pos = p; return v; }
    return this.varintTail(this.pos, p, v >>> 0, 268435456);
  }

  /**
   * Reads the rest of the varint that starts at `start` from `p`, given the value `acc` of its bytes so far and the weight
   * `mul` of the next byte: floating-point arithmetic (exact up to 2^53), at most 10 bytes in
   * all, each byte checked against the end of the message.
   */
  private varintTail(start: number, p: number, acc: number, mul: number): number {
    const b = this.buf;
    let byte: number;
    do {
      if (p >= this.end) throw new PbfFormatError('varint runs past the end of its message', start);
      if (p - start >= 10) throw new PbfFormatError('varint longer than 10 bytes', start);
      byte = b[p++];
      acc += (byte & 0x7f) * mul;
      mul *= 128;
    } while (byte >= 0x80);
    this.pos = p;
    // Negative int32/int64 values are encoded as 10-byte two's complement; fold into range.
    if (acc >= 9223372036854775808) acc -= 18446744073709551616;
    return acc;
  }

  /** Zig-zag decoded signed varint (sint32/sint64). */
  svarint(): number {
    const n = this.varint();
    // For n < 2^31, bit tricks are exact; beyond, use arithmetic.
    if (n < 2147483648) return (n >>> 1) ^ -(n & 1);
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }

  /** Returns [start, end) of a length-delimited field and skips it. */
  bytes(): [number, number] {
    const at = this.pos;
    const len = this.varint();
    const s = this.pos;
    if (len < 0 || len > this.end - s) throw new PbfFormatError(`length ${len} runs past the end of its message`, at);
    this.pos += len;
    return [s, this.pos];
  }

  skip(wireType: number): void {
    const at = this.pos;
    switch (wireType) {
      case 0: this.varint(); return;
      case 1: this.pos += 8; break;
      case 2: this.bytes(); return;
      case 5: this.pos += 4; break;
      default: throw new PbfFormatError(`unknown or unsupported wire type ${wireType}`, at);
    }
    if (this.pos > this.end) throw new PbfFormatError('fixed-size field runs past the end of its message', at);
  }
}
