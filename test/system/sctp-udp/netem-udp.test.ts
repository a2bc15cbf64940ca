import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import { SctpEndpoint } from '../../../src/network/transport/sctp/endpoint.ts';
import { loadNativeAddon } from '../../../src/network/transport/native/native-addon.ts';
import { UdpLink } from '../../../src/network/transport/udp/udp-link.ts';
import { createVethNamespace, namespacesUnavailable, type VethNamespace } from '../../helpers/netns.ts';
import { impaired } from '../impaired-link.ts';
import { lossyExchange, NETEM } from '../lossy-exchange.ts';
import { checksumStatuses } from '../sctp-checksums.ts';
import { buildPeer, PeerProcess } from './usrsctp-peer.ts';

const native = loadNativeAddon();

/**
 * Our stack (in this process's network namespace) and usrsctp over UDP (in its own namespace) across a
 * veth pair that loses 5% of packets, reorders 25% and delays 5 ms, each way: 1 B to 64 KiB on four
 * streams, all in flight at once, every message back exactly once, in order per stream, byte for byte.
 *
 * The impairment is tc netem on both veth ends when the kernel has it; kernels without sch_netem get
 * the same impairment inside our UDP link instead, in both directions (test/system/impaired-link.ts).
 * tshark checks the CRC32c of every packet our stack sent.
 */
describe(
  'userland SCTP with usrsctp across a lossy, reordering link',
  { skip: namespacesUnavailable() ?? false },
  () => {
    let binary = '';
    let peer: PeerProcess | undefined;
    let ns: VethNamespace | undefined;
    let netem = true;

    before(async () => {
      binary = await buildPeer();
      ns = await createVethNamespace('e', 216);
      netem = await ns.netem(...NETEM);
    });

    after(async () => {
      await peer?.kill();
      await ns?.remove();
    });

    it(
      'delivers every message exactly once, intact and in order per stream, both ways',
      { timeout: 120_000 },
      async (t) => {
        assert.ok(ns);
        peer = new PeerProcess('ip', ns.exec(binary, 'server', '9899', '38412'), {
          PEER_BIND: ns.peerAddress,
        });
        await peer.waitFor(/^READY/);
        // The addon's UDP sockets (batched system calls) where built, as createUdpTransport uses them.
        const udp = await UdpLink.open({
          addresses: [ns.hostAddress],
          port: 0,
          ...(native.ok ? { addon: native.addon } : {}),
        });
        const link = netem ? udp : impaired(udp, 6951);
        // Every packet our stack hands to the link, for tshark's CRC32c check.
        const sent: Uint8Array[] = [];
        const transport = new SctpEndpoint({
          kind: 'udp',
          link: {
            localAddresses: link.localAddresses,
            maxPacketSize: (remote) => link.maxPacketSize(remote),
            send(packet, remote, local) {
              sent.push(new Uint8Array(packet));
              link.send(packet, remote, local);
            },
            onPacket: (receiver) => link.onPacket(receiver),
            close: () => link.close(),
          },
          peerLinkPort: 9899,
        });
        try {
          const result = await lossyExchange(transport, { address: ns.peerAddress, port: 38412 });
          assert.deepEqual(result.mismatches, []);
          t.diagnostic(`${result.messages} messages, ${result.bytes} bytes each way`);
          if ('dropped' in link) {
            assert.ok(link.dropped > 0 && link.reordered > 0, 'the link did lose and reorder');
            t.diagnostic(`in-process impairment: ${link.dropped} dropped, ${link.reordered} reordered`);
          } else {
            t.diagnostic('tc netem on both veth ends');
          }
          assert.deepEqual(result.end, { type: 'shutdown-complete' });
          // If our SHUTDOWN COMPLETE was lost, usrsctp hears it only after retransmitting its SHUTDOWN ACK.
          await peer.waitFor(/^SHUTDOWN_COMP/, 30_000);
          // 1 is "Good" (0 bad, 2 unverified). The packets sent so far: while tshark reads them, usrsctp may
          // still retransmit its SHUTDOWN ACK, which our stack answers with another SHUTDOWN COMPLETE.
          const packets = [...sent];
          const statuses = await checksumStatuses(packets);
          assert.equal(statuses.length, packets.length);
          assert.deepEqual([...new Set(statuses)], ['1']);
        } finally {
          await transport.close();
        }
      },
    );
  },
);
