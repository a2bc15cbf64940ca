import type { BitString } from './bit-string.ts';

/** Why bytes are not a valid PER encoding; thrown inside generated decoders and caught at their entry. */
export class PerError extends Error {
  override name = 'PerError';
}

/** Open types nested deeper than this are refused (bounds recursion on hostile input). */
const MAX_OPEN_TYPE_DEPTH = 32;

const K16 = 16384;
const utf8Decoder = new TextDecoder();

/**
 * Where the key material a decode met lies (`PerReader.keyMaterial`): bit ranges in `buf`, the octets the
 * decode started from, and whether any lay in other octets (a fragmented open type or a CONTAINING
 * OCTET STRING is read from a copy), where no range in `buf` can name it.
 */
export interface KeyMaterialFound {
  readonly buf: Uint8Array;
  readonly ranges: { type: string; from: number; to: number }[];
  elsewhere: boolean;
}

/**
 * Reads a PER encoding (X.691) bit by bit. The variant decides whether the general length determinant
 * aligns; every other alignment is emitted by the generator where X.691 asks for it (ALIGNED only).
 * Every read checks the bits left first, so a length never allocates beyond the input.
 */
export class PerReader {
  pos: number;
  readonly buf: Uint8Array;
  /** Set by `redactKeyMaterial` on the outer reader; open types and nested readers share it. */
  keys: KeyMaterialFound | undefined;

