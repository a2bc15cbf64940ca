import { encodeComplete } from '../../../src/network/asn1/complete.ts';
import type { PerWriter } from '../../../src/network/asn1/per-writer.ts';
import {
  encodeHandoverRequestAcknowledgeTransfer,
  encodeHandoverRequiredTransfer,
  encodePathSwitchRequestTransfer,
  encodePDUSessionResourceModifyIndicationTransfer,
  encodePDUSessionResourceModifyResponseTransfer,
  encodePDUSessionResourceReleaseResponseTransfer,
  encodePDUSessionResourceSetupResponseTransfer,
  encodePDUSessionResourceSetupUnsuccessfulTransfer,
} from '../../../src/network/ngap/generated/codec.ts';
import type {
  Cause,
  NGAPPDU,
  UPTransportLayerInformation,
} from '../../../src/network/ngap/generated/types.ts';
import { bits, plmnIdentity, tac } from '../../../src/network/ngap/ngap-values.ts';
import type { UserPlane } from '../../../src/network/smf/smf.ts';
import { userLocation } from './test-ue.ts';

/**
 * What a valid gNB sends about a UE's PDU sessions and handovers (TS 38.413 9.2.1, 9.2.3), the
 * templates the session fuzz (session-fuzz.test.ts) mutates, with their transfers (9.3.4) as values and
 * encoders so that a field of a transfer can be given a random value. And a UPF that only counts.
 */

export type Ids = { amf: number; ran: number };

/** A transfer container (an OCTET STRING holding a PER value): its valid value and its encoder. */
export interface Transfer<T = unknown> {
  name: string;
  value: T;
  encode: (w: PerWriter, value: T) => void;
}

const transfer = <T>(name: string, value: T, encode: (w: PerWriter, value: T) => void): Transfer =>
  ({ name, value, encode }) as Transfer;

const validBytes = new WeakMap<Transfer, Uint8Array>();

/** The transfer's bytes (of its valid value: encoded once); throws when a mutated value breaks its constraints. */
export function encodeTransfer(t: Transfer, value?: unknown): Uint8Array {
  if (value !== undefined) return encodeComplete(value, true, t.encode);
  let bytes = validBytes.get(t);
  if (bytes === undefined) validBytes.set(t, (bytes = encodeComplete(t.value, true, t.encode)));
  return bytes;
}

/** The gNB's N3 tunnel end 127.0.0.2 with `teid` (TS 38.413 9.3.2.2). */
export function gtpTunnel(teid: number): UPTransportLayerInformation {
  return {
    choice: 'gTPTunnel',
    value: {
      transportLayerAddress: { bytes: Uint8Array.of(127, 0, 0, 2), length: 32 },
      gTPTEID: Uint8Array.of(0, 0, teid >> 8, teid & 0xff),
    },
  };
}

const qosPerTnl = (teid: number) => ({
  uPTransportLayerInformation: gtpTunnel(teid),
  associatedQosFlowList: [{ qosFlowIdentifier: 1 }],
});

export const TRANSFERS = {
  setupResponse: transfer(
    'PDUSessionResourceSetupResponseTransfer',
    { dLQosFlowPerTNLInformation: qosPerTnl(7) },
    encodePDUSessionResourceSetupResponseTransfer,
  ),
  setupUnsuccessful: transfer(
    'PDUSessionResourceSetupUnsuccessfulTransfer',
    { cause: { choice: 'radioNetwork', value: 'radio-resources-not-available' } },
    encodePDUSessionResourceSetupUnsuccessfulTransfer,
  ),
  modifyResponse: transfer(
    'PDUSessionResourceModifyResponseTransfer',
    { dLNGUUPTNLInformation: gtpTunnel(8), qosFlowAddOrModifyResponseList: [{ qosFlowIdentifier: 1 }] },
    encodePDUSessionResourceModifyResponseTransfer,
  ),
  modifyIndication: transfer(
    'PDUSessionResourceModifyIndicationTransfer',
    { dLQosFlowPerTNLInformation: qosPerTnl(9) },
    encodePDUSessionResourceModifyIndicationTransfer,
  ),
  releaseResponse: transfer(
    'PDUSessionResourceReleaseResponseTransfer',
    {},
    encodePDUSessionResourceReleaseResponseTransfer,
  ),
  pathSwitchRequest: transfer(
    'PathSwitchRequestTransfer',
    { dLNGUUPTNLInformation: gtpTunnel(10), qosFlowAcceptedList: [{ qosFlowIdentifier: 1 }] },
    encodePathSwitchRequestTransfer,
  ),
  handoverRequired: transfer(
    'HandoverRequiredTransfer',
    { directForwardingPathAvailability: 'direct-path-available' },
    encodeHandoverRequiredTransfer,
  ),
  handoverRequestAcknowledge: transfer(
    'HandoverRequestAcknowledgeTransfer',
    { dLNGUUPTNLInformation: gtpTunnel(11), qosFlowSetupResponseList: [{ qosFlowIdentifier: 1 }] },
    encodeHandoverRequestAcknowledgeTransfer,
  ),
} as const;

