import {
  decodeNasPdu,
  decodedView,
  isCiphered,
  messageTitle,
  type NasDecodeResult,
  type NasMessageType,
} from '../../nas/index.ts';

/**
 * What a radio event shows of a NAS-PDU inside an NGAP message (network.md section 3): the NAS message
 * decoded for a plain or integrity-protected PDU, `encrypted` for a ciphered one. The AMF cannot and
 * does not decipher stored messages.
 */
export function nasView(bytes: Uint8Array): Record<string, unknown> {
  const result = decodeNasPdu(bytes);
  if (!result.ok) return { error: result.error.detail };
  const { pdu } = result;
  if (pdu.kind === 'plain') return { decoded: decodedView(pdu.message) };
  if (isCiphered(pdu.securityHeaderType)) return { encrypted: true };
  return innerView(pdu.inner);
}

function innerView(inner: NasDecodeResult | undefined): Record<string, unknown> {
  if (inner === undefined) return { encrypted: true };
  return inner.ok ? { decoded: decodedView(inner.message) } : { error: inner.error.detail };
}

/**
 * The 5GMM/5GSM message name of a NAS-PDU, as a radio event's `nas` detail (network.md section 3):
 * `Registration Request`; undefined for a ciphered or undecodable one.
 */
export function nasMessageName(bytes: Uint8Array): string | undefined {
  const result = decodeNasPdu(bytes);
  if (!result.ok) return undefined;
  const { pdu } = result;
  let messageType: NasMessageType | undefined;
  if (pdu.kind === 'plain') messageType = pdu.message.messageType;
  else if (pdu.inner?.ok === true) messageType = pdu.inner.message.messageType;
  return messageType === undefined ? undefined : messageTitle(messageType);
}
