import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';

import {
  addressOf,
  guestResults,
  guestUnavailable,
  prepareGuest,
  startGuest,
  tapLink,
  type GuestResult,
} from '../../../scripts/qemu-sctp/qemu-guest.ts';
import type {
  AssociationEvent,
  InboundMessage,
  N2Association,
  N2Transport,
} from '../../../src/network/transport/n2-transport.ts';
import {
  kernelSctpSupport,
  loadNativeAddon,
  rawSocketSupport,
} from '../../../src/network/transport/native/native-addon.ts';
import { createRawTransport } from '../../../src/network/transport/raw/raw-transport.ts';
import { lossyExchange, NETEM, type LossyResult } from '../lossy-exchange.ts';
import { startCapture, type Capture } from './capture.ts';
import type { NetemCounters } from './guest-netem.ts';
import { SIZES, STREAMS, pattern } from './interop-plan.ts';

/**
 * Our `raw` stack (userland SCTP over raw IP on the host) against the Linux kernel's SCTP in a qemu
 * guest, across a tap device: the guest as client, then as server (IPv4 and IPv6, a peer restart, a
 * lossy and reordering link). dumpcap records the tap; tshark checks the CRC32c of every packet our
 * stack sent.
 */
const load = loadNativeAddon();
const why =
  guestUnavailable(true) ??
  (!load.ok
    ? load.error.message
    : !rawSocketSupport(load.addon, 4).available
      ? 'raw sockets need CAP_NET_RAW'
      : kernelSctpSupport(load.addon).available
        ? 'the host kernel has SCTP: it, not our stack, would answer the guest'
        : undefined);

const PORT = 38412;
/** Our port for the association across the guest's tc netem. */
const LOSSY_PORT = 40999;
type Step = { step: string } & Record<string, unknown>;

