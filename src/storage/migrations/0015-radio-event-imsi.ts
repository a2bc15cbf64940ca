import type { Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
//
// network.md section 3: a radio event names its subscriber (`details.imsi`) once the AMF knows the SUPI
// of the UE its ids name. The IMSI is kept in a column of its own too, so the list and the pcapng export
// filter by subscriber through an index. Events recorded before never carried one: NULL.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('radio_events').addColumn('imsi', 'text').execute();
  await db.schema
    .createIndex('radio_events_imsi_timestamp')
    .on('radio_events')
    .columns(['imsi', 'timestamp'])
    .execute();
}
