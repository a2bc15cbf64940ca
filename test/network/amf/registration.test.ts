import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { bitStringHex } from '../../../src/network/asn1/bit-string.ts';
import { encodeNasMessage, type NasMessage } from '../../../src/network/nas/index.ts';
import type { NGAPPDU } from '../../../src/network/ngap/generated/types.ts';
import { ieValue } from '../../../src/network/ngap/ngap-values.ts';
import { emittedPdus } from './emitted.ts';
import type { TestRadio } from './n2-harness.ts';
import {
  amfUeNgapIdOf,
  createAmfHarness,
  IMSI,
  initialContextSetupResponse,
  initialUeMessage,
  nasPduOf,
  TestUe,
  ueContextReleaseComplete,
  ueContextReleaseRequest,
  uplinkNasTransport,
  type AmfHarness,
} from './test-ue.ts';

const emitted = emittedPdus();
after(() => emitted.check());

/** The PDUs the AMF sent since `from`, and the NAS messages inside them, opened by `ue`. */
function since(radio: TestRadio, from: number): NGAPPDU[] {
  return radio.received.slice(from).map((r) => r.pdu);
}

/** Lets the AMF's port reads (promises) and the fake transport run to quiet. */
async function settle(h: AmfHarness): Promise<void> {
  await h.settled();
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  await h.settled();
}

async function step(
  h: AmfHarness,
  radio: TestRadio,
  ue: TestUe,
  send: NGAPPDU,
): Promise<{ pdus: NGAPPDU[]; nas: NasMessage[] }> {
  const from = radio.received.length;
  radio.send(send, 1);
  await h.settled();
  // Promises inside the AMF (ports) settle over several turns.
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  await h.settled();
  const pdus = since(radio, from);
  const nas = pdus
    .map(nasPduOf)
    .filter((p): p is Uint8Array => p !== undefined)
    .map((p) => ue.open(p));
  return { pdus, nas };
}

/** Initial registration to the Registration Accept; returns the connection's ids. */
async function registerUntilAccept(h: AmfHarness, radio: TestRadio, ue: TestUe) {
  const request = ue.registrationRequest();
  const ran = ue.options.ranUeNgapId;
  const first = await step(h, radio, ue, initialUeMessage(ran, encodeNasMessage(request)));
  assert.deepEqual(
    first.nas.map((m) => m.messageType),
    ['authenticationRequest'],
  );
  const amf = amfUeNgapIdOf(first.pdus[0]!)!;
  const ids = { amf, ran };
  const challenge = first.nas[0]!;
  assert.equal(challenge.messageType, 'authenticationRequest');
  const second = await step(
    h,
    radio,
    ue,
    uplinkNasTransport(ids, encodeNasMessage(ue.authenticationResponse(challenge))),
  );
  assert.deepEqual(
    second.nas.map((m) => m.messageType),
    ['securityModeCommand'],
  );
  const third = await step(h, radio, ue, uplinkNasTransport(ids, ue.securityModeComplete(request)));
  assert.deepEqual(
    third.nas.map((m) => m.messageType),
    ['registrationAccept'],
  );
  // KgNB from the uplink NAS COUNT of Security Mode Complete (TS 33.501 A.9), as the UE derives it.
  return { ids, accept: third, kgnb: ue.kgnb() };
}

