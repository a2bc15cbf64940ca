import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import type {
  AssociationEvent,
  InboundMessage,
  N2Association,
} from '../../../src/network/transport/n2-transport.ts';
import { loadNativeAddon } from '../../../src/network/transport/native/native-addon.ts';
import { createRawTransport } from '../../../src/network/transport/raw/raw-transport.ts';
import { RawLink } from '../../../src/network/transport/raw/raw-link.ts';
import { SctpEndpoint } from '../../../src/network/transport/sctp/endpoint.ts';
import {
  createVethNamespace,
  rawPeerInNamespaceUnavailable,
  type VethNamespace,
} from '../../helpers/netns.ts';
import { impaired } from '../impaired-link.ts';
import { lossyExchange } from '../lossy-exchange.ts';
import { buildPeer, PeerProcess } from '../sctp-udp/usrsctp-peer.ts';
import { until } from '../../helpers/until.ts';
import { startCapture, type Capture } from './capture.ts';
import { SIZES, STREAMS, pattern } from './interop-plan.ts';

/**
 * Our `raw` stack against usrsctp (Debian's libusrsctp-dev) in raw-IP mode: usrsctp runs in its own
 * network namespace (its raw sockets would otherwise see and answer our packets), linked to ours by a
 * veth pair. Both directions, shutdown and abort, and a lossy, reordering link (netem's impairment
 * inside our link: this kernel has no sch_netem); tshark checks the CRC32c of every packet we sent.
 */
const load = loadNativeAddon();
const why = rawPeerInNamespaceUnavailable();
const PORT = 5000 + (process.pid % 1000);

function recorder() {
  let end: (event: AssociationEvent) => void = () => undefined;
  let next: (message: InboundMessage) => void = () => undefined;
  return {
    ended: new Promise<AssociationEvent>((resolve) => (end = resolve)),
    nextMessage: () => new Promise<InboundMessage>((resolve) => (next = resolve)),
    handler: {
      message: (m: InboundMessage) => next(m),
      event: (e: AssociationEvent) => {
        if (e.type === 'communication-lost' || e.type === 'shutdown-complete') end(e);
      },
    },
  };
}

