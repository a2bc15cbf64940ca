// The UE-associated NGAP PDUs a gNB sends for its UEs (TS 38.413 9.2.2, 9.2.5), through the generated
// message builders, and plain readings of what the AMF sends them. A reading never throws: an odd PDU
// reads as undefined fields.
import {
  buildInitialContextSetupFailure,
  buildInitialContextSetupResponse,
  buildRRCInactiveTransitionReport,
  buildInitialUEMessage,
  buildNASNonDeliveryIndication,
  buildUEContextReleaseComplete,
  buildUEContextReleaseRequest,
  buildUERadioCapabilityInfoIndication,
  buildUplinkNASTransport,
  readDownlinkNASTransport,
  readInitialContextSetupRequest,
  readPaging,
  readUEContextReleaseCommand,
  type InitialUEMessage,
} from '../../network/ngap/generated/messages.ts';
import type {
  Cause,
  NGAPPDU,
  PDUSessionResourceSetupListCxtReq,
  CoreNetworkAssistanceInformationForInactive,
  RRCInactiveTransitionReportRequest,
  PDUSessionResourceSetupListCxtRes,
  RRCEstablishmentCause,
  UserLocationInformation,
} from '../../network/ngap/generated/types.ts';
import { bits, plmnIdentity, tac } from '../../network/ngap/ngap-values.ts';
import type { Plmn } from '../../network/radio-id.ts';

/**
 * The serving cell of a UE and its TAI (TS 38.413 9.3.1.16): an NR CGI (36-bit NR cell identity), or an
 * E-UTRA CGI (28-bit E-UTRA cell identity) when an ng-eNB serves it.
 */
export type ServingCell =
  | { plmn: Plmn; nrCellIdentity: number; tac: number }
  | { plmn: Plmn; eutraCellIdentity: number; tac: number };

/**
 * User Location Information by serving cell: a UE-associated message carries it in most PDUs, and a cell
 * (an object nobody changes: a UE that moves gets another) always gives the same value, so it is built
 * once per cell. The NGAP encoder only reads it.
 */
const locations = new WeakMap<ServingCell, UserLocationInformation>();

export function userLocationInformation(cell: ServingCell): UserLocationInformation {
  let location = locations.get(cell);
  if (location === undefined) {
    location = buildUserLocationInformation(cell);
    locations.set(cell, location);
  }
  return location;
}

function buildUserLocationInformation(cell: ServingCell): UserLocationInformation {
  const plmn = plmnIdentity(cell.plmn.mcc, cell.plmn.mnc);
  if ('eutraCellIdentity' in cell) {
    return {
      choice: 'userLocationInformationEUTRA',
      value: {
        eUTRACGI: { pLMNIdentity: plmn, eUTRACellIdentity: bits(cell.eutraCellIdentity, 28) },
        tAI: { pLMNIdentity: plmn, tAC: tac(cell.tac) },
      },
    };
  }
  return {
    choice: 'userLocationInformationNR',
    value: {
      nRCGI: { pLMNIdentity: plmn, nRCellIdentity: bits(BigInt(cell.nrCellIdentity), 36) },
      tAI: { pLMNIdentity: plmn, tAC: tac(cell.tac) },
    },
  };
}

/** 5G-S-TMSI (TS 38.413 9.3.3.20): AMF Set ID (10 bits), AMF Pointer (6 bits), 5G-TMSI (32 bits). */
export interface FiveGSTmsi {
  amfSetId: number;
  amfPointer: number;
  tmsi: number;
}

/** INITIAL UE MESSAGE (9.2.5.1). */
export function initialUeMessage(input: {
  ranUeNgapId: number;
  nasPdu: Uint8Array;
  cell: ServingCell;
  cause: RRCEstablishmentCause;
  sTmsi?: FiveGSTmsi;
  /** After Reroute NAS Request (TS 38.413 8.6.5.2): the AMF Set ID and Allowed NSSAI it carried. */
  rerouted?: Pick<InitialUEMessage, 'amfSetId' | 'allowedNssai'>;
}): NGAPPDU {
  const { sTmsi } = input;
  return buildInitialUEMessage({
    ...input.rerouted,
    ranUeNgapId: input.ranUeNgapId,
    nasPdu: input.nasPdu,
    userLocationInformation: userLocationInformation(input.cell),
    rrcEstablishmentCause: input.cause,
    ...(sTmsi === undefined
      ? {}
      : {
          fiveGSTmsi: {
            aMFSetID: bits(sTmsi.amfSetId, 10),
            aMFPointer: bits(sTmsi.amfPointer, 6),
            fiveGTMSI: Uint8Array.of(
              sTmsi.tmsi >>> 24,
              (sTmsi.tmsi >>> 16) & 0xff,
              (sTmsi.tmsi >>> 8) & 0xff,
              sTmsi.tmsi & 0xff,
            ),
          },
        }),
  });
}

