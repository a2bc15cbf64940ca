import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { RadioLink, UeSignalling } from '../../../src/network/amf/n2/ue-signalling.ts';
import type {
  NGAPPDU,
  UEassociatedLogicalNGconnectionList,
} from '../../../src/network/ngap/generated/types.ts';
import { ieValue } from '../../helpers/ie-value.ts';
import { causeAndDiagnostics, emittedPdus } from './emitted.ts';
import { createHarness, type Harness, type TestRadio } from './n2-harness.ts';
import {
  amfConfigurationUpdateAnswer,
  errorIndicationFromRadio,
  initialUeMessage,
  ngReset,
  ngResetAcknowledgeFromRadio,
  ngSetupRequest,
  ranConfigurationUpdate,
  taList,
} from './messages.ts';

const emitted = emittedPdus();
after(() => emitted.check());

/** A harness with one gNB (id 1, `gnb-1`) that completed NG Setup; its answer is already consumed. */
async function connected(
  options: Parameters<typeof createHarness>[0] = {},
): Promise<{ h: Harness; radio: TestRadio }> {
  const h = await createHarness(options);
  const radio = await h.connect();
  radio.send(ngSetupRequest({ gnbId: 1, name: 'gnb-1' }));
  await h.settled();
  assert.deepEqual(radio.types(), ['NGSetupResponse']);
  emitted.add(radio.received.splice(0));
  h.radioEvents.length = 0;
  h.radioLogs.length = 0;
  return { h, radio };
}

async function exchange(
  h: Harness,
  radio: TestRadio,
  pdu: NGAPPDU | Uint8Array,
): Promise<TestRadio['received']> {
  radio.send(pdu);
  await h.settled();
  const answers = radio.received.splice(0);
  emitted.add(answers);
  return answers;
}

describe('RAN Configuration Update (TS 38.413 8.7.2)', () => {
  it('acknowledges, and the radio takes the new name and tracking areas', async () => {
    const { h, radio } = await connected();
    const tais = taList();
    tais.push({ ...tais[0]!, tAC: Uint8Array.of(0, 0, 2) });
    const answers = await exchange(h, radio, ranConfigurationUpdate({ name: 'gnb-renamed', taList: tais }));
    assert.deepEqual(
      answers.map((a) => a.messageType),
      ['RANConfigurationUpdateAcknowledge'],
    );
    const [listed] = h.state.radios();
    assert.equal(listed?.name, 'gnb-renamed');
    assert.deepEqual(
      listed?.supportedTais.map((t) => t.tai.tac),
      ['000001', '000002'],
    );
    assert.deepEqual(
      h.radioLogs.map((l) => [l.event, l.details?.radio]),
      [
        ['RAN Configuration Update', 'gnb-1'],
        ['RAN Configuration Update Acknowledge', 'gnb-renamed'],
      ],
    );
    await h.close();
  });

  it('refuses tracking areas outside the operator PLMN with the causes of NG Setup; the radio keeps its own', async () => {
    const { h, radio } = await connected();
    const answers = await exchange(
      h,
      radio,
      ranConfigurationUpdate({ taList: taList({ mcc: '999', mnc: '99' }) }),
    );
    assert.deepEqual(
      answers.map((a) => a.messageType),
      ['RANConfigurationUpdateFailure'],
    );
    assert.deepEqual(causeAndDiagnostics(answers[0]?.pdu).cause, {
      choice: 'misc',
      value: 'unknown-PLMN-or-SNPN',
    });
    assert.equal(h.state.radios()[0]?.supportedTais[0]?.tai.plmnID.mcc, '001');
    assert.deepEqual(
      [h.radioLogs.at(-1)?.event, h.radioLogs.at(-1)?.level],
      ['RAN Configuration Update Failure', 'warn'],
    );
    await h.close();
  });

  it('refuses one before NG Setup: message not compatible with receiver state (10.4)', async () => {
    const h = await createHarness();
    const radio = await h.connect();
    const answers = await exchange(h, radio, ranConfigurationUpdate({ name: 'early' }));
    assert.deepEqual(causeAndDiagnostics(answers[0]?.pdu).cause, {
      choice: 'protocol',
      value: 'message-not-compatible-with-receiver-state',
    });
    assert.equal(answers[0]?.messageType, 'RANConfigurationUpdateFailure');
    await h.close();
  });
});

