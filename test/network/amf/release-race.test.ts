import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ieValue } from '../../helpers/ie-value.ts';
import { answered, namesOf, register, serviceRequestPdu, settle, step } from './amf-steps.ts';
import { emittedPdus } from './emitted.ts';
import {
  amfUeNgapIdOf,
  createAmfHarness,
  IMSI,
  initialUeMessage,
  TestUe,
  ueContextReleaseComplete,
  ueContextReleaseRequest,
  uplinkNasTransport,
} from './test-ue.ts';

const emitted = emittedPdus();
after(() => emitted.check());

describe('A subscriber deleted while its connection is being released (TS 24.501 5.5.2.3, 5.6.2)', () => {
  for (const order of [
    'deleted, then Release Complete',
    'Release Complete before the AMF reads the deletion',
  ]) {
    it(`${order}: shown deregistered, paged, told with Deregistration Request #7, nothing left`, async () => {
      const h = await createAmfHarness();
      const radio = await h.radio();
      const ue = new TestUe();
      const { ids, guti } = await register(h, radio, ue);
      const release = await step(h, radio, ue, ueContextReleaseRequest(ids));
      assert.deepEqual(namesOf(release.pdus), ['UEContextRelease']);

      h.subscriptions.delete(IMSI);
      h.events.publish({ resource: 'subscriber', change: 'deleted', name: IMSI });
      if (order.startsWith('deleted')) await settle(h);
      assert.equal(h.state.subscriber(IMSI).registered, order.startsWith('deleted') ? false : true);
      const from = radio.received.length;
      radio.send(ueContextReleaseComplete(ids), 1);
      await settle(h);
      assert.equal(h.state.subscriber(IMSI).registered, false, 'the API shows it deregistered');

      // The device never heard the deregistration: it is idle and still registered on its side.
      const paged = radio.received.slice(from).map(({ pdu }) => pdu);
      const page = paged.find((p) => p.choice === 'initiatingMessage' && p.value.name === 'Paging');
      assert.ok(page?.choice === 'initiatingMessage' && page.value.name === 'Paging', 'the UE is paged');
      const identity = ieValue(page.value.value.protocolIEs, 'UEPagingIdentity');
      assert.ok(identity?.choice === 'fiveG-S-TMSI');
      assert.equal(Buffer.from(identity.value.fiveGTMSI).readUInt32BE(0), guti.tmsi);

      const back = radio.received.length;
      radio.send(initialUeMessage(9, serviceRequestPdu(ue)), 1);
      await settle(h);
      const { pdus, nas } = answered(radio, ue, back);
      assert.equal(nas.length, 1);
      const request = nas[0];
      assert.ok(request?.messageType === 'deregistrationRequestUeTerminated');
      assert.equal(request.fiveGmmCause, 7);
      const again = { amf: amfUeNgapIdOf(pdus[0]!)!, ran: 9 };
      const done = await step(
        h,
        radio,
        ue,
        uplinkNasTransport(again, ue.protect({ messageType: 'deregistrationAcceptUeTerminated' })),
      );
      assert.deepEqual(namesOf(done.pdus), ['UEContextRelease']);
      await step(h, radio, ue, ueContextReleaseComplete(again));
      assert.deepEqual(h.amf.counts(), { ues: 0, connections: 0 });
      assert.equal(h.clock.pendingTimers(), 0);
      assert.equal(h.state.subscriber(IMSI).registered, false);
      emitted.add(radio.received);
      await h.close();
    });
  }

  it('a device that never answers the paging is deregistered locally; no timer or context stays', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    const { ids } = await register(h, radio, ue);
    await step(h, radio, ue, ueContextReleaseRequest(ids));
    h.subscriptions.delete(IMSI);
    h.events.publish({ resource: 'subscriber', change: 'deleted', name: IMSI });
    await settle(h);
    await step(h, radio, ue, ueContextReleaseComplete(ids));
    assert.equal(h.amf.counts().ues, 1, 'held while paged');
    for (let i = 0; i < 5; i++) h.clock.advance(6_000);
    await settle(h);
    assert.deepEqual(h.amf.counts(), { ues: 0, connections: 0 });
    assert.equal(h.clock.pendingTimers(), 0);
    await h.close();
  });
});
