import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pino from 'pino';
import { DRAIN_BACK_OFF_MS, DRAIN_RELEASE_CAUSE } from '../../../src/network/amf/gmm/drain.ts';
import { bits } from '../../../src/network/ngap/ngap-values.ts';
import { readRerouteNASRequest } from '../../../src/network/ngap/generated/messages.ts';
import { guami } from '../../../src/network/amf/context/amf-identity.ts';
import { amfStatusIndication } from '../../../src/network/amf/n2/ngap-messages.ts';
import { createMemberDrain, DRAIN_SWEEP_MS } from '../../../src/network/amf/set/member-drain.ts';
import { unavailableGuamiList } from '../../../src/network/amf/set/served-guamis.ts';
import { GMM_CAUSE, encodeNasMessage } from '../../../src/network/nas/index.ts';
import type { UnavailableGUAMIList } from '../../../src/network/ngap/generated/types.ts';
import { encodeNgapPdu } from '../../../src/network/ngap/ngap-codec.ts';
import type { AmfSetMember } from '../../../src/network/ports/amf-set-members.ts';
import type { Storage } from '../../../src/storage/storage.ts';
import { onPostgres } from '../../helpers/postgres-test-database.ts';
import { establishSession, initialStep, member, openSharedStore, types } from './amf-set-members.ts';
import { namesOf, register, serviceRequestPdu, settle, step } from './amf-steps.ts';
import { causeAndDiagnostics, emittedPdus } from './emitted.ts';
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

const PLMN = { mcc: '001', mnc: '01' };
const row = (name: string, pointer: number, state: AmfSetMember['state']): AmfSetMember => ({
  name,
  instance: name,
  ...PLMN,
  regionId: 1,
  setId: 1,
  pointer,
  relativeCapacity: 255,
  n2Addresses: [],
  state,
  radios: [],
  heartbeatAt: 0,
  leaseExpiresAt: Number.MAX_SAFE_INTEGER,
});

describe('AMF Status Indication of a draining member (TS 38.413 9.2.6.9)', () => {
  it('names its GUAMI with the backup, the next serving member; tshark reads it', () => {
    const identity = { name: 'amf-a', regionId: 1, setId: 1, pointer: 0, relativeCapacity: 255 };
    const list = unavailableGuamiList(
      identity,
      [row('amf-a', 0, 'draining'), row('amf-b', 1, 'serving'), row('amf-c', 2, 'draining')],
      PLMN,
      'planned',
    );
    // A planned removal: the radio may forget the GUAMI after its timer (9.3.3.20, TS 23.501 5.21.2.2).
    assert.deepEqual(list, [
      { gUAMI: guami(identity, PLMN), timerApproachForGUAMIRemoval: 'apply-timer', backupAMFName: 'amf-b' },
    ]);
    // Alone (no serving peer): its GUAMI without a backup.
    assert.deepEqual(unavailableGuamiList(identity, [row('amf-a', 0, 'draining')], PLMN, 'planned'), [
      { gUAMI: guami(identity, PLMN), timerApproachForGUAMIRemoval: 'apply-timer' },
    ]);
    // Cut off from the database, it comes back with its GUAMI: no timer approach.
    assert.deepEqual(
      unavailableGuamiList(
        identity,
        [row('amf-a', 0, 'serving'), row('amf-b', 1, 'serving')],
        PLMN,
        'until-back',
      ),
      [{ gUAMI: guami(identity, PLMN), backupAMFName: 'amf-b' }],
    );
    emitted.add([{ messageType: 'AMFStatusIndication', bytes: encodeNgapPdu(amfStatusIndication(list)) }]);
  });
});

