import { sql, type Kysely } from 'kysely';
import type { SqlDialect } from './index.ts';

// Frozen: schema changes go into a new migration file, never into this one.
//
// network.md section 4: no record carries key material. NGAP PDUs recorded before redaction existed hold
// the KgNB of every Initial Context Setup Request and the NH of every Path Switch Request Acknowledge:
// zero them in place as the records pipeline now does (radio events of protocol NGAP, and radio logs,
// whose raw bytes are NGAP PDUs), and name what was zeroed in `details.redacted`. secure_delete makes
// SQLite overwrite the replaced bytes instead of leaving them in free space, where a backup (a copy of
// every page) would still carry them. The codec is loaded only when this runs. A PostgreSQL database is
// created by a version that already redacts: it has no such rows, and no secure_delete to set.

const BATCH = 1000;

interface Row {
  id: number;
  raw: Uint8Array;
  details: string;
}

export async function up(db: Kysely<unknown>, dialect: SqlDialect = 'sqlite'): Promise<void> {
  if (dialect === 'postgres') return redact(db);
  const previous = await sql<{ secure_delete: number }>`PRAGMA secure_delete`.execute(db);
  await sql`PRAGMA secure_delete = ON`.execute(db);
  try {
    await redact(db);
  } finally {
    await sql
      .raw(`PRAGMA secure_delete = ${previous.rows[0]?.secure_delete === 1 ? 'ON' : 'OFF'}`)
      .execute(db);
  }
}

async function redact(db: Kysely<unknown>): Promise<void> {
  const { redactNgapPdu } = await import('../../network/ngap/ngap-codec.ts');
  for (const table of ['radio_events', 'radio_logs'] as const) {
    const onlyNgap = table === 'radio_events' ? sql`AND protocol = 'NGAP'` : sql``;
    for (let after = 0; ;) {
      const { rows } = await sql<Row>`SELECT id, raw, details FROM ${sql.table(table)}
        WHERE id > ${after} ${onlyNgap} ORDER BY id LIMIT ${BATCH}`.execute(db);
      if (rows.length === 0) break;
      after = rows[rows.length - 1]!.id;
      for (const row of rows) {
        if (row.raw.length === 0) continue;
        const { bytes, redacted } = redactNgapPdu(row.raw);
        if (redacted.length === 0) continue;
        await sql`UPDATE ${sql.table(table)} SET raw = ${bytes}, details = ${withRedacted(row.details, redacted)}
          WHERE id = ${row.id}`.execute(db);
      }
    }
  }
}

function withRedacted(details: string, redacted: string[]): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(details);
  } catch {
    parsed = undefined;
  }
  const object = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
  return JSON.stringify({ ...object, redacted });
}
