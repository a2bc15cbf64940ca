import { InvalidError } from '../../errors.ts';

const REQUIRED_COLUMNS = ['imsi', 'key', 'sequenceNumber', 'profile_name'] as const;
const COLUMNS: readonly string[] = [...REQUIRED_COLUMNS, 'opc', 'msisdn'];
/** Optional columns whose empty cell means "none" (opc: derive it; msisdn: the subscriber has none). */
const EMPTY_MEANS_NONE: readonly string[] = ['opc', 'msisdn'];

/** Splits CSV text (RFC 4180: quoted fields, doubled quotes, CRLF or LF) into records of fields. */
export function parseCsvRecords(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let index = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a leading byte order mark is not data
  const endRecord = () => {
    record.push(field);
    // A blank line carries no record.
    if (record.length > 1 || record[0] !== '') records.push(record);
    record = [];
    field = '';
  };
  for (; index < text.length; index++) {
    const char = text[index];
    if (quoted) {
      if (char !== '"') field += char;
      else if (text[index + 1] === '"') {
        field += '"';
        index++;
      } else quoted = false;
    } else if (char === '"' && field === '') quoted = true;
    else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\n') endRecord();
    else if (char !== '\r' || text[index + 1] !== '\n') field += char;
  }
  if (quoted) throw new InvalidError('CSV has a quoted field that never ends');
  if (field !== '' || record.length > 0) endRecord();
  return records;
}

/**
 * Subscribers from CSV with a header row naming the create fields (any order; `opc` and `msisdn`
 * optional, an empty opc cell meaning "derive it", an empty msisdn cell "none"). Each record becomes an object shaped like a POST /subscribers body; the
 * values are checked later, row by row, with the create rules.
 */
export function parseSubscriberCsv(text: string): Record<string, string>[] {
  const [header, ...records] = parseCsvRecords(text);
  if (!header) throw new InvalidError('CSV is empty: it needs a header row and at least one subscriber');
  const columns = header.map((name) => name.trim());
  for (const name of columns) {
    if (!COLUMNS.includes(name)) {
      throw new InvalidError(
        `CSV header names an unknown column "${name}"; columns are ${COLUMNS.join(', ')}`,
      );
    }
  }
  if (new Set(columns).size !== columns.length) throw new InvalidError('CSV header names a column twice');
  const missing = REQUIRED_COLUMNS.filter((name) => !columns.includes(name));
  if (missing.length > 0) throw new InvalidError(`CSV header lacks the column ${missing.join(', ')}`);

  const faults: string[] = [];
  const subscribers = records.map((fields, index) => {
    if (fields.length !== columns.length) {
      faults.push(`row ${index + 1} has ${fields.length} fields, the header has ${columns.length}`);
    }
    const subscriber: Record<string, string> = {};
    columns.forEach((name, column) => {
      const value = fields[column] ?? '';
      if (!(EMPTY_MEANS_NONE.includes(name) && value === '')) subscriber[name] = value;
    });
    return subscriber;
  });
  if (faults.length > 0) throw new InvalidError(`CSV is malformed: ${faults.join('; ')}`);
  return subscribers;
}
