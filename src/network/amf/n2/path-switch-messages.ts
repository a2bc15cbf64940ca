import {
  buildPathSwitchRequestAcknowledge,
  buildPathSwitchRequestFailure,
} from '../../ngap/generated/messages.ts';
import type {
  AllowedNSSAI,
  NGAPPDU,
  PDUSessionResourceReleasedListPSAck,
  PDUSessionResourceReleasedListPSFail,
  PDUSessionResourceSwitchedList,
  UESecurityCapabilities,
} from '../../ngap/generated/types.ts';
import type { NhChain } from '../../security/handover-keys.ts';
import type { UeNgapIds } from './ue-ngap-messages.ts';

/**
 * The AMF's answers in the Xn handover (TS 38.413 8.4.4): Path Switch Request Acknowledge and Failure,
 * through the generated message builders. N2 handover's: handover-messages.ts.
 */

/** What Path Switch Request Acknowledge carries besides the two ids (9.2.3.9). */
interface PathSwitchAcknowledgeIes {
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
