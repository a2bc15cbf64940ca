/**
 * A BIT STRING value as PER carries it: `length` bits, first bit in the most significant bit of
 * `bytes[0]` (left-aligned); the unused low bits of the last byte are zero.
 */
export interface BitString {
  readonly bytes: Uint8Array;
  readonly length: number;
}

/** A BIT STRING of `length` bits holding the unsigned integer `value` (right-aligned, as 3GPP writes them). */
export function bitStringOf(value: number | bigint, length: number): BitString {
  const bytes = new Uint8Array(Math.ceil(length / 8));
  // Numbers of up to 45 bits (algorithm lists, cell and node identities) without BigInt, whose every shift
  // allocates: shifted left by under 8 bits they stay below 2^53, exact in a double.
  if (typeof value === 'number' && length <= 45 && Number.isSafeInteger(value) && value >= 0) {
    let rest = value * 2 ** (bytes.length * 8 - length);
    for (let i = bytes.length - 1; i >= 0; i--) {
      bytes[i] = rest % 256;
      rest = Math.floor(rest / 256);
    }
    return { bytes, length };
  }
  let rest = BigInt(value) << BigInt(bytes.length * 8 - length);
  for (let i = bytes.length - 1; i >= 0; i--) {
    bytes[i] = Number(rest & 0xffn);
    rest >>= 8n;
  }
  return { bytes, length };
}

/** The bits of a BIT STRING read as an unsigned integer, in lower-case hex of ceil(length/4) digits. */
export function bitStringHex(bits: BitString): string {
  // Up to 48 bits (cell and node identities) in a double, exact below 2^53, without BigInt's allocations.
  if (bits.bytes.length <= 6) {
    let number = 0;
    for (const byte of bits.bytes) number = number * 256 + byte;
    number = Math.floor(number / 2 ** (bits.bytes.length * 8 - bits.length));
    return number.toString(16).padStart(Math.ceil(bits.length / 4), '0');
  }
  let value = 0n;
  for (const byte of bits.bytes) value = (value << 8n) | BigInt(byte);
  value >>= BigInt(bits.bytes.length * 8 - bits.length);
  return value.toString(16).padStart(Math.ceil(bits.length / 4), '0');
}
