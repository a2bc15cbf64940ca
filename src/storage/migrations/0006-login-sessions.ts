import type { Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
//
// The sign-in sessions of operators become `login_sessions` before the network side brings PDU
// sessions, so that "session" alone names neither.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sessions').renameTo('login_sessions').execute();
  await db.schema.dropIndex('sessions_user_id').execute();
  await db.schema.dropIndex('sessions_expires_at').execute();
  await db.schema.createIndex('login_sessions_user_id').on('login_sessions').column('user_id').execute();
  await db.schema
    .createIndex('login_sessions_expires_at')
    .on('login_sessions')
    .column('expires_at')
    .execute();
}
