import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { InboundMessage } from '../../../../src/network/transport/n2-transport.ts';
import { createUdpTransport } from '../../../../src/network/transport/udp/udp-transport.ts';
import { until } from '../../../helpers/until.ts';

describe('udp N2 transport (RFC 6951) on loopback', () => {
  it('a listener on a wildcard-bound link associates, echoes 1 B to 64 KiB, and closes gracefully', async () => {
    const server = await createUdpTransport({ addresses: ['0.0.0.0'], udpPort: 0 });
    const client = await createUdpTransport({
      addresses: ['127.0.0.1'],
      udpPort: 0,
      peerUdpPort: server.link.port,
    });
    try {
      const ends: string[] = [];
      const listener = await server.transport.listen(
        { addresses: ['127.0.0.1'], port: 38412 },
        (association) => ({
          message: (m) => association.send(m.streamId, m.ppid, m.payload),
          event: (e) => ends.push(e.type),
        }),
      );
      assert.deepEqual(listener.local, [{ address: '127.0.0.1', port: 38412 }]);
      const echoes: InboundMessage[] = [];
      const events: string[] = [];
      const association = await client.transport.connect(
        { remote: [{ address: '127.0.0.1', port: 38412 }] },
        () => ({ message: (m) => echoes.push(m), event: (e) => events.push(e.type) }),
      );
      const sizes = [1, 1452, 65536];
      sizes.forEach((size, i) => association.send(i, 60, new Uint8Array(size).fill(i + 1)));
      const shown = () => JSON.stringify({ echoes: echoes.map((m) => m.payload.length), events, ends });
      await until('the three echoes', () => echoes.length >= sizes.length, shown);
      assert.deepEqual(
        echoes.map((m) => [m.streamId, m.ppid, m.payload.length, m.payload[0]]).sort((a, b) => a[0]! - b[0]!),
        sizes.map((size, i) => [i, 60, size, i + 1]),
      );
      await listener.close();
      await until('the shutdown seen by both ends', () => events.length > 0 && ends.length > 0, shown);
      assert.deepEqual(ends, ['shutdown-complete']);
      assert.deepEqual(events, ['shutdown-complete']);
    } finally {
      await client.transport.close();
      await server.transport.close();
    }
  });
});
