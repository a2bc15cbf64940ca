import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { DEFAULT_AMF_SETTINGS } from '../../../src/network/amf/amf-settings.ts';
import { DOWNLINK_COUNT_MARGIN } from '../../../src/network/amf/gmm/takeover.ts';
import { REGISTRATION_TYPE } from '../../../src/network/nas/index.ts';
import { buildInitialContextSetupResponse } from '../../../src/network/ngap/generated/messages.ts';
import type { UeContextStore } from '../../../src/network/ports/ue-contexts.ts';
import type { Storage } from '../../../src/storage/storage.ts';
import { onPostgres } from '../../helpers/postgres-test-database.ts';
import {
  databaseOf,
  establishSession,
  initialStep,
  member,
  openSharedStore,
  serviceRequestWithData,
  types,
} from './amf-set-members.ts';
import { namesOf, register, serviceRequestPdu, step } from './amf-steps.ts';
import { emittedPdus } from './emitted.ts';
import { encodeTransfer, TRANSFERS } from './session-fuzz-messages.ts';
import {
  amfUeNgapIdOf,
  IMSI,
  initialUeMessage,
  TestUe,
  ueContextReleaseComplete,
  ueContextReleaseRequest,
  uplinkNasTransport,
} from './test-ue.ts';

const emitted = emittedPdus();
after(() => emitted.check());
const storages: Storage[] = [];
after(async () => {
  for (const storage of storages) await storage.close();
});

