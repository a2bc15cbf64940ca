import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type {
  AssociationEvent,
  AssociationHandler,
  InboundMessage,
  N2Association,
} from '../../../src/network/transport/n2-transport.ts';
import { ChunkType } from '../../../src/network/transport/sctp/chunks.ts';
import { SctpEndpoint } from '../../../src/network/transport/sctp/endpoint.ts';
import { decodePacket } from '../../../src/network/transport/sctp/packet.ts';
import type { LinkAddress, PacketLink } from '../../../src/network/transport/sctp/packet-link.ts';
import { loadNativeAddon } from '../../../src/network/transport/native/native-addon.ts';
import { UdpLink } from '../../../src/network/transport/udp/udp-link.ts';
import { checksumStatuses } from '../sctp-checksums.ts';
import { WAIT_MS } from '../../helpers/until.ts';
import { buildPeer, freeUdpPort, PeerProcess } from './usrsctp-peer.ts';

const native = loadNativeAddon();

/**
 * Interop with usrsctp (Debian's libusrsctp-dev) over UDP encapsulation (RFC 6951) on loopback, in both
 * directions; tshark then checks the CRC32c of every packet our stack sent.
 */

const SIZES = [1, 2, 100, 1000, 1199, 1200, 1201, 1452, 1500, 4000, 16384, 65536];
const pattern = (size: number, i: number) => Uint8Array.from({ length: size }, (_, k) => (k * 7 + i) & 0xff);

/** Every packet our stack sends, for the CRC32c check at the end. */
const sentByUs: Uint8Array[] = [];
/** Closed after the tests even when one fails, so that no socket or process outlives the file. */
const endpoints: SctpEndpoint[] = [];
const peers: PeerProcess[] = [];

function startPeer(binary: string, args: string[], env?: Record<string, string>): PeerProcess {
  const peer = new PeerProcess(binary, args, env);
  peers.push(peer);
  return peer;
}

async function poll(test: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (test()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return test();
}

function recording(link: UdpLink): PacketLink & { received: Uint8Array[] } {
  const received: Uint8Array[] = [];
  return {
    received,
    localAddresses: link.localAddresses,
    maxPacketSize: (remote: LinkAddress) => link.maxPacketSize(remote),
    send(packet: Uint8Array, remote: LinkAddress) {
      sentByUs.push(new Uint8Array(packet));
      link.send(packet, remote);
    },
    onPacket(receiver) {
      link.onPacket((packet, remote, local) => {
        received.push(new Uint8Array(packet));
        receiver(packet, remote, local);
      });
    },
    close: () => link.close(),
  };
}

async function ourStack(peerUdpPort = 9899) {
  // The addon's UDP sockets (batched system calls) where it is built, as createUdpTransport uses them.
  const udp = await UdpLink.open({
    addresses: ['127.0.0.1'],
    port: 0,
    ...(native.ok ? { addon: native.addon } : {}),
  });
  const link = recording(udp);
  const endpoint = new SctpEndpoint({ kind: 'udp', link, peerLinkPort: peerUdpPort });
  endpoints.push(endpoint);
  return { endpoint, link, udpPort: udp.port };
}

function recorder(echoOn?: () => N2Association) {
  const messages: InboundMessage[] = [];
  const events: AssociationEvent[] = [];
  const waiters: { test: () => boolean; resolve: () => void }[] = [];
  const check = () => {
    for (const w of waiters.splice(0)) {
      if (w.test()) w.resolve();
      else waiters.push(w);
    }
  };
  const handler: AssociationHandler = {
    message(m) {
      messages.push(m);
      echoOn?.().send(m.streamId, m.ppid, m.payload);
      check();
    },
    event(e) {
      events.push(e);
      check();
    },
  };
  const until = (test: () => boolean, what: string, ms = WAIT_MS) =>
    test()
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
          waiters.push({
            test,
            resolve: () => {
              clearTimeout(timer);
              resolve();
            },
          });
        });
  return { messages, events, handler, until };
}

