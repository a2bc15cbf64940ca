import type { ConfigurationEvents } from '../../network/ports/configuration-events.ts';
import type { Logger } from 'pino';
import type { Clock, Timers } from '../../clock.ts';
import { createKeyedTimers } from '../../jobs/keyed-timers.ts';
import type { NetworkEvents } from '../../network/events/network-events.ts';
import type { Db } from '../../storage/database.ts';
import type { Executor } from '../../storage/transaction.ts';
import type { SubscribersRepository } from '../subscribers/subscribers.repository.ts';
import type { LocateHow, Locator, Method, Mode } from './locator.ts';
import {
  SESSION_STATUS,
  SESSION_TYPE,
  type PositioningSession,
  type PositioningSessionsRepository,
} from './positioning-sessions.repository.ts';
import { imsiOf, supiOf } from './supi.ts';

interface Followed {
  supi: string;
  /** Periodic sessions: milliseconds between evaluations; undefined for triggered ones. */
  intervalMs: number | undefined;
  how: LocateHow;
}

/**
 * Keeps the active positioning sessions going. The database is the truth (status, reports, next
 * evaluation); this holds only what drives them: one timer per periodic session and an index of the
 * triggered ones by subscriber. Transitions made here (completed, failed) are guarded in SQL by
 * `status = 0`, so they never override a cancel that came first.
 *
 * - periodic: evaluated when its timer fires, then every `interval_seconds`; the next time is stored, so a
 *   restart keeps the rhythm (a time missed while stopped is caught up at once);
 * - triggered: evaluated when the network state reports a new serving cell for its subscriber;
 * - a subscriber removed from the configuration fails its sessions at once; evaluations and the start
 *   also fail sessions whose subscriber is gone (a crash between a delete and that update, a restore).
 *
 * Background work is tracked: `stop` cancels every timer and waits for the work in flight.
 */
