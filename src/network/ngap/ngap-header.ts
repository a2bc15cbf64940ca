import type { Criticality, TriggeringMessage } from './generated/types.ts';

/** The three kinds of NGAP-PDU (TS 38.413 9.4.2), in the CHOICE's order. */
const KINDS: readonly TriggeringMessage[] = [
  'initiating-message',
  'successful-outcome',
  'unsuccessful-outcome',
];

/** Criticality's ENUMERATED values (TS 38.413 9.4.5), in order. */
const CRITICALITIES: readonly Criticality[] = ['reject', 'ignore', 'notify'];

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
  // ALIGNED PER (X.691) of these three fields, read from the octets (the records read the header of every
  // PDU they store, and a PerReader per PDU cost more than the rest): octet 1 holds the CHOICE's extension
  // bit (set: an extension alternative) and its 2-bit index (3 is out of range); procedureCode, INTEGER
  // (0..255), is the whole next octet (X.691 10.5.7.2, octet-aligned); criticality, ENUMERATED of three
  // without extension, the 2 leading bits of the octet after it (3 is out of range).
  if (bytes.length < 3) return undefined;
  const first = bytes[0]!;
  if ((first & 0x80) !== 0) return undefined;
  const triggeringMessage = KINDS[(first >> 5) & 3];
  const criticality = CRITICALITIES[bytes[2]! >> 6];
  if (triggeringMessage === undefined || criticality === undefined) return undefined;
  return { procedureCode: bytes[1]!, triggeringMessage, criticality };
}
