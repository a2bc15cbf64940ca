// The SMF's N2 SM information (TS 38.413 9.3.4): the transfer containers of PDU Session Resource
// Setup/Modify/Release, encoded with the generated NGAP codec (aligned PER, 9.4.1) and read back.
import { decodeComplete, encodeComplete } from '../asn1/complete.ts';
import {
  buildPDUSessionResourceModifyRequestTransfer,
  buildPDUSessionResourceSetupRequestTransfer,
} from '../ngap/generated/messages.ts';
import {
  decodePDUSessionResourceSetupResponseTransfer,
  decodePDUSessionResourceSetupUnsuccessfulTransfer,
  encodePDUSessionResourceModifyConfirmTransfer,
  encodePDUSessionResourceModifyRequestTransfer,
  encodePDUSessionResourceReleaseCommandTransfer,
  encodePDUSessionResourceSetupRequestTransfer,
} from '../ngap/generated/codec.ts';
import type {
  Cause,
  PDUSessionType,
  QosFlowLevelQosParameters,
  UPTransportLayerInformation,
} from '../ngap/generated/types.ts';
import { addressOfTransportLayerAddress, transportLayerAddress } from '../ngap/transport-layer-address.ts';
import type { IpType } from './session-authorisation.ts';

const ALIGNED = true;

/** The default QoS flow's parameters (TS 23.501 5.7.2): QFI, 5QI and ARP priority level. */
export interface DefaultQosFlow {
  qfi: number;
  fiveQi: number;
  arp: number;
}

/** Session-AMBR in bits per second. */
export interface SessionAmbrBps {
  uplinkBps: number;
  downlinkBps: number;
}

/** A GTP-U tunnel end point (TS 38.413 9.3.2.2 GTP Tunnel): transport address and TEID. */
export interface TunnelEndpoint {
  address: string;
  teid: number;
}

export function upTransportLayerInformation(endpoint: TunnelEndpoint): UPTransportLayerInformation {
  return {
    choice: 'gTPTunnel',
    value: {
      transportLayerAddress: transportLayerAddress(endpoint.address),
      gTPTEID: Uint8Array.of(
        endpoint.teid >>> 24,
        (endpoint.teid >>> 16) & 0xff,
        (endpoint.teid >>> 8) & 0xff,
        endpoint.teid & 0xff,
      ),
    },
  };
}

/** The gNB's end of the tunnel; undefined when it is not a GTP tunnel with an IPv4 or IPv6 address. */
export function tunnelOf(info: UPTransportLayerInformation): TunnelEndpoint | undefined {
  if (info.choice !== 'gTPTunnel') return undefined;
  const { transportLayerAddress: tla, gTPTEID } = info.value;
  if (gTPTEID.length !== 4) return undefined;
  const teid = Buffer.from(gTPTEID).readUInt32BE(0);
  const address = addressOfTransportLayerAddress(tla);
  return address === undefined ? undefined : { address, teid };
}

const PDU_SESSION_TYPE: Record<IpType, PDUSessionType> = { IPv4: 'ipv4', IPv6: 'ipv6', IPv4v6: 'ipv4v6' };

function qosParameters(flow: DefaultQosFlow): QosFlowLevelQosParameters {
  return {
    qosCharacteristics: { choice: 'nonDynamic5QI', value: { fiveQI: flow.fiveQi } },
    // ARP (TS 23.501 5.7.2.2): the policy's priority level; no pre-emption either way.
    allocationAndRetentionPriority: {
      priorityLevelARP: flow.arp,
      preEmptionCapability: 'shall-not-trigger-pre-emption',
      preEmptionVulnerability: 'not-pre-emptable',
    },
  };
}

/**
 * How a handover target may forward (TS 38.413 9.3.4.1, TS 23.502 4.9.1.3.2 step 4): the source has a
 * direct path to it, or data forwarding is not possible (no indirect forwarding tunnel is offered).
 */
export type HandoverForwarding = 'direct-path-available' | 'not-possible';

/**
 * PDU Session Resource Setup Request Transfer (TS 38.413 9.3.4.1): Session-AMBR, the UPF's uplink
 * tunnel end point, the PDU session type and the default QoS flow; in a Handover Request, how the
 * target may forward.
 */
