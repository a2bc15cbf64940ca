// Addresses: the TP addresses of TS 23.040 9.1.2.5 (TP-OA, TP-DA, TP-RA) and the RP originator and
// destination addresses of TS 24.011 8.2.5.1-2. Both carry a type of number and numbering plan
// (bit 8 set, TON bits 7-5, NPI bits 4-1) and semi-octet digits; a TP address may instead hold
// alphanumeric text in the GSM 7-bit alphabet (type of number 5).
import { packSeptets, packedLength, septetsToText, textToSeptets, unpackSeptets } from './gsm7.ts';
import { decodeSemiOctets, encodeSemiOctets } from './semi-octets.ts';

/** TS 23.040 9.1.2.5 / TS 24.008 10.5.4.7: type of number. */
export const TYPE_OF_NUMBER = {
  unknown: 0,
  international: 1,
  national: 2,
  networkSpecific: 3,
  subscriber: 4,
  alphanumeric: 5,
  abbreviated: 6,
} as const;
/** Numbering plan identification: ISDN/telephone (E.164) is 1. */
export const NUMBERING_PLAN = {
  unknown: 0,
  isdnTelephone: 1,
  data: 3,
  telex: 4,
  national: 8,
  private: 9,
} as const;

export interface SmsAddress {
  typeOfNumber: number;
  numberingPlan: number;
  /** Digits (0-9, *, #, a-c), or the text of an alphanumeric address. */
  value: string;
}

/** TS 23.040 9.1.2.5: at most 20 digits (10 octets of value), so 2-12 octets in all. */
const TP_MAX_VALUE_OCTETS = 10;
/** TS 24.011 7.3.1: RP addresses are LV with at most 11 octets of value (type octet and 10 of digits). */
const RP_MAX_VALUE_OCTETS = 11;

function typeOctet(address: SmsAddress): number {
  return 0x80 | ((address.typeOfNumber & 0x7) << 4) | (address.numberingPlan & 0xf);
}

/**
 * A TP address: its length in semi-octets (digits, or the semi-octets the packed text fills), the type
 * octet and the value. Throws RangeError on a value that does not fit: callers build addresses, not peers.
 */
export function encodeTpAddress(address: SmsAddress): Uint8Array {
  if (address.typeOfNumber === TYPE_OF_NUMBER.alphanumeric) {
    const septets = textToSeptets(address.value);
    if (septets === undefined) throw new RangeError('alphanumeric address outside the GSM 7-bit alphabet');
    const value = new Uint8Array(packedLength(septets.length));
    packSeptets(septets, value);
    if (value.length > TP_MAX_VALUE_OCTETS)
      throw new RangeError('alphanumeric address longer than 11 characters');
    return Uint8Array.of(Math.ceil((septets.length * 7) / 4), typeOctet(address), ...value);
  }
  const digits = encodeSemiOctets(address.value);
  if (digits === undefined || digits.length > TP_MAX_VALUE_OCTETS)
    throw new RangeError(`address digits not encodable: ${address.value}`);
  return Uint8Array.of(address.value.length, typeOctet(address), ...digits);
}

/** A TP address at `offset`: the address and the octets it took, or an error. */
export function decodeTpAddress(
  bytes: Uint8Array,
  offset: number,
): { address: SmsAddress; length: number } | { error: string } {
  const semiOctets = bytes[offset];
  const type = bytes[offset + 1];
  if (semiOctets === undefined || type === undefined) return { error: 'address cut off' };
  const valueOctets = Math.ceil(semiOctets / 2);
  if (valueOctets > TP_MAX_VALUE_OCTETS) return { error: `address of ${semiOctets} semi-octets` };
  if (offset + 2 + valueOctets > bytes.length) return { error: 'address cut off' };
  const value = bytes.subarray(offset + 2, offset + 2 + valueOctets);
  const typeOfNumber = (type >> 4) & 0x7;
  const numberingPlan = type & 0xf;
  let text: string | undefined;
  if (typeOfNumber === TYPE_OF_NUMBER.alphanumeric) {
    // The length counts semi-octets of packed septets: 4 bits each, so floor(n*4/7) septets.
    text = septetsToText(unpackSeptets(value, 0, Math.floor((semiOctets * 4) / 7)));
  } else {
    text = decodeSemiOctets(value, semiOctets);
    if (text === undefined) return { error: 'address digits not semi-octets (or a wrong filler)' };
  }
  return { address: { typeOfNumber, numberingPlan, value: text }, length: 2 + valueOctets };
}

/** An RP address as its value (type octet and digits; empty for the absent address), without the length. */
export function encodeRpAddressValue(address: SmsAddress | undefined): Uint8Array {
  if (address === undefined) return new Uint8Array(0);
  const digits = encodeSemiOctets(address.value);
  if (digits === undefined || digits.length === 0 || digits.length + 1 > RP_MAX_VALUE_OCTETS)
    throw new RangeError(`RP address digits not encodable: ${address.value}`);
  return Uint8Array.of(typeOctet(address), ...digits);
}

/** The value of an RP address IE (after its length octet); an empty value is the absent address. */
export function decodeRpAddressValue(value: Uint8Array): SmsAddress | undefined | { error: string } {
  if (value.length === 0) return undefined;
  if (value.length > RP_MAX_VALUE_OCTETS) return { error: `RP address of ${value.length} octets` };
  const type = value[0] as number;
  const digits = decodeSemiOctets(value.subarray(1));
  if (digits === undefined) return { error: 'RP address digits not semi-octets' };
  return { typeOfNumber: (type >> 4) & 0x7, numberingPlan: type & 0xf, value: digits };
}
