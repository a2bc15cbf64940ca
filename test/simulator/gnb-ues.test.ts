// The gNB side of simulated UEs (GnbUes on a SimulatedGnb) over the fake N2 transport, against the scripted
// AMF with the stand-in 5GMM network behind it: NGAP for many UEs on one node, checked field by field and
// by tshark.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Timers } from '../../src/clock.ts';
import { viewNgapPdu } from '../../src/network/ngap/ngap-codec.ts';
import type { GnbConfig } from '../../src/simulator/gnb-config.ts';
import type { NgapExchange } from '../../src/simulator/gnb.ts';
import { SimulatedGnb } from '../../src/simulator/gnb.ts';
import { GnbUes } from '../../src/simulator/ue/gnb-ues.ts';
import { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { ALL_ALGORITHMS } from '../../src/simulator/ue/ue-config.ts';
import { FakeN2Network } from '../helpers/fake-n2-transport.ts';
import { tshark } from '../helpers/tshark.ts';
import { PLMN } from './fake-nas-amf.ts';
import { attachNas, paging, ueContextReleaseCommand } from './scripted-ue-network.ts';
import type { AmfReceived } from './scripted-amf.ts';
import { ScriptedAmf, steppedTimers } from './scripted-amf.ts';

const K = Buffer.from('465b5ce8b199b49faa5f0a2ee238a6bc', 'hex');
const OPC = Buffer.from('e8ed289deba952e4283b54e88e6183ca', 'hex');
const IMSIS = ['001010000000001', '001010000000002', '001010000000003'];
const SUBSCRIBERS = Object.fromEntries(IMSIS.map((imsi) => [imsi, { k: K, opc: OPC, sqn: Buffer.alloc(6) }]));
const CELL = { plmn: PLMN, nrCellIdentity: 0x10, tac: 1 };

const config: GnbConfig = {
  plmn: PLMN,
  node: { kind: 'gNB', value: 1, bitLength: 22 },
  name: 'gnb-1',
  supportedTas: [{ tac: 1, plmns: [{ plmn: PLMN, slices: [{ sst: 1 }] }] }],
};

const seen: NgapExchange[] = [];

async function setup() {
  const network = new FakeN2Network();
  const amf = await ScriptedAmf.listen(network.transport());
  const nas = attachNas(amf, SUBSCRIBERS);
  const gnb = new SimulatedGnb({
    config,
    transport: network.transport(),
    amf: [{ address: '127.0.0.1', port: 38412 }],
  });
  gnb.on((event) => {
    if (event.type === 'sent' || event.type === 'received') seen.push(event.exchange);
  });
  const ues = new GnbUes(gnb, CELL);
  await gnb.connect();
  assert.equal((await gnb.ngSetup()).outcome, 'accepted');
  const make = (imsi: string, failInitialContextSetup = false, timers?: Timers) =>
    new SimulatedUe({
      config: {
        imsi,
        plmn: PLMN,
        key: K,
        opc: OPC,
        suci: { scheme: 'null' },
        imeisv: '3569380356438091',
        securityCapability: ALL_ALGORITHMS,
        requestedNssai: [{ sst: 1 }],
        misbehaviour: { failInitialContextSetup },
      },
      radio: ues,
      ...(timers === undefined ? {} : { timers }),
    });
  return { amf, gnb, ues, make, nas };
}

const ies = (received: AmfReceived | undefined) => {
  const pdu = received?.pdu;
  assert.ok(
    pdu?.choice === 'initiatingMessage' ||
      pdu?.choice === 'successfulOutcome' ||
      pdu?.choice === 'unsuccessfulOutcome',
  );
  return (pdu.value.value as { protocolIEs: { name: string | null; value: unknown }[] }).protocolIEs;
};

describe('gNB side of simulated UEs (fake transport, scripted AMF)', () => {
  after(async () => {
    const decoded = seen.filter((exchange) => exchange.pdu !== undefined);
    const verdicts = await tshark(
      'ngap',
      decoded.map((exchange) => exchange.bytes),
    );
    verdicts.forEach((verdict, i) => {
      const exchange = decoded[i]!;
      assert.equal(verdict.malformed, false, `${exchange.messageType} malformed`);
      assert.equal(verdict.expert, '', `${exchange.messageType}: ${verdict.expert}`);
      assert.ok(verdict.info.includes(exchange.messageType), `${verdict.info} is ${exchange.messageType}`);
    });
  });

  it('three UEs register through one gNB: RAN UE NGAP IDs, User Location Information, RRC cause, context setup answered', async () => {
    const { amf, make, ues } = await setup();
    const devices = IMSIS.map((imsi) => make(imsi));
    const outcomes = await Promise.all(devices.map((device) => device.register()));
    assert.deepEqual(
      outcomes.map((o) => o.outcome),
      ['accepted', 'accepted', 'accepted'],
    );
    const initial = amf.received.filter((r) => r.messageType === 'InitialUEMessage');
    assert.deepEqual(
      initial.map((r) => ies(r).find((ie) => ie.name === 'RAN-UE-NGAP-ID')?.value),
      [1, 2, 3],
    );
    const first = ies(initial[0]);
    assert.equal(first.find((ie) => ie.name === 'RRCEstablishmentCause')?.value, 'mo-Signalling');
    // The decoded view the API shows (network.md section 3): NR CGI and TAI of the gNB's cell.
    const view = JSON.parse(JSON.stringify(viewNgapPdu(initial[0]!.bytes))) as {
      initiating_message: { value: { initial_ue_message: { ies: Record<string, unknown>[] } } };
    };
    assert.deepEqual(view.initiating_message.value.initial_ue_message.ies[2], {
      id: 'UserLocationInformation (121)',
      criticality: 'Reject (0)',
      user_location_information: {
        user_location_information_nr: {
          nr_cgi: { plmn_identity: { mcc: '001', mnc: '01' }, nr_cell_identity: '000000010' },
          tai: { plmn_identity: { mcc: '001', mnc: '01' }, tac: '000001' },
        },
      },
    });
    // The responses follow the accepts on their own turns of the event loop: wait for them, not a while.
    const responses = () =>
      amf.received.filter((r) => r.messageType === 'InitialContextSetupResponse').length;
    while (responses() < 3) await amf.next('InitialContextSetupResponse');
    assert.equal(responses(), 3);
    assert.equal(ues.connected, 3);
    assert.deepEqual(ues.ignored, []);
  });

  it('UE Context Release Command -> Complete and idle; Paging -> Service Request with the 5G-S-TMSI (mt-Access)', async () => {
    const { amf, make, nas, ues } = await setup();
    const device = make(IMSIS[0]!);
    await device.register();
    const association = [...amf.associations.keys()][0]!;
    const released = device.next((e) => (e.type === 'released' ? e : undefined));
    const complete = amf.next('UEContextReleaseComplete');
    amf.send(association, ueContextReleaseCommand(nas.amfUeNgapId(association, 1)!, 1));
    await released;
    assert.equal(ies(await complete).find((ie) => ie.name === 'RAN-UE-NGAP-ID')?.value, 1);
    assert.equal(device.connected, false);
    assert.equal(ues.connected, 0);
    const paged = device.next((e) => (e.type === 'paged' ? e : undefined));
    amf.send(association, paging(device.guti!.tmsi));
    assert.deepEqual((await paged).outcome, { outcome: 'accepted' });
    const serviceRequest = amf.received.filter((r) => r.messageType === 'InitialUEMessage').at(-1);
    const fields = ies(serviceRequest);
    assert.equal(fields.find((ie) => ie.name === 'RRCEstablishmentCause')?.value, 'mt-Access');
    assert.ok(fields.some((ie) => ie.name === 'FiveG-S-TMSI'));
  });

  it('UE Context Release Request on demand (user inactivity); Initial Context Setup Failure on demand; NG Reset idles UEs', async () => {
    const { amf, make, gnb, ues } = await setup();
    const device = make(IMSIS[0]!);
    await device.register();
    const request = amf.next('UEContextReleaseRequest');
    assert.equal(ues.requestRelease(device), true);
    assert.deepEqual(ies(await request).find((ie) => ie.name === 'Cause')?.value, {
      choice: 'radioNetwork',
      value: 'user-inactivity',
    });
    const timers = steppedTimers();
    const failing = make(IMSIS[1]!, true, timers);
    const failure = amf.next('InitialContextSetupFailure');
    const outcome = failing.register();
    assert.ok(await failure);
    // The Registration Accept inside the failed setup never reaches the UE: T3510 ends its attempt.
    timers.advance(15_000);
    assert.deepEqual(await outcome, { outcome: 'failed', reason: 'T3510 expired' });
    await gnb.ngReset({ choice: 'misc', value: 'om-intervention' });
    assert.equal(device.connected, false);
    assert.equal(device.state, 'registered');
    assert.equal(ues.connected, 0);
  });
});
