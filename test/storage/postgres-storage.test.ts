import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { isUniqueViolation } from '../../src/storage/constraint-errors.ts';
import { migrationProviderFor } from '../../src/storage/migrations/index.ts';
import { openStorage, type Storage } from '../../src/storage/storage.ts';
import { postgresBinDir } from '../helpers/postgres-cluster.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';

// On PostgreSQL runs only (npm run test:postgres, or PMN_TEST_DB=postgres for one file), which start a cluster.
const skip = !onPostgres
  ? 'a PostgreSQL test: npm run test:postgres'
  : !postgresBinDir() && !process.env.PMN_TEST_POSTGRES_URL && 'no PostgreSQL server installed';

interface Column {
  table: string;
  column: string;
  type: string;
  nullable: boolean;
}

/** Each column with its type family, so SQLite's and PostgreSQL's spellings compare. */
const FAMILY: Record<string, string> = {
  integer: 'integer',
  int4: 'integer',
  bigint: 'bigint',
  int8: 'bigint',
  text: 'text',
  blob: 'bytes',
  bytea: 'bytes',
  'double precision': 'double',
  float8: 'double',
};

async function sqliteColumns(db: Kysely<unknown>): Promise<Column[]> {
  const { rows } = await sql<{ table: string; column: string; type: string; notnull: number; pk: number }>`
    SELECT m.name AS "table", p.name AS "column", lower(p.type) AS type, p."notnull" AS "notnull", p.pk AS pk
    FROM sqlite_schema m JOIN pragma_table_info(m.name) p
    WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND m.name NOT LIKE 'kysely\\_%' ESCAPE '\\'
    ORDER BY 1, 2`.execute(db);
  // SQLite lets a primary key column other than INTEGER PRIMARY KEY hold NULL unless NOT NULL is said.
  return rows.map((r) => ({
    table: r.table,
    column: r.column,
    type: FAMILY[r.type] ?? r.type,
    nullable: r.notnull === 0 && r.pk === 0,
  }));
}

async function postgresColumns(db: Kysely<unknown>): Promise<Column[]> {
  const { rows } = await sql<{ table: string; column: string; type: string; nullable: string }>`
    SELECT table_name AS "table", column_name AS "column", udt_name AS type, is_nullable AS nullable
    FROM information_schema.columns
    WHERE table_schema = 'public' AND table_name NOT LIKE 'kysely\\_%'
    ORDER BY 1, 2`.execute(db);
  return rows.map((r) => ({
    table: r.table,
    column: r.column,
    type: FAMILY[r.type] ?? r.type,
    nullable: r.nullable === 'YES',
  }));
}

async function sqliteIndexes(db: Kysely<unknown>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`SELECT name FROM sqlite_schema
    WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`.execute(db);
  return rows.map((r) => r.name);
}

