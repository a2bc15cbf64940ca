import type { SqliteFile } from '../../storage/sqlite-file.ts';

/** The connection to a database a restore is about to install, read directly for speed. */
export type Candidate = ReturnType<SqliteFile['connection']>;

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

/** Rows read per step; between steps the checks yield to the event loop, so requests keep being served. */
const ROWS_PER_STEP = 20_000;

/**
 * Calls `step(from, to)` for consecutive rowid ranges `from < rowid <= to` covering `table`, yielding to
 * the event loop between them (a restore of a million subscribers opens two million sealed values); the
 * first problem a step returns ends the walk.
 */
export async function overRowids(
  candidate: Candidate,
  table: string,
  step: (from: bigint | number, to: bigint) => string | undefined,
): Promise<string | undefined> {
  // Rowids are 64-bit: read as BigInt, a large one is not rounded to a neighbour and skipped.
  const range = candidate
    .prepare(`SELECT min(rowid) AS first, max(rowid) AS last FROM ${quoted(table)}`)
    .safeIntegers(true)
    .get() as { first: bigint | null; last: bigint | null };
  if (range.first === null || range.last === null) return undefined;
  // The end of each step is found by counting rows, not rowids: a crafted file may hold any rowids,
  // negative or sparse (one at 1 and one at 2^62 must not take 2^62 / ROWS_PER_STEP steps).
  const stepEnd = candidate
    .prepare(
      `SELECT rowid FROM ${quoted(table)} WHERE rowid > ? ORDER BY rowid LIMIT 1 OFFSET ${ROWS_PER_STEP - 1}`,
    )
    .pluck()
    .safeIntegers(true);
  // Below the smallest rowid; -Infinity when that is the smallest 64-bit integer (no integer is below).
  let from: bigint | number = range.first > -(2n ** 63n) ? range.first - 1n : -Infinity;
  while (from < range.last) {
    const to = (stepEnd.get(from) as bigint | undefined) ?? range.last;
    const problem = step(from, to);
    if (problem) return problem;
    from = to;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return undefined;
}

/** The rowid range condition of one step. */
export const inStep = 'rowid > ? AND rowid <= ?';
