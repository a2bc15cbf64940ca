import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ieValue } from '../../helpers/ie-value.ts';
import {
  answered,
  namesOf,
  register,
  registerUntilAccept,
  serviceRequestPdu,
  settle,
  step,
} from './amf-steps.ts';
import { emittedPdus } from './emitted.ts';
import { amfConfigurationUpdateAnswer, ngSetupRequest, taList } from './messages.ts';
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

/** Another radio, set up with its own node id, name and TAC. */
async function radioAt(h: AmfHarness, gnbId: number, tacValue: number): Promise<TestRadio> {
  const radio = await h.connect();
  radio.send(ngSetupRequest({ gnbId, name: `gnb-${gnbId}`, taList: taList({ tac: tacValue }) }));
  await h.settled();
  assert.deepEqual(radio.types(), ['NGSetupResponse']);
  return radio;
}

/** The Paging PDUs a radio received since `from`: their 5G-TMSI and TACs. */
function pagings(radio: TestRadio, from = 0) {
  return radio.received.slice(from).flatMap(({ pdu, streamId }) => {
    if (pdu.choice !== 'initiatingMessage' || pdu.value.name !== 'Paging') return [];
    const ies = pdu.value.value.protocolIEs;
    const identity = ieValue(ies, 'UEPagingIdentity');
    const tais = ieValue(ies, 'TAIListForPaging') ?? [];
    return [
      {
        streamId,
        tmsi:
          identity?.choice === 'fiveG-S-TMSI' ? Buffer.from(identity.value.fiveGTMSI).readUInt32BE(0) : -1,
        tacs: tais.map((item) => Buffer.from(item.tAI.tAC).toString('hex')),
      },
    ];
  });
}

