import type { Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
//
// The sign-in sessions of operators become `login_sessions` before the network side brings PDU
// sessions, so that "session" alone names neither. Their id, which bearer tokens carry as `sid`, was a
// small sequential integer: it becomes 128 random bits (base64url), so a session cannot be named by
// guessing. Sessions open at the upgrade end (their ids change); operators sign in again.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sessions').execute();
  await db.schema
    .createTable('login_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('login_sessions_user_id').on('login_sessions').column('user_id').execute();
  await db.schema
    .createIndex('login_sessions_expires_at')
    .on('login_sessions')
    .column('expires_at')
    .execute();
}
