import { randomInt } from 'node:crypto';

/**
 * Local F-TEIDs of the UPF's N3 tunnels, uplink and forwarding (TS 29.281 5.1: TEID 0 is reserved for
 * messages that belong to no tunnel, e.g. Echo and Error Indication). Random rather than sequential,
 * so that an off-path sender cannot guess a live tunnel from the last one it saw.
 */
export interface TeidAllocator {
  /** A TEID not in use, never 0; undefined when `limit` TEIDs are in use. */
  allocate(): number | undefined;
  /** Returns a TEID; false when it was not allocated. */
  release(teid: number): boolean;
  readonly inUse: number;
}

const MAX_TEID = 0xffff_ffff;

export function createTeidAllocator(
  options: { limit?: number; random?: (min: number, max: number) => number } = {},
): TeidAllocator {
  const limit = options.limit ?? 1_000_000;
  const random = options.random ?? ((min: number, max: number) => randomInt(min, max));
  const used = new Set<number>();
  return {
    allocate() {
      if (used.size >= limit) return undefined;
      // At most `limit` of the 2^32 - 1 TEIDs are used, so a random one is almost always free; after a
      // few collisions the search goes on upwards from the last, which ends within limit + 1 steps.
      let teid = random(1, MAX_TEID + 1);
      for (let tries = 1; used.has(teid); tries++) {
        teid = tries < 8 ? random(1, MAX_TEID + 1) : (teid % MAX_TEID) + 1;
      }
      used.add(teid);
      return teid;
    },
    release: (teid) => used.delete(teid),
    get inUse() {
      return used.size;
    },
  };
}
