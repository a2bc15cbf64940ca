import type { Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
//
// The read model of an AMF set (docs/amf-set.md, "One view of the network"): each member's view of the
// subscribers it has seen, one row per subscriber and member, written by that member from its network
// events, so the API of every member reads the whole set. `view` is the status and PDU sessions as the
// API shows them (JSON text); `registered`, `serving_radio` and `session_count` are columns for the list's
// filter and counts.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('subscriber_views')
    .addColumn('imsi', 'text', (c) => c.notNull())
    .addColumn('amf', 'text', (c) => c.notNull())
    .addColumn('registered', 'integer', (c) => c.notNull())
    .addColumn('serving_radio', 'text', (c) => c.notNull())
    .addColumn('session_count', 'integer', (c) => c.notNull())
    .addColumn('view', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('subscriber_views_pk', ['imsi', 'amf'])
    .execute();
  // A member's rows are cleared by its name; the list's radio filter reads by radio.
  await db.schema.createIndex('subscriber_views_amf').on('subscriber_views').column('amf').execute();
  await db.schema
    .createIndex('subscriber_views_serving_radio')
    .on('subscriber_views')
    .column('serving_radio')
    .execute();
}
