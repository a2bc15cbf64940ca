import { at, quoted, serviceTables, type Candidate } from './candidate.ts';

/** The storage classes (SQLite's `typeof`) a column of a declared type may hold; see datatype3.html. */
function allowedTypes(declared: string): string[] | undefined {
  const type = declared.toLowerCase();
  if (type.includes('int')) return ['integer'];
  if (type.includes('char') || type.includes('text') || type.includes('clob')) return ['text'];
  if (type.includes('real') || type.includes('floa') || type.includes('doub')) return ['real', 'integer'];
  if (type.includes('blob')) return ['blob'];
  return undefined;
}

/**
 * Every value is of its column's declared type. SQLite stores whatever it is given (a text in an integer
 * column, a real where the service wrote integers), and the service's reads trust the types: a text where
 * a number is read fails the response's serialization for every later request.
 */
export function checkColumnTypes(candidate: Candidate): string | undefined {
  for (const table of serviceTables(candidate)) {
    const columns = candidate.prepare(`PRAGMA table_info(${quoted(table)})`).all() as {
      name: string;
      type: string;
      notnull: number;
      pk: number;
    }[];
    const rules = columns.flatMap((column) => {
      const types = allowedTypes(column.type);
      if (!types) return [];
      const allowed = [...types, ...(column.notnull || column.pk ? [] : ['null'])];
      return [
        {
          column: column.name,
          sql: `typeof(${quoted(column.name)}) NOT IN (${allowed.map((t) => `'${t}'`).join(', ')})`,
        },
      ];
    });
    if (rules.length === 0) continue;
    const wrong = candidate
      .prepare(
        `SELECT rowid AS row, ${rules.map((rule, i) => `${rule.sql} AS c${i}`).join(', ')} FROM ${quoted(table)} WHERE ${rules.map((rule) => rule.sql).join(' OR ')} LIMIT 1`,
      )
      .get() as Record<string, unknown> | undefined;
    if (!wrong) continue;
    const index = rules.findIndex((_, i) => wrong[`c${i}`] === 1);
    const rule = rules[index];
    if (rule) {
      const declared = columns.find((c) => c.name === rule.column)?.type ?? '';
      return at(table, wrong.row, rule.column, `is not of its type (${declared.toLowerCase()})`);
    }
  }
  return undefined;
}
