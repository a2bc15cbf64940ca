// Semi-octet digit strings (TS 23.040 9.1.2.3; TS 24.008 10.5.4.7 for the RP addresses of TS 24.011
// 8.2.5.1-2): each octet holds two digits, the first in bits 1-4; an odd count ends with the filler 0xF.

const SYMBOLS = '0123456789*#abc';
const FILLER = 0xf;

/** The semi-octets of `digits` (0-9, *, #, a, b, c), or undefined when one is not such a digit. */
export function encodeSemiOctets(digits: string): Uint8Array | undefined {
  const out = new Uint8Array(Math.ceil(digits.length / 2));
  for (let i = 0; i < digits.length; i++) {
    const value = SYMBOLS.indexOf(digits.charAt(i).toLowerCase());
    if (value < 0) return undefined;
    out[i >> 1] = (out[i >> 1] as number) | (i % 2 === 0 ? value : value << 4);
  }
  if (digits.length % 2 === 1) out[out.length - 1] = (out[out.length - 1] as number) | (FILLER << 4);
  return out;
}

/**
 * `count` digits from `bytes` (all the octets' digits when count is undefined, the filler allowed only as
 * the last semi-octet). Undefined when a filler stands where a digit must be, or an odd count's last
 * semi-octet is not the filler.
 */
export function decodeSemiOctets(bytes: Uint8Array, count?: number): string | undefined {
  const total = count ?? bytes.length * 2;
  if (Math.ceil(total / 2) > bytes.length) return undefined;
  let digits = '';
  for (let i = 0; i < total; i++) {
    const octet = bytes[i >> 1] as number;
    const value = i % 2 === 0 ? octet & 0x0f : octet >> 4;
    if (value === FILLER) {
      if (count === undefined && i === total - 1 && i % 2 === 1) return digits;
      return undefined;
    }
    digits += SYMBOLS.charAt(value);
  }
  if (count !== undefined && count % 2 === 1 && (bytes[count >> 1] as number) >> 4 !== FILLER)
    return undefined;
  return digits;
}
