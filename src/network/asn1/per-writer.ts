import type { BitString } from './bit-string.ts';
import { PerError } from './per-reader.ts';

const K16 = 16384;
const utf8Encoder = new TextEncoder();

/**
 * Writes a PER encoding (X.691) bit by bit into a growing buffer. Like the reader, it aligns by itself
 * only in the general length determinant; the generator emits every other alignment.
 */
export class PerWriter {
  private buf: Uint8Array;
  /** Bits written. */
  pos = 0;
  private children: PerWriter[] = [];

  constructor(
    readonly aligned: boolean,
    capacity = 256,
    private readonly depth = 0,
  ) {
    this.buf = new Uint8Array(capacity);
  }

  private reserve(bits: number): void {
    const needed = (this.pos + bits + 7) >> 3;
    if (needed <= this.buf.length) return;
    const grown = new Uint8Array(Math.max(needed, this.buf.length * 2));
    grown.set(this.buf.subarray(0, (this.pos + 7) >> 3));
    this.buf = grown;
  }

  bit(value: boolean): void {
    this.reserve(1);
    if (value) this.buf[this.pos >> 3]! |= 0x80 >> (this.pos & 7);
    this.pos++;
  }

  /** An unsigned bit-field of n bits (n <= 52), most significant bit first. */
  bits(value: number, n: number): void {
    this.reserve(n);
    let pos = this.pos;
    let left = n;
    if (n > 32) {
      // The high part with arithmetic (beyond 32-bit integer operations), the low 32 bits below.
      const high = Math.floor(value / 2 ** 32);
      this.pos = pos;
      this.bits(high, n - 32);
      pos = this.pos;
      left = 32;
      value = value % 2 ** 32;
    }
    const buf = this.buf;
    while (left > 0) {
      const offset = pos & 7;
      const take = 8 - offset < left ? 8 - offset : left;
      const chunk = (value >>> (left - take)) & ((1 << take) - 1);
      buf[pos >> 3]! |= chunk << (8 - offset - take);
      pos += take;
      left -= take;
    }
    this.pos = pos;
  }

  align(): void {
    this.reserve(8);
    this.pos = (this.pos + 7) & ~7;
  }

  private check(value: number, lb: number, ub: number): void {
    if (!Number.isSafeInteger(value) || value < lb || value > ub)
      throw new PerError(`value ${value} outside ${lb}..${ub}`);
  }

  /** A constrained whole number in an n-bit field (X.691 10.5). */
  bitsInt(value: number, lb: number, ub: number, n: number): void {
    this.check(value, lb, ub);
    this.bits(value - lb, n);
  }

  /** A constrained whole number in k aligned octets (X.691 10.5.7.2, 10.5.7.3). */
  octetsInt(value: number, lb: number, ub: number, k: number): void {
    this.check(value, lb, ub);
    this.align();
    this.bits(value - lb, 8 * k);
  }

  /** The ALIGNED "indefinite length" constrained whole number (X.691 10.5.7.4). */
  lengthInt(value: number, lb: number, ub: number, n: number): void {
    this.check(value, lb, ub);
    const octets = octetsFor(value - lb);
    this.bits(octets - 1, n);
    this.align();
    this.bits(value - lb, 8 * octets);
  }

  /** A semi-constrained whole number (X.691 10.7). */
  semiInt(value: number, lb: number): void {
    this.check(value, lb, Number.MAX_SAFE_INTEGER);
    const octets = octetsFor(value - lb);
    this.generalLength(octets);
    if (this.aligned) this.align();
    this.bits(value - lb, 8 * octets);
  }

