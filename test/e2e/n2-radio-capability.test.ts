import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readInitialContextSetupRequest, readPaging } from '../../src/network/ngap/generated/messages.ts';
import type { UERadioCapabilityForPaging } from '../../src/network/ngap/generated/types.ts';
import { MAX_RADIO_CAPABILITY_BYTES } from '../../src/network/amf/n2/radio-capability.ts';
import type { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import type { UeSessions } from '../../src/simulator/ue/ue-sessions.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import { capability } from './radio-capability-bytes.ts';
import { startSessionService, type SessionService } from './session-service.ts';

/**
 * UE Radio Capability Info Indication (TS 38.413 8.14.1) end to end: the AMF keeps the capability the
 * gNB indicates per UE context, through CM-IDLE, replaced by a newer one, and sends it in the Initial
 * Context Setup Request (9.2.2.1) of the UE's next Service Request; one above the kept size is not
 * kept. The UE Radio Capability for Paging goes in Paging (9.2.4.1) until the UE deregisters (TS 23.501
 * 5.4.4.1). tshark reads every PDU the service sent.
 */

/** UE Radio Capability for Paging of NR: an RRC UERadioPagingInformation (TS 38.331, UPER) naming n78. */
const PAGING_N78 = Uint8Array.of(0x08, 0x00, 0x13, 0x40);

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

  /**
   * A session, idle, then downlink data: the UE Radio Capability for Paging of the Paging that follows
   * (the UE answers it with a Service Request). `indicate` runs while the UE is connected.
   */
  async function capabilityInPaging(
    ue: SimulatedUe,
    sessions: UeSessions,
    indicate: () => void,
  ): Promise<UERadioCapabilityForPaging | undefined> {
    const established = await sessions.establish({ pduSessionId: 1, type: 'IPv4' });
    assert.ok(established.outcome === 'accepted');
    const address = established.session.ipv4;
    indicate();
    const released = ue.next((e) => (e.type === 'released' ? true : undefined));
    assert.ok(s.ues.requestRelease(ue));
    await released;
    const [forwarderId] = await s.until(async () => {
      const found = [...s.rules.sessions].find(([, r]) => r.ipv4 === address);
      return found?.[1].downlink === undefined ? found : undefined;
    }, 'the user plane deactivated');
    const paging = s.gnb.nextReceived('Paging');
    const paged = ue.next((e) => (e.type === 'paged' ? e.outcome : undefined));
    s.rules.downlinkData.push(forwarderId);
    const { pdu } = await paging;
    assert.deepEqual(await paged, { outcome: 'accepted' });
    assert.ok(pdu !== undefined);
    const read = readPaging(pdu);
    assert.ok(read.ok);
    return read.message.ueRadioCapabilityForPaging;
  }

  it('the capability for paging goes in Paging; after deregistration and a new registration there is none', async () => {
    const { ue, sessions } = await s.registered(3);
    const kept = await capabilityInPaging(ue, sessions, () =>
      assert.ok(s.ues.indicateRadioCapability(ue, capability(60, 3), PAGING_N78)),
    );
    assert.deepEqual(kept?.uERadioCapabilityForPagingOfNR, PAGING_N78);
    assert.equal(kept.uERadioCapabilityForPagingOfEUTRA, undefined);

    // TS 23.501 5.4.4.1: RM-DEREGISTERED deletes it; the initial registration that follows finds none.
    assert.deepEqual(await ue.deregister(), { outcome: 'accepted' });
    await s.until(async () => (ue.connected ? undefined : true), 'the UE released');
    assert.equal((await ue.register()).outcome, 'accepted');
    assert.equal(await capabilityInPaging(ue, sessions, () => undefined), undefined);
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
