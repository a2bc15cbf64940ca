import { at, inStep, overRowids, quoted, serviceTables, type Candidate } from './candidate.ts';

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
export async function checkColumnTypes(candidate: Candidate): Promise<string | undefined> {
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
      const sql = `typeof(${quoted(column.name)}) NOT IN (${allowed.map((type) => `'${type}'`).join(', ')})`;
      return [{ column: column.name, declared: column.type.toLowerCase(), sql }];
    });
    if (rules.length === 0) continue;
    const find = candidate.prepare(
      `SELECT CAST(rowid AS TEXT) AS row, ${rules.map((rule, i) => `${rule.sql} AS c${i}`).join(', ')} FROM ${quoted(table)} WHERE ${inStep} AND (${rules.map((rule) => rule.sql).join(' OR ')}) LIMIT 1`,
    );
    const problem = await overRowids(candidate, table, (from, to) => {
      const wrong = find.get(from, to) as Record<string, unknown> | undefined;
      if (!wrong) return undefined;
      const rule = rules.find((_, i) => wrong[`c${i}`] === 1);
      return at(table, wrong.row, rule?.column ?? '', `is not of its type (${rule?.declared ?? ''})`);
    });
    if (problem) return problem;
  }
  return undefined;
}
