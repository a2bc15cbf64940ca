// TP-UD with its header (TS 23.040 9.2.3.16, 9.2.3.24): the user data header's information elements,
// concatenation (9.2.3.24.1, 9.2.3.24.8) and the text or octets after the header in the alphabet
// TP-DCS gives. With the GSM 7-bit alphabet, TP-UDL counts septets and the text starts at the first
// septet boundary after the header (the fill bits, 9.2.3.16); otherwise it counts octets.
import type { DataCoding, SmsAlphabet } from './dcs.ts';
import { packSeptets, packedLength, septetsToText, textToSeptets, unpackSeptets } from './gsm7.ts';
import { fail, ok, type SmsDecodeResult } from './result.ts';

/** TP-UDHI, TP-UDL and the TP-UD octets as carried in a TPDU. */
export interface RawUserData {
  headerIndicator: boolean;
  /** TP-UDL: septets for the GSM 7-bit alphabet, else octets (header included). */
  length: number;
  bytes: Uint8Array;
}

export interface UserDataHeaderIe {
  iei: number;
  data: Uint8Array;
}

/** What the user data holds: the header's IEs, then text (GSM 7-bit, UCS-2) or octets (8-bit, compressed). */
export interface UserData {
  header?: UserDataHeaderIe[];
  text?: string;
  data?: Uint8Array;
}

/** TS 23.040 9.2.3.16: 140 octets of user data, 160 septets. */
export const MAX_USER_DATA_OCTETS = 140;
export const MAX_USER_DATA_SEPTETS = 160;

/** TS 23.040 9.2.3.24: concatenated short message IEIs. */
export const IEI_CONCAT_8BIT = 0x00;
export const IEI_CONCAT_16BIT = 0x08;

export interface Concatenation {
  reference: number;
  referenceBits: 8 | 16;
  /** Maximum number of short messages in the concatenated message (1-255). */
  total: number;
  /** Sequence number of this part (1-total). */
  sequence: number;
}

/** The TP-UD octets a TP-UDL stands for: septets packed for uncompressed GSM 7-bit, else octets (9.2.3.16). */
export function userDataOctets(coding: DataCoding, udl: number): number {
  return coding.alphabet === 'gsm7' && !coding.compressed ? packedLength(udl) : udl;
}

/** Octets of a header (its length octet included) holding `ies`. */
export function headerOctets(ies: readonly UserDataHeaderIe[]): number {
  return 1 + ies.reduce((sum, ie) => sum + 2 + ie.data.length, 0);
}

/** The first concatenation IE of a header, when it is valid (9.2.3.24.1: zero counts are ignored). */
export function concatenationOf(header: readonly UserDataHeaderIe[] | undefined): Concatenation | undefined {
  for (const ie of header ?? []) {
    const d = ie.data;
    if (ie.iei === IEI_CONCAT_8BIT && d.length === 3) {
      return validConcatenation({
        reference: d[0] as number,
        referenceBits: 8,
        total: d[1] as number,
        sequence: d[2] as number,
      });
    }
    if (ie.iei === IEI_CONCAT_16BIT && d.length === 4) {
      const reference = ((d[0] as number) << 8) | (d[1] as number);
      return validConcatenation({
        reference,
        referenceBits: 16,
        total: d[2] as number,
        sequence: d[3] as number,
      });
    }
  }
  return undefined;
}

// 9.2.3.24.1: a total of 0, or a sequence number of 0 or above the total, makes the IE ignored.
function validConcatenation(c: Concatenation): Concatenation | undefined {
  return c.total === 0 || c.sequence === 0 || c.sequence > c.total ? undefined : c;
}

/** The concatenation IE for a part. */
export function concatenationIe(c: Concatenation): UserDataHeaderIe {
  return c.referenceBits === 8
    ? { iei: IEI_CONCAT_8BIT, data: Uint8Array.of(c.reference & 0xff, c.total, c.sequence) }
    : {
        iei: IEI_CONCAT_16BIT,
        data: Uint8Array.of((c.reference >> 8) & 0xff, c.reference & 0xff, c.total, c.sequence),
      };
}

function encodeHeader(ies: readonly UserDataHeaderIe[]): Uint8Array {
  const out = new Uint8Array(headerOctets(ies));
  out[0] = out.length - 1;
  let at = 1;
  for (const ie of ies) {
    out[at] = ie.iei;
    out[at + 1] = ie.data.length;
    out.set(ie.data, at + 2);
    at += 2 + ie.data.length;
  }
  return out;
}

