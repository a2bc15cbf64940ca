import type { Clock, Timers } from './clock.ts';

/** How long an operation is tried again, and the pauses between its attempts. */
export interface RetryPolicy {
  /**
   * Age of an operation (since its first attempt) past which it is given up: long enough for a restarted
   * database server or a failover to a standby, bounded so that a database gone for good does not keep
   * every waiting operation, and its memory, forever (docs/postgresql.md).
   */
  retryForMs: number;
  /** The first pause; each next one doubles, up to `maxPauseMs`. */
  firstPauseMs: number;
  maxPauseMs: number;
}

/** The bound and pauses of every write the service tries again: the network side's and the records writer's. */
export const RETRY_POLICY: RetryPolicy = {
  retryForMs: 60_000,
  firstPauseMs: 100,
  maxPauseMs: 5_000,
};

/** What one operation's retries tell its caller (its metrics, its log lines). */
export interface RetryHooks {
  /** Whether a failed attempt may be tried again; when not, the operation is given up at once. Default: always. */
  transient?(error: unknown): boolean;
  /** Attempt `attempt` (1 for the first) failed and the operation will be tried again after a pause. */
  retrying(error: unknown, attempt: number): void;
  /** The operation is given up after `attempts` attempts: its failure not transient, or its bound passed. */
  gaveUp(error: unknown, attempts: number): void;
  /** The operation succeeded (at once or after retries). */
  landed?(): void;
}

/** Why `run` ended without the operation: abandoned by its caller, or the retries stopped. */
export class RetryAbandoned extends Error {
  constructor(message = 'an operation was abandoned before a further attempt') {
    super(message);
  }
}

interface Retry {
  /**
   * Runs `attempt` until it succeeds, trying again after a pause (see `RetryPolicy`) while its failures
   * are transient, for at most the policy's `retryForMs`. Resolves with what it returned; rejects with its
   * last error when it is given up (told to `hooks.gaveUp` first), or with the `abandonment` error when
   * `abandoned()` says so before a further attempt, or the retries were stopped (told to no hook).
   */
  run<T>(attempt: () => Promise<T>, hooks: RetryHooks, abandoned?: () => boolean): Promise<T>;
  /** Pauses end at once and their operations are abandoned; nothing runs from now on. */
  stop(): void;
}

/** The pause after attempt `attempt` (1 for the first) failed. */
function pauseAfter(attempt: number, policy: RetryPolicy): number {
  return Math.min(policy.maxPauseMs, policy.firstPauseMs * 2 ** (attempt - 1));
}

/**
 * The one retry mechanism of the service's writes that nothing waits for while the database is
 * unavailable: the network side's (src/network/write-retry.ts) and the records writer's
 * (src/records/batching-writer.ts). Each caller keeps its own metrics and log lines through the hooks.
 */
export function createRetry(deps: {
  clock: Clock;
  /** The pauses' timers; `stop` cancels them. */
  timers: Timers;
  policy?: Partial<RetryPolicy>;
  /** The error an abandoned operation rejects with. */
  abandonment?: () => Error;
}): Retry {
  const { clock, timers, abandonment = () => new RetryAbandoned() } = deps;
  const policy = { ...RETRY_POLICY, ...deps.policy };
  const pauses = new Set<() => void>();
  let stopped = false;

  const pause = (ms: number) =>
    new Promise<void>((wake) => {
      const end = () => {
        pauses.delete(end);
        cancel();
        wake();
      };
      const cancel = timers.after(ms, end);
      pauses.add(end);
    });

  return {
    async run(attempt, hooks, abandoned) {
      const since = clock.now();
      for (let attempts = 1; ; attempts += 1) {
        if (stopped || (attempts > 1 && abandoned?.() === true)) throw abandonment();
        let value;
        try {
          value = await attempt();
        } catch (error) {
          if ((hooks.transient?.(error) ?? true) === false || clock.now() - since >= policy.retryForMs) {
            hooks.gaveUp(error, attempts);
            throw error;
          }
          hooks.retrying(error, attempts);
          await pause(pauseAfter(attempts, policy));
          continue;
        }
        hooks.landed?.();
        return value;
      }
    },
    stop() {
      stopped = true;
      for (const end of [...pauses]) end();
    },
  };
}
