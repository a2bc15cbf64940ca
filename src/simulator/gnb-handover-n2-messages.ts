// The NGAP of an N2 handover at the simulated nodes (TS 38.413 8.4.1-8.4.6): what the source sends
// (Handover Required, Uplink RAN Status Transfer, Handover Cancel) and the target sends (Handover Request
// Acknowledge, Handover Failure, Handover Notify), with their transfers and transparent containers,
// through the generated builders; and what the AMF answers, read back.
import { decodeComplete, encodeComplete } from '../network/asn1/complete.ts';
import {
  decodeHandoverCommandTransfer,
  encodeHandoverRequestAcknowledgeTransfer,
  encodeHandoverRequiredTransfer,
  encodeHandoverResourceAllocationUnsuccessfulTransfer,
  encodeSourceNGRANNodeToTargetNGRANNodeTransparentContainer,
  encodeTargetNGRANNodeToSourceNGRANNodeTransparentContainer,
} from '../network/ngap/generated/codec.ts';
import {
  buildHandoverCancel,
  buildHandoverFailure,
  buildHandoverNotify,
  buildHandoverRequestAcknowledge,
  buildHandoverRequired,
  buildUplinkRANStatusTransfer,
  readHandoverCancelAcknowledge,
  readHandoverCommand,
  readHandoverPreparationFailure,
} from '../network/ngap/generated/messages.ts';
import type { Cause, GlobalRANNodeID, NGAPPDU, NGRANCGI } from '../network/ngap/generated/types.ts';
import { bits, plmnIdentity, tac } from '../network/ngap/ngap-values.ts';
import { gtpTunnel, tunnelEnd, type TunnelEnd } from './ue/gnb-sessions.ts';
import { userLocationInformation, type ServingCell } from './ue/ran-ue-messages.ts';

const ALIGNED = true;

interface Ids {
  amfUeNgapId: number;
  ranUeNgapId: number;
}

function nrCgi(cell: ServingCell): NGRANCGI {
  const nrCellIdentity = 'nrCellIdentity' in cell ? cell.nrCellIdentity : 0;
  return {
    choice: 'nR-CGI',
    value: {
      pLMNIdentity: plmnIdentity(cell.plmn.mcc, cell.plmn.mnc),
      nRCellIdentity: bits(BigInt(nrCellIdentity), 36),
    },
  };
}

/**
 * RRC Container of the source's container: a UPER HandoverPreparationInformation (TS 38.331 11.2.2)
 * with c1 / handoverPreparationInformation, no optional field and an empty UE capability list (11 bits).
 * The simulated UE's RRC context goes to the target in process, not in this container.
 */
const HANDOVER_PREPARATION_INFORMATION = Uint8Array.of(0x00, 0x00);

/**
 * RRC Container of the target's container: a UPER HandoverCommand (TS 38.331 11.2.2) with c1 /
 * handoverCommand carrying a one-octet RRCReconfiguration (transaction 0, no optional field).
 */
const HANDOVER_COMMAND = Uint8Array.of(0x00, 0x10, 0x00);

/** Source NG-RAN Node to Target NG-RAN Node Transparent Container (TS 38.413 9.3.1.29). */
function sourceToTarget(source: ServingCell, target: ServingCell): Uint8Array {
  return encodeComplete(
    {
      rRCContainer: HANDOVER_PREPARATION_INFORMATION,
      targetCellID: nrCgi(target),
      uEHistoryInformation: [
        {
          lastVisitedCellInformation: {
            choice: 'nGRANCell',
            value: { globalCellID: nrCgi(source), cellType: { cellSize: 'small' }, timeUEStayedInCell: 1 },
          },
        },
      ],
    },
    ALIGNED,
    encodeSourceNGRANNodeToTargetNGRANNodeTransparentContainer,
  );
}

