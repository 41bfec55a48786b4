/** A minimal protocol-buffers wire reader over a Uint8Array (only what OSM PBF needs). */
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
    let byte = b[this.pos++];
    let v = byte & 0x7f;
    if (byte < 0x80) return v;
    byte = b[this.pos++]; v |= (byte & 0x7f) << 7; if (byte < 0x80) return v;
    byte = b[this.pos++]; v |= (byte & 0x7f) << 14; if (byte < 0x80) return v;
    byte = b[this.pos++]; v |= (byte & 0x7f) << 21; if (byte < 0x80) return v;
    // Beyond 28 bits: continue with floating-point arithmetic (exact up to 2^53).
    let hi = v >>> 0;
    let mul = 268435456; // 2^28
    do {
      byte = b[this.pos++];
      hi += (byte & 0x7f) * mul;
      mul *= 128;
    } while (byte >= 0x80);
    // Negative int32/int64 values are encoded as 10-byte two's complement; fold into range.
    if (hi >= 9223372036854775808) hi -= 18446744073709551616;
    return hi;
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
    const len = this.varint();
    const s = this.pos;
    this.pos += len;
    return [s, this.pos];
  }

  skip(wireType: number): void {
    switch (wireType) {
      case 0: this.varint(); break;
      case 1: this.pos += 8; break;
      case 2: { const len = this.varint(); this.pos += len; break; }
      case 5: this.pos += 4; break;
      default: throw new Error(`Unsupported protobuf wire type ${wireType} at ${this.pos}`);
    }
  }
}
