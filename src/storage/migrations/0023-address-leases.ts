import type { Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
//
// UE address leases shared by the members of an AMF set (docs/amf-set.md, "Address leases"): one row
// per leased address (IPv4 address, or an IPv6 /64 as its first address), its owner the AMF Name of the
// member that leased or holds it. The primary key is what keeps an address unique across the set.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('address_leases')
    .addColumn('address', 'text', (c) => c.primaryKey())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('leased_at', 'bigint', (c) => c.notNull())
    .execute();
}
