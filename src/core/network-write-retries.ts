import type { Logger } from 'pino';
import type { Clock, Timers } from '../clock.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { AddressLeases } from '../network/ports/address-leases.ts';
import type { SmsStore } from '../network/ports/sms-store.ts';
import type { UeContextStore } from '../network/ports/ue-contexts.ts';
import {
  createWriteRetry,
  createWriteRetryCounters,
  type RetriedStore,
  type WriteRetry,
  type WriteRetryCounters,
} from '../network/write-retry.ts';
import type { RetryPolicy } from '../retry.ts';

const countersOfCore = new WeakMap<Metrics, WriteRetryCounters>();

/** The write metrics are registered once per core, however often the network side starts. */
export function writeRetryCounters(metrics: Metrics): WriteRetryCounters {
  let found = countersOfCore.get(metrics);
  if (found === undefined) countersOfCore.set(metrics, (found = createWriteRetryCounters(metrics)));
  return found;
}

/**
 * The network side's ports with their writes that no procedure waits for tried again while the database
 * is unavailable (src/network/write-retry.ts, docs/postgresql.md "While the database cannot be used"):
 * a UE context's store and deletion (and the take-over of a UE this AMF has just authenticated), an
 * address lease's end, a short message's outcome and attempt. What a procedure waits for (a new lease, a
 * new SQN, a take-over of another member's UE, a message stored) is not: it fails at once, and the
 * procedure with it. Reads pass through.
 */
export function createNetworkWriteRetries(deps: {
  metrics: Metrics;
  clock: Clock;
  timers: Timers;
  logger: Logger;
  /** The bound and pauses; `RETRY_POLICY` unless given (tests). */
  policy?: Partial<RetryPolicy>;
}) {
  const counters = writeRetryCounters(deps.metrics);
  const retries: WriteRetry[] = [];
  const retryOf = (store: RetriedStore): WriteRetry => {
    const retry = createWriteRetry({ store, counters, ...deps });
    retries.push(retry);
    return retry;
  };
  const ueContextWrites = retryOf('ue_contexts');
  const leaseWrites = retryOf('address_leases');
  const smsWrites = retryOf('sms');
  /** Counts the member's cuts from the database: a UE context write waiting from before one is abandoned. */
  let cuts = 0;
  const ueContextWrite = <T>(write: () => Promise<T>): Promise<T> => {
    const at = cuts;
    return ueContextWrites.run(write, () => cuts !== at);
  };
  return {
    ueContexts: (store: UeContextStore): UeContextStore => ({
      put: (record) => ueContextWrite(() => store.put(record)),
      delete: (supi, epoch) => ueContextWrite(() => store.delete(supi, epoch)),
      // With an epoch seen the take-over is the procedure's (it waits for the answer).
      takeOver: (record, seen) =>
        seen === 'any' ? ueContextWrite(() => store.takeOver(record, seen)) : store.takeOver(record, seen),
      onTaken: (listener) => store.onTaken(listener),
      get: (supi) => store.get(supi),
      findByGuti: (guti) => store.findByGuti(guti),
      ownedBy: (owner, after, limit) => store.ownedBy(owner, after, limit),
    }),
    addressLeases: (leases: AddressLeases): AddressLeases => ({
      lease: (family, cidr, supi) => leases.lease(family, cidr, supi),
      hold: (family, cidr, address, supi) => leases.hold(family, cidr, address, supi),
      release: (address) => leaseWrites.run(() => leases.release(address)),
      forgo: (address, supi) => leaseWrites.run(() => leases.forgo(address, supi)),
      get held() {
        return leases.held;
      },
    }),
    smsStore: (store: SmsStore): SmsStore => ({
      save: (message) => store.save(message),
      queuedFor: (imsi, limit, options) => store.queuedFor(imsi, limit, options),
      attempted: (id) => smsWrites.run(() => store.attempted(id)),
      settle: (id, outcome) => smsWrites.run(() => store.settle(id, outcome)),
    }),
    /**
     * The member was cut off from the database (set/database-cut.ts): the UE context writes waiting to be
     * tried again are abandoned before their next attempt. Its UEs are the set's now: a take-over of one
     * it had just authenticated ('any', fenced by no epoch) landing after another member adopted the UE
     * would take it from that member.
     */
    abandonUeContextWrites(): void {
      cuts += 1;
    },
    /** Waiting writes are abandoned (the network side stops). */
    stop(): void {
      for (const retry of retries) retry.stop();
    },
  };
}
