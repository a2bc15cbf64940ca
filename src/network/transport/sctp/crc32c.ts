/**
 * CRC32c (Castagnoli, polynomial 0x1EDC6F41, reflected 0x82F63B78), the SCTP checksum (RFC 9260 Appendix
 * A, RFC 3309), computed slicing-by-8: eight 256-entry tables let the loop consume eight bytes per step.
 */

/** A CRC32c implementation: this module's, or the native addon's (native/crc32c.c), which is faster. */
export type Crc32c = (bytes: Uint8Array, start: number, end: number, crc: number) => number;

const POLY = 0x82f63b78;
const TABLES: Uint32Array[] = [];
{
  const t0 = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY : c >>> 1;
    t0[i] = c >>> 0;
  }
  TABLES.push(t0);
  for (let t = 1; t < 8; t++) {
    const prev = TABLES[t - 1] as Uint32Array;
    const next = new Uint32Array(256);
    for (let i = 0; i < 256; i++) {
      const p = prev[i] as number;
      next[i] = ((p >>> 8) ^ (t0[p & 0xff] as number)) >>> 0;
    }
    TABLES.push(next);
  }
}
const [T0, T1, T2, T3, T4, T5, T6, T7] = TABLES as [
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
  Uint32Array,
];

/** CRC32c of `bytes[start, end)`, continuing from `crc` (the value a previous call returned). */
export function crc32c(bytes: Uint8Array, start = 0, end = bytes.length, crc = 0): number {
  let c = ~crc >>> 0;
  let i = start;
  const end8 = start + ((end - start) & ~7);
  while (i < end8) {
    const lo = (c ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24))) >>> 0;
    c =
      T7[lo & 0xff]! ^
      T6[(lo >>> 8) & 0xff]! ^
      T5[(lo >>> 16) & 0xff]! ^
      T4[lo >>> 24]! ^
      T3[bytes[i + 4]!]! ^
      T2[bytes[i + 5]!]! ^
      T1[bytes[i + 6]!]! ^
      T0[bytes[i + 7]!]!;
    i += 8;
  }
  while (i < end) c = (c >>> 8) ^ T0[(c ^ bytes[i++]!) & 0xff]!;
  return ~c >>> 0;
}
