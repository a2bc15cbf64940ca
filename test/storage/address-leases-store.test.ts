import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { systemClock } from '../../src/clock.ts';
import { createAddressLeasesStore } from '../../src/storage/network-ports/address-leases-store.ts';
import { openStorage, type Storage } from '../../src/storage/storage.ts';
import { freshPostgresDatabase, onPostgres } from '../helpers/postgres-test-database.ts';
import { createTestApp, manualClock } from '../helpers/test-app.ts';
import { addressLeasesContract } from '../network/working-state/address-leases.contract.ts';

/**
 * The SQL address leases (migration 0023) against the port's contract, on the run's database
 * (PostgreSQL with PMN_TEST_DB=postgres, else SQLite), each case on a fresh database.
 */
const opened: Storage[] = [];
const open = async (): Promise<Storage> => {
  const storage = await openStorage({ path: onPostgres ? await freshPostgresDatabase() : ':memory:' });
  opened.push(storage);
  return storage;
};
after(async () => {
  for (const storage of opened) await storage.close();
});

addressLeasesContract(onPostgres ? 'PostgreSQL' : 'SQLite', async () =>
  createAddressLeasesStore({ db: (await open()).db, owner: 'amf-a', clock: { now: () => Date.now() } }),
);

/** A member row of the set: live (`serving`, its lease running at `now`) or not. */
const member = (name: string, state: 'serving' | 'gone', leaseExpiresAt: number) => ({
  name,
  instance: `${name}-1`,
  mcc: '001',
  mnc: '01',
  region_id: 1,
  set_id: 1,
  pointer: name === 'amf-a' ? 0 : 1,
  relative_capacity: 255,
  n2_addresses: '[]',
  radios: '[]',
  state,
  heartbeat_at: 0,
  lease_expires_at: leaseExpiresAt,
});

