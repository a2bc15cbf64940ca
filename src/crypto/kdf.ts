// The generic key derivation function of 3GPP TS 33.220 Annex B (used by TS 33.501 Annex A).
import { createHmac } from 'node:crypto';

const MAX_PARAMETER_BYTES = 0xffff;

/**
 * KDF(Key, S) = HMAC-SHA-256(Key, S) with S = FC || P0 || L0 || P1 || L1 || ... (TS 33.220 B.2.0), where
 * each Li is the length of Pi in bytes as a two-byte big-endian number. Returns the 32-byte output.
 */
export function kdf(key: Uint8Array, fc: number, parameters: readonly Uint8Array[]): Buffer {
  if (!Number.isInteger(fc) || fc < 0 || fc > 0xff) throw new RangeError(`FC must be one byte, got ${fc}`);
  const hmac = createHmac('sha256', key);
  hmac.update(Uint8Array.of(fc));
  const length = Buffer.alloc(2);
  for (const parameter of parameters) {
    if (parameter.length > MAX_PARAMETER_BYTES) {
      throw new RangeError(
        `a KDF parameter is at most ${MAX_PARAMETER_BYTES} bytes, got ${parameter.length}`,
      );
    }
    length.writeUInt16BE(parameter.length);
    hmac.update(parameter);
    hmac.update(length);
  }
  return hmac.digest();
}
