// Path Switch Request Unsuccessful Transfer (TS 38.413 9.3.4.10): the SMF's answer for a session it did
// not switch, and the AMF's for every session of a Path Switch Request it refuses itself.
import { encodeComplete } from '../asn1/complete.ts';
import { encodePathSwitchRequestUnsuccessfulTransfer } from './generated/codec.ts';
import type { Cause } from './generated/types.ts';

const ALIGNED = true;

/** Path Switch Request Unsuccessful Transfer (9.3.4.10): why the session was not switched. */
export function pathSwitchUnsuccessfulTransfer(cause: Cause): Uint8Array {
  return encodeComplete({ cause }, ALIGNED, encodePathSwitchRequestUnsuccessfulTransfer);
}
