import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeNasPdu, encodeNasMessage } from '../../../src/network/nas/index.ts';
import type { NGAPPDU } from '../../../src/network/ngap/generated/types.ts';
import { ieValue } from '../../helpers/ie-value.ts';
import { lastGuti, namesOf, register, serviceRequestPdu, settle, step } from './amf-steps.ts';
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

/** Mulberry32: a fixed-seed PRNG, so a failure replays. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** NAS Non Delivery Indication from the radio (TS 38.413 9.2.5.5). */
function nasNonDelivery(ids: { amf: number; ran: number }, nasPdu: Uint8Array): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 19,
      name: 'NASNonDeliveryIndication',
      criticality: 'ignore',
      value: {
        protocolIEs: [
          { id: 10, name: 'AMF-UE-NGAP-ID', criticality: 'reject', value: ids.amf },
          { id: 85, name: 'RAN-UE-NGAP-ID', criticality: 'reject', value: ids.ran },
          { id: 38, name: 'NAS-PDU', criticality: 'ignore', value: nasPdu },
          {
            id: 15,
            name: 'Cause',
            criticality: 'ignore',
            value: { choice: 'radioNetwork', value: 'radio-connection-with-ue-lost' },
          },
        ],
      },
    },
  };
}

/** The UE-associated connections the AMF asked the radio to release since `from`: their ids. */
function releaseCommands(received: { pdu: NGAPPDU }[], from: number) {
  return received.slice(from).flatMap(({ pdu }) => {
    if (pdu.choice !== 'initiatingMessage' || pdu.value.name !== 'UEContextRelease') return [];
    const ids = ieValue(pdu.value.value.protocolIEs, 'UE-NGAP-IDs');
    return ids?.choice === 'uE-NGAP-ID-pair'
      ? [{ amf: ids.value.aMFUENGAPID, ran: ids.value.rANUENGAPID }]
      : [];
  });
}

describe('NAS Non Delivery Indication (TS 38.413 8.6.4)', () => {
  it('changes nothing by itself: the NAS timer retransmits, the procedure goes on', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    const first = await step(h, radio, ue, initialUeMessage(1, encodeNasMessage(ue.registrationRequest())));
    const ids = { amf: amfUeNgapIdOf(first.pdus[0]!)!, ran: 1 };
    const lost = nasPduOf(first.pdus[0]!)!;
    const answer = await step(h, radio, ue, nasNonDelivery(ids, lost));
    assert.deepEqual(answer.pdus, [], 'no answer to the indication');
    h.clock.advance(6_000);
    await settle(h);
    const again = radio.received.at(-1)!.pdu;
    assert.equal(ue.open(nasPduOf(again)!).messageType, 'authenticationRequest', 'T3560 retransmits');
    // Ids of no connection (the UE's own RAN UE NGAP ID would be erroneous and released, TS 38.413 10.6).
    const unknown = await step(h, radio, ue, nasNonDelivery({ amf: 999, ran: 2 }, lost));
    assert.deepEqual(namesOf(unknown.pdus), ['ErrorIndication']);
    assert.deepEqual(h.amf.counts(), { ues: 1, connections: 1 });
    await h.close();
  });
});

describe('Limits (docs/registration.md)', () => {
  it('beyond maxConnections: Error Indication control-processing-overload, nothing kept', async () => {
    const h = await createAmfHarness({ maxConnections: 1 });
    const radio = await h.radio();
    const ue = new TestUe();
    await step(h, radio, ue, initialUeMessage(1, encodeNasMessage(ue.registrationRequest())));
    const second = new TestUe({ ranUeNgapId: 2 });
    const refused = await step(
      h,
      radio,
      second,
      initialUeMessage(2, encodeNasMessage(second.registrationRequest())),
    );
    assert.deepEqual(namesOf(refused.pdus), ['ErrorIndication']);
    const indication = refused.pdus[0]!;
    assert.ok(indication.choice === 'initiatingMessage' && indication.value.name === 'ErrorIndication');
    assert.deepEqual(ieValue(indication.value.value.protocolIEs, 'Cause'), {
      choice: 'misc',
      value: 'control-processing-overload',
    });
    assert.deepEqual(h.amf.counts(), { ues: 1, connections: 1 });
    await h.close();
  });

  it('beyond maxUeContexts: Registration Reject #22 (congestion) and release, nothing kept', async () => {
    const h = await createAmfHarness({ maxUeContexts: 1 });
    const radio = await h.radio();
    const ue = new TestUe();
    await register(h, radio, ue);
    // Another device (the registered one's own SUCI would replace its context: ue-context-limit.test.ts).
    const second = new TestUe({ imsi: '001010000000002', ranUeNgapId: 2 });
    const refused = await step(
      h,
      radio,
      second,
      initialUeMessage(2, encodeNasMessage(second.registrationRequest())),
    );
    assert.deepEqual(namesOf(refused.pdus), ['DownlinkNASTransport', 'UEContextRelease']);
    assert.deepEqual(
      refused.nas.map((m) => m.messageType === 'registrationReject' && m.fiveGmmCause),
      [22],
    );
    await step(h, radio, second, ueContextReleaseComplete({ amf: amfUeNgapIdOf(refused.pdus[0]!)!, ran: 2 }));
    assert.deepEqual(h.amf.counts(), { ues: 1, connections: 1 });
    assert.equal(h.state.subscriber(IMSI).registered, true, 'the registered device is untouched');
    await h.close();
  });
});

