import type { Executor } from '../../storage/transaction.ts';

export interface AuditLogEntry {
  id: number;
  timestamp: number;
  level: string;
  actor: string;
  action: string;
  ip: string;
  details: string;
}

export interface AuditLogFilter {
  actor?: string;
  /** Inclusive lower bound, Unix ms. */
  from?: number;
  /** Exclusive upper bound, Unix ms. */
  before?: number;
}

export function createAuditLogsRepository(db: Executor) {
  function filtered(executor: Executor, filter: AuditLogFilter) {
    let query = executor.selectFrom('audit_logs');
    if (filter.actor !== undefined) query = query.where('actor', '=', filter.actor);
    if (filter.from !== undefined) query = query.where('timestamp', '>=', filter.from);
    if (filter.before !== undefined) query = query.where('timestamp', '<', filter.before);
    return query;
  }

  return {
    async insert(entry: Omit<AuditLogEntry, 'id'>, executor: Executor = db): Promise<void> {
      await executor.insertInto('audit_logs').values(entry).execute();
    },

    async list(filter: AuditLogFilter, limit: number, offset: number): Promise<AuditLogEntry[]> {
      return filtered(db, filter)
        .select(['id', 'timestamp', 'level', 'actor', 'action', 'ip', 'details'])
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
    },

    async count(filter: AuditLogFilter): Promise<number> {
      const row = await filtered(db, filter)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** The entries after `afterId`, by id: what the live event stream has not sent yet. */
    async listAfterId(afterId: number, limit: number): Promise<AuditLogEntry[]> {
      const rows = await db
        .selectFrom('audit_logs')
        .select(['id', 'timestamp', 'level', 'actor', 'action', 'ip', 'details'])
        .where('id', '>', afterId)
        .orderBy('id', 'asc')
        .limit(limit)
        .execute();
      return rows.map((row) => ({ ...row, timestamp: Number(row.timestamp) }));
    },

    /** The highest id stored, 0 when there is none. */
    async lastId(): Promise<number> {
      const row = await db
        .selectFrom('audit_logs')
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst();
      return Number(row?.id ?? 0);
    },

    /** Deletes at most `limit` entries older than `cutoff`; returns how many went. */
    async deleteOlderThan(cutoff: number, limit: number): Promise<number> {
      const result = await db
        .deleteFrom('audit_logs')
        .where('id', 'in', (eb) =>
          eb.selectFrom('audit_logs').select('id').where('timestamp', '<', cutoff).orderBy('id').limit(limit),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type AuditLogsRepository = ReturnType<typeof createAuditLogsRepository>;
