import type { Compilable } from 'kysely';
import { sqliteFileOf, type Db } from './database.ts';

/** Writes rows with prepared statements; synchronous, so run it inside `writeTransaction`. */
export type RowWriter<Row> = (rows: readonly Row[]) => void;

/**
 * Rows one statement writes at a time. Each statement run costs a fixed overhead (and, on a table with
 * AUTOINCREMENT, an update of its sequence): 32 rows a statement halves the cost of a flow report.
 */
const ROWS_PER_STATEMENT = 32;

interface CompiledRows {
  sql: string;
  /** For each placeholder, the row (within the statement) and the column that feed it. */
  sources: { row: number; column: string }[];
}

/**
 * Statements that Kysely builds and compiles once, so their SQL is written like every other query, and
 * SQLite then runs prepared: one for `ROWS_PER_STATEMENT` rows at a time and one for the rows left
 * over. The records writer stores tens of thousands of rows a second; building and compiling a query
 * per chunk cost more than the inserts. `build` receives sample rows whose values are positions: the
 * compiled parameters then say which row and column feed each placeholder, whatever order Kysely writes
 * them in.
 */
export function rowStatement<Row extends object>(
  db: Db,
  columns: readonly (keyof Row & string)[],
  build: (rows: Row[]) => Compilable,
): RowWriter<Row> {
  const compile = (count: number): CompiledRows => {
    const samples = Array.from(
      { length: count },
      (_, row) =>
        Object.fromEntries(
          columns.map((column, position) => [column, row * columns.length + position]),
        ) as Row,
    );
    const { sql, parameters } = build(samples).compile();
    const sources = parameters.map((parameter) => {
      const column = typeof parameter === 'number' ? columns[parameter % columns.length] : undefined;
      if (column === undefined)
        throw new Error(`row statement parameter ${String(parameter)} is not a column`);
      return { row: Math.floor((parameter as number) / columns.length), column };
    });
    return { sql, sources };
  };
  const many = compile(ROWS_PER_STATEMENT);
  const one = compile(1);
  const values: unknown[] = [];

  function run(compiled: CompiledRows, rows: readonly Row[], first: number): void {
    const { sources } = compiled;
    values.length = sources.length;
    for (let index = 0; index < sources.length; index += 1) {
      const { row, column } = sources[index] as CompiledRows['sources'][number];
      values[index] = (rows[first + row] as Record<string, unknown>)[column];
    }
    sqliteFileOf(db).prepare(compiled.sql).run(values);
  }

  return (rows) => {
    let next = 0;
    for (; next + ROWS_PER_STATEMENT <= rows.length; next += ROWS_PER_STATEMENT) run(many, rows, next);
    for (; next < rows.length; next += 1) run(one, rows, next);
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
    file.connection().transaction(work).immediate();
    return Promise.resolve();
  });
}
