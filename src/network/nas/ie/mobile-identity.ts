// 5GS mobile identity, TS 24.501 9.11.3.4: SUCI (TS 23.003 2.2B, schemes of TS 33.501 Annex C),
// 5G-GUTI, 5G-S-TMSI, IMEI, IMEISV, MAC address, EUI-64, or no identity.
import { copyOf, invalid, octets } from '../ie-codec.ts';
import {
  decodeNibbles,
  decodePlmn,
  digitOf,
  encodeBcd,
  encodeNibbles,
  encodePlmn,
  nibbleOf,
  type Plmn,
} from './digits.ts';

/** Protection scheme identifiers, TS 33.501 Annex C.1. */
export const PROTECTION_SCHEME = { null: 0, profileA: 1, profileB: 2 } as const;

// TS 33.501 C.3.4: Profile A carries a 32-octet X25519 key, Profile B a 33-octet compressed P-256
// point; both end in an 8-octet MAC tag.
const PROFILE_A_KEY = 32;
const PROFILE_B_KEY = 33;
const MAC_TAG = 8;

export type SchemeOutput =
  /** The MSIN's digits, kept like the routing indicator. */
  | { scheme: 'null'; msin: string }
  | {
      scheme: 'profile-a' | 'profile-b';
      eccEphemeralPublicKey: Uint8Array;
      ciphertext: Uint8Array;
      macTag: Uint8Array;
    }
  /** A scheme this codec does not know (operator-specific ones): its output as is. */
  | { scheme: 'other'; output: Uint8Array };

export type Suci =
  | (Plmn & {
      type: 'suci';
      supiFormat: 'imsi';
      /**
       * 1 to 4 digits (TS 23.003 2.2B): "0" when the home network has none. Nibbles are kept as hex
       * digits, trailing fillers dropped, so that a value outside the rules still re-encodes exactly.
       */
      routingIndicator: string;
      protectionScheme: number;
      homeNetworkPublicKeyId: number;
      schemeOutput: SchemeOutput;
    })
  /** SUPI format "network specific identifier": the SUCI in NAI form (TS 23.003 28.7.3). */
  | { type: 'suci'; supiFormat: 'nai'; nai: string };

export interface Guti extends Plmn {
  type: '5g-guti';
  amfRegionId: number;
  amfSetId: number;
  amfPointer: number;
  tmsi: number;
}

export interface STmsi {
  type: '5g-s-tmsi';
  amfSetId: number;
  amfPointer: number;
  tmsi: number;
}

export type MobileIdentity =
  | { type: 'none' }
  | Suci
  | Guti
  | STmsi
  | { type: 'imei' | 'imeisv'; digits: string }
  | { type: 'mac-address'; address: Uint8Array; usageRestricted: boolean }
  | { type: 'eui-64'; eui64: Uint8Array };

const TYPE = { none: 0, suci: 1, guti: 2, imei: 3, sTmsi: 4, imeisv: 5, mac: 6, eui64: 7 } as const;
const SUPI_FORMAT_IMSI = 0;
const SUPI_FORMAT_NAI = 1;
const NAI_TEXT = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function decodeSuci(value: Uint8Array): Suci {
  const supiFormat = ((value[0] ?? 0) >> 4) & 0x7;
  if (supiFormat === SUPI_FORMAT_NAI) {
    try {
      return { type: 'suci', supiFormat: 'nai', nai: NAI_TEXT.decode(value.subarray(1)) };
    } catch {
      return invalid('SUCI NAI is not UTF-8');
    }
  }
  if (supiFormat !== SUPI_FORMAT_IMSI) invalid(`SUPI format ${supiFormat} is reserved`);
  if (value.length < 8) invalid('SUCI of an IMSI needs 8 octets or more');
  const plmn = decodePlmn(value, 1);
  const routingIndicator = decodeNibbles(value, 4, 6);
  const protectionScheme = (value[6] ?? 0) & 0xf;
  const homeNetworkPublicKeyId = value[7] ?? 0;
  return {
    type: 'suci',
    supiFormat: 'imsi',
    ...plmn,
    routingIndicator,
    protectionScheme,
    homeNetworkPublicKeyId,
    schemeOutput: decodeSchemeOutput(protectionScheme, value.subarray(8)),
  };
}

