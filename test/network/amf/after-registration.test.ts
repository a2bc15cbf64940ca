import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { bitStringHex } from '../../../src/network/asn1/bit-string.ts';
import { ieValue } from '../../helpers/ie-value.ts';
import { register, step } from './amf-steps.ts';
import { emittedPdus } from './emitted.ts';
import {
  amfUeNgapIdOf,
  createAmfHarness,
  IMSI,
  initialContextSetupResponse,
  initialUeMessage,
  TestUe,
  ueContextReleaseComplete,
  ueContextReleaseRequest,
  uplinkNasTransport,
} from './test-ue.ts';

const emitted = emittedPdus();
after(() => emitted.check());

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
    // TS 38.413 8.2.7.2: the ids the faulty message named go back with the indication.
    assert.equal(ieValue(indication.value.value.protocolIEs, 'AMF-UE-NGAP-ID'), 999);
    assert.equal(ieValue(indication.value.value.protocolIEs, 'RAN-UE-NGAP-ID'), 5);
    emitted.add(radio.received);
    await h.close();
  });
});
