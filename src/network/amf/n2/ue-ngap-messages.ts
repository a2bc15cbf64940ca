import type { BitString } from '../../asn1/bit-string.ts';
import type { UeRadioCapability } from './radio-capability.ts';
import {
  buildDownlinkNASTransport,
  buildInitialContextSetupRequest,
  buildPaging,
  buildUEContextModificationRequest,
  buildUEContextReleaseCommand,
  buildUERadioCapabilityCheckRequest,
  buildRerouteNASRequest,
} from '../../ngap/generated/messages.ts';
import { encodeNgapPdu } from '../../ngap/ngap-codec.ts';
import { bits } from '../../ngap/ngap-values.ts';
import type {
  AllowedNSSAI,
  Cause,
  CoreNetworkAssistanceInformationForInactive,
  FiveGSTMSI,
  GUAMI,
  NGAPPDU,
  PDUSessionResourceSetupListCxtReq,
  TAIListForPaging,
  UEAggregateMaximumBitRate,
  UERadioCapabilityForPaging,
  UESecurityCapabilities,
} from '../../ngap/generated/types.ts';

/**
 * The UE-associated PDUs the AMF sends (TS 38.413 8.2, 8.3, 8.5, 8.6), from the AMF's own terms to
 * the generated message builders (ids and criticalities of NGAP-PDU-Contents).
 */

/** The pair that names a UE-associated logical NG-connection (TS 38.413 9.3.3.1, 9.3.3.2). */
export interface UeNgapIds {
  amfUeNgapId: number;
  ranUeNgapId: number;
}

/** DOWNLINK NAS TRANSPORT (TS 38.413 9.2.5.2). */
export function downlinkNasTransport(ids: UeNgapIds, nasPdu: Uint8Array): NGAPPDU {
  return buildDownlinkNASTransport({ amfUeNgapId: ids.amfUeNgapId, ranUeNgapId: ids.ranUeNgapId, nasPdu });
}

/** What Initial Context Setup Request carries besides the two ids (9.2.2.1). */
export interface InitialContextSetupIes {
  /** The subscribed UE-AMBR: present with (and only with) PDU sessions to set up (9.2.2.1). */
  ueAggregateMaximumBitRate?: UEAggregateMaximumBitRate;
  guami: GUAMI;
  /** PDU sessions whose user plane is set up with the context (a Service Request's reactivation). */
  pduSessions?: PDUSessionResourceSetupListCxtReq;
  allowedNssai: AllowedNSSAI;
  ueSecurityCapabilities: UESecurityCapabilities;
  /** KgNB, 256 bits (9.3.1.87). */
  securityKey: BitString;
  nasPdu?: Uint8Array;
  /** Core Network Assistance Information for RRC INACTIVE (9.3.1.15; rrc-inactive-assistance.ts). */
  inactiveAssistance?: CoreNetworkAssistanceInformationForInactive;
}

/**
 * INITIAL CONTEXT SETUP REQUEST (TS 38.413 9.2.2.1). Written field by field: an object spread and then
 * extended costs V8 a dictionary-mode copy (about 5 us here, once per registration).
 */
export function initialContextSetupRequest(
  ids: UeNgapIds,
  ies: InitialContextSetupIes,
  capability?: UeRadioCapability,
): NGAPPDU {
  const { pduSessions } = ies;
  return buildInitialContextSetupRequest({
    amfUeNgapId: ids.amfUeNgapId,
    ranUeNgapId: ids.ranUeNgapId,
    ueAggregateMaximumBitRate: ies.ueAggregateMaximumBitRate,
    coreNetworkAssistanceInformationForInactive: ies.inactiveAssistance,
    guami: ies.guami,
    pduSessionResourceSetupListCxtReq:
      pduSessions === undefined || pduSessions.length === 0 ? undefined : pduSessions,
    allowedNssai: ies.allowedNssai,
    ueSecurityCapabilities: ies.ueSecurityCapabilities,
    securityKey: ies.securityKey,
    nasPdu: ies.nasPdu,
    ueRadioCapability: capability?.ue,
    ueRadioCapabilityForPaging: capability?.forPaging,
    // 8.3.5.1: with the assistance information, the radio reports every RRC state transition of the UE.
    rrcInactiveTransitionReportRequest:
      ies.inactiveAssistance === undefined ? undefined : 'subsequent-state-transition-report',
  });
}

