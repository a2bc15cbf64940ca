import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { InboundMessage } from '../../../src/network/transport/n2-transport.ts';
import { SctpEndpoint } from '../../../src/network/transport/sctp/endpoint.ts';
import type { LinkAddress, PacketLink } from '../../../src/network/transport/sctp/packet-link.ts';
import { UdpLink } from '../../../src/network/transport/udp/udp-link.ts';
import { buildPeer, PeerProcess } from './usrsctp-peer.ts';

/**
 * Our stack (in this process's network namespace) and usrsctp (in its own namespace) across a veth pair
 * that loses 5% of packets, reorders 25% and delays 5 ms, each way. Every message must come back exactly
 * once, intact and in order per stream.
 *
 * The impairment is tc netem on both veth ends when the kernel has it. Kernels without sch_netem (this
 * project's build machines: "Specified qdisc kind is unknown", no module loading) get the same
 * impairment inside our UDP link instead, in both directions, from a fixed-seed PRNG.
 */

const run = promisify(execFile);
const id = process.pid % 100000;
const NS = `pmn-sctp-${id}`;
const HOST_IF = `pmnh${id}`;
const PEER_IF = `pmnp${id}`;
const HOST_IP = '10.213.0.1';
const PEER_IP = '10.213.0.2';
const NETEM = ['netem', 'loss', '5%', 'reorder', '25%', 'delay', '5ms'];

const isRoot = process.getuid?.() === 0;

async function sh(cmd: string, ...args: string[]): Promise<void> {
  await run(cmd, args);
}

/** mulberry32, seeded: the same losses and reorderings on every run. */
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

/** netem's loss 5% reorder 25% delay 5ms, in process: a reordered packet skips the delay. */
function impaired(link: UdpLink, random: () => number): PacketLink & { dropped: number; reordered: number } {
  const stats = { dropped: 0, reordered: 0 };
  const impair = (deliver: () => void) => {
    if (random() < 0.05) {
      stats.dropped++;
      return;
    }
    if (random() < 0.25) {
      stats.reordered++;
      setImmediate(deliver);
    } else {
      setTimeout(deliver, 5);
    }
  };
  return Object.assign(stats, {
    localAddresses: link.localAddresses,
    maxPacketSize: (remote: LinkAddress) => link.maxPacketSize(remote),
    send(packet: Uint8Array, remote: LinkAddress) {
      const copy = packet.slice();
      impair(() => link.send(copy, remote));
    },
    onPacket(receiver: Parameters<PacketLink['onPacket']>[0]) {
      link.onPacket((packet, remote, local) => {
        const copy = packet.slice();
        impair(() => receiver(copy, remote, local));
      });
    },
    close: () => link.close(),
  });
}

describe(
  'userland SCTP with usrsctp across a lossy, reordering link',
  { skip: !isRoot && 'needs root for ip netns and tc' },
  () => {
    let binary = '';
    let peer: PeerProcess | undefined;
    let netem = true;

    before(async () => {
      binary = await buildPeer();
      await sh('ip', 'netns', 'add', NS);
      await sh('ip', 'link', 'add', HOST_IF, 'type', 'veth', 'peer', 'name', PEER_IF);
      await sh('ip', 'link', 'set', PEER_IF, 'netns', NS);
      await sh('ip', 'addr', 'add', `${HOST_IP}/24`, 'dev', HOST_IF);
      await sh('ip', 'link', 'set', HOST_IF, 'up');
      await sh('ip', '-n', NS, 'addr', 'add', `${PEER_IP}/24`, 'dev', PEER_IF);
      await sh('ip', '-n', NS, 'link', 'set', PEER_IF, 'up');
      await sh('ip', '-n', NS, 'link', 'set', 'lo', 'up');
      try {
        await sh('tc', 'qdisc', 'add', 'dev', HOST_IF, 'root', ...NETEM);
        await sh('ip', 'netns', 'exec', NS, 'tc', 'qdisc', 'add', 'dev', PEER_IF, 'root', ...NETEM);
      } catch {
        netem = false;
      }
    });

    after(async () => {
      await peer?.kill();
      // Deleting the namespace deletes its veth end, and with it the pair.
      await sh('ip', 'netns', 'del', NS).catch(() => undefined);
      await sh('ip', 'link', 'del', HOST_IF).catch(() => undefined);
    });

    it(
      'delivers every message exactly once and in order per stream, both ways',
      { timeout: 25_000 },
      async (t) => {
        peer = new PeerProcess('ip', ['netns', 'exec', NS, binary, 'server', '9899', '38412'], {
          PEER_BIND: PEER_IP,
        });
        await peer.waitFor(/^READY/);
        const udp = await UdpLink.open({ addresses: [HOST_IP], port: 0 });
        const link = netem ? udp : impaired(udp, prng(6951));
        const transport = new SctpEndpoint({ kind: 'udp', link, peerLinkPort: 9899 });
        try {
          const echoes: InboundMessage[] = [];
          const association = await transport.connect(
            { remote: [{ address: PEER_IP, port: 38412 }], outboundStreams: 4, inboundStreams: 4 },
            () => ({ message: (m) => echoes.push(m), event: () => undefined }),
          );
          const COUNT = 200;
          // Each message says its stream and its sequence number on that stream; sizes 8 B to 3 KB.
          const sequence = [0, 0, 0, 0];
          for (let i = 0; i < COUNT; i++) {
            const stream = i % 4;
            const payload = new Uint8Array(8 + ((i * 397) % 3000));
            const view = new DataView(payload.buffer);
            view.setUint32(0, stream);
            view.setUint32(4, sequence[stream]!++);
            payload.fill(i & 0xff, 8);
            assert.deepEqual(association.send(stream, 60, payload), { ok: true });
          }
          for (const end = Date.now() + 20_000; echoes.length < COUNT && Date.now() < end;) {
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          assert.equal(echoes.length, COUNT, 'every message came back');
          const seen = [0, 0, 0, 0];
          for (const m of echoes) {
            const view = new DataView(m.payload.buffer, m.payload.byteOffset);
            const stream = view.getUint32(0);
            assert.equal(m.streamId, stream);
            assert.equal(m.ppid, 60);
            assert.equal(view.getUint32(4), seen[stream], `stream ${stream}: exactly once, in order`);
            seen[stream]!++;
          }
          assert.deepEqual(seen, [50, 50, 50, 50]);
          if ('dropped' in link) {
            assert.ok(link.dropped > 0 && link.reordered > 0, 'the link did lose and reorder');
            t.diagnostic(`in-process impairment: ${link.dropped} dropped, ${link.reordered} reordered`);
          } else {
            t.diagnostic('tc netem on both veth ends');
          }
          association.shutdown();
          await peer.waitFor(/^SHUTDOWN_COMP/, 10_000);
        } finally {
          await transport.close();
        }
      },
    );
  },
);
