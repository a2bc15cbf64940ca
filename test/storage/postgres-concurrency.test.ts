import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createAuthenticationData } from '../../src/storage/network-ports/authentication-data.ts';
import { openStorage, type Storage } from '../../src/storage/storage.ts';
import { postgresBinDir } from '../helpers/postgres-cluster.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';

// On PostgreSQL runs only (npm run test:postgres, or PMN_TEST_DB=postgres for one file), which start a cluster.
const skip = !onPostgres
  ? 'a PostgreSQL test: npm run test:postgres'
  : !postgresBinDir() && !process.env.PMN_TEST_POSTGRES_URL && 'no PostgreSQL server installed';
const IMSI = '001010000000042';

/**
 * Two storages on one database stand for two processes: each has its own pool of connections, so the
 * generations of one never wait for the other's in memory; only the database orders them.
 */
describe('SQN generation from several connections and pools on PostgreSQL', { skip }, () => {
  const secretBox = createSecretBox(randomBytes(32));
  let storages: Storage[] = [];
  before(async () => {
    const url = await freshPostgresDatabase();
    storages = [await openStorage({ path: url, poolSize: 4 }), await openStorage({ path: url, poolSize: 4 })];
    const { db } = storages[0]!;
    const { id } = await db
      .insertInto('profiles')
      .values({
        name: 'p',
        ue_ip_pool: '10.45.0.0/16',
        dns: '8.8.8.8',
        mtu: 1400,
        bitrate_uplink: '100 Mbps',
        bitrate_downlink: '100 Mbps',
        var5qi: 9,
        priority_level: 90,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('subscribers')
      .values({
        imsi: IMSI,
        profile_id: id,
        key_sealed: secretBox.seal('465b5ce8b199b49faa5f0a2ee238a6bc'),
        opc_sealed: secretBox.seal('cd63cb71954a9f4e48a5994e37a02baf'),
        sequence_number: '000000000020',
        created_at: 1,
      })
      .execute();
  });
  after(async () => {
    for (const storage of storages) await storage.close();
  });

  it('never hands one SQN out twice under 200 concurrent generations, and stores the last', async () => {
    const ports = storages.map(({ db }) =>
      createAuthenticationData({
        db,
        secretBox,
        subscribers: { updateSequenceNumber: () => Promise.resolve(true) },
      }),
    );
    const generated = await Promise.all(
      Array.from({ length: 200 }, (_, i) => ports[i % 2]!.generateAuthenticationData(IMSI)),
    );
    const sqns = generated.map((data) => BigInt(`0x${data?.sqn.toString('hex')}`));
    assert.equal(new Set(sqns).size, 200);
    const highest = sqns.reduce((a, b) => (a > b ? a : b));
    const stored = await storages[1]!.db
      .selectFrom('subscribers')
      .select('sequence_number')
      .where('imsi', '=', IMSI)
      .executeTakeFirstOrThrow();
    assert.equal(BigInt(`0x${stored.sequence_number}`), highest);
  });
});
