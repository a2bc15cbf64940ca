import {
  CompiledQuery,
  InsertQueryNode,
  sql,
  type Compilable,
  type Kysely,
  type OperationNodeSource,
} from 'kysely';
import { maybeSqliteFileOf, sqliteFileOf, withConnection, type Db } from './database.ts';
import { copyQuery } from './postgres-copy.ts';
import { sendInTransaction, transactionContext } from './postgres-transaction-context.ts';
import { BUSY_TIMEOUT_MS } from './sqlite-file.ts';
import type { Database } from './schema.ts';

/** Writes rows with prepared statements; synchronous, so run it inside `writeTransaction`. */
type RowWriter<Row> = (rows: readonly Row[]) => void;

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
  const copy = maybeSqliteFileOf(db) ? undefined : copyTarget(build, columns);
  if (copy) {
    // PostgreSQL: a plain INSERT's rows go in with one COPY, 1.7 times the rows a second of 32-row
    // statements in bench/postgres-records.ts (docs/postgresql.md).
    return (rows) => {
      if (rows.length === 0) return;
      const values = rows.map((row) =>
        copy.columns.map((column) => (row as Record<string, unknown>)[column]),
      );
      sendInTransaction(copyQuery(copy.table, copy.columns, values));
    };
  }
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
    const file = maybeSqliteFileOf(db);
    if (file) file.prepare(compiled.sql).run(values);
    else sendInTransaction(CompiledQuery.raw(compiled.sql, values.slice()));
  }

  return (rows) => {
    let next = 0;
    for (; next + ROWS_PER_STATEMENT <= rows.length; next += ROWS_PER_STATEMENT) run(many, rows, next);
    for (; next < rows.length; next += 1) run(one, rows, next);
  };
}

/**
 * The table and columns when `build` makes a plain INSERT of the columns (no conflict clause, nothing
 * returned), which COPY can do in its place.
 */
function copyTarget<Row extends object>(
  build: (rows: Row[]) => Compilable,
  columns: readonly string[],
): { table: string; columns: string[] } | undefined {
  const sample = Object.fromEntries(columns.map((column) => [column, 0])) as Row;
  const built = build([sample]) as Partial<OperationNodeSource>;
  const node = built.toOperationNode?.();
  if (!node || !InsertQueryNode.is(node) || !node.into || !node.columns) return undefined;
  if (node.onConflict || node.onDuplicateKey || node.returning || node.ignore || node.replace || node.with)
    return undefined;
  const named = node.columns.map((column) => column.column.name);
  if (named.length !== columns.length || named.some((column) => !columns.includes(column))) return undefined;
  return { table: node.into.table.identifier.name, columns: named };
}

/**
 * Adds rows to counter rows: each row's `counters` are added to the stored row with the same `keys`,
 * which is created on the first addition. Rows with the same keys are summed first: one upsert
 * statement may not touch a row twice in PostgreSQL, and fewer rows cost less. Synchronous, like
 * `rowStatement`. On PostgreSQL every row goes in one statement, as one JSON parameter read with the
 * table's own row type (`json_populate_recordset`): in statements of 32 rows, a batch of flow reports to
 * many destinations took dozens of upserts.
 */
export function counterRows<Row extends object>(
  db: Db,
  table: keyof Database,
  keys: readonly (keyof Row & string)[],
  counters: readonly (keyof Row & string)[],
): RowWriter<Row> {
  // The upsert names its columns at run time, which Kysely's types cannot follow: a loose view.
  const loose = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  const columns = [...keys, ...counters];
  const added = Object.fromEntries(
    counters.map((counter) => [
      counter,
      sql`${sql.ref(`${table}.${counter}`)} + ${sql.ref(`excluded.${counter}`)}`,
    ]),
  );
  let upsert: RowWriter<Row>;
  if (maybeSqliteFileOf(db)) {
    upsert = rowStatement<Row>(db, columns, (rows) =>
      loose
        .insertInto(table)
        .values(rows)
        .onConflict((oc) => oc.columns([...keys]).doUpdateSet(added)),
    );
  } else {
    const statement = loose
      .insertInto(table)
      .columns(columns)
      .expression(
        sql`select ${sql.join(columns.map((column) => sql.ref(column)))} from json_populate_recordset(null::${sql.table(table)}, ${sql.val('')}::text::json)`,
      )
      .onConflict((oc) => oc.columns([...keys]).doUpdateSet(added))
      .compile().sql;
    upsert = (rows) => {
      if (rows.length > 0) sendInTransaction(CompiledQuery.raw(statement, [JSON.stringify(rows)]));
    };
  }
  return (rows) => {
    const merged = new Map<string, Row>();
    for (const row of rows) {
      const key = keys.map((column) => String(row[column])).join('\u0000');
      const seen = merged.get(key) as Record<string, number> | undefined;
      if (!seen) merged.set(key, { ...row });
      else for (const counter of counters) seen[counter] = (seen[counter] ?? 0) + (row[counter] as number);
    }
    upsert([...merged.values()]);
  };
}

