import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  decodeErrorCauses,
  describeErrorCauses,
} from '../../../../src/network/transport/kernel/error-causes.ts';
import {
  KernelTransport,
  type TransportClock,
} from '../../../../src/network/transport/kernel/kernel-transport.ts';
import {
  LISTENER_SHUTDOWN_TIMEOUT_MS,
  type AssociationEvent,
  type InboundMessage,
  type N2Association,
} from '../../../../src/network/transport/n2-transport.ts';
import type {
  NativeAddon,
  SctpNotification,
  SctpSocket,
  SctpSocketHandlers,
  SctpSocketOptions,
} from '../../../../src/network/transport/native/native-addon.ts';

/**
 * The kernel transport over a scripted stand-in for the addon's SctpSocket: what the transport makes
 * of the kernel's notifications and send results. The real socket is exercised under qemu
 * (test/system/sctp-kernel).
 */
class ScriptedSocket implements SctpSocket {
  static all: ScriptedSocket[] = [];
  calls: unknown[][] = [];
  sendResults: (string | undefined)[] = [];
  closed = false;
  nextAssocId = 7;

  constructor(
    readonly family: 4 | 6,
    readonly handlers: SctpSocketHandlers,
    readonly options: SctpSocketOptions | undefined,
  ) {
    ScriptedSocket.all.push(this);
  }

  bind(addresses: readonly string[], port: number): void {
    this.calls.push(['bind', [...addresses], port]);
  }
  listen(backlog: number): void {
    this.calls.push(['listen', backlog]);
  }
  connect(addresses: readonly string[], port: number): number {
    this.calls.push(['connect', [...addresses], port]);
    return this.nextAssocId;
  }
  send(
    assocId: number,
    stream: number,
    ppid: number,
    data: Uint8Array,
    unordered: boolean,
  ): string | undefined {
    this.calls.push(['send', assocId, stream, ppid, Buffer.from(data).toString(), unordered]);
    return this.sendResults.shift();
  }
  shutdown(assocId: number): string | undefined {
    this.calls.push(['shutdown', assocId]);
    return undefined;
  }
  abort(assocId: number, reason?: Uint8Array): string | undefined {
    this.calls.push(['abort', assocId, reason === undefined ? undefined : Buffer.from(reason).toString()]);
    return undefined;
  }
  peerAddresses(): { address: string; port: number }[] {
    return [
      { address: '192.0.2.10', port: 40000 },
      { address: '192.0.2.11', port: 40000 },
    ];
  }
  localAddresses(): { address: string; port: number }[] {
    return [{ address: '192.0.2.1', port: 38412 }];
  }
  wantWritable(): void {
    this.calls.push(['wantWritable']);
  }
  close(): void {
    this.closed = true;
  }

  up(assocId: number, outboundStreams = 4, inboundStreams = 2): void {
    this.notify({
      type: 'assoc-change',
      assocId,
      state: 'comm-up',
      error: 0,
      outboundStreams,
      inboundStreams,
      info: Buffer.alloc(0),
    });
  }
  change(
    assocId: number,
    state: 'comm-lost' | 'shutdown-comp' | 'restart' | 'cant-str-assoc',
    error = 0,
    info: Buffer = Buffer.alloc(0),
  ): void {
    this.notify({ type: 'assoc-change', assocId, state, error, outboundStreams: 3, inboundStreams: 3, info });
  }
  notify(notification: SctpNotification): void {
    this.handlers.onNotification(notification);
  }
}

const fakeAddon = {
  SctpSocket: ScriptedSocket,
  RawSocket: class {
    constructor() {
      throw new Error('not used');
    }
  },
} as unknown as NativeAddon;

function lastSocket(): ScriptedSocket {
  const socket = ScriptedSocket.all.at(-1);
  assert.ok(socket);
  return socket;
}

class ManualClock implements TransportClock {
  timers: (() => void)[] = [];
  delays: number[] = [];
  setTimeout(callback: () => void, ms: number): unknown {
    this.timers.push(callback);
    this.delays.push(ms);
    return this.timers.length;
  }
  clearTimeout(): void {}
}

