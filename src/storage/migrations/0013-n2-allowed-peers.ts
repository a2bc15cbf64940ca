import type { Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
//
// docs/n2.md: the N2 allowlist an operator sets through the API (`/api/v1/operator/n2-allowlist`), a JSON
// array of IP addresses and CIDR networks. Empty (every database before this migration): every peer is
// admitted, as before.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('operator')
    .addColumn('n2_allowed_peers', 'text', (c) => c.notNull().defaultTo('[]'))
    .execute();
}
