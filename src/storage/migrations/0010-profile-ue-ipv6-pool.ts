import type { Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
//
// network.md sections 6 and 9: a profile may carry an IPv6 prefix (/64 or shorter) from which each of its
// sessions gets its own /64. Nullable: profiles without one (every profile before this migration) serve
// IPv4 only.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('profiles').addColumn('ue_ipv6_pool', 'text').execute();
}
