// The NAS COUNT of TS 24.501 4.4.3.1 / TS 33.501 6.4.3.1: a 24-bit value, NAS overflow (16 bits) || NAS
// sequence number (8 bits), carried in 32 bits with the 8 most significant bits zero. Only the sequence
// number travels in a message; the receiver estimates the rest.

/** The largest NAS COUNT: after it the context is exhausted (the AMF must take a new KAMF into use first). */
export const MAX_NAS_COUNT = 0xffffff;

const SEQUENCE_NUMBER_MODULUS = 0x100;

/** The 8-bit NAS sequence number of a COUNT, as the security header carries it. */
export function sequenceNumberOf(count: number): number {
  return count & 0xff;
}

/**
 * TS 24.501 4.4.3.1: the receiver's estimate of the NAS COUNT of a message from its sequence number, given
 * the highest COUNT accepted so far in that direction (undefined before the first). The estimate is the
 * smallest COUNT above the highest accepted one that ends in `sequenceNumber`, so an equal or smaller
 * sequence number means the overflow counter went up by one; a replayed message then fails its MAC.
 * Undefined when the estimate would pass MAX_NAS_COUNT.
 */
export function estimateCount(
  highestAccepted: number | undefined,
  sequenceNumber: number,
): number | undefined {
  if (highestAccepted === undefined) return sequenceNumber;
  const overflow = highestAccepted - sequenceNumberOf(highestAccepted);
  const estimate =
    sequenceNumber > sequenceNumberOf(highestAccepted)
      ? overflow + sequenceNumber
      : overflow + SEQUENCE_NUMBER_MODULUS + sequenceNumber;
  return estimate > MAX_NAS_COUNT ? undefined : estimate;
}