export function setupRequestTransfer(input: {
  ambr: SessionAmbrBps;
  uplink: TunnelEndpoint;
  ipType: IpType;
  flow: DefaultQosFlow;
  forwarding?: HandoverForwarding;
}): Uint8Array {
  return encodeComplete(
    buildPDUSessionResourceSetupRequestTransfer({
      pduSessionAggregateMaximumBitRate: {
        pDUSessionAggregateMaximumBitRateDL: input.ambr.downlinkBps,
        pDUSessionAggregateMaximumBitRateUL: input.ambr.uplinkBps,
      },
      ulNguUpTnlInformation: upTransportLayerInformation(input.uplink),
      dataForwardingNotPossible:
        input.forwarding === 'not-possible' ? 'data-forwarding-not-possible' : undefined,
      pduSessionType: PDU_SESSION_TYPE[input.ipType],
      qosFlowSetupRequestList: [
        { qosFlowIdentifier: input.flow.qfi, qosFlowLevelQosParameters: qosParameters(input.flow) },
      ],
      directForwardingPathAvailability:
        input.forwarding === 'direct-path-available' ? 'direct-path-available' : undefined,
    }),
    ALIGNED,
    encodePDUSessionResourceSetupRequestTransfer,
  );
}

/**
 * PDU Session Resource Modify Request Transfer (9.3.4.3) of a network-requested modification: the new
 * Session-AMBR and the default QoS flow's new parameters.
 */
export function modifyRequestTransfer(input: { ambr: SessionAmbrBps; flow: DefaultQosFlow }): Uint8Array {
  return encodeComplete(
    buildPDUSessionResourceModifyRequestTransfer({
      pduSessionAggregateMaximumBitRate: {
        pDUSessionAggregateMaximumBitRateDL: input.ambr.downlinkBps,
        pDUSessionAggregateMaximumBitRateUL: input.ambr.uplinkBps,
      },
      qosFlowAddOrModifyRequestList: [
        { qosFlowIdentifier: input.flow.qfi, qosFlowLevelQosParameters: qosParameters(input.flow) },
      ],
    }),
    ALIGNED,
    encodePDUSessionResourceModifyRequestTransfer,
  );
}

/** PDU Session Resource Release Command Transfer (9.3.4.12): the cause. */
export function releaseCommandTransfer(cause: Cause): Uint8Array {
  return encodeComplete({ cause }, ALIGNED, encodePDUSessionResourceReleaseCommandTransfer);
}

/**
 * The gNB's downlink tunnel end point from PDU Session Resource Setup Response Transfer (9.3.4.2), or
 * why there is none; never throws (the container comes from the radio).
 */
export function readSetupResponseTransfer(
  bytes: Uint8Array,
): { ok: true; downlink: TunnelEndpoint } | { ok: false; error: string } {
  const decoded = decodeComplete(bytes, ALIGNED, decodePDUSessionResourceSetupResponseTransfer);
  if (!decoded.ok) return decoded;
  const downlink = tunnelOf(decoded.value.dLQosFlowPerTNLInformation.uPTransportLayerInformation);
  return downlink === undefined ? { ok: false, error: 'no usable GTP tunnel' } : { ok: true, downlink };
}

/** The cause of PDU Session Resource Setup Unsuccessful Transfer (9.3.4.16), when it decodes. */
export function readSetupUnsuccessfulTransfer(bytes: Uint8Array): Cause | undefined {
  const decoded = decodeComplete(bytes, ALIGNED, decodePDUSessionResourceSetupUnsuccessfulTransfer);
  return decoded.ok ? decoded.value.cause : undefined;
}

/**
 * PDU Session Resource Modify Confirm Transfer (9.3.4.7): the QoS flow the SMF confirms and the
 * UPF's uplink tunnel end point (mandatory; unchanged by the radio's indication).
 */
export function modifyConfirmTransfer(input: { qfi: number; uplink: TunnelEndpoint }): Uint8Array {
  return encodeComplete(
    {
      qosFlowModifyConfirmList: [{ qosFlowIdentifier: input.qfi }],
      uLNGUUPTNLInformation: upTransportLayerInformation(input.uplink),
    },
    ALIGNED,
    encodePDUSessionResourceModifyConfirmTransfer,
  );
}
