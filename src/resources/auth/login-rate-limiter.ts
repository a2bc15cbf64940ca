import type { Clock } from '../../clock.ts';
import { RateLimitedError } from '../../errors.ts';

const WINDOW_MS = 60_000;
const SWEEP_THRESHOLD = 10_000;

/** Fixed one-minute windows of login attempts per (client address, e-mail), kept in memory. */
export function createLoginRateLimiter(deps: { limit: number; clock: Clock }) {
  const windows = new Map<string, { count: number; resetAt: number }>();

  function sweep(now: number): void {
    for (const [key, window] of windows) if (window.resetAt <= now) windows.delete(key);
  }

  return {
    /** Counts one attempt; throws RateLimitedError once the window's allowance is used up. */
    attempt(ip: string, email: string): void {
      const now = deps.clock.now();
      if (windows.size >= SWEEP_THRESHOLD) sweep(now);
      const key = `${ip}\n${email.toLowerCase()}`;
      let window = windows.get(key);
      if (!window || window.resetAt <= now) {
        window = { count: 0, resetAt: now + WINDOW_MS };
        windows.set(key, window);
      }
      window.count += 1;
      if (window.count > deps.limit) {
        throw new RateLimitedError(
          'too many login attempts; try again later',
          Math.max(1, Math.ceil((window.resetAt - now) / 1000)),
        );
      }
    },
  };
}

export type LoginRateLimiter = ReturnType<typeof createLoginRateLimiter>;
