import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { DEFAULT_AMF_IDENTITY } from '../../../src/network/amf/context/amf-identity.ts';
import {
  createAmfSetMembership,
  type AmfSetMembership,
} from '../../../src/network/amf/set/amf-set-membership.ts';
import { watchDatabaseCut } from '../../../src/network/amf/set/database-cut.ts';
import { transition, type MembershipState } from '../../../src/network/amf/set/membership-state.ts';
import type { AmfSetMembersStore } from '../../../src/network/ports/amf-set-members.ts';
import type { UeContextStore } from '../../../src/network/ports/ue-contexts.ts';
import { createAmfSetMembersStore } from '../../../src/storage/network-ports/amf-set-members.ts';
import { openStorage, type Storage } from '../../../src/storage/storage.ts';
import { ieValue } from '../../helpers/ie-value.ts';
import { onPostgres } from '../../helpers/postgres-test-database.ts';
import { until } from '../../helpers/until.ts';
import { manualClock } from '../../helpers/test-app.ts';
import {
  databaseOf,
  establishSession,
  initialStep,
  member as amfMember,
  openSharedStore,
  types,
} from './amf-set-members.ts';
import { answered, namesOf, register, serviceRequestPdu, settle, step } from './amf-steps.ts';
import { emittedPdus } from './emitted.ts';
import { buildInitialContextSetupResponse } from '../../../src/network/ngap/generated/messages.ts';
import { amfUeNgapIdOf, IMSI, initialUeMessage, TestUe, ueContextReleaseComplete } from './test-ue.ts';

const emitted = emittedPdus();
after(() => emitted.check());
const storages: Storage[] = [];
after(async () => {
  for (const storage of storages) await storage.close();
});

const TIMING = { heartbeatMs: 5_000, leaseMs: 15_000 };
type Time = ReturnType<typeof manualClock>;

/**
 * The members' store as one member reaches it: `cut` makes every call fail (the database refuses or the
 * path to it is down), `hang` makes every call wait until `heal` (packets dropped: no answer at all).
 */
function reach(store: AmfSetMembersStore) {
  let mode: 'up' | 'cut' | 'hang' = 'up';
  let waiting: (() => void)[] = [];
  const gate = async (): Promise<void> => {
    if (mode === 'cut') throw new Error('connection refused');
    if (mode === 'hang') await new Promise<void>((resolve) => waiting.push(resolve));
  };
  let writes = 0;
  return {
    store: {
      async write(member, blocker) {
        await gate();
        writes++;
        return store.write(member, blocker);
      },
      async list() {
        await gate();
        return store.list();
      },
    } satisfies AmfSetMembersStore,
    cut: () => void (mode = 'cut'),
    hang: () => void (mode = 'hang'),
    heal(): void {
      mode = 'up';
      for (const resolve of waiting) resolve();
      waiting = [];
    },
    writes: () => writes,
  };
}

function member(
  store: AmfSetMembersStore,
  name: string,
  pointer: number,
  time: Time,
  setId = 60,
): AmfSetMembership {
  return createAmfSetMembership({
    store,
    identity: { ...DEFAULT_AMF_IDENTITY, name, setId, pointer },
    n2Addresses: ['127.0.0.1'],
    plmn: () => Promise.resolve({ mcc: '001', mnc: '01' }),
    clock: time,
    timers: time,
    logger: pino({ level: 'silent' }),
    timing: TIMING,
  });
}

/** Moves `time` one heartbeat on and waits for that heartbeat to end (written or not). */
async function beat(m: AmfSetMembership, time: Time): Promise<void> {
  time.advance(TIMING.heartbeatMs);
  await m.settled();
}

const names = (m: AmfSetMembership): string[] => m.members().map((x) => x.name);

describe('the AMF set membership states (docs/decisions.md 15: database loss -> stop serving)', () => {
  const stopped: MembershipState = { kind: 'stopped' };
  const member_: MembershipState = { kind: 'member', leaseExpiresAt: 1 };
  const cutOff: MembershipState = { kind: 'cut-off', since: 1 };
  const lost: MembershipState = { kind: 'lost', why: 'replaced' };

  it('allows a member to be cut off, to come back from it, and to be lost from either', () => {
    assert.equal(transition(stopped, member_), member_);
    assert.equal(transition(member_, cutOff), cutOff);
    assert.equal(transition(cutOff, member_), member_);
    assert.equal(transition(cutOff, lost), lost);
    assert.equal(transition(member_, lost), lost);
    assert.equal(transition(lost, stopped), stopped);
  });

  it('refuses the transitions it does not list: a lost member never serves again, nor is a stopped one cut off', () => {
    assert.throws(() => transition(lost, member_), /no transition from lost to member/);
    assert.throws(() => transition(lost, cutOff), /no transition from lost to cut-off/);
    assert.throws(() => transition(stopped, cutOff), /no transition from stopped to cut-off/);
    assert.throws(() => transition(stopped, lost), /no transition from stopped to lost/);
  });
});

