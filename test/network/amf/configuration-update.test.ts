import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { encodeNasMessage, type NasMessageOf } from '../../../src/network/nas/index.ts';
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
  type AmfHarness,
} from './test-ue.ts';

const emitted = emittedPdus();
after(() => emitted.check());

/** Two operator slices; the UE requests none, so both are allowed until a policy narrows them. */
const TWO_SLICES = { slices: [{ sst: 1, sd: '010203' }, { sst: 2 }] };

/** The subscriber's only policy now names slice 1/010203: slice 2 is no longer allowed. */
function narrowPolicy(h: AmfHarness, slice: { sst: number; sd?: string } = { sst: 1, sd: '010203' }): void {
  const subscription = h.subscriptions.get(IMSI)!;
  subscription.authorisedSessions = subscription.authorisedSessions.map((s) => ({ ...s, slice }));
  h.events.publish({ resource: 'policy', change: 'changed', name: 'default' });
}

/** A device registered with both slices allowed (it requests none), connected. */
async function registeredOnTwoSlices() {
  const h = await createAmfHarness({}, TWO_SLICES);
  const radio = await h.radio();
  const ue = new TestUe();
  const { ids } = await register(h, radio, ue, ue.registrationRequest({ requestedNssai: undefined }));
  return { h, radio, ue, ids };
}

const commandsIn = (nas: readonly { messageType: string }[]) =>
  nas.filter(
    (m): m is NasMessageOf<'configurationUpdateCommand'> => m.messageType === 'configurationUpdateCommand',
  );

