// A simulated gNB with an association to each of two AMFs (MultiAmfGnb) over the fake N2 transport,
// against two scripted AMFs describing one AMF set: NG Setup with each, each UE's Initial UE Message to
// the AMF the selection rules pick (amf-selection.test.ts has the rules alone), AMF Status Indication,
// Reroute NAS Request, a lost association set up again after a back-off. tshark reads every PDU exchanged.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { NGAPPDU } from '../../src/network/ngap/generated/types.ts';
import { readInitialUEMessage, readUplinkNASTransport } from '../../src/network/ngap/generated/messages.ts';
import { downlinkNasTransport, rerouteNasRequest } from '../../src/network/amf/n2/ue-ngap-messages.ts';
import { bits, plmnIdentity } from '../../src/network/ngap/ngap-values.ts';
import type { GnbConfig } from '../../src/simulator/gnb-config.ts';
import type { MultiAmfGnbEvent } from '../../src/simulator/gnb-amfs.ts';
import { MultiAmfGnb } from '../../src/simulator/gnb-amfs.ts';
import type { FiveGSTmsi } from '../../src/simulator/ue/ran-ue-messages.ts';
import type { RadioUe } from '../../src/simulator/ue/ue-radio.ts';
import { FakeN2Network } from '../helpers/fake-n2-transport.ts';
import { tshark } from '../helpers/tshark.ts';
import type { AmfReceived } from './scripted-amf.ts';
import { ScriptedAmf, failure, ngSetupResponse, steppedTimers } from './scripted-amf.ts';

const PLMN = { mcc: '001', mnc: '01' };
const A = { address: '127.0.0.1', port: 38412 };
const B = { address: '127.0.0.2', port: 38412 };
const SET_ID = 0x3f5;
const config: GnbConfig = {
  plmn: PLMN,
  node: { kind: 'gNB', value: 1, bitLength: 22 },
  name: 'gnb-1',
  supportedTas: [{ tac: 1, plmns: [{ plmn: PLMN, slices: [{ sst: 1 }] }] }],
};

/** Every PDU the AMFs received, for one tshark run at the end. */
const seen: AmfReceived[] = [];

const guami = (pointer: number, backupAMFName: string) => ({
  gUAMI: {
    pLMNIdentity: plmnIdentity('001', '01'),
    aMFRegionID: bits(0xca, 8),
    aMFSetID: bits(SET_ID, 10),
    aMFPointer: bits(pointer, 6),
  },
  backupAMFName,
});

/** An NG Setup Response of a member of the set: its own GUAMI first, each with its backup AMF. */
function memberResponse(name: string, own: number, capacity: number): NGAPPDU {
  const response = ngSetupResponse();
  assert.ok(response.choice === 'successfulOutcome' && response.value.name === 'NGSetup');
  const list = own === 1 ? [guami(1, 'amf-b'), guami(2, 'amf-a')] : [guami(2, 'amf-a'), guami(1, 'amf-b')];
  for (const ie of response.value.value.protocolIEs) {
    if (ie.name === 'AMFName') ie.value = name;
    if (ie.name === 'ServedGUAMIList') ie.value = list;
    if (ie.name === 'RelativeAMFCapacity') ie.value = capacity;
  }
  return response;
}

/** `timer`: with Timer Approach for GUAMI Removal (TS 38.413 9.3.3.20), as a draining member of this core sends. */
function statusIndication(pointer: number, backupAMFName: string, timer = false): NGAPPDU {
  return {
    choice: 'initiatingMessage',
    value: {
      procedureCode: 1,
      name: 'AMFStatusIndication',
      criticality: 'ignore',
      value: {
        protocolIEs: [
          {
            id: 120,
            name: 'UnavailableGUAMIList',
            criticality: 'reject',
            value: [
              {
                ...guami(pointer, backupAMFName),
                ...(timer ? { timerApproachForGUAMIRemoval: 'apply-timer' as const } : {}),
              },
            ],
          },
        ],
      },
    },
  };
}