/**
 * UE CONTEXT RELEASE COMMAND (TS 38.413 9.2.2.5): by the pair when the RAN UE NGAP ID is known, else by
 * the AMF UE NGAP ID alone.
 */
export function ueContextReleaseCommand(
  ids: { amfUeNgapId: number; ranUeNgapId?: number },
  cause: Cause,
): NGAPPDU {
  return buildUEContextReleaseCommand({
    ueNgapIds:
      ids.ranUeNgapId === undefined
        ? { choice: 'aMF-UE-NGAP-ID', value: ids.amfUeNgapId }
        : {
            choice: 'uE-NGAP-ID-pair',
            value: { aMFUENGAPID: ids.amfUeNgapId, rANUENGAPID: ids.ranUeNgapId },
          },
    cause,
  });
}

/**
 * PAGING (TS 38.413 9.2.4.1): the 5G-S-TMSI, the tracking areas of the UE's registration area, and the
 * UE Radio Capability for Paging when the AMF holds one.
 */
export function paging(
  fiveGSTmsi: FiveGSTMSI,
  tais: TAIListForPaging,
  forPaging?: UERadioCapabilityForPaging,
): NGAPPDU {
  return buildPaging({
    uePagingIdentity: { choice: 'fiveG-S-TMSI', value: fiveGSTmsi },
    taiListForPaging: tais,
    // 9.2.4.1: the UE's radio capability for paging, when the AMF holds one (8.5.1.2: the NG-RAN node
    // may use it to page the UE).
    ...(forPaging === undefined ? {} : { ueRadioCapabilityForPaging: forPaging }),
  });
}

/** What a UE Context Modification Request from the AMF carries besides the two ids (9.2.2.7). */
export interface ContextModificationIes {
  /** A new subscribed UE-AMBR. */
  ueAmbr?: UEAggregateMaximumBitRate;
  /** New Core Network Assistance Information for RRC INACTIVE (9.3.1.15). */
  inactiveAssistance?: CoreNetworkAssistanceInformationForInactive;
  /** A KgNB from a new KAMF (9.3.1.87; TS 33.501 6.9.4.4). */
  securityKey?: BitString;
}

/** UE CONTEXT MODIFICATION REQUEST (TS 38.413 9.2.2.7). */
export function ueContextModificationRequest(ids: UeNgapIds, ies: ContextModificationIes): NGAPPDU {
  return buildUEContextModificationRequest({
    amfUeNgapId: ids.amfUeNgapId,
    ranUeNgapId: ids.ranUeNgapId,
    ueAggregateMaximumBitRate: ies.ueAmbr,
    coreNetworkAssistanceInformationForInactive: ies.inactiveAssistance,
    securityKey: ies.securityKey,
  });
}

/**
 * UE RADIO CAPABILITY CHECK REQUEST (TS 38.413 8.14.2): is the UE's radio capability compatible
 * with the network's configuration for IMS voice? With the UE Radio Capability the AMF holds, so that the
 * radio need not ask the UE (8.14.2.2).
 */
export function ueRadioCapabilityCheckRequest(ids: UeNgapIds, capability: Uint8Array | undefined): NGAPPDU {
  return buildUERadioCapabilityCheckRequest({
    amfUeNgapId: ids.amfUeNgapId,
    ranUeNgapId: ids.ranUeNgapId,
    ...(capability === undefined ? {} : { ueRadioCapability: capability }),
  });
}

/**
 * REROUTE NAS REQUEST (TS 38.413 9.2.5.5, 8.6.5): the radio is to send `initial` (the Initial UE Message
 * as received) to an AMF of the AMF set `amfSetId`. No AMF UE NGAP ID: the radio never heard one, so no
 * UE-associated logical NG-connection exists on its side (8.6.5.2).
 */
export function rerouteNasRequest(ranUeNgapId: number, initial: NGAPPDU, amfSetId: number): NGAPPDU {
  return buildRerouteNASRequest({
    ranUeNgapId,
    ngapMessage: encodeNgapPdu(initial),
    amfSetId: bits(amfSetId, 10),
  });
}
