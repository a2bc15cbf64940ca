import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type {
  AssociationEvent,
  AssociationHandler,
  InboundMessage,
  N2Association,
} from '../../../../src/network/transport/n2-transport.ts';
import { ChunkType, decodeInit } from '../../../../src/network/transport/sctp/chunks.ts';
import { SctpEndpoint } from '../../../../src/network/transport/sctp/endpoint.ts';
import { decodePacket, encodePacket } from '../../../../src/network/transport/sctp/packet.ts';
import type { SctpLimits } from '../../../../src/network/transport/sctp/sctp-config.ts';
import { ManualTime } from '../../../helpers/manual-time.ts';
import { MemoryNetwork } from './memory-link.ts';

const SERVER = '10.0.0.1';
const CLIENT = '10.0.0.2';
const PORT = 38412;

function recorder(): AssociationHandler & { messages: InboundMessage[]; events: AssociationEvent[] } {
  const messages: InboundMessage[] = [];
  const events: AssociationEvent[] = [];
  return { messages, events, message: (m) => messages.push(m), event: (e) => events.push(e) };
}

function chunkTypes(packet: Uint8Array): number[] {
  const d = decodePacket(packet);
  return d.ok ? d.value.chunks.map((c) => c.type) : [];
}

async function setup(limits: Partial<SctpLimits> = {}) {
  const net = new MemoryNetwork();
  const time = new ManualTime();
  const endpoint = (address: string) =>
    new SctpEndpoint({ kind: 'raw', link: net.link(address), clock: time, timers: time, limits });
  const server = endpoint(SERVER);
  const client = endpoint(CLIENT);
  const accepted: { association: N2Association; handler: ReturnType<typeof recorder> }[] = [];
  await server.listen({ addresses: [SERVER], port: PORT }, (association) => {
    const handler = recorder();
    accepted.push({ association, handler });
    return handler;
  });
  const settle = () => net.settle();
  const connect = async (endpointToUse = client) => {
    const handler = recorder();
    const pending = endpointToUse.connect({ remote: [{ address: SERVER, port: PORT }] }, () => handler);
    await settle();
    return { association: await pending, handler };
  };
  return { net, time, server, client, accepted, settle, connect, endpoint };
}

const bytes = (n: number, seed = 0) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

