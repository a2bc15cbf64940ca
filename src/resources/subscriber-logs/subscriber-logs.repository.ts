import type { ExpressionBuilder, Insertable } from 'kysely';
import type { LogDirection } from '../../records/record-inputs.ts';
import type { TimestampWindow } from '../../records/record-windows.ts';
import type { Db } from '../../storage/database.ts';
import { rowStatement } from '../../storage/row-statement.ts';
import type { Database } from '../../storage/schema.ts';
import type { SubscriberLogsTable } from '../../storage/tables/records.ts';
import type { Executor } from '../../storage/transaction.ts';

export interface SubscriberLog {
  id: number;
  timestamp: number;
  imsi: string;
  event: string;
  direction: LogDirection;
  raw: Buffer;
  details: string;
}

export interface SubscriberLogFilter extends TimestampWindow {
  imsi?: string;
  direction?: LogDirection;
  event?: string;
}

function conditions(eb: ExpressionBuilder<Database, 'subscriber_logs'>, filter: SubscriberLogFilter) {
  const list = [];
  if (filter.imsi !== undefined) list.push(eb('imsi', '=', filter.imsi));
  if (filter.direction !== undefined) list.push(eb('direction', '=', filter.direction));
  if (filter.event !== undefined) list.push(eb('event', '=', filter.event));
  if (filter.from !== undefined) list.push(eb('timestamp', '>=', filter.from));
  if (filter.to !== undefined) list.push(eb('timestamp', '<=', filter.to));
  return eb.and(list);
}

export function createSubscriberLogsRepository(db: Db) {
  return {
    /** Inserts rows; synchronous, inside the records writer's transaction (storage/row-statement.ts). */
    insert: rowStatement<Insertable<SubscriberLogsTable>>(
      db,
      ['timestamp', 'imsi', 'event', 'direction', 'raw', 'details'],
      (row) => db.insertInto('subscriber_logs').values(row),
    ),

    /** Newest first: by timestamp, then by id. */
    async list(filter: SubscriberLogFilter, limit: number, offset: number): Promise<SubscriberLog[]> {
      const rows = await db
        .selectFrom('subscriber_logs')
        .select(['id', 'timestamp', 'imsi', 'event', 'direction', 'raw', 'details'])
        .where((eb) => conditions(eb, filter))
        .orderBy('timestamp', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map((row) => ({
        id: row.id,
        timestamp: Number(row.timestamp),
        imsi: row.imsi,
        event: row.event,
        direction: row.direction,
        raw: row.raw,
        details: row.details,
      }));
    },

    async count(filter: SubscriberLogFilter): Promise<number> {
      const row = await db
        .selectFrom('subscriber_logs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where((eb) => conditions(eb, filter))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async deleteAll(executor: Executor = db): Promise<number> {
      const result = await executor.deleteFrom('subscriber_logs').executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** Deletes at most `limit` logs older than `cutoff`, oldest first; returns how many went. */
    async deleteOlderThan(cutoff: number, limit: number): Promise<number> {
      const result = await db
        .deleteFrom('subscriber_logs')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('subscriber_logs')
            .select('id')
            .where('timestamp', '<', cutoff)
            .orderBy('timestamp')
            .limit(limit),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

export type SubscriberLogsRepository = ReturnType<typeof createSubscriberLogsRepository>;
