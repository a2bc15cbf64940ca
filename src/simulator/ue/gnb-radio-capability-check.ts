// The simulated node's side of UE Radio Capability Check (TS 38.413 8.14.2): it answers whether the UE's
// radio capability is compatible with its configuration for IMS voice, as a test sets it.
import {
  buildUERadioCapabilityCheckResponse,
  readUERadioCapabilityCheckRequest,
} from '../../network/ngap/generated/messages.ts';
import type { IMSVoiceSupportIndicator, NGAPPDU } from '../../network/ngap/generated/types.ts';

/** A UE Radio Capability Check Request the node received, and its answer. */
export interface RadioCapabilityCheck {
  ranUeNgapId: number;
  amfUeNgapId: number;
  /** The UE Radio Capability the AMF sent with it, if any. */
  capability: Uint8Array | undefined;
  /** What the node answered; `silent` when it did not. */
  answered: IMSVoiceSupportIndicator | 'silent';
}

/**
 * The node's answer to `pdu` when it is a UE Radio Capability Check Request for a connection it holds:
 * the IMS Voice Support Indicator `imsVoice` (8.14.2.2), or none when `silent`; undefined for any other
 * PDU, or one for a connection the node does not hold (the class 1 procedure has no failure message).
 */
export function answerRadioCapabilityCheck(
  pdu: NGAPPDU,
  holds: (ranUeNgapId: number) => boolean,
  imsVoice: IMSVoiceSupportIndicator | 'silent',
): { answer: NGAPPDU | undefined; check: RadioCapabilityCheck } | undefined {
  if (pdu.choice !== 'initiatingMessage' || pdu.value.name !== 'UERadioCapabilityCheck') return undefined;
  const read = readUERadioCapabilityCheckRequest(pdu);
  if (!read.ok || !holds(read.message.ranUeNgapId)) return undefined;
  const { amfUeNgapId, ranUeNgapId, ueRadioCapability } = read.message;
  return {
    answer:
      imsVoice === 'silent'
        ? undefined
        : buildUERadioCapabilityCheckResponse({
            amfUeNgapId,
            ranUeNgapId,
            imsVoiceSupportIndicator: imsVoice,
          }),
    check: {
      amfUeNgapId,
      ranUeNgapId,
      capability: ueRadioCapability === undefined ? undefined : Uint8Array.from(ueRadioCapability),
      answered: imsVoice,
    },
  };
}
