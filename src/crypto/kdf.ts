// The generic key derivation function of 3GPP TS 33.220 Annex B (used by TS 33.501 Annex A).
import { createHmac } from 'node:crypto';

const MAX_PARAMETER_BYTES = 0xffff;

/** Where S is put together (see kdf); grows for a longer S. */
let scratch = Buffer.alloc(256);

/**
 * KDF(Key, S) = HMAC-SHA-256(Key, S) with S = FC || P0 || L0 || P1 || L1 || ... (TS 33.220 B.2.0), where
 * each Li is the length of Pi in bytes as a two-byte big-endian number. Returns the 32-byte output.
 */
export function kdf(key: Uint8Array, fc: number, parameters: readonly Uint8Array[]): Buffer {
  if (!Number.isInteger(fc) || fc < 0 || fc > 0xff) throw new RangeError(`FC must be one byte, got ${fc}`);
  let length = 1;
  for (const parameter of parameters) {
    if (parameter.length > MAX_PARAMETER_BYTES) {
      throw new RangeError(
        `a KDF parameter is at most ${MAX_PARAMETER_BYTES} bytes, got ${parameter.length}`,
      );
    }
    length += parameter.length + 2;
  }
  // S is written into a reused scratch buffer and hashed in one update (the HMAC copies it): one call
  // into node:crypto instead of two per parameter, and no buffer per length field.
  if (length > scratch.length) scratch = Buffer.alloc(Math.max(length, 2 * scratch.length));
  scratch[0] = fc;
  let offset = 1;
  for (const parameter of parameters) {
    scratch.set(parameter, offset);
    offset += parameter.length;
    offset = scratch.writeUInt16BE(parameter.length, offset);
  }
  return createHmac('sha256', key).update(scratch.subarray(0, length)).digest();
}
