import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AssociationHandler, InboundMessage } from '../../../../src/network/transport/n2-transport.ts';
import { crc32c } from '../../../../src/network/transport/sctp/crc32c.ts';
import { SctpEndpoint } from '../../../../src/network/transport/sctp/endpoint.ts';
import { ManualTime } from '../../../helpers/manual-time.ts';
import { MemoryNetwork } from './memory-link.ts';

/** mulberry32: a small fixed-seed PRNG, so that a failure reproduces. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function withCrc(packet: Uint8Array): Uint8Array {
  if (packet.length < 12) return packet;
  packet.fill(0, 8, 12);
  new DataView(packet.buffer, packet.byteOffset).setUint32(8, crc32c(packet), true);
  return packet;
}

describe('userland SCTP under random and mutated packets', () => {
  it('never throws, keeps its limits, and still serves a well-behaved peer afterwards (seed 20260101)', async () => {
    const random = prng(20260101);
    const net = new MemoryNetwork();
    const time = new ManualTime();
    const limits = { maxAssociations: 8, receiveWindow: 64 * 1024, maxMessageSize: 16 * 1024 };
    const server = new SctpEndpoint({
      kind: 'raw',
      link: net.link('10.0.0.1'),
      clock: time,
      timers: time,
      limits,
    });
    const client = new SctpEndpoint({
      kind: 'raw',
      link: net.link('10.0.0.2'),
      clock: time,
      timers: time,
      limits,
    });
    const received: InboundMessage[] = [];
    await server.listen({ addresses: ['10.0.0.1'], port: 38412 }, (association): AssociationHandler => ({
      message: (m) => {
        received.push(m);
        association.send(m.streamId, 60, m.payload);
      },
      event: () => undefined,
    }));
    // Real traffic to mutate: a handshake, fragmented and small messages, a shutdown.
    const pending = client.connect({ remote: [{ address: '10.0.0.1', port: 38412 }] }, () => ({
      message: () => undefined,
      event: () => undefined,
    }));
    await net.settle();
    const association = await pending;
    for (let i = 0; i < 10; i++) association.send(i % 4, 60, new Uint8Array(1 + i * 700).fill(i));
    await time.advance(2000, () => net.settle());
    const corpus = net.sent.map((s) => s.packet);
    assert.ok(corpus.length > 10);

    for (let round = 0; round < 4000; round++) {
      let packet: Uint8Array;
      const kind = random();
      if (kind < 0.2) {
        packet = Uint8Array.from({ length: Math.floor(random() * 200) }, () => Math.floor(random() * 256));
      } else {
        packet = corpus[Math.floor(random() * corpus.length)]!.slice();
        const edits = 1 + Math.floor(random() * 4);
        for (let e = 0; e < edits; e++) {
          const at = 12 + Math.floor(random() * Math.max(1, packet.length - 12));
          if (at < packet.length) packet[at] = Math.floor(random() * 256);
        }
        if (random() < 0.2) packet = packet.subarray(0, Math.floor(random() * packet.length));
      }
      // Most mutated packets keep a valid checksum, so that they reach the chunk parsers.
      if (random() < 0.9) packet = withCrc(packet.slice());
      const from = random() < 0.7 ? '10.0.0.2' : '10.0.0.9';
      net.inject(packet, from, '10.0.0.1');
      if (round % 50 === 0) await time.advance(Math.floor(random() * 3000), () => net.settle());
    }
    await time.advance(120_000, () => net.settle());
    assert.ok(server.associationCount <= limits.maxAssociations);
    assert.ok(server.counters.badPackets > 0, 'some packets were refused at decoding');

    // The endpoint still works for a peer that behaves.
    const fresh = new SctpEndpoint({ kind: 'raw', link: net.link('10.0.0.3'), clock: time, timers: time });
    const echoes: InboundMessage[] = [];
    net.filter = () => 'deliver';
    const connecting = fresh.connect({ remote: [{ address: '10.0.0.1', port: 38412 }] }, () => ({
      message: (m) => echoes.push(m),
      event: () => undefined,
    }));
    await net.settle();
    const good = await connecting;
    good.send(1, 60, new Uint8Array([1, 2, 3]));
    await time.advance(1000, () => net.settle());
    assert.deepEqual(
      echoes.map((m) => [...m.payload]),
      [[1, 2, 3]],
    );
  });
});
