/**
 * Runs inside the qemu guest: the Linux kernel's SCTP (driven through our `kernel` transport) as the
 * peer of our userland `raw` stack on the host, across the tap device.
 *   1. guest as client: connects to the host, sends 1 B to 64 KiB on four streams and checks each
 *      echo, shuts down; connects again and waits for the host's ABORT.
 *   2. guest as server: listens (IPv4 and IPv6), echoes what the host sends, reports how each of the
 *      host's five associations ended and what happened to it (a restart); the fifth crosses tc netem
 *      (loss and reordering both ways: guest-netem.ts), whose counters are reported.
 * Results go to the host as PMN-RESULT lines; PMN-STEP lines mark when the host may proceed.
 */
import {
  announce,
  GUEST_ADDON_PATH,
  guestArguments,
  report,
  runGuest,
} from '../../../scripts/qemu-sctp/guest-runtime.ts';
import { KernelTransport } from '../../../src/network/transport/kernel/kernel-transport.ts';
import type {
  AssociationEvent,
  AssociationHandler,
  InboundMessage,
} from '../../../src/network/transport/n2-transport.ts';
import { loadNativeAddon } from '../../../src/network/transport/native/native-addon.ts';
import { impairHostPort, netemCounters } from './guest-netem.ts';
import { SIZES, STREAMS, pattern } from './interop-plan.ts';

interface Args {
  host4: string;
  port: number;
  /** The host port whose association crosses tc netem, and netem's arguments. */
  lossyPort: number;
  netem: string[];
}

function recorder() {
  let end: (event: AssociationEvent) => void = () => undefined;
  let next: (message: InboundMessage) => void = () => undefined;
  const record = {
    messages: [] as InboundMessage[],
    events: [] as AssociationEvent[],
    ended: new Promise<AssociationEvent>((resolve) => (end = resolve)),
    nextMessage: () => new Promise<InboundMessage>((resolve) => (next = resolve)),
    handler: {
      message(m: InboundMessage) {
        record.messages.push(m);
        next(m);
      },
      event(e: AssociationEvent) {
        if (e.type === 'communication-lost' || e.type === 'shutdown-complete') end(e);
        else record.events.push(e);
      },
    } satisfies AssociationHandler,
  };
  return record;
}

async function main(): Promise<void> {
  const args = guestArguments<Args>();
  const load = loadNativeAddon(GUEST_ADDON_PATH);
  if (!load.ok) throw load.error;
  const transport = new KernelTransport({
    addon: load.addon,
    sendBufferSize: 1 << 20,
    receiveBufferSize: 1 << 20,
  });

  // 1. The guest's kernel as client of our raw stack.
  const client = recorder();
  const association = await transport.connect(
    { remote: [{ address: args.host4, port: args.port }], outboundStreams: 4, inboundStreams: 4 },
    () => client.handler,
  );
  const mismatches: string[] = [];
  for (const [i, size] of SIZES.entries()) {
    const streamId = STREAMS[i % STREAMS.length] ?? 0;
    const bytes = pattern(size, i);
    const echo = client.nextMessage();
    const sent = association.send(streamId, 60, bytes);
    if (!sent.ok) throw new Error(`send ${size}: ${sent.error}`);
    const m = await echo;
    if (m.streamId !== streamId || m.ppid !== 60 || !Buffer.from(m.payload).equals(bytes)) {
      mismatches.push(
        `message ${i} (${size} B) came back as ${m.payload.length} B on ${m.streamId}/${m.ppid}`,
      );
    }
  }
  association.shutdown();
  report({ step: 'client-exchange', echoed: client.messages.length, mismatches, end: await client.ended });

  const aborted = recorder();
  const second = await transport.connect(
    { remote: [{ address: args.host4, port: args.port }] },
    () => aborted.handler,
  );
  second.send(0, 60, Buffer.from('abort me'));
  report({ step: 'client-aborted', end: await aborted.ended });

  // 2. The guest's kernel as server: the host connects five times (IPv4 shutdown, IPv4 abort, IPv6,
  // a host stack that restarts from the same port without telling: RFC 9260 5.2.4, and one across a
  // lossy, reordering link).
  const served: {
    received: number;
    bytes: number;
    end: AssociationEvent;
    remote: string;
    events: string[];
  }[] = [];
  let allEnded: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (allEnded = resolve));
  const listener = await transport.listen(
    { addresses: ['::'], port: args.port, outboundStreams: 4, inboundStreams: 4 },
    (a) => {
      const r = recorder();
      r.handler.message = (m) => {
        r.messages.push(m);
        a.send(m.streamId, m.ppid, m.payload, { unordered: m.unordered });
      };
      void r.ended.then((end) => {
        served.push({
          received: r.messages.length,
          bytes: r.messages.reduce((n, m) => n + m.payload.length, 0),
          end,
          remote: a.remote.address,
          events: r.events.map((e) => e.type),
        });
        if (served.length === 5) allEnded();
      });
      return r.handler;
    },
  );
  impairHostPort(args.lossyPort, args.netem);
  announce('listening');
  await done;
  report({ step: 'served', served });
  report({ step: 'netem', ...netemCounters() });
  await listener.close();
  await transport.close();
}

runGuest(main);