/** Registers the UE through `radio` and lets it go idle; its 5G-TMSI. */
async function registeredIdle(h: AmfHarness, radio: TestRadio, ue: TestUe): Promise<number> {
  const { ids, guti } = await register(h, radio, ue);
  await step(h, radio, ue, ueContextReleaseRequest(ids));
  await step(h, radio, ue, ueContextReleaseComplete(ids));
  assert.equal(h.amf.counts().connections, 0);
  return guti.tmsi;
}

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
    assert.deepEqual(namesOf(done.pdus), ['UEContextRelease']);
    emitted.add(radio.received);
    await h.close();
  });

  it('a subscriber deleted while its device registers: Deregistration Request #7 right after Registration Complete', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    const { ids } = await registerUntilAccept(h, radio, ue);
    await step(h, radio, ue, initialContextSetupResponse(ids));
    h.subscriptions.delete(IMSI);
    h.events.publish({ resource: 'subscriber', change: 'deleted', name: IMSI });
    await settle(h);
    const complete = await step(
      h,
      radio,
      ue,
      uplinkNasTransport(ids, ue.protect({ messageType: 'registrationComplete' })),
    );
    const request = complete.nas.find((m) => m.messageType === 'deregistrationRequestUeTerminated');
    assert.ok(request?.messageType === 'deregistrationRequestUeTerminated');
    assert.equal(request.fiveGmmCause, 7);
    assert.equal(h.state.subscriber(IMSI).registered, false);
    emitted.add(radio.received);
    await h.close();
  });

  it('an idle device is paged through the radios of its registration area, then deregistered after its Service Request', async () => {
    const h = await createAmfHarness();
    const home = await h.radio();
    const ue = new TestUe();
    const tmsi = await registeredIdle(h, home, ue);
    // The operator adds TAC 000002 after the registration: the UE's registration area is still TAC 1.
    h.operator.configuration.tacs = ['000001', '000002'];
    h.events.publish({ resource: 'operator', change: 'changed', name: '' });
    await settle(h);
    assert.equal(home.types().at(-1), 'AMFConfigurationUpdate');
    home.send(amfConfigurationUpdateAnswer());
    await settle(h);
    const elsewhere = await radioAt(h, 2, 2);
    const neighbour = await radioAt(h, 3, 1);
    // Another device's signalling through the radio outside the area must not make it a paging target.
    elsewhere.send(initialUeMessage(5, Uint8Array.of(0x7e, 0, 0x41, 0xff)), 1);
    await settle(h);
    const command = elsewhere.received.at(-1)?.pdu;
    assert.ok(command?.choice === 'initiatingMessage' && command.value.name === 'UEContextRelease');
    const released = ieValue(command.value.value.protocolIEs, 'UE-NGAP-IDs');
    assert.ok(released?.choice === 'uE-NGAP-ID-pair');
    elsewhere.send(ueContextReleaseComplete({ amf: released.value.aMFUENGAPID, ran: 5 }), 1);
    await settle(h);
    const marks = [home, elsewhere, neighbour].map((r) => r.received.length);

    h.subscriptions.delete(IMSI);
    h.events.publish({ resource: 'subscriber', change: 'deleted', name: IMSI });
    await settle(h);
    assert.equal(h.state.subscriber(IMSI).registered, false, 'the API shows it deregistered at once');
    const expected = [{ streamId: 0, tmsi, tacs: ['000001'] }];
    assert.deepEqual(pagings(home, marks[0]), expected);
    assert.deepEqual(pagings(neighbour, marks[2]), expected, 'a radio of the area that never carried the UE');
    assert.deepEqual(pagings(elsewhere, marks[1]), [], 'TAC 2 is outside the registration area');

    // T3513 repeats it.
    h.clock.advance(6_000);
    await settle(h);
    assert.equal(pagings(neighbour, marks[2]).length, 2);

    // The UE answers in the neighbour's cell: the deregistration runs over the new connection.
    const from = neighbour.received.length;
    neighbour.send(initialUeMessage(7, serviceRequestPdu(ue)), 1);
    await settle(h);
    const { pdus, nas } = answered(neighbour, ue, from);
    assert.deepEqual(
      nas.map((m) => m.messageType),
      ['deregistrationRequestUeTerminated'],
    );
    assert.ok(nas[0]?.messageType === 'deregistrationRequestUeTerminated');
    assert.equal(nas[0].fiveGmmCause, 7);
    const ids = { amf: amfUeNgapIdOf(pdus[0]!)!, ran: 7 };
    const done = await step(
      h,
      neighbour,
      ue,
      uplinkNasTransport(ids, ue.protect({ messageType: 'deregistrationAcceptUeTerminated' })),
    );
    assert.deepEqual(namesOf(done.pdus), ['UEContextRelease']);
    await step(h, neighbour, ue, ueContextReleaseComplete(ids));
    assert.deepEqual(h.amf.counts(), { ues: 0, connections: 0 });
    assert.equal(h.clock.pendingTimers(), 0);
    assert.deepEqual(
      h.subscriberLogs.slice(-3).map((l) => `${l.direction} ${l.event}`),
      ['inbound Service Request', 'outbound Deregistration Request', 'inbound Deregistration Accept'],
    );
    for (const radio of [home, elsewhere, neighbour]) emitted.add(radio.received);
    await h.close();
  });

  it('an idle device that never answers the paging is deregistered locally after the last T3513 expiry', async () => {
    const h = await createAmfHarness();
    const radio = await h.radio();
    const ue = new TestUe();
    await registeredIdle(h, radio, ue);
    const from = radio.received.length;
    h.subscriptions.delete(IMSI);
    h.events.publish({ resource: 'subscriber', change: 'deleted', name: IMSI });
    await settle(h);
    for (let i = 0; i < 5; i++) h.clock.advance(6_000);
    await settle(h);
    assert.equal(pagings(radio, from).length, 5, 'the first Paging and four repetitions');
    assert.deepEqual(h.amf.counts(), { ues: 0, connections: 0 });
    assert.equal(h.clock.pendingTimers(), 0);
    await h.close();
  });

  it('an idle device is deregistered after the mobile reachable and implicit deregistration timers', async () => {
    const h = await createAmfHarness({ mobileReachableMs: 60_000, implicitDeregistrationMs: 30_000 });
    const radio = await h.radio();
    const ue = new TestUe();
    await registeredIdle(h, radio, ue);
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