/** HANDOVER REQUIRED (TS 38.413 9.2.3.1) for the UE's sessions, towards `target`'s cell. */
export function handoverRequired(input: {
  ids: Ids;
  target: GlobalRANNodeID;
  sourceCell: ServingCell;
  targetCell: ServingCell;
  pduSessionIds: readonly number[];
  /** The source has a direct path to the target for data forwarding (9.3.4.14). */
  directForwarding?: boolean;
  cause?: Cause;
}): NGAPPDU {
  const plmn = plmnIdentity(input.targetCell.plmn.mcc, input.targetCell.plmn.mnc);
  return buildHandoverRequired({
    ...input.ids,
    handoverType: 'intra5gs',
    cause: input.cause ?? { choice: 'radioNetwork', value: 'handover-desirable-for-radio-reason' },
    targetId: {
      choice: 'targetRANNodeID',
      value: {
        globalRANNodeID: input.target,
        selectedTAI: { pLMNIdentity: plmn, tAC: tac(input.targetCell.tac) },
      },
    },
    pduSessionResourceListHoRqd: input.pduSessionIds.map((pDUSessionID) => ({
      pDUSessionID,
      // Handover Required Transfer (9.3.4.14): whether the source has a direct forwarding path.
      handoverRequiredTransfer: encodeComplete(
        input.directForwarding === true ? { directForwardingPathAvailability: 'direct-path-available' } : {},
        ALIGNED,
        encodeHandoverRequiredTransfer,
      ),
    })),
    sourceToTargetTransparentContainer: sourceToTarget(input.sourceCell, input.targetCell),
  });
}

/**
 * UPLINK RAN STATUS TRANSFER (TS 38.413 9.2.3.13): the PDCP COUNTs of one DRB per session (12-bit SNs),
 * as the source hands them over.
 */
export function uplinkRanStatusTransfer(ids: Ids, drbs: number): NGAPPDU {
  return buildUplinkRANStatusTransfer({
    ...ids,
    ranStatusTransferTransparentContainer: {
      dRBsSubjectToStatusTransferList: Array.from({ length: Math.max(1, drbs) }, (_, i) => ({
        dRBID: i + 1,
        dRBStatusUL: { choice: 'dRBStatusUL12', value: { uLCOUNTValue: { pDCPSN12: 7, hFNPDCPSN12: 0 } } },
        dRBStatusDL: { choice: 'dRBStatusDL12', value: { dLCOUNTValue: { pDCPSN12: 9, hFNPDCPSN12: 0 } } },
      })),
    },
  });
}

/** HANDOVER CANCEL (TS 38.413 9.2.3.11). */
export function handoverCancel(ids: Ids, cause: Cause): NGAPPDU {
  return buildHandoverCancel({ ...ids, cause });
}

/**
 * A session the target admits: its downlink tunnel and the QoS flows it set up, and the DL forwarding
 * tunnel it offers, if any (every flow accepted for forwarding then).
 */
interface AdmittedSession {
  pduSessionId: number;
  downlink: TunnelEnd;
  qfis: readonly number[];
  forwarding: TunnelEnd | undefined;
}

/** HANDOVER REQUEST ACKNOWLEDGE (TS 38.413 9.2.3.5), the sessions admitted and those failed. */
export function handoverRequestAcknowledge(
  ids: Ids,
  admitted: readonly AdmittedSession[],
  failed: readonly { pduSessionId: number; cause: Cause }[],
): NGAPPDU {
  return buildHandoverRequestAcknowledge({
    ...ids,
    pduSessionResourceAdmittedList: admitted.map((session) => ({
      pDUSessionID: session.pduSessionId,
      // Handover Request Acknowledge Transfer (9.3.4.11): the target's downlink tunnel and flows.
      handoverRequestAcknowledgeTransfer: encodeComplete(
        {
          dLNGUUPTNLInformation: gtpTunnel(session.downlink),
          dLForwardingUPTNLInformation:
            session.forwarding === undefined ? undefined : gtpTunnel(session.forwarding),
          qosFlowSetupResponseList: session.qfis.map((qosFlowIdentifier) =>
            session.forwarding === undefined
              ? { qosFlowIdentifier }
              : { qosFlowIdentifier, dataForwardingAccepted: 'data-forwarding-accepted' as const },
          ),
        },
        ALIGNED,
        encodeHandoverRequestAcknowledgeTransfer,
      ),
    })),
    pduSessionResourceFailedToSetupListHoAck:
      failed.length === 0
        ? undefined
        : failed.map(({ pduSessionId, cause }) => ({
            pDUSessionID: pduSessionId,
            handoverResourceAllocationUnsuccessfulTransfer: encodeComplete(
              { cause },
              ALIGNED,
              encodeHandoverResourceAllocationUnsuccessfulTransfer,
            ),
          })),
    targetToSourceTransparentContainer: encodeComplete(
      { rRCContainer: HANDOVER_COMMAND },
      ALIGNED,
      encodeTargetNGRANNodeToSourceNGRANNodeTransparentContainer,
    ),
  });
}

