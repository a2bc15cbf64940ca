import { toHex } from '../asn1/hex.ts';

/** What the NGAP JSON view cannot do itself (network.md section 3). */
export interface ViewHooks {
  /**
   * Decodes a NAS-PDU (TS 24.501) into the fields shown beside its hex: `{decoded}` for a plain or
   * integrity-protected message, `{encrypted: true}` for a ciphered one. Injected so that the NGAP
   * codec does not depend on the NAS codec.
   */
  nas?: (bytes: Uint8Array) => Record<string, unknown>;
}

/** PLMNIdentity (TS 38.413 9.3.3.5): TBCD digits, MCC then MNC (filler 0xF for a two-digit MNC). */
export function plmnIdentityView(bytes: Uint8Array, _hooks: ViewHooks): unknown {
  if (bytes.length !== 3) return { hex: toHex(bytes) };
  const digit = (nibble: number): string => (nibble <= 9 ? String(nibble) : nibble === 15 ? '' : '?');
  const [b0, b1, b2] = [bytes[0]!, bytes[1]!, bytes[2]!];
  return {
    mcc: digit(b0 & 15) + digit(b0 >> 4) + digit(b1 & 15),
    mnc: digit(b2 & 15) + digit(b2 >> 4) + digit(b1 >> 4),
  };
}

/** NAS-PDU: its hex, and what the injected NAS decoder makes of it. */
export function nasPduView(bytes: Uint8Array, hooks: ViewHooks): unknown {
  const hex = toHex(bytes);
  if (hooks.nas === undefined) return { hex };
  try {
    return { hex, ...hooks.nas(bytes) };
  } catch (error) {
    return { hex, error: error instanceof Error ? error.message : String(error) };
  }
}
