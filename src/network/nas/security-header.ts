// The security-protected 5GS NAS message, TS 24.501 9.1.1 and 4.4: extended protocol discriminator,
// security header type, message authentication code, sequence number, then the plain NAS message
// (ciphered for header types 2 and 4). The MAC is computed over the sequence number and the message
// (4.4.3.3); ciphering covers the message only (4.4.3.4). The algorithms themselves live elsewhere.
import { copyOf } from './ie-codec.ts';
import { nasError, type NasError } from './decode-error.ts';
import {
  decodeNasMessage,
  EPD,
  FIVEGMM_HEADER_LENGTH,
  plainMessageType,
  type NasDecodeResult,
  type NasMessage,
  type NasMessageType,
} from './message-codec.ts';

/** Security header types, TS 24.501 9.3.1. */
export const SECURITY_HEADER_TYPE = {
  plain: 0,
  integrityProtected: 1,
  integrityProtectedAndCiphered: 2,
  integrityProtectedWithNewSecurityContext: 3,
  integrityProtectedAndCipheredWithNewSecurityContext: 4,
} as const;

export type ProtectedSecurityHeaderType = 1 | 2 | 3 | 4;

export interface SecurityProtectedNasMessage {
  securityHeaderType: ProtectedSecurityHeaderType;
  /** Message authentication code, 4 octets. */
  mac: Uint8Array;
  /** The 8 least significant bits of the NAS COUNT. */
  sequenceNumber: number;
  /** The NAS message: plain for header types 1 and 3, ciphered for 2 and 4. */
  payload: Uint8Array;
}

const MAC_OFFSET = 2;
const MAC_LENGTH = 4;
const SEQUENCE_NUMBER_OFFSET = MAC_OFFSET + MAC_LENGTH;
/** EPD, security header type, MAC, sequence number. */
export const SECURITY_HEADER_LENGTH = SEQUENCE_NUMBER_OFFSET + 1;

export function isCiphered(securityHeaderType: ProtectedSecurityHeaderType): boolean {
  return (
    securityHeaderType === SECURITY_HEADER_TYPE.integrityProtectedAndCiphered ||
    securityHeaderType === SECURITY_HEADER_TYPE.integrityProtectedAndCipheredWithNewSecurityContext
  );
}

/** The octets the MAC is computed over: sequence number and payload (TS 24.501 4.4.3.3). */
export function macInput(message: SecurityProtectedNasMessage): Uint8Array {
  return Buffer.concat([Uint8Array.of(message.sequenceNumber & 0xff), message.payload]);
}

export function encodeSecurityProtected(message: SecurityProtectedNasMessage): Uint8Array {
  if (message.mac.length !== MAC_LENGTH) throw new RangeError('MAC is 4 octets');
  if (
    !Number.isInteger(message.sequenceNumber) ||
    message.sequenceNumber < 0 ||
    message.sequenceNumber > 0xff
  )
    throw new RangeError('sequence number is one octet');
  const head = new Uint8Array(SECURITY_HEADER_LENGTH);
  head[0] = EPD.fiveGmm;
  head[1] = message.securityHeaderType;
  head.set(message.mac, MAC_OFFSET);
  head[SEQUENCE_NUMBER_OFFSET] = message.sequenceNumber;
  return Buffer.concat([head, message.payload]);
}

/**
 * A received NAS PDU: a plain message, or a security-protected one whose inner message is decoded
 * when it is not ciphered (header types 1 and 3). A ciphered payload is deciphered by the caller and
 * then decoded with decodeNasMessage.
 */
export type NasPdu =
  | { kind: 'plain'; message: NasMessage }
  | (SecurityProtectedNasMessage & { kind: 'protected'; inner?: NasDecodeResult });

export type NasPduResult =
  { ok: true; pdu: NasPdu; errors: NasError[] } | { ok: false; error: NasError; errors: NasError[] };

export function decodeNasPdu(buffer: Uint8Array): NasPduResult {
  const octet = buffer[1];
  if (buffer[0] !== EPD.fiveGmm || octet === undefined || (octet & 0xf) === SECURITY_HEADER_TYPE.plain) {
    const result = decodeNasMessage(buffer);
    return result.ok
      ? { ok: true, pdu: { kind: 'plain', message: result.message }, errors: result.errors }
      : { ok: false, error: result.error, errors: result.errors };
  }
  const fail = (error: NasError): NasPduResult => ({ ok: false, error, errors: [error] });
  const securityHeaderType = octet & 0xf;
  if (securityHeaderType > SECURITY_HEADER_TYPE.integrityProtectedAndCipheredWithNewSecurityContext)
    return fail(nasError('unknown-security-header-type', 1, `security header type ${securityHeaderType}`));
  // The payload must at least hold a 5GMM header (7.2).
  if (buffer.length < SECURITY_HEADER_LENGTH + FIVEGMM_HEADER_LENGTH)
    return fail(nasError('message-too-short', 0, `${buffer.length} octets`));
  const pdu: NasPdu = {
    kind: 'protected',
    securityHeaderType: securityHeaderType as ProtectedSecurityHeaderType,
    mac: copyOf(buffer, MAC_OFFSET, MAC_OFFSET + MAC_LENGTH),
    sequenceNumber: buffer[SEQUENCE_NUMBER_OFFSET] ?? 0,
    payload: copyOf(buffer, SECURITY_HEADER_LENGTH),
  };
  if (!isCiphered(pdu.securityHeaderType)) pdu.inner = decodeNasMessage(pdu.payload);
  return { ok: true, pdu, errors: [] };
}

/**
 * The message type of a NAS PDU from its headers alone (TS 24.501 9.1.1: EPD, security header type,
 * then the plain message's header 9.2-9.7), without decoding any IE: that of a plain message, or of
 * the plain message inside an integrity-protected one (header types 1 and 3); undefined for a
 * ciphered one (2 and 4), whose inner header is ciphered too, and for headers `decodeNasPdu` refuses.
 * A message whose IEs do not decode is still named by its header.
 */
export function nasPduMessageType(buffer: Uint8Array): NasMessageType | undefined {
  const octet = buffer[1];
  if (buffer[0] !== EPD.fiveGmm || octet === undefined || (octet & 0xf) === SECURITY_HEADER_TYPE.plain)
    return plainMessageType(buffer);
  const securityHeaderType = octet & 0xf;
  if (securityHeaderType > SECURITY_HEADER_TYPE.integrityProtectedAndCipheredWithNewSecurityContext)
    return undefined;
  if (buffer.length < SECURITY_HEADER_LENGTH + FIVEGMM_HEADER_LENGTH) return undefined;
  if (isCiphered(securityHeaderType as ProtectedSecurityHeaderType)) return undefined;
  return plainMessageType(buffer.subarray(SECURITY_HEADER_LENGTH));
}
