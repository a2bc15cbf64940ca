import type { PLMNIdentity } from '../ngap/generated/types.ts';
import type { Plmn } from '../radio-id.ts';

/**
 * PLMN Identity (TS 38.413 9.3.3.5, TS 24.008 10.5.1.13): MCC digits 1-3, MNC digits 1-3 in TBCD, the
 * third MNC digit 0xF for a two-digit MNC. Undefined when a nibble is not a digit where one must be.
 */
export function plmnOf(bytes: PLMNIdentity): Plmn | undefined {
  if (bytes.length !== 3) return undefined;
  const [b0, b1, b2] = [bytes[0] ?? 0, bytes[1] ?? 0, bytes[2] ?? 0];
  const nibbles = [b0 & 15, b0 >> 4, b1 & 15, b2 & 15, b2 >> 4];
  if (nibbles.some((nibble) => nibble > 9)) return undefined;
  const mnc3 = b1 >> 4;
  if (mnc3 > 9 && mnc3 !== 15) return undefined;
  return {
    mcc: `${nibbles[0]}${nibbles[1]}${nibbles[2]}`,
    mnc: `${nibbles[3]}${nibbles[4]}${mnc3 === 15 ? '' : mnc3}`,
  };
}