function association() {
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

/** Sends every planned size round-robin on four streams, waiting for each echo; returns mismatches. */
async function exchange(
  a: N2Association,
  record: ReturnType<typeof association>,
  sizes: number[],
): Promise<string[]> {
  const mismatches: string[] = [];
  for (const [i, size] of sizes.entries()) {
    const streamId = STREAMS[i % STREAMS.length] ?? 0;
    const bytes = pattern(size, i);
    const echo = record.nextMessage();
    assert.deepEqual(a.send(streamId, 60, bytes), { ok: true });
    const m = await echo;
    if (m.streamId !== streamId || m.ppid !== 60 || !Buffer.from(m.payload).equals(bytes)) {
      mismatches.push(`${size} B came back as ${m.payload.length} B on ${m.streamId}/${m.ppid}`);
    }
  }
  return mismatches;
}

describe(
  'raw transport against Linux kernel SCTP in a qemu guest (tap)',
  { skip: why ?? false, timeout: 240_000 },
  () => {
    const tap = tapLink(1);
    let transport: N2Transport | undefined;
    let lossy: N2Transport | undefined;
    let capture: Capture | undefined;
    let work = '';
    let result: GuestResult | undefined;
    const host: Record<string, unknown> = {};

    before(async () => {
      assert.ok(load.ok);
      const addon = load.addon;
      await prepareGuest();
      work = await mkdtemp(join(tmpdir(), 'pmn-raw-guest-'));
      const guest = await startGuest({
        entry: fileURLToPath(new URL('guest-kernel-peer.ts', import.meta.url)),
        args: { host4: addressOf(tap.host4), port: PORT, lossyPort: LOSSY_PORT, netem: NETEM },
        tap,
        timeoutMs: 200_000,
        beforeBoot: async () => {
          capture = await startCapture(tap.name, join(work, 'tap.pcapng'));
          const raw = createRawTransport({ addon, addresses: [addressOf(tap.host4), addressOf(tap.host6)] });
          transport = raw.transport;
          // Our stack as server: echo everything; abort when asked to.
          await transport.listen(
            { addresses: [addressOf(tap.host4)], port: PORT, outboundStreams: 4, inboundStreams: 4 },
            (a) => ({
              message: (m) => {
                if (Buffer.from(m.payload).toString() === 'abort me') a.abort('host says bye');
                else a.send(m.streamId, m.ppid, m.payload);
              },
              event: () => undefined,
            }),
          );
        },
      });
      try {
        await guest.waitFor(/^PMN-STEP listening/);
        assert.ok(transport);
        // Our stack as client of the guest's kernel: IPv4 with shutdown, IPv4 with abort, IPv6.
        const guest4 = { address: addressOf(tap.guest4), port: PORT };
        const first = association();
        const a = await transport.connect(
          { remote: [guest4], outboundStreams: 4, inboundStreams: 4 },
          () => first.handler,
        );
        host.streams = a.streams;
        host.mismatches = await exchange(a, first, SIZES);
        a.shutdown();
        host.shutdownEnd = await first.ended;
        const second = association();
        const b = await transport.connect({ remote: [guest4] }, () => second.handler);
        await exchange(b, second, [10]);
        b.abort('host abort');
        host.abortEnd = await second.ended;
        const third = association();
        const c = await transport.connect(
          { remote: [{ address: addressOf(tap.guest6), port: PORT }] },
          () => third.handler,
        );
        host.mismatches6 = await exchange(c, third, [1, 1500, 65536]);
        c.shutdown();
        host.end6 = await third.ended;
        // A second host stack associates from a fixed port, then vanishes without a word (its link
        // closes, no ABORT); a third starts from the same port: the guest's kernel sees a restart.
        const local = { addresses: [addressOf(tap.host4)], port: 40123 };
        const crashing = createRawTransport({ addon: load.addon, addresses: [addressOf(tap.host4)] });
        const restarting = createRawTransport({ addon: load.addon, addresses: [addressOf(tap.host4)] });
        try {
          const before = association();
          const d = await crashing.transport.connect({ remote: [guest4], local }, () => before.handler);
          await exchange(d, before, [100]);
          await crashing.link.close();
          const after = association();
          const e = await restarting.transport.connect({ remote: [guest4], local }, () => after.handler);
          host.mismatchesRestart = await exchange(e, after, [200]);
          e.shutdown();
          host.endRestart = await after.ended;
        } finally {
          await restarting.transport.close();
          await crashing.transport.close();
        }
        // tc netem in the guest loses 5%, reorders 25% and delays 5 ms the packets of this one port,
        // both ways: the kernel's and our retransmission and reordering. The stack stays open until the
        // guest is done: if netem drops our SHUTDOWN COMPLETE, the kernel's retransmitted SHUTDOWN ACK
        // must find the stack that answers it (RFC 9260 8.4 (5)).
        lossy = createRawTransport({ addon, addresses: [addressOf(tap.host4)] }).transport;
        host.lossy = await lossyExchange(lossy, guest4, 90_000, {
          addresses: [addressOf(tap.host4)],
          port: LOSSY_PORT,
        });
      } finally {
        result = await guest.finished;
        await lossy?.close();
        await transport?.close();
      }
    });

    after(async () => {
      if (work !== '') await rm(work, { recursive: true, force: true });
    });

    const steps = () => guestResults(result?.lines ?? []) as Step[];
    const step = (name: string): Step => {
      const found = steps().find((s) => s.step === name);
      assert.ok(found, `the guest reported no ${name}:\n${result?.lines.join('\n')}`);
      return found;
    };

    it('guest as client: 1 B to 64 KiB on four streams echoed intact, then SHUTDOWN and our ABORT', () => {
      assert.equal(result?.exitCode, 0, result?.lines.join('\n'));
      assert.deepEqual(step('client-exchange'), {
        step: 'client-exchange',
        echoed: SIZES.length,
        mismatches: [],
        end: { type: 'shutdown-complete' },
      });
      assert.deepEqual(step('client-aborted').end, {
        type: 'communication-lost',
        reason: 'peer-abort',
        cause: 'User-Initiated Abort: host says bye',
      });
    });

    it('guest as server over IPv4 and IPv6: echoes intact, SHUTDOWN, ABORT and a peer restart seen on both sides', () => {
      assert.deepEqual(host.streams, { inbound: 4, outbound: 4 });
      assert.deepEqual(host.mismatches, []);
      assert.deepEqual(host.mismatches6, []);
      assert.deepEqual(host.shutdownEnd, { type: 'shutdown-complete' });
      assert.deepEqual(host.abortEnd, {
        type: 'communication-lost',
        reason: 'local-abort',
        cause: 'host abort',
      });
      assert.deepEqual(host.end6, { type: 'shutdown-complete' });
      assert.deepEqual(host.mismatchesRestart, []);
      assert.deepEqual(host.endRestart, { type: 'shutdown-complete' });
      const lossy = (host.lossy ?? { messages: 0, bytes: 0 }) as LossyResult;
      const served = step('served').served as {
        received: number;
        bytes: number;
        end: unknown;
        remote: string;
        events: string[];
      }[];
      assert.deepEqual(
        served.map((s) => [s.remote, s.received, s.bytes, s.end, s.events]),
        [
          [
            addressOf(tap.host4),
            SIZES.length,
            SIZES.reduce((a, b) => a + b, 0),
            { type: 'shutdown-complete' },
            [],
          ],
          [
            addressOf(tap.host4),
            1,
            10,
            { type: 'communication-lost', reason: 'peer-abort', cause: 'User-Initiated Abort: host abort' },
            [],
          ],
          [addressOf(tap.host6), 3, 1 + 1500 + 65536, { type: 'shutdown-complete' }, []],
          // One kernel association across the restart: a message before, one after.
          [addressOf(tap.host4), 2, 300, { type: 'shutdown-complete' }, ['restart']],
          [addressOf(tap.host4), lossy.messages, lossy.bytes, { type: 'shutdown-complete' }, []],
        ],
      );
    });

    it('across a lossy, reordering link: 1 B to 64 KiB on four streams, every byte echoed in order', (t) => {
      assert.ok(host.lossy, 'the lossy exchange ran');
      const { mismatches, end } = host.lossy as LossyResult;
      assert.deepEqual(mismatches, []);
      assert.deepEqual(end, { type: 'shutdown-complete' });
      const netem = step('netem') as unknown as Record<'towardsHost' | 'fromHost', NetemCounters>;
      for (const way of [netem.towardsHost, netem.fromHost]) {
        assert.match(way.qdisc, /loss 5% reorder 25%/);
        assert.ok(way.dropped > 0, `netem dropped nothing: ${JSON.stringify(way)}`);
      }
      t.diagnostic(
        `tc netem dropped ${netem.towardsHost.dropped} of ${netem.towardsHost.packets} packets towards us, ` +
          `${netem.fromHost.dropped} of ${netem.fromHost.packets} from us`,
      );
    });

    it('puts only packets with a good CRC32c on the wire (tshark)', async () => {
      assert.ok(capture);
      const statuses = await capture.stop([addressOf(tap.host4), addressOf(tap.host6)]);
      assert.ok(statuses.length > 50, `${statuses.length} packets of ours captured`);
      // 1 is "Good" (0 bad, 2 unverified).
      assert.deepEqual([...new Set(statuses)], ['1']);
    });
  },
);
