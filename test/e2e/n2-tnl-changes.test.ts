import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readAMFConfigurationUpdate } from '../../src/network/ngap/generated/messages.ts';
import { endpointOf } from '../../src/network/ngap/transport-layer-address.ts';
import type { NgapExchange } from '../../src/simulator/gnb.ts';
import { assertTsharkAgrees } from './n2-service.ts';
import { imsiOf, startRegistrationService } from './registration-service.ts';

interface RadioWithAssociations {
  associations: { address: string; usage: string }[];
}

/** The Initial UE Messages of a list by the AMF port of the further association they went over (0: the first). */
function initialUeMessagesByPort(exchanges: readonly NgapExchange[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const e of exchanges.filter((x) => x.messageType === 'InitialUEMessage')) {
    const port = e.further?.port ?? 0;
    counts[port] = (counts[port] ?? 0) + 1;
  }
  return counts;
}

/**
 * A change of the AMF's further endpoints reaches the gNB (docs/n2.md, "Several TNL associations from one
 * radio"): AMF Configuration Update with the AMF TNL Association To Add, To Remove and To Update Lists
 * (TS 38.413 8.7.3.2); the simulated gNB sets the added one up, takes the new usage and weight factors
 * (its new UEs go by weight to the associations allowed UE signalling, TS 38.413 9.3.2.9, 9.3.2.10) and
 * removes the association the AMF no longer offers; the radio's associations in the API follow.
 */
describe('a change of the further endpoints (udp transport)', () => {
  it('added, updated and removed: the gNB follows, its new UEs go by weight factor, the API shows it', async () => {
    const s = await startRegistrationService({
      furtherEndpoints: [{ address: '127.0.0.1', port: 0, usage: 'both', weight: 1 }],
    });
    try {
      const gnb = s.gnb1;
      const acknowledged = (n: number) =>
        s.until(async () => {
          const acks = gnb.sent.filter((e) => e.messageType === 'AMFConfigurationUpdateAcknowledge');
          return acks.length >= n ? true : undefined;
        }, `${n} AMF Configuration Update Acknowledge`);
      await acknowledged(1);
      const first = gnb.furtherAssociations[0]!.endpoint;

      // The first further endpoint is kept for non-UE signalling only; one for UEs is added with weight 3.
      const [, added] = await s.changeFurtherEndpoints([
        { ...first, usage: 'non-ue', weight: 1 },
        { address: '127.0.0.1', port: 0, usage: 'ue', weight: 3 },
      ]);
      assert.ok(added !== undefined && added.port !== first.port);
      await acknowledged(2);
      const update = gnb.received.filter((e) => e.messageType === 'AMFConfigurationUpdate').at(-1)!;
      const read = readAMFConfigurationUpdate(update.pdu!);
      assert.ok(read.ok);
      assert.deepEqual(
        read.message.amfTnlAssociationToAddList?.map((i) => endpointOf(i.aMFTNLAssociationAddress)),
        [{ address: '127.0.0.1', port: added.port }],
      );
      assert.deepEqual(
        read.message.amfTnlAssociationToUpdateList?.map((i) => ({
          endpoint: endpointOf(i.aMFTNLAssociationAddress),
          usage: i.tNLAssociationUsage,
          weight: i.tNLAddressWeightFactor,
        })),
        [{ endpoint: first, usage: 'non-ue', weight: 1 }],
      );
      assert.equal(read.message.amfTnlAssociationToRemoveList, undefined);
      assert.deepEqual(
        gnb.furtherAssociations.map((f) => [f.endpoint.port, f.usage, f.weight]),
        [
          [first.port, 'non-ue', 1],
          [added.port, 'ue', 3],
        ],
      );
      const detail = await s.until(async () => {
        const radio = await s.get<RadioWithAssociations>('/api/v1/ran/radios/gnb-1');
        return radio.associations.length === 3 ? radio : undefined;
      }, 'the added association listed');
      assert.deepEqual(
        detail.associations.map((a) => a.usage),
        ['both', 'non-ue', 'ue'],
      );

      // Four UEs: by weight, 1 on the first association, 3 on the added one, none on the non-UE one.
      const imsis = [1, 2, 3, 4].map(imsiOf);
      for (const imsi of imsis) await s.provision(imsi);
      const ues = imsis.map((imsi) => s.ue({ imsi }));
      for (const ue of ues) assert.equal((await ue.register()).outcome, 'accepted');
      assert.deepEqual(initialUeMessagesByPort(gnb.sent), { 0: 1, [added.port]: 3 });
      // No UE's signalling went over the non-UE association, either way.
      const ueMessages = ['DownlinkNASTransport', 'InitialContextSetupRequest', 'UplinkNASTransport'];
      for (const e of [...gnb.sent, ...gnb.received])
        if (ueMessages.includes(e.messageType)) assert.notEqual(e.further?.port, first.port, e.messageType);

      // The first further endpoint is removed: the gNB ends its association with it and acknowledges.
      const ended = gnb.next((e) => (e.type === 'further-association-ended' ? e.association : undefined));
      await s.changeFurtherEndpoints([added]);
      assert.equal((await ended).endpoint.port, first.port);
      await acknowledged(3);
      const removal = readAMFConfigurationUpdate(
        gnb.received.filter((e) => e.messageType === 'AMFConfigurationUpdate').at(-1)!.pdu!,
      );
      assert.ok(removal.ok);
      assert.deepEqual(
        removal.message.amfTnlAssociationToRemoveList?.map((i) => endpointOf(i.aMFTNLAssociationAddress)),
        [first],
      );
      await s.until(async () => {
        const radio = await s.get<RadioWithAssociations>('/api/v1/ran/radios/gnb-1');
        return radio.associations.map((a) => a.usage).join() === 'both,ue' ? true : undefined;
      }, 'the removed association gone from the radio');
      // The UEs go on: each deregisters over its association.
      for (const ue of ues) assert.deepEqual(await ue.deregister(), { outcome: 'accepted' });
      await assertTsharkAgrees(s.received);
      await assertTsharkAgrees(gnb.sent);
    } finally {
      await s.close();
    }
  });
});
