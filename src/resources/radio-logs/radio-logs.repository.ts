import type { ExpressionBuilder, Insertable } from 'kysely';
import type { LogDirection, RadioLogLevel } from '../../records/record-inputs.ts';
import type { TimestampWindow } from '../../records/record-windows.ts';
import type { Db } from '../../storage/database.ts';
import { rowStatement } from '../../storage/row-statement.ts';
import type { Database } from '../../storage/schema.ts';
import type { RadioLogsTable } from '../../storage/tables/records.ts';
import type { Executor } from '../../storage/transaction.ts';

export interface RadioLog {
  id: number;
  timestamp: number;
  level: RadioLogLevel;
  ranId: string;
  event: string;
  direction: LogDirection;
  raw: Buffer;
  details: string;
}

export interface RadioLogFilter extends TimestampWindow {
  ranId?: string;
  direction?: LogDirection;
  event?: string;
}

function conditions(eb: ExpressionBuilder<Database, 'radio_logs'>, filter: RadioLogFilter) {
  const list = [];
  if (filter.ranId !== undefined) list.push(eb('ran_id', '=', filter.ranId));
  if (filter.direction !== undefined) list.push(eb('direction', '=', filter.direction));
  if (filter.event !== undefined) list.push(eb('event', '=', filter.event));
  if (filter.from !== undefined) list.push(eb('timestamp', '>=', filter.from));
  if (filter.to !== undefined) list.push(eb('timestamp', '<=', filter.to));
  return eb.and(list);
}

export function createRadioLogsRepository(db: Db) {
  return {
    /** Inserts rows; synchronous, inside the records writer's transaction (storage/row-statement.ts). */
    insert: rowStatement<Insertable<RadioLogsTable>>(
      db,
      ['timestamp', 'level', 'ran_id', 'event', 'direction', 'raw', 'details'],
      (row) => db.insertInto('radio_logs').values(row),
    ),

    /** Newest first: by timestamp, then by id. */
    async list(filter: RadioLogFilter, limit: number, offset: number): Promise<RadioLog[]> {
      const rows = await db
        .selectFrom('radio_logs')
        .select(['id', 'timestamp', 'level', 'ran_id', 'event', 'direction', 'raw', 'details'])
        .where((eb) => conditions(eb, filter))
        .orderBy('timestamp', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map((row) => ({
        id: row.id,
        timestamp: Number(row.timestamp),
        level: row.level,
        ranId: row.ran_id,
        event: row.event,
        direction: row.direction,
        raw: row.raw,
        details: row.details,
      }));
    },

    async count(filter: RadioLogFilter): Promise<number> {
      const row = await db
        .selectFrom('radio_logs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where((eb) => conditions(eb, filter))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async deleteAll(executor: Executor = db): Promise<number> {
      const result = await executor.deleteFrom('radio_logs').executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** Deletes at most `limit` logs older than `cutoff`, oldest first; returns how many went. */
    async deleteOlderThan(cutoff: number, limit: number): Promise<number> {
      const result = await db
        .deleteFrom('radio_logs')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('radio_logs')
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

export type RadioLogsRepository = ReturnType<typeof createRadioLogsRepository>;
