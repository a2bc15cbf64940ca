import { PerReader, type KeyMaterialFound } from './per-reader.ts';

/** A PDU as it may be recorded, and the key-material types zeroed in it. */
export interface Redacted {
  bytes: Uint8Array;
  /** One ASN.1 type name per value zeroed (`SecurityKey`), empty when none was found. */
  redacted: string[];
}

/**
 * The PDU with every value of a key-material type zeroed in place, length and every other bit kept, so
 * that it still decodes (tshark too) and shows where a key was (network.md section 4). The input is
 * never changed: a copy is made when something is zeroed. A key read from a copy of the octets (a
 * fragmented open type) cannot be located, so the whole PDU is zeroed then: never a key on record.
 * A PDU that does not decode keeps what was found before the error zeroed.
 */
export function redactKeyMaterial(
  bytes: Uint8Array,
  aligned: boolean,
  decode: (r: PerReader) => unknown,
): Redacted {
  const reader = new PerReader(bytes, aligned);
  const keys: KeyMaterialFound = { buf: reader.buf, ranges: [], elsewhere: false };
  reader.keys = keys;
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    decode(reader);
  } catch {
    // A malformed PDU: what was read before the error is all that can hold a key.
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
  return zeroRanges(bytes, keys.ranges, keys.elsewhere);
}

/**
 * `bytes` with the bit ranges of key material zeroed in a copy (the input itself when there are none),
 * or all of it zeroed when a key lay where no range names it (`elsewhere`).
 */
export function zeroRanges(
  bytes: Uint8Array,
  ranges: readonly { type: string; from: number; to: number }[],
  elsewhere: boolean,
): Redacted {
  if (ranges.length === 0 && !elsewhere) return { bytes, redacted: [] };
  const redacted = ranges.map((range) => range.type);
  if (elsewhere) return { bytes: new Uint8Array(bytes.length), redacted: [...redacted, 'PDU'] };
  // The typed-array constructor copies in one go; Uint8Array.from iterates element by element.
  const out = new Uint8Array(bytes);
  for (const { from, to } of ranges) zeroBits(out, from, to);
  return { bytes: out, redacted };
}

/** Clears bits [from, to) of `bytes`, most significant bit first (PER's bit order). */
function zeroBits(bytes: Uint8Array, from: number, to: number): void {
  for (let bit = from; bit < to;) {
    if ((bit & 7) === 0 && to - bit >= 8) {
      bytes[bit >> 3] = 0;
      bit += 8;
    } else {
      bytes[bit >> 3]! &= ~(0x80 >> (bit & 7));
      bit++;
    }
  }
}
