import type { Logger } from 'pino';
import type {
  StoredGuti,
  StoredPduSession,
  UeContextRecord,
  UeContextStore,
} from '../../ports/ue-contexts.ts';
import { WriteAbandoned } from '../../write-retry.ts';
import type { AmfUe } from './amf-ue.ts';
import { ueContextRecord } from './ue-context-record.ts';

/** Why a write did not take effect: the store failed, or refused it for a newer owner's epoch. */
export type UeContextWriteFailure = 'error' | 'fenced';

/**
 * The AMF's writes to the UE context port. The AMF's objects stay the working copy; a procedure that
 * changed what the record holds asks for a write at its end and goes on without waiting, so the port's
 * latency never holds a NAS message back. The store given tries a write again while the database is
 * unavailable (core/network-write-retries.ts); one that fails for good is logged (without the record:
 * KAMF is in it) and counted, never thrown into the protocol; the next write of the UE stores its
 * context again.
 *
 * Ownership (docs/amf-set.md): a UE context's first write takes the UE over whatever is stored (this AMF
 * has just authenticated it), and the epoch the store hands back (`AmfUe.contextEpoch`) goes with every
 * later write and the deletion. A write the store fences means another member of the set took the UE
 * over: `lost` drops this AMF's copy, and nothing more of it is written.
 */
export interface UeContextWrites {
  /** Stores the UE's record as it is when the write starts (nothing before its SUPI is known). */
  save(ue: AmfUe): void;
  /** Deletes the UE's record: its context is gone from the AMF (no call when it was never saved). */
  forget(ue: AmfUe): void;
  /** Whether there is a store: UE contexts outlive this AMF, and others' can be taken over. */
  readonly shared: boolean;
  /** The stored record of the UE whose 5G-GUTI is `guti`; undefined without a store. */
  find(guti: StoredGuti): Promise<UeContextRecord | undefined>;
  /** A batch of the records `owner` owns, after the SUPI `after` (`UeContextStore.ownedBy`); none without a store. */
  ownedBy(owner: string, after: string, limit: number): Promise<UeContextRecord[]>;
  /**
   * Takes the UE of `record` over from the member that wrote it, in one compare-and-set on the record's
   * epoch: `record` is stored as this AMF's (with the NAS COUNTs it continues from). True when `ue` now
   * owns it (`ue.contextEpoch` set), false when another member took it first. A store failure throws.
   */
  claim(ue: AmfUe, record: UeContextRecord): Promise<boolean>;
  /**
   * Deletes another member's `record` unless a member wrote the UE since it was read (its epoch): a
   * record no member can serve, which adoption passes over. True when it is gone. A store failure throws.
   */
  discard(record: UeContextRecord): Promise<boolean>;
  /**
   * Whether this AMF still owns `ue`'s stored context (the stored epoch is the one it took it with). Not
   * owned: nothing more of `ue` is written (it is the new owner's). A store that fails answers true: the
   * AMF serves from memory, as it does when a write fails.
   */
  owns(ue: AmfUe): Promise<boolean>;
  /** Resolves once every write asked for so far has ended (tests; a stopping process). */
  settled(): Promise<void>;
  /**
   * Writes nothing from now on (the member was cut off from the database, docs/amf-set.md "Losing the
   * database"): what waits is dropped, and no UE saved so far is written or deleted again (its record is
   * the set's now; another member may have taken it over). A write already at the store may still land:
   * its epoch fences it if the UE was taken meanwhile.
   */
  suspend(): void;
  /** Writes again, for the UEs this AMF takes from now on (the member joined its set again). */
  resume(): void;
  /** Stops hearing of take-overs (the AMF stops). */
  stop(): void;
}

type Write = { kind: 'put' | 'delete'; ue: AmfUe };

