import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createSubscriptionData } from '../../src/storage/network-ports/subscription-data.ts';
import { createUeContextStore } from '../../src/storage/network-ports/ue-context-store.ts';
import { openStorage, type Storage } from '../../src/storage/storage.ts';
import { postgresBinDir } from '../helpers/postgres-cluster.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';
import { ueContextRecord } from '../network/working-state/ue-context-store.contract.ts';

// On PostgreSQL runs only (npm run test:postgres, or PMN_TEST_DB=postgres for one file), which start a cluster.
const skip = !onPostgres
  ? 'a PostgreSQL test: npm run test:postgres'
  : !postgresBinDir() && !process.env.PMN_TEST_POSTGRES_URL && 'no PostgreSQL server installed';

const imsi = (n: number): string => `00101${String(n).padStart(10, '0')}`;
const guti = (tmsi: number) => ({ mcc: '001', mnc: '01', amfRegionId: 1, amfSetId: 1, amfPointer: 0, tmsi });

/**
 * The registration path's round trips on PostgreSQL (docs/postgresql.md, "A registration's statements"):
 * what many registrations ask for in one turn of the event loop goes to the database together, and each
 * still gets its own answer.
 */
describe('a registration burst on PostgreSQL: one round trip a turn', { skip }, () => {
  const secretBox = createSecretBox(randomBytes(32));
  let storage: Storage;
  const statements: string[] = [];
  before(async () => {
    storage = await openStorage({
      path: await freshPostgresDatabase(),
      log: (event) => {
        if (event.level === 'query') statements.push(event.query.sql);
      },
    });
    const { db } = storage;
    const profile = async (name: string) =>
      (
        await db
          .insertInto('profiles')
          .values({
            name,
            ue_ip_pool: '10.45.0.0/16',
            dns: '8.8.8.8',
            mtu: 1400,
            bitrate_uplink: '100 Mbps',
            bitrate_downlink: '200 Mbps',
            var5qi: 9,
            priority_level: 90,
          })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    const withPolicy = await profile('with-policy');
    const without = await profile('without');
    const { id: dataNetwork } = await db
      .insertInto('data_networks')
      .values({ name: 'internet' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('policies')
      .values({
        name: 'p1',
        profile_id: withPolicy,
        data_network_id: dataNetwork,
        slice_id: null,
        bitrate_uplink: '10 Mbps',
        bitrate_downlink: '20 Mbps',
        var5qi: 7,
        arp: 3,
      })
      .execute();
    await db
      .insertInto('subscribers')
      .values(
        [1, 2].map((n) => ({
          imsi: imsi(n),
          profile_id: n === 1 ? withPolicy : without,
          key_sealed: 'k',
          opc_sealed: 'o',
          sequence_number: '000000000001',
          created_at: 1,
        })),
      )
      .execute();
  });
  after(() => storage.close());

  it('reads the subscription data asked for in one turn in one statement, each its own', async () => {
    const port = createSubscriptionData({ db: storage.db });
    const alone = [await port.getSubscriptionData(imsi(1)), await port.getSubscriptionData(imsi(2))];
    assert.equal(alone[0]?.authorisedSessions.length, 1);
    assert.equal(alone[1]?.authorisedSessions.length, 0);
    statements.length = 0;
    const together = await Promise.all([
      port.getSubscriptionData(imsi(2)),
      port.getSubscriptionData(imsi(3)),
      port.getSubscriptionData(imsi(1)),
      port.getSubscriptionData(imsi(2)),
    ]);
    assert.equal(statements.length, 1, statements.join('\n'));
    assert.deepEqual(together, [alone[1], undefined, alone[0], alone[1]]);
  });

  /** The transaction that last wrote each UE's row. */
  const writers = async (supis: string[]): Promise<string[]> =>
    (
      await sql<{ xmin: string }>`select xmin::text from ue_contexts where supi = any(${supis}::text[])
        order by supi`.execute(storage.db)
    ).rows.map((row) => row.xmin);

  it('commits the UE context writes of one turn together, each with its own outcome', async () => {
    const store = createUeContextStore({ db: storage.db, secretBox });
    const supis = [10, 11, 12].map(imsi);
    const records = supis.map((supi, i) => ueContextRecord(supi, { guti: guti(100 + i) }));
    assert.deepEqual(await Promise.all(records.map((record) => store.takeOver(record, 'any'))), [1, 1, 1]);
    assert.equal(new Set(await writers(supis)).size, 1, 'one transaction for the turn');
    // A newer epoch of the third UE elsewhere: its write is fenced, the others stored, in one transaction.
    await sql`update ue_contexts set epoch = 5 where supi = ${supis[2]}`.execute(storage.db);
    const again = records.map((record) => ({ ...record, registered: false }));
    assert.deepEqual(await Promise.all(again.map((record) => store.put(record))), [
      'stored',
      'stored',
      'fenced',
    ]);
    const [first, second] = await writers(supis.slice(0, 2));
    assert.equal(first, second);
    assert.equal((await store.get(supis[0]!))?.registered, false);
    assert.equal((await store.get(supis[2]!))?.registered, true);
    assert.deepEqual(
      await Promise.all([store.delete(supis[0]!, 1), store.delete(supis[2]!, 1), store.delete(imsi(99), 1)]),
      ['stored', 'fenced', 'stored'],
    );
    assert.equal(await store.get(supis[0]!), undefined);
    assert.ok(await store.get(supis[2]!));
  });

  it("a write in a turn's group that takes another UE's 5G-TMSI frees it; the group's other writes stand", async () => {
    const store = createUeContextStore({ db: storage.db, secretBox });
    const [a, b, c] = [20, 21, 22].map(imsi) as [string, string, string];
    await Promise.all([
      store.takeOver(ueContextRecord(a, { guti: guti(200) }), 'any'),
      store.takeOver(ueContextRecord(b, { guti: guti(201) }), 'any'),
    ]);
    // b takes a's 5G-TMSI (a unique violation in the group's transaction) beside c's first write.
    const outcomes = await Promise.all([
      store.put(ueContextRecord(b, { guti: guti(200) })),
      store.takeOver(ueContextRecord(c, { guti: guti(202) }), 'any'),
    ]);
    assert.deepEqual(outcomes, ['stored', 1]);
    assert.equal((await store.findByGuti(guti(200)))?.supi, b);
    const { rows } = await sql<{
      tmsi: string | null;
    }>`select tmsi from ue_contexts where supi = ${a}`.execute(storage.db);
    assert.deepEqual(rows, [{ tmsi: null }], "a's row no longer holds the 5G-TMSI");
    assert.equal((await store.findByGuti(guti(202)))?.supi, c);
  });
});
