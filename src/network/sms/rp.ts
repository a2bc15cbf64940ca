// The RP layer of TS 24.011 (7.3, 8.2): RP-DATA in both directions, RP-ACK, RP-ERROR and RP-SMMA. Octet
// 1 is the message type indicator (bits 3-1; bits 8-4 spare), octet 2 the message reference.
import { decodeRpAddressValue, encodeRpAddressValue, type SmsAddress } from './address.ts';
import { fail, ok, type SmsDecodeResult } from './result.ts';

/** Who sends the RP message: the MS or the network. */
export type RpDirection = 'ms-to-network' | 'network-to-ms';

export type RpMessage =
  | {
      type: 'rp-data';
      direction: RpDirection;
      messageReference: number;
      /** RP-Originator Address: the SC's address towards the MS; absent (length 0) from the MS. */
      originator?: SmsAddress;
      /** RP-Destination Address: the SC's address from the MS; absent (length 0) towards the MS. */
      destination?: SmsAddress;
      /** RP-User data: the TPDU. */
      tpdu: Uint8Array;
    }
  | { type: 'rp-ack'; direction: RpDirection; messageReference: number; tpdu?: Uint8Array }
  | {
      type: 'rp-error';
      direction: RpDirection;
      messageReference: number;
      cause: number;
      diagnostic?: number;
      tpdu?: Uint8Array;
    }
  | { type: 'rp-smma'; direction: 'ms-to-network'; messageReference: number };

/** TS 24.011 8.2.2, Table 8.3: message type indicator, ms->n even, n->ms odd. */
const MTI_BASE = { 'rp-data': 0, 'rp-ack': 2, 'rp-error': 4, 'rp-smma': 6 } as const;
const TYPES = ['rp-data', 'rp-ack', 'rp-error', 'rp-smma'] as const;

/** TS 24.011 8.2.5.4, Table 8.4: RP-cause values, named as the spec names them. */
export const RP_CAUSE_NAMES: ReadonlyMap<number, string> = new Map([
  [1, 'Unassigned (unallocated) number'],
  [8, 'Operator determined barring'],
  [10, 'Call barred'],
  [11, 'Reserved'],
  [17, 'Network failure'],
  [21, 'Short message transfer rejected'],
  // 22 is "Memory capacity exceeded" in an MT transfer (Table 8.4 part 2); Annex E lists it as
  // "Congestion" for MO.
  [22, 'Memory capacity exceeded'],
  [27, 'Destination out of service'],
  [28, 'Unidentified subscriber'],
  [29, 'Facility rejected'],
  [30, 'Unknown subscriber'],
  [38, 'Network out of order'],
  [41, 'Temporary failure'],
  [42, 'Congestion'],
  [47, 'Resources unavailable, unspecified'],
  [50, 'Requested facility not subscribed'],
  [69, 'Requested facility not implemented'],
  [81, 'Invalid short message transfer reference value'],
  [95, 'Semantically incorrect message'],
  [96, 'Invalid mandatory information'],
  [97, 'Message type non-existent or not implemented'],
  [98, 'Message not compatible with short message protocol state'],
  [99, 'Information element non-existent or not implemented'],
  [111, 'Protocol error, unspecified'],
  [127, 'Interworking, unspecified'],
]);

export const RP_CAUSE = {
  unassignedNumber: 1,
  operatorDeterminedBarring: 8,
  callBarred: 10,
  networkFailure: 17,
  shortMessageTransferRejected: 21,
  memoryCapacityExceeded: 22,
  destinationOutOfService: 27,
  unidentifiedSubscriber: 28,
  facilityRejected: 29,
  unknownSubscriber: 30,
  networkOutOfOrder: 38,
  temporaryFailure: 41,
  congestion: 42,
  resourcesUnavailable: 47,
  requestedFacilityNotSubscribed: 50,
  requestedFacilityNotImplemented: 69,
  invalidShortMessageTransferReference: 81,
  semanticallyIncorrectMessage: 95,
  invalidMandatoryInformation: 96,
  messageTypeNonExistent: 97,
  messageNotCompatibleWithState: 98,
  informationElementNonExistent: 99,
  protocolErrorUnspecified: 111,
  interworkingUnspecified: 127,
} as const;

/** `Call barred (10)`; `Unknown (n)` for a value Table 8.4 does not define. */
export function rpCauseLabel(cause: number): string {
  return `${RP_CAUSE_NAMES.get(cause) ?? 'Unknown'} (${cause})`;
}

/** TS 24.011 7.3.1: RP-User data is LV of at most 233 octets, so the TPDU at most 232. */
export const MAX_TPDU_OCTETS = 232;
/** TS 24.011 8.2.5.3: the IEI of RP-User data where it is optional (RP-ACK, RP-ERROR). */
const IEI_RP_USER_DATA = 0x41;

function lv(value: Uint8Array): number[] {
  return [value.length, ...value];
}

function checkTpdu(tpdu: Uint8Array): Uint8Array {
  if (tpdu.length < 1 || tpdu.length > MAX_TPDU_OCTETS) throw new RangeError(`TPDU of ${tpdu.length} octets`);
  return tpdu;
}

