/**
 * Rows per multi-row INSERT: 500 rows of at most 13 columns stay far below the bound-parameter limits
 * of SQLite (32,766) and PostgreSQL (65,535), and the statement text stays small.
 */
export const INSERT_CHUNK_ROWS = 500;

export function* chunks<T>(rows: readonly T[], size = INSERT_CHUNK_ROWS): Generator<T[]> {
  for (let start = 0; start < rows.length; start += size) yield rows.slice(start, start + size);
}
