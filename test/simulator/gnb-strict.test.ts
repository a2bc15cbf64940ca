// The simulator's strict gNB (GnbOptions.strict, docs/interop.md) over the fake N2 transport against the
// scripted AMF, which sends what a test tells it on the stream it is told: the stream ids TS 38.412 7
// allows are checked and each violation counted; a standalone PDU Session Resource Setup for a UE whose
// context is not set up is refused as a commercial gNB does. tshark reads the refusal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeComplete } from '../../src/network/asn1/complete.ts';
import { decodePDUSessionResourceSetupUnsuccessfulTransfer } from '../../src/network/ngap/generated/codec.ts';
import {
  buildPDUSessionResourceSetupRequest,
  readPDUSessionResourceSetupResponse,
} from '../../src/network/ngap/generated/messages.ts';
import type { NGAPPDU } from '../../src/network/ngap/generated/types.ts';
import { encodeNgapPdu } from '../../src/network/ngap/ngap-codec.ts';
import { NGAP_PPID } from '../../src/network/transport/n2-transport.ts';
import type { GnbConfig } from '../../src/simulator/gnb-config.ts';
import { SimulatedGnb } from '../../src/simulator/gnb.ts';
import { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import type { RadioUe } from '../../src/simulator/ue/ue-radio.ts';
import { FakeN2Network } from '../helpers/fake-n2-transport.ts';
import { tshark } from '../helpers/tshark.ts';
import { PLMN } from './fake-nas-amf.ts';
import { downlinkNasTransport, paging } from './scripted-ue-network.ts';
import { ScriptedAmf } from './scripted-amf.ts';

const config: GnbConfig = {
  plmn: PLMN,
  node: { kind: 'gNB', value: 7, bitLength: 22 },
  name: 'gnb-strict',
  supportedTas: [{ tac: 1, plmns: [{ plmn: PLMN, slices: [{ sst: 1 }] }] }],
};

/** A UE as the gNB sees it, recording what reaches it. */
function radioUe() {
  const seen: string[] = [];
  const ue: RadioUe = {
    sTmsi: undefined,
    failInitialContextSetup: false,
    positioning: undefined,
    downlink: () => void seen.push('downlink'),
    contextSetUp: () => void seen.push('context'),
    released: () => void seen.push('released'),
    paged: () => void seen.push('paged'),
  };
  return { ue, seen };
}

async function setup(strict: boolean) {
  const network = new FakeN2Network();
  const amf = await ScriptedAmf.listen(network.transport());
  const gnb = new SimulatedGnb({
    config,
    transport: network.transport(),
    amf: [{ address: '127.0.0.1', port: 38412 }],
    streams: 4,
    strict,
  });
  const ues = new GnbUes(gnb, { plmn: PLMN, nrCellIdentity: 0x70, tac: 1 });
  await gnb.connect();
  assert.equal((await gnb.ngSetup()).outcome, 'accepted');
  const [association] = [...amf.associations.values()];
  assert.ok(association !== undefined);
  /** The AMF sends `pdu` on `streamId`, and the gNB has handled it when this resolves. */
  const send = async (pdu: NGAPPDU, streamId: number): Promise<void> => {
    const handled = gnb.next((e) => (e.type === 'received' ? true : undefined));
    assert.ok(association.send(streamId, NGAP_PPID, encodeNgapPdu(pdu)).ok);
    await handled;
  };
  // A UE in the state of a Service Request: Initial UE Message sent, no Initial Context Setup yet.
  const { ue, seen } = radioUe();
  const initial = amf.next('InitialUEMessage');
  assert.ok(ues.establish(ue, Uint8Array.of(0x7e, 0x00, 0x4c), 'mo-Data', undefined) !== undefined);
  await initial;
  return { amf, gnb, ues, send, seen };
}

function setupRequest(amfUeNgapId: number, ranUeNgapId: number): NGAPPDU {
  return buildPDUSessionResourceSetupRequest({
    amfUeNgapId,
    ranUeNgapId,
    pduSessionResourceSetupListSuReq: [
      {
        pDUSessionID: 1,
        sNSSAI: { sST: Uint8Array.of(1) },
        pDUSessionResourceSetupRequestTransfer: Uint8Array.of(0),
      },
    ],
  });
}

describe('the strict gNB (fake transport, scripted AMF)', () => {
  it('counts UE-associated signalling on stream 0, a UE moved to another stream, a message without a UE off stream 0; the lenient gNB does not', async () => {
    const { gnb, send, seen } = await setup(true);
    // Its own UE's messages go on one stream of its 3 UE streams: RAN UE NGAP ID 1 -> stream 2.
    assert.deepEqual(
      gnb.sent.filter((e) => e.messageType === 'InitialUEMessage').map((e) => e.streamId),
      [2],
    );
    await send(downlinkNasTransport(100, 1, Uint8Array.of(0x7e, 0x00, 0x5d)), 0);
    await send(downlinkNasTransport(100, 1, Uint8Array.of(0x7e, 0x00, 0x5d)), 3);
    await send(downlinkNasTransport(100, 1, Uint8Array.of(0x7e, 0x00, 0x5d)), 3);
    await send(downlinkNasTransport(100, 1, Uint8Array.of(0x7e, 0x00, 0x5d)), 1);
    await send(paging(1), 2);
    assert.deepEqual(
      gnb.streamViolations.map((v) => [v.rule, v.messageType, v.streamId]),
      [
        ['ue-associated-on-stream-0', 'DownlinkNASTransport', 0],
        ['ue-stream-changed', 'DownlinkNASTransport', 1],
        ['non-ue-associated-off-stream-0', 'Paging', 2],
      ],
    );
    // Each message is still handled: the NAS reaches the UE every time.
    assert.equal(seen.filter((s) => s === 'downlink').length, 4);

    const lenient = await setup(false);
    await lenient.send(downlinkNasTransport(100, 1, Uint8Array.of(0x7e, 0x00, 0x5d)), 0);
    assert.deepEqual(lenient.gnb.streamViolations, []);
  });

  it('refuses a standalone PDU Session Resource Setup before Initial Context Setup: every session failed, message-not-compatible-with-receiver-state', async () => {
    const { amf, gnb, ues, send } = await setup(true);
    const answered = amf.next('PDUSessionResourceSetupResponse');
    await send(setupRequest(100, 1), 2);
    const answer = await answered;
    assert.ok(answer.pdu !== undefined);
    const read = readPDUSessionResourceSetupResponse(answer.pdu);
    assert.ok(read.ok);
    assert.equal(read.message.pduSessionResourceSetupListSuRes, undefined);
    const failed = read.message.pduSessionResourceFailedToSetupListSuRes ?? [];
    assert.deepEqual(
      failed.map((item) => item.pDUSessionID),
      [1],
    );
    const transfer = decodeComplete(
      failed[0]!.pDUSessionResourceSetupUnsuccessfulTransfer,
      true,
      decodePDUSessionResourceSetupUnsuccessfulTransfer,
    );
    assert.ok(transfer.ok);
    assert.deepEqual(transfer.value.cause, {
      choice: 'protocol',
      value: 'message-not-compatible-with-receiver-state',
    });
    assert.deepEqual(ues.refusedSetups, [{ amfUeNgapId: 100, ranUeNgapId: 1, pduSessionIds: [1] }]);
    const sent = gnb.sent.filter((e) => e.messageType === 'PDUSessionResourceSetupResponse');
    assert.deepEqual(
      sent.map((e) => e.streamId),
      [2],
    );
    // The refusal is the PDU this mode adds; the Initial UE Message carries a stand-in NAS-PDU.
    const [verdict] = await tshark(
      'ngap',
      sent.map((e) => e.bytes),
    );
    assert.equal(verdict?.malformed, false);
    assert.equal(verdict.expert, '');
    assert.ok(verdict.info.includes('PDUSessionResourceSetupResponse'), verdict.info);
  });
});