/** HANDOVER FAILURE (TS 38.413 9.2.3.6): the target cannot take the UE. */
export function handoverFailure(amfUeNgapId: number, cause: Cause): NGAPPDU {
  return buildHandoverFailure({ amfUeNgapId, cause });
}

/** HANDOVER NOTIFY (TS 38.413 9.2.3.7): the UE arrived in the target's `cell`. */
export function handoverNotify(ids: Ids, cell: ServingCell): NGAPPDU {
  return buildHandoverNotify({ ...ids, userLocationInformation: userLocationInformation(cell) });
}

/** What the AMF answered a Handover Required or a Handover Cancel, by the RAN UE NGAP ID it names. */
export type N2HandoverAnswer =
  | {
      kind: 'command';
      ranUeNgapId: number;
      amfUeNgapId: number;
      handedOver: number[];
      released: number[];
      /** Per session handed over with a DL forwarding tunnel: where to forward, and which flows. */
      forwarding: { pduSessionId: number; tunnel: TunnelEnd; qfis: number[] }[];
    }
  | { kind: 'preparation-failure'; ranUeNgapId: number; amfUeNgapId: number; cause: Cause }
  | { kind: 'cancel-acknowledge'; ranUeNgapId: number; amfUeNgapId: number };

/** The answer in `pdu`, or undefined when it is none or its generated reader refuses it (10.3). */
export function readN2HandoverAnswer(pdu: NGAPPDU): N2HandoverAnswer | undefined {
  if (pdu.choice === 'successfulOutcome' && pdu.value.name === 'HandoverPreparation') {
    const read = readHandoverCommand(pdu);
    if (!read.ok) return undefined;
    const { amfUeNgapId, ranUeNgapId } = read.message;
    return {
      kind: 'command',
      amfUeNgapId,
      ranUeNgapId,
      handedOver: (read.message.pduSessionResourceHandoverList ?? []).map((item) => item.pDUSessionID),
      released: (read.message.pduSessionResourceToReleaseListHoCmd ?? []).map((item) => item.pDUSessionID),
      forwarding: (read.message.pduSessionResourceHandoverList ?? []).flatMap((item) => {
        const transfer = decodeComplete(item.handoverCommandTransfer, ALIGNED, decodeHandoverCommandTransfer);
        const tunnel = transfer.ok ? tunnelEnd(transfer.value.dLForwardingUPTNLInformation) : undefined;
        if (!transfer.ok || tunnel === undefined) return [];
        const qfis = (transfer.value.qosFlowToBeForwardedList ?? []).map((flow) => flow.qosFlowIdentifier);
        return [{ pduSessionId: item.pDUSessionID, tunnel, qfis }];
      }),
    };
  }
  if (pdu.choice === 'unsuccessfulOutcome' && pdu.value.name === 'HandoverPreparation') {
    const read = readHandoverPreparationFailure(pdu);
    if (!read.ok) return undefined;
    // The ids are of criticality ignore here: read, they may still be absent.
    const { amfUeNgapId, ranUeNgapId, cause } = read.message;
    if (amfUeNgapId === undefined || ranUeNgapId === undefined) return undefined;
    return {
      kind: 'preparation-failure',
      amfUeNgapId,
      ranUeNgapId,
      cause: cause ?? { choice: 'misc', value: 'unspecified' },
    };
  }
  if (pdu.choice === 'successfulOutcome' && pdu.value.name === 'HandoverCancel') {
    const read = readHandoverCancelAcknowledge(pdu);
    if (!read.ok || read.message.amfUeNgapId === undefined || read.message.ranUeNgapId === undefined)
      return undefined;
    return {
      kind: 'cancel-acknowledge',
      amfUeNgapId: read.message.amfUeNgapId,
      ranUeNgapId: read.message.ranUeNgapId,
    };
  }
  return undefined;
}
