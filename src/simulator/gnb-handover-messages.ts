// The NGAP of an Xn handover at the target node (TS 38.413 8.4.4): Path Switch Request with each session's
// Path Switch Request Transfer, and the AMF's Acknowledge or Failure read back.
import { encodeComplete } from '../network/asn1/complete.ts';
import { encodePathSwitchRequestTransfer } from '../network/ngap/generated/codec.ts';
import { buildPathSwitchRequest } from '../network/ngap/generated/messages.ts';
import type { NGAPPDU, UESecurityCapabilities } from '../network/ngap/generated/types.ts';
import { ieValue } from '../network/ngap/ngap-values.ts';
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

/** The answer in `pdu`, or undefined when it is not one (or lacks its ids or security context). */
export function readPathSwitchAnswer(pdu: NGAPPDU): PathSwitchAnswer | undefined {
  if (pdu.choice === 'successfulOutcome' && pdu.value.name === 'PathSwitchRequest') {
    const ies = pdu.value.value.protocolIEs;
    const ranUeNgapId = ieValue(ies, 'RAN-UE-NGAP-ID');
    const amfUeNgapId = ieValue(ies, 'AMF-UE-NGAP-ID');
    const security = ieValue(ies, 'SecurityContext');
    if (ranUeNgapId === undefined || amfUeNgapId === undefined || security === undefined) return undefined;
    return {
      kind: 'acknowledge',
      ranUeNgapId,
      amfUeNgapId,
      ncc: security.nextHopChainingCount,
      nh: Buffer.from(security.nextHopNH.bytes),
      switched: (ieValue(ies, 'PDUSessionResourceSwitchedList') ?? []).map((item) => item.pDUSessionID),
      released: (ieValue(ies, 'PDUSessionResourceReleasedListPSAck') ?? []).map((item) => item.pDUSessionID),
    };
  }
  if (pdu.choice === 'unsuccessfulOutcome' && pdu.value.name === 'PathSwitchRequest') {
    const ies = pdu.value.value.protocolIEs;
    const ranUeNgapId = ieValue(ies, 'RAN-UE-NGAP-ID');
    const amfUeNgapId = ieValue(ies, 'AMF-UE-NGAP-ID');
    if (ranUeNgapId === undefined || amfUeNgapId === undefined) return undefined;
    return {
      kind: 'failure',
      ranUeNgapId,
      amfUeNgapId,
      released: (ieValue(ies, 'PDUSessionResourceReleasedListPSFail') ?? []).map((item) => item.pDUSessionID),
    };
  }
  return undefined;
}
