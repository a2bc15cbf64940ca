import { PerReader } from '../asn1/per-reader.ts';
import { decodeCriticality, decodeProcedureCode } from './generated/codec.ts';
import type { Criticality, TriggeringMessage } from './generated/types.ts';

/** The three kinds of NGAP-PDU (TS 38.413 9.4.2), in the CHOICE's order. */
const KINDS: readonly TriggeringMessage[] = [
  'initiating-message',
  'successful-outcome',
  'unsuccessful-outcome',
];

/** What a receiver can still tell of a PDU whose body does not decode: its procedure and message kind. */
export interface NgapHeader {
  procedureCode: number;
  triggeringMessage: TriggeringMessage;
  criticality: Criticality;
}

/**
 * Reads the NGAP-PDU CHOICE, the procedure code and the procedure's criticality, which precede the
 * message in its open type (TS 38.413 9.4.2: InitiatingMessage, SuccessfulOutcome and
 * UnsuccessfulOutcome are SEQUENCEs of procedureCode, criticality, value). Enough for the Criticality
 * Diagnostics of a transfer syntax error (TS 38.413 10.2); undefined when even these are unreadable
 * or the PDU is an extension alternative. Never throws.
 */
export function readNgapHeader(bytes: Uint8Array): NgapHeader | undefined {
  try {
    const r = new PerReader(bytes, true);
    if (r.bit()) return undefined;
    const triggeringMessage = KINDS[r.bitsInt(0, 2, 2)];
    if (triggeringMessage === undefined) return undefined;
    const procedureCode = decodeProcedureCode(r);
    const criticality = decodeCriticality(r);
    if ((criticality as Criticality | undefined) === undefined) return undefined;
    return { procedureCode, triggeringMessage, criticality };
  } catch {
    return undefined;
  }
}
