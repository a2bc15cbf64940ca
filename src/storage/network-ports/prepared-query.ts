import { CompiledQuery, type Compilable } from 'kysely';
import { sqliteFileOf, type Db } from '../database.ts';
import type { Executor } from '../transaction.ts';

/** Stands where a parameter's value goes while the query is compiled. */
class Placeholder {
  constructor(readonly name: string) {}
}

/**
 * A query written with Kysely, compiled once, and run by SQLite as a prepared statement, synchronously,
 * with new values at each run. Registration reads and writes a few rows per device at hundreds of
 * devices a second: building and compiling the query per call, and a Kysely transaction's awaits, cost
 * more than SQLite's work. `build` gets a placeholder for each named parameter and passes it unchanged
 * where a value goes. Run `all` and `run` only inside `withConnection` (SQLite); `query` runs the same
 * statement through Kysely on any executor (PostgreSQL, whose driver keeps it prepared per connection).
 */
export function preparedQuery<P extends Record<string, unknown>, R>(
  db: Db,
  names: readonly (keyof P & string)[],
  build: (params: P) => Compilable<R>,
): {
  all(values: P): R[];
  run(values: P): number;
  query(executor: Pick<Executor, 'executeQuery'>, values: P): Promise<R[]>;
} {
  const placeholders = Object.fromEntries(names.map((name) => [name, new Placeholder(name)])) as P;
  const { sql, parameters } = build(placeholders).compile();
  const slots = parameters.map((value) => (value instanceof Placeholder ? value.name : undefined));
  const missing = names.find((name) => !slots.includes(name));
  if (missing !== undefined) throw new Error(`prepared query: parameter ${missing} is not in the query`);
  const bind = (values: P): unknown[] =>
    parameters.map((constant, index) => {
      const name = slots[index];
      return name === undefined ? constant : values[name];
    });
  // The file's statement cache keeps the statement prepared, and forgets it when a restore reopens it.
  const statement = () => sqliteFileOf(db).prepare(sql);
  return {
    all: (values) => statement().all(bind(values)) as R[],
    run: (values) => Number(statement().run(bind(values)).changes),
    query: async (executor, values) =>
      (await executor.executeQuery<R>(CompiledQuery.raw(sql, bind(values)))).rows,
  };
}
