import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertTsharkAgrees, gnbConfig } from './n2-service.ts';
import type { Page } from './registration-service.ts';
import { imsiOf, startRegistrationService, statusOf } from './registration-service.ts';

/**
 * A second SCTP association from a gNB already connected (same Global RAN Node ID) that the AMF did not
 * offer (docs/n2.md, "Several TNL associations from one radio"; no `n2_further_endpoints` here): the
 * newcomer's NG Setup is refused while the first association is live, a RAN Configuration Update on it
 * gets its failure, and the first association, its radio (listed once) and its UE go on untouched.
 */
describe('a second association from a connected gNB (udp transport)', () => {
  it('refused at NG Setup and RAN Configuration Update; the radio listed once; the UE on the first association unaffected', async () => {
    const s = await startRegistrationService();
    try {
      const imsi = imsiOf(91);
      await s.provision(imsi);
      const ue = s.ue({ imsi });
      assert.equal((await ue.register()).outcome, 'accepted');
      const released = ue.next((e) => (e.type === 'released' ? true : undefined));
      assert.ok(s.ues.requestRelease(ue));
      await released;

      const second = s.gnb(gnbConfig(1, { name: 'gnb-1-second' }));
      await second.connect();
      const setup = await second.ngSetup();
      assert.ok(setup.outcome === 'refused');
      assert.equal(setup.failure.cause, 'misc/unspecified');
      const update = await second.ranConfigurationUpdate({ name: 'gnb-1-second' });
      assert.ok(update.outcome === 'refused');
      assert.equal(update.failure.cause, 'protocol/message-not-compatible-with-receiver-state');

      const radios = await s.get<Page<{ name: string }>>('/api/v1/ran/radios');
      assert.deepEqual(
        radios.items.map((r) => r.name),
        ['gnb-1'],
      );
      assert.equal((await ue.serviceRequest()).outcome, 'accepted');
      assert.equal((await statusOf(s, imsi)).registered, true);
      assert.deepEqual(await second.shutdown(), { reason: 'shutdown' });
      assert.equal(s.gnb1.state.kind, 'ready');
      await assertTsharkAgrees(s.received);
    } finally {
      await s.close();
    }
  });
});
