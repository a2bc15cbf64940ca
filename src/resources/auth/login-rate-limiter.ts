import type { Clock } from '../../clock.ts';
import { RateLimitedError } from '../../errors.ts';

const WINDOW_MS = 60_000;
const SWEEP_THRESHOLD = 10_000;

/**
 * Attempts one client address may make per window across all e-mails, in e-mails' worth of the
 * per-e-mail limit: a few people behind one address mistyping still get through, a spray of a new e-mail
 * per attempt does not.
 */
const ADDRESS_LIMIT_FACTOR = 3;

interface Window {
  count: number;
  resetAt: number;
}

/**
 * Fixed one-minute windows of login attempts, kept in memory: `limit` per (client address, e-mail), and
 * `ADDRESS_LIMIT_FACTOR * limit` per client address across e-mails. A successful login is given back to
 * its address's window (only failures and attempts in progress use it up), so that successful logins of
 * many people behind one address never lock it.
 */
export function createLoginRateLimiter(deps: { limit: number; clock: Clock }) {
  const windows = new Map<string, Window>();
  const addressLimit = ADDRESS_LIMIT_FACTOR * deps.limit;

  function sweep(now: number): void {
    for (const [key, window] of windows) if (window.resetAt <= now) windows.delete(key);
  }

  function current(key: string, now: number): Window {
    let window = windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { count: 0, resetAt: now + WINDOW_MS };
      windows.set(key, window);
    }
    return window;
  }

  const limited = (window: Window, now: number) =>
    new RateLimitedError(
      'too many login attempts; try again later',
      Math.max(1, Math.ceil((window.resetAt - now) / 1000)),
    );

  return {
    /**
     * Counts one attempt; throws RateLimitedError once either window's allowance is used up. Call
     * `succeeded` on the result when the attempt logged in.
     */
    attempt(ip: string, email: string): { succeeded(): void } {
      const now = deps.clock.now();
      if (windows.size >= SWEEP_THRESHOLD) sweep(now);
      // The address key cannot collide with an (address, e-mail) key: those hold a newline.
      const ofAddress = current(ip, now);
      if (ofAddress.count >= addressLimit) throw limited(ofAddress, now);
      const ofEmail = current(`${ip}\n${email.toLowerCase()}`, now);
      ofEmail.count += 1;
      if (ofEmail.count > deps.limit) throw limited(ofEmail, now);
      ofAddress.count += 1;
      return {
        succeeded() {
          if (ofAddress.count > 0) ofAddress.count -= 1;
        },
      };
    },
  };
}

export type LoginRateLimiter = ReturnType<typeof createLoginRateLimiter>;
