import { sql, type Kysely } from 'kysely';

// Frozen: schema changes go into a new migration file, never into this one.
//
// The subscriber list filtered by data network answers the subscribers whose profile a policy for it
// names; counting them walked the whole table (O(n) at 1,000,000 subscribers). The number of subscribers
// of each profile is kept instead, by triggers like migration 0008's, so such a count adds a few numbers.
// A restore recounts it (derived-counts.ts).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('subscriber_count_by_profile')
    .addColumn('profile_id', 'integer', (c) => c.primaryKey())
    .addColumn('total', 'integer', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO subscriber_count_by_profile (profile_id, total)
    SELECT profile_id, count(*) FROM subscribers GROUP BY profile_id`.execute(db);
  await sql`CREATE TRIGGER subscribers_count_by_profile_insert AFTER INSERT ON subscribers
    BEGIN
      INSERT INTO subscriber_count_by_profile (profile_id, total) VALUES (NEW.profile_id, 1)
        ON CONFLICT (profile_id) DO UPDATE SET total = total + 1;
    END`.execute(db);
  await sql`CREATE TRIGGER subscribers_count_by_profile_delete AFTER DELETE ON subscribers
    BEGIN
      UPDATE subscriber_count_by_profile SET total = total - 1 WHERE profile_id = OLD.profile_id;
    END`.execute(db);
  await sql`CREATE TRIGGER subscribers_count_by_profile_update AFTER UPDATE OF profile_id ON subscribers
    WHEN OLD.profile_id IS NOT NEW.profile_id
    BEGIN
      UPDATE subscriber_count_by_profile SET total = total - 1 WHERE profile_id = OLD.profile_id;
      INSERT INTO subscriber_count_by_profile (profile_id, total) VALUES (NEW.profile_id, 1)
        ON CONFLICT (profile_id) DO UPDATE SET total = total + 1;
    END`.execute(db);
}