async function serve(options: { maxMessageSize?: number; clock?: TransportClock } = {}) {
  const transport = new KernelTransport({
    addon: fakeAddon,
    onError: (error) => assert.fail(error),
    ...options,
  });
  const messages: InboundMessage[] = [];
  const events: AssociationEvent[] = [];
  const accepted: N2Association[] = [];
  const ups: unknown[] = [];
  const listener = await transport.listen(
    { addresses: ['192.0.2.1'], port: 38412, outboundStreams: 4 },
    (association, up) => {
      accepted.push(association);
      ups.push(up);
      return { message: (m) => messages.push(m), event: (e) => events.push(e) };
    },
  );
  return { transport, listener, socket: lastSocket(), messages, events, accepted, ups };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** An error cause TLV (RFC 9260 3.3.10), padded to 4 bytes. */
function cause(code: number, value: Uint8Array): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt16BE(code, 0);
  header.writeUInt16BE(4 + value.length, 2);
  return Buffer.concat([header, value, Buffer.alloc((4 - (value.length % 4)) % 4)]);
}

describe('kernel transport (scripted socket)', () => {
  it('binds, listens and accepts an association with its addresses and streams', async () => {
    const { listener, socket, accepted, ups } = await serve();
    assert.deepEqual(socket.calls, [
      ['bind', ['192.0.2.1'], 38412],
      ['listen', 128],
    ]);
    assert.equal(socket.family, 4);
    assert.equal(socket.options?.outboundStreams, 4);
    assert.deepEqual(listener.local, [{ address: '192.0.2.1', port: 38412 }]);
    socket.up(3, 4, 2);
    assert.equal(accepted.length, 1);
    assert.deepEqual(ups[0], {
      peerAddresses: [
        { address: '192.0.2.10', port: 40000 },
        { address: '192.0.2.11', port: 40000 },
      ],
      localAddresses: [{ address: '192.0.2.1', port: 38412 }],
      streams: { inbound: 2, outbound: 4 },
    });
    assert.deepEqual(accepted[0]?.remote, { address: '192.0.2.10', port: 40000 });
  });

  it('joins the pieces of a large message and aborts an association whose message exceeds the limit', async () => {
    const { socket, messages, events, accepted } = await serve({ maxMessageSize: 10 });
    socket.up(3);
    socket.handlers.onMessage(3, 1, 60, Buffer.from('abc'), false, false);
    socket.handlers.onMessage(3, 1, 60, Buffer.from('def'), true, false);
    socket.handlers.onMessage(3, 0, 60, Buffer.from('x'), true, true);
    assert.deepEqual(
      messages.map((m) => [m.streamId, m.ppid, Buffer.from(m.payload).toString(), m.unordered]),
      [
        [1, 60, 'abcdef', false],
        [0, 60, 'x', true],
      ],
    );
    socket.handlers.onMessage(3, 1, 60, Buffer.alloc(8), false, false);
    socket.handlers.onMessage(3, 1, 60, Buffer.alloc(8), false, false);
    assert.deepEqual(socket.calls.at(-1), ['abort', 3, 'message of more than 10 bytes']);
    assert.equal(accepted[0]?.state, 'closed');
    await tick();
    assert.deepEqual(events, [
      { type: 'communication-lost', reason: 'local-abort', cause: 'message of more than 10 bytes' },
    ]);
  });

  it('maps send results: stream range, empty payload, back-pressure then drain', async () => {
    const { socket, events, accepted } = await serve();
    socket.up(3, 4, 2);
    const association = accepted[0];
    assert.ok(association);
    assert.deepEqual(association.send(4, 60, Buffer.from('a')), { ok: false, error: 'invalid-stream' });
    assert.deepEqual(association.send(0, 60, new Uint8Array(0)), { ok: false, error: 'empty' });
    assert.deepEqual(association.send(0, 60, new Uint8Array(256 * 1024 + 1)), {
      ok: false,
      error: 'too-large',
    });
    assert.deepEqual(association.send(3, 60, Buffer.from('ok'), { unordered: true }), { ok: true });
    socket.sendResults.push('EAGAIN');
    assert.deepEqual(association.send(1, 60, Buffer.from('full')), { ok: false, error: 'queue-full' });
    assert.deepEqual(socket.calls.slice(-3), [
      ['send', 3, 3, 60, 'ok', true],
      ['send', 3, 1, 60, 'full', false],
      ['wantWritable'],
    ]);
    socket.handlers.onWritable();
    socket.handlers.onWritable();
    assert.deepEqual(events, [{ type: 'drain' }]);
    socket.sendResults.push('EPIPE');
    assert.deepEqual(association.send(1, 60, Buffer.from('x')), { ok: false, error: 'closed' });
  });

  it('reports the peer ABORT with its causes, path loss, restart and graceful shutdown', async () => {
    const { socket, events, accepted } = await serve();
    for (const id of [1, 2, 3, 4]) socket.up(id);
    socket.change(1, 'comm-lost', 3072, cause(12, Buffer.from('bye\n')));
    socket.change(2, 'comm-lost', 0);
    socket.change(3, 'restart');
    socket.notify({ type: 'shutdown-event', assocId: 4 });
    assert.equal(accepted[3]?.state, 'shutting-down');
    assert.deepEqual(accepted[3]?.send(0, 60, Buffer.from('late')), { ok: false, error: 'closed' });
    socket.change(4, 'shutdown-comp');
    socket.notify({
      type: 'peer-addr-change',
      assocId: 3,
      address: { address: '192.0.2.11', port: 40000 },
      state: 'made-prim',
      error: 0,
    });
    assert.deepEqual(events, [
      { type: 'communication-lost', reason: 'peer-abort', cause: 'User-Initiated Abort: bye?' },
      { type: 'communication-lost', reason: 'retransmissions-exceeded' },
      {
        type: 'restart',
        peerAddresses: [
          { address: '192.0.2.10', port: 40000 },
          { address: '192.0.2.11', port: 40000 },
        ],
        streams: { inbound: 3, outbound: 3 },
      },
      { type: 'shutdown-complete' },
      { type: 'peer-address-change', address: { address: '192.0.2.11', port: 40000 }, state: 'primary' },
    ]);
    assert.deepEqual(accepted[2]?.remote, { address: '192.0.2.11', port: 40000 });
    assert.deepEqual(
      accepted.map((a) => a.state),
      ['closed', 'closed', 'established', 'closed'],
    );
    // Notifications for associations already gone change nothing.
    socket.change(1, 'shutdown-comp');
    assert.equal(events.length, 5);
  });

  it('tells of a local abort on a later turn, never inside abort()', async () => {
    const { socket, events, accepted } = await serve();
    socket.up(3);
    accepted[0]?.abort('going away');
    assert.deepEqual(events, []);
    assert.deepEqual(socket.calls.at(-1), ['abort', 3, 'going away']);
    socket.change(3, 'comm-lost', 0);
    await tick();
    assert.deepEqual(events, [{ type: 'communication-lost', reason: 'local-abort', cause: 'going away' }]);
  });

  it('connects on its own socket, and rejects when the association cannot start', async () => {
    const transport = new KernelTransport({ addon: fakeAddon });
    const events: AssociationEvent[] = [];
    const connected = transport.connect(
      { remote: [{ address: '2001:db8::1', port: 38412 }], outboundStreams: 2 },
      () => ({ message: () => undefined, event: (e) => events.push(e) }),
    );
    const socket = lastSocket();
    assert.equal(socket.family, 6);
    assert.deepEqual(socket.calls, [['connect', ['2001:db8::1'], 38412]]);
    socket.up(99);
    assert.deepEqual(socket.calls.at(-1), ['abort', 99, undefined]);
    socket.up(7);
    const association = await connected;
    assert.equal(association.state, 'established');
    socket.change(7, 'shutdown-comp');
    assert.equal(socket.closed, true);
    assert.deepEqual(events, [{ type: 'shutdown-complete' }]);

    const refused = transport.connect({ remote: [{ address: '192.0.2.1', port: 38412 }] }, () => ({
      message: () => undefined,
      event: () => undefined,
    }));
    lastSocket().change(7, 'cant-str-assoc');
    await assert.rejects(refused, /SCTP_CANT_STR_ASSOC/);
    assert.equal(lastSocket().closed, true);
    await assert.rejects(
      transport.connect(
        {
          remote: [
            { address: '192.0.2.1', port: 1 },
            { address: '192.0.2.2', port: 2 },
          ],
        },
        () => ({ message: () => undefined, event: () => undefined }),
      ),
      /same port/,
    );
  });

  it('closes a listener: stops accepting, shuts down, aborts what does not finish in time', async () => {
    const clock = new ManualClock();
    const { listener, socket, accepted, events } = await serve({ clock });
    socket.up(1);
    socket.up(2);
    const closed = listener.close();
    assert.deepEqual(socket.calls.slice(-3), [
      ['listen', 0],
      ['shutdown', 1],
      ['shutdown', 2],
    ]);
    socket.up(3);
    assert.equal(accepted.length, 2);
    assert.deepEqual(socket.calls.at(-1), ['abort', 3, undefined]);
    socket.change(1, 'shutdown-comp');
    assert.equal(socket.closed, false);
    // The same bound as the userland stack's: a stop does not wait on the kernel's SCTP timers.
    assert.deepEqual(clock.delays, [LISTENER_SHUTDOWN_TIMEOUT_MS]);
    clock.timers[0]?.();
    await closed;
    assert.equal(socket.closed, true);
    assert.deepEqual(socket.calls.at(-1), ['abort', 2, 'listener closed']);
    assert.deepEqual(events, [
      { type: 'shutdown-complete' },
      { type: 'communication-lost', reason: 'local-abort', cause: 'listener closed' },
    ]);
  });
});

