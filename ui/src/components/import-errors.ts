/** One row the service refused in a bulk import, and why. */
export interface RowError {
  row: number;
  reason: string;
}

/**
 * The rows of a refused import, read from the service's message: `N of M rows cannot be imported, so none
 * was: row 1: <reason>; row 4: <reason>` (src/resources/subscribers/subscribers.service.ts). A message of
 * another form (malformed JSON, a CSV header without a column) has no rows: it is shown as it is.
 */
export function rowErrorsOf(message: string): RowError[] {
  const start = message.indexOf(': row ');
  if (start < 0) return [];
  const rows: RowError[] = [];
  // A reason may itself hold "; " (a CSV row with several faults), so rows are split before "row N: " only.
  for (const part of message.slice(start + 2).split(/; (?=row \d+: )/)) {
    const match = /^row (\d+): ([\s\S]*)$/.exec(part);
    if (match) rows.push({ row: Number(match[1]), reason: match[2] ?? '' });
  }
  return rows;
}

/** How to send an import file: JSON when it is named .json or starts with `[`, CSV otherwise. */
export function importContentType(fileName: string, text: string): 'application/json' | 'text/csv' {
  if (/\.json$/i.test(fileName)) return 'application/json';
  if (/\.csv$/i.test(fileName)) return 'text/csv';
  return text.trimStart().startsWith('[') ? 'application/json' : 'text/csv';
}