interface UeIds {
  amfUeNgapId: number;
  ranUeNgapId: number;
}

/** UPLINK NAS TRANSPORT (9.2.5.3). */
export function uplinkNasTransport(ids: UeIds, nasPdu: Uint8Array, cell: ServingCell): NGAPPDU {
  return buildUplinkNASTransport({ ...ids, nasPdu, userLocationInformation: userLocationInformation(cell) });
}

/** NAS NON DELIVERY INDICATION (9.2.5.4): a downlink NAS message the node did not deliver, and why. */
export function nasNonDeliveryIndication(ids: UeIds, nasPdu: Uint8Array, cause: Cause): NGAPPDU {
  return buildNASNonDeliveryIndication({ ...ids, nasPdu, cause });
}

/** INITIAL CONTEXT SETUP RESPONSE (9.2.2.2), with the PDU sessions set up, if any. */
export function initialContextSetupResponse(
  ids: UeIds,
  setUp: PDUSessionResourceSetupListCxtRes = [],
): NGAPPDU {
  return buildInitialContextSetupResponse({
    ...ids,
    ...(setUp.length === 0 ? {} : { pduSessionResourceSetupListCxtRes: setUp }),
  });
}

/** INITIAL CONTEXT SETUP FAILURE (9.2.2.3). */
export function initialContextSetupFailure(ids: UeIds, cause: Cause): NGAPPDU {
  return buildInitialContextSetupFailure({ ...ids, cause });
}

/** UE CONTEXT RELEASE REQUEST (9.2.2.4): the radio asks the AMF to release the UE's context. */
export function ueContextReleaseRequest(ids: UeIds, cause: Cause): NGAPPDU {
  return buildUEContextReleaseRequest({ ...ids, cause });
}

/** UE RADIO CAPABILITY INFO INDICATION (9.2.9.1): the UE's radio capability, as RRC gave it, for the AMF to keep. */
export function ueRadioCapabilityInfoIndication(
  ids: UeIds,
  ueRadioCapability: Uint8Array,
  forPagingOfNr?: Uint8Array,
): NGAPPDU {
  return buildUERadioCapabilityInfoIndication({
    ...ids,
    ueRadioCapability,
    ...(forPagingOfNr === undefined
      ? {}
      : { ueRadioCapabilityForPaging: { uERadioCapabilityForPagingOfNR: forPagingOfNr } }),
  });
}

/** RRC INACTIVE TRANSITION REPORT (TS 38.413 9.2.2.10): the UE's RRC state now, where it is. */
export function rrcInactiveTransitionReport(
  ids: UeIds,
  rrcState: 'inactive' | 'connected',
  cell: ServingCell,
): NGAPPDU {
  return buildRRCInactiveTransitionReport({
    ...ids,
    rrcState,
    userLocationInformation: userLocationInformation(cell),
  });
}

/** UE CONTEXT RELEASE COMPLETE (9.2.2.6). */
export function ueContextReleaseComplete(ids: UeIds, cell: ServingCell): NGAPPDU {
  return buildUEContextReleaseComplete({ ...ids, userLocationInformation: userLocationInformation(cell) });
}

