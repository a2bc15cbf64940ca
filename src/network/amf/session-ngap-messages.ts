import type { SNssai } from '../nas/index.ts';
import type { NGAPPDU, SNSSAI } from '../ngap/generated/types.ts';
import type { UeNgapIds } from './ue-ngap-messages.ts';

/**
 * The PDU session resource messages the AMF sends for the SMF (TS 38.413 8.2.1-8.2.3, 9.2.1), built
 * from their IEs as NGAP-PDU-Contents lists them, with the criticalities given there. Each carries one
 * session: the SMF asks for one at a time.
 */

/** S-NSSAI (TS 38.413 9.3.1.24): SST, and SD when the slice has one. */
export function ngapSnssai(slice: SNssai): SNSSAI {
  return {
    sST: Uint8Array.of(slice.sst),
    ...(slice.sd === undefined
      ? {}
      : { sD: Uint8Array.of(slice.sd >> 16, (slice.sd >> 8) & 0xff, slice.sd & 0xff) }),
  };
}

const ids = (ueIds: UeNgapIds) =>
  [
    { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: ueIds.amfUeNgapId },
    { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ueIds.ranUeNgapId },
  ] as const;

/** PDU SESSION RESOURCE SETUP REQUEST (9.2.1.1) with the session's NAS-PDU (e.g. Establishment Accept). */
export function pduSessionResourceSetupRequest(
  ueIds: UeNgapIds,
  item: { pduSessionId: number; sNssai: SNssai; transfer: Uint8Array; nasPdu: Uint8Array | undefined },
): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 29,
      name: 'PDUSessionResourceSetup',
      criticality: 'reject',
      value: {
        protocolIEs: [
          ...ids(ueIds),
          {
            id: 74,
            name: 'PDUSessionResourceSetupListSUReq',
            criticality: 'reject',
            value: [
              {
                pDUSessionID: item.pduSessionId,
                ...(item.nasPdu === undefined ? {} : { pDUSessionNASPDU: item.nasPdu }),
                sNSSAI: ngapSnssai(item.sNssai),
                pDUSessionResourceSetupRequestTransfer: item.transfer,
              },
            ],
          },
        ],
      },
    },
  };
}

/** PDU SESSION RESOURCE MODIFY REQUEST (9.2.1.5) with the Modification Command. */
export function pduSessionResourceModifyRequest(
  ueIds: UeNgapIds,
  item: { pduSessionId: number; transfer: Uint8Array; nasPdu: Uint8Array },
): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 26,
      name: 'PDUSessionResourceModify',
      criticality: 'reject',
      value: {
        protocolIEs: [
          ...ids(ueIds),
          {
            id: 64,
            name: 'PDUSessionResourceModifyListModReq',
            criticality: 'reject',
            value: [
              {
                pDUSessionID: item.pduSessionId,
                nASPDU: item.nasPdu,
                pDUSessionResourceModifyRequestTransfer: item.transfer,
              },
            ],
          },
        ],
      },
    },
  };
}

/** PDU SESSION RESOURCE RELEASE COMMAND (9.2.1.3) with the Release Command in its NAS-PDU. */
export function pduSessionResourceReleaseCommand(
  ueIds: UeNgapIds,
  item: { pduSessionId: number; transfer: Uint8Array; nasPdu: Uint8Array | undefined },
): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 28,
      name: 'PDUSessionResourceRelease',
      criticality: 'reject',
      value: {
        protocolIEs: [
          ...ids(ueIds),
          ...(item.nasPdu === undefined
            ? []
            : [{ id: 38, name: 'NAS-PDU', criticality: 'ignore', value: item.nasPdu } as const]),
          {
            id: 79,
            name: 'PDUSessionResourceToReleaseListRelCmd',
            criticality: 'reject',
            value: [
              { pDUSessionID: item.pduSessionId, pDUSessionResourceReleaseCommandTransfer: item.transfer },
            ],
          },
        ],
      },
    },
  };
}
