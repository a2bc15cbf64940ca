import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { DEFAULT_AMF_IDENTITY } from '../../../src/network/amf/context/amf-identity.ts';
import { DOWNLINK_COUNT_MARGIN } from '../../../src/network/amf/gmm/takeover.ts';
import { fiveGSTmsiOf } from '../../../src/network/amf/gmm/paging.ts';
import {
  createAmfSetMembership,
  type AmfSetMembership,
} from '../../../src/network/amf/set/amf-set-membership.ts';
import { watchDeadMembers } from '../../../src/network/amf/set/dead-members.ts';
import { buildInitialContextSetupResponse } from '../../../src/network/ngap/generated/messages.ts';
import type { UeContextStore } from '../../../src/network/ports/ue-contexts.ts';
import { createAmfSetMembersStore } from '../../../src/storage/network-ports/amf-set-members.ts';
import { openStorage, type Storage } from '../../../src/storage/storage.ts';
import { ieValue } from '../../helpers/ie-value.ts';
import { onPostgres } from '../../helpers/postgres-test-database.ts';
import { until } from '../../helpers/until.ts';
import { manualClock } from '../../helpers/test-app.ts';
import { own, ueContextRecord } from '../working-state/ue-context-store.contract.ts';
import {
  databaseOf,
  establishSession,
  initialStep,
  member,
  openSharedStore,
  serviceRequestWithData,
  types,
} from './amf-set-members.ts';
import { register, step } from './amf-steps.ts';
import { emittedPdus } from './emitted.ts';
import type { TestRadio } from './n2-harness.ts';
import { encodeTransfer, TRANSFERS } from './session-fuzz-messages.ts';
import {
  amfUeNgapIdOf,
  IMSI,
  initialUeMessage,
  TestUe,
  ueContextReleaseComplete,
  ueContextReleaseRequest,
} from './test-ue.ts';

const emitted = emittedPdus();
after(() => emitted.check());
const storages: Storage[] = [];
after(async () => {
  for (const storage of storages) await storage.close();
});

const TIMING = { heartbeatMs: 5_000, leaseMs: 15_000 };
const silent = pino({ level: 'silent' });

/** The membership rows' store: in the shared store's database, or an SQLite one beside a memory store. */
async function membersStoreFor(store: UeContextStore) {
  let db = databaseOf.get(store);
  if (db === undefined) {
    const storage = await openStorage({ path: ':memory:' });
    storages.push(storage);
    db = storage.db;
  }
  return createAmfSetMembersStore({ db });
}

/** A member's membership on its own time: a member whose time stands still is a process that died. */
function membership(
  store: ReturnType<typeof createAmfSetMembersStore>,
  name: string,
  pointer: number,
  time: ReturnType<typeof manualClock>,
): AmfSetMembership {
  return createAmfSetMembership({
    store,
    identity: { ...DEFAULT_AMF_IDENTITY, name, pointer },
    n2Addresses: ['127.0.0.1'],
    plmn: () => Promise.resolve({ mcc: '001', mnc: '01' }),
    clock: time,
    timers: time,
    logger: silent,
    timing: TIMING,
  });
}

/** `count` heartbeats of `m`, each written and its peers read before the next. */
async function beats(m: AmfSetMembership, time: ReturnType<typeof manualClock>, count: number) {
  for (let i = 0; i < count; i++) {
    time.advance(TIMING.heartbeatMs);
    await m.settled();
  }
}

/** The Paging PDUs a radio received since `from`: the UE Paging Identity and the TACs paged. */
function pagings(radio: TestRadio, from = 0) {
  return radio.received.slice(from).flatMap(({ pdu }) => {
    if (pdu.choice !== 'initiatingMessage' || pdu.value.name !== 'Paging') return [];
    const ies = pdu.value.value.protocolIEs;
    const identity = ieValue(ies, 'UEPagingIdentity');
    const tais = ieValue(ies, 'TAIListForPaging') ?? [];
    return [
      {
        identity: identity?.choice === 'fiveG-S-TMSI' ? identity.value : undefined,
        tacs: tais.map((item) => Buffer.from(item.tAI.tAC).readUIntBE(0, 3)),
      },
    ];
  });
}

