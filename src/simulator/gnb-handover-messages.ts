// The NGAP of an Xn handover at the target node (TS 38.413 8.4.4): Path Switch Request with each session's
// Path Switch Request Transfer, and the AMF's Acknowledge or Failure read back.
import { encodeComplete } from '../network/asn1/complete.ts';
import { encodePathSwitchRequestTransfer } from '../network/ngap/generated/codec.ts';
import {
  buildPathSwitchRequest,
  readPathSwitchRequestAcknowledge,
  readPathSwitchRequestFailure,
} from '../network/ngap/generated/messages.ts';
import type { NGAPPDU, UESecurityCapabilities } from '../network/ngap/generated/types.ts';
import { gtpTunnel, type GnbSession } from './ue/gnb-sessions.ts';
import { userLocationInformation, type ServingCell } from './ue/ran-ue-messages.ts';

const ALIGNED = true;

/** PATH SWITCH REQUEST (TS 38.413 9.2.3.8) for a UE just handed over to this node. */
export function pathSwitchRequest(input: {
  ranUeNgapId: number;
  sourceAmfUeNgapId: number;
  cell: ServingCell;
  ueSecurityCapabilities: UESecurityCapabilities;
  sessions: readonly GnbSession[];
}): NGAPPDU {
  return buildPathSwitchRequest({
    ranUeNgapId: input.ranUeNgapId,
    sourceAmfUeNgapId: input.sourceAmfUeNgapId,
    userLocationInformation: userLocationInformation(input.cell),
    ueSecurityCapabilities: input.ueSecurityCapabilities,
    pduSessionResourceToBeSwitchedDlList: input.sessions.map((session) => ({
      pDUSessionID: session.pduSessionId,
      // Path Switch Request Transfer (9.3.4.8): the target's downlink tunnel and the flows it took.
      pathSwitchRequestTransfer: encodeComplete(
        {
          dLNGUUPTNLInformation: gtpTunnel(session.downlink),
          qosFlowAcceptedList: session.qfis.map((qfi) => ({ qosFlowIdentifier: qfi })),
        },
        ALIGNED,
        encodePathSwitchRequestTransfer,
      ),
    })),
  });
}

/** What the AMF answered a Path Switch Request (9.2.3.9, 9.2.3.10), by the RAN UE NGAP ID it names. */
export type PathSwitchAnswer =
  | {
      kind: 'acknowledge';
      ranUeNgapId: number;
      amfUeNgapId: number;
      /** Security Context (9.3.1.88): the next {NH, NCC}. */
      ncc: number;
      nh: Buffer;
      switched: number[];
      released: number[];
    }
  | { kind: 'failure'; ranUeNgapId: number; amfUeNgapId: number; released: number[] };

/**
 * The answer in `pdu`, or undefined when it is not one, its generated reader refuses it (TS 38.413
 * 10.3: the Acknowledge's Security Context is of criticality reject) or it lacks the ids.
 */
export function readPathSwitchAnswer(pdu: NGAPPDU): PathSwitchAnswer | undefined {
  if (pdu.choice === 'successfulOutcome' && pdu.value.name === 'PathSwitchRequest') {
    const read = readPathSwitchRequestAcknowledge(pdu);
    if (!read.ok) return undefined;
    // The ids are of criticality ignore here: read, they may still be absent.
    const { ranUeNgapId, amfUeNgapId, securityContext } = read.message;
    if (ranUeNgapId === undefined || amfUeNgapId === undefined) return undefined;
    return {
      kind: 'acknowledge',
      ranUeNgapId,
      amfUeNgapId,
      ncc: securityContext.nextHopChainingCount,
      nh: Buffer.from(securityContext.nextHopNH.bytes),
      switched: (read.message.pduSessionResourceSwitchedList ?? []).map((item) => item.pDUSessionID),
      released: (read.message.pduSessionResourceReleasedListPsAck ?? []).map((item) => item.pDUSessionID),
    };
  }
  if (pdu.choice === 'unsuccessfulOutcome' && pdu.value.name === 'PathSwitchRequest') {
    const read = readPathSwitchRequestFailure(pdu);
    if (!read.ok) return undefined;
    const { ranUeNgapId, amfUeNgapId, pduSessionResourceReleasedListPsFail: released } = read.message;
    if (ranUeNgapId === undefined || amfUeNgapId === undefined) return undefined;
    return {
      kind: 'failure',
      ranUeNgapId,
      amfUeNgapId,
      released: (released ?? []).map((item) => item.pDUSessionID),
    };
  }
  return undefined;
}
