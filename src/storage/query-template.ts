import type { Compilable, CompiledQuery } from 'kysely';
import { maybeSqliteFileOf } from './database.ts';
import { valueRows } from './postgres-dialect.ts';
import type { SqliteFile } from './sqlite-file.ts';
import type { Executor } from './transaction.ts';

/** Stands where a parameter's value goes while the template is compiled. */
class Placeholder<N extends string> {
  constructor(readonly name: N) {}
}

/**
 * A query built and compiled once, then run with new values. Kysely builds an operation tree and
 * compiles it to SQL text on every call: for a page of subscribers (a join over a limited subquery) that
 * is 20-50 µs, a large share of what SQLite then takes to answer. The API's hottest reads build theirs
 * once here. `build` gets a placeholder for each named parameter and must pass it unchanged where a value
 * goes (`where`, `limit`, `offset`), so that the SQL text does not depend on the values; the compiled
 * parameters are then the same list with each placeholder replaced by the value given at each run.
 *
 * Run on the database itself while no transaction is open on its connection, the statement runs at once
 * on the connection (prepared, synchronously, as Kysely's SQLite driver would run it): Kysely's way there,
 * through its connection lock and a chain of promises, costs about 4 µs, as much as a small lookup. It is
 * what Kysely would do, only sooner: the connection is single and the run synchronous, so the read is
 * done before any other query or transaction can start, and sees only committed rows. While a transaction
 * holds the connection (it may be between two of its statements), the read waits for it through Kysely,
 * as every other query does; in a transaction, the read goes through it.
 */
export function queryTemplate<P extends object, R>(
  names: readonly NoInfer<keyof P & string>[],
  build: (params: P) => Compilable<R>,
): (executor: Executor, values: P) => Promise<R[]> {
  const template = compileOnce(names, build);
  return async (executor, values) => {
    const query = template(values);
    const file = idleFile(executor);
    if (file) return file.prepare(query.sql).all(query.parameters) as R[];
    return (await executor.executeQuery<R>(query)).rows;
  };
}

/**
 * A query template whose rows come as arrays of their values, in the order the query selects its
 * columns. SQLite's binding builds a row object property by property, about 0.2 µs a row (a fifth of a
 * page of 100 subscribers); an array it builds at once, and the caller names the values.
 */
export function valuesTemplate<P extends object, V extends readonly unknown[]>(
  names: readonly NoInfer<keyof P & string>[],
  build: (params: P) => Compilable<unknown>,
): (executor: Executor, values: P) => Promise<V[]> {
  const template = compileOnce(names, build);
  return async (executor, values) => {
    const query = template(values);
    const file = idleFile(executor);
    if (file) {
      // Statements are shared by SQL text (sqlite-file.ts): the mode is set back before anything else runs.
      const statement = file.prepare(query.sql).raw(true);
      try {
        return statement.all(query.parameters) as unknown as V[];
      } finally {
        statement.raw(false);
      }
    }
    // PostgreSQL's driver gives arrays (postgres-dialect.ts); SQLite's in a transaction, objects.
    const { rows } = await executor.executeQuery<object>(valueRows(query));
    return rows.map((row) => (Array.isArray(row) ? row : Object.values(row)) as unknown as V);
  };
}

/** The SQLite file of `executor` when a statement may run on it at once: see queryTemplate. */
function idleFile(executor: Executor): SqliteFile | undefined {
  const file = executor.isTransaction ? undefined : maybeSqliteFileOf(executor);
  return file && !file.connection().inTransaction ? file : undefined;
}

/** Compiles `build` at its first use; then gives the compiled query with the parameters for `values`. */
function compileOnce<P extends object, R>(
  names: readonly (keyof P & string)[],
  build: (params: P) => Compilable<R>,
): (values: P) => CompiledQuery<R> {
  let compiled: CompiledQuery<R> | undefined;
  /** For each compiled parameter, the name of the value that goes there, or undefined for a constant. */
  let slots: ((keyof P & string) | undefined)[] = [];

  function compile(): CompiledQuery<R> {
    const placeholders = Object.fromEntries(names.map((name) => [name, new Placeholder(name)])) as P;
    const query = build(placeholders).compile();
    slots = query.parameters.map((value) =>
      value instanceof Placeholder ? (value.name as keyof P & string) : undefined,
    );
    const missing = names.find((name) => !slots.includes(name));
    if (missing !== undefined) throw new Error(`query template: parameter ${missing} is not in the query`);
    return query;
  }

  return (values) => {
    compiled ??= compile();
    const parameters = compiled.parameters.map((constant, index) => {
      const name = slots[index];
      return name === undefined ? constant : values[name];
    });
    return { ...compiled, parameters };
  };
}
