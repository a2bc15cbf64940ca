// Bit strings as the 3GPP algorithm specifications use them: a byte array whose first `lengthBits` bits,
// most significant bit of the first byte first, are the string.

/** The number of bytes that hold `lengthBits` bits. */
export function bytesForBits(lengthBits: number): number {
  return Math.ceil(lengthBits / 8);
}

/** Throws unless `lengthBits` is a whole number of bits that `bytes` holds. */
export function requireBitLength(bytes: Uint8Array, lengthBits: number): void {
  if (!Number.isInteger(lengthBits) || lengthBits < 0) {
    throw new RangeError(`a bit length is a whole number >= 0, got ${lengthBits}`);
  }
  if (bytesForBits(lengthBits) > bytes.length) {
    throw new RangeError(`${lengthBits} bits need ${bytesForBits(lengthBits)} bytes, got ${bytes.length}`);
  }
}

/** Zeroes the bits of the last byte that follow the first `lengthBits` bits (in place). */
export function clearTrailingBits(bytes: Uint8Array, lengthBits: number): void {
  const spare = bytes.length * 8 - lengthBits;
  if (spare > 0 && spare < 8)
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) & ((0xff << spare) & 0xff);
}
