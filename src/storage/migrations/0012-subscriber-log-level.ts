import type { Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
//
// network.md section 4: a subscriber log has a level, `warn` for rejects and failures, `info` otherwise
// (as radio logs have had since 0003). Rows written before it were not told apart: they read `info`.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('subscriber_logs')
    .addColumn('level', 'text', (c) => c.notNull().defaultTo('info'))
    .execute();
}
