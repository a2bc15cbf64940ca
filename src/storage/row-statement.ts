import type { Compilable } from 'kysely';
import { sqliteFileOf, type Db } from './database.ts';

/**
 * Writes rows with one prepared statement and returns the rowid of the last row inserted (0 when none);
 * synchronous, so run it inside `writeTransaction`.
 */
export type RowWriter<Row> = (rows: Iterable<Row>) => number;

/**
 * A one-row statement that Kysely builds and compiles once, so its SQL is written like every other
 * query, and SQLite then runs prepared, row after row. The records writer stores tens of thousands of
 * rows a second; building and compiling a multi-row query per chunk cost more than the inserts.
 * `build` receives a sample row whose values are column positions: the compiled parameters then say
 * which column feeds each placeholder, whatever order Kysely writes them in.
 */
export function rowStatement<Row extends object>(
  db: Db,
  columns: readonly (keyof Row & string)[],
  build: (row: Row) => Compilable,
): RowWriter<Row> {
  const sample = Object.fromEntries(columns.map((column, position) => [column, position])) as Row;
  const { sql, parameters } = build(sample).compile();
  const order = parameters.map((parameter) => {
    const column = typeof parameter === 'number' ? columns[parameter] : undefined;
    if (column === undefined) throw new Error(`row statement parameter ${String(parameter)} is not a column`);
    return column;
  });
  return (rows) => {
    const statement = sqliteFileOf(db).prepare(sql);
    let last = 0;
    for (const row of rows) last = Number(statement.run(order.map((column) => row[column])).lastInsertRowid);
    return last;
  };
}

/** A query Kysely compiles once and SQLite runs synchronously, for reads inside a `writeTransaction`. */
export function rowQuery<Row>(db: Db, query: Compilable<Row>): () => Row[] {
  const { sql, parameters } = query.compile();
  return () => sqliteFileOf(db).prepare(sql).all(parameters) as Row[];
}

/**
 * Runs `work` as one transaction on the database's connection, which it holds meanwhile so no other
 * query interleaves. `work` is synchronous (row statements), which keeps the transaction as short as
 * the writes themselves.
 */
export async function writeTransaction(db: Db, work: () => void): Promise<void> {
  const file = sqliteFileOf(db);
  await db.connection().execute(() => {
    file.connection().transaction(work)();
    return Promise.resolve();
  });
}
