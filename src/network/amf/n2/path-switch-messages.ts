import {
  buildHandoverPreparationFailure,
  buildPathSwitchRequestAcknowledge,
  buildPathSwitchRequestFailure,
} from '../../ngap/generated/messages.ts';
import type {
  AllowedNSSAI,
  Cause,
  NGAPPDU,
  PDUSessionResourceReleasedListPSAck,
  PDUSessionResourceReleasedListPSFail,
  PDUSessionResourceSwitchedList,
  UESecurityCapabilities,
} from '../../ngap/generated/types.ts';
import type { NhChain } from '../../security/handover-keys.ts';
import type { UeNgapIds } from './ue-ngap-messages.ts';

/**
 * The AMF's answers in the UE mobility procedures it serves (TS 38.413 8.4): Path Switch Request
 * Acknowledge and Failure (8.4.4), and Handover Preparation Failure for the N2 handover it does not
 * serve (8.4.1.3), through the generated message builders.
 */

/** What Path Switch Request Acknowledge carries besides the two ids (9.2.3.9). */
export interface PathSwitchAcknowledgeIes {
  /** The UE security capabilities the AMF holds (TS 33.501 6.7.3.1). */
  ueSecurityCapabilities: UESecurityCapabilities;
  /** The fresh {NH, NCC} for the target node's next handover (TS 33.501 6.9.2.3.3). */
  securityContext: NhChain;
  switched: PDUSessionResourceSwitchedList;
  /** Sessions the SMF could not switch; omitted when none. */
  released: PDUSessionResourceReleasedListPSAck;
  /** The UE's Allowed NSSAI: mandatory in the Acknowledge (9.2.3.9). */
  allowedNssai: AllowedNSSAI;
}

/** PATH SWITCH REQUEST ACKNOWLEDGE (TS 38.413 9.2.3.9). */
export function pathSwitchRequestAcknowledge(ids: UeNgapIds, ies: PathSwitchAcknowledgeIes): NGAPPDU {
  return buildPathSwitchRequestAcknowledge({
    ...ids,
    ueSecurityCapabilities: ies.ueSecurityCapabilities,
    securityContext: {
      nextHopChainingCount: ies.securityContext.ncc,
      // Security Key (9.3.1.87): 256 bits.
      nextHopNH: { bytes: Uint8Array.from(ies.securityContext.key), length: 256 },
    },
    pduSessionResourceSwitchedList: ies.switched,
    pduSessionResourceReleasedListPsAck: ies.released.length === 0 ? undefined : ies.released,
    allowedNssai: ies.allowedNssai,
  });
}

/** PATH SWITCH REQUEST FAILURE (TS 38.413 9.2.3.10): every session of the request, released. */
export function pathSwitchRequestFailure(
  ids: UeNgapIds,
  released: PDUSessionResourceReleasedListPSFail,
): NGAPPDU {
  return buildPathSwitchRequestFailure({
    amfUeNgapId: ids.amfUeNgapId,
    ranUeNgapId: ids.ranUeNgapId,
    pduSessionResourceReleasedListPsFail: released,
  });
}

/** HANDOVER PREPARATION FAILURE (TS 38.413 9.2.3.3) with its cause. */
export function handoverPreparationFailure(ids: UeNgapIds, cause: Cause): NGAPPDU {
  return buildHandoverPreparationFailure({
    amfUeNgapId: ids.amfUeNgapId,
    ranUeNgapId: ids.ranUeNgapId,
    cause,
  });
}
