// SMSC delivery receipts (SMPP v3.4 Issue 1.2, 2.11 and Appendix B): a deliver_sm whose esm_class says
// "SMSC Delivery Receipt" (bits 5-2 = 0001) names the message it reports on and its final state, in the
// receipted_message_id and message_state TLVs (5.3.2.12, 5.3.2.35) or, from SMSCs that send only the text
// of Appendix B, as "id:... stat:... err:...". Parsing never throws.

import { TAG, type ShortMessage } from './pdu.ts';

/** What a receipt settles a stored message to; `undefined` for a state that is not final (ENROUTE, ACCEPTD). */
type ReceiptOutcome = 'delivered' | 'expired' | 'failed';

export interface DeliveryReceipt {
  /** The message_id the SMSC gave in submit_sm_resp. */
  messageId: string;
  /** The message state as Appendix B writes it (DELIVRD, UNDELIV, ...). */
  state: string;
  outcome: ReceiptOutcome | undefined;
  /** The network error code of Appendix B's err field, when given. */
  error?: string;
}

/** esm_class bits 5-2 (5.2.12): 0001 is an SMSC delivery receipt. */
export function isDeliveryReceipt(esmClass: number): boolean {
  return (esmClass & 0x3c) === 0x04;
}

/** message_state values (5.2.28) as the names Appendix B's stat field uses. */
const STATE_NAMES = [
  '',
  'ENROUTE',
  'DELIVRD',
  'EXPIRED',
  'DELETED',
  'UNDELIV',
  'ACCEPTD',
  'UNKNOWN',
  'REJECTD',
];

const OUTCOMES: Record<string, ReceiptOutcome | undefined> = {
  DELIVRD: 'delivered',
  EXPIRED: 'expired',
  DELETED: 'failed',
  UNDELIV: 'failed',
  REJECTD: 'failed',
  // UNKNOWN is a final state ("message is in invalid state", 5.2.28): the message will not arrive.
  UNKNOWN: 'failed',
  ENROUTE: undefined,
  ACCEPTD: undefined,
};

/** The receipt a deliver_sm carries, or an error when it is no receipt or names no message. */
export function parseReceipt(
  sm: ShortMessage,
): { ok: true; value: DeliveryReceipt } | { ok: false; error: string } {
  if (!isDeliveryReceipt(sm.esmClass)) return { ok: false, error: 'not a delivery receipt' };
  const text = Buffer.from(sm.message).toString('latin1');
  const field = (name: string): string | undefined =>
    new RegExp(`(?:^|\\s)${name}:(\\S*)`, 'i').exec(text)?.[1];
  const tlvId = sm.tlvs.get(TAG.receipted_message_id);
  // receipted_message_id is a C-Octet String (5.3.2.12): its NULL is not part of the id.
  const messageId =
    tlvId !== undefined ? Buffer.from(tlvId).toString('latin1').replace(/\0.*$/s, '') : field('id');
  if (messageId === undefined || messageId === '')
    return { ok: false, error: 'the receipt names no message' };
  const tlvState = sm.tlvs.get(TAG.message_state);
  const state =
    tlvState !== undefined && tlvState.length === 1
      ? STATE_NAMES[tlvState[0]!]
      : field('stat')?.toUpperCase();
  if (state === undefined || state === '' || !(state in OUTCOMES)) {
    return { ok: false, error: `the receipt's state ${state ?? '(none)'} is unknown` };
  }
  const error = field('err');
  return { ok: true, value: { messageId, state, outcome: OUTCOMES[state], ...(error ? { error } : {}) } };
}