const idIes = (ids: Ids) =>
  [
    { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'ignore', value: ids.amf },
    { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'ignore', value: ids.ran },
  ] as const;

/** Items of one list: a PDU session id and the bytes of its transfer. */
export type Items = readonly { psi: number; transfer: Uint8Array }[];

/** PDU SESSION RESOURCE SETUP RESPONSE (9.2.1.2): set-up items and failed ones. */
export function setupResponse(ids: Ids, setUp: Items, failed: Items = []): NGAPPDU {
  return {
    choice: 'successfulOutcome',
    value: {
      procedureCode: 29,
      name: 'PDUSessionResourceSetup',
      criticality: 'reject',
      value: {
        protocolIEs: [
          ...idIes(ids),
          ...(setUp.length === 0
            ? []
            : [
                {
                  id: 75,
                  name: 'PDUSessionResourceSetupListSURes',
                  criticality: 'ignore',
                  value: setUp.map((i) => ({
                    pDUSessionID: i.psi,
                    pDUSessionResourceSetupResponseTransfer: i.transfer,
                  })),
                } as const,
              ]),
          ...(failed.length === 0
            ? []
            : [
                {
                  id: 58,
                  name: 'PDUSessionResourceFailedToSetupListSURes',
                  criticality: 'ignore',
                  value: failed.map((i) => ({
                    pDUSessionID: i.psi,
                    pDUSessionResourceSetupUnsuccessfulTransfer: i.transfer,
                  })),
                } as const,
              ]),
        ],
      },
    },
  };
}

/** PDU SESSION RESOURCE MODIFY RESPONSE (9.2.1.4). */
export function modifyResponse(ids: Ids, modified: Items): NGAPPDU {
  return {
    choice: 'successfulOutcome',
    value: {
      procedureCode: 26,
      name: 'PDUSessionResourceModify',
      criticality: 'reject',
      value: {
        protocolIEs: [
          ...idIes(ids),
          {
            id: 65,
            name: 'PDUSessionResourceModifyListModRes',
            criticality: 'ignore',
            value: modified.map((i) => ({
              pDUSessionID: i.psi,
              pDUSessionResourceModifyResponseTransfer: i.transfer,
            })),
          },
          { id: 121, name: 'UserLocationInformation', criticality: 'ignore', value: userLocation() },
        ],
      },
    },
  };
}

/** PDU SESSION RESOURCE MODIFY INDICATION (9.2.1.5), the gNB-initiated modification. */
export function modifyIndication(ids: Ids, items: Items): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 27,
      name: 'PDUSessionResourceModifyIndication',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: ids.amf },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ids.ran },
          {
            id: 63,
            name: 'PDUSessionResourceModifyListModInd',
            criticality: 'reject',
            value: items.map((i) => ({
              pDUSessionID: i.psi,
              pDUSessionResourceModifyIndicationTransfer: i.transfer,
            })),
          },
        ],
      },
    },
  };
}

