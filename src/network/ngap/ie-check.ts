import { checkIesAgainst, type IeErrors } from '../asn1/ie-check.ts';
import { MESSAGE_IES } from './generated/ies.ts';
import type { Criticality } from './generated/types.ts';

export type { IeAtFault } from '../asn1/ie-check.ts';

/**
 * Checks a received message's protocol IEs against its object set in NGAP-PDU-Contents (the generated
 * `MESSAGE_IES`): which IEs it does not define, which mandatory ones are absent, and whether the ones
 * it defines come in the set's order, each once (TS 38.413 10.3). Undefined for a message type without
 * a table. Conditional presence (two IEs of V17.4.0) is not judged: its conditions are prose, not ASN.1.
 */
export function checkIes(
  messageType: string,
  ies: readonly { id: number; criticality: Criticality }[],
): IeErrors | undefined {
  const set = MESSAGE_IES.get(messageType);
  return set === undefined ? undefined : checkIesAgainst(set, ies);
}