describe('NAS through the AMF, random and mutated (fixed seed)', () => {
  it('answers only with rejects, challenges or Error Indication, and leaves nothing behind', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    // A registered device whose connection carries the mutated uplink messages.
    const owner = new TestUe();
    const { ids } = await register(h, radio, owner);
    const ue = new TestUe();
    const seeds = [
      encodeNasMessage(new TestUe({ imsi: '001010000000002' }).registrationRequest()),
      encodeNasMessage(new TestUe({ imsi: '001010000000777' }).registrationRequest()),
      encodeNasMessage(ue.registrationRequest({ mobileIdentity: { ...lastGuti(owner), tmsi: 1 } })),
      serviceRequestPdu(owner),
      owner.protect({ messageType: 'registrationComplete' }),
      Uint8Array.of(0x7e, 0x00, 0x41),
      // The registered device's own SUCI from elsewhere: it must not take the device's context over.
      encodeNasMessage(new TestUe().registrationRequest()),
    ];
    const random = prng(0x16aa);
    const sentFrom = radio.received.length;
    let ran = 100;
    for (let i = 0; i < 600; i++) {
      const seed = seeds[Math.floor(i / 2) % seeds.length]!;
      let bytes: Uint8Array;
      if (i % 5 === 0) {
        bytes = Uint8Array.from({ length: 1 + Math.floor(random() * 48) }, () => Math.floor(random() * 256));
      } else {
        bytes = Uint8Array.from(seed);
        for (let flips = 1 + Math.floor(random() * 3); flips > 0; flips--)
          bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
        if (random() < 0.2) bytes = bytes.subarray(0, 1 + Math.floor(random() * bytes.length));
      }
      // Over the device's own connection only its protected messages, mutated: a plain Registration
      // Request there is the device starting over (TS 24.501 4.4.4.3), not an attack from elsewhere.
      const uplink = i % 2 === 1 && seed === seeds[4];
      radio.send(uplink ? uplinkNasTransport(ids, bytes) : initialUeMessage(ran++, bytes), 1);
      if (i % 50 === 0) await settle(h);
    }
    await settle(h);
    // Every NAS timer and release runs out (T3560/T3570 x 5, the 10 s release guard).
    for (let t = 0; t < 12; t++) {
      h.clock.advance(6_000);
      await settle(h);
    }
    for (const released of releaseCommands(radio.received, sentFrom))
      if (released.ran !== ids.ran) radio.send(ueContextReleaseComplete(released), 1);
    await settle(h);

    const allowed = new Set([
      'authenticationRequest',
      'identityRequest',
      'registrationReject',
      'serviceReject',
    ]);
    for (const { pdu } of radio.received.slice(sentFrom)) {
      const nas = nasPduOf(pdu);
      if (nas === undefined) continue;
      const decoded = decodeNasPdu(nas);
      assert.ok(decoded.ok && decoded.pdu.kind === 'plain', 'only plain answers to unverified senders');
      assert.ok(allowed.has(decoded.pdu.message.messageType), decoded.pdu.message.messageType);
    }
    assert.equal(h.state.subscriber(IMSI).registered, true, 'the device whose connection was fuzzed stays');
    assert.deepEqual(h.amf.counts(), { ues: 1, connections: 1 });
    assert.equal(h.clock.pendingTimers(), 0);
    await h.close();
  });
});
