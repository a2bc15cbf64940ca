import {
  causeLabel,
  encodeNasMessage,
  hex,
  messageTitle,
  SECURITY_HEADER_TYPE,
  type FiveGmmMessage,
  type Guti,
  type MobileIdentity,
  type NasMessageType,
} from '../../nas/index.ts';
import { protect, sendCountExhausted, type NasSecurityContext } from '../../nas-security/index.ts';
import type { NasMessageEvent } from '../../events/network-events.ts';
import type { AmfContext } from '../context/amf-context.ts';
import type { AmfUe } from '../context/amf-ue.ts';
import { connectionOf } from '../context/cm-state.ts';
import { smsLogDetails } from './sms-summary.ts';

/** The parts of the AMF context this procedure uses. */
export type NasLinkAmf = Pick<AmfContext, 'events' | 'ngap' | 'records'>;

/**
 * A 5G-GUTI as the subscriber logs show it (TS 23.003 2.10.1): MCC, MNC, the AMF Identifier (region,
 * set and pointer: 6 hex digits) and the 5G-TMSI (8 hex digits).
 */
export function gutiText(guti: Guti): string {
  const amfId = (guti.amfRegionId << 16) | (guti.amfSetId << 6) | guti.amfPointer;
  return `${guti.mcc}${guti.mnc}${amfId.toString(16).padStart(6, '0')}${guti.tmsi.toString(16).padStart(8, '0')}`;
}

/**
 * A SUCI in the form of TS 23.003 2.2B / 28.7.3: `suci-0-<MCC>-<MNC>-<routing indicator>-<scheme>-<key
 * id>-<scheme output>` (the MSIN for the null scheme, else the output in hex).
 */
export function suciText(identity: MobileIdentity): string | undefined {
  if (identity.type !== 'suci') return undefined;
  if (identity.supiFormat === 'nai') return identity.nai;
  const output = identity.schemeOutput;
  const text =
    output.scheme === 'null'
      ? output.msin
      : output.scheme === 'other'
        ? hex(output.output)
        : hex(Buffer.concat([output.eccEphemeralPublicKey, output.ciphertext, output.macTag]));
  return [
    'suci',
    '0',
    identity.mcc,
    identity.mnc,
    identity.routingIndicator,
    identity.protectionScheme,
    identity.homeNetworkPublicKeyId,
    text,
  ].join('-');
}

/** The identity a subscriber log names (network.md section 4): the 5G-GUTI assigned, the SUCI sent, or
 * the 5G-GUTI an unmapped UE named itself with. */
function identityDetails(ue: AmfUe): Record<string, string> {
  if (ue.guti !== undefined) return { guti: gutiText(ue.guti) };
  if (ue.suci !== undefined) return { suci: ue.suci };
  const named = ue.unmapped?.guti;
  return named === undefined ? {} : { guti: named };
}

/** `details` of a subscriber log (network.md section 4): radio, suci or guti, cause. */
function logDetails(ue: AmfUe, cause: number | undefined): Record<string, unknown> {
  // Built by assignment, not spreads: V8 makes an object of several spreads in its runtime (a few µs per
  // NAS message). Keys in the same order: radio, identity, cause.
  const details: Record<string, unknown> = ue.lastRadio === undefined ? {} : { radio: ue.lastRadio };
  Object.assign(details, identityDetails(ue));
  if (cause !== undefined) details.cause = causeLabel('5gmm', cause);
  return details;
}

/**
 * A subscriber log's level (network.md section 4): `warn` for the rejects (Registration, Service,
 * Authentication, PDU Session ... Reject), failures (Authentication Failure) and status messages
 * (5GMM Status, 5GSM Status: an error report, TS 24.501 5.4.6, 6.5) of 5GMM and 5GSM; `info` otherwise.
 */
export function subscriberLogLevel(messageType: NasMessageType): 'info' | 'warn' {
  return /(Reject|Failure|Status)$/.test(messageType) ? 'warn' : 'info';
}

/** The 5GMM cause a message carries, for the log's details. */
function causeOf(message: FiveGmmMessage): number | undefined {
  const cause = (message as { fiveGmmCause?: unknown }).fiveGmmCause;
  return typeof cause === 'number' ? cause : undefined;
}

/**
 * A NAS message of an identified device: its subscriber log (the records' path, with its back-pressure)
 * and the network's event (metrics, live subscribers).
 */
export function recordNas(amf: Pick<AmfContext, 'events' | 'records'>, message: NasMessageEvent): void {
  amf.records.recordSubscriberLog(message);
  amf.events.emit('nas.message', message);
}

/**
 * One subscriber log per 5GMM message either way (network.md section 4), once the SUPI is known or the
 * UE is known to be unmapped (then under the IMSI its SUCI shows in clear, or none): `raw` the plain NAS
 * message. A full records queue drops the row, never the signalling.
 */
export function logNas(
  amf: NasLinkAmf,
  ue: AmfUe,
  direction: 'inbound' | 'outbound',
  message: FiveGmmMessage,
  plain: Uint8Array,
): void {
  const imsi = ue.supi ?? ue.unmapped?.imsi;
  if (imsi === undefined) return;
  recordNas(amf, {
    level: subscriberLogLevel(message.messageType),
    imsi,
    event: messageTitle(message.messageType),
    direction,
    raw: plain,
    // A NAS Transport's SMS is named in its log (sms-summary.ts); no other message pays for the look.
    details:
      message.messageType === 'ulNasTransport' || message.messageType === 'dlNasTransport'
        ? { ...logDetails(ue, causeOf(message)), ...smsLogDetails(message) }
        : logDetails(ue, causeOf(message)),
  });
}

/** How a downlink message is protected (TS 24.501 4.4.4.2, 4.4.5). */
type Protection =
  /** Before a security context exists: Identity Request, Authentication Request/Reject, rejects. */
  | { kind: 'plain' }
  /** Security Mode Command: integrity protected with the new context, not ciphered (5.4.2.2). */
  | { kind: 'new-context'; context: NasSecurityContext }
  /** Everything after Security Mode Complete: integrity protected and ciphered. */
  | { kind: 'current' };

/**
 * The NAS-PDU of a 5GMM message for `ue`, protected as asked (`current`: with the UE's current context,
 * or plain when it has none), logged once. Undefined when the current context's NAS COUNT is spent: the
 * AMF never sends under a wrapped COUNT.
 */
export function nasPduFor(
  amf: NasLinkAmf,
  ue: AmfUe,
  message: FiveGmmMessage,
  protection: Protection,
): Uint8Array | undefined {
  const plain = encodeNasMessage(message);
  const context =
    protection.kind === 'new-context'
      ? protection.context
      : protection.kind === 'current'
        ? ue.security
        : undefined;
  if (context !== undefined && sendCountExhausted(context)) return undefined;
  logNas(amf, ue, 'outbound', message, plain);
  if (context === undefined) return plain;
  return protect(
    context,
    plain,
    protection.kind === 'new-context'
      ? SECURITY_HEADER_TYPE.integrityProtectedWithNewSecurityContext
      : SECURITY_HEADER_TYPE.integrityProtectedAndCiphered,
  );
}

/** Sends a 5GMM message in Downlink NAS Transport; false when the UE has no connection or it failed. */
export function sendNas(
  amf: NasLinkAmf,
  ue: AmfUe,
  message: FiveGmmMessage,
  protection: Protection,
): boolean {
  const connection = connectionOf(ue);
  if (connection === undefined || connection.phase !== 'active') return false;
  const pdu = nasPduFor(amf, ue, message, protection);
  return pdu !== undefined && amf.ngap.sendNas(connection, pdu);
}