describe('a member cut off from the database (TS 23.501 5.21.2.3; injected time)', () => {
  let storage: Storage;
  let shared: AmfSetMembersStore;
  before(async () => {
    storage = await openStorage({ path: ':memory:' });
    shared = createAmfSetMembersStore({ db: storage.db });
  });
  after(() => storage.close());

  it('stops serving when its lease runs out with no heartbeat written, and serves again once one is', async () => {
    const [ta, tb] = [manualClock(), manualClock()];
    const path = reach(shared);
    const a = member(path.store, 'cut-a', 1, ta);
    const b = member(shared, 'cut-b', 2, tb);
    await a.start();
    await b.start();
    await beat(a, ta);
    assert.deepEqual(names(a), ['cut-a', 'cut-b']);
    let heard = 0;
    a.subscribe(() => heard++);

    path.cut();
    // Two heartbeats fail: still inside the lease written at 5 s (until 20 s), it still serves.
    await beat(a, ta);
    await beat(a, ta);
    assert.equal(a.status(), 'member');
    assert.deepEqual(names(a), ['cut-a', 'cut-b']);
    await beat(a, ta);
    assert.equal(a.status(), 'cut-off', 'its lease ran out on its own clock');
    assert.deepEqual(a.members(), [], 'it serves nothing');
    assert.equal(heard, 1, 'its listeners heard it');
    // Its peer counts it gone at the same lease end, on its own clock.
    tb.advance(20_000);
    await b.settled();
    assert.deepEqual(names(b), ['cut-b']);

    // The database answers: the next heartbeat finds its pointer free and it serves again.
    path.heal();
    await beat(a, ta);
    assert.equal(a.status(), 'member');
    assert.deepEqual(names(a), ['cut-a', 'cut-b']);
    assert.equal(heard, 2);
    await a.stop();
    await b.stop();
  });

  it('is cut off at its lease end while its writes get no answer at all, and joins again once they do', async () => {
    const ta = manualClock();
    const path = reach(shared);
    const a = member(path.store, 'hang-a', 3, ta);
    await a.start();
    path.hang();
    // The heartbeat at 5 s waits for an answer that does not come: no error to count on.
    ta.advance(TIMING.heartbeatMs);
    await new Promise((resolve) => setImmediate(resolve)); // its row made at 5 s, the write waiting
    ta.advance(TIMING.leaseMs - TIMING.heartbeatMs - 1);
    assert.equal(a.status(), 'member');
    ta.advance(1);
    assert.equal(a.status(), 'cut-off', 'cut off by its lease timer, not by a failed write');
    // The write that hung (its lease until 20 s) lands at 21 s: over already, it does not count.
    ta.advance(6_000);
    path.heal();
    await a.settled();
    assert.equal(a.status(), 'cut-off');
    await beat(a, ta);
    assert.equal(a.status(), 'member');
    await a.stop();
  });

  it('does not serve again on a heartbeat begun before its lease ran out and answered after it', async () => {
    const ta = manualClock();
    const path = reach(shared);
    const a = member(path.store, 'late-a', 5, ta);
    await a.start();
    path.hang();
    // The heartbeat at 5 s (its lease until 20 s) waits; the lease written at start ends at 15 s.
    ta.advance(TIMING.heartbeatMs);
    await new Promise((resolve) => setImmediate(resolve));
    ta.advance(TIMING.leaseMs - TIMING.heartbeatMs);
    assert.equal(a.status(), 'cut-off');
    // The path comes back at 16 s: the held heartbeat lands with 4 s of its lease left, less than the
    // 5 s until the next heartbeat would renew it.
    ta.advance(1_000);
    path.heal();
    await a.settled();
    assert.equal(a.status(), 'cut-off', 'a lease chosen before it was cut off does not make it a member');
    await beat(a, ta);
    assert.equal(a.status(), 'member', 'the heartbeat begun since does');
    await a.stop();
  });

  it('whose pointer a member took meanwhile is lost when the database answers, and writes nothing', async () => {
    const [ta, tb] = [manualClock(), manualClock()];
    const path = reach(shared);
    const a = member(path.store, 'taken-a', 4, ta);
    await a.start();
    path.cut();
    for (let i = 0; i < 3; i++) await beat(a, ta);
    assert.equal(a.status(), 'cut-off');
    // Another process starts with A's pointer once A's lease has run out.
    tb.advance(TIMING.leaseMs);
    const b = member(shared, 'taken-b', 4, tb);
    await b.start();
    path.heal();
    const writes = path.writes();
    await beat(a, ta);
    assert.equal(a.status(), 'lost');
    assert.equal(path.writes(), writes + 1, 'one write, refused by the store in its transaction');
    const row = (await shared.list()).find((m) => m.name === 'taken-a');
    assert.equal(row?.heartbeatAt, Date.parse('2026-11-22T10:00:00.000Z'), 'its row was not renewed');
    assert.equal(ta.pendingTimers(), 0, 'it stopped heartbeating');
    await a.stop();
    await b.stop();
  });
});

