import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { bitStringHex } from '../../../src/network/asn1/bit-string.ts';
import { encodeNgapPdu } from '../../../src/network/ngap/ngap-codec.ts';
import { ieValue } from '../../helpers/ie-value.ts';
import { causeAndDiagnostics, emittedPdus } from './emitted.ts';
import { createHarness } from './n2-harness.ts';
import { ngSetupRequest, taList } from './messages.ts';

const emitted = emittedPdus();
after(() => emitted.check());

describe('NG Setup (TS 38.413 8.7.1, network.md section 2)', () => {
  it('accepts a gNB broadcasting the operator PLMN and TAC: response, radio, events and logs', async () => {
    const h = await createHarness();
    const radio = await h.connect();
    radio.send(ngSetupRequest({ gnbId: 1, name: 'gnb-1' }));
    await h.settled();

    assert.deepEqual(radio.types(), ['NGSetupResponse']);
    emitted.add(radio.received);
    const answer = radio.received[0]?.pdu;
    assert.equal(radio.received[0]?.streamId, 0);
    assert.ok(answer?.choice === 'successfulOutcome' && answer.value.name === 'NGSetup');
    const ies = answer.value.value.protocolIEs;
    assert.equal(ieValue(ies, 'AMFName'), 'pmn-amf');
    assert.equal(ieValue(ies, 'RelativeAMFCapacity'), 255);
    const served = ieValue(ies, 'ServedGUAMIList')?.[0]?.gUAMI;
    assert.ok(served);
    assert.deepEqual([...served.pLMNIdentity], [0x00, 0xf1, 0x10]);
    assert.deepEqual(
      [bitStringHex(served.aMFRegionID), bitStringHex(served.aMFSetID), bitStringHex(served.aMFPointer)],
      ['01', '001', '00'],
    );
    const support = ieValue(ies, 'PLMNSupportList');
    assert.deepEqual(
      support?.[0]?.sliceSupportList.map((s) => [...s.sNSSAI.sST, ...(s.sNSSAI.sD ?? [])]),
      [[1, 1, 2, 3]],
    );

    const [listed] = h.state.radios();
    assert.ok(listed);
    assert.equal(listed.id, '001:01:000001');
    assert.equal(listed.name, 'gnb-1');
    assert.equal(listed.ranNodeType, 'gNB');
    assert.match(listed.address, /^127\.0\.0\.1:\d+$/);
    assert.equal(listed.connectedAt, h.clock.now());
    assert.deepEqual(listed.supportedTais, [
      { tai: { plmnID: { mcc: '001', mnc: '01' }, tac: '000001' }, snssais: [{ sst: 1, sd: '010203' }] },
    ]);

    assert.deepEqual(
      h.radioEvents.map((e) => [e.protocol, e.messageType, e.direction, e.details]),
      [
        ['NGAP', 'NGSetupRequest', 'inbound', { radio: 'gnb-1' }],
        ['NGAP', 'NGSetupResponse', 'outbound', { radio: 'gnb-1' }],
      ],
    );
    assert.deepEqual(
      h.radioLogs.map((l) => [l.event, l.level, l.ranId, l.direction, l.details]),
      [
        ['SCTP Association Up', 'info', listed.address, 'inbound', { address: listed.address }],
        ['NG Setup Request', 'info', '001:01:000001', 'inbound', { radio: 'gnb-1', address: listed.address }],
        [
          'NG Setup Response',
          'info',
          '001:01:000001',
          'outbound',
          { radio: 'gnb-1', address: listed.address },
        ],
      ],
    );
    await h.close();
    assert.equal(h.state.radios().length, 0, 'the radio disappears with its association');
    assert.deepEqual(
      [h.radioLogs.at(-1)?.event, h.radioLogs.at(-1)?.level, h.radioLogs.at(-1)?.ranId],
      ['SCTP Association Down', 'info', '001:01:000001'],
    );
  });

  it('names a radio that sends no RANNodeName by its id, and refreshes last seen on each message', async () => {
    const h = await createHarness();
    const radio = await h.connect();
    radio.send(ngSetupRequest({ gnbId: 0x2a }));
    await h.settled();
    assert.equal(h.state.radios()[0]?.name, '001:01:00002a');
    h.clock.advance(5000);
    radio.send(ngSetupRequest({ gnbId: 0x2a }));
    await h.settled();
    assert.equal(h.state.radios()[0]?.lastSeenAt, h.clock.now());
    assert.equal(h.state.radios().length, 1);
    emitted.add(radio.received);
    await h.close();
  });

  for (const [rule, list, cause] of [
    [
      "no broadcast PLMN is the operator's -> misc/unknown-PLMN-or-SNPN",
      taList({ mcc: '999', mnc: '99' }),
      'unknown-PLMN-or-SNPN',
    ],
    ['the PLMN without one of its TACs -> misc/unspecified', taList({ tac: 2 }), 'unspecified'],
  ] as const) {
    it(`refuses when ${rule}`, async () => {
      const h = await createHarness();
      const radio = await h.connect();
      radio.send(ngSetupRequest({ gnbId: 7, name: 'foreign', taList: list }));
      await h.settled();
      assert.deepEqual(radio.types(), ['NGSetupFailure']);
      emitted.add(radio.received);
      assert.deepEqual(causeAndDiagnostics(radio.received[0]?.pdu), {
        cause: { choice: 'misc', value: cause },
        diagnostics: undefined,
      });
      assert.equal(h.state.radios().length, 0);
      assert.deepEqual(h.radioEvents.at(-1)?.details, { radio: 'foreign', cause: `misc/${cause}` });
      const log = h.radioLogs.at(-1);
      assert.deepEqual(
        [log?.event, log?.level, log?.ranId, log?.details?.cause],
        ['NG Setup Failure', 'warn', '001:01:000007', `misc/${cause}`],
      );
      await h.close();
    });
  }

  it('refuses a request without a mandatory IE of criticality reject: protocol cause, the IE in Criticality Diagnostics (10.3.5)', async () => {
    const h = await createHarness();
    const radio = await h.connect();
    radio.send(ngSetupRequest({ omit: [102] }));
    await h.settled();
    assert.deepEqual(radio.types(), ['NGSetupFailure']);
    emitted.add(radio.received);
    assert.deepEqual(causeAndDiagnostics(radio.received[0]?.pdu), {
      cause: { choice: 'protocol', value: 'abstract-syntax-error-reject' },
      diagnostics: {
        procedureCriticality: 'reject',
        iEsCriticalityDiagnostics: [{ iECriticality: 'reject', iEID: 102, typeOfError: 'missing' }],
      },
    });
    assert.equal(h.state.radios().length, 0);
    await h.close();
  });

  it('answers an NG Setup Request that fails to decode with NG Setup Failure, transfer syntax error (10.2), and stores it as Unknown', async () => {
    const h = await createHarness();
    const radio = await h.connect();
    const bytes = encodeNgapPdu(ngSetupRequest());
    radio.send(bytes.subarray(0, 12));
    await h.settled();
    assert.deepEqual(radio.types(), ['NGSetupFailure']);
    emitted.add(radio.received);
    assert.deepEqual(causeAndDiagnostics(radio.received[0]?.pdu), {
      cause: { choice: 'protocol', value: 'transfer-syntax-error' },
      diagnostics: { procedureCriticality: 'reject' },
    });
    const [inbound, outbound] = h.radioEvents;
    assert.equal(inbound?.messageType, 'Unknown');
    assert.equal(typeof inbound?.details?.error, 'string');
    assert.deepEqual(outbound?.details, { cause: 'protocol/transfer-syntax-error' });
    await h.close();
  });

  it('refuses an NG Setup naming a node connected over another live association: the radio stays (issue 28)', async () => {
    const h = await createHarness();
    const first = await h.connect();
    first.send(ngSetupRequest({ gnbId: 1, name: 'gnb-1' }));
    await h.settled();
    const before = h.state.radios();
    // The first radio was heard 89 s ago: within the bound, its association is live.
    h.clock.advance(89_000);
    const second = await h.connect('127.0.0.2');
    second.send(ngSetupRequest({ gnbId: 1, name: 'intruder' }));
    await h.settled();
    emitted.add([...first.received, ...second.received]);

    assert.deepEqual(second.types(), ['NGSetupFailure']);
    const answer = second.received[0]?.pdu;
    assert.ok(answer?.choice === 'unsuccessfulOutcome' && answer.value.name === 'NGSetup');
    const ies = answer.value.value.protocolIEs;
    assert.deepEqual(ieValue(ies, 'Cause'), { choice: 'misc', value: 'unspecified' });
    // TS 38.413 8.7.1.4: a restarted radio waits at least this long, when the old association may go.
    assert.equal(ieValue(ies, 'TimeToWait'), 'v1s');
    assert.deepEqual(h.state.radios(), before);
    assert.deepEqual(first.events, []);
    const failure = h.radioLogs.find((l) => l.event === 'NG Setup Failure');
    assert.deepEqual(
      [failure?.level, failure?.ranId, failure?.details?.address, failure?.details?.cause],
      ['warn', '001:01:000001', '127.0.0.2:49153', 'misc/unspecified'],
    );
    assert.match(await h.metrics.render(), /pmn_n2_peer_problems_total\{kind="node_id_in_use"\} 1/);
    await h.close();
  });

  it('gives the node to a new association once the old one has been silent 90 s; the old one is aborted', async () => {
    const h = await createHarness();
    const first = await h.connect();
    first.send(ngSetupRequest({ gnbId: 1, name: 'gnb-1' }));
    await h.settled();
    const firstAddress = h.state.radios()[0]?.address;
    // A radio that restarted without closing its association: the old one hears nothing more.
    h.clock.advance(90_000);
    const second = await h.connect();
    second.send(ngSetupRequest({ gnbId: 1, name: 'gnb-1-again' }));
    await h.settled();
    emitted.add([...first.received, ...second.received]);

    assert.deepEqual(second.types(), ['NGSetupResponse']);
    const radios = h.state.radios();
    assert.equal(radios.length, 1);
    assert.equal(radios[0]?.name, 'gnb-1-again');
    assert.notEqual(radios[0]?.address, firstAddress);
    assert.deepEqual(
      first.events.map((e) => e.type),
      ['communication-lost'],
    );
    const down = h.radioLogs.find((l) => l.event === 'SCTP Association Down');
    assert.deepEqual(
      [down?.level, down?.details?.cause],
      ['info', 'replaced by a new association of the same RAN node'],
    );
    // The old association's end does not take the radio with it.
    await h.settled();
    assert.equal(h.state.radios().length, 1);
    await h.close();
  });

  it('gives the node to a new association once the old one has ended (graceful shutdown)', async () => {
    const h = await createHarness();
    const first = await h.connect();
    first.send(ngSetupRequest({ gnbId: 1, name: 'gnb-1' }));
    await h.settled();
    // The radio's side began a graceful shutdown; the AMF's end is no longer established.
    first.association.shutdown();
    const second = await h.connect();
    second.send(ngSetupRequest({ gnbId: 1, name: 'gnb-1-again' }));
    await h.settled();
    emitted.add(second.received);
    assert.deepEqual(second.types(), ['NGSetupResponse']);
    assert.deepEqual(
      h.state.radios().map((r) => r.name),
      ['gnb-1-again'],
    );
    await h.close();
  });

  it('shuts down an association that sends no NG Setup within 30 s', async () => {
    const h = await createHarness();
    const radio = await h.connect();
    h.clock.advance(29_999);
    await h.settled();
    assert.equal(radio.events.length, 0);
    h.clock.advance(1);
    await h.settled();
    assert.equal(radio.events.length, 1);
    assert.equal(radio.events[0]?.type, 'shutdown-complete');
    assert.deepEqual(
      h.radioLogs.map((l) => [l.event, l.level, l.details?.cause]),
      [
        ['SCTP Association Up', 'info', undefined],
        ['SCTP Association Down', 'info', 'no NG Setup in time'],
      ],
    );
    await h.close();
  });
});