const radioUe = (sTmsi: FiveGSTmsi | undefined): RadioUe => ({
  sTmsi,
  failInitialContextSetup: false,
  positioning: undefined,
  downlink: () => undefined,
  contextSetUp: () => undefined,
  released: () => undefined,
  paged: () => undefined,
});

/** An initial Registration Request with a SUCI (TS 24.501 8.2.6, 9.11.3.4): a UE with no 5G-GUTI. */
const REGISTRATION = Uint8Array.from(Buffer.from('7e004171000d0100f110f0ff00000000000010', 'hex'));

/** A Service Request with the UE's 5G-S-TMSI (TS 24.501 8.2.16): a UE with a 5G-GUTI. */
function serviceRequest(sTmsi: FiveGSTmsi): Uint8Array {
  const identity = Buffer.alloc(7);
  identity[0] = 0xf4;
  identity.writeUInt16BE((sTmsi.amfSetId << 6) | sTmsi.amfPointer, 1);
  identity.writeUInt32BE(sTmsi.tmsi, 3);
  return Uint8Array.from(Buffer.concat([Buffer.from('7e004c000007', 'hex'), identity]));
}

async function setup() {
  const network = new FakeN2Network();
  const listen = async (address: typeof A, name: string, own: number, capacity: number) => {
    const amf = await ScriptedAmf.listen(network.transport(), address.address, address.port);
    amf.ngSetupAnswer = () => memberResponse(name, own, capacity);
    amf.listeners.add((received) => seen.push(received));
    return amf;
  };
  // amf-a serves GUAMI pointer 1 (backup amf-b) with capacity 1, amf-b pointer 2 (backup amf-a) with 3.
  const amfA = await listen(A, 'amf-a', 1, 1);
  const amfB = await listen(B, 'amf-b', 2, 3);
  const timers = steppedTimers();
  let random = 0;
  const gnb = new MultiAmfGnb({
    config,
    transport: network.transport(),
    amfs: [[A], [B]],
    cell: { plmn: PLMN, nrCellIdentity: 0x10, tac: 1 },
    timers,
    random: () => random,
  });
  const events: MultiAmfGnbEvent[] = [];
  gnb.on((event) => events.push(event));
  const next = <T extends MultiAmfGnbEvent['type']>(type: T) =>
    new Promise<Extract<MultiAmfGnbEvent, { type: T }>>((resolve) => {
      const stop = gnb.on((event) => {
        if (event.type !== type) return;
        stop();
        resolve(event as Extract<MultiAmfGnbEvent, { type: T }>);
      });
    });
  /** A UE's Initial UE Message: which AMF got it, and why. */
  const initial = async (sTmsi: FiveGSTmsi | undefined, draw = 0) => {
    random = draw;
    const received = Promise.race([amfA, amfB].map((amf, i) => amf.next('InitialUEMessage').then(() => i)));
    const connection = gnb.establish(
      radioUe(sTmsi),
      sTmsi === undefined ? REGISTRATION : serviceRequest(sTmsi),
      'mo-Signalling',
      sTmsi,
    );
    assert.ok(connection !== undefined);
    const selected = events.filter((event) => event.type === 'selected').at(-1);
    return { amf: ['amf-a', 'amf-b'][await received], reason: selected?.reason };
  };
  await gnb.start();
  return { network, amfA, amfB, gnb, events, timers, next, initial, listen };
}

const sTmsi = (amfPointer: number): FiveGSTmsi => ({ amfSetId: SET_ID, amfPointer, tmsi: 0x1234 });

