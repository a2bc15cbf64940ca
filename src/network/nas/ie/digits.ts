// BCD digit strings (TS 24.008 10.5.1.3, TS 24.501 9.11.3.4): two digits an octet, the first digit in
// bits 4-1, and 1111 as the filler of an odd count. Nibbles 1010..1110 are not digits but are kept
// (as a..e) so that a value re-encodes exactly; a decoder of untrusted bytes must not lose them.
import { invalid } from '../ie-codec.ts';

const DIGITS = '0123456789abcdef';
const FILLER = 0xf;

export function digitOf(nibble: number): string {
  return DIGITS[nibble & 0xf] ?? '';
}

export function nibbleOf(digit: string): number {
  const value = DIGITS.indexOf(digit.toLowerCase());
  if (value < 0 || value === FILLER || digit.length !== 1) throw new RangeError(`not a BCD digit: ${digit}`);
  return value;
}

/** Digits of `value`, low nibble first, stopping at the first filler. */
export function decodeBcd(value: Uint8Array, start = 0, end = value.length): string {
  let out = '';
  for (let i = start; i < end; i++) {
    const octet = value[i] ?? 0;
    if ((octet & 0xf) === FILLER) break;
    out += digitOf(octet);
    if (octet >> 4 === FILLER) break;
    out += digitOf(octet >> 4);
  }
  return out;
}

/**
 * Every nibble of `value` as a hex digit, low nibble first, with the trailing fillers dropped: lossless
 * for fields whose content is not checked here (routing indicator, null-scheme MSIN).
 */
export function decodeNibbles(value: Uint8Array, start = 0, end = value.length): string {
  let out = '';
  for (let i = start; i < end; i++) out += digitOf(value[i] ?? 0) + digitOf((value[i] ?? 0) >> 4);
  return out.replace(/f+$/, '');
}

/** The inverse of decodeNibbles: hex digits low nibble first, padded with fillers to `octets`. */
export function encodeNibbles(digits: string, octets = Math.ceil(digits.length / 2)): Uint8Array {
  if (digits.length > octets * 2 || !/^[0-9a-f]*$/i.test(digits))
    throw new RangeError(`cannot pack ${digits}`);
  const padded = digits.padEnd(octets * 2, 'f');
  const out = new Uint8Array(octets);
  for (let i = 0; i < octets; i++)
    out[i] = parseInt(padded[2 * i + 1] ?? 'f', 16) * 16 + parseInt(padded[2 * i] ?? 'f', 16);
  return out;
}

/** Packs digits two an octet, with a filler after an odd count and filler octets up to `octets`. */
export function encodeBcd(digits: string, octets = Math.ceil(digits.length / 2)): Uint8Array {
  if (digits.length > octets * 2) throw new RangeError(`${digits.length} digits do not fit ${octets} octets`);
  const out = new Uint8Array(octets).fill(0xff);
  for (let i = 0; i < digits.length; i++) {
    const index = i >> 1;
    const value = nibbleOf(digits[i] ?? '');
    out[index] = i % 2 === 0 ? ((out[index] ?? 0) & 0xf0) | value : ((out[index] ?? 0) & 0x0f) | (value << 4);
  }
  return out;
}

/** A PLMN identity (TS 24.008 10.5.1.13): MCC of 3 digits, MNC of 2 or 3. */
export interface Plmn {
  mcc: string;
  mnc: string;
}

/** The 3 octets: MCC digit 2|1, MNC digit 3|MCC digit 3, MNC digit 2|1 (1111 for a 2-digit MNC). */
export function decodePlmn(value: Uint8Array, offset = 0): Plmn {
  if (value.length < offset + 3) invalid('PLMN identity needs 3 octets');
  const a = value[offset] ?? 0;
  const b = value[offset + 1] ?? 0;
  const c = value[offset + 2] ?? 0;
  const mcc = digitOf(a) + digitOf(a >> 4) + digitOf(b);
  const mnc = digitOf(c) + digitOf(c >> 4) + (b >> 4 === FILLER ? '' : digitOf(b >> 4));
  // Only the third MNC digit may be the filler.
  if (mcc.includes('f') || mnc.includes('f')) invalid('filler 1111 in a PLMN identity digit');
  return { mcc, mnc };
}

export function encodePlmn(plmn: Plmn, out: Uint8Array = new Uint8Array(3), offset = 0): Uint8Array {
  const { mcc, mnc } = plmn;
  if (mcc.length !== 3 || (mnc.length !== 2 && mnc.length !== 3))
    throw new RangeError(`invalid PLMN ${mcc}-${mnc}`);
  const d = (s: string, i: number): number => nibbleOf(s[i] ?? '');
  out[offset] = d(mcc, 0) | (d(mcc, 1) << 4);
  out[offset + 1] = d(mcc, 2) | ((mnc.length === 3 ? d(mnc, 2) : FILLER) << 4);
  out[offset + 2] = d(mnc, 0) | (d(mnc, 1) << 4);
  return out;
}

export function hex(value: Uint8Array): string {
  return Buffer.from(value.buffer, value.byteOffset, value.length).toString('hex');
}