export function createUeContextWrites(options: {
  store: UeContextStore | undefined;
  /** The member that owns what it writes: the AMF Name. */
  owner: string;
  /** The UE's PDU sessions as its SMF holds them, read when its record is built. */
  sessions: (supi: string) => StoredPduSession[];
  logger: Logger;
  failed: (reason: UeContextWriteFailure) => void;
  /**
   * Another member took `ue` over (a write was fenced, or the store told of the take-over): the AMF
   * drops its copy without a write.
   */
  lost: (ue: AmfUe) => void;
  /** The UE context this AMF holds for `supi`, if any. */
  holder: (supi: string) => AmfUe | undefined;
}): UeContextWrites {
  const { store, owner, logger } = options;
  /**
   * One write in flight per UE, so a slower earlier write never lands after a later one; what is asked
   * meanwhile replaces what waits (the latest state, or the deletion, is all that needs storing).
   */
  const queues = new Map<string, { next: Write | undefined; done: Promise<void> }>();
  /**
   * The SUPIs whose record this process may have stored (a save asked since the last deletion): a UE
   * forgotten before any save (a first registration aborted) has nothing to delete, so no store call.
   */
  const saved = new Set<string>();
  let suspended = false;

  /** Performs one write; true when the store fenced it (the UE is another member's now). */
  const perform = async (target: UeContextStore, supi: string, write: Write): Promise<boolean> => {
    const { ue } = write;
    const epoch = ue.contextEpoch;
    try {
      let outcome;
      if (write.kind === 'delete') {
        // Never taken (its take-over failed): this context has nothing of its own to delete.
        if (epoch === undefined) return false;
        outcome = await target.delete(supi, epoch);
      } else {
        const record = ueContextRecord(ue, options.sessions(supi), epoch ?? 0, owner);
        if (record === undefined) return false;
        if (epoch !== undefined) outcome = await target.put(record);
        else {
          const taken = await target.takeOver(record, 'any');
          if (taken !== 'fenced') ue.contextEpoch = taken;
          outcome = taken === 'fenced' ? taken : 'stored';
        }
      }
      if (outcome === 'fenced') {
        options.failed('fenced');
        logger.warn(
          { supi, epoch },
          'AMF: UE context write refused: another AMF of the set took the UE over',
        );
        return true;
      }
    } catch (error) {
      // The network side stopped while the database was away: nothing was lost that a run will read.
      if (error instanceof WriteAbandoned) return false;
      options.failed('error');
      logger.error({ supi, err: error }, 'AMF: UE context write failed; the AMF serves the UE from memory');
    }
    return false;
  };

  const drain = async (target: UeContextStore, supi: string, queue: { next: Write | undefined }) => {
    for (let write = queue.next; write !== undefined; write = queue.next) {
      queue.next = undefined;
      if (!(await perform(target, supi, write))) continue;
      // Fenced: nothing more of this context is written (a newer context of the SUPI may still be).
      // (`perform` awaited: another request may have queued meanwhile.)
      if ((queue.next as Write | undefined)?.ue === write.ue) queue.next = undefined;
      if (write.kind === 'put' && saved.delete(supi)) options.lost(write.ue);
    }
    queues.delete(supi);
  };

  const request = (supi: string, write: Write): void => {
    if (store === undefined || suspended) return;
    const waiting = queues.get(supi);
    if (waiting !== undefined) {
      waiting.next = write;
      return;
    }
    const queue = { next: write as Write | undefined, done: Promise.resolve() };
    queues.set(supi, queue);
    queue.done = drain(store, supi, queue);
  };

  /**
   * Another member took a UE this AMF holds over (docs/amf-set.md, "Address hand-over"): the copy goes at
   * once, nothing of it written again, rather than at its next write's fencing. Only a copy older than the
   * take (its epoch below the new one): a UE this AMF took since, or has not stored yet (a registration
   * whose own take-over follows), stays.
   */
  const stopHearing = store?.onTaken((taken) => {
    if (taken.owner === owner) return;
    const ue = options.holder(taken.supi);
    if (ue?.contextEpoch === undefined || ue.contextEpoch >= taken.epoch) return;
    saved.delete(taken.supi);
    const queue = queues.get(taken.supi);
    if (queue?.next?.ue === ue) queue.next = undefined;
    logger.warn(
      { supi: taken.supi, epoch: ue.contextEpoch, taken: taken.epoch, by: taken.owner },
      'AMF: another AMF of the set took the UE over',
    );
    options.lost(ue);
  });

  return {
    save: (ue) => {
      if (ue.supi === undefined || store === undefined || suspended) return;
      saved.add(ue.supi);
      request(ue.supi, { kind: 'put', ue });
    },
    forget: (ue) => {
      if (ue.supi === undefined || !saved.delete(ue.supi)) return;
      request(ue.supi, { kind: 'delete', ue });
    },
    shared: store !== undefined,
    find: async (guti) => store?.findByGuti(guti),
    ownedBy: async (owner, after, limit) => (await store?.ownedBy(owner, after, limit)) ?? [],
    discard: async (record) =>
      store !== undefined && (await store.delete(record.supi, record.epoch)) === 'stored',
    async claim(ue, record) {
      if (store === undefined || ue.supi !== record.supi) return false;
      const taken = await store.takeOver({ ...record, owner }, record.epoch);
      if (taken === 'fenced') return false;
      ue.contextEpoch = taken;
      saved.add(record.supi);
      return true;
    },
    async owns(ue) {
      if (store === undefined || ue.supi === undefined || ue.contextEpoch === undefined) return true;
      let record;
      try {
        record = await store.get(ue.supi);
      } catch (error) {
        logger.error({ supi: ue.supi, err: error }, 'AMF: the UE context store could not be read');
        return true;
      }
      if (record !== undefined && record.epoch === ue.contextEpoch) return true;
      saved.delete(ue.supi);
      logger.warn(
        { supi: ue.supi, epoch: ue.contextEpoch, stored: record?.epoch },
        'AMF: another AMF of the set took the UE over',
      );
      return false;
    },
    async settled() {
      while (queues.size > 0) await Promise.all([...queues.values()].map((queue) => queue.done));
    },
    suspend() {
      suspended = true;
      saved.clear();
      for (const queue of queues.values()) queue.next = undefined;
    },
    resume() {
      suspended = false;
    },
    stop() {
      stopHearing?.();
    },
  };
}
