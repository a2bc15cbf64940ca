import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { isUniqueViolation } from '../../src/storage/constraint-errors.ts';
import { openStorage } from '../../src/storage/storage.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';
import { migrationsFrom, undoMigrationsFrom } from '../helpers/migration-undo.ts';

/**
 * Migration 0014 on the dialect of the run (SQLite, or PostgreSQL with PMN_TEST_DB=postgres): a database
 * that already has subscribers gets the nullable `msisdn` column, none of them has one, and the unique
 * index keeps two from sharing a number while any number of them have none.
 */
describe('migration 0014: subscribers get a nullable, unique msisdn', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-msisdn-migration-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('migrates a database with subscribers: none has an MSISDN, two cannot share one', async () => {
    const path = onPostgres ? await freshPostgresDatabase() : join(dir, 'core.db');
    // A database as migration 0013 left it: the migrated one, with 0014 and the later ones undone.
    const before = await openStorage({ path, poolSize: 1 });
    try {
      for (const statement of await undoMigrationsFrom('0014')) await sql.raw(statement).execute(before.db);
      await sql`INSERT INTO profiles (name, ue_ip_pool, dns, mtu, bitrate_uplink, bitrate_downlink, var5qi,
        priority_level) VALUES ('p', '10.45.0.0/16', '8.8.8.8', 1400, '100 Mbps', '100 Mbps', 9, 90)`.execute(
        before.db,
      );
      for (const imsi of ['001010000000001', '001010000000002', '001010000000003']) {
        await sql`INSERT INTO subscribers (imsi, profile_id, key_sealed, opc_sealed, sequence_number, created_at)
          SELECT ${imsi}, id, 'k', 'o', '000000000001', 1 FROM profiles WHERE name = 'p'`.execute(before.db);
      }
    } finally {
      await before.close();
    }

    const storage = await openStorage({ path, poolSize: 1 });
    try {
      assert.deepEqual(storage.migrationsApplied, await migrationsFrom('0014'));
      assert.equal(storage.migrationsApplied[0], '0014-subscriber-msisdn');
      const { db } = storage;
      const rows = await db.selectFrom('subscribers').select('msisdn').execute();
      assert.deepEqual(
        rows.map((row) => row.msisdn),
        [null, null, null],
      );
      const give = (imsi: string) =>
        db.updateTable('subscribers').set({ msisdn: '15551234567' }).where('imsi', '=', imsi).execute();
      await give('001010000000001');
      await assert.rejects(give('001010000000002'), (error) => isUniqueViolation(error));
    } finally {
      await storage.close();
    }
  });
});
