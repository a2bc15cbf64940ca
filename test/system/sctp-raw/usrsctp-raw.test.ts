import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';

import type {
  AssociationEvent,
  InboundMessage,
  N2Association,
} from '../../../src/network/transport/n2-transport.ts';
import {
  kernelSctpSupport,
  loadNativeAddon,
  rawSocketSupport,
} from '../../../src/network/transport/native/native-addon.ts';
import { createRawTransport } from '../../../src/network/transport/raw/raw-transport.ts';
import type { SctpEndpoint } from '../../../src/network/transport/sctp/endpoint.ts';
import { buildPeer, PeerProcess } from '../sctp-udp/usrsctp-peer.ts';
import { startCapture, type Capture } from './capture.ts';
import { SIZES, STREAMS, pattern } from './interop-plan.ts';

/**
 * Our `raw` stack against usrsctp (Debian's libusrsctp-dev) in raw-IP mode: usrsctp runs in its own
 * network namespace (its raw sockets would otherwise see and answer our packets), linked to ours by a
 * veth pair. Both directions, shutdown and abort; tshark checks the CRC32c of every packet we sent.
 */
const run = promisify(execFile);
const load = loadNativeAddon();
const why = !load.ok
  ? load.error.message
  : process.getuid?.() !== 0
    ? 'network namespaces need root'
    : !rawSocketSupport(load.addon, 4).available
      ? 'raw sockets need CAP_NET_RAW'
      : kernelSctpSupport(load.addon).available
        ? 'the host kernel has SCTP: it would answer the peer itself'
        : undefined;

const n = (process.pid * 3) % 250;
const NS = `pmnu${process.pid % 100000}`;
const VETH = `pmnv${process.pid % 100000}`;
const OURS = `10.214.${n}.1`;
const THEIRS = `10.214.${n}.2`;
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
  { skip: why ?? false, timeout: 120_000 },
  () => {
    let peer = '';
    let transport: SctpEndpoint | undefined;
    let capture: Capture | undefined;
    let work = '';
    const peers: PeerProcess[] = [];
    const serverEnds: AssociationEvent[] = [];

    const inNamespace = (args: string[]) =>
      new PeerProcess('ip', ['netns', 'exec', NS, 'env', 'PEER_RAW=1', `PEER_BIND=${THEIRS}`, peer, ...args]);

    before(async () => {
      assert.ok(load.ok);
      peer = await buildPeer();
      work = await mkdtemp(join(tmpdir(), 'pmn-usrsctp-raw-'));
      await run('ip', ['netns', 'add', NS]);
      await run('ip', ['link', 'add', VETH, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', NS]);
      await run('ip', ['addr', 'add', `${OURS}/24`, 'dev', VETH]);
      await run('ip', ['link', 'set', VETH, 'up']);
      await run('ip', ['-n', NS, 'addr', 'add', `${THEIRS}/24`, 'dev', 'eth0']);
      await run('ip', ['-n', NS, 'link', 'set', 'eth0', 'up']);
      await run('ip', ['-n', NS, 'link', 'set', 'lo', 'up']);
      capture = await startCapture(VETH, join(work, 'veth.pcapng'));
      transport = createRawTransport({ addon: load.addon, addresses: [OURS] }).transport;
      // Our stack as server: echo everything.
      await transport.listen(
        { addresses: [OURS], port: PORT, outboundStreams: 8, inboundStreams: 8 },
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
      await run('ip', ['link', 'del', VETH]).catch(() => undefined);
      await run('ip', ['netns', 'del', NS]).catch(() => undefined);
      if (work !== '') await rm(work, { recursive: true, force: true });
    });

    it('usrsctp as client: 1 B to 64 KiB on four streams echoed, then SHUTDOWN; then ABORT', async () => {
      const client = inNamespace(['client', '0', '0', OURS, String(PORT), '0', 'shutdown']);
      peers.push(client);
      await client.waitFor(/^ECHO-OK 12/, 30_000);
      await client.waitFor(/^SHUTDOWN_COMP|^ENDED/, 15_000);
      assert.equal(await client.exited, 0, client.lines.join(' | '));
      const aborting = inNamespace(['client', '0', '0', OURS, String(PORT), '0', 'abort']);
      peers.push(aborting);
      await aborting.waitFor(/^ABORTED/, 30_000);
      // Until it has exited, its raw sockets would answer the next test's INIT with an ABORT too.
      assert.equal(await aborting.exited, 0, aborting.lines.join(' | '));
      for (let i = 0; i < 500 && serverEnds.length < 2; i++)
        await new Promise((resolve) => setTimeout(resolve, 10));
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
        { remote: [{ address: THEIRS, port: PORT }], outboundStreams: 4, inboundStreams: 4 },
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
      const b = await transport.connect({ remote: [{ address: THEIRS, port: PORT }] }, () => second.handler);
      b.abort('done');
      await server.waitFor(/^COMM_LOST/);
      assert.deepEqual(await second.ended, {
        type: 'communication-lost',
        reason: 'local-abort',
        cause: 'done',
      });
    });

    it('puts only packets with a good CRC32c on the veth (tshark)', async () => {
      assert.ok(capture);
      const statuses = await capture.stop([OURS]);
      assert.ok(statuses.length > 40, `${statuses.length} packets of ours captured`);
      assert.deepEqual([...new Set(statuses)], ['1']);
    });
  },
);