  /** An unconstrained whole number (X.691 10.8): two's complement in the fewest octets. */
  unconstrainedInt(value: number): void {
    this.check(value, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    let octets = 1;
    while (value < -(2 ** (8 * octets - 1)) || value >= 2 ** (8 * octets - 1)) octets++;
    this.generalLength(octets);
    if (this.aligned) this.align();
    this.bits(value < 0 ? value + 2 ** (8 * octets) : value, 8 * octets);
  }

  /** A normally small non-negative whole number (X.691 10.6). */
  normallySmall(value: number): void {
    if (value < 64) {
      this.bit(false);
      this.bits(value, 6);
    } else {
      this.bit(true);
      this.semiInt(value, 0);
    }
  }

  /** A normally small length (X.691 10.9.3.4). */
  smallLength(n: number): void {
    if (n <= 64) {
      this.bit(false);
      this.bits(n - 1, 6);
    } else {
      this.bit(true);
      this.generalLength(n);
    }
  }

  /** A general length determinant below 16K (X.691 10.9.3.6, 10.9.3.7). */
  generalLength(n: number): void {
    if (n >= K16) throw new PerError(`length ${n} needs fragmentation, which is not supported here`);
    if (this.aligned) this.align();
    if (n < 128) this.bits(n, 8);
    else this.bits(0x8000 | n, 16);
  }

  octets(bytes: Uint8Array): void {
    const n = bytes.length;
    this.reserve(8 * n);
    if ((this.pos & 7) === 0) {
      this.buf.set(bytes, this.pos >> 3);
      this.pos += 8 * n;
    } else for (let i = 0; i < n; i++) this.bits(bytes[i]!, 8);
  }

  /** n octets, octet-aligned first in the ALIGNED variant. */
  alignedOctets(bytes: Uint8Array): void {
    if (this.aligned) this.align();
    this.octets(bytes);
  }

  /** A BIT STRING's bits, octet-aligned first in the ALIGNED variant. */
  alignedBitString(value: BitString): void {
    if (this.aligned) this.align();
    this.bitString(value);
  }

  /** Checks a SIZE constraint before encoding a string or list. */
  size(n: number, lb: number, ub: number): void {
    if (n < lb || n > ub) throw new PerError(`size ${n} outside ${lb}..${ub}`);
  }

  /** Characters of a known-multiplier string (X.691 30.5), `width` bits each. */
  chars(value: string, width: number, align: boolean): void {
    if (align && this.aligned) this.align();
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i);
      if (code >= 1 << width)
        throw new PerError(`character ${JSON.stringify(value[i])} outside the alphabet`);
      this.bits(code, width);
    }
  }

  /** A UTF8String (X.691 30.6). */
  utf8(value: string): void {
    this.generalOctets(utf8Encoder.encode(value));
  }

  /** The extension addition presence bitmap of a SEQUENCE (X.691 19.8). */
  extensionBitmap(present: boolean[]): void {
    this.smallLength(present.length);
    for (const bit of present) this.bit(bit);
  }

  /** Octets behind a general length, fragmented at 16K and beyond (X.691 10.9.3.8). */
  generalOctets(bytes: Uint8Array): void {
    let offset = 0;
    for (;;) {
      const left = bytes.length - offset;
      if (left < K16) {
        this.generalLength(left);
        if (this.aligned) this.align();
        this.octets(bytes.subarray(offset));
        return;
      }
      const m = Math.min(4, Math.floor(left / K16));
      if (this.aligned) this.align();
      this.bits(0xc0 | m, 8);
      if (this.aligned) this.align();
      this.octets(bytes.subarray(offset, offset + m * K16));
      offset += m * K16;
    }
  }

  /** The n bits of a BIT STRING (its length already checked by the caller). */
  bitString(value: BitString): void {
    const n = value.length;
    if (value.bytes.length * 8 < n)
      throw new PerError(`BIT STRING of ${n} bits has ${value.bytes.length} bytes`);
    let i = 0;
    let left = n;
    while (left >= 8) {
      this.bits(value.bytes[i++]!, 8);
      left -= 8;
    }
    if (left > 0) this.bits(value.bytes[i]! >> (8 - left), left);
  }

  /** An empty writer for the contents of an open type at the next depth (reused between calls). */
  child(): PerWriter {
    let child = this.children.pop();
    if (child === undefined) child = new PerWriter(this.aligned, 64, this.depth + 1);
    else child.reset();
    return child;
  }

  /** Writes a child's encoding as an open type (X.691 10.2) and gives the child back for reuse. */
  openType(child: PerWriter): void {
    const n = child.octetLength();
    if (n >= K16) this.generalOctets(child.view());
    else {
      this.generalLength(n);
      if (this.aligned) this.align();
      this.reserve(8 * n);
      if ((this.pos & 7) === 0) {
        const buf = this.buf;
        const from = child.buf;
        const at = this.pos >> 3;
        for (let i = 0; i < n; i++) buf[at + i] = from[i]!;
        this.pos += 8 * n;
      } else for (let i = 0; i < n; i++) this.bits(child.buf[i]!, 8);
    }
    this.children.push(child);
  }

  /** Octets of the complete encoding so far (X.691 10.1.3: padded, at least one). */
  private octetLength(): number {
    return this.pos === 0 ? 1 : (this.pos + 7) >> 3;
  }

  /** Empties the writer for reuse. */
  reset(): void {
    this.buf.fill(0, 0, (this.pos + 7) >> 3);
    this.pos = 0;
  }

  /** The complete encoding so far, as a view over the writer's buffer. */
  view(): Uint8Array {
    return this.buf.subarray(0, this.octetLength());
  }

  /** The complete encoding as a fresh copy. */
  finish(): Uint8Array {
    // Node's pooled small-Buffer allocation is several times cheaper than a new Uint8Array.
    const out = Buffer.allocUnsafe(this.octetLength());
    out.set(this.buf.subarray(0, out.length));
    return out;
  }
}

/** Octets needed for a non-negative integer (at least one). */
function octetsFor(value: number): number {
  let octets = 1;
  while (value >= 2 ** (8 * octets)) octets++;
  return octets;
}