/** Septets the header and its fill bits take in GSM 7-bit user data (9.2.3.16). */
export function headerSeptets(headerLength: number): number {
  return Math.ceil((headerLength * 8) / 7);
}

/**
 * TP-UDHI, TP-UDL and TP-UD for `content` in `alphabet`: text for GSM 7-bit and UCS-2 (UTF-16 code units,
 * big-endian), octets for 8-bit. Fails when the text has characters outside the alphabet or the whole
 * exceeds 140 octets.
 */
export function encodeUserData(content: UserData, alphabet: SmsAlphabet): SmsDecodeResult<RawUserData> {
  const header =
    content.header !== undefined && content.header.length > 0 ? encodeHeader(content.header) : undefined;
  const headerLength = header?.length ?? 0;
  if (alphabet === 'gsm7') {
    const septets = textToSeptets(content.text ?? '');
    if (septets === undefined) return fail('text outside the GSM 7-bit default alphabet and its extension');
    const skip = header === undefined ? 0 : headerSeptets(headerLength);
    const length = skip + septets.length;
    if (length > MAX_USER_DATA_SEPTETS) return fail(`user data of ${length} septets`);
    const bytes = new Uint8Array(packedLength(length));
    if (header !== undefined) bytes.set(header);
    packSeptets(septets, bytes, skip);
    return ok({ headerIndicator: header !== undefined, length, bytes });
  }
  let body: Uint8Array;
  if (alphabet === 'ucs2') {
    const text = content.text ?? '';
    body = new Uint8Array(text.length * 2);
    for (let i = 0; i < text.length; i++) {
      body[2 * i] = text.charCodeAt(i) >> 8;
      body[2 * i + 1] = text.charCodeAt(i) & 0xff;
    }
  } else body = content.data ?? new Uint8Array(0);
  const length = headerLength + body.length;
  if (length > MAX_USER_DATA_OCTETS) return fail(`user data of ${length} octets`);
  const bytes = new Uint8Array(length);
  if (header !== undefined) bytes.set(header);
  bytes.set(body, headerLength);
  return ok({ headerIndicator: header !== undefined, length, bytes });
}

function decodeHeader(bytes: Uint8Array): SmsDecodeResult<UserDataHeaderIe[]> {
  const end = 1 + (bytes[0] as number);
  const ies: UserDataHeaderIe[] = [];
  let at = 1;
  while (at < end) {
    const length = bytes[at + 1];
    if (length === undefined || at + 2 + length > end) return fail('user data header IE overruns the header');
    ies.push({ iei: bytes[at] as number, data: bytes.slice(at + 2, at + 2 + length) });
    at += 2 + length;
  }
  return ok(ies);
}

/** The header and the text or octets of user data, as its TP-DCS codes it. Never throws. */
export function decodeUserData(raw: RawUserData, coding: DataCoding): SmsDecodeResult<UserData> {
  const bytes = raw.bytes;
  if (bytes.length !== userDataOctets(coding, raw.length)) return fail('TP-UDL does not match the user data');
  let headerLength = 0;
  let header: UserDataHeaderIe[] | undefined;
  if (raw.headerIndicator) {
    if (bytes.length === 0) return fail('TP-UDHI set without a header');
    headerLength = 1 + (bytes[0] as number);
    if (headerLength > bytes.length) return fail('user data header longer than the user data');
    const decoded = decodeHeader(bytes);
    if (!decoded.ok) return decoded;
    header = decoded.value;
  }
  const withHeader = (rest: Omit<UserData, 'header'>): UserData => (header ? { header, ...rest } : rest);
  if (coding.compressed || coding.alphabet === '8bit')
    return ok(withHeader({ data: bytes.slice(headerLength) }));
  if (coding.alphabet === 'ucs2') {
    const body = bytes.subarray(headerLength);
    if (body.length % 2 !== 0) return fail('UCS-2 user data of an odd number of octets');
    const units: number[] = [];
    for (let i = 0; i < body.length; i += 2) units.push(((body[i] as number) << 8) | (body[i + 1] as number));
    return ok(withHeader({ text: String.fromCharCode(...units) }));
  }
  const skip = header === undefined ? 0 : headerSeptets(headerLength);
  if (skip > raw.length) return fail('user data header longer than TP-UDL');
  return ok(withHeader({ text: septetsToText(unpackSeptets(bytes, skip, raw.length)) }));
}
