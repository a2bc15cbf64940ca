import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { register, step } from './amf-steps.ts';
import {
  createAmfHarness,
  IMSI,
  TestUe,
  ueContextReleaseComplete,
  ueContextReleaseRequest,
} from './test-ue.ts';

describe('radio event details (network.md section 3)', () => {
  it('name the subscriber of a UE-associated PDU once the AMF knows its SUPI', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    const { ids } = await register(h, radio, ue);
    await step(h, radio, ue, ueContextReleaseRequest(ids));
    await step(h, radio, ue, ueContextReleaseComplete(ids));

    const events = h.radioEvents.map((e) => [e.messageType, e.direction, e.details?.['imsi']]);
    // The Initial UE Message comes before the AMF resolved the SUCI; the NG Setup carries no UE ids.
    assert.deepEqual(events[0], ['NGSetupRequest', 'inbound', undefined]);
    assert.deepEqual(
      events.find(([type]) => type === 'InitialUEMessage'),
      ['InitialUEMessage', 'inbound', undefined],
    );
    const afterSupi = events.slice(events.findIndex(([type]) => type === 'DownlinkNASTransport'));
    assert.ok(afterSupi.length >= 6, JSON.stringify(events));
    for (const [type, direction, imsi] of afterSupi)
      assert.equal(imsi, IMSI, `${String(type)} ${String(direction)} names the subscriber`);
    assert.ok(afterSupi.some(([type]) => type === 'InitialContextSetupRequest'));
    assert.ok(afterSupi.some(([type]) => type === 'UEContextReleaseCommand'));
    const command = h.radioEvents.find((e) => e.messageType === 'UEContextReleaseCommand');
    assert.equal(command?.details?.['amf_ue_ngap_id'], ids.amf, 'its UE-NGAP-IDs pair is summarised');
    assert.equal(command?.details?.['ran_ue_ngap_id'], ids.ran);
    await h.close();
  });

  // The details are stored as JSON text (records/record-inputs.ts): their keys' order is part of the
  // record, so building them without spreads (ngap-recorder.ts, ngap-association.ts, nas-link.ts)
  // must keep it.
  it('keep their keys in order: radio, the PDU summary, the subscriber; a subscriber log radio, identity', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    await register(h, radio, ue);

    const downlink = h.radioEvents.find((e) => e.messageType === 'DownlinkNASTransport');
    assert.deepEqual(Object.keys(downlink?.details ?? {}), [
      'radio',
      'ran_ue_ngap_id',
      'amf_ue_ngap_id',
      'nas',
      'imsi',
    ]);
    const first = h.subscriberLogs[0];
    assert.deepEqual(Object.keys(first?.details ?? {}), ['radio', 'suci'], JSON.stringify(first?.details));
    await h.close();
  });
});
