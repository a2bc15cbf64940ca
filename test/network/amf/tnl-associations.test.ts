import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { OfferedEndpoint } from '../../../src/network/amf/n2/tnl-associations.ts';
import {
  cpTransportLayerInformation,
  endpointOf,
} from '../../../src/network/ngap/transport-layer-address.ts';
import {
  buildAMFConfigurationUpdateAcknowledge,
  buildAMFConfigurationUpdateFailure,
  buildRANConfigurationUpdate,
  readAMFConfigurationUpdate,
} from '../../../src/network/ngap/generated/messages.ts';
import type { NGAPPDU } from '../../../src/network/ngap/generated/types.ts';
import { bits, plmnIdentity } from '../../../src/network/ngap/ngap-values.ts';
import { namesOf, register, settle, step } from './amf-steps.ts';
import { emittedPdus } from './emitted.ts';
import { ngSetupRequest } from './messages.ts';
import { createHarness, type Harness, type TestRadio } from './n2-harness.ts';
import { createAmfHarness, IMSI, nasPduOf, TestUe, uplinkNasTransport, type AmfHarness } from './test-ue.ts';

const emitted = emittedPdus();
after(() => emitted.check());

/** Two further endpoints: one on the NGAP port (address alone), one on another port (address and port). */
const JOINED: OfferedEndpoint = { address: '127.0.0.11', port: 38412, usage: 'both', weight: 10 };
const UE_ONLY: OfferedEndpoint = { address: '127.0.0.10', port: 38413, usage: 'ue', weight: 5 };
const FURTHER = [JOINED, UE_ONLY];

/** RAN CONFIGURATION UPDATE naming gNB `gnbId` of 001/01 (TS 38.413 9.2.6.4, Global RAN Node ID). */
function joiningUpdate(gnbId = 1): NGAPPDU {
  return buildRANConfigurationUpdate({
    globalRanNodeId: {
      choice: 'globalGNB-ID',
      value: { pLMNIdentity: plmnIdentity('001', '01'), gNBID: { choice: 'gNB-ID', value: bits(gnbId, 22) } },
    },
  });
}

/** The radio's acknowledge of the offer: the first endpoint set up, the second failed. */
function offerAcknowledged(): NGAPPDU {
  return buildAMFConfigurationUpdateAcknowledge({
    amfTnlAssociationSetupList: [{ aMFTNLAssociationAddress: cpTransportLayerInformation(JOINED) }],
    amfTnlAssociationFailedToSetupList: [
      {
        tNLAssociationAddress: cpTransportLayerInformation(UE_ONLY),
        cause: { choice: 'transport', value: 'transport-resource-unavailable' },
      },
    ],
  });
}

/** A radio set up over the first endpoint, and its association to `JOINED` joined. */
async function twoAssociations(h: Harness | AmfHarness): Promise<{ first: TestRadio; second: TestRadio }> {
  const first = await h.connect();
  first.send(ngSetupRequest({ name: 'gnb-1' }));
  await h.settled();
  const second = await h.connect('127.0.0.1', JOINED);
  second.send(joiningUpdate(), 0);
  await h.settled();
  assert.deepEqual(second.types(), ['RANConfigurationUpdateAcknowledge']);
  first.send(offerAcknowledged());
  await h.settled();
  return { first, second };
}

