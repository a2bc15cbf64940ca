import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { bitStringHex } from '../../../src/network/asn1/bit-string.ts';
import { encodeNasMessage } from '../../../src/network/nas/index.ts';
import { ieValue } from '../../helpers/ie-value.ts';
import { register, step } from './amf-steps.ts';
import { emittedPdus } from './emitted.ts';
import {
  amfUeNgapIdOf,
  createAmfHarness,
  IMSI,
  initialUeMessage,
  nasPduOf,
  TestUe,
  ueContextReleaseComplete,
  uplinkNasTransport,
} from './test-ue.ts';

const emitted = emittedPdus();
after(() => emitted.check());

describe('Initial registration (TS 24.501 5.5.1.2)', () => {
  it('authenticates, secures, sets up the context and registers the device, as the API shows', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    const { accept, kgnb } = await register(h, radio, ue);
    const setup = accept.pdus[0]!;
    assert.equal(setup.choice === 'initiatingMessage' && setup.value.name, 'InitialContextSetup');
    assert.ok(setup.choice === 'initiatingMessage' && setup.value.name === 'InitialContextSetup');
    const key = ieValue(setup.value.value.protocolIEs, 'SecurityKey');
    assert.equal(key && bitStringHex(key), kgnb.toString('hex'));

    const command = ue.received.find((m) => m.messageType === 'securityModeCommand');
    assert.ok(command?.messageType === 'securityModeCommand');
    assert.deepEqual(command.selectedNasSecurityAlgorithms, { ciphering: 2, integrity: 2 });
    assert.equal(command.imeisvRequest, 1);
    assert.deepEqual(command.replayedUeSecurityCapabilities, ue.registrationRequest().ueSecurityCapability);

    const registered = ue.received.find((m) => m.messageType === 'registrationAccept');
    assert.ok(registered?.messageType === 'registrationAccept');
    assert.equal(registered.fiveGGuti?.type, '5g-guti');
    assert.deepEqual(registered.allowedNssai, [{ sst: 1, sd: 0x010203 }]);
    assert.deepEqual(registered.t3512Value, { unit: 0, value: 5 });

    const state = h.state.subscriber(IMSI);
    assert.equal(state.registered, true);
    assert.deepEqual(state.radioAccessTypes, ['5G']);
    assert.equal(state.imei, '490154203237518');
    assert.equal(state.cipheringAlgorithm, 'NEA2');
    assert.equal(state.integrityAlgorithm, 'NIA2');
    assert.equal(state.lastSeenRadio, 'gnb-1');
    assert.equal(state.servingCell?.cellIdentity, '000000010');
    assert.deepEqual(
      h.subscriberLogs.map((l) => `${l.direction} ${l.event}`),
      [
        'inbound Registration Request',
        'outbound Authentication Request',
        'inbound Authentication Response',
        'outbound Security Mode Command',
        'inbound Security Mode Complete',
        'outbound Registration Accept',
        'inbound Registration Complete',
      ],
    );
    assert.deepEqual(h.subscriberLogs[0]?.details, {
      radio: 'gnb-1',
      suci: 'suci-0-001-01-0-0-0-0000000001',
    });
    assert.equal(h.amf.counts().connections, 1);
    emitted.add(radio.received);
    await h.close();
  });

  it('a SUCI of no subscriber -> Registration Reject #7 (not #9), logged under its clear IMSI, nothing left', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe({ imsi: '001010000000999' });
    const { pdus, nas } = await step(
      h,
      radio,
      ue,
      initialUeMessage(1, encodeNasMessage(ue.registrationRequest())),
    );
    assert.deepEqual(
      nas.map((m) => m.messageType),
      ['registrationReject'],
    );
    assert.ok(nas[0]?.messageType === 'registrationReject');
    // TS 24.501 5.5.1.2.5: a cause the UE acts on (USIM invalid for 5GS), where #9 made it retry forever.
    assert.equal(nas[0].fiveGmmCause, 7);
    assert.deepEqual(
      pdus.map((p) => p.choice === 'initiatingMessage' && p.value.name),
      ['DownlinkNASTransport', 'UEContextRelease'],
    );
    await step(h, radio, ue, ueContextReleaseComplete({ amf: amfUeNgapIdOf(pdus[0]!)!, ran: 1 }));
    // network.md section 4: every reject leaves a record, under the IMSI the null-scheme SUCI shows.
    assert.deepEqual(
      h.subscriberLogs.map((l) => [l.imsi, l.level, l.direction, l.event, l.details]),
      [
        [
          '001010000000999',
          'info',
          'inbound',
          'Registration Request',
          { radio: 'gnb-1', suci: 'suci-0-001-01-0-0-0-0000000999' },
        ],
        [
          '001010000000999',
          'warn',
          'outbound',
          'Registration Reject',
          { radio: 'gnb-1', suci: 'suci-0-001-01-0-0-0-0000000999', cause: '5GS services not allowed (7)' },
        ],
      ],
    );
    assert.deepEqual(h.amf.counts(), { ues: 0, connections: 0 });
    assert.equal(h.clock.pendingTimers(), 0);
    emitted.add(radio.received);
    await h.close();
  });

  it('a wrong RES* (wrong key) -> Authentication Reject, the context gone', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    const first = await step(h, radio, ue, initialUeMessage(1, encodeNasMessage(ue.registrationRequest())));
    const ids = { amf: amfUeNgapIdOf(first.pdus[0]!)!, ran: 1 };
    const challenge = first.nas[0]!;
    assert.ok(challenge.messageType === 'authenticationRequest');
    const answer = await step(
      h,
      radio,
      ue,
      uplinkNasTransport(ids, encodeNasMessage(ue.authenticationResponse(challenge, true))),
    );
    assert.deepEqual(
      answer.nas.map((m) => m.messageType),
      ['authenticationReject'],
    );
    await step(h, radio, ue, ueContextReleaseComplete(ids));
    assert.deepEqual(h.amf.counts(), { ues: 0, connections: 0 });
    assert.equal(h.state.subscriber(IMSI).registered, false);
    emitted.add(radio.received);
    await h.close();
  });

  it('a synch failure -> the SQN resynchronised from AUTS and a new challenge that succeeds', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    const request = ue.registrationRequest();
    const first = await step(h, radio, ue, initialUeMessage(1, encodeNasMessage(request)));
    const ids = { amf: amfUeNgapIdOf(first.pdus[0]!)!, ran: 1 };
    const challenge = first.nas[0]!;
    assert.ok(challenge.messageType === 'authenticationRequest');
    const again = await step(
      h,
      radio,
      ue,
      uplinkNasTransport(ids, encodeNasMessage(ue.synchFailure(challenge, 0x1000n))),
    );
    assert.deepEqual(h.authentication.resynchronised, [IMSI]);
    assert.deepEqual(
      again.nas.map((m) => m.messageType),
      ['authenticationRequest'],
    );
    assert.equal(h.subscribers.get(IMSI)?.sqn, 0x1000n + 32n);
    const next = again.nas[0]!;
    assert.ok(next.messageType === 'authenticationRequest');
    const smc = await step(
      h,
      radio,
      ue,
      uplinkNasTransport(ids, encodeNasMessage(ue.authenticationResponse(next))),
    );
    assert.deepEqual(
      smc.nas.map((m) => m.messageType),
      ['securityModeCommand'],
    );
    emitted.add(radio.received);
    await h.close();
  });

  it('an unknown 5G-GUTI -> Identity Request for the SUCI', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    const request = ue.registrationRequest({
      mobileIdentity: {
        type: '5g-guti',
        mcc: '001',
        mnc: '01',
        amfRegionId: 1,
        amfSetId: 1,
        amfPointer: 0,
        tmsi: 42,
      },
    });
    const first = await step(h, radio, ue, initialUeMessage(1, encodeNasMessage(request)));
    assert.deepEqual(
      first.nas.map((m) => m.messageType),
      ['identityRequest'],
    );
    const ids = { amf: amfUeNgapIdOf(first.pdus[0]!)!, ran: 1 };
    const identity = ue.registrationRequest().mobileIdentity;
    const next = await step(
      h,
      radio,
      ue,
      uplinkNasTransport(
        ids,
        encodeNasMessage({ messageType: 'identityResponse', mobileIdentity: identity }),
      ),
    );
    assert.deepEqual(
      next.nas.map((m) => m.messageType),
      ['authenticationRequest'],
    );
    // Logged once the SUPI is known, each in its place (network.md section 4).
    assert.deepEqual(
      h.subscriberLogs.slice(0, 4).map((l) => [l.event, l.direction]),
      [
        ['Registration Request', 'inbound'],
        ['Identity Request', 'outbound'],
        ['Identity Response', 'inbound'],
        ['Authentication Request', 'outbound'],
      ],
    );
    emitted.add(radio.received);
    await h.close();
  });

  it('T3560: four retransmissions, then the procedure is aborted and nothing is left', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    const first = await step(h, radio, ue, initialUeMessage(1, encodeNasMessage(ue.registrationRequest())));
    for (let i = 0; i < 4; i++) h.clock.advance(6_000);
    await h.settled();
    const requests = radio.received.filter((r) => nasPduOf(r.pdu) !== undefined);
    assert.equal(requests.length, 5);
    h.clock.advance(6_000);
    await h.settled();
    assert.equal(radio.types().at(-1), 'UEContextReleaseCommand');
    await step(h, radio, ue, ueContextReleaseComplete({ amf: amfUeNgapIdOf(first.pdus[0]!)!, ran: 1 }));
    assert.deepEqual(h.amf.counts(), { ues: 0, connections: 0 });
    assert.equal(h.clock.pendingTimers(), 0);
    emitted.add(radio.received);
    await h.close();
  });
});
