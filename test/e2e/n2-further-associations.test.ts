import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readAMFConfigurationUpdateAcknowledge } from '../../src/network/ngap/generated/messages.ts';
import { runSimulator } from '../../src/simulator/cli.ts';
import type { NgapExchange } from '../../src/simulator/gnb.ts';
import { assertTsharkAgrees, startN2Service } from './n2-service.ts';
import type { Page } from './registration-service.ts';
import { imsiOf, startRegistrationService, statusOf } from './registration-service.ts';

interface RadioWithAssociations {
  address: string;
  associations: { address: string; usage: string }[];
}

/** The messages of `type` a list holds, split by the association they went over. */
function overWhich(exchanges: readonly NgapExchange[], type: string): { first: number; further: number } {
  const of = exchanges.filter((e) => e.messageType === type);
  return {
    first: of.filter((e) => e.further === undefined).length,
    further: of.filter((e) => e.further).length,
  };
}

/**
 * Several TNL associations from one gNB (docs/n2.md, "Several TNL associations from one radio"): the AMF
 * offers a further endpoint after NG Setup (AMF Configuration Update, AMF TNL Association To Add List), the
 * gNB sets an association up with it (RAN Configuration Update naming its Global RAN Node ID first) and
 * reports it in the acknowledge; UEs register over both; when the further association aborts, its UE goes
 * on over the first (the AMF rebinds it, TS 23.502 4.2.7.2), and the radio is listed once throughout.
 */
describe('several TNL associations from one gNB (udp transport)', () => {
  it('offered, set up and joined; UEs over both; one aborts and its UE goes on over the other', async () => {
    const s = await startRegistrationService({
      furtherEndpoints: [{ address: '127.0.0.1', port: 0, usage: 'both', weight: 1 }],
    });
    try {
      const gnb = s.gnb1;
      await s.until(
        async () => gnb.sent.find((e) => e.messageType === 'AMFConfigurationUpdateAcknowledge'),
        'the gNB acknowledged the offer',
      );
      assert.equal(gnb.furtherAssociations.length, 1);
      const ack = gnb.sent.find((e) => e.messageType === 'AMFConfigurationUpdateAcknowledge')!;
      const read = readAMFConfigurationUpdateAcknowledge(ack.pdu!);
      assert.ok(read.ok);
      assert.equal(read.message.amfTnlAssociationSetupList?.length, 1);
      assert.equal(read.message.amfTnlAssociationFailedToSetupList, undefined);
      // The further association's first message: RAN Configuration Update, acknowledged on it.
      assert.deepEqual(overWhich(gnb.sent, 'RANConfigurationUpdate'), { first: 0, further: 1 });
      assert.deepEqual(overWhich(gnb.received, 'RANConfigurationUpdateAcknowledge'), {
        first: 0,
        further: 1,
      });

      const imsis = [imsiOf(1), imsiOf(2)];
      for (const imsi of imsis) await s.provision(imsi);
      const [a, b] = imsis.map((imsi) => s.ue({ imsi }));
      assert.ok(a !== undefined && b !== undefined);
      assert.equal((await a.register()).outcome, 'accepted');
      assert.equal((await b.register()).outcome, 'accepted');
      // The gNB spread its UEs; each UE's answers came on the association it used.
      assert.deepEqual(overWhich(gnb.sent, 'InitialUEMessage'), { first: 1, further: 1 });
      assert.deepEqual(overWhich(gnb.received, 'InitialContextSetupRequest'), { first: 1, further: 1 });
      const radios = await s.get<Page<{ name: string }>>('/api/v1/ran/radios');
      assert.deepEqual(
        radios.items.map((r) => r.name),
        ['gnb-1'],
      );
      const detail = await s.get<RadioWithAssociations>('/api/v1/ran/radios/gnb-1');
      assert.deepEqual(
        detail.associations.map((a) => a.usage),
        ['both', 'both'],
      );

      // The further association aborts: the radio stays, its UE (still connected) goes on over the first.
      const ended = gnb.next((e) => (e.type === 'further-association-ended' ? true : undefined));
      gnb.furtherAssociations[0]!.association.abort('test');
      await ended;
      assert.equal(gnb.state.kind, 'ready');
      const afterAbort = gnb.received.length;
      // A registered first: its Initial UE Message says which association it used.
      const aOnFurther = gnb.sent.find((e) => e.messageType === 'InitialUEMessage')?.further !== undefined;
      const [moved, stayed] = aOnFurther ? [a, b] : [b, a];
      const stayedImsi = aOnFurther ? imsis[1]! : imsis[0]!;
      assert.deepEqual(await moved.deregister(), { outcome: 'accepted' });
      assert.ok(gnb.received.slice(afterAbort).every((e) => e.further === undefined));
      // The other UE: idle, then a Service Request over the first association.
      const released = stayed.next((e) => (e.type === 'released' ? true : undefined));
      assert.ok(s.ues.requestRelease(stayed));
      await released;
      assert.equal((await stayed.serviceRequest()).outcome, 'accepted');
      assert.equal((await statusOf(s, stayedImsi)).registered, true);

      const after = await s.get<Page<{ name: string }>>('/api/v1/ran/radios');
      assert.deepEqual(
        after.items.map((r) => r.name),
        ['gnb-1'],
      );
      const left = await s.get<RadioWithAssociations>('/api/v1/ran/radios/gnb-1');
      assert.deepEqual(left.associations, [{ address: left.address, usage: 'both' }]);
      await assertTsharkAgrees(s.received);
      await assertTsharkAgrees(gnb.sent);
    } finally {
      await s.close();
    }
  });

  it('the simulator command sets them up with --further-associations and says so', async () => {
    const s = await startN2Service({
      furtherEndpoints: [{ address: '127.0.0.1', port: 0, usage: 'ue', weight: 3 }],
    });
    try {
      const lines: string[] = [];
      const status = await runSimulator(
        [
          'gnb',
          '--udp-port',
          String(s.amfUdpPort),
          '--amf',
          `127.0.0.1:${s.amf.port}`,
          '--further-associations',
          '--then',
          'shutdown',
        ],
        (line) => lines.push(line),
        new Promise(() => undefined),
      );
      assert.equal(status, 0, lines.join('\n'));
      assert.ok(
        lines.some((line) =>
          /^gnb-1: AMF configuration update acknowledged: .*; further TNL associations with 127\.0\.0\.1:\d+$/.test(
            line,
          ),
        ),
        lines.join('\n'),
      );
      assert.ok(lines.includes('gnb-1 -> RANConfigurationUpdate'), lines.join('\n'));
    } finally {
      await s.close();
    }
  });
});
