import {
  decodeNasPdu,
  decodedView,
  isCiphered,
  messageTitle,
  nasPduMessageType,
  type NasDecodeResult,
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
 * `Registration Request`; undefined for a ciphered one or one whose headers do not read. Read from
 * the headers alone (`nasPduMessageType`): every NGAP PDU with a NAS-PDU is named, either way, and a
 * full decode here cost about 1.5 % of a registration's CPU.
 */
export function nasMessageName(bytes: Uint8Array): string | undefined {
  const messageType = nasPduMessageType(bytes);
  return messageType === undefined ? undefined : messageTitle(messageType);
}
