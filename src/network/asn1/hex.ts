const DIGITS = '0123456789abcdef';

/** Lower-case hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += DIGITS[byte >> 4]! + DIGITS[byte & 15]!;
  return out;
}

/** Bytes of a hex string (even length, hex digits only); throws on anything else. */
export function fromHex(hex: string): Uint8Array {
  if (hex.length % 2 !== 0 || !/^[0-9a-fA-F]*$/.test(hex)) throw new Error(`not a hex string: ${hex}`);
  return Uint8Array.from(Buffer.from(hex, 'hex'));
}
