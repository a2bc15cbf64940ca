import type { Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
//
// The AMF set's members (TS 23.501 5.21.2; docs/decisions.md, 15): each member writes its row at start
// and at every heartbeat, and reads its peers' to advertise the set's GUAMIs to its radios. A member is
// gone once its lease has expired. `radios` is the member's connected radios as of its last heartbeat
// (JSON), so that every member's API lists the set's radios. On SQLite one member runs.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('amf_set_members')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('instance', 'text', (c) => c.notNull())
    .addColumn('mcc', 'text', (c) => c.notNull())
    .addColumn('mnc', 'text', (c) => c.notNull())
    .addColumn('region_id', 'integer', (c) => c.notNull())
    .addColumn('set_id', 'integer', (c) => c.notNull())
    .addColumn('pointer', 'integer', (c) => c.notNull())
    .addColumn('relative_capacity', 'integer', (c) => c.notNull())
    .addColumn('n2_addresses', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('radios', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('heartbeat_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('amf_set_members_set')
    .on('amf_set_members')
    .columns(['region_id', 'set_id'])
    .execute();
}
