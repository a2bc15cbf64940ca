import {
  sql,
  type Expression,
  type ExpressionBuilder,
  type Insertable,
  type Kysely,
  type Selectable,
  type SqlBool,
} from 'kysely';
import type { Db } from '../storage/database.ts';
import { rowStatement } from '../storage/row-statement.ts';
import type {
  RadioEventsTable,
  RadioLogsTable,
  SubscriberEventsTable,
  SubscriberLogsTable,
} from '../storage/tables/records.ts';
import type { Executor } from '../storage/transaction.ts';
import type { TimestampWindow } from './record-windows.ts';

/** The log-like record tables: rows with a timestamp, listed newest first and filtered by equality. */
interface LogTables {
  radio_events: RadioEventsTable;
  subscriber_logs: SubscriberLogsTable;
  subscriber_events: SubscriberEventsTable;
  radio_logs: RadioLogsTable;
}

type LogTable = keyof LogTables;

/**
 * One table's part of the queries below. Kysely cannot check a query on a table chosen at run time, so
 * these run on one loosely typed view of these tables; the spec is typed per table instead, and the
 * record-indexes test checks every query's plan on each table.
 */
interface LogRecordsSpec<T extends LogTable, Filter extends TimestampWindow, Item> {
  table: T;
  /** The columns an insert writes (all but id). */
  columns: readonly (keyof Insertable<LogTables[T]> & string)[];
  /** Each equality filter and the column it matches. */
  filters: {
    [K in Exclude<keyof Filter, keyof TimestampWindow>]-?: keyof LogTables[T] & string;
  };
  /** A row as the API's service layer sees it. */
  item: (row: Selectable<LogTables[T]>) => Item;
}

type Row = { id: number; timestamp: number } & Record<string, unknown>;
type Loose = Kysely<Record<string, Row>>;

/**
 * List, count, insert, clear and retention of a log table: radio events, subscriber logs and events,
 * radio logs.
 */
export function createLogRecordsRepository<T extends LogTable, Filter extends TimestampWindow, Item>(
  db: Db,
  spec: LogRecordsSpec<T, Filter, Item>,
) {
  const loose = db as unknown as Loose;
  const table: string = spec.table;
  const filterColumns = Object.entries(spec.filters) as [keyof Filter, string][];

  function conditions(eb: ExpressionBuilder<Record<string, Row>, string>, filter: Filter) {
    const list: Expression<SqlBool>[] = filterColumns
      .filter(([key]) => filter[key] !== undefined)
      .map(([key, column]) => eb(sql.ref(column), '=', filter[key]));
    if (filter.from !== undefined) list.push(eb('timestamp', '>=', filter.from));
    if (filter.to !== undefined) list.push(eb('timestamp', '<=', filter.to));
    return eb.and(list);
  }

  return {
    /** Inserts rows; synchronous, inside the records writer's transaction (storage/row-statement.ts). */
    insert: rowStatement<Insertable<LogTables[T]>>(db, spec.columns, (rows) =>
      loose.insertInto(table).values(rows),
    ),

    /** Newest first: by timestamp, then by id. */
    async list(filter: Filter, limit: number, offset: number): Promise<Item[]> {
      const rows = await loose
        .selectFrom(table)
        .selectAll()
        .where((eb) => conditions(eb, filter))
        .orderBy('timestamp', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset(offset)
        .execute();
      return rows.map((row) => spec.item(row as unknown as Selectable<LogTables[T]>));
    },

    /**
     * Oldest first, by timestamp then id, after the `after` position: one page of a walk over every
     * match (an export), whose cost does not grow with the pages already read as an offset's would.
     */
    async listOldestAfter(
      filter: Filter,
      after: { timestamp: number; id: number } | undefined,
      limit: number,
    ): Promise<Item[]> {
      const rows = await loose
        .selectFrom(table)
        .selectAll()
        .where((eb) => conditions(eb, filter))
        .$if(after !== undefined, (query) =>
          query.where((eb) =>
            eb(eb.refTuple('timestamp', 'id'), '>', eb.tuple(after?.timestamp ?? 0, after?.id ?? 0)),
          ),
        )
        .orderBy('timestamp', 'asc')
        .orderBy('id', 'asc')
        .limit(limit)
        .execute();
      return rows.map((row) => spec.item(row as unknown as Selectable<LogTables[T]>));
    },

    /** The rows after `afterId`, by id: what a follower of the table (the live event stream) has not read. */
    async listAfterId(afterId: number, limit: number): Promise<Item[]> {
      const rows = await loose
        .selectFrom(table)
        .selectAll()
        .where('id', '>', afterId)
        .orderBy('id', 'asc')
        .limit(limit)
        .execute();
      return rows.map((row) => spec.item(row as unknown as Selectable<LogTables[T]>));
    },

    /** The highest id stored, 0 when the table is empty. */
    async lastId(): Promise<number> {
      const row = await loose
        .selectFrom(table)
        .select((eb) => eb.fn.max('id').as('id'))
        .executeTakeFirst();
      return Number(row?.id ?? 0);
    },

    async count(filter: Filter): Promise<number> {
      const row = await loose
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where((eb) => conditions(eb, filter))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async deleteAll(executor: Executor = db): Promise<number> {
      const result = await (executor as unknown as Loose).deleteFrom(table).executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** Deletes at most `limit` records older than `cutoff`, oldest first; returns how many went. */
    async deleteOlderThan(cutoff: number, limit: number): Promise<number> {
      const result = await loose
        .deleteFrom(table)
        .where('id', 'in', (eb) =>
          eb.selectFrom(table).select('id').where('timestamp', '<', cutoff).orderBy('timestamp').limit(limit),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
