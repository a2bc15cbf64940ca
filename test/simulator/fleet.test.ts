import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bringUp, createFleet } from '../../src/simulator/gnb-fleet.ts';
import { createUdpTransport } from '../../src/network/transport/udp/udp-transport.ts';
import { ScriptedAmf } from './scripted-amf.ts';

describe('a fleet of simulated gNBs over the udp transport (userland SCTP on loopback)', () => {
  it('300 gNBs share one UDP endpoint, each on its own association, and all complete NG Setup', async () => {
    const server = await createUdpTransport({ addresses: ['127.0.0.1'], udpPort: 0 });
    const client = await createUdpTransport({
      addresses: ['127.0.0.1'],
      udpPort: 0,
      peerUdpPort: server.link.port,
    });
    try {
      const amf = await ScriptedAmf.listen(server.transport);
      const gnbs = createFleet({
        template: {
          plmn: { mcc: '001', mnc: '01' },
          node: { kind: 'gNB', value: 0x100, bitLength: 24 },
          name: 'cell',
          supportedTas: [{ tac: 1, plmns: [{ plmn: { mcc: '001', mnc: '01' }, slices: [{ sst: 1 }] }] }],
        },
        count: 300,
        transport: client.transport,
        amf: [{ address: '127.0.0.1', port: 38412 }],
        responseTimeoutMs: 8000,
      });
      const results = await Promise.all(gnbs.map(bringUp));
      assert.deepEqual(
        results.map((result) => result.outcome),
        gnbs.map(() => 'accepted'),
      );
      assert.equal(amf.associations.size, 300);
      assert.deepEqual(
        gnbs.map((gnb) => gnb.config.name),
        gnbs.map((_, i) => `cell-${i + 1}`),
      );
      assert.equal(gnbs.at(-1)?.config.node.value, 0x100 + 299);
      assert.equal(new Set(gnbs.map((gnb) => gnb.local?.port)).size, 300);
      const requests = amf.received.filter((r) => r.messageType === 'NGSetupRequest');
      assert.equal(new Set(requests.map((r) => r.association)).size, 300);
      const ends = await Promise.all(gnbs.map((gnb) => gnb.shutdown()));
      assert.ok(ends.every((end) => end.reason === 'shutdown'));
    } finally {
      await client.transport.close();
      await server.transport.close();
    }
  });
});