/** The octets of an RP message. Throws RangeError on a TPDU or address that does not fit. */
export function encodeRpMessage(message: RpMessage): Uint8Array {
  const mti = MTI_BASE[message.type] + (message.direction === 'network-to-ms' ? 1 : 0);
  const head = [mti, message.messageReference & 0xff];
  const userData = (tpdu: Uint8Array | undefined): number[] =>
    tpdu === undefined ? [] : [IEI_RP_USER_DATA, ...lv(checkTpdu(tpdu))];
  switch (message.type) {
    case 'rp-data': {
      const [carried, empty] =
        message.direction === 'ms-to-network'
          ? [message.destination, message.originator]
          : [message.originator, message.destination];
      if (carried === undefined || empty !== undefined)
        throw new RangeError(
          'RP-DATA carries the SC address only: the destination from the MS, the originator to it',
        );
      return Uint8Array.from([
        ...head,
        ...lv(encodeRpAddressValue(message.originator)),
        ...lv(encodeRpAddressValue(message.destination)),
        ...lv(checkTpdu(message.tpdu)),
      ]);
    }
    case 'rp-ack':
      return Uint8Array.from([...head, ...userData(message.tpdu)]);
    case 'rp-error': {
      const cause = [
        message.cause & 0x7f,
        ...(message.diagnostic === undefined ? [] : [message.diagnostic & 0xff]),
      ];
      return Uint8Array.from([...head, ...lv(Uint8Array.from(cause)), ...userData(message.tpdu)]);
    }
    case 'rp-smma':
      return Uint8Array.from(head);
  }
}

const invalid = <T>(error: string): SmsDecodeResult<T> => fail(error, RP_CAUSE.invalidMandatoryInformation);

/** An LV at `offset`: its value and the offset after it, or undefined when it overruns. */
function readLv(bytes: Uint8Array, offset: number): { value: Uint8Array; next: number } | undefined {
  const length = bytes[offset];
  if (length === undefined || offset + 1 + length > bytes.length) return undefined;
  return { value: bytes.slice(offset + 1, offset + 1 + length), next: offset + 1 + length };
}

/** The optional RP-User data of RP-ACK and RP-ERROR: absent, present, or an error (#99 for another IE). */
function readOptionalUserData(bytes: Uint8Array, offset: number): SmsDecodeResult<Uint8Array | undefined> {
  if (offset >= bytes.length) return ok(undefined);
  if (bytes[offset] !== IEI_RP_USER_DATA)
    return fail(`unknown IE ${bytes[offset]}`, RP_CAUSE.informationElementNonExistent);
  const ie = readLv(bytes, offset + 1);
  if (ie === undefined || ie.value.length === 0 || ie.value.length > MAX_TPDU_OCTETS)
    return fail('RP-User data of a wrong length', RP_CAUSE.semanticallyIncorrectMessage);
  return ok(ie.value);
}

/**
 * Decodes an RP message; never throws. Failures follow TS 24.011 9.3: too short (no cause: ignored), the
 * reserved message type indicator (#97), a mandatory IE missing, cut off or of a wrong length (#96), an
 * unknown IE or a bad optional RP-User data (#99, #95). Octets after RP-DATA's or RP-SMMA's last IE are not read.
 */
export function decodeRpMessage(bytes: Uint8Array): SmsDecodeResult<RpMessage> {
  if (bytes.length < 2) return fail('RP message too short');
  const mti = (bytes[0] as number) & 0x07;
  const messageReference = bytes[1] as number;
  const type = TYPES[mti >> 1] as (typeof TYPES)[number];
  const direction: RpDirection = mti & 1 ? 'network-to-ms' : 'ms-to-network';
  if (type === 'rp-smma') {
    if (direction === 'network-to-ms')
      return fail('reserved RP message type 7', RP_CAUSE.messageTypeNonExistent);
    return ok({ type, direction, messageReference });
  }
  if (type === 'rp-ack') {
    const tpdu = readOptionalUserData(bytes, 2);
    if (!tpdu.ok) return tpdu;
    return ok({ type, direction, messageReference, ...(tpdu.value ? { tpdu: tpdu.value } : {}) });
  }
  if (type === 'rp-error') {
    const cause = readLv(bytes, 2);
    if (cause === undefined || cause.value.length < 1 || cause.value.length > 2)
      return invalid('RP-Cause missing or of a wrong length');
    const tpdu = readOptionalUserData(bytes, cause.next);
    if (!tpdu.ok) return tpdu;
    return ok({
      type,
      direction,
      messageReference,
      cause: (cause.value[0] as number) & 0x7f,
      ...(cause.value.length === 2 ? { diagnostic: cause.value[1] } : {}),
      ...(tpdu.value ? { tpdu: tpdu.value } : {}),
    });
  }
  // RP-DATA (7.3.1): the originator address is empty from the MS, the destination address towards it.
  const originatorIe = readLv(bytes, 2);
  const destinationIe = originatorIe && readLv(bytes, originatorIe.next);
  const userData = destinationIe && readLv(bytes, destinationIe.next);
  if (originatorIe === undefined || destinationIe === undefined || userData === undefined)
    return invalid('RP-DATA information element missing or cut off');
  // 8.2.5.1-2: the address that is carried is 2-11 octets (type and at least one digit octet), the
  // other is empty.
  const fromMs = direction === 'ms-to-network';
  if ((fromMs ? originatorIe : destinationIe).value.length !== 0)
    return invalid(`RP-${fromMs ? 'Originator' : 'Destination'} Address not empty`);
  if ((fromMs ? destinationIe : originatorIe).value.length < 2)
    return invalid(`RP-${fromMs ? 'Destination' : 'Originator'} Address missing`);
  const originator = decodeRpAddressValue(originatorIe.value);
  const destination = decodeRpAddressValue(destinationIe.value);
  if (originator !== undefined && 'error' in originator) return invalid(originator.error);
  if (destination !== undefined && 'error' in destination) return invalid(destination.error);
  if (userData.value.length === 0 || userData.value.length > MAX_TPDU_OCTETS)
    return invalid(`RP-User data of ${userData.value.length} octets`);
  return ok({
    type,
    direction,
    messageReference,
    ...(originator ? { originator } : {}),
    ...(destination ? { destination } : {}),
    tpdu: userData.value,
  });
}
