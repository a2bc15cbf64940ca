import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readInitialContextSetupRequest } from '../../src/network/ngap/generated/messages.ts';
import { MAX_RADIO_CAPABILITY_BYTES } from '../../src/network/amf/n2/radio-capability.ts';
import type { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import { startSessionService, type SessionService } from './session-service.ts';

/**
 * UE Radio Capability Info Indication (TS 38.413 8.14.1) end to end: the AMF keeps the capability the
 * gNB indicates per UE context, through CM-IDLE, replaced by a newer one, and sends it in the Initial
 * Context Setup Request (9.2.2.1) of the UE's next Service Request; one above the kept size is not
 * kept. tshark reads every PDU the service sent.
 */

/**
 * A UE Radio Capability as the IE carries it (TS 38.413 9.3.1.74): an RRC UERadioAccessCapabilityInformation
 * (TS 38.331, UPER) whose ue-RadioAccessCapabilityInfo is an empty UE-CapabilityRAT-ContainerList, the
 * octet string filled with `fill` to `size` bytes in all: test filler past the list's encoding, which
 * tshark's nr-rrc dissector skips, so sizes and contents can differ.
 */
function capability(size: number, fill: number): Uint8Array {
  // Bits: criticalExtensions c1 (0), ueRadioAccessCapabilityInformation (000), no nonCriticalExtension (0),
  // then the octet string's length determinant (X.691 11.9: 8 bits below 128, else 10 + 14 bits).
  const contentLength = size - (size - 2 < 128 ? 2 : 3);
  const bits: number[] = [0, 0, 0, 0, 0];
  const push = (value: number, width: number): void => {
    for (let i = width - 1; i >= 0; i -= 1) bits.push((value >> i) & 1);
  };
  if (contentLength < 128) push(contentLength, 8);
  else push(0x8000 | contentLength, 16);
  // The list's SIZE (0..8) in 4 bits: 0; then the filler.
  push(0, 8);
  for (let i = 1; i < contentLength; i += 1) push(fill, 8);
  while (bits.length % 8 !== 0) bits.push(0);
  const bytes = new Uint8Array(bits.length / 8);
  bits.forEach((bit, i) => {
    bytes[i >> 3]! |= bit << (7 - (i & 7));
  });
  return bytes;
}

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
