import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Db } from '../../../src/storage/database.ts';
import type { Storage } from '../../../src/storage/storage.ts';
import { onPostgres } from '../../helpers/postgres-test-database.ts';
import { until } from '../../helpers/until.ts';
import {
  databaseOf,
  establishSession,
  initialStep,
  member,
  openSharedStore,
  serviceRequestWithData,
  types,
} from './amf-set-members.ts';
import { register, settle, step } from './amf-steps.ts';
import { emittedPdus } from './emitted.ts';
import {
  IMSI,
  initialUeMessage,
  TestUe,
  ueContextReleaseComplete,
  ueContextReleaseRequest,
} from './test-ue.ts';

// A UE that reaches another member while its owner is still live keeps its sessions and addresses: the
// leases move with the record's compare-and-set, and the old owner hears of it (docs/amf-set.md,
// "Address hand-over"). On the run's database: SQLite, or PostgreSQL with PMN_TEST_DB=postgres.
const emitted = emittedPdus();
after(() => emitted.check());
const storages: Storage[] = [];
after(async () => {
  for (const storage of storages) await storage.close();
});

/** `name` a live member of the set: serving, its lease running for an hour. */
async function live(db: Db, name: string, pointer: number): Promise<void> {
  await db
    .insertInto('amf_set_members')
    .values({
      name,
      instance: `${name}-1`,
      mcc: '001',
      mnc: '01',
      region_id: 1,
      set_id: 1,
      pointer,
      relative_capacity: 255,
      n2_addresses: '[]',
      radios: '[]',
      state: 'serving',
      heartbeat_at: Date.now(),
      lease_expires_at: Date.now() + 3_600_000,
    })
    .execute();
}

const shared = onPostgres ? 'PostgreSQL' : 'SQLite';

describe(`AMF set: a UE taken over from a live member keeps its sessions and addresses (${shared})`, () => {
  it('B serves its Service Request with the session and its address; A drops its copy and its UPF session', async () => {
    const store = await openSharedStore(shared, storages);
    const db = databaseOf.get(store)!;
    const a = await member(store, 'amf-a', 0);
    const b = await member(store, 'amf-b', 1);
    // A is live: its lease runs (the gNB found its association lost before the set did, or the UE moved).
    await live(db, 'amf-a', 0);
    const ue = new TestUe();
    const { ids, guti } = await register(a.h, a.radio, ue);
    await establishSession(a.h, a.radio, ue, ids);
    const address = a.userPlane.addresses[0];
    assert.ok(address !== undefined, 'core A gave the session an address');
    await step(a.h, a.radio, ue, ueContextReleaseRequest(ids));
    await step(a.h, a.radio, ue, ueContextReleaseComplete(ids));
    await a.h.amf.ueContextsWritten();
    const before = await store.get(IMSI);
    assert.equal(a.userPlane.held(), 1, "the session on A's UPF");

    const back = await initialStep(b.h, b.radio, ue, initialUeMessage(7, serviceRequestWithData(ue, guti)));
    emitted.add(b.radio.received);
    assert.deepEqual(types(back.nas), ['serviceAccept']);
    const accept = back.nas[0]!;
    assert.ok(accept.messageType === 'serviceAccept');
    assert.deepEqual(accept.pduSessionStatus, [1], 'the session is there on B');
    assert.deepEqual(b.userPlane.addresses, [address], "the same address, on B's UPF");
    assert.deepEqual(
      await db.selectFrom('address_leases').select(['address', 'owner', 'supi']).execute(),
      [{ address, owner: 'amf-b', supi: IMSI }],
      "the lease is B's",
    );

    // A heard of the take-over: no context, no session, nothing on its UPF; it wrote nothing.
    await settle(a.h);
    await a.h.amf.ueContextsWritten();
    assert.equal(a.h.amf.counts().ues, 0, 'A dropped its copy');
    assert.deepEqual(a.h.smf?.sessionsOf(IMSI), []);
    assert.equal(a.userPlane.held(), 0, "A's UPF session removed");
    assert.equal(a.h.state.subscriber(IMSI).registered, false);
    const record = await store.get(IMSI);
    assert.equal(record?.owner, 'amf-b');
    assert.equal(record?.epoch, (before?.epoch ?? 0) + 1);
    assert.deepEqual(
      await db.selectFrom('address_leases').select(['address', 'owner']).execute(),
      [{ address, owner: 'amf-b' }],
      "A's clean-up freed nothing of B's",
    );
    await a.h.close();
    await b.h.close();
  });

  it("a session B leaves out (it cannot hold the address) forgoes the lease handed over: it is nobody's", async () => {
    const store = await openSharedStore(shared, storages);
    const db = databaseOf.get(store)!;
    const a = await member(store, 'amf-a', 0);
    // B's hold fails (as for an address no longer in the profile's pool): the session is left out.
    const b = await member(store, 'amf-b', 1, {
      leases: (leases) => ({ ...leases, hold: async () => false, forgo: leases.forgo.bind(leases) }),
    });
    await live(db, 'amf-a', 0);
    const ue = new TestUe();
    const { ids, guti } = await register(a.h, a.radio, ue);
    await establishSession(a.h, a.radio, ue, ids);
    await step(a.h, a.radio, ue, ueContextReleaseRequest(ids));
    await step(a.h, a.radio, ue, ueContextReleaseComplete(ids));
    await a.h.amf.ueContextsWritten();

    const back = await initialStep(b.h, b.radio, ue, initialUeMessage(7, serviceRequestWithData(ue, guti)));
    emitted.add(b.radio.received);
    const accept = back.nas[0];
    assert.ok(accept?.messageType === 'serviceAccept');
    assert.deepEqual(accept.pduSessionStatus, [], 'the UE is told its session is gone');
    await settle(a.h);
    await settle(b.h);
    assert.equal(a.h.amf.counts().ues, 0, 'A dropped its copy');
    // The SMF ends the lease without holding the Accept back: its statement is waited for, not timed.
    const leases = () => db.selectFrom('address_leases').select(['address', 'owner']).execute();
    await until('no lease left to no session', async () => (await leases()).length === 0);
    assert.deepEqual(await leases(), [], 'no lease left to no session');
    await a.h.close();
    await b.h.close();
  });
});