for (const shared of ['memory', onPostgres ? 'PostgreSQL' : 'SQLite'] as const) {
  describe(`AMF set: draining member A hands its UEs to B (store: ${shared})`, () => {
    it('connected UEs are released once between procedures, idle ones wait in the store; B takes both over, new UEs go to B, A reports done', async () => {
      const store = await openSharedStore(shared, storages);
      const a = await member(store, 'amf-a', 0);
      const b = await member(store, 'amf-b', 1);
      const SECOND = '001010000000002';
      const NEW = '001010000000003';
      for (const h of [a.h, b.h])
        for (const imsi of [SECOND, NEW]) {
          h.subscribers.set(imsi, { sqn: 0n });
          h.subscriptions.set(imsi, structuredClone({ ...h.subscriptions.get(IMSI)!, imsi }));
        }

      // On A: one UE idle, one connected with a session.
      const idle = new TestUe();
      const idleIds = (await register(a.h, a.radio, idle)).ids;
      await step(a.h, a.radio, idle, ueContextReleaseRequest(idleIds));
      await step(a.h, a.radio, idle, ueContextReleaseComplete(idleIds));
      const connected = new TestUe({ imsi: SECOND, ranUeNgapId: 2 });
      const { ids } = await register(a.h, a.radio, connected);
      await establishSession(a.h, a.radio, connected, ids);
      assert.equal(a.h.amf.counts().connections, 1);

      // The drain as the member runs it, its membership and radios at hand.
      const indications: UnavailableGUAMIList[] = [];
      const drain = createMemberDrain({
        membership: {
          drain: async () => true,
          members: () => [row('amf-a', 0, 'draining'), row('amf-b', 1, 'serving')],
          state: () => 'serving',
        },
        identity: { name: 'amf-a', regionId: 1, setId: 1, pointer: 0, relativeCapacity: 255 },
        plmn: async () => PLMN,
        radios: {
          statusIndication: (list) => {
            indications.push(list);
            return 1;
          },
        },
        ues: { drain: () => a.h.amf.drain(), written: () => a.h.amf.ueContextsWritten() },
        timers: a.h.clock,
        logger: pino({ level: 'silent' }),
        timeoutMs: 60_000,
      });
      const from = a.radio.received.length;
      assert.equal(drain.start(), undefined);
      await settle(a.h);
      assert.equal(indications[0]?.[0]?.backupAMFName, 'amf-b');
      assert.equal(indications[0]?.[0]?.timerApproachForGUAMIRemoval, 'apply-timer');
      // The connected UE, between procedures: UE Context Release Command, O&M intervention.
      const release = a.radio.received.slice(from).map((r) => r.pdu);
      assert.deepEqual(namesOf(release).filter(Boolean), ['UEContextRelease']);
      assert.deepEqual(causeAndDiagnostics(release[0]).cause, DRAIN_RELEASE_CAUSE);
      emitted.add(a.radio.received.slice(from));

      // A new UE's initial registration still reaching A: Reroute NAS Request to A's AMF set with the
      // Initial UE Message as received, no AMF UE NGAP ID, no NAS answer, no connection kept (TS 38.413 8.6.5).
      const newcomer = new TestUe({ imsi: NEW, ranUeNgapId: 3 });
      const initial = initialUeMessage(3, encodeNasMessage(newcomer.registrationRequest()));
      const connectionsBefore = a.h.amf.counts().connections;
      const rerouted = await step(a.h, a.radio, newcomer, initial);
      emitted.add(a.radio.received.slice(-rerouted.pdus.length));
      assert.deepEqual(namesOf(rerouted.pdus), ['RerouteNASRequest']);
      assert.deepEqual(rerouted.nas, []);
      const reroute = readRerouteNASRequest(rerouted.pdus[0]!);
      assert.ok(reroute.ok);
      assert.equal(reroute.message.ranUeNgapId, 3);
      assert.equal(reroute.message.amfUeNgapId, undefined);
      assert.deepEqual(reroute.message.amfSetId, { bytes: Uint8Array.of(0x00, 0x40), length: 10 });
      assert.deepEqual([...reroute.message.ngapMessage], [...encodeNgapPdu(initial)]);
      assert.equal(a.h.amf.counts().connections, connectionsBefore, 'no connection kept for it');

      // One a radio rerouted already (it names an AMF Set ID, 8.6.5.2) is not sent on again, so that two
      // members draining at once cannot pass it back and forth: #22 with a short T3346, nothing kept.
      const passedOn = new TestUe({ imsi: NEW, ranUeNgapId: 4 });
      const again = initialUeMessage(4, encodeNasMessage(passedOn.registrationRequest()));
      assert.ok(again.choice === 'initiatingMessage');
      // AMFSetID (id 3) sits between RRCEstablishmentCause and UEContextRequest (InitialUEMessageIEs).
      (again.value.value as { protocolIEs: unknown[] }).protocolIEs.splice(4, 0, {
        id: 3,
        name: 'AMFSetID',
        criticality: 'reject',
        value: bits(1, 10),
      });
      const refused = await step(a.h, a.radio, passedOn, again);
      emitted.add(a.radio.received.slice(-refused.pdus.length));
      assert.deepEqual(namesOf(refused.pdus), ['DownlinkNASTransport', 'UEContextRelease']);
      const reject = refused.nas[0];
      assert.ok(reject?.messageType === 'registrationReject');
      assert.equal(reject.fiveGmmCause, GMM_CAUSE.congestion);
      assert.deepEqual(reject.t3346Value, { unit: 0, value: DRAIN_BACK_OFF_MS / 2000 });
      await step(
        a.h,
        a.radio,
        passedOn,
        ueContextReleaseComplete({ amf: amfUeNgapIdOf(refused.pdus[0]!)!, ran: 4 }),
      );

      // The radio completes the release: no UE connection is left, the contexts are written, A is done.
      await step(a.h, a.radio, connected, ueContextReleaseComplete(ids));
      assert.equal(a.h.amf.counts().connections, 0);
      a.h.clock.advance(DRAIN_SWEEP_MS);
      assert.deepEqual(await drain.done, { reason: 'empty', connected: 0 });
      const records = [await store.get(idle.options.imsi), await store.get(SECOND)];
      assert.deepEqual(
        records.map((r) => [r?.owner, r?.registered]),
        [
          ['amf-a', true],
          ['amf-a', true],
        ],
        "A's UEs' records name A until taken",
      );
      assert.equal(records[1]?.pduSessions[0]?.userPlane, 'inactive');

      // Their next NAS messages reach B (the backup of A's GUAMI): taken over, no authentication.
      for (const [ue, ran] of [
        [connected, 12],
        [idle, 11],
      ] as const) {
        const back = await initialStep(b.h, b.radio, ue, initialUeMessage(ran, serviceRequestPdu(ue)));
        assert.deepEqual(types(back.nas), ['serviceAccept'], `${ue.options.imsi} served by B`);
        emitted.add(b.radio.received.slice(-back.pdus.length));
      }
      await b.h.amf.ueContextsWritten();
      assert.equal((await store.get(SECOND))?.owner, 'amf-b');
      assert.equal((await store.get(idle.options.imsi))?.owner, 'amf-b');
      // The new UE registers with B.
      const fresh = new TestUe({ imsi: NEW, ranUeNgapId: 13 });
      await register(b.h, b.radio, fresh);
      assert.equal(b.h.state.subscriber(NEW).registered, true);
      await a.h.close();
      await b.h.close();
    });
  });
}
