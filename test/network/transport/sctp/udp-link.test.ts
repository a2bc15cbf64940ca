import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { loadNativeAddon } from '../../../../src/network/transport/native/native-addon.ts';
import type { LinkAddress } from '../../../../src/network/transport/sctp/packet-link.ts';
import { UdpLink } from '../../../../src/network/transport/udp/udp-link.ts';
import { until as waitUntil } from '../../../helpers/until.ts';

const native = loadNativeAddon();

/** Waits for the other side's thread (20 s of wall time: a loaded CI machine may delay it for seconds). */
const until = (check: () => boolean) => waitUntil("the other side's work", check, () => '', { everyMs: 2 });

// The same link over the addon's UDP sockets (batched system calls) and over node:dgram (no addon).
for (const kind of ['native', 'dgram'] as const) {
  describe(`UDP link over ${kind} sockets (RFC 6951)`, { skip: kind === 'native' && !native.ok }, () => {
    const open = (port = 0) =>
      UdpLink.open({
        addresses: ['127.0.0.1'],
        port,
        ...(kind === 'native' && native.ok ? { addon: native.addon } : {}),
      });

    it('carries the packets of one turn in order, from its port, to the given port; what is sent before close still leaves', async () => {
      const a = await open();
      const b = await open();
      const got: { text: string; remote: LinkAddress; local: string }[] = [];
      b.onPacket((packet, remote, local) =>
        got.push({ text: Buffer.from(packet).toString(), remote, local }),
      );
      try {
        assert.ok(a.port > 0 && b.port > 0);
        assert.equal(a.maxPacketSize({ address: '127.0.0.1', port: b.port }), 1500 - 20 - 8);
        for (const text of ['one', 'two', 'three'])
          a.send(Buffer.from(text), { address: '127.0.0.1', port: b.port });
        await until(() => got.length === 3);
        a.send(Buffer.from('last'), { address: '127.0.0.1', port: b.port });
        await a.close();
        await until(() => got.length === 4);
        assert.deepEqual(
          got,
          ['one', 'two', 'three', 'last'].map((text) => ({
            text,
            remote: { address: '127.0.0.1', port: a.port },
            local: '127.0.0.1',
          })),
        );
        // After close a send is a lost packet, not an error.
        a.send(Buffer.from('gone'), { address: '127.0.0.1', port: b.port });
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('refuses a port in use', async () => {
      const a = await open();
      try {
        await assert.rejects(open(a.port), { code: 'EADDRINUSE' });
      } finally {
        await a.close();
      }
    });
  });
}
