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
});
