import type { Logger } from 'pino';
import type { Clock, Timers } from '../clock.ts';
import { OverloadedError } from '../errors.ts';
import type { Metrics } from '../metrics/metrics.ts';
import { createRetry, RETRY_POLICY, RetryAbandoned, type RetryHooks, type RetryPolicy } from '../retry.ts';

/**
 * The stores whose writes the network side makes without waiting for them (a procedure goes on while
 * its write is at the database), each a label value of the write metrics.
 */
export type RetriedStore = 'ue_contexts' | 'address_leases' | 'sms' | 'subscriber_views';

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
export class WriteAbandoned extends RetryAbandoned {
  constructor(readonly store: RetriedStore) {
    super(`a write to ${store} was abandoned: a newer one replaces it, or its writer stopped`);
  }
}

export interface WriteRetry {
  /**
   * Runs `write` until it lands, trying again after a pause while the database is unavailable (the
   * storage throws `OverloadedError` then: down, unreachable, read-only, full, or busy), for at most the
   * policy's `retryForMs` (src/retry.ts). Resolves with what the write returned; rejects with its last
   * error when it is given up (counted; the caller logs it, once), or with `WriteAbandoned` when
   * `abandoned()` says so before a further attempt, or the retries stopped (not counted: a newer write,
   * or none, stands for it).
   */
  run<T>(write: () => Promise<T>, abandoned?: () => boolean): Promise<T>;
  /** Pauses end at once and their writes are abandoned (the network side stops). */
  stop(): void;
}

/**
 * One store's retries, on the service's retry mechanism (src/retry.ts). While its writes fail it logs
 * one line, and one when a write lands again, so an outage of a minute with thousands of writes waiting
 * costs two lines, not one per attempt.
 */
export function createWriteRetry(deps: {
  store: RetriedStore;
  counters: WriteRetryCounters;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  policy?: Partial<RetryPolicy>;
}): WriteRetry {
  const { store, counters, clock, logger } = deps;
  const policy = { ...RETRY_POLICY, ...deps.policy };
  const retry = createRetry({
    clock,
    timers: deps.timers,
    policy,
    abandonment: () => new WriteAbandoned(store),
  });
  /** Retries since the writes began failing; undefined while they land. */
  let failing: { since: number; retries: number } | undefined;
  const hooks: RetryHooks = {
    transient: (error) => error instanceof OverloadedError,
    retrying(error) {
      counters.retried(store);
      if (failing === undefined) {
        failing = { since: clock.now(), retries: 0 };
        logger.warn(
          { store, err: error, retryForMs: policy.retryForMs },
          'database writes fail; each is tried again until it lands or its bound passes',
        );
      }
      failing.retries += 1;
    },
    gaveUp: () => counters.failed(store),
    landed() {
      if (failing === undefined) return;
      logger.info(
        { store, retries: failing.retries, failingForMs: clock.now() - failing.since },
        'database writes land again',
      );
      failing = undefined;
    },
  };
  return {
    run: (write, abandoned) => retry.run(write, hooks, abandoned),
    stop: () => retry.stop(),
  };
}