describe('NG Reset (TS 38.413 8.7.4)', () => {
  it('acknowledges a reset of the whole interface from the radio, and releases its UE contexts', async () => {
    const resets: unknown[] = [];
    const ue: UeSignalling = {
      handlers: new Map(),
      reset: (_radio, connections) => {
        resets.push(connections);
        return connections === 'all' ? [] : connections;
      },
      radioReady: () => undefined,
      radioGone: () => undefined,
      radioRebound: () => undefined,
      subscriberOf: () => undefined,
    };
    const { h, radio } = await connected({ ue });
    const answers = await exchange(h, radio, ngReset());
    assert.deepEqual(
      answers.map((a) => a.messageType),
      ['NGResetAcknowledge'],
    );
    assert.deepEqual(resets, ['all']);
    assert.deepEqual(
      h.radioLogs.map((l) => l.event),
      ['NG Reset', 'NG Reset Acknowledge'],
    );
    await h.close();
  });

  it('lists the connections of a partial reset in its acknowledge, in the order received', async () => {
    const { h, radio } = await connected();
    const answers = await exchange(h, radio, ngReset([{ amfUeNgapId: 5 }, { ranUeNgapId: 9 }]));
    const ack = answers[0]?.pdu;
    assert.ok(ack?.choice === 'successfulOutcome' && ack.value.name === 'NGReset');
    const list: UEassociatedLogicalNGconnectionList | undefined = ieValue(
      ack.value.value.protocolIEs,
      'UE-associatedLogicalNG-connectionList',
    );
    assert.deepEqual(
      list?.map((c) => [c.aMFUENGAPID, c.rANUENGAPID]),
      [
        [5, undefined],
        [undefined, 9],
      ],
    );
    await h.close();
  });

  it('resets a radio from the AMF and takes its acknowledge; an acknowledge nobody asked for is an error', async () => {
    const { h, radio } = await connected();
    assert.equal(h.n2.reset('001:01:000001'), true);
    assert.equal(h.n2.reset('001:01:0000ff'), false);
    await h.settled();
    const sent = radio.received.splice(0);
    emitted.add(sent);
    assert.deepEqual(
      sent.map((s) => s.messageType),
      ['NGReset'],
    );
    assert.deepEqual(await exchange(h, radio, ngResetAcknowledgeFromRadio()), []);
    const unasked = await exchange(h, radio, ngResetAcknowledgeFromRadio());
    assert.deepEqual(causeAndDiagnostics(unasked[0]?.pdu), {
      cause: { choice: 'protocol', value: 'message-not-compatible-with-receiver-state' },
      diagnostics: {
        procedureCode: 20,
        triggeringMessage: 'successful-outcome',
        procedureCriticality: 'reject',
      },
    });
    await h.close();
  });
});