/** A UE-associated message from the AMF, as the gNB acts on it. */
type AmfUeMessage =
  | { kind: 'downlink-nas'; amfUeNgapId: number; ranUeNgapId: number; nasPdu: Uint8Array }
  | {
      kind: 'initial-context-setup';
      amfUeNgapId: number;
      ranUeNgapId: number;
      nasPdu: Uint8Array | undefined;
      /** KgNB, 256 bits (TS 38.413 9.3.1.87). */
      securityKey: Uint8Array | undefined;
      /** PDU sessions to set up with the context (a Service Request's reactivation). */
      sessions: PDUSessionResourceSetupListCxtReq;
      /** Core Network Assistance Information for RRC INACTIVE (TS 38.413 9.3.1.15), if sent. */
      inactiveAssistance: CoreNetworkAssistanceInformationForInactive | undefined;
      /** The AMF asks for RRC Inactive Transition Reports (9.3.1.91), if it does. */
      rrcReportRequest: RRCInactiveTransitionReportRequest | undefined;
    }
  | {
      kind: 'ue-context-release';
      /** Both ids, or only the AMF's (TS 38.413 9.3.4.1 UE NGAP IDs). */
      amfUeNgapId: number;
      ranUeNgapId: number | undefined;
      cause: Cause | undefined;
    }
  | { kind: 'paging'; sTmsi: FiveGSTmsi | undefined }
  /** Something the gNB's UEs do not act on (the message name). */
  | { kind: 'other'; messageType: string };

/**
 * Reads what the AMF sent a gNB's UEs (TS 38.413 10.3 through the generated readers); undefined when a
 * mandatory IE of criticality reject is missing or one is not comprehended, or its IEs are out of order.
 */
export function readAmfUeMessage(pdu: NGAPPDU): AmfUeMessage | undefined {
  if (pdu.choice !== 'initiatingMessage') return { kind: 'other', messageType: pdu.choice ?? 'unknown' };
  const message = pdu.value;
  switch (message.name) {
    case 'DownlinkNASTransport': {
      const read = readDownlinkNASTransport(pdu);
      if (!read.ok) return undefined;
      const { amfUeNgapId, ranUeNgapId, nasPdu } = read.message;
      return { kind: 'downlink-nas', amfUeNgapId, ranUeNgapId, nasPdu };
    }
    case 'InitialContextSetup': {
      const read = readInitialContextSetupRequest(pdu);
      if (!read.ok) return undefined;
      const { message: request } = read;
      return {
        kind: 'initial-context-setup',
        amfUeNgapId: request.amfUeNgapId,
        ranUeNgapId: request.ranUeNgapId,
        nasPdu: request.nasPdu,
        securityKey: request.securityKey.bytes,
        sessions: request.pduSessionResourceSetupListCxtReq ?? [],
        inactiveAssistance: request.coreNetworkAssistanceInformationForInactive,
        rrcReportRequest: request.rrcInactiveTransitionReportRequest,
      };
    }
    case 'UEContextRelease': {
      const read = readUEContextReleaseCommand(pdu);
      if (!read.ok) return undefined;
      const { ueNgapIds: ids, cause } = read.message;
      if (ids.choice === 'uE-NGAP-ID-pair') {
        return {
          kind: 'ue-context-release',
          amfUeNgapId: ids.value.aMFUENGAPID,
          ranUeNgapId: ids.value.rANUENGAPID,
          cause,
        };
      }
      if (ids.choice === 'aMF-UE-NGAP-ID')
        return { kind: 'ue-context-release', amfUeNgapId: ids.value, ranUeNgapId: undefined, cause };
      return undefined;
    }
    case 'Paging': {
      const read = readPaging(pdu);
      if (!read.ok) return undefined;
      // Of criticality ignore (TS 38.413 9.2.4.1): a paging without it names no UE.
      const identity = read.message.uePagingIdentity;
      if (identity?.choice !== 'fiveG-S-TMSI') return { kind: 'paging', sTmsi: undefined };
      const { aMFSetID, aMFPointer, fiveGTMSI } = identity.value;
      if (fiveGTMSI.length !== 4) return { kind: 'paging', sTmsi: undefined };
      return {
        kind: 'paging',
        sTmsi: {
          amfSetId: bitValue(aMFSetID),
          amfPointer: bitValue(aMFPointer),
          tmsi: Buffer.from(fiveGTMSI).readUInt32BE(0),
        },
      };
    }
    default:
      return { kind: 'other', messageType: message.name ?? 'unknown' };
  }
}

function bitValue(value: { bytes: Uint8Array; length: number }): number {
  let n = 0;
  for (const byte of value.bytes) n = n * 256 + byte;
  return Math.floor(n / 2 ** (value.bytes.length * 8 - value.length));
}
