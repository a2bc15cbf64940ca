import type { Logger } from 'pino';
import type { StoredPduSession, UeContextStore } from '../../ports/ue-contexts.ts';
import type { AmfUe } from './amf-ue.ts';
import { ueContextRecord } from './ue-context-record.ts';

/**
 * The owner epoch this process writes UE context records with. Until leases hand epochs out (issue 33)
 * every process writes with the same one, so the store's fencing does not yet keep two AMFs apart.
 */
export const UE_CONTEXT_EPOCH = 0;

/** Why a write did not take effect: the store failed, or refused it for a newer owner's epoch. */
export type UeContextWriteFailure = 'error' | 'fenced';

/**
 * The AMF's writes to the UE context port. The AMF's objects stay the working copy; a procedure that
 * changed what the record holds asks for a write at its end and goes on without waiting, so the port's
 * latency never holds a NAS message back. A failed write is logged (without the record: KAMF is in it)
 * and counted, never thrown into the protocol; the next write of the UE stores its context again.
 */
export interface UeContextWrites {
  /** Stores the UE's record as it is when the write starts (nothing before its SUPI is known). */
  save(ue: AmfUe): void;
  /** Deletes the UE's record: its context is gone from the AMF (no call when it was never saved). */
  forget(supi: string): void;
  /** Resolves once every write asked for so far has ended (tests; a stopping process). */
  settled(): Promise<void>;
}

type Write = { kind: 'put'; ue: AmfUe } | { kind: 'delete' };

export function createUeContextWrites(options: {
  store: UeContextStore | undefined;
  epoch: number;
  /** The UE's PDU sessions as its SMF holds them, read when its record is built. */
  sessions: (supi: string) => StoredPduSession[];
  logger: Logger;
  failed: (reason: UeContextWriteFailure) => void;
}): UeContextWrites {
  const { store, epoch, logger } = options;
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

  const perform = async (target: UeContextStore, supi: string, write: Write): Promise<void> => {
    try {
      let outcome;
      if (write.kind === 'delete') outcome = await target.delete(supi, epoch);
      else {
        const record = ueContextRecord(write.ue, options.sessions(supi), epoch);
        if (record === undefined) return;
        outcome = await target.put(record);
      }
      if (outcome === 'fenced') {
        options.failed('fenced');
        logger.warn({ supi, epoch }, 'AMF: UE context write refused: a newer owner holds the UE');
      }
    } catch (error) {
      options.failed('error');
      logger.error({ supi, err: error }, 'AMF: UE context write failed; the AMF serves the UE from memory');
    }
  };

  const drain = async (target: UeContextStore, supi: string, queue: { next: Write | undefined }) => {
    for (let write = queue.next; write !== undefined; write = queue.next) {
      queue.next = undefined;
      await perform(target, supi, write);
    }
    queues.delete(supi);
  };

  const request = (supi: string, write: Write): void => {
    if (store === undefined) return;
    const waiting = queues.get(supi);
    if (waiting !== undefined) {
      waiting.next = write;
      return;
    }
    const queue = { next: write as Write | undefined, done: Promise.resolve() };
    queues.set(supi, queue);
    queue.done = drain(store, supi, queue);
  };

  return {
    save: (ue) => {
      if (ue.supi === undefined || store === undefined) return;
      saved.add(ue.supi);
      request(ue.supi, { kind: 'put', ue });
    },
    forget: (supi) => {
      if (!saved.delete(supi)) return;
      request(supi, { kind: 'delete' });
    },
    async settled() {
      while (queues.size > 0) await Promise.all([...queues.values()].map((queue) => queue.done));
    },
  };
}
