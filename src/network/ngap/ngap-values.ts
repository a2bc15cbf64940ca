import { bitStringOf } from '../asn1/bit-string.ts';
import type { BitString } from '../asn1/bit-string.ts';

/**
 * PLMNIdentity (TS 38.413 9.3.3.5, TS 24.008 10.5.1.13): MCC and MNC digits in TBCD, filler F for a
 * two-digit MNC.
 */
export function plmnIdentity(mcc: string, mnc: string): Uint8Array {
  if (!/^\d{3}$/.test(mcc) || !/^\d{2,3}$/.test(mnc)) throw new Error(`bad PLMN ${mcc}-${mnc}`);
  const d = (text: string, i: number): number => (i < text.length ? Number(text[i]) : 15);
  return Uint8Array.of(
    (d(mcc, 1) << 4) | d(mcc, 0),
    (d(mnc, 2) << 4) | d(mcc, 2),
    (d(mnc, 1) << 4) | d(mnc, 0),
  );
}

/** TAC (TS 38.413 9.3.3.10): three octets, most significant first. */
export function tac(value: number): Uint8Array {
  return Uint8Array.of((value >> 16) & 255, (value >> 8) & 255, value & 255);
}

/** A BIT STRING holding an identifier of `bits` bits (gNB ID, NR cell identity, AMF set ID...). */
export function bits(value: number | bigint, length: number): BitString {
  return bitStringOf(value, length);
}
