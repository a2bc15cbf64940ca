import type { DecodeResult } from '../asn1/complete.ts';
import { decodeComplete, encodeComplete } from '../asn1/complete.ts';
import { redactKeyMaterial, zeroRanges, type Redacted } from '../asn1/redact.ts';
import {
  InitiatingMessage_MESSAGES,
  SuccessfulOutcome_MESSAGES,
  UnsuccessfulOutcome_MESSAGES,
  decodeNGAPPDU,
  encodeNGAPPDU,
} from './generated/codec.ts';
import { KEY_MATERIAL_IES, PROCEDURES, type ProcedureSpec } from './generated/ies.ts';
import { walkable, walkKeyMaterial } from './key-material-walk.ts';
import type { NGAPPDU, TriggeringMessage } from './generated/types.ts';
import type { ViewHooks } from './view-hooks.ts';
import { viewNGAPPDU } from './generated/view.ts';
import { readNgapHeader } from './ngap-header.ts';

/** NGAP is encoded with ALIGNED PER (TS 38.413 9.4.1). */
const ALIGNED = true;

export type { NGAPPDU } from './generated/types.ts';
export type { ViewHooks } from './view-hooks.ts';

/** Decodes one NGAP PDU; never throws (a malformed PDU gives `{ok: false, error}`). */
export function decodeNgapPdu(bytes: Uint8Array): DecodeResult<NGAPPDU> {
  return decodeComplete(bytes, ALIGNED, decodeNGAPPDU);
}

/** Encodes one NGAP PDU; throws PerError when a value breaks its ASN.1 constraints (a caller's bug). */
export function encodeNgapPdu(pdu: NGAPPDU): Uint8Array {
  return encodeComplete(pdu, ALIGNED, encodeNGAPPDU);
}

/** The PROCEDURES property naming the message of each PDU kind. */
const KIND_MESSAGE: Record<TriggeringMessage, Exclude<keyof ProcedureSpec, 'name' | 'criticality'>> = {
  'initiating-message': 'initiatingMessage',
  'successful-outcome': 'successfulOutcome',
  'unsuccessful-outcome': 'unsuccessfulOutcome',
};

/**
 * The PDU as it may be stored or shown: every SecurityKey (KgNB, NH) zeroed in place, length kept, so
 * that it still decodes (network.md section 4). Never throws. The procedure code and kind fix the
 * message the decoder would read (TS 38.413 9.4.2): a PDU of a message whose IEs cannot hold a
 * SecurityKey (KEY_MATERIAL_IES, from the ASN.1) is returned as it is; in the others, the IEs that hold
 * one are found by walking the container's framing (key-material-walk.ts), not by decoding the PDU,
 * and a PDU whose framing does not read is zeroed whole. A header that does not read, an unknown
 * procedure, or a key the walk cannot place takes the full decode.
 */
export function redactNgapPdu(bytes: Uint8Array): Redacted {
  const header = readNgapHeader(bytes);
  if (header !== undefined) {
    const message = PROCEDURES.get(header.procedureCode)?.[KIND_MESSAGE[header.triggeringMessage]];
    if (message !== undefined) {
      const keyIes = KEY_MATERIAL_IES.get(message);
      if (keyIes === undefined) return { bytes, redacted: [] };
      if (keyIes.size > 0 && walkable(keyIes)) {
        const ranges = walkKeyMaterial(bytes, keyIes);
        return ranges === undefined ? zeroRanges(bytes, [], true) : zeroRanges(bytes, ranges, false);
      }
    }
  }
  return redactKeyMaterial(bytes, ALIGNED, decodeNGAPPDU);
}

/**
 * The `decoded` JSON view of an NGAP PDU (network.md section 3), or `{error}` when it does not decode.
 * NAS-PDUs are decoded by the injected `hooks.nas`.
 */
export function viewNgapPdu(bytes: Uint8Array, hooks: ViewHooks = {}): unknown {
  const decoded = decodeNgapPdu(bytes);
  if (!decoded.ok) return { error: decoded.error };
  return viewNGAPPDU(decoded.value, hooks);
}

/** The ASN.1 name of a PDU's message (`NGSetupRequest`, `InitialUEMessage`), `Unknown` outside the sets. */
export function ngapMessageType(pdu: NGAPPDU): string {
  switch (pdu.choice) {
    case 'initiatingMessage':
      return InitiatingMessage_MESSAGES.get(pdu.value.procedureCode) ?? 'Unknown';
    case 'successfulOutcome':
      return SuccessfulOutcome_MESSAGES.get(pdu.value.procedureCode) ?? 'Unknown';
    case 'unsuccessfulOutcome':
      return UnsuccessfulOutcome_MESSAGES.get(pdu.value.procedureCode) ?? 'Unknown';
    case null:
      return 'Unknown';
  }
}
