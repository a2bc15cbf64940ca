import type { Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
//
// network.md section 9: the home network keys that conceal SUCIs (TS 33.501 Annex C), with private keys
// sealed like subscriber keys, and the operator's ordered NAS algorithm preferences (TS 33.501 5.5).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('home_network_keys')
    .addColumn('id', 'integer', (c) => c.notNull())
    .addColumn('scheme', 'text', (c) => c.notNull())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('private_key_sealed', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('home_network_keys_pk', ['scheme', 'id'])
    .execute();
  await db.schema
    .alterTable('operator')
    .addColumn('nas_ciphering', 'text', (c) => c.notNull().defaultTo('["NEA2","NEA1","NEA0"]'))
    .execute();
  await db.schema
    .alterTable('operator')
    .addColumn('nas_integrity', 'text', (c) => c.notNull().defaultTo('["NIA2","NIA1"]'))
    .execute();
}
