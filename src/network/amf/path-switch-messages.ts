import type {
  Cause,
  NGAPPDU,
  PDUSessionResourceReleasedListPSAck,
  PDUSessionResourceReleasedListPSFail,
  PDUSessionResourceSwitchedList,
  UESecurityCapabilities,
} from '../ngap/generated/types.ts';
import type { NhChain } from '../security/handover-keys.ts';
import type { UeNgapIds } from './ue-ngap-messages.ts';

/**
 * The AMF's answers in the UE mobility procedures it serves (TS 38.413 8.4): Path Switch Request
 * Acknowledge and Failure (8.4.4), and Handover Preparation Failure for the N2 handover it does not
 * serve (8.4.1.3), with the criticalities of NGAP-PDU-Contents.
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
}

/** PATH SWITCH REQUEST ACKNOWLEDGE (TS 38.413 9.2.3.9). */
export function pathSwitchRequestAcknowledge(ids: UeNgapIds, ies: PathSwitchAcknowledgeIes): NGAPPDU {
  return {
    choice: 'successfulOutcome',
    value: {
      procedureCode: 25,
      name: 'PathSwitchRequest',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'ignore', value: ids.amfUeNgapId },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'ignore', value: ids.ranUeNgapId },
          {
            id: 119,
            name: 'UESecurityCapabilities',
            criticality: 'reject',
            value: ies.ueSecurityCapabilities,
          },
          {
            id: 93,
            name: 'SecurityContext',
            criticality: 'reject',
            value: {
              nextHopChainingCount: ies.securityContext.ncc,
              // Security Key (9.3.1.87): 256 bits.
              nextHopNH: { bytes: Uint8Array.from(ies.securityContext.key), length: 256 },
            },
          },
          { id: 77, name: 'PDUSessionResourceSwitchedList', criticality: 'ignore', value: ies.switched },
          ...(ies.released.length === 0
            ? []
            : [
                {
                  id: 68,
                  name: 'PDUSessionResourceReleasedListPSAck',
                  criticality: 'ignore',
                  value: ies.released,
                } as const,
              ]),
        ],
      },
    },
  };
}

/** PATH SWITCH REQUEST FAILURE (TS 38.413 9.2.3.10): every session of the request, released. */
export function pathSwitchRequestFailure(
  ids: UeNgapIds,
  released: PDUSessionResourceReleasedListPSFail,
): NGAPPDU {
  return {
    choice: 'unsuccessfulOutcome',
    value: {
      procedureCode: 25,
      name: 'PathSwitchRequest',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'ignore', value: ids.amfUeNgapId },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'ignore', value: ids.ranUeNgapId },
          { id: 69, name: 'PDUSessionResourceReleasedListPSFail', criticality: 'ignore', value: released },
        ],
      },
    },
  };
}

/** HANDOVER PREPARATION FAILURE (TS 38.413 9.2.3.3) with its cause. */
export function handoverPreparationFailure(ids: UeNgapIds, cause: Cause): NGAPPDU {
  return {
    choice: 'unsuccessfulOutcome',
    value: {
      procedureCode: 12,
      name: 'HandoverPreparation',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'ignore', value: ids.amfUeNgapId },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'ignore', value: ids.ranUeNgapId },
          { id: 15, name: 'Cause', criticality: 'ignore', value: cause },
        ],
      },
    },
  };
}
