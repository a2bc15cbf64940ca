import type { ExpressionBuilder, Insertable } from 'kysely';
import type { LogDirection } from '../../records/record-inputs.ts';
import type { TimestampWindow } from '../../records/record-windows.ts';
import type { Db } from '../../storage/database.ts';
import { rowStatement } from '../../storage/row-statement.ts';
import type { Database } from '../../storage/schema.ts';
import type { RadioEventsTable } from '../../storage/tables/records.ts';
import type { Executor } from '../../storage/transaction.ts';

export interface RadioEvent {
  id: number;
  timestamp: number;
  protocol: string;
  messageType: string;
  direction: LogDirection;
  raw: Buffer;
  details: string;
}

export interface RadioEventFilter extends TimestampWindow {
  protocol?: string;
  direction?: LogDirection;
  messageType?: string;
}

function conditions(eb: ExpressionBuilder<Database, 'radio_events'>, filter: RadioEventFilter) {
  const list = [];
  if (filter.protocol !== undefined) list.push(eb('protocol', '=', filter.protocol));
  if (filter.direction !== undefined) list.push(eb('direction', '=', filter.direction));
  if (filter.messageType !== undefined) list.push(eb('message_type', '=', filter.messageType));
  if (filter.from !== undefined) list.push(eb('timestamp', '>=', filter.from));
  if (filter.to !== undefined) list.push(eb('timestamp', '<=', filter.to));
  return eb.and(list);
}

export function createRadioEventsRepository(db: Db) {
  return {
    /** Inserts rows; synchronous, inside the records writer's transaction (storage/row-statement.ts). */
    insert: rowStatement<Insertable<RadioEventsTable>>(
      db,
      ['timestamp', 'protocol', 'message_type', 'direction', 'raw', 'details'],
      (row) => db.insertInto('radio_events').values(row),
    ),

    /** Newest first: by timestamp, then by id. */
    async list(filter: RadioEventFilter, limit: number, offset: number): Promise<RadioEvent[]> {
      const rows = await db
        .selectFrom('radio_events')
        .select(['id', 'timestamp', 'protocol', 'message_type', 'direction', 'raw', 'details'])
        .where((eb) => conditions(eb, filter))
        .orderBy('timestamp', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map((row) => ({
        id: row.id,
        timestamp: Number(row.timestamp),
        protocol: row.protocol,
        messageType: row.message_type,
        direction: row.direction,
        raw: row.raw,
        details: row.details,
      }));
    },

    async count(filter: RadioEventFilter): Promise<number> {
      const row = await db
        .selectFrom('radio_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where((eb) => conditions(eb, filter))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async findMessage(id: number): Promise<{ protocol: string; raw: Buffer } | undefined> {
      return db
        .selectFrom('radio_events')
        .select(['protocol', 'raw'])
        .where('id', '=', id)
        .executeTakeFirst();
    },

    async deleteAll(executor: Executor = db): Promise<number> {
      const result = await executor.deleteFrom('radio_events').executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** Deletes at most `limit` events older than `cutoff`, oldest first; returns how many went. */
    async deleteOlderThan(cutoff: number, limit: number): Promise<number> {
      const result = await db
        .deleteFrom('radio_events')
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('radio_events')
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

export type RadioEventsRepository = ReturnType<typeof createRadioEventsRepository>;
