import type { Logger } from 'pino';
import type { Timers } from '../clock.ts';
import type { NetworkEvents } from './events/network-events.ts';
import type { NetworkState } from './network-state.ts';
import type { SubscriberView, SubscriberViewWrites } from './ports/subscriber-views.ts';
import { WriteAbandoned, type WriteRetry } from './write-retry.ts';

/**
 * How long changes gather before one write: a registration's messages arrive within it, so each
 * procedure costs about one row write, and many UEs' changes share one statement.
 */
export const VIEW_WRITE_DELAY_MS = 50;

/**
 * Writes this member's view of its subscribers to the AMF set's read model (docs/amf-set.md, "One view
 * of the network"), from the network's events: the subscribers an event touched are marked, and after
 * `VIEW_WRITE_DELAY_MS` their rows are written as network state shows them then, in one write; one write
 * is in flight at a time. Nothing is written while this process is no member (`self()` undefined). A
 * write is tried again while the database is unavailable (`retry`, bounded and counted; the changes keep
 * gathering meanwhile, for the next write); one given up is logged, and its subscribers' rows are written
 * again at their next change. Its deletions (a deleted subscriber's row, a radio gone from the rows) have
 * no next change: they are held and go with the next write, at most one per subscriber and per radio.
 */
export function createSubscriberViewWriter(deps: {
  events: NetworkEvents;
  state: Pick<NetworkState, 'subscriber' | 'servingRadio' | 'findRadio' | 'subscribersOnRadio'>;
  views: SubscriberViewWrites;
  self: () => string | undefined;
  timers: Timers;
  logger: Logger;
  retry: WriteRetry;
}) {
  const { events, state, views, self, timers, logger, retry } = deps;
  /** IMSI -> written (its view) or removed (deleted from the configuration). */
  const marked = new Map<string, 'write' | 'remove'>();
  const radiosGone = new Set<string>();
  /**
   * Deletions of a write given up: they wait for the next write (another change, or a flush) rather than
   * start one, so a database gone for good costs one give-up per bound, not a write retried forever.
   */
  const heldRemoved = new Set<string>();
  const heldRadiosGone = new Set<string>();
  /** Radio names by id: a disconnect names only the id, and the rows name the radio. */
  const radioNames = new Map<string, string>();
  let scheduled: (() => void) | undefined;
  let inFlight: Promise<void> | undefined;
  let written: string | undefined;
  /** Stopped: a write in flight is not tried again, and the last flush makes one attempt. */
  let stopped = false;

  function schedule(): void {
    if (scheduled !== undefined || inFlight !== undefined) return;
    scheduled = timers.after(VIEW_WRITE_DELAY_MS, () => {
      scheduled = undefined;
      void flush();
    });
  }

  function mark(imsi: string, change: 'write' | 'remove' = 'write'): void {
    if (self() === undefined) return;
    if (marked.get(imsi) !== 'remove') marked.set(imsi, change);
    schedule();
  }

  function viewOf(imsi: string): SubscriberView {
    const seen = state.subscriber(imsi);
    return {
      imsi,
      registered: seen.registered,
      servingRadio: state.servingRadio(imsi),
      radioAccessTypes: seen.radioAccessTypes,
      imei: seen.imei,
      cipheringAlgorithm: seen.cipheringAlgorithm,
      integrityAlgorithm: seen.integrityAlgorithm,
      lastSeenAt: seen.lastSeenAt,
      lastSeenRadio: seen.lastSeenRadio,
      servingCell: seen.servingCell,
      servingCellReportedAt: seen.servingCellReportedAt,
      sessions: seen.sessions,
    };
  }

  /** Writes what is marked now; resolves when it is written (or failed and stays marked). */
  async function flush(): Promise<void> {
    if (scheduled !== undefined) {
      scheduled();
      scheduled = undefined;
    }
    while (inFlight !== undefined) await inFlight;
    const amf = self();
    const held = heldRemoved.size + heldRadiosGone.size;
    if (amf === undefined || (marked.size === 0 && radiosGone.size === 0 && held === 0 && written === amf))
      return;
    const batch = new Map(marked);
    // A change marked since the give-up is newer than the held deletion (a subscriber added again).
    for (const imsi of heldRemoved) if (!batch.has(imsi)) batch.set(imsi, 'remove');
    const gone = [...new Set([...heldRadiosGone, ...radiosGone])];
    marked.clear();
    radiosGone.clear();
    heldRemoved.clear();
    heldRadiosGone.clear();
    const change = {
      views: [...batch].filter(([, kind]) => kind === 'write').map(([imsi]) => viewOf(imsi)),
      removed: [...batch].filter(([, kind]) => kind === 'remove').map(([imsi]) => imsi),
      radiosGone: gone,
    };
    inFlight = (async () => {
      try {
        await retry.run(
          async () => {
            // A new run of this member starts from nothing: rows of its previous run describe lost state.
            if (written !== amf) {
              await views.clear(amf);
              written = amf;
            }
            await views.write(amf, change);
          },
          () => stopped || self() !== amf,
        );
      } catch (error) {
        if (error instanceof WriteAbandoned) {
          // Not given up: what it held is written with the next write, if there is one.
          for (const [imsi, kind] of batch) if (!marked.has(imsi)) marked.set(imsi, kind);
          for (const radio of gone) radiosGone.add(radio);
        } else {
          for (const [imsi, kind] of batch) if (kind === 'remove' && !marked.has(imsi)) heldRemoved.add(imsi);
          for (const radio of gone) heldRadiosGone.add(radio);
          logger.error(
            { err: error, subscribers: batch.size },
            'the AMF set read model was not written: given up; its rows are written again at their next change, its deletions with the next write',
          );
        }
      }
    })();
    try {
      await inFlight;
    } finally {
      inFlight = undefined;
    }
    if (!stopped && (marked.size > 0 || radiosGone.size > 0)) schedule();
  }

  /** The radio's association ended (or another took its id): rows naming it as serving radio lose it. */
  function radioGone(id: string): void {
    const name = radioNames.get(id);
    radioNames.delete(id);
    if (name === undefined || self() === undefined) return;
    radiosGone.add(name);
    schedule();
  }

  // Network state subscribed first, so it has taken each event in when these listeners read it.
  const unsubscribe = [
    events.on('radio.connected', (e) => {
      radioGone(e.id);
      const name = state.findRadio(e.id)?.name;
      if (name !== undefined) radioNames.set(e.id, name);
    }),
    events.on('radio.updated', (e) => {
      const name = state.findRadio(e.id)?.name;
      if (name === undefined || name === radioNames.get(e.id)) return;
      radioNames.set(e.id, name);
      // Renamed: its devices are served under the new name.
      for (const imsi of state.subscribersOnRadio(name)) mark(imsi);
    }),
    events.on('radio.disconnected', (e) => radioGone(e.id)),
    events.on('ue.registered', (e) => mark(e.supi)),
    events.on('ue.adopted', (e) => mark(e.supi)),
    events.on('ue.deregistered', (e) => mark(e.supi)),
    events.on('ue.seen', (e) => mark(e.supi)),
    events.on('session.established', (e) => mark(e.supi)),
    events.on('session.modified', (e) => mark(e.supi)),
    events.on('session.released', (e) => mark(e.supi)),
  ];

  return {
    /** The subscriber was deleted from the configuration: its row goes. */
    removed: (imsi: string): void => mark(imsi, 'remove'),
    /** Writes what is marked now (tests, and a member stopping). */
    flush,
    /**
     * This process became a member: its name's rows of a previous run are deleted at once, so its peers
     * never read what died with that run as live.
     */
    started(): Promise<void> {
      written = undefined;
      return flush();
    },
    /** Stops hearing of changes; a write in flight is not tried again (a last `flush` may follow). */
    stop(): void {
      stopped = true;
      scheduled?.();
      scheduled = undefined;
      for (const off of unsubscribe) off();
    },
  };
}