async function register(h: AmfHarness, radio: TestRadio, ue: TestUe) {
  const { ids, accept, kgnb } = await registerUntilAccept(h, radio, ue);
  await step(h, radio, ue, initialContextSetupResponse(ids));
  await step(h, radio, ue, uplinkNasTransport(ids, ue.protect({ messageType: 'registrationComplete' })));
  return { ids, accept, kgnb };
}

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

  it('a SUCI of no subscriber -> Registration Reject #9, nothing logged, nothing left', async () => {
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
    assert.equal(nas[0].fiveGmmCause, 9);
    assert.deepEqual(
      pdus.map((p) => p.choice === 'initiatingMessage' && p.value.name),
      ['DownlinkNASTransport', 'UEContextRelease'],
    );
    await step(h, radio, ue, ueContextReleaseComplete({ amf: amfUeNgapIdOf(pdus[0]!)!, ran: 1 }));
    assert.deepEqual(h.subscriberLogs, []);
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
    assert.deepEqual(
      h.subscriberLogs.slice(0, 2).map((l) => l.event),
      ['Registration Request', 'Identity Response'],
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

describe('After registration', () => {
  it('release to idle, service request back, deregistration (TS 24.501 5.3.7, 5.6.1, 5.5.2.2)', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    const { ids } = await register(h, radio, ue);
    const released = await step(h, radio, ue, ueContextReleaseRequest(ids));
    assert.deepEqual(
      released.pdus.map((p) => p.choice === 'initiatingMessage' && p.value.name),
      ['UEContextRelease'],
    );
    await step(h, radio, ue, ueContextReleaseComplete(ids));
    assert.equal(h.amf.counts().connections, 0);
    assert.equal(h.state.subscriber(IMSI).registered, true, 'an idle device stays registered');

    const guti = ue.received.find((m) => m.messageType === 'registrationAccept');
    assert.ok(guti?.messageType === 'registrationAccept' && guti.fiveGGuti?.type === '5g-guti');
    const tmsi = guti.fiveGGuti.tmsi;
    const service = ue.protect(
      {
        messageType: 'serviceRequest',
        ngKsi: ue.security!.ngKsi,
        serviceType: 0,
        fiveGSTmsi: { type: '5g-s-tmsi', amfSetId: 1, amfPointer: 0, tmsi },
      },
      1,
    );
    const back = await step(h, radio, ue, initialUeMessage(2, service));
    assert.deepEqual(
      back.nas.map((m) => m.messageType),
      ['serviceAccept'],
    );
    const setup = back.pdus[0]!;
    assert.ok(setup.choice === 'initiatingMessage' && setup.value.name === 'InitialContextSetup');
    const key = ieValue(setup.value.value.protocolIEs, 'SecurityKey');
    assert.equal(key && bitStringHex(key), ue.kgnb().toString('hex'));
    const ids2 = { amf: amfUeNgapIdOf(setup)!, ran: 2 };
    await step(h, radio, ue, initialContextSetupResponse(ids2));

    const bye = await step(
      h,
      radio,
      ue,
      uplinkNasTransport(
        ids2,
        ue.protect({
          messageType: 'deregistrationRequestUeOriginating',
          deregistrationType: { switchOff: false, reRegistrationRequired: false, accessType: 1 },
          ngKsi: ue.security!.ngKsi,
          mobileIdentity: guti.fiveGGuti,
        }),
      ),
    );
    assert.deepEqual(
      bye.nas.map((m) => m.messageType),
      ['deregistrationAcceptUeOriginating'],
    );
    assert.equal(h.state.subscriber(IMSI).registered, false);
    await step(h, radio, ue, ueContextReleaseComplete(ids2));
    assert.deepEqual(h.amf.counts(), { ues: 0, connections: 0 });
    assert.equal(h.clock.pendingTimers(), 0);
    emitted.add(radio.received);
    await h.close();
  });

  it('a replayed or tampered NAS message is discarded; garbage releases only its own connection', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    const { ids } = await register(h, radio, ue);
    const complete = ue.protect({ messageType: 'registrationComplete' });
    const before = h.subscriberLogs.length;
    await step(h, radio, ue, uplinkNasTransport(ids, complete));
    const replay = await step(h, radio, ue, uplinkNasTransport(ids, complete));
    assert.deepEqual(replay.pdus, []);
    const tampered = Uint8Array.from(ue.protect({ messageType: 'registrationComplete' }));
    tampered[3] = (tampered[3] ?? 0) ^ 1;
    await step(h, radio, ue, uplinkNasTransport(ids, tampered));
    assert.equal(h.subscriberLogs.length, before + 1, 'only the first, verified message is logged');

    const garbage = await step(
      h,
      radio,
      new TestUe(),
      initialUeMessage(9, Uint8Array.of(0x7e, 0, 0x41, 0xff)),
    );
    assert.deepEqual(
      garbage.pdus.map((p) => p.choice === 'initiatingMessage' && p.value.name),
      ['UEContextRelease'],
    );
    assert.equal(h.state.subscriber(IMSI).registered, true);
    emitted.add(radio.received);
    await h.close();
  });

  it('an Uplink NAS Transport naming no connection -> Error Indication unknown-local-UE-NGAP-ID', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const answer = await step(
      h,
      radio,
      new TestUe(),
      uplinkNasTransport({ amf: 999, ran: 5 }, Uint8Array.of(0x7e, 0, 0x43)),
    );
    const indication = answer.pdus[0];
    assert.ok(indication?.choice === 'initiatingMessage' && indication.value.name === 'ErrorIndication');
    assert.deepEqual(ieValue(indication.value.value.protocolIEs, 'Cause'), {
      choice: 'radioNetwork',
      value: 'unknown-local-UE-NGAP-ID',
    });
    emitted.add(radio.received);
    await h.close();
  });
});

describe('Network-initiated and implicit deregistration (TS 24.501 5.5.2.3, 5.3.7)', () => {
  it('a deleted subscriber: Deregistration Request #7, shown deregistered at once, released on the accept', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    const { ids } = await register(h, radio, ue);
    h.subscriptions.delete(IMSI);
    const from = radio.received.length;
    h.events.publish({ resource: 'subscriber', change: 'deleted', name: IMSI });
    await settle(h);
    ue.open(nasPduOf(radio.received.at(-1)!.pdu)!);
    const request = ue.received.at(-1);
    assert.ok(request?.messageType === 'deregistrationRequestUeTerminated');
    assert.equal(request.fiveGmmCause, 7);
    assert.equal(h.state.subscriber(IMSI).registered, false);
    assert.ok(radio.received.length > from);
    const done = await step(
      h,
      radio,
      ue,
      uplinkNasTransport(ids, ue.protect({ messageType: 'deregistrationAcceptUeTerminated' })),
    );
    assert.deepEqual(
      done.pdus.map((p) => p.choice === 'initiatingMessage' && p.value.name),
      ['UEContextRelease'],
    );
    emitted.add(radio.received);
    await h.close();
  });

  it('an idle device is deregistered after the mobile reachable and implicit deregistration timers', async () => {
    const h = await createAmfHarness({ mobileReachableMs: 60_000, implicitDeregistrationMs: 30_000 });
    const radio = await h.radio();
    const ue = new TestUe();
    const { ids } = await register(h, radio, ue);
    await step(h, radio, ue, ueContextReleaseRequest(ids));
    await step(h, radio, ue, ueContextReleaseComplete(ids));
    h.clock.advance(60_000);
    assert.equal(
      h.state.subscriber(IMSI).registered,
      true,
      'still registered during implicit deregistration',
    );
    h.clock.advance(30_000);
    assert.equal(h.state.subscriber(IMSI).registered, false);
    assert.deepEqual(h.amf.counts(), { ues: 0, connections: 0 });
    assert.equal(h.clock.pendingTimers(), 0);
    emitted.add(radio.received);
    await h.close();
  });
});