describe(`Address leases shared by an AMF set (${onPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it(
    'two members leasing from one small pool at once never lease one address twice',
    {
      ...(onPostgres ? {} : { skip: 'PostgreSQL: two pools of connections on one database' }),
    },
    async () => {
      // Two members, each its own storage (its own pool of connections) on one database.
      const url = await freshPostgresDatabase();
      const members = await Promise.all(
        ['amf-a', 'amf-b'].map(async (owner) => {
          const storage = await openStorage({ path: url });
          opened.push(storage);
          return createAddressLeasesStore({ db: storage.db, owner, clock: systemClock });
        }),
      );
      // A /27: 30 addresses for 48 leases asked at once, 24 by each member.
      const asked = members.flatMap((leases) =>
        Array.from({ length: 24 }, () => leases.lease('ipv4', '10.60.0.0/27')),
      );
      const got = await Promise.all(asked);
      const addresses = got.flatMap((g) => (g.ok ? [g.address] : []));
      assert.equal(new Set(addresses).size, addresses.length, 'an address leased twice');
      assert.equal(addresses.length, 30, 'every address of the pool leased');
      assert.equal(got.filter((g) => !g.ok && g.error === 'exhausted').length, 18);
      assert.equal(members[0]!.held + members[1]!.held, 30);
    },
  );

  it('hold takes a lease only from a member that is not live; the old owner then frees nothing', async () => {
    const clock = manualClock(1_000_000);
    const { db } = await open();
    const a = createAddressLeasesStore({ db, owner: 'amf-a', clock });
    const b = createAddressLeasesStore({ db, owner: 'amf-b', clock });
    await db
      .insertInto('amf_set_members')
      .values(member('amf-a', 'serving', 1_030_000))
      .execute();
    assert.deepEqual(await a.lease('ipv4', '10.61.0.0/29'), { ok: true, address: '10.61.0.1' });
    assert.equal(await b.hold('ipv4', '10.61.0.0/29', '10.61.0.1'), false, 'amf-a is live');
    // amf-a's member lease runs out (it died): its UE's session moves to amf-b with its address.
    clock.advance(30_000);
    assert.equal(await b.hold('ipv4', '10.61.0.0/29', '10.61.0.1'), true);
    assert.equal(await b.hold('ipv4', '10.61.0.0/29', '10.61.0.1'), false, 'amf-b holds it already');
    assert.equal(await a.release('10.61.0.1'), false, 'amf-a, back from a pause, frees nothing');
    assert.deepEqual(await a.lease('ipv4', '10.61.0.0/29'), { ok: true, address: '10.61.0.2' });
    // A member row that says it stopped is not live whatever its lease.
    await db.updateTable('amf_set_members').set({ state: 'gone', lease_expires_at: 9e12 }).execute();
    assert.equal(await b.hold('ipv4', '10.61.0.0/29', '10.61.0.2'), true);
    assert.equal(await b.release('10.61.0.1'), true);
    assert.equal(b.held, 1);
  });

  it("a member's lease finds an address another member released below its cursor", async () => {
    const { db } = await open();
    const a = createAddressLeasesStore({ db, owner: 'amf-a', clock: systemClock });
    const b = createAddressLeasesStore({ db, owner: 'amf-b', clock: systemClock });
    assert.deepEqual(await b.lease('ipv4', '10.64.0.0/29'), { ok: true, address: '10.64.0.1' });
    const got = [];
    for (let i = 0; i < 5; i++) got.push(await a.lease('ipv4', '10.64.0.0/29'));
    assert.deepEqual(
      got.map((g) => (g.ok ? g.address : g.error)),
      ['10.64.0.2', '10.64.0.3', '10.64.0.4', '10.64.0.5', '10.64.0.6'],
    );
    assert.equal(await b.release('10.64.0.1'), true);
    assert.deepEqual(await a.lease('ipv4', '10.64.0.0/29'), { ok: true, address: '10.64.0.1' });
    assert.deepEqual(await a.lease('ipv4', '10.64.0.0/29'), { ok: false, error: 'exhausted' });
  });

  it("a restarted member holds its previous run's leases, which lease passes over", async () => {
    const clock = manualClock(2_000_000);
    const { db } = await open();
    // The restarted member is serving again: its own lease is no dead member's.
    await db
      .insertInto('amf_set_members')
      .values(member('amf-a', 'serving', 2_030_000))
      .execute();
    const before = createAddressLeasesStore({ db, owner: 'amf-a', clock });
    assert.deepEqual(await before.lease('ipv6', '2001:db8:0:8::/62'), {
      ok: true,
      address: '2001:db8:0:8::',
    });
    // In the same millisecond: what tells its previous run is that this process did not lease it.
    const after = createAddressLeasesStore({ db, owner: 'amf-a', clock });
    // Its UE's session is restored from the shared UE context with its prefix; a new session gets another.
    assert.deepEqual(await after.lease('ipv6', '2001:db8:0:8::/62'), { ok: true, address: '2001:db8:0:9::' });
    assert.equal(await after.hold('ipv6', '2001:db8:0:8::/62', '2001:db8:0:8::'), true);
    assert.equal(await after.hold('ipv6', '2001:db8:0:8::/62', '2001:db8:0:8::'), false);
    assert.equal(after.held, 2);
  });
});

describe(`The core's address leases (${onPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('are in the database where an AMF set may run (PostgreSQL), in memory on SQLite', async () => {
    const t = await createTestApp();
    try {
      const leases = t.core.ports.addressLeases('pmn-amf');
      assert.deepEqual(await leases.lease('ipv4', '10.62.0.0/24'), { ok: true, address: '10.62.0.1' });
      const rows = await t.core.db.selectFrom('address_leases').select(['address', 'owner']).execute();
      assert.deepEqual(rows, onPostgres ? [{ address: '10.62.0.1', owner: 'pmn-amf' }] : []);
    } finally {
      await t.close();
    }
  });
});
