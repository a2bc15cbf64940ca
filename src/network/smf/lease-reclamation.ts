import type { Logger } from 'pino';
import type { Clock, Timers } from '../../clock.ts';
import type { StrandedLease, StrandedLeases } from '../ports/address-leases.ts';
import type { UeContextStore } from '../ports/ue-contexts.ts';

/** How often a live member sweeps, and how many stranded leases one sweep looks at. */
const LEASE_SWEEP = { intervalMs: 60_000, batch: 200 } as const;
/** Records of one owner read at a time while looking for the addresses they name. */
const RECORD_PAGE = 500;

export interface LeaseReclamation {
  /** One sweep now: the number of leases freed. */
  sweep(): Promise<number>;
  /** Stops the periodic sweeps; resolves once a sweep in progress has ended. */
  stop(): Promise<void>;
}

/**
 * Frees the address leases of gone members that no UE context record names (docs/amf-set.md, "Lease
 * reclamation"): a UE whose member died and that never came back to the set (deregistered elsewhere,
 * its record replaced by a new registration, switched off until its record went) would otherwise keep
 * its address leased for ever. A lease whose owner is gone is named only by that owner's records: a
 * member that takes a UE over holds its addresses (`AddressLeases.hold` makes the lease its own), and
 * one that cannot leaves the session out. So a lease is freed when its owner's records name it not.
 *
 * A takeover writes the record under its new owner before it holds the sessions' addresses: in that
 * instant the old owner's records name the address no more, yet the lease is still the old owner's.
 * So a lease is freed only when two sweeps in a row found it stranded and unnamed (same owner, same
 * lease time); the sweep stays on a batch until it has decided all of it. Each sweep looks at one
 * batch in address order, so a set with many gone leases is swept a batch per interval. A clean stop
 * frees nothing: its records still name its leases, which wait for their UEs' takeover. A member that
 * starts again under its name finds its previous run's leases: those leased before this sweep started
 * are swept as a gone member's (its own records name the sessions its UEs may still bring back).
 */
export function startLeaseReclamation(deps: {
  leases: StrandedLeases;
  ueContexts: Pick<UeContextStore, 'ownedBy'>;
  /** This member's AMF Name. */
  self: string;
  clock: Clock;
  timers: Timers;
  logger: Pick<Logger, 'info' | 'warn'>;
  intervalMs?: number;
  batch?: number;
}): LeaseReclamation {
  const intervalMs = deps.intervalMs ?? LEASE_SWEEP.intervalMs;
  const batch = deps.batch ?? LEASE_SWEEP.batch;
  /** Where the batch starts: addresses after this one. */
  let cursor = '';
  /** Stranded and unnamed at the last sweep: `address owner leasedAt`. */
  let suspects = new Set<string>();
  let stopped = false;
  let running: Promise<number> = Promise.resolve(0);
  let cancel: (() => void) | undefined;
  /** This run's own leases are from here on; its name's older ones are a previous run's. */
  const startedAt = deps.clock.now();

  const keyOf = (lease: StrandedLease): string => `${lease.address} ${lease.owner} ${lease.leasedAt}`;

  /** Every address `owner`'s records name. */
  const namedBy = async (owner: string): Promise<Set<string>> => {
    const named = new Set<string>();
    for (let after = ''; ;) {
      const records = await deps.ueContexts.ownedBy(owner, after, RECORD_PAGE);
      for (const record of records)
        for (const session of record.pduSessions) {
          if (session.ipv4 !== null) named.add(session.ipv4);
          if (session.ipv6Prefix !== null) named.add(session.ipv6Prefix);
        }
      const last = records.at(-1);
      if (last === undefined || records.length < RECORD_PAGE) return named;
      after = last.supi;
    }
  };

  const sweepOnce = async (): Promise<number> => {
    const listed = await deps.leases.list(cursor, batch, deps.self);
    const stranded = listed.filter((lease) => lease.owner !== deps.self || lease.leasedAt < startedAt);
    const named = new Map<string, Set<string>>();
    for (const owner of new Set(stranded.map((lease) => lease.owner))) named.set(owner, await namedBy(owner));
    const next = new Set<string>();
    let freed = 0;
    for (const lease of stranded) {
      if (named.get(lease.owner)?.has(lease.address) === true) continue;
      const key = keyOf(lease);
      if (!suspects.has(key)) next.add(key);
      else if (await deps.leases.free(lease, deps.self)) freed++;
    }
    suspects = next;
    // On to the next batch once this one is decided; from the start after the last one.
    if (next.size === 0) {
      const last = listed.at(-1);
      cursor = last === undefined || listed.length < batch ? '' : last.address;
    }
    if (freed > 0) deps.logger.info({ freed }, `AMF set: ${freed} address leases of gone members freed`);
    return freed;
  };

  const sweep = (): Promise<number> => {
    running = running.then(sweepOnce, () => sweepOnce());
    return running;
  };

  const arm = (): void => {
    cancel = deps.timers.after(intervalMs, () => {
      if (stopped) return;
      sweep().then(
        () => undefined,
        (error: unknown) =>
          deps.logger.warn({ err: error }, 'AMF set: the lease sweep failed; it runs again'),
      );
      arm();
    });
  };
  arm();

  return {
    sweep,
    async stop() {
      stopped = true;
      cancel?.();
      await running.then(
        () => undefined,
        () => undefined,
      );
    },
  };
}
