/**
 * SMS over NAS across the AMF set (docs/amf-set.md, "Takeover"; docs/sms.md): the UE's "SMS over NAS
 * allowed" goes with its UE context record, so the member that takes it over by its Service Request
 * relays its short messages both ways without a new registration. Two members, each its AMF with its
 * SMSF, on one UE context store (in memory, and the database store) and one SMS store.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Storage } from '../../../src/storage/storage.ts';
import { memorySmsStore, memorySmsSubscribers } from '../../helpers/memory-sms-store.ts';
import { onPostgres } from '../../helpers/postgres-test-database.ts';
import { initialStep, openSharedStore, serviceRequestWithData, types } from './amf-set-members.ts';
import { lastGuti, step } from './amf-steps.ts';
import { emittedPdus } from './emitted.ts';
import { ngSetupRequest } from './messages.ts';
import {
  cpAck,
  IMSI_B,
  inbox,
  moCpData,
  MSISDN_A,
  MSISDN_B,
  registerForSms,
  rpOf,
  sendSms,
  smsSubmit,
  textOf,
  tpduOf,
  type SmsUe,
} from './sms-steps.ts';
import {
  amfUeNgapIdOf,
  createAmfHarness,
  IMSI,
  initialContextSetupResponse,
  initialUeMessage,
  subscription,
  ueContextReleaseComplete,
  ueContextReleaseRequest,
} from './test-ue.ts';

const emitted = emittedPdus();
after(() => emitted.check());
const storages: Storage[] = [];
after(async () => {
  for (const storage of storages) await storage.close();
});

for (const shared of ['memory', onPostgres ? 'PostgreSQL' : 'SQLite'] as const) {
  describe(`AMF set: SMS over NAS after a takeover (store: ${shared})`, () => {
    it('a UE registered for SMS on A and taken over by B sends and receives SMS through B', async () => {
      const store = await openSharedStore(shared, storages);
      const sms = {
        store: memorySmsStore(),
        subscribers: memorySmsSubscribers({
          [IMSI]: { msisdn: MSISDN_A, smsAllowed: true },
          [IMSI_B]: { msisdn: MSISDN_B, smsAllowed: true },
        }),
      };
      const member = (name: string, pointer: number) =>
        createAmfHarness({}, {}, { ueContexts: store, identity: { name, pointer }, sms });
      const a = await member('amf-a', 0);
      const b = await member('amf-b', 1);
      b.subscribers.set(IMSI_B, { sqn: 0n });
      b.subscriptions.set(IMSI_B, subscription(IMSI_B));

      // On A: registered with SMS over NAS allowed, then idle.
      const onA = await registerForSms(a, IMSI, 1);
      assert.equal(onA.smsAllowed, true);
      const { ue } = onA;
      await step(a, onA.radio, ue, ueContextReleaseRequest(onA.ids));
      await step(a, onA.radio, ue, ueContextReleaseComplete(onA.ids));
      await a.amf.ueContextsWritten();
      assert.equal((await store.get(IMSI))?.smsOverNas, true, 'stored with the record');

      // Its Service Request reaches B, which takes it over: no registration.
      const radio = await b.connect();
      radio.send(ngSetupRequest({ name: 'gnb-b', gnbId: 7 }));
      await b.settled();
      const answer = await initialStep(
        b,
        radio,
        ue,
        initialUeMessage(7, serviceRequestWithData(ue, lastGuti(ue))),
      );
      assert.deepEqual(types(answer.nas), ['serviceAccept']);
      const ids = { amf: amfUeNgapIdOf(answer.pdus[0]!)!, ran: 7 };
      await step(b, radio, ue, initialContextSetupResponse(ids));
      const onB: SmsUe = { ue, ids, radio, read: radio.received.length };

      // Mobile originated through B: CP-ACK, stored, RP-ACK.
      const sent = await sendSms(b, onB, moCpData(1, 11, smsSubmit(MSISDN_B, 'from A via B')));
      assert.deepEqual(
        sent.map((cp) => cp.type),
        ['cp-ack', 'cp-data'],
      );
      assert.equal(rpOf(sent[1]).type, 'rp-ack');
      await sendSms(b, onB, cpAck(1, true));
      assert.deepEqual(
        sms.store.messages.map((m) => m.status),
        ['queued'],
      );

      // Mobile terminated through B: a message to A's MSISDN from a UE registered on B is delivered.
      const other = await registerForSms(b, IMSI_B, 8);
      await sendSms(b, other, moCpData(2, 12, smsSubmit(MSISDN_A, 'to A on B')));
      const delivered = inbox(onB);
      assert.equal(delivered.length, 1, 'SMS-DELIVER to the UE B took over');
      const deliver = tpduOf(rpOf(delivered[0]));
      assert.ok(deliver.type === 'sms-deliver');
      assert.equal(textOf(deliver), 'to A on B');
      emitted.add(radio.received);

      await a.close();
      await b.close();
    });
  });
}
