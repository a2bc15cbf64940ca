import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import { createUeContextStore } from '../../src/storage/network-ports/ue-context-store.ts';
import { openStorage, type Storage } from '../../src/storage/storage.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';
import {
  own,
  ueContextRecord,
  ueContextStoreContract,
} from '../network/working-state/ue-context-store.contract.ts';

/**
 * The SQL UE context store (migration 0019) against the port's contract, on the run's database
 * (PostgreSQL with PMN_TEST_DB=postgres, else SQLite), each case on a fresh database.
 */
const opened: Storage[] = [];
const secretBox = createSecretBox(randomBytes(32));
const open = async (): Promise<Storage> => {
  const storage = await openStorage({ path: onPostgres ? await freshPostgresDatabase() : ':memory:' });
  opened.push(storage);
  return storage;
};
after(async () => {
  for (const storage of opened) await storage.close();
});

ueContextStoreContract(onPostgres ? 'PostgreSQL' : 'SQLite', async () =>
  createUeContextStore({ db: (await open()).db, secretBox }),
);

describe(`UE contexts in SQL (${onPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('stores KAMF sealed, never in clear, and opens it only with the service key', async () => {
    const { db } = await open();
    const store = createUeContextStore({ db, secretBox });
    const record = ueContextRecord('001010000000001');
    await own(store, record);
    const [row] = await db.selectFrom('ue_contexts').selectAll().execute();
    assert.ok(row);
    const kamf = record.security!.kamf;
    assert.ok(!row.record.includes(kamf) && !row.record.includes('kamf'), 'no KAMF in the JSON');
    assert.ok(row.kamf_sealed !== null && !row.kamf_sealed.includes(kamf));
    assert.equal(secretBox.open(row.kamf_sealed), kamf);
    assert.equal(Number(row.tmsi), record.guti!.tmsi);
    const otherKey = createUeContextStore({ db, secretBox: createSecretBox(randomBytes(32)) });
    await assert.rejects(otherKey.get('001010000000001'), /sealed value is corrupt/);
  });

  it('keeps a record without a security context, and a 5G-TMSI above 2^31', async () => {
    const store = createUeContextStore({ db: (await open()).db, secretBox });
    const record = ueContextRecord('001010000000001', {
      security: null,
      guti: { mcc: '001', mnc: '01', amfRegionId: 1, amfSetId: 1, amfPointer: 0, tmsi: 0xffff_fffe },
    });
    await own(store, record);
    assert.deepEqual(await store.findByGuti(record.guti!), record);
  });

  const grouped = onPostgres ? { skip: 'SQLite: the writes of one turn share a transaction' } : {};
  it(
    'a write that fails midway takes back only its own statements; the writes beside it stay',
    grouped,
    async () => {
      const store = createUeContextStore({ db: (await open()).db, secretBox });
      const guti = { mcc: '001', mnc: '01', amfRegionId: 1, amfSetId: 1, amfPointer: 0, tmsi: 7 };
      await own(store, ueContextRecord('001010000000001'));
      await own(store, ueContextRecord('001010000000002', { guti }));
      // It frees the 5G-TMSI from the second UE, then its write fails (an owner SQLite cannot bind).
      const broken = ueContextRecord('001010000000001', { guti, owner: {} as unknown as string });
      const [failed, taken] = await Promise.allSettled([
        store.put(broken),
        store.takeOver(ueContextRecord('001010000000003'), 'any'),
      ]);
      assert.equal(failed.status, 'rejected');
      assert.deepEqual(taken, { status: 'fulfilled', value: 1 });
      assert.equal((await store.findByGuti(guti))?.supi, '001010000000002', 'the freed 5G-TMSI came back');
      assert.equal((await store.get('001010000000003'))?.epoch, 1);
    },
  );

  const onFile = onPostgres ? { skip: 'SQLite: a database file reopened' } : {};
  it(
    'outlives the process on an SQLite file: a reopened database reads the record back',
    onFile,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'pmn-ue-contexts-'));
      try {
        const path = join(dir, 'core.db');
        const first = await openStorage({ path });
        await createUeContextStore({ db: first.db, secretBox }).takeOver(
          ueContextRecord('001010000000001'),
          'any',
        );
        await first.close();
        const second = await openStorage({ path });
        const read = await createUeContextStore({ db: second.db, secretBox }).get('001010000000001');
        await second.close();
        assert.deepEqual(read, { ...ueContextRecord('001010000000001'), epoch: 1 });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