describe('a simulated gNB with associations to two AMFs of one set (fake transport, scripted AMFs)', () => {
  after(async () => {
    const decoded = seen.filter((received) => received.pdu !== undefined);
    const verdicts = await tshark(
      'ngap',
      decoded.map((received) => received.bytes),
    );
    verdicts.forEach((verdict, i) => {
      const { messageType } = decoded[i]!;
      assert.equal(verdict.malformed, false, `${messageType} malformed`);
      assert.equal(verdict.expert, '', `${messageType}: ${verdict.expert}`);
      assert.ok(verdict.info.includes(messageType), `${verdict.info} is ${messageType}`);
    });
  });

  it(
    "NG Setup with each AMF under one node id; a UE without 5G-S-TMSI goes by capacity, one with goes to its GUAMI's AMF",
    { timeout: 20_000 },
    async () => {
      const { amfA, amfB, gnb, events, initial } = await setup();
      const setups = [amfA, amfB].map((amf) =>
        amf.received.filter((r) => r.messageType === 'NGSetupRequest'),
      );
      assert.deepEqual(
        setups.map((list) => list.length),
        [1, 1],
      );
      assert.deepEqual(setups[0]![0]!.bytes, setups[1]![0]!.bytes, 'the same NG Setup Request to each AMF');
      assert.deepEqual(
        events.filter((event) => event.type === 'amf-up').map((event) => [event.index, event.amf.name]),
        [
          [0, 'amf-a'],
          [1, 'amf-b'],
        ],
      );
      assert.deepEqual(
        gnb.amfs.map((amf) => amf?.servedGuamis.map((item) => [item.pointer, item.backupAmfName])),
        [
          [
            ['01', 'amf-b'],
            ['02', 'amf-a'],
          ],
          [
            ['02', 'amf-a'],
            ['01', 'amf-b'],
          ],
        ],
      );
      // Capacity 1 against 3: a draw under a quarter picks amf-a, above it amf-b.
      assert.deepEqual(await initial(undefined, 0.1), { amf: 'amf-a', reason: 'capacity' });
      assert.deepEqual(await initial(undefined, 0.3), { amf: 'amf-b', reason: 'capacity' });
      // A UE of amf-a goes there whatever the draw.
      assert.deepEqual(await initial(sTmsi(1), 0.9), { amf: 'amf-a', reason: 'guami' });
      assert.deepEqual(await initial(sTmsi(2), 0.1), { amf: 'amf-b', reason: 'guami' });
      await gnb.stop();
    },
  );

  it(
    'AMF Status Indication: the GUAMI declared unavailable goes to the backup it names',
    { timeout: 20_000 },
    async () => {
      const { amfA, gnb, initial } = await setup();
      const association = [...amfA.associations.keys()][0]!;
      const indicated = gnb.associations[0]!.nextReceived('AMFStatusIndication');
      amfA.send(association, statusIndication(1, 'amf-b'));
      await indicated;
      assert.deepEqual(await initial(sTmsi(1), 0), { amf: 'amf-b', reason: 'backup' });
      await gnb.stop();
    },
  );

  it(
    'Timer Approach for GUAMI Removal: the GUAMI goes to the backup until the node timer runs out, then to the AMF listing it; a new NG Setup brings it back',
    { timeout: 20_000 },
    async () => {
      const { amfA, gnb, timers, next, initial } = await setup();
      const HOUR = 3_600_000;
      // amf-a declares its own GUAMI unavailable without the timer approach: unavailable for as long as
      // the association lasts.
      const association = [...amfA.associations.keys()][0]!;
      let indicated = gnb.associations[0]!.nextReceived('AMFStatusIndication');
      amfA.send(association, statusIndication(1, 'amf-b'));
      await indicated;
      timers.advance(2 * HOUR);
      assert.deepEqual(await initial(sTmsi(1), 0), { amf: 'amf-b', reason: 'backup' });
      assert.deepEqual(
        gnb.amfs[0]?.servedGuamis.map((g) => g.pointer),
        ['01', '02'],
      );

      // Declared again with the timer approach: the backup still, until the node's hour ran out.
      indicated = gnb.associations[0]!.nextReceived('AMFStatusIndication');
      amfA.send(association, statusIndication(1, 'amf-b', true));
      await indicated;
      assert.equal(gnb.associations[0]!.unavailableGuamis[0]?.timerApproach, true);
      timers.advance(HOUR - 1);
      assert.deepEqual(await initial(sTmsi(1), 0), { amf: 'amf-b', reason: 'backup' });
      const removed = next('guami-removed');
      timers.advance(1);
      assert.deepEqual(await removed, {
        type: 'guami-removed',
        index: 0,
        guami: { plmn: PLMN, regionId: 'ca', setId: SET_ID.toString(16), pointer: '01' },
      });
      // amf-a no longer serves it as the node sees it; amf-b lists it (its backup entry): a UE naming
      // it goes there as to the GUAMI's AMF, whatever the draw.
      assert.deepEqual(
        gnb.amfs[0]?.servedGuamis.map((g) => g.pointer),
        ['02'],
      );
      assert.deepEqual(gnb.associations[0]!.unavailableGuamis.length, 1, 'the association still says it');
      assert.deepEqual(await initial(sTmsi(1), 0), { amf: 'amf-b', reason: 'guami' });

      // amf-a comes back (a new association and NG Setup): it serves its GUAMI again.
      const down = next('amf-down');
      for (const a of amfA.associations.values()) a.abort('restarted');
      await down;
      const up = next('amf-up');
      timers.advance(1000);
      await up;
      assert.deepEqual(
        gnb.amfs[0]?.servedGuamis.map((g) => g.pointer),
        ['01', '02'],
      );
      assert.deepEqual(await initial(sTmsi(1), 0.9), { amf: 'amf-a', reason: 'guami' });
      await gnb.stop();
    },
  );

  it(
    'Reroute NAS Request (TS 38.413 8.6.5): the Initial UE Message goes to another AMF of the set named, the UE signals through it',
    { timeout: 20_000 },
    async () => {
      const { amfA, amfB, gnb, events } = await setup();
      const downlinks: Uint8Array[] = [];
      const ue = { ...radioUe(undefined), downlink: (nas: Uint8Array) => void downlinks.push(nas) };
      const atA = amfA.next('InitialUEMessage');
      const connection = gnb.establish(ue, REGISTRATION, 'mo-Signalling', undefined);
      assert.ok(connection !== undefined);
      const first = await atA;
      const initialAtA = readInitialUEMessage(first.pdu!);
      assert.ok(initialAtA.ok);
      const association = [...amfA.associations.keys()][0]!;
      const atB = amfB.next('InitialUEMessage');
      amfA.send(association, rerouteNasRequest(initialAtA.message.ranUeNgapId, first.pdu!, SET_ID));
      const second = readInitialUEMessage((await atB).pdu!);
      assert.ok(second.ok);
      assert.deepEqual([...second.message.nasPdu], [...REGISTRATION], 'the same NAS-PDU');
      assert.equal(second.message.rrcEstablishmentCause, 'mo-Signalling');
      assert.deepEqual(second.message.amfSetId, bits(SET_ID, 10), 'with the AMF Set ID (8.6.5.2)');
      assert.deepEqual(events.at(-1), { type: 'rerouted', from: 0, index: 1 });
      assert.equal(gnb.ues[0]!.reroutes.length, 1);
      assert.equal(gnb.ues[0]!.connected, 0, 'nothing left on the rerouting AMF');

      // amf-b answers; the UE hears it, and its next NAS message goes to amf-b on the same RRC connection.
      const ids = { amfUeNgapId: 77, ranUeNgapId: second.message.ranUeNgapId };
      const heard = gnb.associations[1]!.nextReceived('DownlinkNASTransport');
      amfB.send(
        [...amfB.associations.keys()][0]!,
        downlinkNasTransport(ids, Uint8Array.of(0x7e, 0x00, 0x5a)),
      );
      await heard;
      assert.deepEqual(downlinks, [Uint8Array.of(0x7e, 0x00, 0x5a)]);
      const uplink = amfB.next('UplinkNASTransport');
      // A 5GMM Status (#111) as the UE's next message.
      assert.equal(connection.uplink(Uint8Array.of(0x7e, 0x00, 0x64, 0x6f)), true);
      const up = readUplinkNASTransport((await uplink).pdu!);
      assert.ok(up.ok);
      assert.equal(up.message.amfUeNgapId, 77);
      await gnb.stop();
    },
  );

  it(
    'a lost association: its UEs go to the backup AMF; it is set up again after a back-off that doubles while the AMF is away',
    { timeout: 20_000 },
    async () => {
      const { amfA, gnb, timers, next, initial, listen } = await setup();
      // A UE connected through amf-a: its RRC connection goes with the association.
      let released = false;
      const connected = gnb.establish(
        { ...radioUe(sTmsi(1)), released: () => void (released = true) },
        serviceRequest(sTmsi(1)),
        'mo-Signalling',
        sTmsi(1),
      );
      assert.equal(connected?.open, true);
      const down = next('amf-down');
      for (const association of amfA.associations.values()) association.abort('the AMF died');
      assert.deepEqual(await down, {
        type: 'amf-down',
        index: 0,
        why: 'association lost: peer-abort',
        delayMs: 1000,
      });
      assert.equal(connected.open, false);
      assert.equal(released, true, 'the UE is told its connection is gone, to come back by its backup AMF');
      assert.deepEqual(await initial(sTmsi(1), 0), { amf: 'amf-b', reason: 'backup' });

      const up = next('amf-up');
      timers.advance(1000);
      assert.equal((await up).amf.name, 'amf-a');
      assert.deepEqual(await initial(sTmsi(1), 0.9), { amf: 'amf-a', reason: 'guami' });

      // The AMF gone for good: each failed try waits twice as long (from the first wait again after an up).
      const lost = next('amf-down');
      await amfA.listener?.close();
      assert.equal((await lost).delayMs, 1000);
      const delays: number[] = [];
      for (const step of [1000, 2000]) {
        const failed = next('amf-down');
        timers.advance(step);
        const event = await failed;
        assert.match(event.why, /^connect failed/);
        delays.push(event.delayMs);
      }
      assert.deepEqual(delays, [2000, 4000]);
      const back = await listen(A, 'amf-a', 1, 1);
      const again = next('amf-up');
      timers.advance(4000);
      assert.equal((await again).index, 0);
      assert.equal(back.received.filter((r) => r.messageType === 'NGSetupRequest').length, 1);
      await gnb.stop();
    },
  );

  it(
    'stopped while its associations are being set up: each is shut down, no NG Setup is sent',
    { timeout: 20_000 },
    async () => {
      const network = new FakeN2Network();
      const amf = await ScriptedAmf.listen(network.transport(), A.address, A.port);
      const gnb = new MultiAmfGnb({
        config,
        transport: network.transport(),
        amfs: [[A]],
        cell: { plmn: PLMN, nrCellIdentity: 0x10, tac: 1 },
        timers: steppedTimers(),
      });
      const started = gnb.start();
      await gnb.stop();
      await started;
      assert.equal(gnb.associations[0]?.state.kind, 'closed');
      assert.equal(amf.received.filter((r) => r.messageType === 'NGSetupRequest').length, 0);
    },
  );

  it(
    'NG Setup refused with Time to Wait (TS 38.413 8.7.1.3): tried again on the same association once it has passed',
    { timeout: 20_000 },
    async () => {
      const network = new FakeN2Network();
      const amf = await ScriptedAmf.listen(network.transport(), A.address, A.port);
      amf.ngSetupAnswer = () => failure('NGSetup', { choice: 'misc', value: 'unspecified' });
      amf.listeners.add((received) => seen.push(received));
      const timers = steppedTimers();
      const gnb = new MultiAmfGnb({
        config,
        transport: network.transport(),
        amfs: [[A]],
        cell: { plmn: PLMN, nrCellIdentity: 0x10, tac: 1 },
        timers,
      });
      const downs: MultiAmfGnbEvent[] = [];
      gnb.on((event) => {
        if (event.type === 'amf-down') downs.push(event);
      });
      await gnb.start();
      assert.deepEqual(downs, [
        { type: 'amf-down', index: 0, why: 'NG Setup refused: misc/unspecified', delayMs: 10_000 },
      ]);
      amf.ngSetupAnswer = () => memberResponse('amf-a', 1, 1);
      const up = new Promise((resolve) => gnb.on((event) => event.type === 'amf-up' && resolve(event)));
      timers.advance(9999);
      assert.equal(amf.received.filter((r) => r.messageType === 'NGSetupRequest').length, 1);
      timers.advance(1);
      await up;
      assert.equal(amf.associations.size, 1, 'the same association');
      assert.equal(amf.received.filter((r) => r.messageType === 'NGSetupRequest').length, 2);
      await gnb.stop();
    },
  );
});
