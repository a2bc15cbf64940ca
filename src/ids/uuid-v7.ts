import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';

/**
 * UUID version 7 (RFC 9562 section 5.7): a 48-bit Unix timestamp in milliseconds, the version (7), 12 bits
 * `rand_a`, the variant (binary 10) and 62 bits `rand_b`. Ids sort by creation time.
 */

const RAND_A_BITS = 12n;
const RAND_B_BITS = 62n;
/** `rand_a` and `rand_b` together: the 74 bits below the timestamp that are not version or variant. */
const RANDOM_BITS = RAND_A_BITS + RAND_B_BITS;
const RANDOM_LIMIT = 1n << RANDOM_BITS;
const MAX_TIMESTAMP = 2 ** 48 - 1;

/** The text form of a UUIDv7 from its fields (RFC 9562 section 5.7 layout). */
export function formatUuidV7(unixMs: number, randA: number, randB: bigint): string {
  if (!Number.isInteger(unixMs) || unixMs < 0 || unixMs > MAX_TIMESTAMP) {
    throw new RangeError('unix_ts_ms must be a 48-bit unsigned integer');
  }
  if (!Number.isInteger(randA) || randA < 0 || randA >= 1 << 12)
    throw new RangeError('rand_a must be 12 bits');
  if (randB < 0n || randB >= 1n << RAND_B_BITS) throw new RangeError('rand_b must be 62 bits');
  const value = (BigInt(unixMs) << 80n) | (0x7n << 76n) | (BigInt(randA) << 64n) | (0b10n << 62n) | randB;
  const hex = value.toString(16).padStart(32, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function randomBits(): bigint {
  // 10 bytes = 80 bits, of which the low 74 are kept.
  return BigInt(`0x${randomBytes(10).toString('hex')}`) & (RANDOM_LIMIT - 1n);
}

/**
 * A UUIDv7 generator, monotonic within one process (RFC 9562 section 6.2, method 2): a new millisecond
 * starts from fresh random bits; within the same millisecond (or when the clock steps back) the previous
 * 74 random bits are incremented, moving to the next millisecond if they overflow. So ids created one
 * after the other always sort in creation order.
 */
export function createUuidV7Generator(clock: Clock, random: () => bigint = randomBits) {
  let lastMs = -1;
  let lastRandom = 0n;
  return (): string => {
    const now = clock.now();
    if (now > lastMs) {
      lastMs = now;
      lastRandom = random();
    } else {
      lastRandom += 1n;
      if (lastRandom >= RANDOM_LIMIT) {
        lastMs += 1;
        lastRandom = random();
      }
    }
    return formatUuidV7(lastMs, Number(lastRandom >> RAND_B_BITS), lastRandom & ((1n << RAND_B_BITS) - 1n));
  };
}

export type UuidV7Generator = ReturnType<typeof createUuidV7Generator>;
