/** Serial number arithmetic (RFC 1982) as RFC 9260 1.6 uses it for TSNs (32 bits) and SSNs (16 bits). */

/** `a < b` for 32-bit TSNs. */
export function tsnLt(a: number, b: number): boolean {
  return a !== b && (b - a) >>> 0 < 0x80000000;
}

/** `a <= b` for 32-bit TSNs. */
export function tsnLte(a: number, b: number): boolean {
  return a === b || tsnLt(a, b);
}

/** `tsn + n` modulo 2^32. */
export function tsnAdd(tsn: number, n: number): number {
  return (tsn + n) >>> 0;
}

/** `a - b` modulo 2^32 (the distance from b up to a). */
export function tsnDiff(a: number, b: number): number {
  return (a - b) >>> 0;
}

/** `a < b` for 16-bit SSNs. */
export function ssnLt(a: number, b: number): boolean {
  return a !== b && ((b - a) & 0xffff) < 0x8000;
}
