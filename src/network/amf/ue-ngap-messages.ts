import type { BitString } from '../asn1/bit-string.ts';
import type {
  AllowedNSSAI,
  Cause,
  FiveGSTMSI,
  GUAMI,
  NGAPPDU,
  PDUSessionResourceSetupListCxtReq,
  TAIListForPaging,
  UEAggregateMaximumBitRate,
  UESecurityCapabilities,
} from '../ngap/generated/types.ts';

/**
 * The UE-associated PDUs the AMF sends (TS 38.413 8.2, 8.3, 8.5, 8.6), built from their IEs as
 * NGAP-PDU-Contents lists them, with the criticalities given there.
 */

/** The pair that names a UE-associated logical NG-connection (TS 38.413 9.3.3.1, 9.3.3.2). */
export interface UeNgapIds {
  amfUeNgapId: number;
  ranUeNgapId: number;
}

/** DOWNLINK NAS TRANSPORT (TS 38.413 9.2.5.2). */
export function downlinkNasTransport(ids: UeNgapIds, nasPdu: Uint8Array): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 4,
      name: 'DownlinkNASTransport',
      criticality: 'ignore',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: ids.amfUeNgapId },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ids.ranUeNgapId },
          { id: 38, name: 'NAS-PDU', criticality: 'reject', value: nasPdu },
        ],
      },
    },
  };
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
}

/** INITIAL CONTEXT SETUP REQUEST (TS 38.413 9.2.2.1). */
export function initialContextSetupRequest(ids: UeNgapIds, ies: InitialContextSetupIes): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 14,
      name: 'InitialContextSetup',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: ids.amfUeNgapId },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ids.ranUeNgapId },
          ...(ies.ueAggregateMaximumBitRate === undefined
            ? []
            : [
                {
                  id: 110,
                  name: 'UEAggregateMaximumBitRate',
                  criticality: 'reject',
                  value: ies.ueAggregateMaximumBitRate,
                } as const,
              ]),
          { id: 28, name: 'GUAMI', criticality: 'reject', value: ies.guami },
          ...(ies.pduSessions === undefined || ies.pduSessions.length === 0
            ? []
            : [
                {
                  id: 71,
                  name: 'PDUSessionResourceSetupListCxtReq',
                  criticality: 'reject',
                  value: ies.pduSessions,
                } as const,
              ]),
          { id: 0, name: 'AllowedNSSAI', criticality: 'reject', value: ies.allowedNssai },
          {
            id: 119,
            name: 'UESecurityCapabilities',
            criticality: 'reject',
            value: ies.ueSecurityCapabilities,
          },
          { id: 94, name: 'SecurityKey', criticality: 'reject', value: ies.securityKey },
          ...(ies.nasPdu === undefined
            ? []
            : [{ id: 38, name: 'NAS-PDU', criticality: 'ignore', value: ies.nasPdu } as const]),
        ],
      },
    },
  };
}

/**
 * UE CONTEXT RELEASE COMMAND (TS 38.413 9.2.2.5): by the pair when the RAN UE NGAP ID is known, else by
 * the AMF UE NGAP ID alone.
 */
export function ueContextReleaseCommand(
  ids: { amfUeNgapId: number; ranUeNgapId?: number },
  cause: Cause,
): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 41,
      name: 'UEContextRelease',
      criticality: 'reject',
      value: {
        protocolIEs: [
          {
            id: 114,
            name: 'UE-NGAP-IDs',
            criticality: 'reject',
            value:
              ids.ranUeNgapId === undefined
                ? { choice: 'aMF-UE-NGAP-ID', value: ids.amfUeNgapId }
                : {
                    choice: 'uE-NGAP-ID-pair',
                    value: { aMFUENGAPID: ids.amfUeNgapId, rANUENGAPID: ids.ranUeNgapId },
                  },
          },
          { id: 15, name: 'Cause', criticality: 'ignore', value: cause },
        ],
      },
    },
  };
}

/** PAGING (TS 38.413 9.2.4.1): the 5G-S-TMSI and the tracking areas of the UE's registration area. */
export function paging(fiveGSTmsi: FiveGSTMSI, tais: TAIListForPaging): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 24,
      name: 'Paging',
      criticality: 'ignore',
      value: {
        protocolIEs: [
          {
            id: 115,
            name: 'UEPagingIdentity',
            criticality: 'ignore',
            value: { choice: 'fiveG-S-TMSI', value: fiveGSTmsi },
          },
          { id: 103, name: 'TAIListForPaging', criticality: 'ignore', value: tais },
        ],
      },
    },
  };
}