describe('Error Indication (TS 38.413 8.2.7, clause 10)', () => {
  it('records one from the radio (a warning in the radio logs) and does not answer it', async () => {
    const { h, radio } = await connected();
    assert.deepEqual(await exchange(h, radio, errorIndicationFromRadio()), []);
    assert.deepEqual(h.radioEvents.at(-1)?.details, { radio: 'gnb-1', cause: 'protocol/semantic-error' });
    assert.deepEqual(
      [h.radioLogs.at(-1)?.event, h.radioLogs.at(-1)?.level, h.radioLogs.at(-1)?.direction],
      ['Error Indication', 'warn', 'inbound'],
    );
    await h.close();
  });

  it('answers bytes that are not NGAP with transfer syntax error, and stores them as Unknown', async () => {
    const { h, radio } = await connected();
    const answers = await exchange(h, radio, Uint8Array.of(0xff, 0xff, 0xff));
    assert.equal(answers[0]?.messageType, 'ErrorIndication');
    assert.deepEqual(causeAndDiagnostics(answers[0]?.pdu), {
      cause: { choice: 'protocol', value: 'transfer-syntax-error' },
      diagnostics: undefined,
    });
    assert.deepEqual(
      h.radioEvents.map((e) => e.messageType),
      ['Unknown', 'ErrorIndication'],
    );
    await h.close();
  });

  it('names the procedure of a PDU whose body does not decode (Criticality Diagnostics from its header)', async () => {
    const { h, radio } = await connected();
    // InitialUEMessage (15), reject, then an open type cut short.
    const answers = await exchange(h, radio, Uint8Array.of(0x00, 0x0f, 0x00, 0x20, 0x00));
    assert.deepEqual(causeAndDiagnostics(answers[0]?.pdu).diagnostics, {
      procedureCode: 15,
      triggeringMessage: 'initiating-message',
      procedureCriticality: 'reject',
    });
    await h.close();
  });

  it('answers NGAP before NG Setup with message not compatible with receiver state', async () => {
    const h = await createHarness();
    const radio = await h.connect();
    const answers = await exchange(h, radio, initialUeMessage('ignore'));
    assert.deepEqual(causeAndDiagnostics(answers[0]?.pdu), {
      cause: { choice: 'protocol', value: 'message-not-compatible-with-receiver-state' },
      diagnostics: {
        procedureCode: 15,
        triggeringMessage: 'initiating-message',
        procedureCriticality: 'ignore',
      },
    });
    // Before NG Setup the radio is known by its address.
    assert.match(h.radioLogs.at(-1)?.ranId ?? '', /^127\.0\.0\.1:\d+$/);
    await h.close();
  });

  it('treats a procedure nobody handles by its criticality (10.3.4.1): reject -> Error Indication, ignore -> nothing', async () => {
    const { h, radio } = await connected();
    assert.deepEqual(await exchange(h, radio, initialUeMessage('ignore')), []);
    const answers = await exchange(h, radio, initialUeMessage('reject'));
    assert.deepEqual(causeAndDiagnostics(answers[0]?.pdu).cause, {
      choice: 'protocol',
      value: 'abstract-syntax-error-reject',
    });
    // The NAS message inside is named in the event's details.
    assert.deepEqual(h.radioEvents[0]?.details, {
      radio: 'gnb-1',
      ran_ue_ngap_id: 7,
      nas: 'Identity Response',
    });
    await h.close();
  });
});

describe('UE-associated signalling seam', () => {
  it('hands UE-associated messages to the handler of their type, with a link that sends on a UE stream', async () => {
    const seen: [string, number][] = [];
    const ready: [string, string[]][] = [];
    const ue: UeSignalling = {
      handlers: new Map([
        [
          'InitialUEMessage',
          (pdu: NGAPPDU, link: RadioLink, streamId: number) => {
            seen.push([link.id, streamId]);
            link.send(errorIndicationFromRadio(), 1);
          },
        ],
      ]),
      reset: () => [],
      radioReady: (link) => void ready.push([link.id, link.supportedTais.map(({ tai }) => tai.tac)]),
      radioGone: () => undefined,
      radioRebound: () => undefined,
      subscriberOf: () => undefined,
    };
    const { h, radio } = await connected({ ue });
    assert.deepEqual(ready, [['001:01:000001', ['000001']]], 'told of the radio and its TAs at NG Setup');
    radio.send(initialUeMessage(), 1);
    await h.settled();
    assert.deepEqual(seen, [['001:01:000001', 1]]);
    assert.deepEqual(
      radio.received.map((r) => [r.messageType, r.streamId]),
      [['ErrorIndication', 1]],
    );
    emitted.add(radio.received.splice(0));
    await h.close();
  });
});

