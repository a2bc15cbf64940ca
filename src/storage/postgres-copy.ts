import { CompiledQuery } from 'kysely';

/**
 * Rows as the text format of PostgreSQL's COPY FROM STDIN (PostgreSQL docs, COPY, "Text Format"): one
 * line a row, columns separated by tabs, `\N` for NULL; a backslash, newline, carriage return or tab
 * inside a value is escaped with a backslash; bytes are `bytea` hex input (`\x...`, its backslash
 * escaped in turn).
 */
export function copyText(rows: readonly (readonly unknown[])[]): string {
  let text = '';
  for (const row of rows) {
    for (let column = 0; column < row.length; column += 1) {
      if (column > 0) text += '\t';
      text += copyValue(row[column]);
    }
    text += '\n';
  }
  return text;
}

const ESCAPED = /[\\\n\r\t]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function copyValue(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string')
    return ESCAPED.test(value) ? value.replace(/[\\\n\r\t]/g, (c) => ESCAPES[c] as string) : value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value instanceof Uint8Array)
    return `\\\\x${Buffer.from(value.buffer, value.byteOffset, value.length).toString('hex')}`;
  throw new TypeError(`COPY cannot write a value of type ${typeof value}`);
}

/** Where a COPY query carries its rows (the text its stream sends) through Kysely to the driver. */
const COPY_TEXT = Symbol('copy text');

type CopyQuery = CompiledQuery & { [COPY_TEXT]: string };

/**
 * `COPY table (columns) FROM STDIN` with `rows` (values in the order of `columns`) as a query Kysely can
 * run on a transaction like any other; the driver streams the rows (postgres-dialect.ts).
 */
export function copyQuery(table: string, columns: readonly string[], rows: readonly (readonly unknown[])[]) {
  const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const statement = `copy ${quoted(table)} (${columns.map(quoted).join(', ')}) from stdin`;
  // Kysely's compiled queries are frozen: a copy of one, with the rows beside.
  const query: CopyQuery = { ...CompiledQuery.raw(statement), [COPY_TEXT]: copyText(rows) };
  return query;
}

/** The rows of a query from `copyQuery`, undefined for any other. */
export function copyTextOf(query: CompiledQuery): string | undefined {
  return (query as Partial<CopyQuery>)[COPY_TEXT];
}