// The database store on the run's database: SQLite, or PostgreSQL with PMN_TEST_DB=postgres.
for (const shared of ['memory', onPostgres ? 'PostgreSQL' : 'SQLite'] as const) {
  describe(`AMF set: a UE another member served is taken over by a Service Request (store: ${shared})`, () => {
    const sharedStore = (): Promise<UeContextStore> => openSharedStore(shared, storages);

    it('core B serves it with no Identity Request, no authentication, the same 5G-GUTI and address; A is fenced', async () => {
      const store = await sharedStore();
      // A misses the notice of B's take-over (paused): its late write is what fencing stops.
      const a = await member(store, 'amf-a', 0, { deaf: true });
      const b = await member(store, 'amf-b', 1);
      const ue = new TestUe();
      const { ids, guti } = await register(a.h, a.radio, ue);
      await establishSession(a.h, a.radio, ue, ids);
      const address = a.userPlane.addresses[0];
      assert.ok(address !== undefined, 'core A gave the session an address');
      // Idle on A: the record says the user plane is down, with the COUNTs of the last procedure.
      await step(a.h, a.radio, ue, ueContextReleaseRequest(ids));
      await step(a.h, a.radio, ue, ueContextReleaseComplete(ids));
      await a.h.amf.ueContextsWritten();
      const before = await store.get(IMSI);
      assert.equal(before?.owner, 'amf-a');
      assert.equal(before?.pduSessions[0]?.userPlane, 'inactive');

      // A is gone (its radio's association lost): the gNB sends the UE's Service Request to B, the
      // backup AMF of A's GUAMI (TS 23.501 5.21.2.3), with the 5G-S-TMSI A assigned.
      const service = serviceRequestWithData(ue, guti);
      const back = await initialStep(b.h, b.radio, ue, initialUeMessage(7, service));
      emitted.add(b.radio.received);
      assert.deepEqual(types(back.nas), ['serviceAccept'], 'no Identity Request, no Authentication Request');
      const setup = back.pdus[0]!;
      assert.ok(setup.choice === 'initiatingMessage' && setup.value.name === 'InitialContextSetup');
      const accept = back.nas[0]!;
      assert.ok(accept.messageType === 'serviceAccept');
      assert.deepEqual(accept.pduSessionStatus, [1], 'the session is there on B');
      // The session's user plane comes back in the Initial Context Setup with B's N3 tunnel.
      const items = (setup.value.value.protocolIEs as { name: string | null; value: unknown }[]).find(
        (ie) => ie.name === 'PDUSessionResourceSetupListCxtReq',
      );
      assert.ok(items !== undefined, 'PDU Session Resource Setup in Initial Context Setup');
      assert.deepEqual(b.userPlane.addresses, [address], "the same address, on B's UPF");
      // In the database the address's lease is B's now: A's release of it would free nothing.
      const db = databaseOf.get(store);
      if (db !== undefined)
        assert.deepEqual(await db.selectFrom('address_leases').select(['address', 'owner']).execute(), [
          { address, owner: 'amf-b' },
        ]);
      const idsB = { amf: amfUeNgapIdOf(setup)!, ran: 7 };
      // The gNB sets the session's resources up: its downlink tunnel in the response (TS 38.413 9.2.2.2).
      const setUp = buildInitialContextSetupResponse({
        amfUeNgapId: idsB.amf,
        ranUeNgapId: idsB.ran,
        pduSessionResourceSetupListCxtRes: [
          {
            pDUSessionID: 1,
            pDUSessionResourceSetupResponseTransfer: encodeTransfer(TRANSFERS.setupResponse),
          },
        ],
      });
      await step(b.h, b.radio, ue, setUp);
      assert.deepEqual(
        b.h.smf?.sessionsOf(IMSI).map((s) => s.state),
        ['active'],
        'the user plane is up on B',
      );
      assert.equal(b.h.state.subscriber(IMSI).registered, true);
      await b.h.amf.ueContextsWritten();
      const taken = await store.get(IMSI);
      assert.equal(taken?.owner, 'amf-b');
      assert.equal(taken?.epoch, (before?.epoch ?? 0) + 1, 'one take-over: the epoch + 1');
      assert.deepEqual(taken?.guti, before?.guti, 'the same 5G-GUTI');
      assert.equal(taken?.pduSessions[0]?.ipv4, address);
      assert.equal(taken?.pduSessions[0]?.userPlane, 'active');
      // B continued the downlink COUNT above A's stored one: the UE accepted the Service Accept at it.
      assert.ok(
        (ue.security?.highestReceivedCount ?? 0) >= before.security!.downlinkCount + DOWNLINK_COUNT_MARGIN,
      );

      // A comes back after its pause: its late write (the implicit deregistration of a UE it still
      // holds) is fenced and leaves B's record as it is.
      const { mobileReachableMs, implicitDeregistrationMs } = DEFAULT_AMF_SETTINGS;
      a.h.clock.advance(mobileReachableMs + implicitDeregistrationMs);
      assert.equal(a.h.amf.counts().ues, 0, 'A deregistered its copy');
      await a.h.amf.ueContextsWritten();
      const kept = await store.get(IMSI);
      assert.equal(kept?.owner, 'amf-b', "A's write was fenced");
      assert.equal(kept?.epoch, taken?.epoch);
      await a.h.close();
      await b.h.close();
    });

    it('a member back from a pause does not serve a UE another took over from its stale copy: it takes it back', async () => {
      const store = await sharedStore();
      // A, paused, misses the notice of B's take-over: its ownership check finds it out.
      const a = await member(store, 'amf-a', 0, { deaf: true });
      const b = await member(store, 'amf-b', 1);
      const ue = new TestUe();
      const { ids, guti } = await register(a.h, a.radio, ue);
      await step(a.h, a.radio, ue, ueContextReleaseRequest(ids));
      await step(a.h, a.radio, ue, ueContextReleaseComplete(ids));
      await a.h.amf.ueContextsWritten();
      // B takes the UE over while A is paused (A still holds its copy), serves it, and it goes idle.
      const onB = await initialStep(b.h, b.radio, ue, initialUeMessage(7, serviceRequestPdu(ue)));
      assert.deepEqual(types(onB.nas), ['serviceAccept']);
      const idsB = { amf: amfUeNgapIdOf(onB.pdus[0]!)!, ran: 7 };
      await step(
        b.h,
        b.radio,
        ue,
        buildInitialContextSetupResponse({ amfUeNgapId: idsB.amf, ranUeNgapId: 7 }),
      );
      await step(b.h, b.radio, ue, ueContextReleaseRequest(idsB));
      await step(b.h, b.radio, ue, ueContextReleaseComplete(idsB));
      await b.h.amf.ueContextsWritten();
      const ofB = await store.get(IMSI);
      assert.equal(ofB?.owner, 'amf-b');
      assert.equal(a.h.amf.counts().ues, 1, 'A still holds its copy');

      // A resumes and the UE's gNB sends its next Service Request to A, whose GUAMI its 5G-GUTI names.
      const onA = await initialStep(a.h, a.radio, ue, initialUeMessage(9, serviceRequestWithData(ue, guti)));
      emitted.add(a.radio.received);
      assert.deepEqual(
        types(onA.nas),
        ['serviceAccept'],
        'the UE accepts the Service Accept: no COUNT reused',
      );
      assert.ok(
        (ue.security?.highestReceivedCount ?? 0) >= ofB.security!.downlinkCount + DOWNLINK_COUNT_MARGIN,
      );
      await a.h.amf.ueContextsWritten();
      const back = await store.get(IMSI);
      assert.equal(back?.owner, 'amf-a');
      assert.equal(back?.epoch, (ofB?.epoch ?? 0) + 1, 'taken back by compare-and-set');
      await a.h.close();
      await b.h.close();
    });

    it('a mobility registration update reaching B is accepted without authentication; B owns the UE', async () => {
      const store = await sharedStore();
      const a = await member(store, 'amf-a', 0);
      const b = await member(store, 'amf-b', 1);
      const ue = new TestUe();
      const { ids, guti } = await register(a.h, a.radio, ue);
      await step(a.h, a.radio, ue, ueContextReleaseRequest(ids));
      await step(a.h, a.radio, ue, ueContextReleaseComplete(ids));
      await a.h.amf.ueContextsWritten();
      const request = ue.registrationRequest({
        registrationType: { followOnRequestPending: false, value: REGISTRATION_TYPE.mobilityUpdating },
        ngKsi: ue.security!.ngKsi,
        mobileIdentity: guti,
      });
      const answer = await initialStep(b.h, b.radio, ue, initialUeMessage(7, ue.protect(request, 1)));
      emitted.add(b.radio.received);
      assert.deepEqual(namesOf(answer.pdus), ['InitialContextSetup']);
      assert.deepEqual(types(answer.nas), ['registrationAccept'], 'no Identity or Authentication Request');
      const ids2 = { amf: amfUeNgapIdOf(answer.pdus[0]!)!, ran: 7 };
      await step(
        b.h,
        b.radio,
        ue,
        buildInitialContextSetupResponse({ amfUeNgapId: ids2.amf, ranUeNgapId: 7 }),
      );
      await step(
        b.h,
        b.radio,
        ue,
        uplinkNasTransport(ids2, ue.protect({ messageType: 'registrationComplete' })),
      );
      await b.h.amf.ueContextsWritten();
      const record = await store.get(IMSI);
      assert.equal(record?.owner, 'amf-b');
      assert.equal(b.h.state.subscriber(IMSI).registered, true);
      await a.h.close();
      await b.h.close();
    });

    it('a restarted member serves its own UEs again from the store: no registration', async () => {
      const store = await sharedStore();
      const before = await member(store, 'pmn-amf', 0);
      const ue = new TestUe();
      const { ids, guti } = await register(before.h, before.radio, ue);
      await establishSession(before.h, before.radio, ue, ids);
      await before.h.amf.ueContextsWritten();
      await before.h.close();
      // The same member (name and pointer) started again: nothing in memory, the record in the store.
      const after = await member(store, 'pmn-amf', 0);
      const back = await initialStep(
        after.h,
        after.radio,
        ue,
        initialUeMessage(3, serviceRequestWithData(ue, guti)),
      );
      assert.deepEqual(types(back.nas), ['serviceAccept']);
      assert.deepEqual(after.userPlane.addresses, before.userPlane.addresses, 'the session kept its address');
      await after.h.close();
    });

    it('a Service Request whose MAC fails under the stored context is an unknown UE: #9, nothing taken', async () => {
      const store = await sharedStore();
      const a = await member(store, 'amf-a', 0);
      const b = await member(store, 'amf-b', 1);
      const ue = new TestUe();
      const { ids } = await register(a.h, a.radio, ue);
      await step(a.h, a.radio, ue, ueContextReleaseRequest(ids));
      await step(a.h, a.radio, ue, ueContextReleaseComplete(ids));
      await a.h.amf.ueContextsWritten();
      const service = serviceRequestPdu(ue);
      service[3] = (service[3] ?? 0) ^ 0xff; // the MAC's first octet
      const back = await initialStep(b.h, b.radio, ue, initialUeMessage(7, service));
      assert.deepEqual(types(back.nas), ['serviceReject']);
      const reject = back.nas[0]!;
      assert.ok(reject.messageType === 'serviceReject');
      assert.equal(reject.fiveGmmCause, 9);
      assert.equal((await store.get(IMSI))?.owner, 'amf-a', "still A's");
      assert.equal(b.h.amf.counts().ues, 0);
      await a.h.close();
      await b.h.close();
    });
  });
}