describe('kernel transport close', () => {
  it('aborts every association and closes every socket; a listener closed afterwards has nothing to do', async () => {
    const { transport, listener, socket, events } = await serve();
    socket.up(1);
    await transport.close();
    assert.deepEqual(socket.calls.at(-1), ['abort', 1, undefined]);
    assert.equal(socket.closed, true);
    await listener.close();
    // The real socket would throw ERR_SOCKET_CLOSED on listen(0).
    assert.equal(
      socket.calls.some(([call, backlog]) => call === 'listen' && backlog === 0),
      false,
    );
    await tick();
    assert.deepEqual(events, [{ type: 'communication-lost', reason: 'local-abort' }]);
  });
});

describe('error causes (RFC 9260 3.3.10)', () => {
  it('names the causes and shows the text of a user abort and a protocol violation', () => {
    const bytes = Buffer.concat([
      cause(12, Buffer.from('NG reset')),
      cause(1, Buffer.from([0, 5, 0, 0])),
      cause(13, Buffer.from('bad')),
    ]);
    assert.deepEqual(decodeErrorCauses(bytes), {
      ok: true,
      causes: [
        { code: 12, name: 'User-Initiated Abort', text: 'NG reset' },
        { code: 1, name: 'Invalid Stream Identifier' },
        { code: 13, name: 'Protocol Violation', text: 'bad' },
      ],
    });
    assert.equal(
      describeErrorCauses(Buffer.from([0, 12, 0, 3])),
      'malformed error causes (error cause 12 has a bad length 3)',
    );
    assert.equal(describeErrorCauses(Buffer.from([0, 99, 0, 4])), 'cause 99');
  });

  it('never throws on random or mutated bytes (fixed-seed fuzz)', () => {
    let seed = 0x1234abcd;
    const random = () => {
      // xorshift32
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 2 ** 32;
    };
    const valid = Buffer.concat([cause(12, Buffer.from('reason')), cause(3, Buffer.alloc(4))]);
    for (let i = 0; i < 5000; i++) {
      const bytes =
        i % 2 === 0
          ? Buffer.from(Array.from({ length: Math.floor(random() * 64) }, () => Math.floor(random() * 256)))
          : Buffer.from(valid.map((b) => (random() < 0.1 ? Math.floor(random() * 256) : b)));
      const result = decodeErrorCauses(bytes);
      if (result.ok) assert.ok(result.causes.length <= 16);
      else assert.equal(typeof result.error, 'string');
    }
  });
});