function decodeSchemeOutput(scheme: number, output: Uint8Array): SchemeOutput {
  if (scheme === PROTECTION_SCHEME.null) {
    return { scheme: 'null', msin: decodeNibbles(output) };
  }
  if (scheme === PROTECTION_SCHEME.profileA || scheme === PROTECTION_SCHEME.profileB) {
    const keyLength = scheme === PROTECTION_SCHEME.profileA ? PROFILE_A_KEY : PROFILE_B_KEY;
    if (output.length < keyLength + MAC_TAG) invalid('ECIES scheme output too short');
    return {
      scheme: scheme === PROTECTION_SCHEME.profileA ? 'profile-a' : 'profile-b',
      eccEphemeralPublicKey: copyOf(output, 0, keyLength),
      ciphertext: copyOf(output, keyLength, output.length - MAC_TAG),
      macTag: copyOf(output, output.length - MAC_TAG),
    };
  }
  return { scheme: 'other', output: copyOf(output) };
}

function encodeSchemeOutput(output: SchemeOutput): Uint8Array {
  switch (output.scheme) {
    case 'null':
      return encodeNibbles(output.msin);
    case 'profile-a':
    case 'profile-b':
      return Buffer.concat([output.eccEphemeralPublicKey, output.ciphertext, output.macTag]);
    case 'other':
      return output.output;
  }
}

function decodeDigits(value: Uint8Array): string {
  const first = value[0] ?? 0;
  const odd = (first & 0x08) !== 0;
  let digits = digitOf(first >> 4);
  for (let i = 1; i < value.length; i++) {
    const octet = value[i] ?? 0;
    digits += digitOf(octet);
    if (i < value.length - 1 || odd) digits += digitOf(octet >> 4);
    else if (octet >> 4 !== 0xf) invalid('even digit count must end in filler 1111');
  }
  if (digits.includes('f')) invalid('filler 1111 among the digits');
  return digits;
}

function encodeDigits(type: number, digits: string): Uint8Array {
  if (digits.length === 0) throw new RangeError('no digits');
  const odd = digits.length % 2 === 1;
  const rest = encodeBcd(digits.slice(1));
  const out = new Uint8Array(1 + rest.length);
  out[0] = (nibbleOf(digits[0] ?? '') << 4) | (odd ? 0x08 : 0) | type;
  out.set(rest, 1);
  return out;
}

function readAmfSetPointer(value: Uint8Array, offset: number): { amfSetId: number; amfPointer: number } {
  const word = ((value[offset] ?? 0) << 8) | (value[offset + 1] ?? 0);
  return { amfSetId: word >> 6, amfPointer: word & 0x3f };
}

function writeAmfSetPointer(out: Uint8Array, offset: number, amfSetId: number, amfPointer: number): void {
  if (amfSetId < 0 || amfSetId > 0x3ff || amfPointer < 0 || amfPointer > 0x3f)
    throw new RangeError('AMF set/pointer');
  const word = (amfSetId << 6) | amfPointer;
  out[offset] = word >> 8;
  out[offset + 1] = word & 0xff;
}

function readUint32(value: Uint8Array, offset: number): number {
  return (
    (((value[offset] ?? 0) << 24) |
      ((value[offset + 1] ?? 0) << 16) |
      ((value[offset + 2] ?? 0) << 8) |
      (value[offset + 3] ?? 0)) >>>
    0
  );
}

function writeUint32(out: Uint8Array, offset: number, word: number): void {
  out[offset] = word >>> 24;
  out[offset + 1] = (word >>> 16) & 0xff;
  out[offset + 2] = (word >>> 8) & 0xff;
  out[offset + 3] = word & 0xff;
}