describe('Further TNL associations of a radio (TS 38.413 8.7.3.2, TS 23.502 4.2.7)', () => {
  it('NG Setup is followed by AMF Configuration Update offering the further endpoints with usage and weight', async () => {
    const h = await createHarness({ furtherEndpoints: FURTHER });
    const radio = await h.connect();
    radio.send(ngSetupRequest({ name: 'gnb-1' }));
    await h.settled();
    assert.deepEqual(radio.types(), ['NGSetupResponse', 'AMFConfigurationUpdate']);
    const read = readAMFConfigurationUpdate(radio.received[1]!.pdu);
    assert.ok(read.ok);
    const offer = read.message;
    assert.deepEqual(
      offer.amfTnlAssociationToAddList?.map((item) => ({
        endpoint: endpointOf(item.aMFTNLAssociationAddress),
        usage: item.tNLAssociationUsage,
        weight: item.tNLAddressWeightFactor,
      })),
      [
        { endpoint: { address: '127.0.0.11', port: 38412 }, usage: 'both', weight: 10 },
        { endpoint: { address: '127.0.0.10', port: 38413 }, usage: 'ue', weight: 5 },
      ],
    );
    // 38.412 7: the address alone means the NGAP port; another port goes in the choice extension.
    assert.equal(offer.amfTnlAssociationToAddList?.[0]?.aMFTNLAssociationAddress.choice, 'endpointIPAddress');
    assert.equal(offer.amfTnlAssociationToAddList?.[1]?.aMFTNLAssociationAddress.choice, 'choice-Extensions');
    // Only the offer: the AMF's description is unchanged, so it is not repeated.
    assert.equal(offer.servedGuamiList, undefined);
    emitted.add(radio.received);
    await h.close();
  });

  it('an association to an offered endpoint naming the radio joins it: one radio, non-UE signalling on one association, kept until the last ends', async () => {
    const h = await createHarness({ furtherEndpoints: FURTHER });
    const { first, second } = await twoAssociations(h);
    // The acknowledge is awaited: no Error Indication for it.
    assert.deepEqual(first.types(), ['NGSetupResponse', 'AMFConfigurationUpdate']);
    const [joined, ...more] = h.state.radios();
    assert.deepEqual(more, []);
    assert.equal(joined?.name, 'gnb-1');
    assert.deepEqual(
      joined.associations?.map((a) => a.usage),
      ['both', 'both'],
    );
    assert.equal(joined.associations?.[0]?.address, joined.address);

    // A change of the AMF's description goes to the radio once, on the association that set it up.
    h.operator.configuration.tacs = ['000001', '000002'];
    h.events.publish({ resource: 'operator', change: 'changed', name: 'operator' });
    await h.settled();
    assert.equal(first.types().at(-1), 'AMFConfigurationUpdate');
    assert.deepEqual(second.types(), ['RANConfigurationUpdateAcknowledge']);
    first.send(buildAMFConfigurationUpdateAcknowledge({}));
    assert.equal(h.n2.overload(true), 1);
    await h.settled();
    assert.equal(first.types().at(-1), 'OverloadStart');
    assert.deepEqual(second.types(), ['RANConfigurationUpdateAcknowledge']);

    const firstAddress = h.state.radios()[0]?.address;
    first.association.abort('test');
    await h.settled();
    // The radio stays, now reached over its remaining association.
    const [radio, ...others] = h.state.radios();
    assert.deepEqual(others, []);
    assert.equal(radio?.name, 'gnb-1');
    assert.notEqual(radio.address, firstAddress);
    assert.deepEqual(radio.associations, [{ address: radio.address, usage: 'both' }]);
    h.operator.configuration.tacs = ['000001'];
    h.events.publish({ resource: 'operator', change: 'changed', name: 'operator' });
    await h.settled();
    assert.deepEqual(second.types(), ['RANConfigurationUpdateAcknowledge', 'AMFConfigurationUpdate']);
    assert.equal(h.n2.overload(false), 1);
    await h.settled();
    assert.equal(second.types().at(-1), 'OverloadStop');

    second.association.abort('test');
    await h.settled();
    assert.deepEqual(h.state.radios(), []);
    emitted.add(first.received);
    emitted.add(second.received);
    await h.close();
  });

  it('a repeated NG Setup starts the radio over: its further associations end, the offer is made again', async () => {
    const h = await createHarness({ furtherEndpoints: FURTHER });
    const { first, second } = await twoAssociations(h);
    first.send(ngSetupRequest({ name: 'gnb-1' }));
    await h.settled();
    assert.deepEqual(first.types().slice(-2), ['NGSetupResponse', 'AMFConfigurationUpdate']);
    assert.ok(second.events.some((e) => e.type === 'communication-lost'));
    const [radio, ...others] = h.state.radios();
    assert.deepEqual(others, []);
    assert.deepEqual(radio?.associations, [{ address: radio?.address, usage: 'both' }]);
    emitted.add(first.received);
    await h.close();
  });

  it('without the offer nothing joins: RAN Configuration Update on the first endpoint, naming another node, or a second time to one endpoint, is refused as before NG Setup', async () => {
    const h = await createHarness({ furtherEndpoints: FURTHER });
    const first = await h.connect();
    first.send(ngSetupRequest({ name: 'gnb-1' }));
    await h.settled();
    const notOffered = await h.connect('127.0.0.1');
    notOffered.send(joiningUpdate());
    const otherNode = await h.connect('127.0.0.1', JOINED);
    otherNode.send(joiningUpdate(2));
    await h.settled();
    const again = await h.connect('127.0.0.1', JOINED);
    again.send(joiningUpdate());
    await h.settled();
    assert.deepEqual(again.types(), ['RANConfigurationUpdateAcknowledge']);
    // One association per offered endpoint: a second one to the same endpoint does not join.
    const twice = await h.connect('127.0.0.1', JOINED);
    twice.send(joiningUpdate());
    await h.settled();
    for (const refused of [notOffered, otherNode, twice]) {
      assert.deepEqual(refused.types(), ['RANConfigurationUpdateFailure']);
      const failure = refused.received[0]!.pdu;
      assert.ok(failure.choice === 'unsuccessfulOutcome');
    }
    assert.deepEqual(
      h.state.radios().map((r) => r.name),
      ['gnb-1'],
    );
    emitted.add(notOffered.received);
    emitted.add(otherNode.received);
    emitted.add(twice.received);
    await h.close();
  });
});

