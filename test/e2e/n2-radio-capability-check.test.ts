import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildUERadioCapabilityCheckResponse } from '../../src/network/ngap/generated/messages.ts';
import { decodeNasMessage } from '../../src/network/nas/index.ts';
import type { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import { capability } from './radio-capability-bytes.ts';
import type { RegistrationService } from './registration-service.ts';
import { imsiOf, makeImsReachable, startRegistrationService } from './registration-service.ts';

/**
 * UE Radio Capability Check (TS 38.413 8.14.2, TS 23.502 4.2.8a) end to end: the AMF asks the radio
 * before it sets "IMS voice over PS session supported" in Registration Accept (TS 24.501 5.5.1.2.4,
 * docs/n2.md "UE Radio Capability Check"), and only when the UE supports IMS voice (UE's usage setting)
 * and the subscriber may reach the `ims` data network. The radio's answer decides the bit; the UE radio
 * capability the AMF holds goes with the request; an answer the AMF did not ask for gets Error
 * Indication. tshark reads every PDU the service sent.
 */

/** The 5GS network feature support IE of the UE's last Registration Accept; undefined when absent. */
function featureSupport(ue: SimulatedUe): Uint8Array | undefined {
  const accept = ue.log.findLast((x) => x.messageType === 'registrationAccept');
  assert.ok(accept, 'a Registration Accept');
  const decoded = decodeNasMessage(accept.plain);
  assert.ok(decoded.ok && decoded.message.messageType === 'registrationAccept');
  return decoded.message.fiveGsNetworkFeatureSupport;
}

describe('UE Radio Capability Check through the simulator against the real service', () => {
  let s: RegistrationService;
  let next = 60;
  before(async () => {
    s = await startRegistrationService();
  });
  after(async () => {
    await assertTsharkAgrees(s.received);
    await s.close();
  });

  async function registered(imsVoice: boolean): Promise<SimulatedUe> {
    const imsi = imsiOf(next++);
    await s.provision(imsi);
    const ue = s.ue({ imsi, imsVoice });
    assert.equal((await ue.register()).outcome, 'accepted');
    return ue;
  }

  const checks = (): number => s.ues.radioCapabilityChecks.length;

  let ims = false;
  async function imsReachable(): Promise<void> {
    if (ims) return;
    ims = true;
    await makeImsReachable(s);
  }

  it('no IMS data network: no check, no IMS voice', async () => {
    const ue = await registered(true);
    assert.equal(checks(), 0);
    assert.equal(featureSupport(ue), undefined);
  });

  it('with IMS reachable, a voice-capable UE is checked and the radio decides', async () => {
    await imsReachable();

    // A data-only UE (no UE's usage setting) is not checked.
    const dataOnly = await registered(false);
    assert.equal(checks(), 0);
    assert.equal(featureSupport(dataOnly), undefined);

    s.ues.imsVoiceSupport = 'supported';
    const voice = await registered(true);
    assert.equal(checks(), 1);
    assert.equal(s.ues.radioCapabilityChecks[0]?.capability, undefined, 'no capability held yet');
    assert.deepEqual(featureSupport(voice), Uint8Array.of(0x01), 'IMS VoPS over 3GPP access');
    const sent = s.gnb1.received.map((x) => x.messageType);
    assert.ok(
      sent.lastIndexOf('UERadioCapabilityCheckRequest') < sent.lastIndexOf('InitialContextSetupRequest'),
      'asked before the Registration Accept went',
    );

    s.ues.imsVoiceSupport = 'not-supported';
    const refused = await registered(true);
    assert.equal(checks(), 2);
    assert.deepEqual(featureSupport(refused), Uint8Array.of(0x00), 'not supported: the radio said so');

    // The capability the radio indicated goes with the check of the UE's next registration.
    s.ues.imsVoiceSupport = 'supported';
    const held = capability(40, 0x5a);
    assert.ok(s.ues.indicateRadioCapability(voice, held));
    await s.until(async () => {
      await Promise.resolve();
      const kept = s.gnb1.sent.some((x) => x.messageType === 'UERadioCapabilityInfoIndication');
      return kept ? true : undefined;
    }, 'the indication sent');
    const released = voice.next((e) => (e.type === 'released' ? true : undefined));
    assert.ok(s.ues.requestRelease(voice));
    await released;
    assert.equal((await voice.registrationUpdate('mobility')).outcome, 'accepted');
    assert.equal(checks(), 3);
    assert.deepEqual(s.ues.radioCapabilityChecks[2]?.capability, held);
    assert.deepEqual(featureSupport(voice), Uint8Array.of(0x01));
  });

  it('a Response with an IE not comprehended of criticality reject is not taken as the answer (10.3.4.2)', async () => {
    await imsReachable();
    s.ues.imsVoiceSupport = 'silent';
    const imsi = imsiOf(next++);
    await s.provision(imsi);
    const ue = s.ue({ imsi, imsVoice: true });
    const checked = checks();
    const registering = ue.register();
    await s.until(async () => {
      await Promise.resolve();
      return checks() > checked ? true : undefined;
    }, 'the check');
    const unknownIe = { id: 999, name: null, criticality: 'reject', value: Uint8Array.of(0x2a) };
    assert.ok(
      s.ues.sendAboutUe(ue, (ids) => {
        const pdu = buildUERadioCapabilityCheckResponse({
          ...ids,
          imsVoiceSupportIndicator: 'not-supported',
        });
        assert.ok(pdu.choice === 'successfulOutcome');
        (pdu.value.value as { protocolIEs: unknown[] }).protocolIEs.push(unknownIe);
        return pdu;
      }),
    );
    assert.ok(
      s.ues.sendAboutUe(ue, (ids) =>
        buildUERadioCapabilityCheckResponse({ ...ids, imsVoiceSupportIndicator: 'supported' }),
      ),
    );
    assert.equal((await registering).outcome, 'accepted');
    assert.deepEqual(featureSupport(ue), Uint8Array.of(0x01), 'the well-formed answer decided');
    s.ues.imsVoiceSupport = 'supported';
  });

  it('a Response naming no connection the AMF knows gets Error Indication (10.6)', async () => {
    const before = s.gnb1.received.filter((x) => x.messageType === 'ErrorIndication').length;
    const stray = buildUERadioCapabilityCheckResponse({
      amfUeNgapId: 999_999,
      ranUeNgapId: 999_999,
      imsVoiceSupportIndicator: 'supported',
    });
    assert.ok(s.gnb1.send(stray, s.gnb1.ueStream(999_999)).ok);
    const indication = await s.until(async () => {
      await Promise.resolve();
      const all = s.gnb1.received.filter((x) => x.messageType === 'ErrorIndication');
      return all.length > before ? all.at(-1) : undefined;
    }, 'the Error Indication');
    assert.match(JSON.stringify(indication.pdu), /unknown-local-UE-NGAP-ID/);
  });

  it('an answer the AMF did not ask for gets Error Indication (TS 38.413 10.4)', async () => {
    const ue = await registered(false);
    const before = s.gnb1.received.filter((x) => x.messageType === 'ErrorIndication').length;
    assert.ok(
      s.ues.sendAboutUe(ue, (ids) =>
        buildUERadioCapabilityCheckResponse({ ...ids, imsVoiceSupportIndicator: 'supported' }),
      ),
    );
    const cause = await s.until(async () => {
      await Promise.resolve();
      const indications = s.gnb1.received.filter((x) => x.messageType === 'ErrorIndication');
      return indications.length > before ? indications.at(-1) : undefined;
    }, 'the Error Indication');
    assert.ok(cause.pdu);
    assert.match(JSON.stringify(cause.pdu), /message-not-compatible-with-receiver-state/);
  });
});
