// What the SMF grants of a UE-requested PDU session modification (TS 24.501 6.4.2): the QoS a session
// may have is its policy's default QoS flow (network.md 6), nothing more, so a request is served when
// it asks for no QoS change, or for exactly that flow and rule again; anything else is rejected.
import { QOS_FLOW_PARAMETER, QOS_RULE_OPERATION, type NasMessageOf } from '../nas/index.ts';
import type { DefaultQosFlow } from './n2-transfers.ts';
import { SM_CAUSE } from './sm-cause.ts';

/** The default QoS rule's identifier (the SMF creates it with the session, sm-messages.ts). */
const DEFAULT_RULE_ID = 1;
/** QoS flow description operation codes (9.11.4.12). */
const FLOW_OPERATION = { create: 1, delete: 2, modify: 3 } as const;

/** Standardized 5QI values (TS 23.501 Table 5.7.4-1): another one is "unsupported 5QI value" (#59). */
const STANDARDIZED_5QI = new Set([
  1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 65, 66, 67, 69, 70, 71, 72, 73, 74, 75, 76, 79, 80, 82, 83, 84, 85, 86, 87,
  88, 89, 90,
]);

type ModificationVerdict = { ok: true } | { ok: false; cause: number };

const rejected = (cause: number): ModificationVerdict => ({ ok: false, cause });

/**
 * Judges the QoS a PDU Session Modification Request asks for against the session's default QoS flow:
 * - deleting the default QoS rule or the default flow: #83 semantic error in the QoS operation
 *   (TS 23.501 5.7.1.1: a session always has its default rule);
 * - another QoS rule or flow (a new one, packet filters for the default rule, another QFI), a GBR
 *   bit rate on the non-GBR default flow, or another standardized 5QI: #37 5GS QoS not accepted (no
 *   policy authorises it);
 * - a 5QI that is not standardized: #59 unsupported 5QI value.
 * Capabilities, the maximum number of packet filters, integrity protection rates and ePCO carry no
 * QoS change and are accepted as they are.
 */
export function judgeModificationRequest(
  request: NasMessageOf<'pduSessionModificationRequest'>,
  flow: DefaultQosFlow,
): ModificationVerdict {
  for (const rule of request.requestedQosRules ?? []) {
    if (rule.operationCode === QOS_RULE_OPERATION.delete && rule.identifier === DEFAULT_RULE_ID)
      return rejected(SM_CAUSE.semanticErrorInQosOperation);
    const sameRule =
      rule.identifier === DEFAULT_RULE_ID &&
      rule.operationCode === QOS_RULE_OPERATION.modifyWithoutModifyingPacketFilters &&
      (rule.qfi === undefined || rule.qfi === flow.qfi);
    if (!sameRule) return rejected(SM_CAUSE.fiveGsQosNotAccepted);
  }
  for (const description of request.requestedQosFlowDescriptions ?? []) {
    if (description.qfi !== flow.qfi) return rejected(SM_CAUSE.fiveGsQosNotAccepted);
    if (description.operationCode === FLOW_OPERATION.delete)
      return rejected(SM_CAUSE.semanticErrorInQosOperation);
    if (description.operationCode !== FLOW_OPERATION.modify) return rejected(SM_CAUSE.fiveGsQosNotAccepted);
    for (const parameter of description.parameters) {
      if (parameter.identifier !== QOS_FLOW_PARAMETER.fiveQi) return rejected(SM_CAUSE.fiveGsQosNotAccepted);
      const fiveQi = parameter.contents[0];
      if (fiveQi === undefined || !STANDARDIZED_5QI.has(fiveQi))
        return rejected(SM_CAUSE.unsupported5qiValue);
      if (fiveQi !== flow.fiveQi) return rejected(SM_CAUSE.fiveGsQosNotAccepted);
    }
  }
  return { ok: true };
}
