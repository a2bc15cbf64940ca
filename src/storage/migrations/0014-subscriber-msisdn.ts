import type { Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
//
// docs/decisions.md 23: a subscriber may have an MSISDN (E.164 digits, no "+"). Nullable: subscribers
// without one (every subscriber before this migration) have none. The unique index is what keeps two
// subscribers from holding one number when two writes race; both dialects let many rows hold NULL.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('subscribers').addColumn('msisdn', 'text').execute();
  await db.schema.createIndex('subscribers_msisdn').unique().on('subscribers').column('msisdn').execute();
}
