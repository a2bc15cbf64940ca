import type { Timers } from '../clock.ts';

/**
 * At most one pending timer per key: scheduling a key again replaces its timer, so a session can never
 * hold two. `size` says how many are pending (tests check that none is left behind).
 */
export function createKeyedTimers(timers: Timers) {
  const pending = new Map<string, () => void>();

  function cancel(key: string): void {
    const cancelTimer = pending.get(key);
    if (!cancelTimer) return;
    pending.delete(key);
    cancelTimer();
  }

  return {
    schedule(key: string, ms: number, callback: () => void): void {
      cancel(key);
      const cancelTimer = timers.after(ms, () => {
        pending.delete(key);
        callback();
      });
      pending.set(key, cancelTimer);
    },

    cancel,

    cancelAll(): void {
      for (const key of [...pending.keys()]) cancel(key);
    },

    has(key: string): boolean {
      return pending.has(key);
    },

    get size(): number {
      return pending.size;
    },
  };
}
