import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { AssociationEvent, InboundMessage } from '../../../../src/network/transport/n2-transport.ts';
import {
  loadNativeAddon,
  rawSocketSupport,
  type NativeAddon,
} from '../../../../src/network/transport/native/native-addon.ts';
import { RawLink } from '../../../../src/network/transport/raw/raw-link.ts';
import { createRawTransport } from '../../../../src/network/transport/raw/raw-transport.ts';
import { until } from '../../../helpers/until.ts';

/**
 * The `raw` transport (userland SCTP over the addon's raw sockets) talking to itself on loopback:
 * two endpoints, as two processes of one namespace would be, each keeping to its own ports.
 */
const load = loadNativeAddon();
const addon = load.ok ? load.addon : undefined;
const support = addon === undefined ? undefined : rawSocketSupport(addon, 4);
const skip = support?.available === true ? false : 'raw sockets unavailable (CAP_NET_RAW)';

function need(a: NativeAddon | undefined): NativeAddon {
  assert.ok(a);
  return a;
}

const port = 30000 + (process.pid % 20000);

describe('raw transport on loopback', { skip }, () => {
  it('associates, carries 1 B to 64 KiB on several streams both ways, and shuts down', async () => {
    const server = createRawTransport({ addon: need(addon), addresses: ['127.0.0.1'] });
    const client = createRawTransport({ addon: need(addon), addresses: ['127.0.0.1'] });
    try {
      const serverEvents: AssociationEvent[] = [];
      let serverEnded: (e: AssociationEvent) => void = () => undefined;
      const serverEnd = new Promise<AssociationEvent>((resolve) => (serverEnded = resolve));
      await server.transport.listen(
        { addresses: ['127.0.0.1'], port, outboundStreams: 4, inboundStreams: 4 },
        (association) => ({
          message: (m: InboundMessage) => void association.send(m.streamId, m.ppid, m.payload),
          event: (e) => {
            serverEvents.push(e);
            if (e.type === 'shutdown-complete' || e.type === 'communication-lost') serverEnded(e);
          },
        }),
      );
      const received: InboundMessage[] = [];
      let onMessage: () => void = () => undefined;
      let clientEnded: (e: AssociationEvent) => void = () => undefined;
      const clientEnd = new Promise<AssociationEvent>((resolve) => (clientEnded = resolve));
      const association = await client.transport.connect(
        { remote: [{ address: '127.0.0.1', port }], outboundStreams: 4 },
        () => ({
          message: (m) => {
            received.push(m);
            onMessage();
          },
          event: (e) => {
            if (e.type === 'shutdown-complete' || e.type === 'communication-lost') clientEnded(e);
          },
        }),
      );
      assert.deepEqual(association.streams, { inbound: 4, outbound: 4 });
      const sent: { streamId: number; payload: Buffer }[] = [];
      for (const size of [1, 1000, 1500, 20000, 65536]) {
        for (const streamId of [0, 1, 3]) {
          const payload = Buffer.alloc(size, size + streamId);
          sent.push({ streamId, payload });
          const echoed = new Promise<void>((resolve) => (onMessage = resolve));
          assert.deepEqual(association.send(streamId, 60, payload), { ok: true });
          await echoed;
        }
      }
      assert.deepEqual(
        received.map((m) => [
          m.streamId,
          m.ppid,
          Buffer.from(m.payload).equals(sent[received.indexOf(m)]?.payload ?? Buffer.alloc(0)),
        ]),
        sent.map((s) => [s.streamId, 60, true]),
      );
      association.shutdown();
      assert.deepEqual(await clientEnd, { type: 'shutdown-complete' });
      assert.deepEqual(await serverEnd, { type: 'shutdown-complete' });
      assert.deepEqual(serverEvents, [{ type: 'shutdown-complete' }]);
    } finally {
      await client.transport.close();
      await server.transport.close();
    }
  });

  it('sees an abort with its reason on the other side', async () => {
    const server = createRawTransport({ addon: need(addon), addresses: ['127.0.0.1'] });
    const client = createRawTransport({ addon: need(addon), addresses: ['127.0.0.1'] });
    try {
      let serverEnded: (e: AssociationEvent) => void = () => undefined;
      const serverEnd = new Promise<AssociationEvent>((resolve) => (serverEnded = resolve));
      await server.transport.listen({ addresses: ['127.0.0.1'], port: port + 1 }, () => ({
        message: () => undefined,
        event: (e) => {
          if (e.type === 'communication-lost') serverEnded(e);
        },
      }));
      const association = await client.transport.connect(
        { remote: [{ address: '127.0.0.1', port: port + 1 }] },
        () => ({
          message: () => undefined,
          event: () => undefined,
        }),
      );
      association.abort('bye');
      const end = await serverEnd;
      assert.equal(end.type === 'communication-lost' && end.reason, 'peer-abort');
      assert.match(end.type === 'communication-lost' ? (end.cause ?? '') : '', /bye/);
    } finally {
      await client.transport.close();
      await server.transport.close();
    }
  });

  it('survives random and mutated datagrams from the network (fixed-seed fuzz), then still associates', async () => {
    const server = createRawTransport({ addon: need(addon), addresses: ['127.0.0.1'] });
    const client = createRawTransport({ addon: need(addon), addresses: ['127.0.0.1'] });
    const attacker = new (need(addon).RawSocket)(4, { onPacket: () => undefined, onError: () => undefined });
    try {
      await server.transport.listen({ addresses: ['127.0.0.1'], port: port + 2 }, (a) => ({
        message: (m) => void a.send(m.streamId, m.ppid, m.payload),
        event: () => undefined,
      }));
      let seed = 0x5eed1234;
      const random = () => {
        seed ^= seed << 13;
        seed ^= seed >>> 17;
        seed ^= seed << 5;
        return (seed >>> 0) / 2 ** 32;
      };
      // A valid-looking common header to the listener's port, then chunks of random bytes.
      for (let i = 0; i < 3000; i++) {
        const body = Buffer.from(
          Array.from({ length: Math.floor(random() * 300) }, () => Math.floor(random() * 256)),
        );
        const header = Buffer.alloc(12);
        header.writeUInt16BE(40000 + (i % 100), 0);
        header.writeUInt16BE(i % 3 === 0 ? Math.floor(random() * 65536) : port + 2, 2);
        header.writeUInt32BE(i % 2 === 0 ? 0 : Math.floor(random() * 2 ** 32), 4);
        attacker.send(i % 5 === 0 ? body : Buffer.concat([header, body]), '127.0.0.1');
      }
      const association = await client.transport.connect(
        { remote: [{ address: '127.0.0.1', port: port + 2 }] },
        () => ({
          message: () => undefined,
          event: () => undefined,
        }),
      );
      assert.equal(association.state, 'established');
      assert.ok(server.transport.counters.badPackets > 0, 'the fuzz reached the stack');
    } finally {
      attacker.close();
      await client.transport.close();
      await server.transport.close();
    }
  });

  it('keeps only datagrams to its addresses, and says what it needs when it cannot open', async () => {
    const link = RawLink.open({ addon: need(addon), addresses: ['127.0.0.7', '127.0.0.8'] });
    const sender = new (need(addon).RawSocket)(4, { onPacket: () => undefined, onError: () => undefined });
    const got: string[] = [];
    link.onPacket((packet, remote, local) => {
      const text = Buffer.from(packet).toString();
      if (text.startsWith(`raw-link-test-${process.pid}`))
        got.push(`${remote.address}>${local}:${text.slice(-1)}`);
    });
    try {
      for (const [to, mark] of [
        ['127.0.0.7', 'a'],
        ['127.0.0.9', 'b'],
        ['127.0.0.8', 'c'],
      ] as const) {
        sender.send(Buffer.from(`raw-link-test-${process.pid}${mark}`), to, '127.0.0.5');
      }
      // The addon's thread reads the raw socket: waited for (a loaded machine may delay it for seconds).
      await until(
        'the two datagrams to its addresses',
        () => got.length >= 2,
        () => JSON.stringify(got),
        { everyMs: 2 },
      );
      assert.deepEqual(got, ['127.0.0.5>127.0.0.7:a', '127.0.0.5>127.0.0.8:c']);
      assert.equal(link.maxPacketSize({ address: '127.0.0.1', port: 0 }), 1480);
      assert.equal(link.maxPacketSize({ address: '::1', port: 0 }), 1460);
      const loopback = RawLink.open({ addon: need(addon), addresses: ['127.0.0.1', '::1'], mtu: 65536 });
      try {
        // The IPv4 Total Length (16 bits) counts the header; the IPv6 Payload Length does not.
        assert.equal(loopback.maxPacketSize({ address: '127.0.0.1', port: 0 }), 65515);
        assert.equal(loopback.maxPacketSize({ address: '::1', port: 0 }), 65496);
      } finally {
        await loopback.close();
      }
      // A stack's retransmission timer may fire after its link closed: the packet is lost, nothing throws.
      loopback.send(new Uint8Array(12), { address: '127.0.0.1', port: 0 });
    } finally {
      sender.close();
      await link.close();
    }
    assert.throws(() => RawLink.open({ addon: need(addon), addresses: [] }), /no local address/);
    assert.throws(() => RawLink.open({ addon: need(addon), addresses: ['192.0.2.77'] }), {
      code: 'EADDRNOTAVAIL',
    });
  });
});