async function postgresIndexes(db: Kysely<unknown>): Promise<string[]> {
  // Without the indexes PostgreSQL makes for primary keys and unique constraints (SQLite's autoindexes).
  const { rows } = await sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes i
    WHERE schemaname = 'public' AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)
    AND indexname NOT LIKE 'kysely\\_%' ORDER BY 1`.execute(db);
  return rows.map((r) => r.name);
}

describe('storage on PostgreSQL', { skip }, () => {
  let storage: Storage;
  let sqlite: Storage;
  before(async () => {
    storage = await openStorage({ path: await freshPostgresDatabase(), poolSize: 4 });
    sqlite = await openStorage({ path: ':memory:' });
  });
  after(async () => {
    await storage?.close();
    await sqlite?.close();
  });

  it('builds the same tables, columns, types, nullability and indexes as on SQLite', async () => {
    const db = storage.db as unknown as Kysely<unknown>;
    const lite = sqlite.db as unknown as Kysely<unknown>;
    assert.deepEqual(await postgresColumns(db), await sqliteColumns(lite));
    // PostgreSQL cuts names to 63 bytes (NAMEDATALEN - 1), in CREATE and DROP alike.
    const cut = (await sqliteIndexes(lite)).map((name) => name.slice(0, 63));
    assert.deepEqual(await postgresIndexes(db), cut);
  });

  it('applies every migration once: opening a migrated database applies none', async () => {
    const url = await freshPostgresDatabase();
    const again = await openStorage({ path: url, poolSize: 1 });
    try {
      assert.deepEqual(again.migrationsApplied, []);
      const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM kysely_migration`.execute(again.db);
      const migrations = await migrationProviderFor('postgres').getMigrations();
      assert.equal(rows[0]?.n, Object.keys(migrations).length);
    } finally {
      await again.close();
    }
  });

  it('gives integers back as numbers and bytes as Buffers, as SQLite does', async () => {
    const { db } = storage;
    await db
      .insertInto('radio_events')
      .values({
        timestamp: 1_764_000_000_123,
        protocol: 'NGAP',
        message_type: 'NGSetupRequest',
        direction: 'inbound',
        raw: Buffer.from([0, 1, 2, 255]),
        details: '{}',
      })
      .execute();
    const row = await db
      .selectFrom('radio_events')
      .select(['id', 'timestamp', 'raw'])
      .executeTakeFirstOrThrow();
    assert.equal(typeof row.id, 'number');
    assert.equal(row.timestamp, 1_764_000_000_123);
    assert.deepEqual(Buffer.from(row.raw), Buffer.from([0, 1, 2, 255]));
    const counted = await db
      .selectFrom('radio_events')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('timestamp').as('sum')])
      .executeTakeFirstOrThrow();
    assert.deepEqual(counted, { n: 1, sum: 1_764_000_000_123 });
  });

  it('keeps the subscriber counts exact through multi-row inserts, profile changes and deletes', async () => {
    const { db } = storage;
    const profile = (name: string) => ({
      name,
      ue_ip_pool: '10.45.0.0/16',
      dns: '8.8.8.8',
      mtu: 1400,
      bitrate_uplink: '100 Mbps',
      bitrate_downlink: '100 Mbps',
      var5qi: 9,
      priority_level: 90,
    });
    const [a, b] = await db
      .insertInto('profiles')
      .values([profile('count-a'), profile('count-b')])
      .returning('id')
      .execute();
    const subscriber = (imsi: string, profileId: number) => ({
      imsi,
      profile_id: profileId,
      key_sealed: 'k',
      opc_sealed: 'o',
      sequence_number: '000000000001',
      created_at: 1,
    });
    await db
      .insertInto('subscribers')
      .values([
        subscriber('001010000000101', a!.id),
        subscriber('001010000000102', a!.id),
        subscriber('001010000000103', b!.id),
      ])
      .execute();
    await db
      .updateTable('subscribers')
      .set({ profile_id: b!.id })
      .where('imsi', '=', '001010000000101')
      .execute();
    // An update that leaves the profile as it was changes no count.
    await db.updateTable('subscribers').set({ sequence_number: '000000000002' }).execute();
    await db.deleteFrom('subscribers').where('imsi', '=', '001010000000103').execute();
    const total = await db.selectFrom('subscriber_count').select('total').executeTakeFirstOrThrow();
    const byProfile = await db
      .selectFrom('subscriber_count_by_profile')
      .select(['profile_id', 'total'])
      .where('profile_id', 'in', [a!.id, b!.id])
      .orderBy('profile_id')
      .execute();
    assert.equal(total.total, 2);
    assert.deepEqual(byProfile, [
      { profile_id: a!.id, total: 1 },
      { profile_id: b!.id, total: 1 },
    ]);
  });

  it('reports a duplicate as a unique violation, as on SQLite', async () => {
    const { db } = storage;
    await db.insertInto('data_networks').values({ name: 'dup' }).execute();
    await assert.rejects(db.insertInto('data_networks').values({ name: 'dup' }).execute(), (error) =>
      isUniqueViolation(error),
    );
  });

  it('runs concurrent check-then-write transactions as if one after the other (SERIALIZABLE, retried)', async () => {
    const { db } = storage;
    await db.insertInto('settings').values({ key: 'counter', value: '0' }).execute();
    // Each reads the value and writes it plus one: a lost update would leave fewer than 20.
    await Promise.all(
      Array.from({ length: 20 }, () =>
        db.transaction().execute(async (trx) => {
          const { value } = await trx
            .selectFrom('settings')
            .select('value')
            .where('key', '=', 'counter')
            .executeTakeFirstOrThrow();
          await trx
            .updateTable('settings')
            .set({ value: String(Number(value) + 1) })
            .where('key', '=', 'counter')
            .execute();
        }),
      ),
    );
    const { value } = await db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', 'counter')
      .executeTakeFirstOrThrow();
    assert.equal(value, '20');
  });

  it('fails to open with one line naming the server and the cause, never the password', async () => {
    const url = await freshPostgresDatabase();
    const wrong = url.replace(/:([^:@/]+)@/, ':not-the-password@');
    await assert.rejects(openStorage({ path: wrong }), (error: Error) => {
      assert.match(
        error.message,
        /^cannot open the PostgreSQL database postgres:\/\/pmn:\*\*\*@127\.0\.0\.1:\d+\/\w+: /,
      );
      assert.match(error.message, /password authentication failed .*\(SQLSTATE 28P01\)/);
      assert.ok(!error.message.includes('not-the-password') && !error.message.includes('\n'));
      return true;
    });
    const missing = url.replace(/\/\w+$/, '/no_such_database');
    await assert.rejects(
      openStorage({ path: missing }),
      /database "no_such_database" does not exist \(SQLSTATE 3D000\)/,
    );
  });
});
