import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { bitStringHex } from '../../../src/network/asn1/bit-string.ts';
import type { NGAPPDU } from '../../../src/network/ngap/generated/types.ts';
import { encodeNgapPdu } from '../../../src/network/ngap/ngap-codec.ts';
import { ieValue } from '../../../src/network/ngap/ngap-values.ts';
import { tshark } from '../../helpers/tshark.ts';
import { createHarness } from './n2-harness.ts';
import { ngSetupRequest, taList } from './messages.ts';

/** Every PDU the AMF emits in this file, checked by tshark once at the end. */
const emitted: { expected: string; bytes: Uint8Array }[] = [];

function outcome(pdu: NGAPPDU | undefined) {
  assert.ok(pdu !== undefined && pdu.choice !== null);
  return pdu;
}

describe('NG Setup (TS 38.413 8.7.1, network.md section 2)', () => {
  it('accepts a gNB broadcasting the operator PLMN and TAC: response, radio, events and logs', async () => {
    const h = await createHarness();
    const radio = await h.connect();
    radio.send(ngSetupRequest({ gnbId: 1, name: 'gnb-1' }));
    await h.settled();

    assert.deepEqual(radio.types(), ['NGSetupResponse']);
    const answer = outcome(radio.received[0]?.pdu);
    assert.equal(radio.received[0]?.streamId, 0);
    emitted.push({ expected: 'NGSetupResponse', bytes: radio.received[0].bytes });
    assert.ok(answer.choice === 'successfulOutcome' && answer.value.name === 'NGSetup');
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
    assert.deepEqual(listed.supportedTais, [
      { tai: { plmnID: { mcc: '001', mnc: '01' }, tac: '000001' }, snssais: [{ sst: 1, sd: '010203' }] },
    ]);

    assert.deepEqual(
      h.radioEvents.map((e) => [e.messageType, e.direction, e.details]),
      [
        ['NGSetupRequest', 'inbound', { radio: 'gnb-1' }],
        ['NGSetupResponse', 'outbound', { radio: 'gnb-1' }],
      ],
    );
    assert.deepEqual(
      h.radioLogs.map((l) => [l.event, l.level, l.ranId, l.direction]),
      [
        ['SCTP Association Up', 'info', listed.address, 'inbound'],
        ['NG Setup Request', 'info', '001:01:000001', 'inbound'],
        ['NG Setup Response', 'info', '001:01:000001', 'outbound'],
      ],
    );
    await h.close();
    assert.equal(h.state.radios().length, 0);
    assert.equal(h.radioLogs.at(-1)?.event, 'SCTP Association Down');
  });

  after(async () => {
    if (emitted.length === 0) return;
    const verdicts = await tshark(
      'ngap',
      emitted.map((e) => e.bytes),
    );
    verdicts.forEach((verdict, i) => {
      assert.equal(verdict.info, emitted[i]!.expected);
      assert.equal(verdict.malformed, false);
      assert.equal(verdict.expert, '');
    });
  });
});

void encodeNgapPdu;
void taList;