// The database store on the run's database: SQLite, or PostgreSQL with PMN_TEST_DB=postgres.
for (const shared of ['memory', onPostgres ? 'PostgreSQL' : 'SQLite'] as const) {
  describe(`AMF set: a dead member's idle UEs adopted by its backup (TS 23.501 5.21.2.3; store: ${shared})`, () => {
    it('B adopts them at A’s lease end; downlink data pages under the old 5G-S-TMSI; the Service Request is served', async () => {
      const store = await openSharedStore(shared, storages);
      const members = await membersStoreFor(store);
      const a = await member(store, 'amf-a', 0);
      const b = await member(store, 'amf-b', 1);
      const [ta, tb, tc] = [manualClock(), manualClock(), manualClock()];
      const [ma, mb, mc] = [
        membership(members, 'amf-a', 0, ta),
        membership(members, 'amf-b', 1, tb),
        membership(members, 'amf-c', 2, tc),
      ];
      for (const m of [ma, mb, mc]) await m.start();
      await beats(mb, tb, 1);
      await beats(mc, tc, 1);
      const watchB = watchDeadMembers({
        membership: mb,
        self: 'amf-b',
        adopt: (owner) => b.h.amf.adopt(owner),
        logger: silent,
      });
      // C is a live member too, but not the backup of A's GUAMI: it adopts nothing.
      const adoptedByC: string[] = [];
      const watchC = watchDeadMembers({
        membership: mc,
        self: 'amf-c',
        adopt: async (owner) => adoptedByC.push(owner),
        logger: silent,
      });

      const ue = new TestUe();
      const { ids, guti } = await register(a.h, a.radio, ue);
      await establishSession(a.h, a.radio, ue, ids);
      const address = a.userPlane.addresses[0];
      assert.ok(address !== undefined);
      await step(a.h, a.radio, ue, ueContextReleaseRequest(ids));
      await step(a.h, a.radio, ue, ueContextReleaseComplete(ids));
      await a.h.amf.ueContextsWritten();
      const before = (await store.get(IMSI))!;
      assert.equal(before.owner, 'amf-a');

      // A dies: its time stands still (no heartbeat) and its radio is heard from no more. Once its
      // lease has run out on B's and C's clocks, B, the next serving member by pointer, adopts its UEs.
      for (let i = 0; i < 3; i++) {
        await beats(mb, tb, 1);
        await beats(mc, tc, 1);
      }
      assert.deepEqual(
        mb.members().map((m) => m.name),
        ['amf-b', 'amf-c'],
      );
      await watchB.settled();
      await watchC.settled();
      assert.deepEqual(adoptedByC, [], 'only the backup adopts');
      const adopted = (await store.get(IMSI))!;
      assert.equal(adopted.owner, 'amf-b');
      assert.equal(adopted.epoch, before.epoch + 1, 'taken by compare-and-set');
      assert.equal(
        adopted.security?.downlinkCount,
        before.security!.downlinkCount + DOWNLINK_COUNT_MARGIN,
        'stored with the downlink COUNT it continues from',
      );
      assert.deepEqual(b.userPlane.addresses, [address], "the session's address on B's UPF");
      assert.deepEqual(b.h.smf?.sessionsOf(IMSI), [{ pduSessionId: 1, state: 'inactive' }]);
      assert.deepEqual(b.h.amf.counts(), { ues: 1, connections: 0 }, 'idle on B');
      // B's API shows the UE registered with its session at once, before the UE is heard from: idle, no
      // radio serving it through B yet.
      const shown = b.h.state.subscriber(IMSI);
      assert.deepEqual(
        [shown.registered, shown.cipheringAlgorithm !== '', shown.lastSeenAt, b.h.state.servingRadio(IMSI)],
        [true, true, undefined, ''],
      );
      assert.deepEqual(
        shown.sessions.map((s) => [s.id, s.status, s.ipv4Address]),
        [[1, 'inactive', address]],
      );
      const db = databaseOf.get(store);
      if (db !== undefined)
        assert.deepEqual(await db.selectFrom('address_leases').select(['address', 'owner']).execute(), [
          { address, owner: 'amf-b' },
        ]);

      // Downlink data for the address reaches B's UPF, which buffers it and tells the SMF (its first
      // and only session: id 1): B pages the UE under the 5G-S-TMSI A gave it, over its registration area.
      const from = b.radio.received.length;
      b.h.smf.downlinkData(1);
      await b.h.settled();
      const paged = pagings(b.radio, from);
      emitted.add(b.radio.received);
      assert.equal(paged.length, 1, 'one Paging through B’s radio');
      const identity = paged[0]?.identity;
      assert.deepEqual(
        identity && {
          aMFSetID: identity.aMFSetID,
          aMFPointer: identity.aMFPointer,
          fiveGTMSI: identity.fiveGTMSI,
        },
        fiveGSTmsiOf({ type: '5g-guti', ...before.guti! }),
        "the 5G-S-TMSI of A's 5G-GUTI: A's AMF Pointer, the UE's 5G-TMSI",
      );
      assert.deepEqual(paged[0]?.tacs, before.registrationArea?.tacs);

      // The UE answers with its Service Request (mobile terminated services), to B: Service Accept with
      // no Identity or Authentication Request, its session's user plane set up on B's N3 tunnel.
      const answer = await initialStep(
        b.h,
        b.radio,
        ue,
        initialUeMessage(7, serviceRequestWithData(ue, guti, 2)),
      );
      emitted.add(b.radio.received);
      assert.deepEqual(types(answer.nas), ['serviceAccept']);
      const setup = answer.pdus[0]!;
      assert.ok(setup.choice === 'initiatingMessage' && setup.value.name === 'InitialContextSetup');
      assert.ok(
        ieValue(setup.value.value.protocolIEs, 'PDUSessionResourceSetupListCxtReq') !== undefined,
        'the session paged for is set up again',
      );
      assert.ok(
        (ue.security?.highestReceivedCount ?? 0) >= before.security!.downlinkCount + DOWNLINK_COUNT_MARGIN,
        'the UE accepted B’s downlink COUNT',
      );
      // The gNB's tunnel: the UPF's downlink goes active, which sends what it buffered (docs/upf.md).
      const activated = b.userPlane.downlinks.length;
      await step(
        b.h,
        b.radio,
        ue,
        buildInitialContextSetupResponse({
          amfUeNgapId: amfUeNgapIdOf(setup)!,
          ranUeNgapId: 7,
          pduSessionResourceSetupListCxtRes: [
            {
              pDUSessionID: 1,
              pDUSessionResourceSetupResponseTransfer: encodeTransfer(TRANSFERS.setupResponse),
            },
          ],
        }),
      );
      assert.equal(b.userPlane.downlinks.length, activated + 1, "B's UPF has the gNB's tunnel");
      assert.deepEqual(b.h.smf?.sessionsOf(IMSI), [{ pduSessionId: 1, state: 'active' }]);
      await b.h.amf.ueContextsWritten();
      const served = (await store.get(IMSI))!;
      assert.equal(served.owner, 'amf-b');
      assert.deepEqual(served.guti, before.guti, 'the same 5G-GUTI');
      assert.equal(served.epoch, adopted.epoch, 'no second take-over');

      watchB.stop();
      watchC.stop();
      for (const m of [mb, mc, ma]) await m.stop();
      await a.h.close();
      await b.h.close();
    });

    // The UE's own Service Request reaching the backup while it adopts the UE: served once the take ends,
    // whichever moment of the take it arrives at (docs/amf-set.md, "A dead member's idle devices").
    for (const moment of ['during the take-over', 'while its takeover reads the store'] as const)
      it(`a Service Request that reaches B ${moment} of its adoption is served, not #9`, async () => {
        const store = await openSharedStore(shared, storages);
        const a = await member(store, 'amf-a', 0);
        // B's store holds back either its take-over (the adoption's compare-and-set) or its find (the
        // Service Request's takeover) until the test lets it go.
        let letGo!: () => void;
        const held = new Promise<void>((resolve) => (letGo = resolve));
        let reached!: () => void;
        const holding = new Promise<void>((resolve) => (reached = resolve));
        const gated: UeContextStore = {
          ...store,
          async takeOver(...args) {
            if (moment === 'during the take-over') {
              reached();
              await held;
            }
            return store.takeOver(...args);
          },
          async findByGuti(...args) {
            if (moment === 'while its takeover reads the store') {
              reached();
              await held;
            }
            return store.findByGuti(...args);
          },
        };
        const b = await member(gated, 'amf-b', 1);
        const ue = new TestUe();
        const { ids, guti } = await register(a.h, a.radio, ue);
        await establishSession(a.h, a.radio, ue, ids);
        await step(a.h, a.radio, ue, ueContextReleaseRequest(ids));
        await step(a.h, a.radio, ue, ueContextReleaseComplete(ids));
        await a.h.amf.ueContextsWritten();
        const before = (await store.get(IMSI))!;

        let adoption: Promise<{ adopted: number }> | undefined;
        if (moment === 'during the take-over') adoption = b.h.amf.adopt('amf-a');
        const answer = initialStep(b.h, b.radio, ue, initialUeMessage(7, serviceRequestWithData(ue, guti)));
        await holding;
        if (moment === 'while its takeover reads the store') adoption = b.h.amf.adopt('amf-a');
        // The adoption has taken the UE, or holds it in its take-over: now the store answers.
        if (moment === 'while its takeover reads the store') assert.equal((await adoption)?.adopted, 1);
        letGo();
        const served = await answer;
        emitted.add(b.radio.received);
        assert.deepEqual(types(served.nas), ['serviceAccept']);
        assert.equal((await adoption)?.adopted, 1);
        await b.h.amf.ueContextsWritten();
        const after = (await store.get(IMSI))!;
        assert.equal(after.owner, 'amf-b');
        assert.equal(after.epoch, before.epoch + 1, 'one take-over');
        // Its session comes back in the Initial Context Setup (set up there, as after any Service Request).
        assert.deepEqual(b.h.smf?.sessionsOf(IMSI), [{ pduSessionId: 1, state: 'setting-up' }]);
        await a.h.close();
        await b.h.close();
      });

    it('a member joining after the dead member’s lease ended adopts its UEs as its backup, its own backup having left too', async () => {
      const store = await openSharedStore(shared, storages);
      const members = await membersStoreFor(store);
      const a = await member(store, 'amf-a', 0);
      const c = await member(store, 'amf-c', 2);
      const [ta, tb] = [manualClock(), manualClock()];
      const [ma, mb] = [membership(members, 'amf-a', 0, ta), membership(members, 'amf-b', 1, tb)];
      await ma.start();
      await mb.start();
      const ue = new TestUe();
      const { ids } = await register(a.h, a.radio, ue);
      await establishSession(a.h, a.radio, ue, ids);
      await step(a.h, a.radio, ue, ueContextReleaseRequest(ids));
      await step(a.h, a.radio, ue, ueContextReleaseComplete(ids));
      await a.h.amf.ueContextsWritten();
      const before = (await store.get(IMSI))!;

      // A dies (its time stands still) and B, the backup of its GUAMI, leaves before it could adopt
      // anything. C and D join once A's lease has run out: no live member adopted A's UEs.
      await mb.stop();
      const later = () => {
        const time = manualClock();
        time.advance(TIMING.leaseMs + TIMING.heartbeatMs);
        return time;
      };
      const [tc, td] = [later(), later()];
      const mc = membership(members, 'amf-c', 2, tc);
      await mc.start();
      assert.deepEqual(
        mc.gone().map((m) => m.name),
        ['amf-a', 'amf-b'],
      );
      const watchC = watchDeadMembers({
        membership: mc,
        self: 'amf-c',
        adopt: (owner) => c.h.amf.adopt(owner),
        logger: silent,
      });
      const md = membership(members, 'amf-d', 3, td);
      await md.start();
      const adoptedByD: string[] = [];
      const watchD = watchDeadMembers({
        membership: md,
        self: 'amf-d',
        adopt: async (owner) => adoptedByD.push(owner),
        logger: silent,
      });
      await beats(mc, tc, 1);
      await watchC.settled();
      await watchD.settled();

      // C, the next live member after A's pointer, is its backup now: it adopted the UE; D nothing.
      assert.deepEqual(adoptedByD, [], 'only the backup adopts');
      const adopted = (await store.get(IMSI))!;
      assert.equal(adopted.owner, 'amf-c');
      assert.equal(adopted.epoch, before.epoch + 1, 'taken by compare-and-set');
      assert.deepEqual(c.h.amf.counts(), { ues: 1, connections: 0 }, 'idle on C');
      assert.deepEqual(c.h.smf?.sessionsOf(IMSI), [{ pduSessionId: 1, state: 'inactive' }]);

      watchC.stop();
      watchD.stop();
      for (const m of [mc, md, ma]) await m.stop();
      await a.h.close();
      await c.h.close();
    });

    it('two members adopting one dead member’s UE at once: one of them has it', async () => {
      const store = await openSharedStore(shared, storages);
      const a = await member(store, 'amf-a', 0);
      const b = await member(store, 'amf-b', 1);
      const c = await member(store, 'amf-c', 2);
      const ue = new TestUe();
      const { ids } = await register(a.h, a.radio, ue);
      await step(a.h, a.radio, ue, ueContextReleaseRequest(ids));
      await step(a.h, a.radio, ue, ueContextReleaseComplete(ids));
      await a.h.amf.ueContextsWritten();
      const before = (await store.get(IMSI))!;
      const [ofB, ofC] = await Promise.all([b.h.amf.adopt('amf-a'), c.h.amf.adopt('amf-a')]);
      assert.equal(ofB.adopted + ofC.adopted, 1);
      const after = (await store.get(IMSI))!;
      assert.equal(after.epoch, before.epoch + 1, 'one take-over');
      const winner = ofB.adopted === 1 ? b : c;
      const loser = winner === b ? c : b;
      assert.equal(after.owner, winner === b ? 'amf-b' : 'amf-c');
      assert.equal(winner.h.amf.counts().ues, 1);
      assert.equal(loser.h.amf.counts().ues, 0, 'the other left nothing behind');
      for (const m of [a, b, c]) await m.h.close();
    });

    it('adopts in batches on its timers; a record no member can serve is deleted', async () => {
      const store = await openSharedStore(shared, storages);
      const b = await member(store, 'amf-b', 1);
      // Two records of a dead member (no session the SMF could re-create: no subscription for them), and
      // one that is not registered, which cannot be served from the store.
      const guti = { mcc: '001', mnc: '01', amfRegionId: 1, amfSetId: 1, amfPointer: 5 };
      for (const [i, registered] of [true, true, false].entries())
        await own(
          store,
          ueContextRecord(`00101000000010${i}`, {
            owner: 'amf-x',
            registered,
            guti: { ...guti, tmsi: 0x100 + i },
            pduSessions: [],
          }),
        );
      const timers = b.h.clock.pendingTimers();
      const run = b.h.amf.adopt('amf-x', { batch: 2, pauseMs: 1_000 });
      // The first batch (two records) is taken, then the run waits for its timer: three timers more, the
      // two UEs' mobile reachable timers and the pause. (Polled across the database's round trips; the
      // pause is on the harness's clock, which only the test moves.)
      await until(
        'the first batch and the pause',
        () => b.h.clock.pendingTimers() >= timers + 3,
        () => `${b.h.clock.pendingTimers() - timers} timers more`,
      );
      assert.equal(b.h.amf.counts().ues, 2, 'one batch before the pause');
      b.h.clock.advance(1_000);
      const outcome = await run;
      assert.deepEqual(outcome, { adopted: 2, forgotten: 1, left: 0 });
      assert.equal((await store.get('001010000000101'))?.owner, 'amf-b');
      assert.equal(
        await store.get('001010000000102'),
        undefined,
        'not registered: its UE must register again, and its record no longer holds addresses',
      );
      await b.h.close();
    });
  });
}