describe('userland SCTP association', () => {
  it('associates with the four-way handshake and negotiates streams', async () => {
    const t = await setup();
    const { association } = await t.connect();
    assert.deepEqual(
      t.net.sent.map((s) => chunkTypes(s.packet)[0]),
      [ChunkType.INIT, ChunkType.INIT_ACK, ChunkType.COOKIE_ECHO, ChunkType.COOKIE_ACK],
    );
    assert.equal(t.accepted.length, 1);
    assert.deepEqual(association.streams, { inbound: 16, outbound: 16 });
    assert.equal(association.state, 'established');
  });

  it('serves many associations at once in one endpoint, each message to its own association', async () => {
    const t = await setup();
    const clients = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const endpoint = t.endpoint(`10.1.${i >> 8}.${i & 0xff}`);
        const handler = recorder();
        const pending = endpoint.connect({ remote: [{ address: SERVER, port: PORT }] }, () => handler);
        return { pending, handler };
      }),
    );
    await t.settle();
    const associations = await Promise.all(clients.map((c) => c.pending));
    assert.equal(t.server.associationCount, 200);
    associations.forEach((a, i) => a.send(1, 60, Uint8Array.of(i & 0xff, i >> 8)));
    await t.time.advance(500, t.settle);
    const byPeer = new Map(
      t.accepted.map(({ association, handler }) => [association.remote.address, handler]),
    );
    clients.forEach((_, i) => {
      const got = byPeer.get(`10.1.${i >> 8}.${i & 0xff}`)?.messages.map((m) => [...m.payload]);
      assert.deepEqual(got, [[i & 0xff, i >> 8]]);
    });
  });

  it('keeps no state for an INIT until its cookie returns', async () => {
    const t = await setup();
    for (let i = 0; i < 200; i++) {
      const init = encodePacket(40000 + i, PORT, 0, [
        new Uint8Array([1, 0, 0, 20, 0, 0, 0, i + 1, 0, 1, 0, 0, 0, 10, 0, 10, 0, 0, 0, 1]),
      ]);
      t.net.inject(init, CLIENT, SERVER);
    }
    await t.settle();
    assert.equal(t.server.associationCount, 0);
    assert.equal(t.net.sent.filter((s) => chunkTypes(s.packet)[0] === ChunkType.INIT_ACK).length, 200);
  });

  it('carries messages of 1 byte to 64 KiB both ways, in order per stream, with PPID', async () => {
    const t = await setup();
    const { association, handler } = await t.connect();
    const sizes = [1, 2, 100, 1199, 1200, 1201, 5000, 65536];
    for (const [i, size] of sizes.entries())
      assert.deepEqual(association.send(i % 3, 60, bytes(size, i)), { ok: true });
    await t.time.advance(1000, t.settle);
    const server = t.accepted[0]!;
    assert.deepEqual(
      server.handler.messages.map((m) => [m.streamId, m.ppid, m.payload.length]),
      sizes.map((s, i) => [i % 3, 60, s]),
    );
    for (const [i, m] of server.handler.messages.entries())
      assert.deepEqual(Uint8Array.from(m.payload), bytes(sizes[i]!, i));
    server.association.send(2, 60, bytes(3000));
    await t.time.advance(1000, t.settle);
    assert.deepEqual(
      handler.messages.map((m) => m.payload.length),
      [3000],
    );
  });

  it('bundles the answers to the packets read in one turn, with their SACK, into full packets (RFC 9260 6.1 C)', async () => {
    const t = await setup();
    const { association, handler } = await t.connect();
    const server = t.accepted[0]!;
    server.handler.message = (m) => void server.association.send(m.streamId, m.ppid, m.payload);
    const from = t.net.sent.length;
    // Eight 1,500-byte messages, two fragments each at 1,280 bytes, reach the server in the packets of
    // each congestion window, delivered in one turn.
    for (let i = 0; i < 8; i++) association.send(1, 60, bytes(1500, i));
    await t.time.advance(1000, t.settle);
    assert.deepEqual(
      handler.messages.map((m) => m.payload.length),
      Array.from({ length: 8 }, () => 1500),
    );
    for (const [i, m] of handler.messages.entries())
      assert.deepEqual(Uint8Array.from(m.payload), bytes(1500, i));
    const answers = t.net.sent.slice(from).filter((s) => s.from === SERVER);
    // Each window's echoes are packed into full packets with the SACK in front: 11 packets for 12,000
    // bytes. Answering every received packet at once took 17 (two per message, and a lone SACK).
    assert.deepEqual(
      answers.map((s) => chunkTypes(s.packet).filter((type) => type === ChunkType.DATA).length > 0),
      Array.from({ length: answers.length }, () => true),
      'no packet of a lone SACK',
    );
    assert.ok(answers.length <= 11, `${answers.length} packets`);
    assert.equal(chunkTypes(answers[0]!.packet)[0], ChunkType.SACK);
  });

  it('bundles the answers sent from promise reactions of the packets read, as those sent in their handler', async () => {
    const t = await setup();
    const { association, handler } = await t.connect();
    const server = t.accepted[0]!;
    // The answer two reactions later, as a handler that awaits something already at hand.
    server.handler.message = (m) =>
      void Promise.resolve()
        .then(() => undefined)
        .then(() => server.association.send(m.streamId, m.ppid, m.payload));
    const from = t.net.sent.length;
    for (let i = 0; i < 8; i++) association.send(1, 60, bytes(1500, i));
    await t.time.advance(1000, t.settle);
    assert.equal(handler.messages.length, 8);
    const answers = t.net.sent.slice(from).filter((s) => s.from === SERVER);
    assert.ok(answers.length <= 11, `${answers.length} packets`);
  });

  // What a storage commit or a timer releases is sent from the check or the timers phase: a flush at the
  // end of the turn would wait a whole loop iteration, behind the next poll phase's packets.
  it('sends what a timer sends at the end of that task, before the next loop iteration', async () => {
    const t = await setup();
    const { association } = await t.connect();
    const from = t.net.sent.length;
    const sentBeforeImmediate = await new Promise<number>((resolve) =>
      setTimeout(() => {
        setImmediate(() => resolve(t.net.sent.length - from));
        association.send(1, 60, bytes(100));
      }, 0),
    );
    assert.equal(sentBeforeImmediate, 1, 'the DATA was handed to the link before an immediate queued first');
    await t.settle();
  });

  it('sends what a promise settled by a check-phase callback sends at the end of that task', async () => {
    const t = await setup();
    const { association } = await t.connect();
    const from = t.net.sent.length;
    // As the turn transaction's commit: a setImmediate callback settles the promise the sender awaits.
    const committed = new Promise<void>((resolve) => setImmediate(resolve));
    const sentBeforeImmediate = await committed.then(
      () =>
        new Promise<number>((resolve) => {
          setImmediate(() => resolve(t.net.sent.length - from));
          association.send(1, 60, bytes(100));
          association.send(2, 60, bytes(100));
        }),
    );
    assert.equal(sentBeforeImmediate, 1, 'both messages left in one packet before an immediate queued first');
    await t.settle();
  });

  it('recovers lost and duplicated packets by retransmission, delivering each message once in order', async () => {
    const t = await setup();
    const { association } = await t.connect();
    let n = 0;
    t.net.filter = () => (++n % 4 === 0 ? 'drop' : n % 7 === 0 ? 'duplicate' : 'deliver');
    for (let i = 0; i < 60; i++) association.send(1 + (i % 2), 60, bytes(700 + i, i));
    await t.time.advance(30_000, t.settle);
    const got = t.accepted[0]!.handler.messages;
    assert.equal(got.length, 60);
    for (const stream of [1, 2]) {
      const seq = got.filter((m) => m.streamId === stream).map((m) => m.payload.length - 700);
      assert.deepEqual(
        seq,
        [...seq].sort((a, b) => a - b),
        `stream ${stream} in order`,
      );
    }
    assert.equal(
      (association as unknown as { queuedBytes: number }).queuedBytes,
      0,
      'everything acknowledged',
    );
  });

  it('fast-retransmits a lost chunk after three missing reports, before T3 expires', async () => {
    const t = await setup();
    const { association } = await t.connect();
    let dropped = false;
    t.net.filter = (packet) => {
      if (!dropped && chunkTypes(packet)[0] === ChunkType.DATA) {
        dropped = true;
        return 'drop';
      }
      return 'deliver';
    };
    for (let i = 0; i < 8; i++) association.send(1, 60, bytes(1500, i));
    await t.settle();
    await t.time.advance(250, t.settle);
    assert.equal(t.accepted[0]!.handler.messages.length, 8, 'recovered within 250 ms, less than RTO.Min');
  });

  it('applies back-pressure with a bounded queue, then reports drain', async () => {
    const t = await setup({ maxQueuedBytes: 10_000 });
    const { association, handler } = await t.connect();
    t.net.filter = () => 'drop';
    const results = Array.from({ length: 12 }, () => association.send(1, 60, bytes(1000)));
    assert.equal(results.filter((r) => r.ok).length, 10);
    assert.deepEqual(results[11], { ok: false, error: 'queue-full' });
    t.net.filter = () => 'deliver';
    await t.time.advance(5000, t.settle);
    assert.ok(handler.events.some((e) => e.type === 'drain'));
    assert.equal(t.accepted[0]!.handler.messages.length, 10);
  });

  it('refuses an invalid stream, an empty and an oversized message', async () => {
    const t = await setup({ maxMessageSize: 1000 });
    const { association } = await t.connect();
    assert.deepEqual(association.send(16, 60, bytes(1)), { ok: false, error: 'invalid-stream' });
    assert.deepEqual(association.send(0, 60, new Uint8Array(0)), { ok: false, error: 'empty' });
    assert.deepEqual(association.send(0, 60, bytes(1001)), { ok: false, error: 'too-large' });
  });

  it('shuts down gracefully from either side after the queued data is delivered', async () => {
    for (const side of ['client', 'server'] as const) {
      const t = await setup();
      const { association, handler } = await t.connect();
      const server = t.accepted[0]!;
      const closing = side === 'client' ? association : server.association;
      closing.send(0, 60, bytes(4000));
      closing.shutdown();
      assert.deepEqual(closing.send(0, 60, bytes(1)), { ok: false, error: 'closed' });
      await t.time.advance(1000, t.settle);
      const receiver = side === 'client' ? server.handler : handler;
      assert.equal(receiver.messages.length, 1);
      assert.deepEqual(handler.events.at(-1), { type: 'shutdown-complete' });
      assert.deepEqual(server.handler.events.at(-1), { type: 'shutdown-complete' });
      assert.equal(t.server.associationCount + t.client.associationCount, 0);
    }
  });

  it('answers a SHUTDOWN ACK retransmitted after its SHUTDOWN COMPLETE was lost, on the closed client port (RFC 9260 8.4 (5))', async () => {
    const t = await setup();
    const { association, handler } = await t.connect();
    let lost = 0;
    t.net.filter = (packet) =>
      chunkTypes(packet)[0] === ChunkType.SHUTDOWN_COMPLETE && lost++ === 0 ? 'drop' : 'deliver';
    association.shutdown();
    await t.settle();
    assert.deepEqual(handler.events.at(-1), { type: 'shutdown-complete' });
    assert.equal(t.client.associationCount, 0);
    assert.equal(t.server.associationCount, 1, 'the server still waits in SHUTDOWN-ACK-SENT');
    await t.time.advance(5000, t.settle);
    assert.deepEqual(t.accepted[0]!.handler.events.at(-1), { type: 'shutdown-complete' });
    assert.equal(t.server.associationCount, 0);
    const completes = t.net.sent.filter((s) => chunkTypes(s.packet)[0] === ChunkType.SHUTDOWN_COMPLETE);
    assert.equal(completes.length, 2);
    const second = decodePacket(completes[1]!.packet);
    assert.ok(second.ok);
    assert.equal(second.value.chunks[0]!.flags, 1, "T bit: the tag is the SHUTDOWN ACK sender's own");
  });

  it('aborts: the peer learns the cause', async () => {
    const t = await setup();
    const { association, handler } = await t.connect();
    association.abort('bye');
    await t.settle();
    assert.deepEqual(handler.events, [{ type: 'communication-lost', reason: 'local-abort', cause: 'bye' }]);
    assert.deepEqual(t.accepted[0]!.handler.events, [
      { type: 'communication-lost', reason: 'peer-abort', cause: 'User-Initiated Abort: bye' },
    ]);
    assert.equal(t.server.associationCount, 0);
  });

  it('detects a dead peer by heartbeats (Association.Max.Retrans) and reports communication lost', async () => {
    const t = await setup();
    const { handler } = await t.connect();
    t.net.filter = () => 'drop';
    await t.time.advance(20 * 60_000, t.settle);
    assert.deepEqual(handler.events.at(-1), {
      type: 'communication-lost',
      reason: 'retransmissions-exceeded',
    });
    assert.equal(t.time.pending, 0, 'no timer left behind');
  });

  it('answers heartbeats so that an idle association lives on', async () => {
    const t = await setup();
    const { association, handler } = await t.connect();
    await t.time.advance(10 * 60_000, t.settle);
    assert.equal(association.state, 'established');
    assert.deepEqual(handler.events, []);
    assert.ok(t.net.sent.some((s) => chunkTypes(s.packet)[0] === ChunkType.HEARTBEAT_ACK));
  });

  it('tells how long the peer has been silent: heartbeats count, so an idle live peer never reaches 90 s', async () => {
    const t = await setup();
    await t.connect();
    const server = t.accepted[0]!.association;
    let longest = 0;
    for (let i = 0; i < 60; i++) {
      await t.time.advance(10_000, t.settle);
      longest = Math.max(longest, server.silentForMs() ?? Infinity);
    }
    // Ten idle minutes: both ends heartbeat every 30 s plus an RTO (RFC 9260 8.3).
    assert.ok(longest < 90_000, `silent ${longest} ms`);
    // The peer goes quiet (its packets are lost): the silence grows with the time that passes.
    t.net.filter = (_packet, from) => (from === CLIENT ? 'drop' : 'deliver');
    await t.time.advance(95_000, t.settle);
    assert.ok((server.silentForMs() ?? 0) >= 90_000, `silent ${server.silentForMs()} ms`);
  });

  it('restarts when the peer comes back with a new INIT from the same address and port (RFC 9260 5.2.4 A)', async () => {
    const t = await setup();
    const first = await t.connect();
    // The client's host "reboots" without a word (its ABORT is lost): a new endpoint at the same
    // address connects from the same port.
    const localPort = (first.association as unknown as { localPort: number }).localPort;
    t.net.filter = () => 'drop';
    await t.client.close();
    t.net.filter = () => 'deliver';
    const reborn = t.endpoint(CLIENT);
    const handler = recorder();
    const pending = reborn.connect(
      { remote: [{ address: SERVER, port: PORT }], local: { addresses: [CLIENT], port: localPort } },
      () => handler,
    );
    await t.time.advance(5000, t.settle);
    const association = await pending;
    const server = t.accepted[0]!;
    assert.equal(t.accepted.length, 1, 'the same association, restarted');
    assert.equal(server.handler.events.at(-1)?.type, 'restart');
    association.send(0, 60, bytes(10));
    await t.settle();
    assert.equal(server.handler.messages.length, 1);
  });

  it('answers an out-of-the-blue packet to its port with ABORT (T bit), and ignores other ports', async () => {
    const t = await setup();
    const sack = new Uint8Array([3, 0, 0, 16, 0, 0, 0, 1, 0, 0, 16, 0, 0, 0, 0, 0]);
    t.net.inject(encodePacket(5000, PORT, 0xabcdef01, [sack]), CLIENT, SERVER);
    t.net.inject(encodePacket(5000, PORT + 1, 0xabcdef01, [sack]), CLIENT, SERVER);
    await t.settle();
    const replies = t.net.sent.filter((s) => s.from === SERVER);
    assert.equal(replies.length, 1);
    const reply = decodePacket(replies[0]!.packet);
    assert.ok(reply.ok);
    assert.equal(reply.value.verificationTag, 0xabcdef01);
    assert.deepEqual(
      reply.value.chunks.map((c) => [c.type, c.flags]),
      [[ChunkType.ABORT, 1]],
    );
  });

  it('handles unknown chunk types by their high bits: report in ERROR, then skip or stop', async () => {
    const t = await setup();
    const { association } = await t.connect();
    const tag = (association as unknown as { peerTag: number }).peerTag;
    const localPort = (association as unknown as { localPort: number }).localPort;
    const heartbeat = new Uint8Array([4, 0, 0, 12, 0, 1, 0, 8, 1, 2, 3, 4]);
    const repliesTo = async (unknownType: number) => {
      t.net.sent.length = 0;
      t.net.inject(
        encodePacket(localPort, PORT, tag, [new Uint8Array([unknownType, 0, 0, 4]), heartbeat]),
        CLIENT,
        SERVER,
      );
      await t.settle();
      return t.net.sent.filter((s) => s.from === SERVER).flatMap((s) => chunkTypes(s.packet));
    };
    // 11: skip and report; the HEARTBEAT after it is answered.
    assert.deepEqual((await repliesTo(0xc1)).sort(), [ChunkType.HEARTBEAT_ACK, ChunkType.ERROR].sort());
    // 01: stop and report; the HEARTBEAT is not processed.
    assert.deepEqual(await repliesTo(0x41), [ChunkType.ERROR]);
    // 00: stop silently; 10: skip silently.
    assert.deepEqual(await repliesTo(0x01 | 0x3e), []);
    assert.deepEqual(await repliesTo(0x81), [ChunkType.HEARTBEAT_ACK]);
    assert.equal(association.state, 'established');
  });

  it('reports unrecognised INIT parameters whose type asks for it, in the INIT ACK', async () => {
    const t = await setup();
    const init = new Uint8Array([
      1, 0, 0, 28, 0, 0, 0, 9, 0, 1, 0, 0, 0, 10, 0, 10, 0, 0, 0, 1,
      // 0xC123: skip and report; 0x8124: skip silently
      0xc1, 0x23, 0, 4, 0x81, 0x24, 0, 4,
    ]);
    t.net.inject(encodePacket(4000, PORT, 0, [init]), CLIENT, SERVER);
    await t.settle();
    const ack = decodePacket(t.net.sent.at(-1)!.packet);
    assert.ok(ack.ok);
    const initAck = decodeInit(ack.value.chunks[0]!);
    assert.ok(initAck.ok);
    const unrecognized = initAck.value.params.filter((p) => p.type === 8);
    assert.deepEqual(
      unrecognized.map((p) => [...p.value]),
      [[0xc1, 0x23, 0, 4]],
    );
  });

  it('refuses associations beyond the limit with ABORT', async () => {
    const t = await setup({ maxAssociations: 1 });
    await t.connect();
    const other = t.endpoint('10.0.0.3');
    const outcome = other
      .connect({ remote: [{ address: SERVER, port: PORT }] }, () => recorder())
      .then(
        () => 'associated',
        (error: Error) => error.message,
      );
    await t.settle();
    assert.match(await outcome, /Out of Resource/);
    assert.equal(t.server.associationCount, 1);
  });

  it('aborts only the association whose peer sends a message over the reassembly limit', async () => {
    const t = await setup({ maxMessageSize: 4000 });
    const bad = await t.connect();
    const good = await t.connect(t.endpoint('10.0.0.3'));
    // The sender's limit is the same, so send fragments by hand: a B fragment and 9 middles, never an E.
    const tag = (bad.association as unknown as { peerTag: number }).peerTag;
    const localPort = (bad.association as unknown as { localPort: number }).localPort;
    // Learn the next TSN the server expects from a message the client sends first.
    bad.association.send(0, 60, bytes(10));
    await t.settle();
    const lastData = t.net.sent.filter((s) => s.from === CLIENT && chunkTypes(s.packet).includes(0)).at(-1)!;
    const d = decodePacket(lastData.packet);
    assert.ok(d.ok);
    const dataChunk = d.value.chunks.find((c) => c.type === 0)!;
    let tsn = new DataView(dataChunk.value.buffer, dataChunk.value.byteOffset).getUint32(0);
    for (let i = 0; i < 10; i++) {
      tsn = (tsn + 1) >>> 0;
      const value = new Uint8Array(12 + 1000);
      const v = new DataView(value.buffer);
      v.setUint32(0, tsn);
      v.setUint16(6, 1);
      v.setUint32(8, 60);
      const chunk = new Uint8Array(4 + value.length);
      chunk.set([0, i === 0 ? 2 : 0, (chunk.length >> 8) & 0xff, chunk.length & 0xff]);
      chunk.set(value, 4);
      t.net.inject(encodePacket(localPort, PORT, tag, [chunk]), CLIENT, SERVER);
    }
    await t.settle();
    assert.deepEqual(t.accepted[0]!.handler.events.at(-1), {
      type: 'communication-lost',
      reason: 'protocol-violation',
      cause: 'message too large',
    });
    good.association.send(0, 60, bytes(10));
    await t.settle();
    assert.equal(t.accepted[1]!.handler.messages.length, 1, 'the other association is untouched');
  });
});
