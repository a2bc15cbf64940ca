import { sql, type Compilable, type CompiledQuery, type RawBuilder } from 'kysely';
import { maybeSqliteFileOf } from './database.ts';
import { valueRows } from './postgres-dialect.ts';
import type { SqliteFile } from './sqlite-file.ts';
import type { Executor } from './transaction.ts';

/**
 * An integer written into the SQL text rather than bound: the one exception to binding every value
 * (docs/postgresql.md, "Values in the SQL text"). Only a safe, non-negative integer passes, which prints as
 * digits alone; anything else throws before any SQL is built.
 */
export function integerLiteral(value: number): RawBuilder<number> {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`not a non-negative safe integer for the SQL text: ${String(value)}`);
  return sql.lit(value);
}

/**
 * Named values of a template that `build` writes into the SQL text with `integerLiteral` (a page's LIMIT
 * and OFFSET, so that PostgreSQL can keep one plan for the statement: docs/postgresql.md): the template is
 * compiled once for each distinct set of them, and `build` gets their values rather than placeholders.
 */
interface TemplateOptions<P> {
  literals?: readonly NoInfer<keyof P & string>[];
}

/**
 * Compiled forms of a template kept, one for each set of literal values, least recently used dropped
 * first: as many as Postgres.js keeps prepared statements a connection.
 */
const VARIANTS = 1_000;

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
 * parameters are then the same list with each placeholder replaced by the value given at each run. Values
 * named in `options.literals` are the exception: written into the text (TemplateOptions).
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
  options: TemplateOptions<P> = {},
): (executor: Executor, values: P) => Promise<R[]> {
  const template = compileOnce(names, build, options.literals ?? []);
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
  options: TemplateOptions<P> = {},
): (executor: Executor, values: P) => Promise<V[]> {
  const template = compileOnce(names, build, options.literals ?? []);
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

/**
 * Compiles `build` at its first use (for each set of `literals` values); then gives the compiled query with
 * the parameters for `values`.
 */
function compileOnce<P extends object, R>(
  names: readonly (keyof P & string)[],
  build: (params: P) => Compilable<R>,
  literals: readonly (keyof P & string)[],
): (values: P) => CompiledQuery<R> {
  /**
   * By the literals' values: the query, and for each of its parameters the name of the value that goes
   * there (undefined for a constant).
   */
  const variants = new Map<string, { query: CompiledQuery<R>; slots: ((keyof P & string) | undefined)[] }>();

  function compile(values: P) {
    const given = Object.fromEntries(
      names.map((name) => [name, literals.includes(name) ? values[name] : new Placeholder(name)]),
    ) as P;
    const query = build(given).compile();
    const slots = query.parameters.map((value) =>
      value instanceof Placeholder ? (value.name as keyof P & string) : undefined,
    );
    const missing = names.find((name) => !literals.includes(name) && !slots.includes(name));
    if (missing !== undefined) throw new Error(`query template: parameter ${missing} is not in the query`);
    return { query, slots };
  }

  /** The compiled form for `values`' literals, kept as the most recently used. */
  function variantOf(values: P) {
    const key = literals.map((name) => String(values[name])).join(' ');
    let variant = variants.get(key);
    if (variant) {
      variants.delete(key);
    } else {
      variant = compile(values);
      if (variants.size >= VARIANTS) variants.delete(variants.keys().next().value as string);
    }
    variants.set(key, variant);
    return variant;
  }

  let only: ReturnType<typeof compile> | undefined;
  return (values) => {
    const { query, slots } = literals.length === 0 ? (only ??= compile(values)) : variantOf(values);
    const parameters = query.parameters.map((constant, index) => {
      const name = slots[index];
      return name === undefined ? constant : values[name];
    });
    return { ...query, parameters };
  };
}
