import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, it } from 'node:test';
import { systemClock } from '../../src/clock.ts';
import { createSecretBox } from '../../src/crypto/secret-box.ts';
import type { UeTaken } from '../../src/network/ports/ue-contexts.ts';
import { createAddressLeasesStore } from '../../src/storage/network-ports/address-leases-store.ts';
import { createUeContextStore } from '../../src/storage/network-ports/ue-context-store.ts';
import type { Db } from '../../src/storage/database.ts';
import { openStorage, type Storage } from '../../src/storage/storage.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';
import { until } from '../helpers/until.ts';
import { own, ueContextRecord } from '../network/working-state/ue-context-store.contract.ts';

/**
 * The address leases of a UE handed over with its record's compare-and-set (docs/amf-set.md, "Address
 * hand-over"), on the run's database (PostgreSQL with PMN_TEST_DB=postgres, else SQLite).
 */
const dialect = onPostgres ? 'PostgreSQL' : 'SQLite';
const SUPI = '001010000000001';
const IPV4 = '10.45.0.2';
const IPV6 = '2001:db8:0:1::';
const POOL4 = '10.45.0.0/16';
const POOL6 = '2001:db8::/48';
const secretBox = createSecretBox(randomBytes(32));

const opened: Storage[] = [];
after(async () => {
  for (const storage of opened) await storage.close();
});

/** `processes` storages on one fresh database: on PostgreSQL each its own pool, as member processes. */
async function databases(processes: number): Promise<Db[]> {
  const path = onPostgres ? await freshPostgresDatabase() : ':memory:';
  const first = await openStorage({ path });
  opened.push(first);
  const dbs = [first.db];
  for (let i = 1; i < processes; i++) {
    if (!onPostgres) dbs.push(first.db);
    else {
      const storage = await openStorage({ path });
      opened.push(storage);
      dbs.push(storage.db);
    }
  }
  return dbs;
}

/** `amf-a` live (its lease running), holding the UE's record at epoch 1. */
async function liveOwner(db: Db) {
  await db
    .insertInto('amf_set_members')
    .values({
      name: 'amf-a',
      instance: 'amf-a-1',
      mcc: '001',
      mnc: '01',
      region_id: 1,
      set_id: 1,
      pointer: 0,
      relative_capacity: 255,
      n2_addresses: '[]',
      radios: '[]',
      state: 'serving',
      heartbeat_at: Date.now(),
      lease_expires_at: Date.now() + 3_600_000,
    })
    .execute();
  const store = createUeContextStore({ db, secretBox });
  await own(store, ueContextRecord(SUPI));
  return {
    store,
    leases: createAddressLeasesStore({ db, owner: 'amf-a', clock: systemClock }),
  };
}

const owners = async (db: Db) =>
  Object.fromEntries(
    (await db.selectFrom('address_leases').select(['address', 'owner']).orderBy('address').execute()).map(
      (row) => [row.address, row.owner],
    ),
  );

