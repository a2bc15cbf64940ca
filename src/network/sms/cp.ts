// The CP layer of TS 24.011 (7.2, 8.1): CP-DATA, CP-ACK and CP-ERROR between the MS and the SMC entity,
// each headed by the protocol discriminator 9 (SMS, TS 24.007 11.2.3.1.1) in bits 4-1 and the
// transaction identifier in bits 8-5 (TI flag in bit 8, TS 24.007 11.2.3.1.3).
import { fail, ok, type SmsDecodeResult } from './result.ts';

export const SMS_PROTOCOL_DISCRIMINATOR = 9;
/** TS 24.501 9.11.3.40: the payload container type of UL/DL NAS Transport that carries CP messages. */
export const PAYLOAD_CONTAINER_SMS = 2;

/** TS 24.011 8.1.3, Table 8.1. */
const CP_MESSAGE_TYPE = { 'cp-data': 0x01, 'cp-ack': 0x04, 'cp-error': 0x10 } as const;

/** TS 24.011 8.1.4.2, Table 8.2: CP-cause values, named as the spec names them. */
export const CP_CAUSE_NAMES: ReadonlyMap<number, string> = new Map([
  [17, 'Network failure'],
  [22, 'Congestion'],
  [81, 'Invalid Transaction Identifier value'],
  [95, 'Semantically incorrect message'],
  [96, 'Invalid mandatory information'],
  [97, 'Message type non-existent or not implemented'],
  [98, 'Message not compatible with the short message protocol state'],
  [99, 'Information element non-existent or not implemented'],
  [111, 'Protocol error, unspecified'],
]);

export const CP_CAUSE = {
  networkFailure: 17,
  congestion: 22,
  invalidTransactionIdentifier: 81,
  semanticallyIncorrectMessage: 95,
  invalidMandatoryInformation: 96,
  messageTypeNonExistent: 97,
  messageNotCompatibleWithState: 98,
  informationElementNonExistent: 99,
  protocolErrorUnspecified: 111,
} as const;

/** TS 24.011 7.2.1: the RPDU in CP-User data is at most 248 octets (CP-User data LV, 3-249). */
export const MAX_RPDU_OCTETS = 248;

interface CpHeader {
  /** TI value 0-6 (7 would announce an extended TI, which SMS does not use). */
  transactionId: number;
  /** TI flag: false from the side that allocated the TI, true towards it. */
  tiFlag: boolean;
}

export type CpMessage =
  | (CpHeader & { type: 'cp-data'; rpdu: Uint8Array })
  | (CpHeader & { type: 'cp-ack' })
  | (CpHeader & { type: 'cp-error'; cause: number });

/** `Network failure (17)`, or `Unknown (n)` for a value Table 8.2 does not define. */
export function cpCauseLabel(cause: number): string {
  return `${CP_CAUSE_NAMES.get(cause) ?? 'Unknown'} (${cause})`;
}

/** The octets of a CP message. Throws RangeError on a TI outside 0-6 or an RPDU over 248 octets. */
export function encodeCpMessage(message: CpMessage): Uint8Array {
  if (!Number.isInteger(message.transactionId) || message.transactionId < 0 || message.transactionId > 6)
    throw new RangeError(`transaction identifier ${message.transactionId}`);
  const header = (message.tiFlag ? 0x80 : 0) | (message.transactionId << 4) | SMS_PROTOCOL_DISCRIMINATOR;
  const type = CP_MESSAGE_TYPE[message.type];
  switch (message.type) {
    case 'cp-data':
      if (message.rpdu.length < 2 || message.rpdu.length > MAX_RPDU_OCTETS)
        throw new RangeError(`RPDU of ${message.rpdu.length} octets`);
      return Uint8Array.from([header, type, message.rpdu.length, ...message.rpdu]);
    case 'cp-ack':
      return Uint8Array.of(header, type);
    case 'cp-error':
      return Uint8Array.of(header, type, message.cause & 0xff);
  }
}

/**
 * Decodes a CP message; never throws. Failures follow TS 24.011 9.2: too short or not SMS (no cause:
 * ignored), TI value 7 (#81), unknown message type (#97), a CP-User data or CP-cause missing or of a
 * wrong length (#96). Octets after the last IE are not read.
 */
export function decodeCpMessage(bytes: Uint8Array): SmsDecodeResult<CpMessage> {
  if (bytes.length < 2) return fail('CP message too short');
  const octet = bytes[0] as number;
  if ((octet & 0x0f) !== SMS_PROTOCOL_DISCRIMINATOR)
    return fail(`protocol discriminator ${octet & 0x0f}, not SMS`);
  const transactionId = (octet >> 4) & 0x7;
  if (transactionId === 7)
    return fail('extended transaction identifier', CP_CAUSE.invalidTransactionIdentifier);
  const header = { transactionId, tiFlag: (octet & 0x80) !== 0 };
  switch (bytes[1]) {
    case CP_MESSAGE_TYPE['cp-data']: {
      const length = bytes[2];
      if (length === undefined) return fail('CP-User data missing', CP_CAUSE.invalidMandatoryInformation);
      if (length < 2 || length > MAX_RPDU_OCTETS)
        return fail(`CP-User data of ${length} octets`, CP_CAUSE.invalidMandatoryInformation);
      if (3 + length > bytes.length)
        return fail('CP-User data cut off', CP_CAUSE.invalidMandatoryInformation);
      return ok({ ...header, type: 'cp-data', rpdu: bytes.slice(3, 3 + length) });
    }
    case CP_MESSAGE_TYPE['cp-ack']:
      return ok({ ...header, type: 'cp-ack' });
    case CP_MESSAGE_TYPE['cp-error']: {
      const cause = bytes[2];
      if (cause === undefined) return fail('CP-Cause missing', CP_CAUSE.invalidMandatoryInformation);
      return ok({ ...header, type: 'cp-error', cause });
    }
    default:
      return fail(`CP message type ${bytes[1]}`, CP_CAUSE.messageTypeNonExistent);
  }
}
