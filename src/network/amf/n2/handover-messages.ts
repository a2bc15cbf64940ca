import {
  buildDownlinkRANStatusTransfer,
  buildHandoverCancelAcknowledge,
  buildHandoverCommand,
  buildHandoverPreparationFailure,
  buildHandoverRequest,
} from '../../ngap/generated/messages.ts';
import type {
  AllowedNSSAI,
  Cause,
  CoreNetworkAssistanceInformationForInactive,
  GUAMI,
  HandoverType,
  NGAPPDU,
  PDUSessionResourceHandoverList,
  PDUSessionResourceSetupListHOReq,
  PDUSessionResourceToReleaseListHOCmd,
  RANStatusTransferTransparentContainer,
  UEAggregateMaximumBitRate,
  UESecurityCapabilities,
} from '../../ngap/generated/types.ts';
import type { NhChain } from '../../security/handover-keys.ts';
import type { UeNgapIds } from './ue-ngap-messages.ts';

/**
 * The AMF's PDUs of an intra-AMF N2 handover (TS 38.413 8.4.1-8.4.6), from its own terms to the
 * generated message builders.
 */

/** HANDOVER PREPARATION FAILURE (TS 38.413 9.2.3.3) with its cause. */
export function handoverPreparationFailure(ids: UeNgapIds, cause: Cause): NGAPPDU {
  return buildHandoverPreparationFailure({
    amfUeNgapId: ids.amfUeNgapId,
    ranUeNgapId: ids.ranUeNgapId,
    cause,
  });
}

/** What Handover Request carries (9.2.3.4), the AMF UE NGAP ID being the target connection's. */
interface HandoverRequestIes {
  handoverType: HandoverType;
  /** The cause of Handover Required, passed on (TS 23.502 4.9.1.3.2 step 7). */
  cause: Cause;
  ueAggregateMaximumBitRate: UEAggregateMaximumBitRate;
  ueSecurityCapabilities: UESecurityCapabilities;
  /** The fresh {NH, NCC} (TS 33.501 6.9.2.3.3). */
  securityContext: NhChain;
  sessions: PDUSessionResourceSetupListHOReq;
  allowedNssai: AllowedNSSAI;
  sourceToTargetTransparentContainer: Uint8Array;
  guami: GUAMI;
  /** What the source was last given for RRC INACTIVE (9.3.1.15), so the target need not be told again. */
  inactiveAssistance: CoreNetworkAssistanceInformationForInactive | undefined;
}

/** HANDOVER REQUEST (TS 38.413 9.2.3.4) to the target. */
export function handoverRequest(amfUeNgapId: number, ies: HandoverRequestIes): NGAPPDU {
  return buildHandoverRequest({
    amfUeNgapId,
    handoverType: ies.handoverType,
    cause: ies.cause,
    ueAggregateMaximumBitRate: ies.ueAggregateMaximumBitRate,
    ueSecurityCapabilities: ies.ueSecurityCapabilities,
    securityContext: {
      nextHopChainingCount: ies.securityContext.ncc,
      // Security Key (9.3.1.87): 256 bits.
      nextHopNH: { bytes: Uint8Array.from(ies.securityContext.key), length: 256 },
    },
    pduSessionResourceSetupListHoReq: ies.sessions,
    allowedNssai: ies.allowedNssai,
    sourceToTargetTransparentContainer: ies.sourceToTargetTransparentContainer,
    guami: ies.guami,
    coreNetworkAssistanceInformationForInactive: ies.inactiveAssistance,
  });
}

/** HANDOVER COMMAND (TS 38.413 9.2.3.2) to the source. */
export function handoverCommand(
  ids: UeNgapIds,
  ies: {
    handoverType: HandoverType;
    handedOver: PDUSessionResourceHandoverList;
    toRelease: PDUSessionResourceToReleaseListHOCmd;
    targetToSourceTransparentContainer: Uint8Array;
  },
): NGAPPDU {
  return buildHandoverCommand({
    amfUeNgapId: ids.amfUeNgapId,
    ranUeNgapId: ids.ranUeNgapId,
    handoverType: ies.handoverType,
    pduSessionResourceHandoverList: ies.handedOver,
    pduSessionResourceToReleaseListHoCmd: ies.toRelease.length === 0 ? undefined : ies.toRelease,
    targetToSourceTransparentContainer: ies.targetToSourceTransparentContainer,
  });
}

/** HANDOVER CANCEL ACKNOWLEDGE (TS 38.413 9.2.3.12). */
export function handoverCancelAcknowledge(ids: UeNgapIds): NGAPPDU {
  return buildHandoverCancelAcknowledge({ amfUeNgapId: ids.amfUeNgapId, ranUeNgapId: ids.ranUeNgapId });
}

/** DOWNLINK RAN STATUS TRANSFER (TS 38.413 9.2.3.14): the source's container, as received, to the target. */
export function downlinkRanStatusTransfer(
  ids: UeNgapIds,
  container: RANStatusTransferTransparentContainer,
): NGAPPDU {
  return buildDownlinkRANStatusTransfer({
    amfUeNgapId: ids.amfUeNgapId,
    ranUeNgapId: ids.ranUeNgapId,
    ranStatusTransferTransparentContainer: container,
  });
}
