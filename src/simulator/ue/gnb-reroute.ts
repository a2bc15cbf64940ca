// The simulated node's side of Reroute NAS Request (TS 38.413 8.6.5): the AMF hands back a UE's Initial
// UE Message for an AMF of the AMF set it names; the node sends it there (gnb-amfs.ts picks the AMF).
import { readInitialUEMessage, readRerouteNASRequest } from '../../network/ngap/generated/messages.ts';
import type { AllowedNSSAI, NGAPPDU, RRCEstablishmentCause } from '../../network/ngap/generated/types.ts';
import { decodeNgapPdu } from '../../network/ngap/ngap-codec.ts';

/** What a Reroute NAS Request asks, with the Initial UE Message it carries read. */
export interface Reroute {
  ranUeNgapId: number;
  /** The AMF Set ID (10 bits) whose AMFs may take the UE. */
  amfSetId: number;
  allowedNssai: AllowedNSSAI | undefined;
  /** The Initial UE Message's NAS-PDU and RRC establishment cause, to send again unchanged. */
  nasPdu: Uint8Array;
  cause: RRCEstablishmentCause;
}

/**
 * `pdu` read as a Reroute NAS Request whose NGAP Message is an Initial UE Message; undefined when it is
 * another message, or one that does not read (TS 38.413 10.3: not acted on).
 */
export function readReroute(pdu: NGAPPDU): Reroute | undefined {
  if (pdu.choice !== 'initiatingMessage' || pdu.value.name !== 'RerouteNASRequest') return undefined;
  const read = readRerouteNASRequest(pdu);
  if (!read.ok) return undefined;
  const inner = decodeNgapPdu(read.message.ngapMessage);
  if (!inner.ok) return undefined;
  const initial = readInitialUEMessage(inner.value);
  if (!initial.ok) return undefined;
  const { bytes, length } = read.message.amfSetId;
  // A BIT STRING's bits sit at the top of its bytes: 10 bits in two octets.
  const amfSetId = (((bytes[0] ?? 0) << 8) | (bytes[1] ?? 0)) >> (16 - length);
  return {
    ranUeNgapId: read.message.ranUeNgapId,
    amfSetId,
    allowedNssai: read.message.allowedNssai,
    nasPdu: initial.message.nasPdu,
    // Criticality ignore (9.2.5.1): absent, the UE's initial NAS signalling is what it was.
    cause: initial.message.rrcEstablishmentCause ?? 'mo-Signalling',
  };
}
