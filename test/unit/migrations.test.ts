import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Migrator, sql, type Migration } from 'kysely';
import { migrateToLatest, openSqliteDatabase } from '../../src/storage/database.ts';
import { migrationProvider } from '../../src/storage/migrations/index.ts';

describe('migrations', () => {
  it('apply every migration once; a second run applies none', async () => {
    const db = openSqliteDatabase(':memory:');
    const first = await migrateToLatest(db);
    assert.ok(first.length >= 1);
    assert.deepEqual(await migrateToLatest(db), []);
    await db.destroy();
  });

  it('leave the schema untouched when a migration fails halfway', async () => {
    const db = openSqliteDatabase(':memory:');
    await migrateToLatest(db);
    const broken: Migration = {
      up: async (trx) => {
        await sql`create table half_done (id integer)`.execute(trx);
        await sql`this is not sql`.execute(trx);
      },
    };
    const migrator = new Migrator({
      db,
      provider: {
        getMigrations: async () => ({ ...(await migrationProvider.getMigrations()), '9999-broken': broken }),
      },
    });
    const { error } = await migrator.migrateToLatest();
    assert.ok(error);
    const tables = await sql<{
      name: string;
    }>`select name from sqlite_master where name = 'half_done'`.execute(db);
    assert.equal(tables.rows.length, 0);
    await db.destroy();
  });
});
