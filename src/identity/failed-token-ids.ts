import type { Clock } from '../clock.ts';

/** How long a failed token id is answered without hashing, and how many ids are remembered at most. */
export interface FailedTokenIdLimits {
  holdMs: number;
  capacity: number;
}

export const DEFAULT_FAILED_TOKEN_ID_LIMITS: FailedTokenIdLimits = { holdMs: 10_000, capacity: 10_000 };

/**
 * API token ids whose secret was wrong lately. While an id is held, another secret for it is refused
 * without hashing, so guessing the secret of a known id costs one hash per `holdMs`, whatever the rate.
 * A least-recently-failed id is dropped first when `capacity` is reached: memory stays bounded and an
 * id dropped early only costs one more hash.
 */
export function createFailedTokenIds(deps: FailedTokenIdLimits & { clock: Clock }) {
  // Map order is insertion order: re-inserting on each failure keeps the oldest failure first.
  const heldUntil = new Map<string, number>();

  return {
    /** Whether a secret for `publicId` failed less than `holdMs` ago. */
    isHeld(publicId: string): boolean {
      const until = heldUntil.get(publicId);
      if (until === undefined) return false;
      if (until > deps.clock.now()) return true;
      heldUntil.delete(publicId);
      return false;
    },

    failed(publicId: string): void {
      heldUntil.delete(publicId);
      if (heldUntil.size >= deps.capacity) {
        const oldest = heldUntil.keys().next();
        if (!oldest.done) heldUntil.delete(oldest.value);
      }
      heldUntil.set(publicId, deps.clock.now() + deps.holdMs);
    },

    forget(publicId: string): void {
      heldUntil.delete(publicId);
    },

    forgetAll(): void {
      heldUntil.clear();
    },

    size: (): number => heldUntil.size,
  };
}

export type FailedTokenIds = ReturnType<typeof createFailedTokenIds>;