/** A UE context store as one member reaches it: `cut` fails every call until `heal`; the writes that land. */
function reachUeContexts(store: UeContextStore) {
  let cut = false;
  let writes = 0;
  const gate = (): void => {
    if (cut) throw new Error('connection refused');
  };
  const wrapped: UeContextStore = {
    put: async (record) => (gate(), writes++, store.put(record)),
    takeOver: async (record, seen) => (gate(), writes++, store.takeOver(record, seen)),
    delete: async (supi, epoch) => (gate(), writes++, store.delete(supi, epoch)),
    get: async (supi) => (gate(), store.get(supi)),
    findByGuti: async (guti) => (gate(), store.findByGuti(guti)),
    ownedBy: async (owner, after, limit) => (gate(), store.ownedBy(owner, after, limit)),
    onTaken: (listener) => store.onTaken(listener),
  };
  return {
    store: wrapped,
    cut: () => void (cut = true),
    heal: () => void (cut = false),
    writes: () => writes,
  };
}

for (const shared of ['memory', onPostgres ? 'PostgreSQL' : 'SQLite'] as const) {
  describe(`a member cut off from the database stops serving, and serves again once it rejoins (store: ${shared})`, () => {
    it('a takeover whose claim is at the store when the member is cut off answers no NAS and keeps nothing', async () => {
      const store = await openSharedStore(shared, storages);
      let membersDb = databaseOf.get(store);
      if (membersDb === undefined) {
        const storage = await openStorage({ path: ':memory:' });
        storages.push(storage);
        membersDb = storage.db;
      }
      const membersPath = reach(createAmfSetMembersStore({ db: membersDb }));
      // A's compare-and-set waits at the store until the test lets it land.
      let reached: () => void = () => undefined;
      let land: () => void = () => undefined;
      const atStore = new Promise<void>((resolve) => (reached = resolve));
      const landing = new Promise<void>((resolve) => (land = resolve));
      const viaA: UeContextStore = {
        ...store,
        takeOver: async (record, seen) => {
          reached();
          await landing;
          return store.takeOver(record, seen);
        },
      };
      const a = await amfMember(viaA, 'amf-a', 0);
      const b = await amfMember(store, 'amf-b', 1);
      const ta = manualClock();
      const ma = member(membersPath.store, 'amf-a', 0, ta, 2);
      await ma.start();
      const stopWatch = watchDatabaseCut({
        membership: ma,
        identity: { ...DEFAULT_AMF_IDENTITY, name: 'amf-a', pointer: 0 },
        radios: a.h.n2,
        ues: a.h.amf,
        counted: () => undefined,
        logger: pino({ level: 'silent' }),
      });
      // The UE registered on B, with a session; its Service Request reaches A, which takes it over.
      const ue = new TestUe();
      const { ids } = await register(b.h, b.radio, ue);
      await establishSession(b.h, b.radio, ue, ids);
      await b.h.amf.ueContextsWritten();
      const stored = (await store.get(IMSI))!;
      const from = a.radio.received.length;
      a.radio.send(initialUeMessage(7, serviceRequestPdu(ue)), 1);
      await atStore;

      // A's lease runs out while its claim is at the store: it stops serving.
      membersPath.cut();
      for (let i = 0; i < 3; i++) await beat(ma, ta);
      assert.equal(ma.status(), 'cut-off');
      // The claim lands: the record is A's (epoch + 1), but A answers no NAS and holds nothing of the UE.
      land();
      // On PostgreSQL the claim takes a round trip: wait for A to do something with the connection.
      const acted = () =>
        namesOf(a.radio.received.slice(from).map((r) => r.pdu)).some((n) => n !== 'AMFStatusIndication');
      await until('A acting on its landed claim', async () => {
        await settle(a.h);
        return acted();
      });
      const after = answered(a.radio, ue, from);
      emitted.add(a.radio.received);
      assert.deepEqual(types(after.nas), [], 'no NAS answer');
      assert.ok(namesOf(after.pdus).includes('UEContextRelease'), 'its connection released');
      assert.equal((await store.get(IMSI))?.epoch, stored.epoch + 1);
      assert.equal(a.h.amf.counts().ues, 0, 'no UE context');
      assert.deepEqual(a.userPlane.addresses, [], 'no session re-created on its UPF');

      stopWatch();
      await ma.stop();
      await a.h.close();
      await b.h.close();
    });

    it('AMF Status Indication, its UEs released and dropped, no NAS served and nothing written until it rejoins', async () => {
      const store = await openSharedStore(shared, storages);
      const db = databaseOf.get(store);
      // The members' rows in the shared database, or in an SQLite one beside a memory store.
      let membersDb = db;
      if (membersDb === undefined) {
        const storage = await openStorage({ path: ':memory:' });
        storages.push(storage);
        membersDb = storage.db;
      }
      const members = createAmfSetMembersStore({ db: membersDb });
      const toDatabase = reachUeContexts(store);
      const membersPath = reach(members);
      const a = await amfMember(toDatabase.store, 'amf-a', 0);
      const b = await amfMember(store, 'amf-b', 1);
      const [ta, tb] = [manualClock(), manualClock()];
      const ma = member(membersPath.store, 'amf-a', 0, ta, 1);
      const mb = member(members, 'amf-b', 1, tb, 1);
      await ma.start();
      await mb.start();
      await beat(ma, ta);
      let cutOffs = 0;
      const stopWatch = watchDatabaseCut({
        membership: ma,
        identity: { ...DEFAULT_AMF_IDENTITY, name: 'amf-a', pointer: 0 },
        radios: a.h.n2,
        ues: a.h.amf,
        counted: () => cutOffs++,
        logger: pino({ level: 'silent' }),
      });

      // A UE registered on A and connected.
      const ue = new TestUe();
      const { ids } = await register(a.h, a.radio, ue);
      await a.h.amf.ueContextsWritten();
      const stored = (await store.get(IMSI))!;
      assert.equal(stored.owner, 'amf-a');

      // The path to the database goes down: A's heartbeats and UE context writes fail. At its lease
      // end A stops serving.
      toDatabase.cut();
      membersPath.cut();
      const from = a.radio.received.length;
      for (let i = 0; i < 3; i++) await beat(ma, ta);
      await a.h.settled();
      assert.equal(ma.status(), 'cut-off');
      assert.equal(cutOffs, 1);
      const sent = a.radio.received.slice(from).map(({ pdu }) => pdu);
      emitted.add(a.radio.received);
      const indication = sent.find(
        (pdu) => pdu.choice === 'initiatingMessage' && pdu.value.name === 'AMFStatusIndication',
      );
      assert.ok(
        indication?.choice === 'initiatingMessage' && indication.value.name === 'AMFStatusIndication',
      );
      const unavailable = ieValue(indication.value.value.protocolIEs, 'UnavailableGUAMIList');
      assert.equal(unavailable?.[0]?.backupAMFName, 'amf-b', "A's GUAMI, with B as its backup");
      assert.ok(namesOf(sent).includes('UEContextRelease'), "the UE's N2 connection is released");
      await step(a.h, a.radio, ue, ueContextReleaseComplete(ids));
      assert.deepEqual(a.h.amf.counts(), { ues: 0, connections: 0 }, 'its UE contexts are dropped');

      // The database answers again before A's next heartbeat: A is still cut off, serves no NAS and
      // writes nothing (its UE's record is the set's now).
      toDatabase.heal();
      membersPath.heal();
      const writes = toDatabase.writes();
      const ignored = await step(a.h, a.radio, ue, initialUeMessage(5, serviceRequestPdu(ue)));
      assert.deepEqual(ignored.nas, [], 'no NAS answer');
      assert.deepEqual(namesOf(ignored.pdus), ['UEContextRelease'], 'its connection released');
      assert.equal(toDatabase.writes(), writes, 'nothing written');
      assert.equal((await store.get(IMSI))?.epoch, stored.epoch);

      // Its heartbeat is written with its pointer free: it serves again, and takes its UE back only by
      // the takeover (compare-and-set on the stored epoch), no registration.
      await beat(ma, ta);
      assert.equal(ma.status(), 'member');
      const back = await initialStep(a.h, a.radio, ue, initialUeMessage(6, serviceRequestPdu(ue)));
      emitted.add(a.radio.received);
      assert.deepEqual(types(back.nas), ['serviceAccept']);
      await step(
        a.h,
        a.radio,
        ue,
        buildInitialContextSetupResponse({ amfUeNgapId: amfUeNgapIdOf(back.pdus[0]!)!, ranUeNgapId: 6 }),
      );
      await a.h.amf.ueContextsWritten();
      const taken = (await store.get(IMSI))!;
      assert.equal(taken.owner, 'amf-a');
      assert.equal(taken.epoch, stored.epoch + 1, 'taken back by compare-and-set');

      stopWatch();
      await ma.stop();
      await mb.stop();
      await a.h.close();
      await b.h.close();
    });
  });
}
