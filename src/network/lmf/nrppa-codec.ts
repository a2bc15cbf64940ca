import { decodeComplete, encodeComplete, type DecodeResult } from '../asn1/complete.ts';
import { decodeNRPPAPDU, encodeNRPPAPDU } from '../nrppa/generated/codec.ts';
import type { NRPPAPDU } from '../nrppa/generated/types.ts';

/** NRPPa is encoded with ALIGNED PER (TS 38.455 9.4). */
const ALIGNED = true;

/** Decodes one NRPPa PDU; never throws (a malformed PDU gives `{ok: false, error}`). */
export const decodeNrppaPdu = (bytes: Uint8Array): DecodeResult<NRPPAPDU> =>
  decodeComplete(bytes, ALIGNED, decodeNRPPAPDU);

/** Encodes one NRPPa PDU; throws PerError when a value breaks its constraints (a caller's bug). */
export const encodeNrppaPdu = (pdu: NRPPAPDU): Uint8Array => encodeComplete(pdu, ALIGNED, encodeNRPPAPDU);
