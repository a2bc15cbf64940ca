// Sending a security-protected NAS message (TS 24.501 4.4.3.3, 4.4.3.4, 9.1.1): cipher the plain message
// for header types 2 and 4, compute the MAC over sequence number || (ciphered) message with the sender's
// NAS COUNT and DIRECTION, then spend that COUNT.
import { nasEncrypt, nasMac, type NasSecurityInput } from '../../crypto/nas-algorithms.ts';
import {
  encodeSecurityProtected,
  isCiphered,
  macInput,
  type ProtectedSecurityHeaderType,
} from '../nas/security-header.ts';
import { MAX_NAS_COUNT, sequenceNumberOf } from './nas-count.ts';
import {
  advanceSendCount,
  NAS_CONNECTION_IDENTIFIER_3GPP,
  sendDirection,
  type NasSecurityContext,
} from './security-context.ts';

const NO_MAC = new Uint8Array(4);

/** True when the context has no NAS COUNT left to send with: a new KAMF must be taken into use first. */
export function sendCountExhausted(context: NasSecurityContext): boolean {
  return context.nextSendCount > MAX_NAS_COUNT;
}

/**
 * The security-protected form of `plainNas` under `context`, using and advancing this side's NAS COUNT.
 * Throws a RangeError when the context's COUNT is exhausted (check `sendCountExhausted`): a wrapped COUNT
 * would reuse a key stream.
 */
export function protect(
  context: NasSecurityContext,
  plainNas: Uint8Array,
  securityHeaderType: ProtectedSecurityHeaderType,
): Uint8Array {
  if (sendCountExhausted(context)) throw new RangeError('NAS COUNT exhausted: take a new KAMF into use');
  const count = context.nextSendCount;
  const parameters = {
    count,
    bearer: NAS_CONNECTION_IDENTIFIER_3GPP,
    direction: sendDirection(context.side),
  };
  const cipheringInput: NasSecurityInput = { key: context.knasEnc, ...parameters };
  const integrityInput: NasSecurityInput = { key: context.knasInt, ...parameters };
  const payload = isCiphered(securityHeaderType)
    ? nasEncrypt(context.ciphering, cipheringInput, plainNas)
    : plainNas;
  const sequenceNumber = sequenceNumberOf(count);
  const mac = nasMac(
    context.integrity,
    integrityInput,
    macInput({ securityHeaderType, mac: NO_MAC, sequenceNumber, payload }),
  );
  advanceSendCount(context);
  return encodeSecurityProtected({ securityHeaderType, mac, sequenceNumber, payload });
}
