import type { Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
//
// A subscriber's timeline (docs/api.md) shows its state changes and sessions beside its NAS messages.
// The network tells them as events (registered, deregistered, session established / modified /
// released) that no other record keeps: an implicit deregistration or a network-released session sends
// no NAS message. Each becomes a row here, named by the subscriber's IMSI, read by subscriber and time,
// and removed with the subscriber logs (their retention and their clear).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('subscriber_events')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('timestamp', 'bigint', (c) => c.notNull())
    .addColumn('imsi', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('subscriber_events_timestamp')
    .on('subscriber_events')
    .column('timestamp')
    .execute();
  await db.schema
    .createIndex('subscriber_events_imsi_timestamp')
    .on('subscriber_events')
    .columns(['imsi', 'timestamp'])
    .execute();
}
