// PDU Session Resource Modify Indication Unsuccessful Transfer (TS 38.413 9.3.4): the SMF's answer for a
// session whose modification it refuses, and the AMF's for a session it has no SM context for.
import { encodeComplete } from '../asn1/complete.ts';
import { encodePDUSessionResourceModifyIndicationUnsuccessfulTransfer } from './generated/codec.ts';
import type { Cause } from './generated/types.ts';

const ALIGNED = true;

/** PDU Session Resource Modify Indication Unsuccessful Transfer: why the session was not modified. */
export function modifyIndicationUnsuccessfulTransfer(cause: Cause): Uint8Array {
  return encodeComplete({ cause }, ALIGNED, encodePDUSessionResourceModifyIndicationUnsuccessfulTransfer);
}
