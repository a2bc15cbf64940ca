import { sql, type Kysely } from 'kysely';
import type { SqlDialect } from './index.ts';

// Frozen: schema changes go into a new migration file, never into this one.
//
// The radio events list and their pcapng export filter by radio (`details.radio`, network.md section 3).
// Read from each event's JSON that filter walked the whole time window; the name gets a column of its
// own with an index, as the IMSI did (0015). Events already stored take theirs from their details.
export async function up(db: Kysely<unknown>, dialect: SqlDialect = 'sqlite'): Promise<void> {
  await db.schema.alterTable('radio_events').addColumn('radio', 'text').execute();
  const named =
    dialect === 'postgres' ? sql`(details::jsonb ->> 'radio')` : sql`json_extract(details, '$.radio')`;
  await sql`update radio_events set radio = ${named} where ${named} is not null`.execute(db);
  await db.schema
    .createIndex('radio_events_radio_timestamp')
    .on('radio_events')
    .columns(['radio', 'timestamp'])
    .execute();
}
