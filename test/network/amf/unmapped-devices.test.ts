import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createMetrics } from '../../../src/metrics/metrics.ts';
import type { NasMessageEvent } from '../../../src/network/events/network-events.ts';
import { encodeNasMessage, REGISTRATION_TYPE, type MobileIdentity } from '../../../src/network/nas/index.ts';
import { installNetworkEventMetrics } from '../../../src/network/network-metrics.ts';
import { register, step } from './amf-steps.ts';
import { emittedPdus } from './emitted.ts';
import {
  amfUeNgapIdOf,
  createAmfHarness,
  IMSI,
  initialUeMessage,
  TestUe,
  ueContextReleaseComplete,
  ueContextReleaseRequest,
  uplinkNasTransport,
  type AmfHarness,
} from './test-ue.ts';

/**
 * Devices the core cannot map to a subscriber (issue 28; network.md sections 4 and 5): a permanent
 * identity the network does not accept gets Registration Reject #7, which the UE acts on (TS 24.501
 * 5.5.1.2.5), never #9 (not listed there for an initial registration: the UE retries every T3511 without
 * end, 5.5.1.2.7). Their messages are logged with the IMSI the SUCI shows in clear, else none, and the
 * SUCI or 5G-GUTI they named; rejects at level warn.
 */

const emitted = emittedPdus();
after(() => emitted.check());

/** A 5G-GUTI of this AMF (region 1, set 1, pointer 0) that it never assigned. */
const UNKNOWN_GUTI: MobileIdentity = {
  type: '5g-guti',
  mcc: '001',
  mnc: '01',
  amfRegionId: 1,
  amfSetId: 1,
  amfPointer: 0,
  tmsi: 0x2a,
};
/** How the subscriber logs write it: MCC MNC, AMF ID (6 hex digits), 5G-TMSI (8 hex digits). */
const UNKNOWN_GUTI_TEXT = '00101' + '010040' + '0000002a';

const REJECT_7 = '5GS services not allowed (7)';

/** Sends an initial registration with an unknown 5G-GUTI; the AMF asks for the SUCI. */
async function withUnknownGuti(h: AmfHarness, ue: TestUe) {
  const radio = await h.radio();
  const request = ue.registrationRequest({ mobileIdentity: UNKNOWN_GUTI });
  const first = await step(h, radio, ue, initialUeMessage(1, encodeNasMessage(request)));
  assert.deepEqual(
    first.nas.map((m) => m.messageType),
    ['identityRequest'],
  );
  return { radio, ids: { amf: amfUeNgapIdOf(first.pdus[0]!)!, ran: 1 } };
}

const rows = (h: AmfHarness) =>
  h.subscriberLogs.map((l) => [l.imsi, l.level, l.direction, l.event, l.details?.['cause']]);

