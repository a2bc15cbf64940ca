/** A key found by the walk: its ASN.1 type and bits [from, to) of the PDU. */
interface KeyRange {
  type: string;
  from: number;
  to: number;
}

/**
 * Where the 256-bit key lies in the value of each IE type that carries one, as bits [from, to) of the
 * IE's open type (ALIGNED PER, X.691; TS 38.413 9.3.1.87 and 9.3.1.88), its alignment padding (zero
 * bits, X.691 11.1) included as the decoder's range includes it:
 * - SecurityKey ::= BIT STRING (SIZE(256)): a fixed size over 16 bits, octet-aligned (X.691 16.10), first;
 * - SecurityContext ::= SEQUENCE { nextHopChainingCount INTEGER (0..7), nextHopNH SecurityKey,
 *   iE-Extensions OPTIONAL, ... }: the extension bit, the presence bit and the count's 3 bits, then
 *   3 bits of padding and the key from the second octet.
 */
const KEY_BITS: ReadonlyMap<string, readonly [from: number, to: number]> = new Map([
  ['SecurityKey', [0, 256]],
  ['SecurityContext', [5, 8 + 256]],
]);

/** Whether the walk knows where the key lies in the value of each of these IE types. */
export function walkable(ieTypes: ReadonlyMap<number, string>): boolean {
  for (const type of ieTypes.values()) if (!KEY_BITS.has(type)) return false;
  return true;
}

/**
 * The keys of an NGAP PDU found by walking the framing of its message's protocol IE container,
 * without decoding any IE: `keyIes` names the IEs (id to type) whose value holds a key (all of them
 * `walkable`). Each IE of those ids is taken, repeated ones too. Undefined when the framing does not
 * read (truncated, a length beyond its container, a fragmented open type, a key IE too short to hold
 * its key): the caller then stores none of the PDU. Never throws.
 *
 * ALIGNED PER of the PDU (TS 38.413 9.4.1, X.691): octet 0 the NGAP-PDU CHOICE, octet 1 the procedure
 * code, octet 2 the criticality, then the message as an open type (a length determinant, X.691 11.9.3.6:
 * one octet under 128, two under 16384, fragments beyond). The message is a SEQUENCE with an extension
 * marker: the extension bit in its first octet, then the container's IE count in two aligned octets
 * (SIZE (0..65535), X.691 11.9.4.1), then each IE: its id in two octets, the criticality's octet, its
 * value as an open type. The message's own extension additions follow the container and carry no IE.
 */
export function walkKeyMaterial(
  bytes: Uint8Array,
  keyIes: ReadonlyMap<number, string>,
): KeyRange[] | undefined {
  const message = openType(bytes, 3, bytes.length);
  if (message < 0) return undefined;
  const start = message % LIMIT;
  const end = start + Math.floor(message / LIMIT);
  if (end - start < 3) return undefined;
  const count = (bytes[start + 1]! << 8) | bytes[start + 2]!;
  const ranges: KeyRange[] = [];
  let at = start + 3;
  for (let i = 0; i < count; i++) {
    if (end - at < 3) return undefined;
    const id = (bytes[at]! << 8) | bytes[at + 1]!;
    const value = openType(bytes, at + 3, end);
    if (value < 0) return undefined;
    const from = value % LIMIT;
    const length = Math.floor(value / LIMIT);
    const type = keyIes.get(id);
    if (type !== undefined) {
      const bits = KEY_BITS.get(type);
      if (bits === undefined || 8 * length < bits[1]) return undefined;
      ranges.push({ type: 'SecurityKey', from: 8 * from + bits[0], to: 8 * from + bits[1] });
    }
    at = from + length;
  }
  return ranges;
}

/** Packs an open type's contents (start, length) in one number: start + length * LIMIT. */
const LIMIT = 2 ** 26;

/**
 * The contents of the open type whose length determinant is at octet `at`, within `end`, packed as
 * start + length * LIMIT (no allocation per IE); -1 when it does not fit or is fragmented (not walked).
 */
function openType(bytes: Uint8Array, at: number, end: number): number {
  if (at >= end || end > LIMIT) return -1;
  const first = bytes[at]!;
  let start: number;
  let length: number;
  if ((first & 0x80) === 0) {
    start = at + 1;
    length = first;
  } else if ((first & 0x40) === 0 && at + 1 < end) {
    start = at + 2;
    length = ((first & 0x3f) << 8) | bytes[at + 1]!;
  } else return -1;
  if (start + length > end) return -1;
  return start + length * LIMIT;
}
