// Receiving a security-protected NAS message (TS 24.501 4.4.3): estimate the NAS COUNT from the 8-bit
// sequence number, verify the MAC with the receiver's DIRECTION, refuse a COUNT already accepted
// (replay), decipher header types 2 and 4, decode the plain message. Any bytes give a result value.
import { timingSafeEqual } from 'node:crypto';

import { nasEncrypt, nasMac, type NasSecurityInput } from '../../crypto/nas-algorithms.ts';
import type { NasError } from '../nas/decode-error.ts';
import { decodeNasMessage, EPD, type NasMessage } from '../nas/message-codec.ts';
import {
  decodeNasPdu,
  isCiphered,
  macInput,
  SECURITY_HEADER_TYPE,
  type ProtectedSecurityHeaderType,
  type SecurityProtectedNasMessage,
} from '../nas/security-header.ts';
import { estimateCount } from './nas-count.ts';
import {
  acceptReceivedCount,
  NAS_CONNECTION_IDENTIFIER_3GPP,
  receiveDirection,
  type NasSecurityContext,
} from './security-context.ts';

/**
 * - `not-protected`: a plain NAS message (security header type 0, or a 5GSM message), not checked here;
 * - `decode`: not a well-formed protected message, or its plain message does not decode (7.2-7.5);
 * - `mac`: the MAC does not verify at the estimated COUNT;
 * - `replay`: the MAC verifies at a COUNT this context already accepted, or no COUNT is left.
 */
type UnprotectFailureReason = 'mac' | 'replay' | 'decode' | 'not-protected';

type UnprotectResult =
  | {
      ok: true;
      message: NasMessage;
      /** The plain NAS message's octets (deciphered for header types 2 and 4). */
      plain: Uint8Array;
      /** The NAS COUNT the message was verified with. */
      count: number;
      securityHeaderType: ProtectedSecurityHeaderType;
      /** Non-fatal decoding errors of the plain message (TS 24.501 7.6, 7.7). */
      errors: NasError[];
    }
  | {
      ok: false;
      reason: UnprotectFailureReason;
      detail: string;
      /**
       * With `mac`, the message inside when it travelled unciphered (header type 1 or 3) and decodes: TS 24.501
       * 4.4.4.3 lets the AMF process a few messages whose integrity check failed (e.g. a Registration Request
       * under a context the UE still holds and the AMF does not), by authenticating the UE again.
       */
      unverifiedMessage?: NasMessage;
    };

const SEQUENCE_NUMBER_MODULUS = 0x100;

/** Verifies and opens `bytes` received under `context`; a verified COUNT is accepted once and only once. */
export function unprotect(context: NasSecurityContext, bytes: Uint8Array): UnprotectResult {
  const headerOctet = bytes[1];
  if (
    bytes[0] !== EPD.fiveGmm ||
    headerOctet === undefined ||
    (headerOctet & 0x0f) === SECURITY_HEADER_TYPE.plain
  )
    return { ok: false, reason: 'not-protected', detail: 'plain NAS message' };
  const decoded = decodeNasPdu(bytes);
  if (!decoded.ok) return { ok: false, reason: 'decode', detail: decoded.error.kind };
  if (decoded.pdu.kind !== 'protected')
    return { ok: false, reason: 'not-protected', detail: 'plain NAS message' };
  const pdu = decoded.pdu;

  const count = estimateCount(context.highestReceivedCount, pdu.sequenceNumber);
  if (count === undefined) return { ok: false, reason: 'replay', detail: 'NAS COUNT exhausted' };
  // NIA0's MAC is all zero whatever the COUNT, so a replayed NIA0 message verifies: replay protection is
  // not active with NIA0 (TS 33.501 D.1).
  if (!macVerifies(context, pdu, count)) {
    // Protected under a COUNT already passed (the estimate is always the next one with that sequence number)?
    const earlier = count - SEQUENCE_NUMBER_MODULUS;
    if (earlier >= 0 && macVerifies(context, pdu, earlier))
      return { ok: false, reason: 'replay', detail: `NAS COUNT ${earlier} already accepted` };
    const detail = `MAC does not verify at NAS COUNT ${count}`;
    return pdu.inner?.ok === true
      ? { ok: false, reason: 'mac', detail, unverifiedMessage: pdu.inner.message }
      : { ok: false, reason: 'mac', detail };
  }
  acceptReceivedCount(context, count);

  const plain = isCiphered(pdu.securityHeaderType)
    ? nasEncrypt(context.ciphering, input(context, context.knasEnc, count), pdu.payload)
    : pdu.payload;
  // decodeNasPdu already decoded an unciphered message (header types 1 and 3).
  const message = pdu.inner ?? decodeNasMessage(plain);
  if (!message.ok) return { ok: false, reason: 'decode', detail: message.error.kind };
  return {
    ok: true,
    message: message.message,
    plain,
    count,
    securityHeaderType: pdu.securityHeaderType,
    errors: message.errors,
  };
}

function macVerifies(context: NasSecurityContext, pdu: SecurityProtectedNasMessage, count: number): boolean {
  const expected = nasMac(context.integrity, input(context, context.knasInt, count), macInput(pdu));
  return timingSafeEqual(expected, pdu.mac);
}

function input(context: NasSecurityContext, key: Buffer, count: number): NasSecurityInput {
  return { key, count, bearer: NAS_CONNECTION_IDENTIFIER_3GPP, direction: receiveDirection(context.side) };
}
