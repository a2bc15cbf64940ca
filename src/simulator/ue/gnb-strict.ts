// What a strict commercial gNB does with a PDU Session Resource Setup Request for a UE whose context it
// has not set up yet (docs/interop.md): such gNBs set up no DRB before AS security, which only Initial
// Context Setup brings (TS 38.413 8.3.1; TS 23.502 4.2.3.2 lets the AMF carry the sessions in it). The
// gNB answers with every session in the failed list, cause protocol/message-not-compatible-with-receiver-state,
// as a commercial gNB did in magma/magma#8905.
import { encodeComplete } from '../../network/asn1/complete.ts';
import { encodePDUSessionResourceSetupUnsuccessfulTransfer } from '../../network/ngap/generated/codec.ts';
import {
  buildPDUSessionResourceSetupResponse,
  readPDUSessionResourceSetupRequest,
} from '../../network/ngap/generated/messages.ts';
import type { Cause, NGAPPDU } from '../../network/ngap/generated/types.ts';

const ALIGNED = true;

/** The cause a strict gNB gives each session of a standalone setup before the UE's context. */
const STANDALONE_SETUP_CAUSE: Cause = {
  choice: 'protocol',
  value: 'message-not-compatible-with-receiver-state',
};

/** A standalone PDU Session Resource Setup Request a strict gNB refused. */
export interface RefusedSetup {
  amfUeNgapId: number;
  ranUeNgapId: number;
  pduSessionIds: number[];
}

/**
 * The refusal of a PDU Session Resource Setup Request, or undefined when `pdu` is not one (or does not
 * read: the caller's usual handling leaves those unanswered).
 */
export function refuseStandaloneSetup(pdu: NGAPPDU): { answer: NGAPPDU; refused: RefusedSetup } | undefined {
  if (pdu.choice !== 'initiatingMessage' || pdu.value.name !== 'PDUSessionResourceSetup') return undefined;
  const read = readPDUSessionResourceSetupRequest(pdu);
  if (!read.ok) return undefined;
  const { amfUeNgapId, ranUeNgapId, pduSessionResourceSetupListSuReq: items } = read.message;
  const transfer = encodeComplete(
    { cause: STANDALONE_SETUP_CAUSE },
    ALIGNED,
    encodePDUSessionResourceSetupUnsuccessfulTransfer,
  );
  const answer = buildPDUSessionResourceSetupResponse({
    amfUeNgapId,
    ranUeNgapId,
    pduSessionResourceFailedToSetupListSuRes: items.map((item) => ({
      pDUSessionID: item.pDUSessionID,
      pDUSessionResourceSetupUnsuccessfulTransfer: transfer,
    })),
  });
  return { answer, refused: { amfUeNgapId, ranUeNgapId, pduSessionIds: items.map((i) => i.pDUSessionID) } };
}
