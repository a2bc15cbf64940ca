import { at, inStep, overRowids, quoted, serviceTables, type Candidate } from './candidate.ts';

/** The service stores times as Unix milliseconds, in columns named so (docs/architecture.md, Storage). */
const TIME_COLUMN = /^(timestamp|day|.+_at|.+_time)$/;
/** The largest time a JavaScript Date holds (ECMA-262 21.4.1.1); beyond it every rendering of the row throws. */
const LATEST_MS = 8.64e15;

/**
 * Every stored time is a Unix time in milliseconds that a Date can hold, from 1970 on. Runs after
 * checkColumnTypes, so each is an integer already; one pass over each table.
 */
export async function checkTimestamps(candidate: Candidate): Promise<string | undefined> {
  for (const table of serviceTables(candidate)) {
    const columns = (candidate.prepare(`PRAGMA table_info(${quoted(table)})`).all() as { name: string }[])
      .map((column) => column.name)
      .filter((name) => TIME_COLUMN.test(name));
    if (columns.length === 0) continue;
    const outOfRange = (column: string) => `(${quoted(column)} < 0 OR ${quoted(column)} > ${LATEST_MS})`;
    const find = candidate.prepare(
      `SELECT CAST(rowid AS TEXT) AS row, ${columns.map((column, i) => `${outOfRange(column)} AS c${i}`).join(', ')} FROM ${quoted(table)} WHERE ${inStep} AND (${columns.map(outOfRange).join(' OR ')}) LIMIT 1`,
    );
    const problem = await overRowids(candidate, table, (from, to) => {
      const wrong = find.get(from, to) as Record<string, unknown> | undefined;
      if (!wrong) return undefined;
      const column = columns.find((_, i) => wrong[`c${i}`] === 1) ?? '';
      return at(table, wrong.row, column, 'is not a time (Unix milliseconds from 1970 to the year 275760)');
    });
    if (problem) return problem;
  }
  return undefined;
}