/** PDU SESSION RESOURCE RELEASE RESPONSE (9.2.1.8). */
export function releaseResponse(ids: Ids, released: Items): NGAPPDU {
  return {
    choice: 'successfulOutcome',
    value: {
      procedureCode: 28,
      name: 'PDUSessionResourceRelease',
      criticality: 'reject',
      value: {
        protocolIEs: [
          ...idIes(ids),
          {
            id: 70,
            name: 'PDUSessionResourceReleasedListRelRes',
            criticality: 'ignore',
            value: released.map((i) => ({
              pDUSessionID: i.psi,
              pDUSessionResourceReleaseResponseTransfer: i.transfer,
            })),
          },
        ],
      },
    },
  };
}

/** UE Security Capabilities (9.3.1.86): NEA1-3 and NIA1-3, no E-UTRA algorithms. */
const securityCapabilities = {
  nRencryptionAlgorithms: { bytes: Uint8Array.of(0xe0, 0), length: 16 },
  nRintegrityProtectionAlgorithms: { bytes: Uint8Array.of(0xe0, 0), length: 16 },
  eUTRAencryptionAlgorithms: { bytes: Uint8Array.of(0, 0), length: 16 },
  eUTRAintegrityProtectionAlgorithms: { bytes: Uint8Array.of(0, 0), length: 16 },
};

/** PATH SWITCH REQUEST (9.2.3.8) from the target gNB for the UE whose source AMF UE NGAP ID is `amf`. */
export function pathSwitchRequest(ran: number, amf: number, switched: Items): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 25,
      name: 'PathSwitchRequest',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ran },
          { id: 100, name: 'SourceAMF-UE-NGAP-ID', criticality: 'reject', value: amf },
          { id: 121, name: 'UserLocationInformation', criticality: 'ignore', value: userLocation(0x20) },
          { id: 119, name: 'UESecurityCapabilities', criticality: 'ignore', value: securityCapabilities },
          {
            id: 76,
            name: 'PDUSessionResourceToBeSwitchedDLList',
            criticality: 'reject',
            value: switched.map((i) => ({ pDUSessionID: i.psi, pathSwitchRequestTransfer: i.transfer })),
          },
        ],
      },
    },
  };
}

const cause: Cause = { choice: 'radioNetwork', value: 'handover-desirable-for-radio-reason' };

/** HANDOVER REQUIRED (9.2.3.1) towards gNB 2 in TAC 000001. */
export function handoverRequired(ids: Ids, sessions: Items, container: Uint8Array): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 12,
      name: 'HandoverPreparation',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: ids.amf },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ids.ran },
          { id: 29, name: 'HandoverType', criticality: 'reject', value: 'intra5gs' },
          { id: 15, name: 'Cause', criticality: 'ignore', value: cause },
          {
            id: 105,
            name: 'TargetID',
            criticality: 'reject',
            value: {
              choice: 'targetRANNodeID',
              value: {
                globalRANNodeID: {
                  choice: 'globalGNB-ID',
                  value: {
                    pLMNIdentity: plmnIdentity('001', '01'),
                    gNBID: { choice: 'gNB-ID', value: bits(2, 22) },
                  },
                },
                selectedTAI: { pLMNIdentity: plmnIdentity('001', '01'), tAC: tac(1) },
              },
            },
          },
          {
            id: 61,
            name: 'PDUSessionResourceListHORqd',
            criticality: 'reject',
            value: sessions.map((i) => ({ pDUSessionID: i.psi, handoverRequiredTransfer: i.transfer })),
          },
          { id: 101, name: 'SourceToTarget-TransparentContainer', criticality: 'reject', value: container },
        ],
      },
    },
  };
}

/** HANDOVER NOTIFY (9.2.3.7): the UE arrived at the target. */
export function handoverNotify(ids: Ids): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 11,
      name: 'HandoverNotification',
      criticality: 'ignore',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: ids.amf },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ids.ran },
          { id: 121, name: 'UserLocationInformation', criticality: 'ignore', value: userLocation(0x20) },
        ],
      },
    },
  };
}

/** HANDOVER CANCEL (9.2.3.11). */
export function handoverCancel(ids: Ids): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 10,
      name: 'HandoverCancel',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: ids.amf },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ids.ran },
          { id: 15, name: 'Cause', criticality: 'ignore', value: cause },
        ],
      },
    },
  };
}