describe(`Address hand-over with a UE's take-over (${dialect})`, () => {
  it("a take-over from a live member moves the UE's leases with the record, and is heard", async () => {
    const [db] = (await databases(1)) as [Db];
    const a = await liveOwner(db);
    assert.equal(await a.leases.hold('ipv4', POOL4, IPV4, SUPI), true);
    assert.equal(await a.leases.hold('ipv6', POOL6, IPV6, SUPI), true);
    const b = createUeContextStore({ db, secretBox });
    const heard: UeTaken[] = [];
    a.store.onTaken((taken) => heard.push(taken));
    b.onTaken((taken) => heard.push(taken));

    assert.equal(await b.takeOver(ueContextRecord(SUPI, { owner: 'amf-b' }), 1), 2);
    assert.deepEqual(await owners(db), { [IPV4]: 'amf-b', [IPV6]: 'amf-b' }, 'the leases are B now');
    // Each store object is one process: its own take-over is heard by its listeners (the other
    // process hears it by the change notice on PostgreSQL).
    assert.deepEqual(heard, [{ supi: SUPI, epoch: 2, owner: 'amf-b' }]);
    // A, dropping its copy, frees nothing of B's.
    assert.equal(await a.leases.release(IPV4), false);
    const bLeases = createAddressLeasesStore({ db, owner: 'amf-b', clock: systemClock });
    assert.equal(await bLeases.hold('ipv4', POOL4, IPV4, SUPI), true, 'B holds what it was handed');
    assert.deepEqual(await owners(db), { [IPV4]: 'amf-b', [IPV6]: 'amf-b' });
  });

  it('a lease its old owner made for another UE, or without a UE (before migration 0029), stays', async () => {
    const [db] = (await databases(1)) as [Db];
    const a = await liveOwner(db);
    // A released the session's address and leased it to another UE since the record was written.
    assert.equal(await a.leases.hold('ipv4', POOL4, IPV4, '001010000000009'), true);
    assert.equal(await a.leases.hold('ipv6', POOL6, IPV6), true);
    const b = createUeContextStore({ db, secretBox });
    assert.equal(await b.takeOver(ueContextRecord(SUPI, { owner: 'amf-b' }), 1), 2);
    assert.deepEqual(await owners(db), { [IPV4]: 'amf-a', [IPV6]: 'amf-a' });
  });

  it('a take-over of any epoch (a fresh authentication) moves nothing and is not announced', async () => {
    const [db] = (await databases(1)) as [Db];
    const a = await liveOwner(db);
    assert.equal(await a.leases.hold('ipv4', POOL4, IPV4, SUPI), true);
    const b = createUeContextStore({ db, secretBox });
    const heard: UeTaken[] = [];
    b.onTaken((taken) => heard.push(taken));
    assert.equal(await b.takeOver(ueContextRecord(SUPI, { owner: 'amf-b', pduSessions: [] }), 'any'), 2);
    assert.deepEqual(await owners(db), { [IPV4]: 'amf-a' });
    assert.deepEqual(heard, []);
  });

  it('two members taking the UE over at once: the leases follow the winner', async () => {
    const [first, second, third] = (await databases(3)) as [Db, Db, Db];
    const a = await liveOwner(first);
    assert.equal(await a.leases.hold('ipv4', POOL4, IPV4, SUPI), true);
    assert.equal(await a.leases.hold('ipv6', POOL6, IPV6, SUPI), true);
    const b = createUeContextStore({ db: second, secretBox });
    const c = createUeContextStore({ db: third, secretBox });
    const outcomes = await Promise.all([
      b.takeOver(ueContextRecord(SUPI, { owner: 'amf-b' }), 1),
      c.takeOver(ueContextRecord(SUPI, { owner: 'amf-c' }), 1),
    ]);
    assert.deepEqual([...outcomes].sort(), [2, 'fenced'], 'one compare-and-set wins');
    const winner = outcomes[0] === 2 ? 'amf-b' : 'amf-c';
    assert.equal((await a.store.get(SUPI))?.owner, winner);
    assert.deepEqual(await owners(first), { [IPV4]: winner, [IPV6]: winner });
  });

  it(
    'another process on the database hears of the take-over by the change notice',
    { ...(onPostgres ? {} : { skip: 'PostgreSQL: one process on an SQLite file' }) },
    async () => {
      const path = await freshPostgresDatabase();
      const [first, second] = await Promise.all([openStorage({ path }), openStorage({ path })]);
      opened.push(first, second);
      const a = await liveOwner(first.db);
      const aStore = createUeContextStore({ db: first.db, secretBox, notices: first.notices });
      const heard: UeTaken[] = [];
      aStore.onTaken((taken) => heard.push(taken));
      const b = createUeContextStore({ db: second.db, secretBox, notices: second.notices });
      assert.equal(await b.takeOver(ueContextRecord(SUPI, { owner: 'amf-b' }), 1), 2);
      // NOTIFY reaches the listening connection after the commit: waited for, not timed.
      await until('the change notice', () => heard.length > 0);
      assert.deepEqual(heard, [{ supi: SUPI, epoch: 2, owner: 'amf-b' }]);
      assert.equal((await a.store.get(SUPI))?.owner, 'amf-b');
    },
  );

  it('a handed-over lease the new owner does not take up is forgone; one it holds is kept', async () => {
    const [db] = (await databases(1)) as [Db];
    const a = await liveOwner(db);
    assert.equal(await a.leases.hold('ipv4', POOL4, IPV4, SUPI), true);
    assert.equal(await a.leases.hold('ipv6', POOL6, IPV6, SUPI), true);
    const b = createUeContextStore({ db, secretBox });
    assert.equal(await b.takeOver(ueContextRecord(SUPI, { owner: 'amf-b' }), 1), 2);
    const bLeases = createAddressLeasesStore({ db, owner: 'amf-b', clock: systemClock });
    assert.equal(await bLeases.hold('ipv6', POOL6, IPV6, SUPI), true);
    assert.equal(await bLeases.forgo(IPV6, SUPI), false, 'held for the session: kept');
    assert.equal(await a.leases.forgo(IPV4, SUPI), false, "not A's any more");
    assert.equal(await bLeases.forgo(IPV4, SUPI), true);
    assert.deepEqual(await owners(db), { [IPV6]: 'amf-b' });
  });
});
