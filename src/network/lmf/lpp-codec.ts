import { decodeComplete, encodeComplete, type DecodeResult } from '../asn1/complete.ts';
import { decodeLPPMessage, encodeLPPMessage } from '../lpp/generated/codec.ts';
import type { LPPMessage } from '../lpp/generated/types.ts';

/** LPP is encoded with BASIC-PER, unaligned (TS 37.355 6.1). */
const ALIGNED = false;

/** Decodes one LPP message; never throws (a malformed message gives `{ok: false, error}`). */
export const decodeLppMessage = (bytes: Uint8Array): DecodeResult<LPPMessage> =>
  decodeComplete(bytes, ALIGNED, decodeLPPMessage);

/** Encodes one LPP message; throws PerError when a value breaks its constraints (a caller's bug). */
export const encodeLppMessage = (message: LPPMessage): Uint8Array =>
  encodeComplete(message, ALIGNED, encodeLPPMessage);
