import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { before, describe, it } from 'node:test';

import {
  guestResults,
  guestUnavailable,
  prepareGuest,
  startGuest,
} from '../../../scripts/qemu-sctp/qemu-guest.ts';

/**
 * The `kernel` transport against the Linux kernel's SCTP: a Debian cloud kernel under qemu runs
 * guest-kernel-transport.ts (server and client on the guest's loopback) and reports what each side
 * saw; this file checks it.
 */
const unavailable = guestUnavailable(false);

type Step = { step: string } & Record<string, unknown>;

describe('kernel transport in a qemu guest', { skip: unavailable ?? false, timeout: 180_000 }, () => {
  let steps: Step[] = [];
  let exitCode: number | null = null;
  let console = '';

  before(async () => {
    await prepareGuest();
    const guest = await startGuest({
      entry: fileURLToPath(new URL('guest-kernel-transport.ts', import.meta.url)),
      args: {},
      timeoutMs: 150_000,
    });
    const result = await guest.finished;
    steps = guestResults(result.lines) as Step[];
    exitCode = result.exitCode;
    console = result.lines.join('\n');
  });

  const step = (name: string): Step => {
    const found = steps.find((s) => s.step === name);
    assert.ok(found, `the guest reported no ${name}:\n${console}`);
    return found;
  };

  it('runs to the end in the guest, where the kernel has SCTP', () => {
    assert.equal(exitCode, 0, console);
    assert.deepEqual(step('support').support, { available: true });
  });

  it('binds a multi-homed listener and reports both ends of an association', () => {
    assert.deepEqual(step('listening').local, [
      { address: '127.0.0.1', port: 38412 },
      { address: '127.0.0.2', port: 38412 },
      { address: '::1', port: 38412 },
    ]);
    const client = step('client-up') as unknown as {
      up: { peerAddresses: { address: string; port: number }[]; streams: unknown };
    };
    // The client asked for 3 outbound and 8 inbound streams, the server offered 4 and accepts 4.
    assert.deepEqual(client.up.streams, { inbound: 4, outbound: 3 });
    // An IPv4 client learns the server's IPv4 addresses only (RFC 9260 5.1.2).
    assert.deepEqual(client.up.peerAddresses.map((a) => a.address).sort(), ['127.0.0.1', '127.0.0.2']);
    const server = steps.find((s) => s.step === 'server-up') as unknown as {
      up: { streams: unknown; localAddresses: { port: number }[] };
    };
    assert.deepEqual(server.up.streams, { inbound: 3, outbound: 4 });
    assert.ok(server.up.localAddresses.length > 0 && server.up.localAddresses.every((a) => a.port === 38412));
  });

  it('carries messages of 1 byte to 200 kB both ways on three streams, with PPID 60, then shuts down', () => {
    const exchange = step('exchange') as unknown as {
      sent: { streamId: number; size: number; digest: string }[];
      clientReceived: { streamId: number; ppid: number; size: number; digest: string; unordered: boolean }[];
      serverReceived: { streamId: number; ppid: number; size: number; digest: string; unordered: boolean }[];
      refusedStream3: unknown;
      stateAfterShutdown: string;
      clientEnd: unknown;
      serverEnd: unknown;
    };
    assert.equal(exchange.sent.length, 15);
    const expected = [
      ...exchange.sent.map((s) => ({ ...s, ppid: 60, unordered: false })),
      { streamId: 1, ppid: 60, size: 9, digest: exchange.serverReceived.at(-1)?.digest, unordered: true },
    ];
    assert.deepEqual(exchange.serverReceived, expected);
    assert.deepEqual(exchange.clientReceived, expected);
    assert.deepEqual(exchange.refusedStream3, { ok: false, error: 'invalid-stream' });
    assert.equal(exchange.stateAfterShutdown, 'shutting-down');
    assert.deepEqual(exchange.clientEnd, { type: 'shutdown-complete' });
    assert.deepEqual(exchange.serverEnd, { type: 'shutdown-complete' });
  });

  it('sees an abort with its reason on both sides, whichever side aborts', () => {
    assert.deepEqual(step('server-abort'), {
      step: 'server-abort',
      clientEnd: {
        type: 'communication-lost',
        reason: 'peer-abort',
        cause: 'User-Initiated Abort: bye from the server',
      },
      serverEnd: { type: 'communication-lost', reason: 'local-abort', cause: 'bye from the server' },
    });
    assert.deepEqual(step('client-abort'), {
      step: 'client-abort',
      clientEnd: { type: 'communication-lost', reason: 'local-abort' },
      serverEnd: { type: 'communication-lost', reason: 'peer-abort', cause: 'User-Initiated Abort' },
    });
  });

  it('rejects a connect nobody answers, and a closing listener shuts its associations down', () => {
    assert.match(String(step('no-listener').refusedConnect), /SCTP_CANT_STR_ASSOC/);
    assert.deepEqual(step('listener-close'), {
      step: 'listener-close',
      clientEnd: { type: 'shutdown-complete' },
      serverEnd: { type: 'shutdown-complete' },
    });
  });
});