/** A read inside a `writeTransaction` (see `rowQuery`). */
export type RowQuery<Row> = () => Row[];

/** Each row query's statement, for PostgreSQL to read as a transaction begins. */
const compiledReads = new WeakMap<RowQuery<unknown>, CompiledQuery>();

/**
 * The row queries the running `writeTransaction` listed (SQLite: its work is synchronous, so one at a
 * time); PostgreSQL keeps them, with what they read, in the transaction's context.
 */
let sqliteReads: ReadonlySet<RowQuery<unknown>> | undefined;

function unlisted(): Error {
  return new Error('a row query runs inside a writeTransaction that lists it among its reads');
}

/**
 * A query Kysely compiles once and SQLite runs synchronously, for reads inside a `writeTransaction`
 * that lists it among its reads (on both dialects, so a read missing from the list fails on SQLite too).
 * On PostgreSQL, whose driver is asynchronous, it answers what the database held as the
 * `writeTransaction` began (it is read then, and only when listed): a read after a write of the same
 * transaction does not see that write.
 */
export function rowQuery<Row>(db: Db, query: Compilable<Row>): RowQuery<Row> {
  const { sql, parameters } = query.compile();
  const file = maybeSqliteFileOf(db);
  const read: RowQuery<Row> = file
    ? () => {
        if (!sqliteReads?.has(read)) throw unlisted();
        return file.prepare(sql).all(parameters) as Row[];
      }
    : () => {
        const rows = transactionContext()?.reads?.get(read);
        if (!rows) throw unlisted();
        return rows as Row[];
      };
  compiledReads.set(read, CompiledQuery.raw(sql, [...parameters]));
  return read;
}

/**
 * Runs `work` as one transaction on the database's connection, which it holds meanwhile so no other
 * query interleaves. `work` is synchronous (row statements), which keeps the transaction as short as
 * the writes themselves. `reads` are the row queries `work` may call: PostgreSQL reads those, and only
 * those, before it runs `work` (a batch of radio events reads nothing of flow reports).
 */
export async function writeTransaction(
  db: Db,
  work: () => void,
  reads: readonly RowQuery<unknown>[] = [],
): Promise<void> {
  const file = maybeSqliteFileOf(db);
  if (file) {
    const listed = new Set(reads);
    const run = () => {
      sqliteReads = listed;
      try {
        work();
      } finally {
        sqliteReads = undefined;
      }
    };
    await withConnection(db, () => file.connection().transaction(run).immediate());
    return;
  }
  await db.transaction().execute(async (trx) => {
    const answers = new Map<RowQuery<unknown>, unknown[]>();
    for (const read of new Set(reads)) {
      const query = compiledReads.get(read);
      if (!query) throw new Error('a writeTransaction reads only queries made by rowQuery');
      answers.set(read, (await trx.executeQuery(query)).rows);
    }
    const context = transactionContext();
    if (context) context.reads = answers;
    work();
  });
}

/**
 * `work` as one BEGIN IMMEDIATE transaction, but only if the write lock is free now: undefined, with
 * nothing written, when another connection (the records writer thread) holds it. SQLite's busy handler
 * would otherwise wait for the lock by sleeping in the calling thread, 1, 2, 5, 10 ms and longer, and the
 * service's event loop with it; the caller waits without blocking and tries again. Run it while holding
 * the connection (`withConnection`), so no other query interleaves.
 */
export function tryWriteTransaction<T>(db: Db, work: () => T): { value: T } | undefined {
  const connection = sqliteFileOf(db).connection();
  return tryWithoutWaiting(db, () => connection.transaction(work).immediate());
}

/**
 * `write` (a transaction, or one statement that commits itself) only if the write lock is free now:
 * undefined, with nothing written, when another connection holds it (see `tryWriteTransaction`).
 */
export function tryWithoutWaiting<T>(db: Db, write: () => T): { value: T } | undefined {
  const file = sqliteFileOf(db);
  file.prepare('PRAGMA busy_timeout = 0').get();
  try {
    return { value: write() };
  } catch (error) {
    // BEGIN IMMEDIATE (or, rarely, a read while another connection recovers the WAL) found the lock taken.
    if (String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) return undefined;
    throw error;
  } finally {
    file.prepare(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`).get();
  }
}
