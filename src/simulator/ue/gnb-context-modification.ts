// The simulated node's side of UE Context Modification (TS 38.413 8.3.4): it takes the new UE-AMBR
// (8.3.4.2: it replaces the one it held) and a new Security Key (KgNB, taken into use with NCC 0 by an
// intra-cell handover in a real node: gnb-ues.ts tells the UE, gnb-handover.ts keeps it for the next
// handover) and answers UE Context Modification Response, or Failure with the cause a test asks for
// (8.3.4.3), keeping its UE context as it was.
import {
  buildUEContextModificationFailure,
  buildUEContextModificationResponse,
  readUEContextModificationRequest,
} from '../../network/ngap/generated/messages.ts';
import type {
  Cause,
  CoreNetworkAssistanceInformationForInactive,
  NGAPPDU,
  UEAggregateMaximumBitRate,
} from '../../network/ngap/generated/types.ts';

/** A UE Context Modification Request the node received, and what it did. */
export interface ContextModification {
  ranUeNgapId: number;
  amfUeNgapId: number;
  /** The UE-AMBR it carried, if any. */
  ueAmbr: UEAggregateMaximumBitRate | undefined;
  /** The Core Network Assistance Information for RRC INACTIVE it carried, if any (9.3.1.15). */
  inactiveAssistance: CoreNetworkAssistanceInformationForInactive | undefined;
  /** The Security Key (KgNB, 9.3.1.87) it carried, if any. */
  securityKey: Uint8Array | undefined;
  /** Undefined when the node applied it; the cause it refused it with otherwise. */
  refused: Cause | undefined;
}

/**
 * The node's answer to `pdu` when it is a UE Context Modification Request for a connection it holds
 * (`holds`), refused with `refuse` when given; undefined for any other PDU. A request for a connection
 * the node does not hold gets Failure `unknown-local-UE-NGAP-ID` (10.6).
 */
export function answerContextModification(
  pdu: NGAPPDU,
  holds: (ranUeNgapId: number) => boolean,
  refuse: Cause | undefined,
): { answer: NGAPPDU; modification: ContextModification } | undefined {
  if (pdu.choice !== 'initiatingMessage' || pdu.value.name !== 'UEContextModification') return undefined;
  const read = readUEContextModificationRequest(pdu);
  if (!read.ok) return undefined;
  const {
    amfUeNgapId,
    ranUeNgapId,
    ueAggregateMaximumBitRate,
    coreNetworkAssistanceInformationForInactive,
    securityKey,
  } = read.message;
  const cause: Cause | undefined = holds(ranUeNgapId)
    ? refuse
    : { choice: 'radioNetwork', value: 'unknown-local-UE-NGAP-ID' };
  const ids = { amfUeNgapId, ranUeNgapId };
  return {
    answer:
      cause === undefined
        ? buildUEContextModificationResponse(ids)
        : buildUEContextModificationFailure({ ...ids, cause }),
    modification: {
      ...ids,
      ueAmbr:
        ueAggregateMaximumBitRate === undefined
          ? undefined
          : {
              uEAggregateMaximumBitRateDL: ueAggregateMaximumBitRate.uEAggregateMaximumBitRateDL,
              uEAggregateMaximumBitRateUL: ueAggregateMaximumBitRate.uEAggregateMaximumBitRateUL,
            },
      inactiveAssistance: coreNetworkAssistanceInformationForInactive,
      securityKey: securityKey === undefined ? undefined : Uint8Array.from(securityKey.bytes),
      refused: cause,
    },
  };
}