describe('Generic UE configuration update (TS 24.501 5.4.4)', () => {
  it('a policy change narrows a connected device’s slices: Configuration Update Command, acknowledged', async () => {
    const { h, radio, ue, ids } = await registeredOnTwoSlices();
    const accept = ue.received.find((m) => m.messageType === 'registrationAccept');
    assert.ok(accept?.messageType === 'registrationAccept');
    assert.deepEqual(accept.allowedNssai, [{ sst: 1, sd: 0x010203 }, { sst: 2 }]);

    const from = radio.received.length;
    narrowPolicy(h);
    await settle(h);
    const [command, ...more] = commandsIn(answered(radio, ue, from).nas);
    assert.ok(command !== undefined);
    assert.deepEqual(more, []);
    assert.equal(command.configurationUpdateIndication, 1, 'acknowledgement requested, no registration');
    assert.deepEqual(command.allowedNssai, [{ sst: 1, sd: 0x010203 }]);

    // T3555 retransmits it until Configuration Update Complete.
    const retransmitted = radio.received.length;
    h.clock.advance(6_000);
    await settle(h);
    assert.equal(commandsIn(answered(radio, ue, retransmitted).nas).length, 1);
    await step(
      h,
      radio,
      ue,
      uplinkNasTransport(ids, ue.protect({ messageType: 'configurationUpdateComplete' })),
    );
    assert.equal(h.clock.pendingTimers(), 0, 'T3555 stopped');
    const completed = radio.received.length;
    h.clock.advance(60_000);
    await settle(h);
    assert.deepEqual(radio.received.slice(completed), []);
    assert.equal(h.state.subscriber(IMSI).registered, true);
    assert.deepEqual(
      h.subscriberLogs.slice(-3).map((l) => `${l.direction} ${l.event}`),
      [
        'outbound Configuration Update Command',
        'outbound Configuration Update Command',
        'inbound Configuration Update Complete',
      ],
    );
    emitted.add(radio.received);
    await h.close();
  });

  it('a change that leaves the slices as they were sends nothing', async () => {
    const h = await createAmfHarness({}, TWO_SLICES);
    const radio = await h.radio();
    const ue = new TestUe();
    await register(h, radio, ue);
    const from = radio.received.length;
    h.events.publish({ resource: 'profile', change: 'changed', name: 'default' });
    await settle(h);
    assert.deepEqual(radio.received.slice(from), []);
    await h.close();
  });

  it('a change while the device registers (after its Registration Accept): the command follows Registration Complete', async () => {
    const h = await createAmfHarness({}, TWO_SLICES);
    const radio = await h.radio();
    const ue = new TestUe();
    const { ids } = await registerUntilAccept(
      h,
      radio,
      ue,
      ue.registrationRequest({ requestedNssai: undefined }),
    );
    await step(h, radio, ue, initialContextSetupResponse(ids));
    narrowPolicy(h);
    await settle(h);
    const complete = await step(
      h,
      radio,
      ue,
      uplinkNasTransport(ids, ue.protect({ messageType: 'registrationComplete' })),
    );
    const [command, ...more] = commandsIn(complete.nas);
    assert.deepEqual(more, []);
    assert.deepEqual(command?.allowedNssai, [{ sst: 1, sd: 0x010203 }]);
    emitted.add(radio.received);
    await h.close();
  });

  it('a change while the device authenticates (its subscription already read): the command follows Registration Complete', async () => {
    const h = await createAmfHarness({}, TWO_SLICES);
    const radio = await h.radio();
    const ue = new TestUe();
    const request = ue.registrationRequest({ requestedNssai: undefined });
    const first = await step(h, radio, ue, initialUeMessage(1, encodeNasMessage(request)));
    const challenge = first.nas[0];
    assert.equal(challenge?.messageType, 'authenticationRequest');
    const ids = { amf: amfUeNgapIdOf(first.pdus[0]!)!, ran: 1 };
    narrowPolicy(h);
    await settle(h);
    await step(h, radio, ue, uplinkNasTransport(ids, encodeNasMessage(ue.authenticationResponse(challenge))));
    const accepted = await step(h, radio, ue, uplinkNasTransport(ids, ue.securityModeComplete(request)));
    const accept = accepted.nas.find((m) => m.messageType === 'registrationAccept');
    assert.ok(accept?.messageType === 'registrationAccept');
    assert.deepEqual(
      accept.allowedNssai,
      [{ sst: 1, sd: 0x010203 }, { sst: 2 }],
      'built from the subscription read before',
    );
    await step(h, radio, ue, initialContextSetupResponse(ids));
    const complete = await step(
      h,
      radio,
      ue,
      uplinkNasTransport(ids, ue.protect({ messageType: 'registrationComplete' })),
    );
    assert.deepEqual(
      commandsIn(complete.nas).map((c) => c.allowedNssai),
      [[{ sst: 1, sd: 0x010203 }]],
    );
    emitted.add(radio.received);
    await h.close();
  });

  it('a second change while the first command waits for its Complete: the second command follows the Complete', async () => {
    const { h, radio, ue, ids } = await registeredOnTwoSlices();
    const from = radio.received.length;
    narrowPolicy(h);
    await settle(h);
    assert.deepEqual(commandsIn(answered(radio, ue, from).nas)[0]?.allowedNssai, [{ sst: 1, sd: 0x010203 }]);
    const waiting = radio.received.length;
    narrowPolicy(h, { sst: 2 });
    await settle(h);
    assert.deepEqual(answered(radio, ue, waiting).nas, [], 'one procedure at a time (5.4.4.1)');
    const next = await step(
      h,
      radio,
      ue,
      uplinkNasTransport(ids, ue.protect({ messageType: 'configurationUpdateComplete' })),
    );
    assert.deepEqual(
      commandsIn(next.nas).map((c) => c.allowedNssai),
      [[{ sst: 2 }]],
    );
    emitted.add(radio.received);
    await h.close();
  });

  it('an idle device hears of it after its Service Request, once the radio has its context (5.4.4.1)', async () => {
    const { h, radio, ue, ids } = await registeredOnTwoSlices();
    await step(h, radio, ue, ueContextReleaseRequest(ids));
    await step(h, radio, ue, ueContextReleaseComplete(ids));
    const from = radio.received.length;
    narrowPolicy(h);
    await settle(h);
    assert.deepEqual(radio.received.slice(from), [], 'nothing while idle: the procedure needs a connection');

    const back = await step(h, radio, ue, initialUeMessage(2, serviceRequestPdu(ue)));
    assert.deepEqual(
      back.nas.map((m) => m.messageType),
      ['serviceAccept'],
    );
    const ids2 = { amf: amfUeNgapIdOf(back.pdus[0]!)!, ran: 2 };
    const update = await step(h, radio, ue, initialContextSetupResponse(ids2));
    assert.deepEqual(namesOf(update.pdus), ['DownlinkNASTransport']);
    assert.deepEqual(commandsIn(update.nas)[0]?.allowedNssai, [{ sst: 1, sd: 0x010203 }]);
    await step(
      h,
      radio,
      ue,
      uplinkNasTransport(ids2, ue.protect({ messageType: 'configurationUpdateComplete' })),
    );
    assert.equal(h.clock.pendingTimers(), 0);
    emitted.add(radio.received);
    await h.close();
  });

  it('the connection is lost before Configuration Update Complete: the command goes again after the Service Request (5.4.4.5 a)', async () => {
    const { h, radio, ue, ids } = await registeredOnTwoSlices();
    const from = radio.received.length;
    narrowPolicy(h);
    await settle(h);
    assert.equal(commandsIn(answered(radio, ue, from).nas).length, 1);
    // The radio loses the UE before it answers: release requested and completed.
    await step(h, radio, ue, ueContextReleaseRequest(ids));
    await step(h, radio, ue, ueContextReleaseComplete(ids));
    assert.equal(h.clock.pendingTimers(), 1, 'T3555 stopped with the connection; mobile reachable runs');

    const back = await step(h, radio, ue, initialUeMessage(2, serviceRequestPdu(ue)));
    assert.deepEqual(
      back.nas.map((m) => m.messageType),
      ['serviceAccept'],
    );
    const ids2 = { amf: amfUeNgapIdOf(back.pdus[0]!)!, ran: 2 };
    const again = await step(h, radio, ue, initialContextSetupResponse(ids2));
    const [command, ...more] = commandsIn(again.nas);
    assert.deepEqual(command?.allowedNssai, [{ sst: 1, sd: 0x010203 }], 'sent again once connected');
    assert.deepEqual(more, []);
    await step(
      h,
      radio,
      ue,
      uplinkNasTransport(ids2, ue.protect({ messageType: 'configurationUpdateComplete' })),
    );
    assert.equal(h.clock.pendingTimers(), 0);
    // Acknowledged now: a later release and Service Request bring no command.
    await step(h, radio, ue, ueContextReleaseRequest(ids2));
    await step(h, radio, ue, ueContextReleaseComplete(ids2));
    const third = await step(h, radio, ue, initialUeMessage(3, serviceRequestPdu(ue)));
    const ids3 = { amf: amfUeNgapIdOf(third.pdus[0]!)!, ran: 3 };
    const quiet = await step(h, radio, ue, initialContextSetupResponse(ids3));
    assert.deepEqual(commandsIn(quiet.nas), []);
    emitted.add(radio.received);
    await h.close();
  });

  it('the connection is lost before the command is acknowledged, then the device registers: the Accept carries the slices, no command follows', async () => {
    const { h, radio, ue, ids } = await registeredOnTwoSlices();
    narrowPolicy(h);
    await settle(h);
    await step(h, radio, ue, ueContextReleaseRequest(ids));
    await step(h, radio, ue, ueContextReleaseComplete(ids));
    const from = radio.received.length;
    const second = new TestUe({ ranUeNgapId: 4 });
    await register(h, radio, second, second.registrationRequest({ requestedNssai: undefined }));
    const { nas } = answered(radio, second, from);
    const accept = nas.find((m) => m.messageType === 'registrationAccept');
    assert.ok(accept?.messageType === 'registrationAccept');
    assert.deepEqual(accept.allowedNssai, [{ sst: 1, sd: 0x010203 }]);
    assert.deepEqual(commandsIn(nas), []);
    await h.close();
  });

  it('T3555: four retransmissions, then the procedure is aborted; the device stays registered', async () => {
    const h = await createAmfHarness({}, TWO_SLICES);
    const radio = await h.radio();
    const ue = new TestUe();
    await register(h, radio, ue, ue.registrationRequest({ requestedNssai: undefined }));
    const from = radio.received.length;
    narrowPolicy(h);
    await settle(h);
    for (let i = 0; i < 5; i++) h.clock.advance(6_000);
    await settle(h);
    assert.equal(commandsIn(answered(radio, ue, from).nas).length, 5);
    assert.equal(h.clock.pendingTimers(), 0);
    assert.equal(h.state.subscriber(IMSI).registered, true);
    assert.equal(h.amf.counts().connections, 1, 'the connection stays: 5.4.4.5 only aborts the procedure');
    await h.close();
  });

  it('no slice left for the device -> network-initiated deregistration #62', async () => {
    const h = await createAmfHarness({}, TWO_SLICES);
    const radio = await h.radio();
    const ue = new TestUe();
    await register(h, radio, ue);
    const from = radio.received.length;
    narrowPolicy(h, { sst: 9 });
    await settle(h);
    const { nas } = answered(radio, ue, from);
    assert.deepEqual(
      nas.map((m) => m.messageType),
      ['deregistrationRequestUeTerminated'],
    );
    assert.ok(nas[0]?.messageType === 'deregistrationRequestUeTerminated');
    assert.equal(nas[0].fiveGmmCause, 62);
    assert.equal(h.state.subscriber(IMSI).registered, false);
    emitted.add(radio.received);
    await h.close();
  });
});
