import type { Logger } from 'pino';
import type { Clock, Timers } from '../clock.ts';
import { OverloadedError } from '../errors.ts';
import type { Metrics } from '../metrics/metrics.ts';

/**
 * The stores whose writes the network side makes without waiting for them (a procedure goes on while
 * its write is at the database), each a label value of the write metrics.
 */
export type RetriedStore = 'ue_contexts' | 'address_leases' | 'sms' | 'subscriber_views';

/** How long a write is tried again, and the pauses between its attempts. */
export interface WriteRetryPolicy {
  /**
   * Age of a write (since its first attempt) past which it is given up: long enough for a restarted
   * server or a failover to a standby, bounded so that a database gone for good does not keep every
   * waiting write, and its memory, forever. The same as the records writer's (docs/postgresql.md).
   */
  retryForMs: number;
  /** The first pause; each next one doubles, up to `maxPauseMs`. */
  firstPauseMs: number;
  maxPauseMs: number;
}

export const WRITE_RETRY_POLICY: WriteRetryPolicy = {
  retryForMs: 60_000,
  firstPauseMs: 100,
  maxPauseMs: 5_000,
};

/** What the write metrics count, by store. */
export interface WriteRetryCounters {
  /** An attempt failed for want of the database and the write will be tried again. */
  retried(store: RetriedStore): void;
  /** A write was given up: past its bound, or refused for another reason than the database's state. */
  failed(store: RetriedStore): void;
}

/** Registers the write metrics (once per core: `Metrics` refuses a name twice). */
export function createWriteRetryCounters(metrics: Metrics): WriteRetryCounters {
  const retries = metrics.counter<'store'>({
    name: 'pmn_network_write_retries_total',
    help: 'Attempts of the network side to write to the database that failed because it was unavailable (down, unreachable, read-only, full, busy) and were tried again, by store',
    labelNames: ['store'],
  });
  const failures = metrics.counter<'store'>({
    name: 'pmn_network_write_failures_total',
    help: 'Writes of the network side given up (the database unavailable past the retry bound, or the write refused), by store',
    labelNames: ['store'],
  });
  return {
    retried: (store) => retries.inc({ store }),
    failed: (store) => failures.inc({ store }),
  };
}

/** Why `run` ended without the write. */
export class WriteAbandoned extends Error {
  constructor(readonly store: RetriedStore) {
    super(`a write to ${store} was abandoned: a newer one replaces it, or its writer stopped`);
  }
}

export interface WriteRetry {
  /**
   * Runs `write` until it lands, trying again after a pause while the database is unavailable (the
   * storage throws `OverloadedError` then: down, unreachable, read-only, full, or busy), for at most the
   * policy's `retryForMs`. Resolves with what the write returned; rejects with its last error when it is
   * given up (counted; the caller logs it, once), or with `WriteAbandoned` when `abandoned()` says so
   * before a further attempt, or the retries stopped (not counted: a newer write, or none, stands for it).
   */
  run<T>(write: () => Promise<T>, abandoned?: () => boolean): Promise<T>;
  /** Pauses end at once and their writes are abandoned (the network side stops). */
  stop(): void;
}

/**
 * One store's retries. While its writes fail it logs one line, and one when a write lands again, so an
 * outage of a minute with thousands of writes waiting costs two lines, not one per attempt.
 */
export function createWriteRetry(deps: {
  store: RetriedStore;
  counters: WriteRetryCounters;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  policy?: Partial<WriteRetryPolicy>;
}): WriteRetry {
  const { store, counters, clock, timers, logger } = deps;
  const policy = { ...WRITE_RETRY_POLICY, ...deps.policy };
  /** Retries since the writes began failing; undefined while they land. */
  let failing: { since: number; retries: number } | undefined;
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
    async run(write, abandoned = () => false) {
      const since = clock.now();
      for (let attempt = 1; ; attempt += 1) {
        if (stopped || (attempt > 1 && abandoned())) throw new WriteAbandoned(store);
        try {
          const value = await write();
          if (failing !== undefined) {
            logger.info(
              { store, retries: failing.retries, failingForMs: clock.now() - failing.since },
              'database writes land again',
            );
            failing = undefined;
          }
          return value;
        } catch (error) {
          const transient = error instanceof OverloadedError;
          if (!transient || clock.now() - since >= policy.retryForMs) {
            counters.failed(store);
            throw error;
          }
          counters.retried(store);
          if (failing === undefined) {
            failing = { since: clock.now(), retries: 0 };
            logger.warn(
              { store, err: error, retryForMs: policy.retryForMs },
              'database writes fail; each is tried again until it lands or its bound passes',
            );
          }
          failing.retries += 1;
          await pause(Math.min(policy.maxPauseMs, policy.firstPauseMs * 2 ** (attempt - 1)));
        }
      }
    },
    stop() {
      stopped = true;
      for (const end of [...pauses]) end();
    },
  };
}