describe(
  'raw transport against usrsctp in raw-IP mode (veth, two namespaces)',
  { skip: why ?? false, timeout: 180_000 },
  () => {
    let peer = '';
    let transport: SctpEndpoint | undefined;
    let capture: Capture | undefined;
    let work = '';
    let ns: VethNamespace | undefined;
    let ours = '';
    let theirs = '';
    const peers: PeerProcess[] = [];
    const serverEnds: AssociationEvent[] = [];

    const inNamespace = (args: string[]) => {
      assert.ok(ns);
      return new PeerProcess('ip', ns.exec('env', 'PEER_RAW=1', `PEER_BIND=${theirs}`, peer, ...args));
    };

    before(async () => {
      assert.ok(load.ok);
      peer = await buildPeer();
      work = await mkdtemp(join(tmpdir(), 'pmn-usrsctp-raw-'));
      ns = await createVethNamespace('u', 214);
      ours = ns.hostAddress;
      theirs = ns.peerAddress;
      capture = await startCapture(ns.hostInterface, join(work, 'veth.pcapng'));
      transport = createRawTransport({ addon: load.addon, addresses: [ours] }).transport;
      // Our stack as server: echo everything.
      await transport.listen(
        { addresses: [ours], port: PORT, outboundStreams: 8, inboundStreams: 8 },
        (a) => ({
          message: (m) => void a.send(m.streamId, m.ppid, m.payload),
          event: (e) => {
            if (e.type === 'communication-lost' || e.type === 'shutdown-complete') serverEnds.push(e);
          },
        }),
      );
    });

    after(async () => {
      for (const p of peers) await p.kill();
      await transport?.close();
      await ns?.remove();
      if (work !== '') await rm(work, { recursive: true, force: true });
    });

    it('usrsctp as client: 1 B to 64 KiB on four streams echoed, then SHUTDOWN; then ABORT', async () => {
      const client = inNamespace(['client', '0', '0', ours, String(PORT), '0', 'shutdown']);
      peers.push(client);
      await client.waitFor(/^ECHO-OK 12/, 30_000);
      await client.waitFor(/^SHUTDOWN_COMP|^ENDED/, 15_000);
      assert.equal(await client.exited, 0, client.lines.join(' | '));
      const aborting = inNamespace(['client', '0', '0', ours, String(PORT), '0', 'abort']);
      peers.push(aborting);
      await aborting.waitFor(/^ABORTED/, 30_000);
      // Until it has exited, its raw sockets would answer the next test's INIT with an ABORT too.
      assert.equal(await aborting.exited, 0, aborting.lines.join(' | '));
      await until(
        "both ends of the server's associations",
        () => serverEnds.length >= 2,
        () => JSON.stringify(serverEnds),
      );
      assert.deepEqual(
        serverEnds.map((e) => (e.type === 'communication-lost' ? `${e.type}/${e.reason}` : e.type)),
        ['shutdown-complete', 'communication-lost/peer-abort'],
      );
    });

    it('usrsctp as server: our messages echoed intact, then our SHUTDOWN; then our ABORT', async () => {
      assert.ok(transport);
      const server = inNamespace(['server', '0', String(PORT)]);
      peers.push(server);
      await server.waitFor(/^READY/);
      const record = recorder();
      const a: N2Association = await transport.connect(
        { remote: [{ address: theirs, port: PORT }], outboundStreams: 4, inboundStreams: 4 },
        () => record.handler,
      );
      const mismatches: string[] = [];
      for (const [i, size] of SIZES.entries()) {
        const streamId = STREAMS[i % STREAMS.length] ?? 0;
        const bytes = pattern(size, i);
        const echo = record.nextMessage();
        assert.deepEqual(a.send(streamId, 60, bytes), { ok: true });
        const m = await echo;
        if (m.streamId !== streamId || m.ppid !== 60 || !Buffer.from(m.payload).equals(bytes))
          mismatches.push(`${size}`);
      }
      assert.deepEqual(mismatches, []);
      a.shutdown();
      assert.deepEqual(await record.ended, { type: 'shutdown-complete' });
      await server.waitFor(/^SHUTDOWN_COMP/);
      const second = recorder();
      const b = await transport.connect({ remote: [{ address: theirs, port: PORT }] }, () => second.handler);
      b.abort('done');
      await server.waitFor(/^COMM_LOST/);
      assert.deepEqual(await second.ended, {
        type: 'communication-lost',
        reason: 'local-abort',
        cause: 'done',
      });
    });

    it('across a link that loses 5%, reorders 25% and delays 5 ms each way: 1 B to 64 KiB on four streams, every byte back in order', async (t) => {
      assert.ok(load.ok);
      // usrsctp's raw sockets answer INITs for ports it does not own with ABORT: one peer at a time.
      for (const p of peers.splice(0)) await p.kill();
      // A second raw stack of ours, impaired in both directions; it owns only the ports it uses.
      const server = inNamespace(['server', '0', String(PORT + 1)]);
      peers.push(server);
      await server.waitFor(/^READY/);
      const link = impaired(RawLink.open({ addon: load.addon, addresses: [ours] }), 9260);
      const lossy = new SctpEndpoint({ kind: 'raw', link, peerLinkPort: 0 });
      try {
        const result = await lossyExchange(lossy, { address: theirs, port: PORT + 1 });
        assert.deepEqual(result.mismatches, []);
        assert.deepEqual(result.end, { type: 'shutdown-complete' });
        assert.ok(link.dropped > 0 && link.reordered > 0, 'the link did lose and reorder');
        t.diagnostic(
          `${result.messages} messages, ${result.bytes} B each way; ${link.dropped} packets dropped, ${link.reordered} reordered`,
        );
        // If our SHUTDOWN COMPLETE was lost, usrsctp hears it only after retransmitting its SHUTDOWN ACK.
        await server.waitFor(/^SHUTDOWN_COMP/, 30_000);
      } finally {
        await lossy.close();
      }
    });

    it('puts only packets with a good CRC32c on the veth (tshark)', async () => {
      assert.ok(capture);
      const statuses = await capture.stop([ours]);
      assert.ok(statuses.length > 40, `${statuses.length} packets of ours captured`);
      assert.deepEqual([...new Set(statuses)], ['1']);
    });
  },
);