/** The AMF TNL association lists of an AMF Configuration Update, as endpoints with usage and weight. */
function tnlListsOf(pdu: NGAPPDU) {
  const read = readAMFConfigurationUpdate(pdu);
  assert.ok(read.ok);
  const { message } = read;
  return {
    described: message.servedGuamiList !== undefined,
    toAdd: message.amfTnlAssociationToAddList?.map((item) => ({
      endpoint: endpointOf(item.aMFTNLAssociationAddress),
      usage: item.tNLAssociationUsage,
      weight: item.tNLAddressWeightFactor,
    })),
    toRemove: message.amfTnlAssociationToRemoveList?.map((item) => endpointOf(item.aMFTNLAssociationAddress)),
    toUpdate: message.amfTnlAssociationToUpdateList?.map((item) => ({
      endpoint: endpointOf(item.aMFTNLAssociationAddress),
      usage: item.tNLAssociationUsage,
      weight: item.tNLAddressWeightFactor,
    })),
  };
}

describe('A change of the further endpoints (TS 38.413 8.7.3.2 To Add, To Remove, To Update Lists)', () => {
  const ADDED: OfferedEndpoint = { address: '127.0.0.12', port: 38414, usage: 'ue', weight: 7 };

  it('the radio is told what was added, removed and updated; the removed endpoint is closed after the response time, its associations with it', async () => {
    const h = await createHarness({ furtherEndpoints: FURTHER });
    const { first, second } = await twoAssociations(h);
    const bound = await h.n2.changeFurtherEndpoints([{ ...JOINED, usage: 'non-ue', weight: 3 }, ADDED]);
    assert.deepEqual(bound, [{ ...JOINED, usage: 'non-ue', weight: 3 }, ADDED]);
    await h.settled();
    assert.equal(first.types().at(-1), 'AMFConfigurationUpdate');
    assert.deepEqual(tnlListsOf(first.received.at(-1)!.pdu), {
      described: false,
      toAdd: [{ endpoint: { address: '127.0.0.12', port: 38414 }, usage: 'ue', weight: 7 }],
      toRemove: [{ address: '127.0.0.10', port: 38413 }],
      toUpdate: [{ endpoint: { address: '127.0.0.11', port: 38412 }, usage: 'non-ue', weight: 3 }],
    });
    // The AMF's own choices follow the usage the radio is told of.
    assert.deepEqual(
      h.state.radios()[0]?.associations?.map((a) => a.usage),
      ['both', 'non-ue'],
    );
    first.send(
      buildAMFConfigurationUpdateAcknowledge({
        amfTnlAssociationSetupList: [{ aMFTNLAssociationAddress: cpTransportLayerInformation(ADDED) }],
      }),
    );
    await h.settled();
    const third = await h.connect('127.0.0.1', ADDED);
    third.send(joiningUpdate(), 0);
    // The removed endpoint listens until the radios had the time to answer, but nothing joins on it.
    const late = await h.connect('127.0.0.1', UE_ONLY);
    late.send(joiningUpdate(), 0);
    await h.settled();
    assert.deepEqual(third.types(), ['RANConfigurationUpdateAcknowledge']);
    assert.deepEqual(late.types(), ['RANConfigurationUpdateFailure']);
    assert.deepEqual(
      h.state.radios()[0]?.associations?.map((a) => a.usage),
      ['both', 'non-ue', 'ue'],
    );
    h.clock.advance(10_000);
    await h.settled();
    await assert.rejects(h.connect('127.0.0.1', UE_ONLY));

    // Removing an endpoint a radio kept an association with: the association ends with its listener.
    await h.n2.changeFurtherEndpoints([ADDED]);
    await h.settled();
    assert.deepEqual(tnlListsOf(first.received.at(-1)!.pdu), {
      described: false,
      toAdd: undefined,
      toRemove: [{ address: '127.0.0.11', port: 38412 }],
      toUpdate: undefined,
    });
    first.send(buildAMFConfigurationUpdateAcknowledge({}));
    await h.settled();
    assert.equal(second.events.length, 0);
    h.clock.advance(10_000);
    await h.settled();
    assert.ok(second.events.some((e) => e.type === 'shutdown-complete' || e.type === 'communication-lost'));
    assert.deepEqual(
      h.state.radios()[0]?.associations?.map((a) => a.usage),
      ['both', 'ue'],
    );
    emitted.add(first.received);
    emitted.add(third.received);
    emitted.add(late.received);
    await h.close();
  });

  it('a radio that refuses keeps the endpoints as it knew them: the retry after Time to Wait tells the change again', async () => {
    const h = await createHarness({ furtherEndpoints: FURTHER });
    const { first } = await twoAssociations(h);
    await h.n2.changeFurtherEndpoints([JOINED, UE_ONLY, ADDED]);
    await h.settled();
    assert.deepEqual(tnlListsOf(first.received.at(-1)!.pdu).toAdd, [
      { endpoint: { address: '127.0.0.12', port: 38414 }, usage: 'ue', weight: 7 },
    ]);
    first.send(
      buildAMFConfigurationUpdateFailure({
        cause: { choice: 'misc', value: 'control-processing-overload' },
        timeToWait: 'v1s',
      }),
    );
    await h.settled();
    const told = first.received.length;
    h.clock.advance(1000);
    await h.settled();
    assert.equal(first.received.length, told + 1);
    const retry = tnlListsOf(first.received.at(-1)!.pdu);
    assert.equal(retry.described, true);
    assert.deepEqual(retry.toAdd, [
      { endpoint: { address: '127.0.0.12', port: 38414 }, usage: 'ue', weight: 7 },
    ]);
    first.send(buildAMFConfigurationUpdateAcknowledge({}));
    // Nothing changed since: no further update.
    await h.n2.changeFurtherEndpoints([JOINED, UE_ONLY, ADDED]);
    await h.settled();
    assert.equal(first.received.length, told + 1);
    emitted.add(first.received);
    await h.close();
  });

  it('a refused change of usage leaves the AMF choosing by the usage the radio kept', async () => {
    const h = await createHarness({ furtherEndpoints: FURTHER });
    const { first } = await twoAssociations(h);
    await h.n2.changeFurtherEndpoints([{ ...JOINED, usage: 'non-ue' }, UE_ONLY]);
    await h.settled();
    assert.deepEqual(
      h.state.radios()[0]?.associations?.map((a) => a.usage),
      ['both', 'non-ue'],
    );
    // 8.7.3.4: refused, with no Time to Wait: the radio keeps the association as 'both'.
    first.send(buildAMFConfigurationUpdateFailure({ cause: { choice: 'misc', value: 'unspecified' } }));
    await h.settled();
    assert.deepEqual(
      h.state.radios()[0]?.associations?.map((a) => a.usage),
      ['both', 'both'],
    );
    emitted.add(first.received);
    await h.close();
  });

  it('an endpoint that cannot be listened on changes nothing', async () => {
    const h = await createHarness({ furtherEndpoints: FURTHER });
    const { first } = await twoAssociations(h);
    const before = first.received.length;
    // The AMF's first endpoint is taken.
    await assert.rejects(
      h.n2.changeFurtherEndpoints([ADDED, { ...ADDED, address: '127.0.0.10', port: 38412 }]),
    );
    await h.settled();
    assert.equal(first.received.length, before);
    // The added endpoint's listener was closed again: a later change can open it.
    assert.deepEqual(await h.n2.changeFurtherEndpoints([...FURTHER, ADDED]), [...FURTHER, ADDED]);
    await h.close();
  });
});

