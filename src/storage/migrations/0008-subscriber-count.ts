import { sql, type Kysely } from 'kysely';
import type { SqlDialect } from './index.ts';

// Frozen: schema changes go into a new migration file, never into this one.
//
// Every page of the subscriber list answers the exact number of subscribers. Counting them walks the
// whole IMSI index, which at 1,000,000 subscribers no longer fits SQLite's page cache (about 19 ms a
// page). The number is kept in a one-row table instead, by triggers that run inside the transaction of
// each insert and delete, so it is exact at every commit whoever writes (the API, an import, a direct SQL
// statement); a restore recounts it (restorable-database.ts). PostgreSQL's triggers fire once per statement
// with the rows it changed (transition tables), so a bulk import updates the count once.
export async function up(db: Kysely<unknown>, dialect: SqlDialect = 'sqlite'): Promise<void> {
  await db.schema
    .createTable('subscriber_count')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('total', 'integer', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO subscriber_count (id, total) SELECT 1, count(*) FROM subscribers`.execute(db);
  if (dialect === 'postgres') {
    await statementTrigger(db, 'subscribers_count_insert', 'INSERT', 'NEW TABLE AS changed', '+');
    await statementTrigger(db, 'subscribers_count_delete', 'DELETE', 'OLD TABLE AS changed', '-');
    return;
  }
  await sql`CREATE TRIGGER subscribers_count_insert AFTER INSERT ON subscribers
    BEGIN UPDATE subscriber_count SET total = total + 1 WHERE id = 1; END`.execute(db);
  await sql`CREATE TRIGGER subscribers_count_delete AFTER DELETE ON subscribers
    BEGIN UPDATE subscriber_count SET total = total - 1 WHERE id = 1; END`.execute(db);
}

async function statementTrigger(
  db: Kysely<unknown>,
  name: string,
  event: 'INSERT' | 'DELETE',
  transition: string,
  sign: '+' | '-',
): Promise<void> {
  await sql
    .raw(
      `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE subscriber_count SET total = total ${sign} (SELECT count(*) FROM changed) WHERE id = 1;
        RETURN NULL;
      END $$`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE TRIGGER ${name} AFTER ${event} ON subscribers REFERENCING ${transition}
      FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`,
    )
    .execute(db);
}
