import type { Clock } from '../clock.ts';

/** How long a member stays, and how many members are kept at most. */
export interface ExpiringSetLimits {
  ttlMs: number;
  capacity: number;
}

/**
 * A set whose members leave `ttlMs` after they were last added, holding at most `capacity`: when full, the
 * least recently added member leaves first, so memory stays bounded whatever is added.
 */
export function createExpiringSet(deps: ExpiringSetLimits & { clock: Clock }) {
  // Map order is insertion order: re-inserting on each add keeps the least recently added first.
  const expiresAt = new Map<string, number>();

  return {
    has(member: string): boolean {
      const until = expiresAt.get(member);
      if (until === undefined) return false;
      if (until > deps.clock.now()) return true;
      expiresAt.delete(member);
      return false;
    },

    add(member: string): void {
      expiresAt.delete(member);
      if (expiresAt.size >= deps.capacity) {
        const oldest = expiresAt.keys().next();
        if (!oldest.done) expiresAt.delete(oldest.value);
      }
      expiresAt.set(member, deps.clock.now() + deps.ttlMs);
    },

    delete(member: string): void {
      expiresAt.delete(member);
    },

    clear(): void {
      expiresAt.clear();
    },
  };
}