export function createSessionRunner(deps: {
  db: Db;
  sessions: PositioningSessionsRepository;
  subscribers: SubscribersRepository;
  locator: Locator;
  /** A change of serving cell (`ue.servingCellChanged`) evaluates the subscriber's triggered sessions. */
  events: Pick<NetworkEvents, 'on'>;
  /** A deleted subscriber's sessions fail. */
  configuration: ConfigurationEvents;
  clock: Clock;
  timers: Timers;
  logger: Logger;
}) {
  const { db, sessions, subscribers, locator, events, configuration, clock, timers, logger } = deps;
  const followed = new Map<string, Followed>();
  const triggeredBySupi = new Map<string, Set<string>>();
  const timersById = createKeyedTimers(timers);
  const inFlight = new Set<Promise<void>>();
  /**
   * Triggered sessions with an evaluation queued that has not read the network state yet: a further cell
   * change is seen by that evaluation, so it queues no second one (no duplicate report on fast moves).
   */
  const queued = new Set<string>();
  let stopped = false;

  function background(what: string, work: () => Promise<void>): void {
    if (stopped) return;
    const running: Promise<void> = work()
      .catch((error: unknown) => logger.error({ err: error }, `positioning: ${what} failed`))
      .finally(() => inFlight.delete(running));
    inFlight.add(running);
  }

  function scheduleNext(id: string, at: number): void {
    if (stopped) return;
    timersById.schedule(id, Math.max(0, at - clock.now()), () =>
      background(`evaluation of session ${id}`, () => evaluate(id)),
    );
  }

  function follow(session: PositioningSession): void {
    if (stopped || session.status !== SESSION_STATUS.active) return;
    const periodic = session.sessionType === SESSION_TYPE.periodic;
    const intervalMs = periodic ? (session.intervalSeconds ?? 0) * 1000 : undefined;
    followed.set(session.id, {
      supi: session.supi,
      intervalMs,
      // Stored as the request named them (the schema checked them then).
      how: { method: session.method as Method, mode: session.mode as Mode | undefined },
    });
    if (periodic) {
      scheduleNext(session.id, session.nextReportAt ?? clock.now() + (intervalMs ?? 0));
    } else {
      let ids = triggeredBySupi.get(session.supi);
      if (!ids) triggeredBySupi.set(session.supi, (ids = new Set()));
      ids.add(session.id);
    }
  }

  function forget(id: string): void {
    const entry = followed.get(id);
    if (!entry) return;
    followed.delete(id);
    timersById.cancel(id);
    const ids = triggeredBySupi.get(entry.supi);
    ids?.delete(id);
    if (ids?.size === 0) triggeredBySupi.delete(entry.supi);
  }

  function forgetAll(): void {
    timersById.cancelAll();
    queued.clear();
    followed.clear();
    triggeredBySupi.clear();
  }

  /** One evaluation: an estimate when there is one, failed when the subscriber is gone. */
  async function evaluate(id: string): Promise<void> {
    const entry = followed.get(id);
    if (!entry) {
      queued.delete(id);
      return;
    }
    const now = clock.now();
    const next = entry.intervalMs === undefined ? undefined : now + entry.intervalMs;
    let stillActive = true;
    try {
      // The network may take seconds (E-CID, LPP, a stale cell): no transaction is held meanwhile.
      const outcome = await locator.locate(imsiOf(entry.supi), db, {
        ...entry.how,
        observed: () => queued.delete(id),
      });
      stillActive = await db.transaction().execute(async (trx) => {
        if (outcome.kind === 'unknown-subscriber') {
          await sessions.end(id, SESSION_STATUS.failed, now, trx);
          return false;
        }
        if (outcome.kind === 'located') {
          const status = await sessions.recordReport(
            id,
            { result: outcome.result, at: now, nextReportAt: next },
            trx,
          );
          return status === SESSION_STATUS.active;
        }
        // No estimate this time (not connected, cell unknown or not provisioned): the session waits.
        return next === undefined ? true : sessions.reschedule(id, next, trx);
      });
    } finally {
      queued.delete(id);
      if (!stillActive) forget(id);
      // Also after a failed evaluation: one database error must not stop a periodic session for good.
      else if (next !== undefined && followed.has(id) && !timersById.has(id)) scheduleNext(id, next);
    }
  }

  async function failSessionsOf(supis: string[], executor: Executor): Promise<void> {
    const failed = await sessions.failActiveOf(supis, clock.now(), executor);
    for (const id of failed) forget(id);
  }

  events.on('ue.servingCellChanged', ({ supi }) => {
    for (const id of triggeredBySupi.get(supiOf(supi)) ?? []) {
      if (queued.has(id) || stopped) continue;
      queued.add(id);
      background(`evaluation of session ${id}`, () => evaluate(id));
    }
  });
  configuration.subscribe(({ resource, change, name: imsi }) => {
    if (resource !== 'subscriber' || change !== 'deleted') return;
    background(`failing the sessions of ${supiOf(imsi)}`, () => failSessionsOf([supiOf(imsi)], db));
  });

  return {
    /** Starts driving a session that was just created (and committed). */
    follow,

    /** Stops driving a session that ended (cancelled). */
    forget,

    /**
     * Loads the active sessions from the database (at start, and after a restore with the restored
     * database's executor): those of subscribers that no longer exist fail, the others are driven.
     */
    async restore(executor: Executor): Promise<void> {
      forgetAll();
      const active = await sessions.active(executor);
      const imsis = [...new Set(active.map((session) => imsiOf(session.supi)))];
      const existing = new Set(await subscribers.existingImsis(imsis, executor));
      const gone = imsis.filter((imsi) => !existing.has(imsi)).map(supiOf);
      await failSessionsOf(gone, executor);
      for (const session of active) if (existing.has(imsiOf(session.supi))) follow(session);
    },

    /** Resolves once no background work is running (tests wait on it after moving the clock). */
    async settled(): Promise<void> {
      while (inFlight.size > 0) await Promise.all(inFlight);
    },

    /** Cancels every timer and waits for the work in flight; nothing runs afterwards. */
    async stop(): Promise<void> {
      stopped = true;
      forgetAll();
      while (inFlight.size > 0) await Promise.all(inFlight);
    },

    /** How many timers are pending (one per active periodic session). */
    get pendingTimers(): number {
      return timersById.size;
    },
  };
}

export type SessionRunner = ReturnType<typeof createSessionRunner>;
