/**
 * Runs inside the qemu guest (Linux kernel SCTP): our `kernel` transport as server and as client on
 * the guest's loopback, reporting what each side saw as PMN-RESULT lines for
 * kernel-transport.test.ts to check.
 */
import { createHash } from 'node:crypto';

import { GUEST_ADDON_PATH, report, runGuest } from '../../../scripts/qemu-sctp/guest-runtime.ts';
import { KernelTransport } from '../../../src/network/transport/kernel/kernel-transport.ts';
import type {
  AssociationEvent,
  InboundMessage,
  N2Association,
} from '../../../src/network/transport/n2-transport.ts';
import { kernelSctpSupport, loadNativeAddon } from '../../../src/network/transport/native/native-addon.ts';

const SIZES = [1, 100, 1452, 65536, 200_000];
const STREAMS = [0, 1, 2];

function payload(size: number, seed: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed) & 0xff;
  return bytes;
}

function digest(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex').slice(0, 16);
}

interface Side {
  association?: N2Association;
  messages: { streamId: number; ppid: number; size: number; digest: string; unordered: boolean }[];
  events: AssociationEvent[];
  next?: (message: InboundMessage) => void;
  ended: Promise<AssociationEvent>;
}

function side(): Side & { handler: { message(m: InboundMessage): void; event(e: AssociationEvent): void } } {
  let end: (event: AssociationEvent) => void = () => undefined;
  const s: Side = {
    messages: [],
    events: [],
    ended: new Promise((resolve) => (end = resolve)),
  };
  return Object.assign(s, {
    handler: {
      message(m: InboundMessage) {
        s.messages.push({
          streamId: m.streamId,
          ppid: m.ppid,
          size: m.payload.length,
          digest: digest(m.payload),
          unordered: m.unordered,
        });
        s.next?.(m);
      },
      event(e: AssociationEvent) {
        s.events.push(e);
        if (e.type === 'communication-lost' || e.type === 'shutdown-complete') end(e);
      },
    },
  });
}

async function main(): Promise<void> {
  const load = loadNativeAddon(GUEST_ADDON_PATH);
  if (!load.ok) throw load.error;
  report({ step: 'support', support: kernelSctpSupport(load.addon) });
  const transport = new KernelTransport({
    addon: load.addon,
    sendBufferSize: 1 << 20,
    receiveBufferSize: 1 << 20,
  });

  // The server echoes every message on its stream; on 'abort-me' it aborts with a reason.
  const servers: Side[] = [];
  const listener = await transport.listen(
    { addresses: ['127.0.0.1', '127.0.0.2', '::1'], port: 38412, outboundStreams: 4, inboundStreams: 4 },
    (association, up) => {
      const server = side();
      server.association = association;
      servers.push(server);
      report({ step: 'server-up', up });
      server.next = (m) => {
        if (Buffer.from(m.payload).toString() === 'abort-me') association.abort('bye from the server');
        else association.send(m.streamId, m.ppid, m.payload, { unordered: m.unordered });
      };
      return server.handler;
    },
  );
  report({ step: 'listening', local: listener.local });

  // 1. Several streams, 1 byte to 200 kB (beyond the addon's 64 KiB receive buffer), then SHUTDOWN.
  const client = side();
  const association = await transport.connect(
    { remote: [{ address: '127.0.0.1', port: 38412 }], outboundStreams: 3, inboundStreams: 8 },
    (a, up) => {
      report({ step: 'client-up', up, streams: a.streams });
      return client.handler;
    },
  );
  const sent: { streamId: number; size: number; digest: string }[] = [];
  for (const size of SIZES) {
    for (const streamId of STREAMS) {
      const bytes = payload(size, streamId);
      const echoed = new Promise<void>((resolve) => (client.next = () => resolve()));
      const result = association.send(streamId, 60, bytes);
      if (!result.ok) throw new Error(`send ${size} on ${streamId}: ${result.error}`);
      sent.push({ streamId, size, digest: digest(bytes) });
      await echoed;
    }
  }
  const refused = association.send(3, 60, Buffer.from('x'));
  association.send(1, 60, Buffer.from('unordered'), { unordered: true });
  await new Promise<void>((resolve) => (client.next = () => resolve()));
  association.shutdown();
  const stateAfterShutdown = association.state;
  report({
    step: 'exchange',
    sent,
    clientReceived: client.messages,
    serverReceived: servers[0]?.messages,
    refusedStream3: refused,
    stateAfterShutdown,
    clientEnd: await client.ended,
    serverEnd: await servers[0]?.ended,
  });

  // 2. The server aborts with a reason (IPv6).
  const client2 = side();
  const association2 = await transport.connect(
    { remote: [{ address: '::1', port: 38412 }] },
    () => client2.handler,
  );
  association2.send(0, 60, Buffer.from('abort-me'));
  report({ step: 'server-abort', clientEnd: await client2.ended, serverEnd: await servers[1]?.ended });

  // 3. The client aborts.
  const client3 = side();
  const association3 = await transport.connect(
    { remote: [{ address: '127.0.0.2', port: 38412 }] },
    () => client3.handler,
  );
  association3.send(0, 60, Buffer.from('hello'));
  await new Promise<void>((resolve) => (client3.next = () => resolve()));
  association3.abort();
  report({ step: 'client-abort', clientEnd: await client3.ended, serverEnd: await servers[2]?.ended });

  // 4. Nobody listens on 38413: the peer's ABORT answers the INIT.
  const refusedConnect = await transport
    .connect({ remote: [{ address: '127.0.0.1', port: 38413 }] }, () => side().handler)
    .then(
      () => 'connected',
      (error: Error) => error.message,
    );
  report({ step: 'no-listener', refusedConnect });

  // 5. Closing the listener shuts its open associations down.
  const client5 = side();
  await transport.connect({ remote: [{ address: '127.0.0.1', port: 38412 }] }, () => client5.handler);
  await listener.close();
  report({ step: 'listener-close', clientEnd: await client5.ended, serverEnd: await servers[3]?.ended });
  await transport.close();
}

runGuest(main);
