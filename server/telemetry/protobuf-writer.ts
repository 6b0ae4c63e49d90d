// Protobuf's wire format, as the OTLP encoder (otlp-protobuf.ts) writes it:
// varints, tags, length-delimited strings and messages, fixed-width numbers,
// into one growing buffer. Nothing here knows a message; the encoder names
// the fields.

export const LEN = 2;
const VARINT = 0;
const I64 = 1;
const I32 = 5;
const TWO_32 = 2 ** 32;

// Hex digit values by character code (ids arrive as lower- or upper-case hex).
const HEX = new Uint8Array(128);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[97 + i] = HEX[65 + i] = 10 + i;

export const varintSize = (v: number) => {
  let size = 1;
  for (; v > 0x7f; v = Math.floor(v / 128)) size++;
  return size;
};

// Byte by byte in JavaScript where that beats a call into Buffer's native
// writers (short ASCII strings, ids, fixed-width numbers): most of a span.
export class Writer {
  buf: Buffer;
  pos: number;

  /** `reserve` bytes are left free at the start, for the headers written last; `reuse`, a buffer done with. */
  constructor(capacity: number, reserve = 0, reuse?: Buffer) {
    this.buf = reuse && reuse.length >= capacity + reserve ? reuse : Buffer.allocUnsafe(capacity + reserve);
    this.pos = reserve;
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  varint(v: number): void {
    this.ensure(10);
    if (v < 0 || v >= TWO_32) return this.bigVarint(BigInt.asUintN(64, BigInt(v)));
    while (v > 0x7f) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.pos++] = v;
  }

  private bigVarint(v: bigint): void {
    while (v > 0x7fn) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
  }

  tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }

  string(field: number, s: string): void {
    this.tag(field, LEN);
    const n = s.length;
    if (n < 0x80) {
      this.ensure(1 + n);
      const b = this.buf;
      let p = this.pos + 1;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) break;
        b[p++] = c;
      }
      if (i === n) {
        b[this.pos] = n;
        this.pos = p;
        return;
      }
    }
    const bytes = Buffer.byteLength(s, 'utf8');
    this.varint(bytes);
    this.ensure(bytes);
    this.pos += this.buf.write(s, this.pos, bytes, 'utf8');
  }

  hexBytes(field: number, hex: string): void {
    const n = hex.length >>> 1;
    this.tag(field, LEN);
    this.varint(n);
    this.ensure(n);
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < hex.length; i += 2) b[p++] = (HEX[hex.charCodeAt(i) & 0x7f]! << 4) | HEX[hex.charCodeAt(i + 1) & 0x7f]!;
    this.pos = p;
  }

  private u32(v: number): void {
    const b = this.buf;
    const p = this.pos;
    b[p] = v;
    b[p + 1] = v >>> 8;
    b[p + 2] = v >>> 16;
    b[p + 3] = v >>> 24;
    this.pos = p + 4;
  }

  /** Milliseconds since the epoch as fixed64 nanoseconds, in exact integer steps (a double holds 2^53). */
  nanos(field: number, ms: number): void {
    let whole = Math.floor(ms);
    let fraction = Math.round((ms - whole) * 1e6);
    if (fraction >= 1e6) {
      whole++;
      fraction -= 1e6;
    }
    const high = Math.floor(whole / TWO_32);
    const low = (whole - high * TWO_32) * 1e6 + fraction;
    const carry = Math.floor(low / TWO_32);
    this.tag(field, I64);
    this.ensure(8);
    this.u32(low - carry * TWO_32);
    this.u32(high * 1e6 + carry);
  }

  fixed32(field: number, v: number): void {
    this.tag(field, I32);
    this.ensure(4);
    this.u32(v >>> 0);
  }

  double(field: number, v: number): void {
    this.tag(field, I64);
    this.ensure(8);
    this.buf.writeDoubleLE(v, this.pos);
    this.pos += 8;
  }

  uint(field: number, v: number): void {
    this.tag(field, VARINT);
    this.varint(v);
  }

  /** Opens a length-delimited message: one byte kept for its length, widened in close if needed. */
  open(field: number): number {
    this.tag(field, LEN);
    this.ensure(1);
    return this.pos++;
  }

  close(at: number): void {
    const length = this.pos - at - 1;
    if (length < 0x80) {
      this.buf[at] = length;
      return;
    }
    const size = varintSize(length);
    this.ensure(size - 1);
    this.buf.copyWithin(at + size, at + 1, this.pos);
    this.pos += size - 1;
    const end = this.pos;
    this.pos = at;
    this.varint(length);
    this.pos = end;
  }

  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }
}
