/** A recorded message with its key material zeroed, and the types zeroed (see asn1/redact.ts). */
type Redaction = (raw: Uint8Array) => { bytes: Uint8Array; redacted: string[] };

/**
 * The one place where every message on its way into the records loses its key material (network.md
 * section 4): radio events by their protocol, radio logs as the NGAP PDUs they carry. The network side
 * registers the redaction of each protocol it records whose ASN.1 carries keys (NGAP's SecurityKey);
 * the records of a protocol without one (NAS, NRPPa, LPP carry no key) are stored as they are.
 */
export function createKeyMaterialRedactions() {
  const byProtocol = new Map<string, Redaction>();

  return {
    register(protocol: string, redaction: Redaction): void {
      byProtocol.set(protocol, redaction);
    },

    /** The record with its raw bytes redacted, and `details.redacted` naming what was zeroed. */
    apply<R extends { raw: Uint8Array; details?: Record<string, unknown> }>(protocol: string, record: R): R {
      const redaction = byProtocol.get(protocol);
      if (redaction === undefined || record.raw.length === 0) return record;
      const { bytes, redacted } = redaction(record.raw);
      if (redacted.length === 0) return record;
      return { ...record, raw: bytes, details: { ...record.details, redacted } };
    },
  };
}

export type KeyMaterialRedactions = ReturnType<typeof createKeyMaterialRedactions>;