/** UPLINK RAN STATUS TRANSFER (9.2.3.13): the PDCP COUNTs of one DRB. */
export function uplinkRanStatusTransfer(ids: Ids): NGAPPDU {
  const count = { pDCPSN12: 5, hFNPDCPSN12: 1 };
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 49,
      name: 'UplinkRANStatusTransfer',
      criticality: 'ignore',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: ids.amf },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ids.ran },
          {
            id: 84,
            name: 'RANStatusTransfer-TransparentContainer',
            criticality: 'reject',
            value: {
              dRBsSubjectToStatusTransferList: [
                {
                  dRBID: 1,
                  dRBStatusUL: { choice: 'dRBStatusUL12', value: { uLCOUNTValue: count } },
                  dRBStatusDL: { choice: 'dRBStatusDL12', value: { dLCOUNTValue: count } },
                },
              ],
            },
          },
        ],
      },
    },
  };
}

/** HANDOVER REQUEST ACKNOWLEDGE (9.2.3.5), as if the AMF had asked this gNB to take a UE. */
export function handoverRequestAcknowledge(ids: Ids, admitted: Items, container: Uint8Array): NGAPPDU {
  return {
    choice: 'successfulOutcome',
    value: {
      procedureCode: 13,
      name: 'HandoverResourceAllocation',
      criticality: 'reject',
      value: {
        protocolIEs: [
          ...idIes(ids),
          {
            id: 53,
            name: 'PDUSessionResourceAdmittedList',
            criticality: 'ignore',
            value: admitted.map((i) => ({
              pDUSessionID: i.psi,
              handoverRequestAcknowledgeTransfer: i.transfer,
            })),
          },
          { id: 106, name: 'TargetToSource-TransparentContainer', criticality: 'reject', value: container },
        ],
      },
    },
  };
}

/** HANDOVER FAILURE (9.2.3.6). */
export function handoverFailure(amf: number): NGAPPDU {
  return {
    choice: 'unsuccessfulOutcome',
    value: {
      procedureCode: 13,
      name: 'HandoverResourceAllocation',
      criticality: 'reject',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'ignore', value: amf },
          { id: 15, name: 'Cause', criticality: 'ignore', value: cause },
        ],
      },
    },
  };
}

/**
 * NAS NON DELIVERY INDICATION (9.2.5.5): changes nothing at the AMF (its NAS timers retransmit), but
 * names a connection, so Error Indication answers it when the AMF does not know the pair (10.6).
 */
export function nasNonDeliveryIndication(ids: Ids): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 19,
      name: 'NASNonDeliveryIndication',
      criticality: 'ignore',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: ids.amf },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ids.ran },
          { id: 38, name: 'NAS-PDU', criticality: 'ignore', value: Uint8Array.of(0x7e, 0x00, 0x68) },
          {
            id: 15,
            name: 'Cause',
            criticality: 'ignore',
            value: { choice: 'radioNetwork', value: 'radio-connection-with-ue-lost' },
          },
        ],
      },
    },
  };
}

/** A UPF that keeps nothing but the sessions it holds, so that the fuzz can see none is left behind. */
export function countingUserPlane(): UserPlane & { held: () => number } {
  const sessions = new Set<number>();
  let next = 1;
  const known = (id: number) =>
    sessions.has(id)
      ? { ok: true as const, value: undefined }
      : { ok: false as const, error: 'unknown-session' as const };
  return {
    n3Address: '127.0.0.1',
    establishSession(request) {
      const id = next++;
      sessions.add(id);
      return {
        ok: true,
        value: {
          id,
          imsi: request.imsi,
          uplinkTeid: request.uplinkTeid,
          ambr: request.ambr,
          userPlane: { state: 'inactive' },
        },
      };
    },
    updateDownlink: known,
    deactivate: known,
    modifyAmbr: known,
    release(id) {
      const result = known(id);
      sessions.delete(id);
      return result;
    },
    held: () => sessions.size,
  };
}
