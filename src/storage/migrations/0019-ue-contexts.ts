import type { Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
//
// The AMF's UE contexts (the UDSF role, TS 23.501 6.2.15; docs/amf-set.md). One row per UE by SUPI. The
// record is opaque to SQL but for what a statement selects or checks on: the 5G-TMSI of its 5G-GUTI
// (unique: a 5G-TMSI names one UE, and a Service Request or registration names the UE by it), the
// owner's fencing epoch (every write checks it in its own statement) and the owner. The rest is one JSON
// text; KAMF is not in it: it is sealed with the service's secret box in `kamf_sealed`.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ue_contexts')
    .addColumn('supi', 'text', (c) => c.primaryKey())
    .addColumn('tmsi', 'bigint')
    .addColumn('epoch', 'bigint', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('record', 'text', (c) => c.notNull())
    .addColumn('kamf_sealed', 'text')
    .execute();
  await db.schema.createIndex('ue_contexts_tmsi').on('ue_contexts').column('tmsi').unique().execute();
}
