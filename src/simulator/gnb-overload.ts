import { readOverloadStart, readOverloadStop } from '../network/ngap/generated/messages.ts';
import type { NGAPPDU, OverloadAction, RRCEstablishmentCause } from '../network/ngap/generated/types.ts';

/**
 * A simulated node's side of the AMF's overload (TS 38.413 8.7.7 Overload Start, 8.7.8 Overload Stop):
 * what the AMF asked, and whether an RRC connection establishment of a given cause may still reach it.
 */

/** The AMF's Overload Start as the node holds it until Overload Stop. */
export interface AmfOverload {
  /** The Overload Action of AMF Overload Response; undefined when absent (the node's own choice). */
  action: OverloadAction | undefined;
  /** AMF Traffic Load Reduction Indication: the percentage of those establishments to reject (1..99). */
  reductionPercent: number | undefined;
}

/** An RRC connection establishment the node rejected because the AMF is overloaded (for tests). */
export interface OverloadRejection {
  cause: RRCEstablishmentCause;
  action: OverloadAction | undefined;
}

/** Overload Start read; undefined when `pdu` is none that reads (TS 38.413 10.3: not acted on). */
export function readAmfOverloadStart(pdu: NGAPPDU): AmfOverload | undefined {
  const read = readOverloadStart(pdu);
  if (!read.ok) return undefined;
  const response = read.message.amfOverloadResponse;
  return {
    action: response?.choice === 'overloadAction' ? response.value : undefined,
    reductionPercent: read.message.amfTrafficLoadReductionIndication,
  };
}

/** Whether `pdu` is an Overload Stop that reads. */
export function readsAsOverloadStop(pdu: NGAPPDU): boolean {
  return readOverloadStop(pdu).ok;
}

/**
 * The RRC establishment causes (TS 38.331) each Overload Action rejects (TS 38.413 8.7.7.2): the first
 * two list what is rejected; the last two what is still permitted.
 */
const REJECTED: Record<string, readonly RRCEstablishmentCause[]> = {
  'reject-non-emergency-mo-dt': ['mo-Data', 'mo-SMS', 'mo-VoiceCall', 'mo-VideoCall'],
  'reject-rrc-cr-signalling': ['mo-Data', 'mo-SMS', 'mo-Signalling', 'mo-VoiceCall', 'mo-VideoCall'],
};
const PERMITTED: Record<string, readonly RRCEstablishmentCause[]> = {
  'permit-emergency-sessions-and-mobile-terminated-services-only': ['emergency', 'mt-Access'],
  'permit-high-priority-sessions-and-mobile-terminated-services-only': [
    'highPriorityAccess',
    'mps-PriorityAccess',
    'mcs-PriorityAccess',
    'mt-Access',
  ],
};

/**
 * Whether an establishment with `cause` goes to the AMF: always without an overload; otherwise not when
 * the action rejects the cause, except the share a Traffic Load Reduction Indication leaves through
 * (`random` in [0, 1)). An action this release does not know, or none, rejects what signalling would
 * (the node's choice, 8.7.7.2 leaves it open).
 */
export function admits(
  overload: AmfOverload | undefined,
  cause: RRCEstablishmentCause,
  random: () => number = Math.random,
): boolean {
  if (overload === undefined) return true;
  const action = typeof overload.action === 'string' ? overload.action : 'reject-rrc-cr-signalling';
  const permitted = PERMITTED[action];
  const rejected =
    permitted === undefined ? (REJECTED[action] ?? []).includes(cause) : !permitted.includes(cause);
  if (!rejected) return true;
  const percent = overload.reductionPercent;
  return percent !== undefined && random() * 100 >= percent;
}