describe('NGAP UE-TNLA binding (TS 23.502 4.2.7.2)', () => {
  const SECOND_IMSI = '001010000000002';

  async function amfWithTwoAssociations() {
    const h = await createAmfHarness({}, {}, { furtherEndpoints: FURTHER });
    h.subscribers.set(SECOND_IMSI, { sqn: 0n });
    h.subscriptions.set(SECOND_IMSI, structuredClone({ ...h.subscriptions.get(IMSI)!, imsi: SECOND_IMSI }));
    const { first, second } = await twoAssociations(h);
    return { h, first, second };
  }

  it("each UE's signalling goes on the association it was last received on", async () => {
    const { h, first, second } = await amfWithTwoAssociations();
    const a = new TestUe({ ranUeNgapId: 1 });
    const b = new TestUe({ imsi: SECOND_IMSI, ranUeNgapId: 2 });
    const fromFirst = first.received.length;
    // `register` reads every answer from the association it sent on.
    await register(h, first, a);
    const { ids, guti } = await register(h, second, b);
    assert.ok(first.received.length > fromFirst);

    // B's next message comes on the first association: its answer follows it there.
    const before = second.received.length;
    const done = await step(
      h,
      first,
      b,
      uplinkNasTransport(
        ids,
        b.protect({
          messageType: 'deregistrationRequestUeOriginating',
          deregistrationType: { switchOff: false, reRegistrationRequired: false, accessType: 1 },
          ngKsi: b.security!.ngKsi,
          mobileIdentity: guti,
        }),
      ),
    );
    assert.deepEqual(
      done.nas.map((m) => m.messageType),
      ['deregistrationAcceptUeOriginating'],
    );
    assert.equal(second.received.length, before);
    emitted.add(first.received);
    emitted.add(second.received);
    await h.close();
  });

  it("an association that ends moves its UEs to the radio's remaining one; the radio stays connected", async () => {
    const { h, first, second } = await amfWithTwoAssociations();
    const a = new TestUe({ ranUeNgapId: 1 });
    const { ids } = await register(h, first, a);
    first.association.abort('test');
    await settle(h);
    assert.deepEqual(
      h.state.radios().map((r) => r.name),
      ['gnb-1'],
    );
    assert.equal(h.amf.counts().connections, 1);

    // A downlink for the UE the AMF starts on its own (network-initiated deregistration) reaches it.
    const from = second.received.length;
    h.subscriptions.delete(IMSI);
    h.events.publish({ resource: 'subscriber', change: 'deleted', name: IMSI });
    await settle(h);
    const downlink = second.received.slice(from).map((r) => r.pdu);
    assert.deepEqual(namesOf(downlink), ['DownlinkNASTransport']);
    a.open(nasPduOf(downlink[0]!)!);
    assert.equal(a.received.at(-1)?.messageType, 'deregistrationRequestUeTerminated');
    const done = await step(
      h,
      second,
      a,
      uplinkNasTransport(ids, a.protect({ messageType: 'deregistrationAcceptUeTerminated' })),
    );
    assert.deepEqual(namesOf(done.pdus), ['UEContextRelease']);
    emitted.add(second.received);
    await h.close();
  });
});
