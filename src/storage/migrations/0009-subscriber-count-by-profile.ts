import { sql, type Kysely } from 'kysely';
import type { SqlDialect } from './index.ts';

// Frozen: schema changes go into a new migration file, never into this one.
//
// The subscriber list filtered by data network answers the subscribers whose profile a policy for it
// names; counting them walked the whole table (O(n) at 1,000,000 subscribers). The number of subscribers
// of each profile is kept instead, by triggers like migration 0008's, so such a count adds a few numbers.
// A restore recounts it (derived-counts.ts).
export async function up(db: Kysely<unknown>, dialect: SqlDialect = 'sqlite'): Promise<void> {
  await db.schema
    .createTable('subscriber_count_by_profile')
    .addColumn('profile_id', 'integer', (c) => c.primaryKey())
    .addColumn('total', 'integer', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO subscriber_count_by_profile (profile_id, total)
    SELECT profile_id, count(*) FROM subscribers GROUP BY profile_id`.execute(db);
  if (dialect === 'postgres') return postgresTriggers(db);
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

const ADD_BY_PROFILE = (rows: string, column: string) => `
  INSERT INTO subscriber_count_by_profile (profile_id, total)
    SELECT ${column}, count(*) FROM ${rows} GROUP BY ${column}
    ON CONFLICT (profile_id) DO UPDATE SET total = subscriber_count_by_profile.total + excluded.total;`;
const REMOVE_BY_PROFILE = (rows: string, column: string) => `
  UPDATE subscriber_count_by_profile c SET total = c.total - d.n
    FROM (SELECT ${column} AS profile_id, count(*) AS n FROM ${rows} GROUP BY ${column}) d
    WHERE c.profile_id = d.profile_id;`;
const MOVED = `(SELECT o.profile_id AS old_id, n.profile_id AS new_id FROM old_rows o JOIN new_rows n ON n.id = o.id
  WHERE o.profile_id IS DISTINCT FROM n.profile_id) moved`;

/**
 * The same counts on PostgreSQL, by statement-level triggers over the rows each statement changed
 * (transition tables cannot go with a column list, so the update trigger compares the profile itself).
 */
async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  const triggers: [string, string, string, string][] = [
    ['insert', 'INSERT', 'NEW TABLE AS new_rows', ADD_BY_PROFILE('new_rows', 'profile_id')],
    ['delete', 'DELETE', 'OLD TABLE AS old_rows', REMOVE_BY_PROFILE('old_rows', 'profile_id')],
    [
      'update',
      'UPDATE',
      'OLD TABLE AS old_rows NEW TABLE AS new_rows',
      REMOVE_BY_PROFILE(MOVED, 'old_id') + ADD_BY_PROFILE(MOVED, 'new_id'),
    ],
  ];
  for (const [suffix, event, transition, body] of triggers) {
    const name = `subscribers_count_by_profile_${suffix}`;
    await sql
      .raw(
        `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body} RETURN NULL; END $$`,
      )
      .execute(db);
    await sql
      .raw(
        `CREATE TRIGGER ${name} AFTER ${event} ON subscribers REFERENCING ${transition}
        FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`,
      )
      .execute(db);
  }
}
