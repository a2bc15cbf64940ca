import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createRadioEventsRepository } from '../../src/resources/radio-events/radio-events.repository.ts';
import { openStorage } from '../../src/storage/storage.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';
import { migrationsFrom, undoMigrationsFrom } from '../helpers/migration-undo.ts';

/**
 * Migration 0022 on the dialect of the run: radio events stored before it get their radio's name from
 * their details into the `radio` column, so the filter by radio (now on that column) still finds them.
 */
describe('migration 0022: radio events keep their radio in a column', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-radio-column-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('fills the column from the details of events stored before, and the filter by radio finds them', async () => {
    const path = onPostgres ? await freshPostgresDatabase() : join(dir, 'core.db');
    const before = await openStorage({ path, poolSize: 1 });
    try {
      for (const statement of await undoMigrationsFrom('0022')) await sql.raw(statement).execute(before.db);
      for (const [at, details] of [
        [1, '{"radio":"gnb-a","ran_ue_ngap_id":1}'],
        [2, '{"radio":"gnb-b"}'],
        [3, '{}'],
        [4, '{"radio":"gnb-a"}'],
      ] as const) {
        await sql`insert into radio_events (timestamp, protocol, message_type, direction, raw, details)
          values (${at}, 'NGAP', 'NGSetupRequest', 'inbound', ${Buffer.of(0)}, ${details})`.execute(
          before.db,
        );
      }
    } finally {
      await before.close();
    }

    const storage = await openStorage({ path, poolSize: 1 });
    try {
      assert.deepEqual(storage.migrationsApplied, await migrationsFrom('0022'));
      const rows = await storage.db
        .selectFrom('radio_events')
        .select(['timestamp', 'radio'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rows.map((row) => [Number(row.timestamp), row.radio]),
        [
          [1, 'gnb-a'],
          [2, 'gnb-b'],
          [3, null],
          [4, 'gnb-a'],
        ],
      );
      const events = await createRadioEventsRepository(storage.db).list({ radio: 'gnb-a' }, 10, 0);
      assert.deepEqual(
        events.map((event) => event.timestamp),
        [4, 1],
      );
    } finally {
      await storage.close();
    }
  });
});