describe('AMF Configuration Update (TS 38.413 8.7.3)', () => {
  it('tells connected radios of a new slice, and sends a change made meanwhile once answered', async () => {
    const { h, radio } = await connected();
    h.operator.configuration.slices.push({ sst: 2 });
    h.events.publish({ resource: 'slice', change: 'created', name: 'iot' });
    await h.settled();
    const [update] = radio.received.splice(0);
    emitted.add(update === undefined ? [] : [update]);
    assert.equal(update?.messageType, 'AMFConfigurationUpdate');
    assert.ok(
      update.pdu.choice === 'initiatingMessage' && update.pdu.value.name === 'AMFConfigurationUpdate',
    );
    const support = ieValue(update.pdu.value.value.protocolIEs, 'PLMNSupportList');
    assert.deepEqual(
      support?.[0]?.sliceSupportList.map((s) => [...s.sNSSAI.sST]),
      [[1], [2]],
    );
    assert.equal(h.radioLogs.at(-1)?.event, 'AMF Configuration Update');

    h.operator.configuration.tacs.push('000002');
    h.events.publish({ resource: 'operator', change: 'changed', name: '' });
    await h.settled();
    assert.equal(radio.received.length, 0, 'one update at a time');
    assert.deepEqual(
      await exchange(h, radio, amfConfigurationUpdateAnswer()).then((a) => a.map((x) => x.messageType)),
      ['AMFConfigurationUpdate'],
    );
    await h.close();
  });

  it('waits out the Time to Wait of a failure before sending the update again', async () => {
    const { h, radio } = await connected();
    h.operator.configuration.slices = [{ sst: 3 }];
    h.events.publish({ resource: 'slice', change: 'changed', name: 'default' });
    await h.settled();
    emitted.add(radio.received.splice(0));
    assert.deepEqual(await exchange(h, radio, amfConfigurationUpdateAnswer({ timeToWait: 'v5s' })), []);
    assert.equal(h.radioLogs.at(-1)?.level, 'warn');
    h.clock.advance(4999);
    await h.settled();
    assert.equal(radio.received.length, 0);
    h.clock.advance(1);
    await h.settled();
    assert.deepEqual(
      radio.received.map((r) => r.messageType),
      ['AMFConfigurationUpdate'],
    );
    emitted.add(radio.received.splice(0));
    await h.close();
  });

  it('sends nothing when the configuration read back is the same', async () => {
    const { h, radio } = await connected();
    h.events.publish({ resource: 'operator', change: 'changed', name: '' });
    await h.settled();
    assert.equal(radio.received.length, 0);
    await h.close();
  });
});

describe('Association end (network.md section 2)', () => {
  for (const [how, end, level] of [
    ['path failure', (r: TestRadio) => r.association.simulateLoss(), 'warn'],
    ['an ABORT from the radio', (r: TestRadio) => r.association.abort('gone'), 'warn'],
    ['a graceful shutdown by the radio', (r: TestRadio) => r.association.shutdown(), 'info'],
  ] as const) {
    it(`removes the radio after ${how}`, async () => {
      const { h, radio } = await connected();
      end(radio);
      await h.settled();
      assert.deepEqual(h.state.radios(), []);
      const log = h.radioLogs.at(-1);
      assert.deepEqual(
        [log?.event, log?.level, log?.ranId],
        ['SCTP Association Down', level, '001:01:000001'],
      );
      await h.close();
    });
  }

  it('after an SCTP restart of the radio, the radio is gone until it sets up again', async () => {
    const h = await createHarness();
    const radio = await h.connect();
    radio.send(ngSetupRequest({ gnbId: 1 }));
    await h.settled();
    emitted.add(radio.received.splice(0));
    radio.association.peer?.simulatePeerRestart();
    await h.settled();
    assert.deepEqual(h.state.radios(), []);
    radio.send(ngSetupRequest({ gnbId: 1 }));
    await h.settled();
    assert.equal(h.state.radios().length, 1);
    emitted.add(radio.received.splice(0));
    await h.close();
  });

  it('counts NGAP messages by type and direction', async () => {
    const { h } = await connected();
    const text = await h.metrics.render();
    assert.match(text, /pmn_ngap_messages_total\{message_type="NGSetupRequest",direction="inbound"\} 1/);
    assert.match(text, /pmn_ngap_messages_total\{message_type="NGSetupResponse",direction="outbound"\} 1/);
    await h.close();
  });
});
