import type { Selectable } from 'kysely';
import type { PositioningSessionsTable } from '../../storage/tables/location.ts';
import type { Executor } from '../../storage/transaction.ts';
import type { LocationResult } from './location-result.ts';

/** Spec: Positioning session `session_type`. */
export const SESSION_TYPE = { immediate: 0, periodic: 1, triggered: 2 } as const;

/** Spec: Positioning session `status` (States and transitions). */
export const SESSION_STATUS = { active: 0, completed: 1, failed: 2, cancelled: 3 } as const;

export interface PositioningSession {
  id: string;
  supi: string;
  sessionType: number;
  method: string;
  mode: string | undefined;
  status: number;
  intervalSeconds: number | undefined;
  reportCount: number | undefined;
  reports: number;
  /** Unix ms of the next periodic evaluation. */
  nextReportAt: number | undefined;
  lastResult: LocationResult | undefined;
  /** Unix ms. */
  createdAt: number;
  updatedAt: number;
}

const COLUMNS = [
  'id',
  'supi',
  'session_type',
  'method',
  'mode',
  'status',
  'interval_seconds',
  'report_count',
  'reports',
  'next_report_at',
  'last_result',
  'created_at',
  'updated_at',
] as const;

const toSession = (row: Selectable<PositioningSessionsTable>): PositioningSession => ({
  id: row.id,
  supi: row.supi,
  sessionType: row.session_type,
  method: row.method,
  mode: row.mode ?? undefined,
  status: row.status,
  intervalSeconds: row.interval_seconds ?? undefined,
  reportCount: row.report_count ?? undefined,
  reports: row.reports,
  nextReportAt: row.next_report_at ?? undefined,
  lastResult: row.last_result === null ? undefined : (JSON.parse(row.last_result) as LocationResult),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const ENDED = [SESSION_STATUS.completed, SESSION_STATUS.failed, SESSION_STATUS.cancelled];

export function createPositioningSessionsRepository(db: Executor) {
  return {
    async insert(session: PositioningSession, executor: Executor = db): Promise<void> {
      await executor
        .insertInto('positioning_sessions')
        .values({
          id: session.id,
          supi: session.supi,
          session_type: session.sessionType,
          method: session.method,
          mode: session.mode ?? null,
          status: session.status,
          interval_seconds: session.intervalSeconds ?? null,
          report_count: session.reportCount ?? null,
          reports: session.reports,
          next_report_at: session.nextReportAt ?? null,
          last_result: session.lastResult === undefined ? null : JSON.stringify(session.lastResult),
          created_at: session.createdAt,
          updated_at: session.updatedAt,
        })
        .execute();
    },

    async findById(id: string, executor: Executor = db): Promise<PositioningSession | undefined> {
      const row = await executor
        .selectFrom('positioning_sessions')
        .select(COLUMNS)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toSession(row);
    },

    /** A subscriber's sessions, newest first (ids are UUIDv7). */
    async listBySupi(supi: string): Promise<PositioningSession[]> {
      const rows = await db
        .selectFrom('positioning_sessions')
        .select(COLUMNS)
        .where('supi', '=', supi)
        .orderBy('id', 'desc')
        .execute();
      return rows.map(toSession);
    },

    async active(executor: Executor = db): Promise<PositioningSession[]> {
      const rows = await executor
        .selectFrom('positioning_sessions')
        .select(COLUMNS)
        .where('status', '=', SESSION_STATUS.active)
        .orderBy('id')
        .execute();
      return rows.map(toSession);
    },

    async countActive(supi: string, executor: Executor = db): Promise<number> {
      const row = await executor
        .selectFrom('positioning_sessions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('supi', '=', supi)
        .where('status', '=', SESSION_STATUS.active)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /**
     * Stores an estimate of an active session and counts it; the session completes in the same statement
     * when it reaches its report count. Returns the status after the update, or undefined when the session
     * was not active (ended meanwhile).
     */
    async recordReport(
      id: string,
      report: { result: LocationResult; at: number; nextReportAt: number | undefined },
      executor: Executor = db,
    ): Promise<number | undefined> {
      const row = await executor
        .updateTable('positioning_sessions')
        .set((eb) => ({
          reports: eb('reports', '+', 1),
          last_result: JSON.stringify(report.result),
          next_report_at: report.nextReportAt ?? null,
          updated_at: report.at,
          status: eb
            .case()
            .when('report_count', '<=', eb('reports', '+', 1))
            .then(SESSION_STATUS.completed)
            .else(SESSION_STATUS.active)
            .end(),
        }))
        .where('id', '=', id)
        .where('status', '=', SESSION_STATUS.active)
        .returning('status')
        .executeTakeFirst();
      return row?.status;
    },

    /** Moves the next periodic evaluation of an active session; false when it is no longer active. */
    async reschedule(id: string, nextReportAt: number, executor: Executor = db): Promise<boolean> {
      const result = await executor
        .updateTable('positioning_sessions')
        .set({ next_report_at: nextReportAt })
        .where('id', '=', id)
        .where('status', '=', SESSION_STATUS.active)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** Ends an active session with `status`; false when it was not active. */
    async end(id: string, status: number, at: number, executor: Executor = db): Promise<boolean> {
      const result = await executor
        .updateTable('positioning_sessions')
        .set({ status, updated_at: at, next_report_at: null })
        .where('id', '=', id)
        .where('status', '=', SESSION_STATUS.active)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** Fails every active session of these subscribers; returns the ids it failed. */
    async failActiveOf(supis: string[], at: number, executor: Executor = db): Promise<string[]> {
      if (supis.length === 0) return [];
      const rows = await executor
        .updateTable('positioning_sessions')
        .set({ status: SESSION_STATUS.failed, updated_at: at, next_report_at: null })
        .where('supi', 'in', supis)
        .where('status', '=', SESSION_STATUS.active)
        .returning('id')
        .execute();
      return rows.map((row) => row.id);
    },

    /** Deletes at most `limit` sessions that ended before `cutoff` (Unix ms); returns how many. */
    async deleteEndedBefore(cutoff: number, limit: number): Promise<number> {
      const result = await db
        .deleteFrom('positioning_sessions')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('positioning_sessions')
            .select('id')
            .where('status', 'in', ENDED)
            .where('updated_at', '<', cutoff)
            .orderBy('id')
            .limit(limit),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type PositioningSessionsRepository = ReturnType<typeof createPositioningSessionsRepository>;
