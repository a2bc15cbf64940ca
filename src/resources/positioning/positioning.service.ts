import type { Clock } from '../../clock.ts';
import { ConflictError, InvalidError, NotFoundError } from '../../errors.ts';
import type { UuidV7Generator } from '../../ids/uuid-v7.ts';
import type { Db } from '../../storage/database.ts';
import type { Executor } from '../../storage/transaction.ts';
import type { Actor } from '../../identity/actor.ts';
import type { AuditLogService } from '../audit-logs/audit-logs.service.ts';
import { describeCell } from '../cell-positions/cell-positions.service.ts';
import type { LocationResult } from './location-result.ts';
import type { LocateHow, LocateOutcome, Locator, Method, Mode } from './locator.ts';
import {
  SESSION_STATUS,
  SESSION_TYPE,
  type PositioningSession,
  type PositioningSessionsRepository,
} from './positioning-sessions.repository.ts';
import type { SessionRunner } from './session-runner.ts';
import { imsiOf } from './supi.ts';

type RequestType = 'immediate' | 'periodic' | 'triggered' | 'cancel';

/** The body of POST /api/beta/location, as the schema has checked it field by field. */
interface LocationRequest {
  request_type: RequestType;
  supi?: string;
  method?: Method;
  mode?: Mode;
  session_id?: string;
  interval_seconds?: number;
  report_count?: number;
}

/** The modes of each method (spec: body of POST /api/beta/location); Cell ID is network-based. */
const METHOD_MODES: Record<Method, readonly Mode[]> = {
  cell_id: ['network_based'],
  ecid: ['network_based', 'ue_assisted'],
  gnss: ['standalone'],
};

const DEFAULT_INTERVAL_SECONDS = 60;

/** Active periodic and triggered sessions one subscriber may hold: each one is a timer or a trigger. */
export const MAX_ACTIVE_SESSIONS = 16;

const STATUS_NAMES = ['active', 'completed', 'failed', 'cancelled'];

interface LocateRequest extends LocateHow {
  supi: string;
}

/** Rules of the body table that bind fields together; the schema has checked each field alone. */
function checkRequest(body: LocationRequest): void {
  const type = body.request_type;
  if (type === 'cancel') {
    if (body.session_id === undefined)
      throw new InvalidError('session_id is required when request_type is cancel');
  } else {
    if (body.supi === undefined) throw new InvalidError('supi is required unless request_type is cancel');
    if (body.session_id !== undefined) throw new InvalidError('session_id is only for request_type cancel');
    const method = body.method ?? 'cell_id';
    if (body.mode !== undefined && !METHOD_MODES[method].includes(body.mode)) {
      throw new InvalidError(
        `mode ${body.mode} is not a mode of method ${method} (${METHOD_MODES[method].join(', ')})`,
      );
    }
  }
  if (body.interval_seconds !== undefined && type !== 'periodic') {
    throw new InvalidError('interval_seconds is only for request_type periodic');
  }
  if (body.report_count !== undefined && type !== 'periodic' && type !== 'triggered') {
    throw new InvalidError('report_count is only for request_type periodic or triggered');
  }
}

/** The 404 and 409s of an immediate request (decisions section 12), each naming its cause. */
function outcomeError(request: LocateRequest, outcome: Exclude<LocateOutcome, { kind: 'located' }>): Error {
  const supi = request.supi;
  switch (outcome.kind) {
    case 'unserved':
      return new ConflictError(
        `method ${request.method} cannot be served for subscriber ${supi}: ${outcome.reason}`,
      );
    case 'unknown-subscriber':
      return new NotFoundError(`subscriber ${supi} not found`);
    case 'not-connected':
      return new ConflictError(`subscriber ${supi} is not connected to the network`);
    case 'no-serving-cell':
      return new ConflictError(`the network has not reported the serving cell of subscriber ${supi} yet`);
    case 'no-position':
      return new ConflictError(
        `the serving cell of subscriber ${supi} (${describeCell(outcome.cell)}) has no provisioned position; ` +
          'add one under /api/beta/cell-positions',
      );
  }
}