describe('Devices the core cannot map to a subscriber', () => {
  it('an unknown 5G-GUTI, then the SUCI of no subscriber: #7, the four messages logged under its clear IMSI', async () => {
    const h = await createAmfHarness();
    const metrics = createMetrics();
    installNetworkEventMetrics(metrics, h.networkEvents);
    const heard: NasMessageEvent[] = [];
    h.networkEvents.on('nas.message', (message) => heard.push(message));
    const ue = new TestUe({ imsi: '001010000000999' });
    const { radio, ids } = await withUnknownGuti(h, ue);
    const suci = ue.registrationRequest().mobileIdentity;
    const answer = await step(
      h,
      radio,
      ue,
      uplinkNasTransport(ids, encodeNasMessage({ messageType: 'identityResponse', mobileIdentity: suci })),
    );
    assert.deepEqual(
      answer.nas.map((m) => m.messageType === 'registrationReject' && m.fiveGmmCause),
      [7],
    );
    const imsi = '001010000000999';
    assert.deepEqual(rows(h), [
      [imsi, 'info', 'inbound', 'Registration Request', undefined],
      [imsi, 'info', 'outbound', 'Identity Request', undefined],
      [imsi, 'info', 'inbound', 'Identity Response', undefined],
      [imsi, 'warn', 'outbound', 'Registration Reject', REJECT_7],
    ]);
    assert.equal(h.subscriberLogs[3]?.details?.['suci'], 'suci-0-001-01-0-0-0-0000000999');
    // The network's events carry the same messages (live subscribers), and the reject is counted.
    assert.deepEqual(heard, h.subscriberLogs);
    const exposition = await metrics.render();
    assert.match(
      exposition,
      /pmn_nas_warnings_total\{message="Registration Reject",cause="5GS services not allowed \(7\)"\} 1/,
    );
    assert.doesNotMatch(exposition, /pmn_nas_warnings_total\{message="Identity Request"/);
    await step(h, radio, ue, ueContextReleaseComplete(ids));
    assert.deepEqual(h.amf.counts(), { ues: 0, connections: 0 });
    emitted.add(radio.received);
    await h.close();
  });

  it('an Identity Response without a SUCI (TS 24.501 5.4.3.3 b): #7, logged without IMSI under the 5G-GUTI', async () => {
    const h = await createAmfHarness();
    const ue = new TestUe();
    const { radio, ids } = await withUnknownGuti(h, ue);
    const answer = await step(
      h,
      radio,
      ue,
      uplinkNasTransport(
        ids,
        encodeNasMessage({
          messageType: 'identityResponse',
          mobileIdentity: { type: 'imei', digits: '490154203237518' },
        }),
      ),
    );
    assert.deepEqual(
      answer.nas.map((m) => m.messageType === 'registrationReject' && m.fiveGmmCause),
      [7],
    );
    assert.deepEqual(rows(h), [
      ['', 'info', 'inbound', 'Registration Request', undefined],
      ['', 'info', 'outbound', 'Identity Request', undefined],
      ['', 'info', 'inbound', 'Identity Response', undefined],
      ['', 'warn', 'outbound', 'Registration Reject', REJECT_7],
    ]);
    assert.ok(h.subscriberLogs.every((l) => l.details?.['guti'] === UNKNOWN_GUTI_TEXT));
    assert.equal(h.state.subscriber(IMSI).registered, false);
    emitted.add(radio.received);
    await h.close();
  });

  it('an unknown 5G-GUTI whose device never answers: logged without IMSI when T3570 gives up', async () => {
    const h = await createAmfHarness();
    const ue = new TestUe();
    const { radio, ids } = await withUnknownGuti(h, ue);
    assert.equal(h.subscriberLogs.length, 0, 'not logged while it may still turn out a subscriber');
    for (let i = 0; i < 5; i++) h.clock.advance(6_000);
    await h.settled();
    assert.deepEqual(rows(h), [
      ['', 'info', 'inbound', 'Registration Request', undefined],
      ['', 'info', 'outbound', 'Identity Request', undefined],
    ]);
    assert.ok(h.subscriberLogs.every((l) => l.details?.['guti'] === UNKNOWN_GUTI_TEXT));
    await step(h, radio, ue, ueContextReleaseComplete(ids));
    assert.deepEqual(h.amf.counts(), { ues: 0, connections: 0 });
    assert.equal(h.clock.pendingTimers(), 0);
    await h.close();
  });

  it('a Registration Request with neither SUCI nor 5G-GUTI (a PEI): #7, logged without IMSI', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    const request = ue.registrationRequest({ mobileIdentity: { type: 'imei', digits: '490154203237518' } });
    const answer = await step(h, radio, ue, initialUeMessage(1, encodeNasMessage(request)));
    assert.deepEqual(
      answer.nas.map((m) => m.messageType === 'registrationReject' && m.fiveGmmCause),
      [7],
    );
    assert.deepEqual(rows(h), [
      ['', 'info', 'inbound', 'Registration Request', undefined],
      ['', 'warn', 'outbound', 'Registration Reject', REJECT_7],
    ]);
    await h.close();
  });

  it('a periodic update of a device whose subscriber is gone: #7 under its SUPI (5.5.1.3.5)', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    const { ids, guti } = await register(h, radio, ue);
    await step(h, radio, ue, ueContextReleaseRequest(ids));
    await step(h, radio, ue, ueContextReleaseComplete(ids));
    // Gone from the subscription data without the AMF hearing of it (deleted between reads).
    h.subscriptions.delete(IMSI);
    const logged = h.subscriberLogs.length;
    const request = ue.registrationRequest({
      registrationType: { followOnRequestPending: false, value: REGISTRATION_TYPE.periodicUpdating },
      ngKsi: ue.security!.ngKsi,
      mobileIdentity: guti,
    });
    const answer = await step(h, radio, ue, initialUeMessage(2, ue.protect(request, 1)));
    assert.deepEqual(
      answer.nas.map((m) => m.messageType === 'registrationReject' && m.fiveGmmCause),
      [7],
    );
    assert.deepEqual(rows(h).slice(logged), [
      [IMSI, 'info', 'inbound', 'Registration Request', undefined],
      [IMSI, 'warn', 'outbound', 'Registration Reject', REJECT_7],
    ]);
    assert.equal(h.state.subscriber(IMSI).registered, false);
    emitted.add(radio.received);
    await h.close();
  });

  it('a Service Request with a 5G-S-TMSI the AMF does not know keeps #9 (TS 24.501 5.6.1.5)', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    const answer = await step(
      h,
      radio,
      ue,
      initialUeMessage(
        1,
        encodeNasMessage({
          messageType: 'serviceRequest',
          ngKsi: { mapped: false, ksi: 0 },
          serviceType: 0,
          fiveGSTmsi: { type: '5g-s-tmsi', amfSetId: 1, amfPointer: 0, tmsi: 0x2a },
        }),
      ),
    );
    assert.deepEqual(
      answer.nas.map((m) => m.messageType === 'serviceReject' && m.fiveGmmCause),
      [9],
    );
    await h.close();
  });
});