  constructor(
    bytes: Uint8Array,
    readonly aligned: boolean,
    readonly start = 0,
    readonly end = bytes.length * 8,
    readonly depth = 0,
  ) {
    // A Buffer's slice() is a view: read through a plain Uint8Array so that decoded octets are copies.
    this.buf = Buffer.isBuffer(bytes) ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length) : bytes;
    this.pos = start;
    this.keys = undefined;
  }

  /** Reads a value of a key-material type, noting where it lay when `keys` asks for it. */
  keyMaterial<T>(type: string, read: () => T): T {
    const from = this.pos;
    const value = read();
    const keys = this.keys;
    if (keys !== undefined) {
      if (this.buf === keys.buf) keys.ranges.push({ type, from, to: this.pos });
      else keys.elsewhere = true;
    }
    return value;
  }

  /** All octets this reader covers (an open type's contents, kept raw when its type is unknown). */
  rest(): Uint8Array {
    return this.buf.slice(this.start >> 3, (this.end + 7) >> 3);
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  private need(n: number): void {
    if (n > this.end - this.pos)
      throw new PerError(`truncated: ${n} more bits needed at bit ${this.pos}, ${this.end - this.pos} left`);
  }

  bit(): boolean {
    this.need(1);
    const pos = this.pos++;
    return ((this.buf[pos >> 3]! >> (7 - (pos & 7))) & 1) === 1;
  }

  /** An unsigned bit-field of n bits (n <= 52), most significant bit first. */
  bits(n: number): number {
    this.need(n);
    if (n > 32) return this.bits(n - 32) * 2 ** 32 + this.bits(32);
    const buf = this.buf;
    let value = 0;
    let pos = this.pos;
    let left = n;
    while (left > 0) {
      const offset = pos & 7;
      const take = 8 - offset < left ? 8 - offset : left;
      value = ((value << take) | ((buf[pos >> 3]! >> (8 - offset - take)) & ((1 << take) - 1))) >>> 0;
      pos += take;
      left -= take;
    }
    this.pos = pos;
    return value;
  }

  /** Skips to the next octet boundary (X.691 ALIGNED variant only). */
  align(): void {
    const pad = (8 - (this.pos & 7)) & 7;
    this.need(pad);
    this.pos += pad;
  }

  /** A constrained whole number (X.691 10.5) held in an n-bit field: lb + field, checked against ub. */
  bitsInt(lb: number, ub: number, n: number): number {
    const value = lb + this.bits(n);
    if (value > ub) throw new PerError(`value ${value} above its bound ${ub}`);
    return value;
  }

  /** A constrained whole number in k aligned octets (X.691 10.5.7.2, 10.5.7.3: range 256 or up to 64K). */
  octetsInt(lb: number, ub: number, k: number): number {
    this.align();
    return this.bitsInt(lb, ub, 8 * k);
  }

  /**
   * The ALIGNED "indefinite length" constrained whole number (X.691 10.5.7.4): an octet count in n bits
   * (1 + field), then that many aligned octets.
   */
  lengthInt(lb: number, ub: number, n: number): number {
    const octets = this.bits(n) + 1;
    this.align();
    return this.bitsInt(lb, ub, 8 * octets);
  }

  /** A semi-constrained whole number (X.691 10.7): length, then value - lb in that many octets. */
  semiInt(lb: number): number {
    const octets = this.generalLength();
    if (octets < 1 || octets > 6)
      throw new PerError(`semi-constrained integer of ${octets} octets unsupported`);
    if (this.aligned) this.align();
    return lb + this.bits(8 * octets);
  }

  /** An unconstrained whole number (X.691 10.8): length, then two's complement octets. */
  unconstrainedInt(): number {
    const octets = this.generalLength();
    if (octets < 1 || octets > 6) throw new PerError(`unconstrained integer of ${octets} octets unsupported`);
    if (this.aligned) this.align();
    const value = this.bits(8 * octets);
    const half = 2 ** (8 * octets - 1);
    return value >= half ? value - 2 * half : value;
  }

  /** A normally small non-negative whole number (X.691 10.6). */
  normallySmall(): number {
    if (!this.bit()) return this.bits(6);
    return this.semiInt(0);
  }

  /** A normally small length (X.691 10.9.3.4), e.g. of the extension addition bitmap. */
  smallLength(): number {
    if (!this.bit()) return this.bits(6) + 1;
    const n = this.generalLength();
    if (n === 0) throw new PerError('extension bitmap of length zero');
    return n;
  }

  /**
   * A general length determinant (X.691 10.9.3.5-8): aligned in the ALIGNED variant. Fragmented lengths
   * (16K multiples) are not accepted here; octet strings and open types read them with `generalOctets`.
   */
  generalLength(): number {
    const length = this.lengthOrFragment();
    if (length < 0) throw new PerError('fragmented length where none is supported');
    return length;
  }

  /** A length octet (or two), or -m for a fragment of m * 16K units. */
  private lengthOrFragment(): number {
    if (this.aligned) this.align();
    const first = this.bits(8);
    if ((first & 0x80) === 0) return first;
    if ((first & 0x40) === 0) return ((first & 0x3f) << 8) | this.bits(8);
    const m = first & 0x3f;
    if (m < 1 || m > 4) throw new PerError(`bad fragment size ${m}`);
    return -m;
  }

  /** A count behind a general length (SEQUENCE OF without a small upper bound), at most the bits left. */
  count(): number {
    const n = this.generalLength();
    if (n > this.end - this.pos)
      throw new PerError(`count ${n} exceeds the ${this.end - this.pos} bits left`);
    return n;
  }

  /** n octets, octet-aligned first in the ALIGNED variant. */
  alignedOctets(n: number): Uint8Array {
    if (this.aligned) this.align();
    return this.octets(n);
  }

  /** n bits of a BIT STRING, octet-aligned first in the ALIGNED variant. */
  alignedBitString(n: number): BitString {
    if (this.aligned) this.align();
    return this.bitString(n);
  }

  /**
   * n characters of a known-multiplier string (X.691 30.5), `width` bits each as their code (no
   * permitted-alphabet remapping is needed for the string types these modules use), aligned first when
   * `align`.
   */
  chars(n: number, width: number, align: boolean): string {
    this.need(n * width);
    if (align && this.aligned) this.align();
    let out = '';
    for (let i = 0; i < n; i++) out += String.fromCharCode(this.bits(width));
    return out;
  }

  /** A UTF8String (X.691 30.6: not known-multiplier, so octets behind a general length). */
  utf8(): string {
    return utf8Decoder.decode(this.generalOctets());
  }

  /** The extension addition presence bitmap of a SEQUENCE (X.691 19.8). */
  extensionBitmap(): boolean[] {
    const n = this.smallLength();
    this.need(n);
    const present: boolean[] = [];
    for (let i = 0; i < n; i++) present.push(this.bit());
    return present;
  }

  /**
   * Extension additions this codec does not know (bitmap positions from `known` on), kept as raw
   * open-type octets so that re-encoding reproduces them; undefined when there are none.
   */
  unknownExtensions(present: boolean[], known: number): (Uint8Array | undefined)[] | undefined {
    if (present.length <= known) return undefined;
    const out: (Uint8Array | undefined)[] = [];
    for (let i = known; i < present.length; i++) out.push(present[i] ? this.generalOctets() : undefined);
    return out;
  }

  /** n octets from the current position (aligned or not). */
  octets(n: number): Uint8Array {
    this.need(8 * n);
    if ((this.pos & 7) === 0) {
      const start = this.pos >> 3;
      this.pos += 8 * n;
      return this.buf.slice(start, start + n);
    }
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = this.bits(8);
    return out;
  }

  /** Octets behind a general length, fragments joined (X.691 10.9.3.8). */
  generalOctets(): Uint8Array {
    let length = this.lengthOrFragment();
    if (length >= 0) {
      if (this.aligned) this.align();
      return this.octets(length);
    }
    const parts: Uint8Array[] = [];
    let total = 0;
    while (length < 0) {
      if (this.aligned) this.align();
      const part = this.octets(-length * K16);
      parts.push(part);
      total += part.length;
      length = this.lengthOrFragment();
    }
    if (this.aligned) this.align();
    parts.push(this.octets(length));
    total += length;
    const out = new Uint8Array(total);
    let offset = 0;
    for (const part of parts) {
      out.set(part, offset);
      offset += part.length;
    }
    return out;
  }

  /** n bits as a left-aligned BIT STRING. */
  bitString(n: number): BitString {
    this.need(n);
    const bytes = new Uint8Array((n + 7) >> 3);
    let i = 0;
    let left = n;
    while (left >= 8) {
      bytes[i++] = this.bits(8);
      left -= 8;
    }
    if (left > 0) bytes[i] = this.bits(left) << (8 - left);
    return { bytes, length: n };
  }

  /**
   * An open type (X.691 10.2): a reader over its octets, one level deeper. Unfragmented contents are
   * read in place; fragmented ones are joined first.
   */
  openType(): PerReader {
    if (this.depth >= MAX_OPEN_TYPE_DEPTH) throw new PerError('open types nested too deeply');
    const start = this.pos;
    const length = this.lengthOrFragment();
    if (length >= 0) {
      if (this.aligned) this.align();
      this.need(8 * length);
      const from = this.pos;
      this.pos += 8 * length;
      return this.child(new PerReader(this.buf, this.aligned, from, this.pos, this.depth + 1));
    }
    this.pos = start;
    return this.child(new PerReader(this.generalOctets(), this.aligned, 0, undefined, this.depth + 1));
  }

  private child(reader: PerReader): PerReader {
    reader.keys = this.keys;
    return reader;
  }

  /** Skips an open type (an unknown extension addition kept as raw octets by the caller). */
  openTypeBytes(): Uint8Array {
    return this.generalOctets();
  }

  /** A reader over other octets (a CONTAINING OCTET STRING), one level deeper. */
  nested(bytes: Uint8Array): PerReader {
    if (this.depth >= MAX_OPEN_TYPE_DEPTH) throw new PerError('open types nested too deeply');
    return this.child(new PerReader(bytes, this.aligned, 0, undefined, this.depth + 1));
  }
}
