import type { SNssai } from '../../nas/index.ts';
import {
  buildPDUSessionResourceModifyConfirm,
  buildPDUSessionResourceModifyRequest,
  buildPDUSessionResourceReleaseCommand,
  buildPDUSessionResourceSetupRequest,
} from '../../ngap/generated/messages.ts';
import type {
  NGAPPDU,
  PDUSessionResourceFailedToModifyListModCfm,
  PDUSessionResourceModifyListModCfm,
  SNSSAI,
} from '../../ngap/generated/types.ts';
import type { UeNgapIds } from './ue-ngap-messages.ts';

/**
 * The PDU session resource messages the AMF sends for the SMF (TS 38.413 8.2.1-8.2.3, 9.2.1), through
 * the generated message builders. Each carries one session: the SMF asks for one at a time.
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

/** PDU SESSION RESOURCE SETUP REQUEST (9.2.1.1) with the session's NAS-PDU (e.g. Establishment Accept). */
export function pduSessionResourceSetupRequest(
  ueIds: UeNgapIds,
  item: { pduSessionId: number; sNssai: SNssai; transfer: Uint8Array },
  nasPdu: Uint8Array | undefined,
): NGAPPDU {
  return buildPDUSessionResourceSetupRequest({
    amfUeNgapId: ueIds.amfUeNgapId,
    ranUeNgapId: ueIds.ranUeNgapId,
    pduSessionResourceSetupListSuReq: [
      {
        pDUSessionID: item.pduSessionId,
        ...(nasPdu === undefined ? {} : { pDUSessionNASPDU: nasPdu }),
        sNSSAI: ngapSnssai(item.sNssai),
        pDUSessionResourceSetupRequestTransfer: item.transfer,
      },
    ],
  });
}

/** PDU SESSION RESOURCE MODIFY REQUEST (9.2.1.5) with the Modification Command. */
export function pduSessionResourceModifyRequest(
  ueIds: UeNgapIds,
  item: { pduSessionId: number; transfer: Uint8Array },
  nasPdu: Uint8Array,
): NGAPPDU {
  return buildPDUSessionResourceModifyRequest({
    amfUeNgapId: ueIds.amfUeNgapId,
    ranUeNgapId: ueIds.ranUeNgapId,
    pduSessionResourceModifyListModReq: [
      {
        pDUSessionID: item.pduSessionId,
        nASPDU: nasPdu,
        pDUSessionResourceModifyRequestTransfer: item.transfer,
      },
    ],
  });
}

/** PDU SESSION RESOURCE RELEASE COMMAND (9.2.1.3) with the Release Command in its NAS-PDU. */
export function pduSessionResourceReleaseCommand(
  ueIds: UeNgapIds,
  item: { pduSessionId: number; transfer: Uint8Array },
  nasPdu: Uint8Array | undefined,
): NGAPPDU {
  return buildPDUSessionResourceReleaseCommand({
    amfUeNgapId: ueIds.amfUeNgapId,
    ranUeNgapId: ueIds.ranUeNgapId,
    nasPdu,
    pduSessionResourceToReleaseListRelCmd: [
      { pDUSessionID: item.pduSessionId, pDUSessionResourceReleaseCommandTransfer: item.transfer },
    ],
  });
}

/**
 * PDU SESSION RESOURCE MODIFY CONFIRM (9.2.1.9): the sessions the SMF confirmed and those it did not;
 * an empty list is left out (both are optional, 9.2.1.9).
 */
export function pduSessionResourceModifyConfirm(
  ueIds: UeNgapIds,
  lists: {
    confirmed: PDUSessionResourceModifyListModCfm;
    failed: PDUSessionResourceFailedToModifyListModCfm;
  },
): NGAPPDU {
  return buildPDUSessionResourceModifyConfirm({
    amfUeNgapId: ueIds.amfUeNgapId,
    ranUeNgapId: ueIds.ranUeNgapId,
    ...(lists.confirmed.length === 0 ? {} : { pduSessionResourceModifyListModCfm: lists.confirmed }),
    ...(lists.failed.length === 0 ? {} : { pduSessionResourceFailedToModifyListModCfm: lists.failed }),
  });
}
