import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readInitialContextSetupRequest } from '../../src/network/ngap/generated/messages.ts';
import { MAX_RADIO_CAPABILITY_BYTES } from '../../src/network/amf/n2/radio-capability.ts';
import type { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import { capability } from './radio-capability-bytes.ts';
import { startSessionService, type SessionService } from './session-service.ts';

/**
 * UE Radio Capability Info Indication (TS 38.413 8.14.1) end to end: the AMF keeps the capability the
 * gNB indicates per UE context, through CM-IDLE, replaced by a newer one, and sends it in the Initial
 * Context Setup Request (9.2.2.1) of the UE's next Service Request; one above the kept size is not
 * kept. tshark reads every PDU the service sent.
 */

describe('UE radio capability (real service)', () => {
  let s: SessionService;
  before(async () => {
    s = await startSessionService();
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  /** Idle, then a Service Request: the UE Radio Capability of the Initial Context Setup Request it brings. */
  async function capabilityAfterServiceRequest(ue: SimulatedUe): Promise<Uint8Array | undefined> {
    const released = ue.next((e) => (e.type === 'released' ? true : undefined));
    assert.ok(s.ues.requestRelease(ue));
    await released;
    const setUp = s.gnb.nextReceived('InitialContextSetupRequest');
    assert.equal((await ue.serviceRequest('signalling')).outcome, 'accepted');
    const { pdu } = await setUp;
    assert.ok(pdu !== undefined);
    const read = readInitialContextSetupRequest(pdu);
    assert.ok(read.ok);
    return read.message.ueRadioCapability;
  }

  it('is kept through idle, replaced by a newer one, and sent in the Service Request context setup', async () => {
    const { ue } = await s.registered(1);
    assert.equal(await capabilityAfterServiceRequest(ue), undefined, 'none before the radio gave one');

    const first = capability(300, 1);
    assert.ok(s.ues.indicateRadioCapability(ue, first));
    assert.deepEqual(await capabilityAfterServiceRequest(ue), first);

    const newer = capability(40, 2);
    assert.ok(s.ues.indicateRadioCapability(ue, newer));
    assert.deepEqual(await capabilityAfterServiceRequest(ue), newer);
  });

  it('one above the kept size is not kept and the older one is forgotten', async () => {
    const { ue } = await s.registered(2);
    for (const size of [MAX_RADIO_CAPABILITY_BYTES, MAX_RADIO_CAPABILITY_BYTES + 1])
      assert.equal(capability(size, 0).length, size);
    assert.ok(s.ues.indicateRadioCapability(ue, capability(100, 7)));
    assert.ok(s.ues.indicateRadioCapability(ue, capability(MAX_RADIO_CAPABILITY_BYTES + 1, 9)));
    assert.equal(await capabilityAfterServiceRequest(ue), undefined);
    // At the bound it is kept.
    const largest = capability(MAX_RADIO_CAPABILITY_BYTES, 5);
    assert.ok(s.ues.indicateRadioCapability(ue, largest));
    assert.deepEqual(await capabilityAfterServiceRequest(ue), largest);
  });
});
