import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readAMFConfigurationUpdate } from '../../src/network/ngap/generated/messages.ts';
import { endpointOf } from '../../src/network/ngap/transport-layer-address.ts';
import { createUdpTransport } from '../../src/network/transport/udp/udp-transport.ts';
import { MultiAmfGnb } from '../../src/simulator/gnb-amfs.ts';
import type { NgapExchange, SimulatedGnb } from '../../src/simulator/gnb.ts';
import { SimulatedUe } from '../../src/simulator/ue/simulated-ue.ts';
import { until } from '../helpers/until.ts';
import type { N2Service } from './n2-service.ts';
import { assertTsharkAgrees, gnbConfig, OPERATOR_PLMN, startN2Service } from './n2-service.ts';
import { imsiOf, K, OPC, testUeConfig } from './registration-service.ts';

interface RadioWithAssociations {
  associations: { address: string; usage: string }[];
}

/** Initial UE Messages an association's node sent, by the association: 'first' or the further one's AMF port. */
function initialUeMessagesBy(gnb: SimulatedGnb): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of gnb.sent.filter((x) => x.messageType === 'InitialUEMessage')) {
    const key = e.further === undefined ? 'first' : String(e.further.port);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

async function provision(s: N2Service, imsi: string): Promise<void> {
  const response = await s.t.request({
    method: 'POST',
    url: '/api/v1/subscribers',
    token: s.token,
    payload: { imsi, key: K, opc: OPC, sequenceNumber: '000000000000', profile_name: 'default' },
  });
  assert.equal(response.statusCode, 201, response.body);
}

/**
 * A simulated gNB with an association to each of two AMFs (MultiAmfGnb), each AMF offering a further TNL
 * association after NG Setup (AMF Configuration Update, AMF TNL Association To Add List, TS 38.413
 * 8.7.3.2): the gNB sets up each AMF's offer on that AMF's side (RAN Configuration Update naming its
 * Global RAN Node ID first, TS 38.412 7), each AMF's UEs go over that AMF's associations by its usage and
 * weight factors (9.3.2.9, 9.3.2.10), each AMF's To Update and To Remove Lists act on its own
 * associations only, and an AMF's association lost and made again sets its further one up again (the
 * AMF offers it after each NG Setup). The two AMFs are two real services (own databases) on 127.0.0.2
 * and 127.0.0.3 sharing one UDP encapsulation port, so that one RAN transport reaches both.
 */
describe('a gNB with several AMFs sets up each AMF further TNL associations (udp transport)', () => {
  it('per AMF: offered, set up, UEs by weight, updated, removed, and set up again after a re-association', async () => {
    const a = await startN2Service({
      at: { address: '127.0.0.2', udpPort: 0 },
      furtherEndpoints: [{ address: '127.0.0.2', port: 0, usage: 'ue', weight: 2 }],
    });
    const b = await startN2Service({
      at: { address: '127.0.0.3', udpPort: a.amfUdpPort },
      furtherEndpoints: [{ address: '127.0.0.3', port: 0, usage: 'both', weight: 1 }],
    });
    const ran = await createUdpTransport({ addresses: ['127.0.0.1'], udpPort: 0, peerUdpPort: a.amfUdpPort });
    /** What each AMF sent the gNB, for tshark. */
    const received: NgapExchange[] = [];
    const sent: NgapExchange[] = [];
    // Every new UE goes to AMF `pick` (both have capacity 255: 0 chooses the first, 0.99 the second).
    let pick = 0;
    const gnb = new MultiAmfGnb({
      config: gnbConfig(1, { name: 'gnb-1' }),
      transport: ran.transport,
      amfs: [[a.amf], [b.amf]],
      cell: { plmn: OPERATOR_PLMN, nrCellIdentity: 0x4001, tac: 1 },
      furtherAssociations: true,
      backoff: { initialMs: 50, maxMs: 200 },
      random: () => pick,
      onAssociation: (association) =>
        association.on((event) => {
          if (event.type === 'received') received.push(event.exchange);
          if (event.type === 'sent') sent.push(event.exchange);
        }),
    });
    const wait = <T>(what: string, check: () => T | undefined): Promise<T> =>
      until(
        what,
        async () => check(),
        () => '',
        { everyMs: 20 },
      );
    try {
      await gnb.start();
      const [onA, onB] = await wait('both AMFs further associations set up', () => {
        const [x, y] = gnb.associations;
        return x?.furtherAssociations.length === 1 && y?.furtherAssociations.length === 1
          ? [x, y]
          : undefined;
      });
      assert.ok(onA !== undefined && onB !== undefined);
      const furtherA = onA.furtherAssociations[0]!;
      const furtherB = onB.furtherAssociations[0]!;
      // Each AMF's offer was set up on its own side, with its usage and weight factor.
      assert.equal(furtherA.endpoint.address, '127.0.0.2');
      assert.deepEqual([furtherA.usage, furtherA.weight], ['ue', 2]);
      assert.equal(furtherB.endpoint.address, '127.0.0.3');
      assert.deepEqual([furtherB.usage, furtherB.weight], ['both', 1]);
      for (const node of [onA, onB]) {
        const joins = node.sent.filter((e) => e.messageType === 'RANConfigurationUpdate');
        assert.equal(joins.length, 1);
        assert.ok(joins[0]!.further !== undefined, 'the join went over the further association');
      }
      for (const s of [a, b]) {
        const radio = await s.get<RadioWithAssociations>('/api/v1/ran/radios/gnb-1');
        assert.equal(radio.associations.length, 2);
      }

      // Three UEs to AMF A (first 1, further weight 2: one on the first, two on the further), two to B (1, 1).
      const ue = (n: number) => new SimulatedUe({ config: testUeConfig(imsiOf(n)), radio: gnb });
      const uesA = [1, 2, 3].map(ue);
      const uesB = [4, 5].map(ue);
      for (const n of [1, 2, 3]) await provision(a, imsiOf(n));
      for (const n of [4, 5]) await provision(b, imsiOf(n));
      pick = 0;
      for (const u of uesA) assert.equal((await u.register()).outcome, 'accepted');
      pick = 0.99;
      for (const u of uesB) assert.equal((await u.register()).outcome, 'accepted');
      assert.deepEqual(initialUeMessagesBy(onA), { first: 1, [furtherA.endpoint.port]: 2 });
      assert.deepEqual(initialUeMessagesBy(onB), { first: 1, [furtherB.endpoint.port]: 1 });
      // Each UE's answers came on the association its Initial UE Message used, on its AMF's side.
      for (const node of [onA, onB]) {
        const setups = node.received.filter((e) => e.messageType === 'InitialContextSetupRequest');
        assert.deepEqual(
          setups.map((e) => e.further?.port ?? 'first').sort(),
          node.sent
            .filter((e) => e.messageType === 'InitialUEMessage')
            .map((e) => e.further?.port ?? 'first')
            .sort(),
        );
      }

      // AMF A's To Update List: its further association carries no UE signalling any more; B's is untouched.
      await a.changeFurtherEndpoints([{ ...furtherA.endpoint, usage: 'non-ue', weight: 2 }]);
      await wait("A's update taken", () => (furtherA.usage === 'non-ue' ? true : undefined));
      const update = onA.received.filter((e) => e.messageType === 'AMFConfigurationUpdate').at(-1)!;
      const read = readAMFConfigurationUpdate(update.pdu!);
      assert.ok(read.ok);
      assert.equal(read.message.amfTnlAssociationToUpdateList?.length, 1);
      assert.deepEqual([furtherB.usage, furtherB.weight], ['both', 1]);
      assert.equal(onB.received.filter((e) => e.messageType === 'AMFConfigurationUpdate').length, 1);
      // A UE of A bound to it goes on over A's first association.
      const before = onA.sent.length;
      assert.deepEqual(await uesA[1]!.deregister(), { outcome: 'accepted' });
      const after = onA.sent.slice(before).filter((e) => e.messageType === 'UplinkNASTransport');
      assert.ok(after.length > 0 && after.every((e) => e.further === undefined));

      // AMF B's To Remove List: B's further association ends, A's stays.
      const ended = onB.next((e) => (e.type === 'further-association-ended' ? e.association : undefined));
      await b.changeFurtherEndpoints([]);
      assert.equal((await ended).endpoint.port, furtherB.endpoint.port);
      assert.equal(onB.furtherAssociations.length, 0);
      assert.equal(onA.furtherAssociations.length, 1);
      await b.until(async () => {
        const radio = await b.get<RadioWithAssociations>('/api/v1/ran/radios/gnb-1');
        return radio.associations.length === 1 ? true : undefined;
      }, 'the removed association gone from the radio on B');
      assert.deepEqual(await uesB[0]!.deregister(), { outcome: 'accepted' });
      assert.deepEqual(await uesB[1]!.deregister(), { outcome: 'accepted' });

      // A's association is lost: made again after the back-off, NG Setup, and A's offer set up again.
      await onA.abort('test');
      const again = await wait('A made again with its further association', () => {
        const x = gnb.associations[0];
        return x !== onA && x?.furtherAssociations.length === 1 ? x : undefined;
      });
      assert.equal(again.state.kind, 'ready');
      assert.deepEqual(
        again.furtherAssociations.map((f) => [f.endpoint.port, f.usage, f.weight]),
        [[furtherA.endpoint.port, 'non-ue', 2]],
      );
      assert.equal(gnb.associations[1], onB);
      // The offer after the new NG Setup was one To Add List item, read back as the endpoint.
      const offer = readAMFConfigurationUpdate(
        again.received.find((e) => e.messageType === 'AMFConfigurationUpdate')!.pdu!,
      );
      assert.ok(offer.ok);
      assert.deepEqual(
        offer.message.amfTnlAssociationToAddList?.map((i) => endpointOf(i.aMFTNLAssociationAddress)),
        [furtherA.endpoint],
      );
      await assertTsharkAgrees(received);
      await assertTsharkAgrees(sent);
    } finally {
      await gnb.stop('abort');
      await ran.transport.close();
      await b.close();
      await a.close();
    }
  });
});
