import type { SqliteFile } from '../../storage/sqlite-file.ts';

/** The connection to a database a restore is about to install, read directly for speed. */
export type Candidate = ReturnType<SqliteFile['connection']>;

/** What is wrong with the candidate, naming the table, row and column; undefined when nothing is. */
export type RestoreCheck = (candidate: Candidate) => string | undefined;

/** `table row 12: column ...`: where a problem is, in the words of the database. */
export const at = (table: string, rowid: unknown, column: string, problem: string): string =>
  `${table} row ${String(rowid)}: ${column} ${problem}`;

/** Tables of the service, without SQLite's own and the migration history. */
export function serviceTables(candidate: Candidate): string[] {
  return candidate
    .prepare(
      "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE 'kysely\\_%' ESCAPE '\\' ORDER BY name",
    )
    .pluck()
    .all() as string[];
}

/** SQLite names quoted for SQL text (they come from the schema, which the restore checked is this version's). */
export const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`;