function decode(value: Uint8Array): MobileIdentity {
  if (value.length === 0) invalid('empty mobile identity');
  const type = (value[0] ?? 0) & 0x7;
  switch (type) {
    case TYPE.none:
      return value.length === 1 ? { type: 'none' } : invalid('"no identity" is 1 octet');
    case TYPE.suci:
      return decodeSuci(value);
    case TYPE.guti:
      if (value.length !== 11) invalid('5G-GUTI is 11 octets');
      return {
        type: '5g-guti',
        ...decodePlmn(value, 1),
        amfRegionId: value[4] ?? 0,
        ...readAmfSetPointer(value, 5),
        tmsi: readUint32(value, 7),
      };
    case TYPE.sTmsi:
      if (value.length !== 7) invalid('5G-S-TMSI is 7 octets');
      return { type: '5g-s-tmsi', ...readAmfSetPointer(value, 1), tmsi: readUint32(value, 3) };
    case TYPE.imei:
    case TYPE.imeisv:
      return { type: type === TYPE.imei ? 'imei' : 'imeisv', digits: decodeDigits(value) };
    case TYPE.mac:
      if (value.length !== 7) invalid('MAC address identity is 7 octets');
      return {
        type: 'mac-address',
        address: copyOf(value, 1),
        usageRestricted: ((value[0] ?? 0) & 0x08) !== 0,
      };
    default:
      if (value.length !== 9) invalid('EUI-64 identity is 9 octets');
      return { type: 'eui-64', eui64: copyOf(value, 1) };
  }
}

function encode(identity: MobileIdentity): Uint8Array {
  switch (identity.type) {
    case 'none':
      return Uint8Array.of(TYPE.none);
    case 'suci': {
      if (identity.supiFormat === 'nai')
        return Buffer.concat([
          Uint8Array.of((SUPI_FORMAT_NAI << 4) | TYPE.suci),
          Buffer.from(identity.nai, 'utf8'),
        ]);
      const head = new Uint8Array(8);
      head[0] = (SUPI_FORMAT_IMSI << 4) | TYPE.suci;
      encodePlmn(identity, head, 1);
      head.set(encodeNibbles(identity.routingIndicator, 2), 4);
      head[6] = identity.protectionScheme & 0xf;
      head[7] = identity.homeNetworkPublicKeyId & 0xff;
      return Buffer.concat([head, encodeSchemeOutput(identity.schemeOutput)]);
    }
    case '5g-guti': {
      const out = new Uint8Array(11);
      out[0] = 0xf0 | TYPE.guti;
      encodePlmn(identity, out, 1);
      out[4] = identity.amfRegionId & 0xff;
      writeAmfSetPointer(out, 5, identity.amfSetId, identity.amfPointer);
      writeUint32(out, 7, identity.tmsi);
      return out;
    }
    case '5g-s-tmsi': {
      const out = new Uint8Array(7);
      out[0] = 0xf0 | TYPE.sTmsi;
      writeAmfSetPointer(out, 1, identity.amfSetId, identity.amfPointer);
      writeUint32(out, 3, identity.tmsi);
      return out;
    }
    case 'imei':
      return encodeDigits(TYPE.imei, identity.digits);
    case 'imeisv':
      return encodeDigits(TYPE.imeisv, identity.digits);
    case 'mac-address':
      return Buffer.concat([
        Uint8Array.of((identity.usageRestricted ? 0x08 : 0) | TYPE.mac),
        identity.address,
      ]);
    case 'eui-64':
      return Buffer.concat([Uint8Array.of(TYPE.eui64), identity.eui64]);
  }
}

export const mobileIdentity = octets(decode, encode);

/** 5GS identity type (9.11.3.3), the identity an Identity Request asks for. */
export const IDENTITY_TYPE = TYPE;