export function createPositioningService(deps: {
  db: Db;
  sessions: PositioningSessionsRepository;
  locator: Locator;
  runner: SessionRunner;
  audit: AuditLogService;
  clock: Clock;
  newId: UuidV7Generator;
}) {
  const { db, sessions, locator, runner, audit, clock, newId } = deps;

  /**
   * Locates the subscriber: 404 for an unknown one, then 409 for a method the network or the device
   * cannot serve. Outside any transaction: the network may take seconds to answer.
   */
  async function locateServable(request: LocateRequest): Promise<LocateOutcome> {
    const outcome = await locator.locate(imsiOf(request.supi), db, request);
    if (outcome.kind === 'unknown-subscriber' || outcome.kind === 'unserved')
      throw outcomeError(request, outcome);
    return outcome;
  }

  async function getIn(executor: Executor, id: string): Promise<PositioningSession> {
    const found = await sessions.findById(id, executor);
    if (!found) throw new NotFoundError(`positioning session ${id} not found`);
    return found;
  }

  function locateRequest(body: LocationRequest): LocateRequest {
    return { supi: body.supi as string, method: body.method ?? 'cell_id', mode: body.mode };
  }

  async function cancel(id: string, actor: Actor, supi?: string): Promise<void> {
    await db.transaction().execute(async (trx) => {
      const found = await getIn(trx, id);
      if (supi !== undefined && supi !== found.supi) {
        throw new InvalidError(`supi ${supi} is not the subscriber of positioning session ${id}`);
      }
      if (!(await sessions.end(id, SESSION_STATUS.cancelled, clock.now(), trx))) {
        const status = STATUS_NAMES[found.status] ?? String(found.status);
        throw new ConflictError(`positioning session ${id} is not active (${status})`);
      }
      await audit.record(
        actor,
        {
          action: 'cancel_positioning_session',
          details: `Positioning session ${id} of subscriber ${found.supi} cancelled`,
        },
        trx,
      );
    });
    runner.forget(id);
  }

  return {
    /** `immediate`: the location now. Locating a person is sensitive, so every answer is audited. */
    async locate(body: LocationRequest, actor: Actor): Promise<LocationResult> {
      checkRequest(body);
      const request = locateRequest(body);
      const outcome = await locateServable(request);
      if (outcome.kind !== 'located') throw outcomeError(request, outcome);
      return db.transaction().execute(async (trx) => {
        await audit.record(
          actor,
          {
            action: 'locate_subscriber',
            details: `Subscriber ${request.supi} located by ${request.method} (${describeCell(outcome.cell)})`,
          },
          trx,
        );
        return outcome.result;
      });
    },

    /**
     * `periodic` or `triggered`: opens a session and returns its id. The first evaluation runs at once,
     * so `last_result` holds an estimate from the start when the subscriber can be located; a subscriber
     * that cannot be located yet (not connected, cell not provisioned) gets its first one later.
     */
    async open(body: LocationRequest, actor: Actor): Promise<string> {
      checkRequest(body);
      const request = locateRequest(body);
      const periodic = body.request_type === 'periodic';
      const intervalSeconds = periodic ? (body.interval_seconds ?? DEFAULT_INTERVAL_SECONDS) : undefined;
      const outcome = await locateServable(request);
      const session = await db.transaction().execute(async (trx) => {
        if ((await sessions.countActive(request.supi, trx)) >= MAX_ACTIVE_SESSIONS) {
          throw new ConflictError(
            `subscriber ${request.supi} already has ${MAX_ACTIVE_SESSIONS} active positioning sessions; cancel one first`,
          );
        }
        const now = clock.now();
        const first = outcome.kind === 'located' ? outcome.result : undefined;
        const reports = first ? 1 : 0;
        const created: PositioningSession = {
          id: newId(),
          supi: request.supi,
          sessionType: periodic ? SESSION_TYPE.periodic : SESSION_TYPE.triggered,
          method: request.method,
          mode: request.mode,
          status:
            body.report_count !== undefined && reports >= body.report_count
              ? SESSION_STATUS.completed
              : SESSION_STATUS.active,
          intervalSeconds,
          reportCount: body.report_count,
          reports,
          nextReportAt: intervalSeconds === undefined ? undefined : now + intervalSeconds * 1000,
          lastResult: first,
          createdAt: now,
          updatedAt: now,
        };
        await sessions.insert(created, trx);
        const terms = [
          body.request_type,
          request.method,
          ...(intervalSeconds === undefined ? [] : [`every ${intervalSeconds} s`]),
          ...(body.report_count === undefined ? [] : [`${body.report_count} reports`]),
        ];
        await audit.record(
          actor,
          {
            action: 'create_positioning_session',
            details: `Positioning session ${created.id} opened for subscriber ${request.supi} (${terms.join(', ')})`,
          },
          trx,
        );
        return created;
      });
      runner.follow(session);
      return session.id;
    },

    /** DELETE of an active session. */
    cancel: (id: string, actor: Actor): Promise<void> => cancel(id, actor),

    /** `cancel`: like DELETE; the optional `supi`, when sent, must be the session's subscriber. */
    async cancelRequest(body: LocationRequest, actor: Actor): Promise<void> {
      checkRequest(body);
      await cancel(body.session_id as string, actor, body.supi);
    },

    list: (supi: string): Promise<PositioningSession[]> => sessions.listBySupi(supi),

    get: (id: string): Promise<PositioningSession> => getIn(db, id),
  };
}

export type PositioningService = ReturnType<typeof createPositioningService>;
