import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Migrator, sql } from 'kysely';
import { migrateToLatest, openSqliteDatabase } from '../../src/storage/database.ts';
import { migrationProvider } from '../../src/storage/migrations/index.ts';

/**
 * Migration 0011 (network.md section 4): a database written before key material was redacted keeps no
 * KgNB or NH once migrated (at start, or on restore of an old backup): its NGAP radio events and radio
 * logs are zeroed in place, length kept, `details.redacted` says so, and the file holds the key in no
 * byte afterwards, free space included.
 */

const ICS_REQUEST = Buffer.from(
  '000e008090000008000a00020001005500020001001c00070000f110020040000000020001007700091c000e00000000' +
    '0000005e00209681ca9f1b63472d1f4b0fa3c56458ce6c4fa9e83110b670b90d5ac28197121d002240088665070400ff' +
    'ff010026402f2e7e02c8566953017e0042010177000bf200f110020040c000058054074000f11000000115020101210201005e0192',
  'hex',
);
const KGNB = Buffer.from('9681ca9f1b63472d1f4b0fa3c56458ce6c4fa9e83110b670b90d5ac28197121d', 'hex');
const AUTHENTICATION_REQUEST = Buffer.from('00044018000003000a0002000100550002000100260005047e005b01', 'hex');

describe('migration 0011: key material recorded before redaction', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pmn-key-material-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('zeroes the KgNB of stored radio events and radio logs; the file keeps it nowhere', async () => {
    const path = join(dir, 'core.db');
    const db = openSqliteDatabase(path);
    const migrated = await new Migrator({ db, provider: migrationProvider }).migrateTo(
      '0010-profile-ue-ipv6-pool',
    );
    assert.equal(migrated.error, undefined);
    const now = Date.now();
    for (let i = 0; i < 1500; i++) {
      await sql`INSERT INTO radio_events (timestamp, protocol, message_type, direction, raw, details)
        VALUES (${now}, 'NGAP', 'InitialContextSetupRequest', 'outbound', ${ICS_REQUEST},
          ${JSON.stringify({ radio: 'gnb-1', amf_ue_ngap_id: i })})`.execute(db);
    }
    await sql`INSERT INTO radio_events (timestamp, protocol, message_type, direction, raw, details)
      VALUES (${now}, 'NGAP', 'InitialContextSetupRequest', 'outbound', ${ICS_REQUEST}, 'not json')`.execute(
      db,
    );
    await sql`INSERT INTO radio_events (timestamp, protocol, message_type, direction, raw, details)
      VALUES (${now}, 'NGAP', 'DownlinkNASTransport', 'outbound', ${AUTHENTICATION_REQUEST}, '{}')`.execute(
      db,
    );
    await sql`INSERT INTO radio_logs (timestamp, level, ran_id, event, direction, raw, details)
      VALUES (${now}, 'info', '001:01:000001', 'NG Setup Request', 'outbound', ${ICS_REQUEST}, '{"radio":"gnb-1"}')`.execute(
      db,
    );

    assert.ok((await migrateToLatest(db)).includes('0011-redact-key-material'));

    const events = await sql<{ raw: Uint8Array; details: string; message_type: string }>`
      SELECT raw, details, message_type FROM radio_events ORDER BY id`.execute(db);
    assert.equal(events.rows.length, 1502);
    for (const [i, row] of events.rows.entries()) {
      assert.equal(
        row.raw.length,
        row.message_type === 'DownlinkNASTransport' ? AUTHENTICATION_REQUEST.length : ICS_REQUEST.length,
      );
      assert.equal(Buffer.from(row.raw).includes(KGNB), false, `event ${i}`);
    }
    assert.deepEqual(JSON.parse(events.rows[0]!.details), {
      radio: 'gnb-1',
      amf_ue_ngap_id: 0,
      redacted: ['SecurityKey'],
    });
    assert.deepEqual(JSON.parse(events.rows[1500]!.details), { redacted: ['SecurityKey'] });
    assert.deepEqual(
      JSON.parse(events.rows[1501]!.details),
      {},
      'a PDU without key material is left as it was',
    );
    assert.deepEqual(Buffer.from(events.rows[1501]!.raw), AUTHENTICATION_REQUEST);
    const logs = await sql<{ raw: Uint8Array; details: string }>`SELECT raw, details FROM radio_logs`.execute(
      db,
    );
    assert.equal(Buffer.from(logs.rows[0]!.raw).includes(KGNB), false);
    assert.deepEqual(JSON.parse(logs.rows[0]!.details), { radio: 'gnb-1', redacted: ['SecurityKey'] });
    const secureDelete = await sql<{ secure_delete: number }>`PRAGMA secure_delete`.execute(db);
    assert.equal(secureDelete.rows[0]?.secure_delete, 0, 'the connection setting is restored');

    await db.destroy();
    for (const file of [path, `${path}-wal`])
      if (existsSync(file)) assert.equal(readFileSync(file).includes(KGNB), false, `the KgNB is in ${file}`);
  });
});
