import type { Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
//
// The UE (SUPI) an address lease is for (docs/amf-set.md, "Address hand-over"): a member taking a UE over
// moves the leases of that UE's sessions with the record's compare-and-set, and only those, so an
// address its old owner meanwhile released and leased to another UE stays that UE's. Null for a lease
// made before this column (it is never handed over: the session is left out, as before).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('address_leases').addColumn('supi', 'text').execute();
}
