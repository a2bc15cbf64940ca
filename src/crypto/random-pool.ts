import { randomFillSync } from 'node:crypto';

/**
 * Random values from node:crypto, drawn 4 KiB at a time: a `randomBytes` call costs about 6 µs here
 * whatever its size (16 bytes or 4 KiB), and the AMF and the AUSF want a few bytes per registration.
 * For values sent in clear (RAND, 5G-TMSI), never for keys: a pool keeps values before they are used.
 */
interface RandomPool {
  /** `size` random bytes in a buffer of their own. */
  bytes: (size: number) => Buffer;
  /** A random 32-bit unsigned integer. */
  word: () => number;
}

const POOL_BYTES = 4096;

export function createRandomPool(): RandomPool {
  const pool = Buffer.allocUnsafeSlow(POOL_BYTES);
  let next = POOL_BYTES;
  const take = (size: number): number => {
    if (next + size > POOL_BYTES) {
      randomFillSync(pool);
      next = 0;
    }
    const at = next;
    next += size;
    return at;
  };
  return {
    bytes: (size) => {
      if (size > POOL_BYTES) return randomFillSync(Buffer.allocUnsafeSlow(size));
      const at = take(size);
      // A copy: a value handed out must not change when the pool is filled again.
      const out = Buffer.allocUnsafe(size);
      pool.copy(out, 0, at, at + size);
      return out;
    },
    word: () => pool.readUInt32LE(take(4)),
  };
}

/** The process's pool. */
export const randomPool = createRandomPool();