describe('userland SCTP over UDP with usrsctp', { timeout: 30_000 }, () => {
  let peerBinary = '';
  before(async () => {
    peerBinary = await buildPeer();
  });

  /** Our listener echoes every message on its stream with its PPID; the peer connects to it. */
  async function ourEchoServer() {
    const stack = await ourStack();
    const accepted: { association: N2Association; r: ReturnType<typeof recorder> }[] = [];
    await stack.endpoint.listen({ addresses: ['127.0.0.1'], port: 38412 }, (association) => {
      const r = recorder(() => association);
      accepted.push({ association, r });
      return r.handler;
    });
    return { ...stack, accepted };
  }

  it('usrsctp as client: 1 B to 64 KiB on four streams with PPID 60, then its graceful shutdown', async () => {
    const server = await ourEchoServer();
    const peerUdp = await freeUdpPort();
    const peer = startPeer(peerBinary, [
      'client',
      String(peerUdp),
      String(server.udpPort),
      '127.0.0.1',
      '38412',
      '0',
      'shutdown',
    ]);
    assert.equal(await peer.exited, 0, peer.lines.join(' | '));
    assert.ok(peer.lines.includes(`ECHO-OK ${SIZES.length}`), peer.lines.join(' | '));
    assert.ok(peer.lines.includes('SHUTDOWN_COMP'));
    const { r } = server.accepted[0]!;
    await r.until(() => r.events.length > 0, 'shutdown-complete');
    assert.deepEqual(r.events, [{ type: 'shutdown-complete' }]);
    // Order holds per stream: compare stream by stream (a stable sort keeps each stream's order).
    const byStream = (list: number[][]) => [...list].sort((x, y) => x[0]! - y[0]!);
    assert.deepEqual(
      byStream(r.messages.map((m) => [m.streamId, m.ppid, m.payload.length])),
      byStream(SIZES.map((size, i) => [i % 4, 60, size])),
    );
    await server.endpoint.close();
  });

  it('usrsctp as client: its ABORT reaches us as peer-abort', async () => {
    const server = await ourEchoServer();
    const peer = startPeer(peerBinary, [
      'client',
      String(await freeUdpPort()),
      String(server.udpPort),
      '127.0.0.1',
      '38412',
      '0',
      'abort',
    ]);
    assert.equal(await peer.exited, 0, peer.lines.join(' | '));
    const { r } = server.accepted[0]!;
    await r.until(() => r.events.length > 0, 'the abort');
    assert.equal(r.events[0]?.type, 'communication-lost');
    assert.equal((r.events[0] as { reason: string }).reason, 'peer-abort');
    await server.endpoint.close();
  });

  it('usrsctp restarts its association (same address and port, new INIT): we report restart, then serve it', async () => {
    const server = await ourEchoServer();
    const peerUdp = String(await freeUdpPort());
    const args = ['client', peerUdp, String(server.udpPort), '127.0.0.1', '38412', '40123', 'hold'];
    const first = startPeer(peerBinary, args);
    await first.waitFor(/^ECHO-OK/);
    await first.kill();
    const second = startPeer(peerBinary, args);
    await second.waitFor(/^ECHO-OK/);
    assert.equal(server.accepted.length, 1, 'the same association');
    const { association, r } = server.accepted[0]!;
    assert.ok(
      r.events.some((e) => e.type === 'restart'),
      JSON.stringify(r.events),
    );
    assert.equal(r.messages.length, 2 * SIZES.length);
    // Our side aborts: the peer sees the association lost.
    association.abort('test over');
    await second.waitFor(/^COMM_LOST/);
    await second.exited;
    await server.endpoint.close();
  });

  it('usrsctp as server: we connect, exchange on four streams, answer its heartbeats, and shut down', async () => {
    const peerUdp = await freeUdpPort();
    const peer = startPeer(peerBinary, ['server', String(peerUdp), '38413'], { PEER_HB_MS: '100' });
    await peer.waitFor(/^READY/);
    const client = await ourStack(peerUdp);
    const r = recorder();
    const association = await client.endpoint.connect(
      { remote: [{ address: '127.0.0.1', port: 38413 }], outboundStreams: 4, inboundStreams: 4 },
      () => r.handler,
    );
    assert.deepEqual(association.streams, { outbound: 4, inbound: 4 });
    await peer.waitFor(/^COMM_UP/);
    SIZES.forEach((size, i) => assert.deepEqual(association.send(i % 4, 60, pattern(size, i)), { ok: true }));
    await r.until(() => r.messages.length === SIZES.length, 'every echo');
    for (let stream = 0; stream < 4; stream++) {
      const expected = SIZES.map((s, i) => ({ s, i })).filter(({ i }) => i % 4 === stream);
      const got = r.messages.filter((m) => m.streamId === stream);
      assert.deepEqual(
        got.map((m) => [m.ppid, Buffer.from(m.payload).toString('hex')]),
        expected.map(({ s, i }) => [60, Buffer.from(pattern(s, i)).toString('hex')]),
      );
    }
    // usrsctp heartbeats every ~100 ms + RTO here; ours must be answered.
    const heartbeats = () =>
      client.link.received.filter((p) => {
        const d = decodePacket(p);
        return d.ok && d.value.chunks.some((c) => c.type === ChunkType.HEARTBEAT);
      }).length;
    assert.ok(await poll(() => heartbeats() >= 2, 8000), 'usrsctp sent heartbeats');
    const acks = sentByUs.filter((p) => {
      const d = decodePacket(p);
      return d.ok && d.value.chunks.some((c) => c.type === ChunkType.HEARTBEAT_ACK);
    }).length;
    assert.ok(acks >= 1, 'we answered them');
    assert.equal(association.state, 'established');
    assert.ok(!peer.lines.some((l) => l.startsWith('COMM_LOST')));
    association.shutdown();
    await r.until(() => r.events.some((e) => e.type === 'shutdown-complete'), 'shutdown-complete');
    await peer.waitFor(/^SHUTDOWN_COMP/);
    await peer.kill();
    await client.endpoint.close();
  });

  after(async () => {
    await Promise.all(peers.map((p) => p.kill()));
    await Promise.all(endpoints.map((e) => e.close()));
    // tshark checks the CRC32c of every packet our stack sent above.
    assert.ok(sentByUs.length > 20, `${sentByUs.length} packets captured`);
    const statuses = await checksumStatuses(sentByUs);
    assert.equal(statuses.length, sentByUs.length);
    // 1 is "Good" (0 bad, 2 unverified).
    assert.deepEqual([...new Set(statuses)], ['1'], `checksum statuses: ${[...new Set(statuses)].join(',')}`);
  });
});
